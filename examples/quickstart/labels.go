package main

import (
	"fmt"
	"io"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/capacity"
	"github.com/berthsched/berth/queue"
)

// stepLabels shows node partitions: node g1 is in the shared partition
// gpu, which only queue ml may use. ml's asks for gpu get g1; etl's
// unlabelled asks fill n1, then borrow what ml leaves idle on g1 once they
// have missed as many chances as there are nodes (YARN's delay for
// unlabelled asks on a non-exclusive partition).
func stepLabels(w io.Writer) error {
	cfg := capacity.DefaultConfig()
	cfg.NodeLabels = []capacity.NodeLabel{{Name: "gpu", NonExclusive: true}}
	ml := capacity.Queue("ml", 50)
	ml.Settings.AccessibleNodeLabels = []string{"gpu"}
	ml.Settings.NodeLabels = map[string]capacity.LabelSettings{"gpu": {Capacity: queue.Percent(100)}}
	etl := capacity.Queue("etl", 50)
	etl.Settings.UserLimitFactor = 4
	cfg.Root.Settings.NodeLabels = map[string]capacity.LabelSettings{"gpu": {Capacity: queue.Percent(100)}}
	cfg.Root.Children = []capacity.QueueConfig{ml, etl}
	cfg.MaxOffSwitchAssignments = 8
	clock := berth.NewManualClock(0)
	cfg.Clock = clock
	s, err := capacity.New(cfg)
	if err != nil {
		return err
	}
	if err := s.AddNodes(
		capacity.NodeSpec{ID: "n1", Rack: "/r1", Capability: berth.New(8192, 8)},
		capacity.NodeSpec{ID: "g1", Rack: "/r1", Capability: berth.New(8192, 8), Label: "gpu"},
	); err != nil {
		return err
	}
	for _, app := range []struct {
		id, queue, label string
		count            int
	}{{"train", "ml", "gpu", 3}, {"report", "etl", "", 12}} {
		if _, err := s.SubmitApp(capacity.AppSpec{ID: app.id, Queue: app.queue, User: app.id, NodeLabelExpression: app.label}); err != nil {
			return err
		}
		ask := capacity.Ask{Priority: 1, ResourceName: capacity.AnyResource, Capability: berth.New(1024, 1), Count: app.count}
		if _, err := s.Allocate(app.id, []capacity.Ask{ask}, nil); err != nil {
			return err
		}
	}
	for _, id := range []string{"n1", "g1", "g1"} {
		clock.Advance(1000)
		got, err := s.Heartbeat(id, nil)
		if err != nil {
			return err
		}
		perApp := map[string]int{}
		for _, a := range got {
			perApp[a.App]++
		}
		fmt.Fprintf(w, "heartbeat %s (partition %q): train %d, report %d\n", id, map[string]string{"g1": "gpu"}[id], perApp["train"], perApp["report"])
	}
	return nil
}

// stepExplain asks why an application waits: queue small may use at most
// 12.5 % of the cluster, so its third container is refused with that
// reason; a dry run says what a node would get now without changing
// anything.
func stepExplain(w io.Writer) error {
	cfg := capacity.DefaultConfig()
	small := capacity.Queue("small", 10)
	small.MaxCapacity = queue.Percent(12.5)
	cfg.Root.Children = []capacity.QueueConfig{small, capacity.Queue("big", 90)}
	cfg.Clock = berth.NewManualClock(0)
	s, err := capacity.New(cfg)
	if err != nil {
		return err
	}
	for _, n := range []string{"n1", "n2"} {
		if err := s.AddNode(capacity.NodeSpec{ID: n, Rack: "/r1", Capability: berth.New(8192, 8)}); err != nil {
			return err
		}
	}
	if _, err := s.SubmitApp(capacity.AppSpec{ID: "etl", Queue: "small", User: "ann"}); err != nil {
		return err
	}
	if _, err := s.Allocate("etl", []capacity.Ask{{Priority: 1, ResourceName: capacity.AnyResource, Capability: berth.New(1024, 1), Count: 3}}, nil); err != nil {
		return err
	}
	if err := s.RecordApp("etl", 3); err != nil {
		return err
	}
	for range 3 {
		if _, err := s.Heartbeat("n1", nil); err != nil {
			return err
		}
	}
	attempts, err := s.Explain("etl", 2)
	if err != nil {
		return err
	}
	for _, a := range attempts {
		fmt.Fprintln(w, a)
	}
	d, err := s.DryRun("n2")
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "a dry run on n2 would allocate %d containers:\n", len(d.Allocations))
	for _, a := range d.Activities {
		fmt.Fprintln(w, " ", a)
	}
	return nil
}
