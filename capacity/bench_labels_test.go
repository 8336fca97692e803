package capacity

import (
	"fmt"
	"testing"
	"time"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

// partitionsWorld is BenchmarkSchedulingThroughput's scenario over four
// partitions: the default one and x, y (exclusive) and z (non-exclusive),
// nodes/4 nodes each, sized so that each partition fits containers/4
// containers of <1024, 1>. Leaves a, b and c may use x, y and z; d only the
// default partition. Each leaf's two applications ask for all of its
// partition, but c asks for half of z and d for half as much again as the
// default partition: d borrows the rest of z.
func partitionsWorld(b *testing.B, nodes, containers int) (*Scheduler, map[string][]string) {
	cfg := DefaultConfig()
	cfg.MaxOffSwitchAssignments = containers
	cfg.MaxContainerAssignments = -1
	cfg.NodeLabels = []NodeLabel{{Name: "x"}, {Name: "y"}, {Name: "z", NonExclusive: true}}
	p := queue.Percent
	cfg.Root.Settings.NodeLabels = map[string]LabelSettings{"x": {Capacity: p(100)}, "y": {Capacity: p(100)}, "z": {Capacity: p(100)}}
	var leaves []QueueConfig
	for i, l := range []string{"x", "y", "z", ""} {
		q := Queue(string(rune('a'+i)), 25)
		q.Settings.UserLimitFactor = 4
		q.Settings.AccessibleNodeLabels = []string{}
		if l != "" {
			q.Settings.AccessibleNodeLabels = []string{l}
			q.Settings.NodeLabels = map[string]LabelSettings{l: {Capacity: p(100)}}
			q.Settings.DefaultNodeLabelExpression = l
		}
		leaves = append(leaves, q)
	}
	cfg.Root.Children = leaves
	cfg.Clock = berth.NewManualClock(0)
	s, err := New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	byPart := map[string][]string{}
	per := int64(containers / nodes) // containers per node
	for i := 0; i < nodes; i++ {
		l := []string{"", "x", "y", "z"}[i%4]
		id := fmt.Sprintf("node-%05d", i)
		if err := s.AddNode(NodeSpec{ID: id, Rack: fmt.Sprintf("/rack-%03d", i%100), Capability: berth.New(per*1024, per), Label: l}); err != nil {
			b.Fatal(err)
		}
		byPart[l] = append(byPart[l], id)
	}
	quarter := containers / 4
	asks := map[string]int{"a": quarter, "b": quarter, "c": quarter / 2, "d": quarter + quarter/2}
	for _, q := range []string{"a", "b", "c", "d"} {
		for k := 0; k < 2; k++ {
			id := fmt.Sprintf("app-%s-%d", q, k)
			if _, err := s.SubmitApp(AppSpec{ID: id, Queue: q, User: fmt.Sprintf("user-%s-%d", q, k)}); err != nil {
				b.Fatal(err)
			}
			if _, err := s.Allocate(id, []Ask{{Priority: 1, ResourceName: AnyResource, Capability: berth.New(1024, 1), Count: asks[q] / 2}}, nil); err != nil {
				b.Fatal(err)
			}
		}
	}
	return s, byPart
}

// BenchmarkPartitionsThroughput places 10,000 containers on four
// partitions and reports each partition's throughput: the containers that
// landed there per CPU second spent in its nodes' heartbeats (z's include
// the containers d borrows from it).
func BenchmarkPartitionsThroughput(b *testing.B) {
	const containers = 10000
	for _, nodes := range []int{1000, 5000} {
		b.Run(fmt.Sprintf("nodes=%d", nodes), func(b *testing.B) {
			placed := map[string]int{}
			cpu := map[string]time.Duration{}
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				s, byPart := partitionsWorld(b, nodes, containers)
				b.StartTimer()
				n, idle := 0, 0
				for n < containers {
					before := n
					for _, l := range []string{"", "x", "y", "z"} {
						c0 := cpuTime()
						for _, id := range byPart[l] {
							al, err := s.Heartbeat(id, nil)
							if err != nil {
								b.Fatal(err)
							}
							n += len(al)
							placed[l] += len(al)
						}
						cpu[l] += cpuTime() - c0
					}
					// A default-partition ask borrows z only after missing
					// as many opportunities as there are nodes: rounds of
					// nothing may come first.
					if idle = idle + 1; n > before {
						idle = 0
					}
					if idle > 100 {
						b.Fatalf("stuck at %d containers", n)
					}
				}
			}
			for _, l := range []string{"", "x", "y", "z"} {
				name := l
				if l == "" {
					name = "default"
				}
				b.ReportMetric(float64(placed[l])/cpu[l].Seconds(), "containers/cpu-s("+name+")")
			}
		})
	}
}
