package capacity_test

import (
	"bytes"
	"fmt"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/capacity"
)

// Saving a scheduler with a running application and an outstanding ask,
// restoring it into a new scheduler (as after a restart) and continuing:
// the restored scheduler allocates the next container as the original
// would, with the next container id.
func ExampleRestoreScheduler() {
	clock := berth.NewManualClock(0)
	cfg := capacity.DefaultConfig()
	cfg.Clock = clock
	s, err := capacity.New(cfg)
	if err != nil {
		panic(err)
	}
	if err := s.AddNode(capacity.NodeSpec{ID: "n1", Rack: "/r1", Capability: berth.New(8192, 8)}); err != nil {
		panic(err)
	}
	if _, err := s.SubmitApp(capacity.AppSpec{ID: "etl", Queue: "default", User: "alice"}); err != nil {
		panic(err)
	}
	ask := capacity.Ask{Priority: 1, ResourceName: capacity.AnyResource, Capability: berth.New(2048, 1), Count: 3}
	if _, err := s.Allocate("etl", []capacity.Ask{ask}, nil); err != nil {
		panic(err)
	}
	// One off-switch container per heartbeat by default: container 1 now,
	// two more outstanding.
	if _, err := s.Heartbeat("n1", nil); err != nil {
		panic(err)
	}

	var snap bytes.Buffer
	if err := s.SaveState(&snap); err != nil {
		panic(err)
	}
	restored, err := capacity.RestoreScheduler(&snap, capacity.RestoreEnv{Clock: clock})
	if err != nil {
		panic(err)
	}
	clock.Advance(1000)
	for _, sched := range []*capacity.Scheduler{s, restored} {
		al, err := sched.Heartbeat("n1", nil)
		if err != nil {
			panic(err)
		}
		for _, a := range al {
			fmt.Printf("container %d on %s for %s, %v\n", a.ID, a.Node, a.App, a.Resource)
		}
	}
	// Output:
	// container 2 on n1 for etl, <memory:2048, vCores:1>
	// container 2 on n1 for etl, <memory:2048, vCores:1>
}
