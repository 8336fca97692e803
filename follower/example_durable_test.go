package follower_test

import (
	"bytes"
	"fmt"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/capacity"
	"github.com/berthsched/berth/follower"
	"github.com/berthsched/berth/plan"
)

// A follower keeps no state between runs, so its snapshot holds only its
// flavor; the host restores it over its (restored) scheduler and plans and
// the next run carries on.
func ExampleRestoreFollower() {
	cfg := capacity.DefaultConfig()
	dedicated := capacity.Queue("dedicated", 80)
	dedicated.Reservable = true
	cfg.Root.Children = []capacity.QueueConfig{capacity.Queue("default", 20), dedicated}
	clock := berth.NewManualClock(0)
	cfg.Clock = clock
	cs, _ := capacity.New(cfg)
	_ = cs.AddNode(capacity.NodeSpec{ID: "n1", Rack: "/r1", Capability: berth.New(100*1024, 100)})
	p, _ := plan.New(plan.DefaultConfig("dedicated", berth.New(80*1024, 80), clock))
	iv := berth.Interval{Start: 1000, End: 3000}
	a, _ := plan.NewAllocation(plan.ReservationID{ClusterTimestamp: 1, Sequence: 1}, "alice",
		plan.Definition{Arrival: iv.Start, Deadline: iv.End}, iv, []plan.IntervalResource{{Interval: iv, Resource: berth.New(40*1024, 40)}})
	_ = p.AddReservation(a)

	f, _ := follower.New(follower.Config{Scheduler: cs, Flavor: follower.CapacityFlavor, Plans: follower.Plans{p}})
	res, _ := f.Run(0)
	fmt.Println("before:", res[0])

	var snap bytes.Buffer
	if err := f.SaveState(&snap); err != nil {
		fmt.Println(err)
		return
	}
	// The flavor comes back by name; the scheduler and plans from the host.
	g, err := follower.RestoreFollower(&snap, follower.Config{Scheduler: cs, Plans: follower.Plans{p}})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, _ = g.Run(1000)
	fmt.Println("after: ", res[0])
	// Output:
	// before: plan dedicated at 0: resources <memory:81920, vCores:80>, reserved <memory:0, vCores:0>
	// after:  plan dedicated at 1000: resources <memory:81920, vCores:80>, reserved <memory:40960, vCores:40>, created [reservation_1_0001]
}
