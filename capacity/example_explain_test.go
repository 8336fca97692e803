package capacity_test

import (
	"fmt"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/capacity"
	"github.com/berthsched/berth/queue"
)

// Why does an application wait? Queue "small" may use at most 12.5 % of
// the cluster (2 GB of 16 GB); its application asks for three 1 GB
// containers. The other queue's application asks for node n2 (or its
// rack), and delay scheduling holds it back from n1 once. Explain shows
// each attempt's reason; a dry run tells what a node would get now, and
// why, without changing anything.
func ExampleScheduler_Explain() {
	cfg := capacity.DefaultConfig()
	small := capacity.Queue("small", 10)
	small.MaxCapacity = queue.Percent(12.5)
	cfg.Root.Children = []capacity.QueueConfig{small, capacity.Queue("big", 90)}
	cfg.NodeLocalityDelay = 1
	cfg.Clock = berth.NewManualClock(0)
	s, _ := capacity.New(cfg)
	for _, n := range []string{"n1", "n2"} {
		_ = s.AddNode(capacity.NodeSpec{ID: n, Rack: "/r1", Capability: berth.New(8192, 8)})
	}
	_, _ = s.SubmitApp(capacity.AppSpec{ID: "etl", Queue: "small", User: "ann"})
	_, _ = s.Allocate("etl", []capacity.Ask{{Priority: 1, ResourceName: capacity.AnyResource, Capability: berth.New(1024, 1), Count: 3}}, nil)
	_, _ = s.SubmitApp(capacity.AppSpec{ID: "ml", Queue: "big", User: "bob"})
	_, _ = s.Allocate("ml", []capacity.Ask{
		{Priority: 1, ResourceName: "n2", Capability: berth.New(1024, 1), Count: 1},
		{Priority: 1, ResourceName: "/r1", Capability: berth.New(1024, 1), Count: 1},
		{Priority: 1, ResourceName: capacity.AnyResource, Capability: berth.New(1024, 1), Count: 1},
	}, nil)
	_ = s.RecordApp("etl", 3)
	_ = s.RecordApp("ml", 2)
	for range 3 {
		_, _ = s.Heartbeat("n1", nil)
	}
	for _, app := range []string{"etl", "ml"} {
		attempts, _ := s.Explain(app, 2)
		for _, a := range attempts {
			fmt.Println(a)
		}
	}
	d, _ := s.DryRun("n2")
	fmt.Printf("n2 would allocate %d containers:\n", len(d.Allocations))
	for _, a := range d.Activities {
		fmt.Println(a)
	}
	// Output:
	// t=0 node n1: etl in root.small ALLOCATED <memory:1024, vCores:1> at priority 1 (OFF_SWITCH)
	// t=0 node n1: etl in root.small SKIPPED: the queue is at its maximum (root.small)
	// t=0 node n1: ml in root.big SKIPPED: delay scheduling waits for a more local node
	// t=0 node n1: ml in root.big ALLOCATED <memory:1024, vCores:1> at priority 1 (RACK_LOCAL)
	// n2 would allocate 0 containers:
	// t=0 node n2: root.small SKIPPED: the queue is at its maximum
}
