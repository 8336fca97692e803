package capacity_test

import (
	"fmt"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/capacity"
)

// A two-queue cluster where both applications ask for more than fits:
// each pass gives the next container to the queue with the lowest used
// capacity (used over guarantee), so the 16 GB split 12:4 as configured.
func Example() {
	cfg := capacity.DefaultConfig()
	cfg.Root.Children = []capacity.QueueConfig{
		capacity.Queue("prod", 75),
		capacity.Queue("dev", 25),
	}
	cfg.MaxOffSwitchAssignments = 8 // fill a node per heartbeat
	clock := berth.NewManualClock(0)
	s, err := capacity.New(cfg, clock)
	if err != nil {
		panic(err)
	}
	for _, id := range []string{"n1", "n2"} {
		if err := s.AddNode(capacity.NodeSpec{ID: id, Rack: "/r1", Capability: berth.New(8192, 8)}); err != nil {
			panic(err)
		}
	}
	for _, app := range []struct{ id, queue string }{{"etl", "prod"}, {"adhoc", "dev"}} {
		if _, err := s.SubmitApp(capacity.AppSpec{ID: app.id, Queue: app.queue, User: app.id}); err != nil {
			panic(err)
		}
		ask := capacity.Ask{Priority: 1, ResourceName: capacity.AnyResource, Capability: berth.New(1024, 1), Count: 16}
		if _, err := s.Allocate(app.id, []capacity.Ask{ask}, nil); err != nil {
			panic(err)
		}
	}
	for _, id := range []string{"n1", "n2"} {
		clock.Advance(1000)
		al, err := s.Heartbeat(id, nil)
		if err != nil {
			panic(err)
		}
		perQueue := map[string]int{}
		for _, a := range al {
			perQueue[a.Queue]++
		}
		fmt.Printf("%s: prod %d, dev %d\n", id, perQueue["root.prod"], perQueue["root.dev"])
	}
	// Output:
	// n1: prod 6, dev 2
	// n2: prod 6, dev 2
}
