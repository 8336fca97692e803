package follower_test

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/capacity"
	"github.com/berthsched/berth/fair"
	"github.com/berthsched/berth/follower"
	"github.com/berthsched/berth/plan"
)

// planFollowerTour publishes a plan of two reservations to a capacity
// scheduler, one plan step at a time, and prints the reservation queues
// the scheduler holds after each run.
func planFollowerTour(w io.Writer) error {
	// A 100-container cluster; "dedicated" is a reservable (plan) queue
	// with 80% of it.
	cfg := capacity.DefaultConfig()
	dedicated := capacity.Queue("dedicated", 80)
	dedicated.Reservable = true
	cfg.Root.Children = []capacity.QueueConfig{capacity.Queue("default", 20), dedicated}
	clock := berth.NewManualClock(0)
	cfg.Clock = clock
	cs, err := capacity.New(cfg)
	if err != nil {
		return err
	}
	if err := cs.AddNode(capacity.NodeSpec{ID: "n1", Rack: "/r1", Capability: berth.New(100*1024, 100)}); err != nil {
		return err
	}

	// The plan of the queue, with two reservations of 1 GB containers:
	// r1 holds 20 on [0s, 3s), r2 40 on [1s, 2s).
	p, err := plan.New(plan.DefaultConfig("dedicated", berth.New(80*1024, 80), clock))
	if err != nil {
		return err
	}
	reserve := func(seq int64, start, end berth.Time, n int64) (plan.ReservationID, error) {
		id := plan.ReservationID{ClusterTimestamp: 1, Sequence: seq}
		def := plan.Definition{Arrival: start, Deadline: end, Interpreter: plan.RAll,
			Stages: []plan.Stage{{Capability: berth.New(1024, 1), Containers: n, Concurrency: 1, Duration: end - start}}}
		a, err := plan.NewAllocation(id, "alice", def, berth.Interval{Start: start, End: end},
			[]plan.IntervalResource{{Interval: berth.Interval{Start: start, End: end}, Resource: berth.New(1024*n, n)}})
		if err != nil {
			return id, err
		}
		return id, p.AddReservation(a)
	}
	r1, err := reserve(1, 0, 3000, 20)
	if err != nil {
		return err
	}
	if _, err := reserve(2, 1000, 2000, 40); err != nil {
		return err
	}

	// The capacity scheduler is a follower.Scheduler as it is.
	f, err := follower.New(follower.Config{Scheduler: cs, Flavor: follower.CapacityFlavor, Plans: follower.Plans{p}})
	if err != nil {
		return err
	}

	for _, now := range []berth.Time{0, 1000, 2000, 3000} {
		clock.Set(now)
		if _, err := f.Run(now); err != nil {
			return err
		}
		if now == 0 { // an application runs in r1's queue
			if _, err := cs.SubmitApp(capacity.AppSpec{ID: "app_1", Queue: "dedicated", User: "alice", ReservationID: r1.String()}); err != nil {
				return err
			}
		}
		infos, err := cs.ReservationQueues("dedicated")
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "t=%4d", now)
		for _, in := range infos {
			fmt.Fprintf(w, "  %s %.2f (%d apps)", strings.TrimPrefix(in.Name, "reservation_1_"), in.Capacity, in.NumApps)
		}
		fmt.Fprintln(w)
	}
	return nil
}

// Reservations become queues of the plan queue while they are active, sized
// as their share of the plan; the default queue gets the rest. When r1
// ends, its application moves to the default queue and its queue goes.
func Example() {
	if err := planFollowerTour(os.Stdout); err != nil {
		fmt.Println(err)
	}
	// Output:
	// t=   0  dedicated-default 0.75 (0 apps)  0001 0.25 (1 apps)
	// t=1000  dedicated-default 0.25 (0 apps)  0001 0.25 (1 apps)  0002 0.50 (0 apps)
	// t=2000  dedicated-default 0.75 (0 apps)  0001 0.25 (1 apps)
	// t=3000  dedicated-default 1.00 (1 apps)
}

// stepPlanFollower builds a capacity scheduler with a reservable queue
// (80% of 100 containers), a plan with two reservations, runs the follower
// at a few times and prints the reservation queues with their capacities
// and guaranteed resources.
func stepPlanFollower(w io.Writer) error {
	cfg := capacity.DefaultConfig()
	dedicated := capacity.Queue("dedicated", 80)
	dedicated.Reservable = true
	cfg.Root.Children = []capacity.QueueConfig{capacity.Queue("default", 20), dedicated}
	clock := berth.NewManualClock(0)
	cfg.Clock = clock
	cs, err := capacity.New(cfg)
	if err != nil {
		return err
	}
	if err := cs.AddNode(capacity.NodeSpec{ID: "n1", Rack: "/r1", Capability: berth.New(100*1024, 100)}); err != nil {
		return err
	}
	p, err := plan.New(plan.DefaultConfig("dedicated", berth.New(80*1024, 80), clock))
	if err != nil {
		return err
	}
	for i, iv := range []berth.Interval{{Start: 0, End: 3000}, {Start: 1000, End: 2000}} {
		n := int64(20 * (i + 1)) // r1: 20 containers on [0s, 3s), r2: 40 on [1s, 2s)
		a, err := plan.NewAllocation(plan.ReservationID{ClusterTimestamp: 1, Sequence: int64(i + 1)}, "alice",
			plan.Definition{Arrival: iv.Start, Deadline: iv.End}, iv, []plan.IntervalResource{{Interval: iv, Resource: berth.New(1024*n, n)}})
		if err == nil {
			err = p.AddReservation(a)
		}
		if err != nil {
			return err
		}
	}
	f, err := follower.New(follower.Config{Scheduler: cs, Flavor: follower.CapacityFlavor, Plans: follower.Plans{p}})
	if err != nil {
		return err
	}
	for _, now := range []berth.Time{0, 1000, 2000, 3000} {
		if _, err := f.Run(now); err != nil {
			return err
		}
		names, err := cs.ReservationQueueNames("dedicated")
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "t=%d\n", now)
		for _, q := range names {
			e, res, err := cs.ReservationQueueState("dedicated", q)
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "  %-19s %.2f %v\n", q, e.Capacity, res)
		}
	}
	return nil
}

