package capacity_test

import (
	"fmt"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/capacity"
	"github.com/berthsched/berth/queue"
)

// Node labels: g1 is in partition gpu, which only queue ml may use, and
// which is shared (non-exclusive). ml's application asks for gpu and gets
// g1; etl's unlabelled asks fill n1 and then borrow what ml leaves idle on
// g1 (once they have missed as many chances as there are nodes, YARN's
// delay for unlabelled asks on a shared partition); the preemption policy
// takes it back when ml asks for more.
func ExampleNodeLabel() {
	cfg := capacity.DefaultConfig()
	cfg.NodeLabels = []capacity.NodeLabel{{Name: "gpu", NonExclusive: true}}
	ml := capacity.Queue("ml", 50)
	ml.Settings.AccessibleNodeLabels = []string{"gpu"}
	ml.Settings.NodeLabels = map[string]capacity.LabelSettings{"gpu": {Capacity: queue.Percent(100)}}
	etl := capacity.Queue("etl", 50)
	etl.Settings.UserLimitFactor = 4
	cfg.Root.Settings.NodeLabels = map[string]capacity.LabelSettings{"gpu": {Capacity: queue.Percent(100)}}
	cfg.Root.Children = []capacity.QueueConfig{ml, etl}
	cfg.MaxOffSwitchAssignments = 8 // fill a node per heartbeat
	clock := berth.NewManualClock(0)
	cfg.Clock = clock
	s, err := capacity.New(cfg)
	if err != nil {
		panic(err)
	}
	if err := s.AddNodes(
		capacity.NodeSpec{ID: "n1", Rack: "/r1", Capability: berth.New(8192, 8)},
		capacity.NodeSpec{ID: "g1", Rack: "/r1", Capability: berth.New(8192, 8), Label: "gpu"},
	); err != nil {
		panic(err)
	}
	apps := []struct {
		id, queue, label string
		count            int
	}{{"train", "ml", "gpu", 3}, {"report", "etl", "", 12}}
	for _, app := range apps {
		if _, err := s.SubmitApp(capacity.AppSpec{ID: app.id, Queue: app.queue, User: app.id, NodeLabelExpression: app.label}); err != nil {
			panic(err)
		}
		ask := capacity.Ask{Priority: 1, ResourceName: capacity.AnyResource, Capability: berth.New(1024, 1), Count: app.count}
		if _, err := s.Allocate(app.id, []capacity.Ask{ask}, nil); err != nil {
			panic(err)
		}
	}
	for _, id := range []string{"n1", "g1", "g1", "g1"} {
		clock.Advance(1000)
		al, err := s.Heartbeat(id, nil)
		if err != nil {
			panic(err)
		}
		perApp := map[string]int{}
		for _, a := range al {
			perApp[a.App]++
		}
		fmt.Printf("%s: train %d, report %d\n", id, perApp["train"], perApp["report"])
	}
	// Output:
	// n1: train 0, report 8
	// g1: train 3, report 0
	// g1: train 0, report 4
	// g1: train 0, report 0
}
