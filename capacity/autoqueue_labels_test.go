package capacity

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

// Auto-created queues on a labelled cluster: a leaf created under a v2
// parent that holds all of partition x inherits the parent's access and
// takes its settings on x from the templates, and its applications'
// labelled asks run on x only (no guarantee there, but the parent's
// maximum: x is idle), and the scheduler with its
// created queue and partitions survives a snapshot, with multi-node
// rounds too.
func TestAutoCreateOnPartitions(t *testing.T) {
	for _, multi := range []bool{false, true} {
		t.Run(map[bool]string{false: "heartbeats", true: "multi-node rounds"}[multi], func(t *testing.T) {
			cfg := v2Config()
			cfg.NodeLabels = []NodeLabel{{Name: "x"}}
			p := &cfg.Root.Children[0]
			p.Settings.AccessibleNodeLabels = []string{"x"}
			p.Settings.NodeLabels = map[string]LabelSettings{"x": {Capacity: queue.Percent(100)}}
			p.Children[0].Settings.NodeLabels = map[string]LabelSettings{"x": {Capacity: queue.Percent(100)}}
			cfg.Root.Settings.AccessibleNodeLabels = []string{AnyLabel}
			// The templates give the created queues their settings on x
			// (YARN: the labels the template's keys configure).
			onX := map[string]LabelSettings{"x": {MaxCapacity: queue.Percent(100)}}
			p.Settings.AutoCreate.Leaf.Settings.NodeLabels = onX
			cfg.Root.Settings.NodeLabels = map[string]LabelSettings{"x": {Capacity: queue.Percent(100)}}
			if multi {
				cfg.MultiNode = MultiNodePlacement{Enabled: true, Policy: "usage", Policies: map[string]NodeSorting{"usage": {Policy: ResourceUsageNodes{}}}}
			}
			clock := berth.NewManualClock(0)
			cfg.Clock = clock
			s, err := New(cfg)
			require.NoError(t, err)
			require.NoError(t, s.AddNodes(mkNode("d1", 10*gb, 10), mkNode("d2", 10*gb, 10),
				NodeSpec{ID: "x1", Rack: "/r", Capability: berth.New(10*gb, 10), Label: "x"}))
			q, err := s.SubmitApp(AppSpec{ID: "a1", Queue: "root.p.alice", User: "alice", AMResource: berth.New(gb, 1)})
			require.NoError(t, err)
			require.Equal(t, "root.p.alice", q)
			_, err = s.Allocate("a1", []Ask{{Priority: 1, ResourceName: AnyResource, Capability: berth.New(gb, 1), Count: 4, NodeLabelExpression: "x"}}, nil)
			require.NoError(t, err)
			for range 4 {
				for _, n := range []string{"d1", "d2", "x1"} {
					_, err := s.Heartbeat(n, nil)
					require.NoError(t, err)
				}
				if multi {
					_, err := s.ScheduleRound()
					require.NoError(t, err)
				}
			}
			require.NoError(t, s.Check())
			on := map[string]int{}
			for _, c := range s.Snapshot().Containers {
				on[c.Node]++
			}
			assert.Equal(t, 4, on["x1"], "the labelled asks run on x: %v", on)
			assert.Equal(t, 1, on["d1"]+on["d2"], "the AM on the default partition: %v", on)
			assert.True(t, s.byPath["root.p.alice"].access.has("x"), "created under a parent with x")

			r := restoreBytes(t, saveBytes(t, s), clock)
			assert.Equal(t, queuePaths(s), queuePaths(r))
			assert.Equal(t, s.Snapshot(), r.Snapshot())
		})
	}
}

// The auto-creation templates' label keys are read into the templates'
// settings, v2's shared template under the leaf template's own keys, and
// name the cluster's labels.
func TestAutoCreateTemplateLabelsXML(t *testing.T) {
	doc := xmlDoc(
		prefix+"root.queues", "p",
		prefix+"root.accessible-node-labels.x.capacity", "100",
		prefix+"root.p.capacity", "100",
		prefix+"root.p.accessible-node-labels", "x",
		prefix+"root.p.accessible-node-labels.x.capacity", "100",
		prefix+"root.p.auto-queue-creation-v2.enabled", "true",
		prefix+"root.p.auto-queue-creation-v2.template.accessible-node-labels", "x,y",
		prefix+"root.p.auto-queue-creation-v2.template.accessible-node-labels.x.maximum-capacity", "50",
		prefix+"root.p.auto-queue-creation-v2.leaf-template.accessible-node-labels.x.maximum-capacity", "80",
	)
	cfg, rep, err := ParseXMLReport(strings.NewReader(doc), XMLOptions{})
	require.NoError(t, err)
	assert.Empty(t, rep.Notes, rep.String())
	assert.Equal(t, []NodeLabel{{Name: "x"}, {Name: "y"}}, cfg.NodeLabels)
	ac := cfg.Root.Children[0].Settings.AutoCreate
	require.NotNil(t, ac)
	assert.Equal(t, []string{"x", "y"}, ac.Leaf.Settings.AccessibleNodeLabels)
	assert.Equal(t, map[string]LabelSettings{"x": {MaxCapacity: queue.Percent(80)}}, ac.Leaf.Settings.NodeLabels)
	assert.Equal(t, map[string]LabelSettings{"x": {MaxCapacity: queue.Percent(50)}}, ac.Parent.Settings.NodeLabels)
}