// The capacity scheduler plugs into the follower directly: each run
// creates a queue per active reservation, sized as its share of the plan
// queue, gives the plan's default queue the rest, and removes the queues of
// reservations that ended.
func ExampleFollower_capacity() {
	if err := stepPlanFollower(os.Stdout); err != nil {
		fmt.Println(err)
	}
	// Output:
	// t=0
	//   dedicated-default   0.75 <memory:61440, vCores:60>
	//   reservation_1_0001  0.25 <memory:20480, vCores:20>
	// t=1000
	//   dedicated-default   0.25 <memory:20480, vCores:20>
	//   reservation_1_0001  0.25 <memory:20480, vCores:20>
	//   reservation_1_0002  0.50 <memory:40960, vCores:40>
	// t=2000
	//   dedicated-default   0.75 <memory:61440, vCores:60>
	//   reservation_1_0001  0.25 <memory:20480, vCores:20>
	// t=3000
	//   dedicated-default   1.00 <memory:81920, vCores:80>
}

// stepFairPlanFollower is stepPlanFollower with the fair scheduler: the
// plan queue "root.dedicated" has weight 4 of 5 (80 of 100 containers as
// its steady fair share), reservation queues are full paths and an
// entitlement is a queue's weight.
func stepFairPlanFollower(w io.Writer) error {
	af, err := fair.ParseAllocationFile([]byte(`<allocations>
  <queue name="default"><weight>1</weight></queue>
  <queue name="dedicated"><weight>4</weight><reservation/></queue>
</allocations>`), fair.ParseOptions{})
	if err != nil {
		return err
	}
	clock := berth.NewManualClock(0)
	cfg := fair.DefaultConfig()
	cfg.Allocation = af
	cfg.Clock = clock
	fs, err := fair.New(cfg)
	if err != nil {
		return err
	}
	if err := fs.AddNode(fair.NodeSpec{ID: "n1", Capability: berth.New(100*1024, 100)}); err != nil {
		return err
	}
	// FairReservationSystem sizes the plan by the queue's steady fair share.
	planRes, err := fs.PlanResources("root.dedicated")
	if err != nil {
		return err
	}
	p, err := plan.New(plan.DefaultConfig("root.dedicated", planRes, clock))
	if err != nil {
		return err
	}
	for i, iv := range []berth.Interval{{Start: 0, End: 3000}, {Start: 1000, End: 2000}} {
		n := int64(20 * (i + 1)) // r1: 20 containers on [0s, 3s), r2: 40 on [1s, 2s)
		a, err := plan.NewAllocation(plan.ReservationID{ClusterTimestamp: 1, Sequence: int64(i + 1)}, "alice",
			plan.Definition{Arrival: iv.Start, Deadline: iv.End}, iv, []plan.IntervalResource{{Interval: iv, Resource: berth.New(1024*n, n)}})
		if err == nil {
			err = p.AddReservation(a)
		}
		if err != nil {
			return err
		}
	}
	f, err := follower.New(follower.Config{Scheduler: fs, Flavor: follower.FairFlavor, Plans: follower.Plans{p}})
	if err != nil {
		return err
	}
	for _, now := range []berth.Time{0, 1000, 3000} {
		if _, err := f.Run(now); err != nil {
			return err
		}
		names, err := fs.ReservationQueueNames("root.dedicated")
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "t=%d\n", now)
		for _, q := range names {
			e, res, err := fs.ReservationQueueState("root.dedicated", q)
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "  %-34s %.2f %v\n", q, e.Capacity, res)
		}
	}
	return nil
}

// The fair scheduler plugs into the follower directly too, with the fair
// flavor: entitlements become weights, so each reservation queue's steady
// fair share is its share of the plan queue's (the fair policy divides
// memory; the scheduler reports vcores in the same proportion, see the
// package's differences).
func ExampleFollower_fair() {
	if err := stepFairPlanFollower(os.Stdout); err != nil {
		fmt.Println(err)
	}
	// Output:
	// t=0
	//   root.dedicated.dedicated-default   0.75 <memory:61440, vCores:60>
	//   root.dedicated.reservation_1_0001  0.25 <memory:20480, vCores:20>
	// t=1000
	//   root.dedicated.dedicated-default   0.25 <memory:20480, vCores:20>
	//   root.dedicated.reservation_1_0001  0.25 <memory:20480, vCores:20>
	//   root.dedicated.reservation_1_0002  0.50 <memory:40960, vCores:40>
	// t=3000
	//   root.dedicated.dedicated-default   1.00 <memory:81920, vCores:80>
}
