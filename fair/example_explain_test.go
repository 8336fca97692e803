package fair_test

import (
	"fmt"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/fair"
)

// Why does an application wait? Queue "small" may hold 1 GB; its
// application asks for three 1 GB containers. The other queue's
// application asks for node n2 (or its rack), and delay scheduling holds
// it back from n1 for a while. Explain shows each
// attempt's reason; a dry run tells what a node would get now without
// changing anything.
func ExampleScheduler_Explain() {
	af, _ := fair.ParseAllocationFile([]byte(`<allocations>
  <queue name="small"><maxResources>1024 mb, 1 vcores</maxResources></queue>
  <queue name="big"/>
</allocations>`), fair.ParseOptions{})
	cfg := fair.DefaultConfig()
	cfg.LocalityThresholdNode, cfg.LocalityThresholdRack = 1, 1
	cfg.Allocation = af
	cfg.Clock = berth.NewManualClock(0)
	s, _ := fair.New(cfg)
	for _, n := range []string{"n1", "n2"} {
		_ = s.AddNode(fair.NodeSpec{ID: n, Rack: "/r1", Capability: berth.New(8192, 8)})
	}
	_, _ = s.SubmitApp(fair.AppSpec{ID: "etl", Queue: "small", User: "ann"})
	_, _ = s.Allocate("etl", []fair.Ask{{Priority: 1, ResourceName: fair.AnyResource, Capability: berth.New(1024, 1), Count: 3}}, nil)
	_, _ = s.SubmitApp(fair.AppSpec{ID: "ml", Queue: "big", User: "bob"})
	_, _ = s.Allocate("ml", []fair.Ask{
		{Priority: 1, ResourceName: "n2", Capability: berth.New(1024, 1), Count: 1},
		{Priority: 1, ResourceName: "/r1", Capability: berth.New(1024, 1), Count: 1},
		{Priority: 1, ResourceName: fair.AnyResource, Capability: berth.New(1024, 1), Count: 1},
	}, nil)
	_ = s.RecordApp("etl", 2)
	_ = s.RecordApp("ml", 1)
	for range 2 {
		_, _ = s.Heartbeat("n1", nil)
	}
	for _, app := range []string{"etl", "ml"} {
		attempts, _ := s.Explain(app, 2)
		for _, a := range attempts {
			fmt.Println(a)
		}
	}
	d, _ := s.DryRun("n2")
	for _, al := range d.Allocations {
		fmt.Printf("n2 would give %s a %v container\n", al.Container.App, al.Container.Locality)
	}
	// Output:
	// t=0 node n1: etl in root.small ALLOCATED <memory:1024, vCores:1> at priority 1 (OFF_SWITCH)
	// t=0 node n1: etl in root.small SKIPPED: the queue is at its maximum
	// t=0 node n1: ml in root.big SKIPPED: delay scheduling waits for a more local node
	// n2 would give ml a NODE_LOCAL container
}
