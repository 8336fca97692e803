package capacity

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

// gpuWorld is ExampleNodeLabel's cluster: n1 in the default partition, g1
// in the non-exclusive partition gpu that only ml accesses; train (ml)
// asks for gpu, report (etl) for the default partition. mutate changes the configuration.
func gpuWorld(t *testing.T, mutate func(*Config)) (*Scheduler, *berth.ManualClock) {
	t.Helper()
	cfg := DefaultConfig()
	cfg.NodeLabels = []NodeLabel{{Name: "gpu", NonExclusive: true}}
	ml := Queue("ml", 50)
	ml.Settings.AccessibleNodeLabels = []string{"gpu"}
	ml.Settings.NodeLabels = map[string]LabelSettings{"gpu": {Capacity: queue.Percent(100)}}
	etl := Queue("etl", 50)
	etl.Settings.UserLimitFactor = 4
	cfg.Root.Settings.NodeLabels = map[string]LabelSettings{"gpu": {Capacity: queue.Percent(100)}}
	cfg.Root.Children = []QueueConfig{ml, etl}
	cfg.MaxOffSwitchAssignments = 8
	if mutate != nil {
		mutate(&cfg)
	}
	clock := berth.NewManualClock(0)
	cfg.Clock = clock
	s, err := New(cfg)
	require.NoError(t, err)
	require.NoError(t, s.AddNodes(
		NodeSpec{ID: "n1", Rack: "/r1", Capability: berth.New(8192, 8)},
		NodeSpec{ID: "g1", Rack: "/r1", Capability: berth.New(8192, 8), Label: "gpu"},
	))
	for _, app := range []struct {
		id, queue, label string
		mb               int64
		count            int
	}{{"train", "ml", "gpu", 1024, 3}, {"report", "etl", "", 1024, 4}} {
		_, err := s.SubmitApp(AppSpec{ID: app.id, Queue: app.queue, User: app.id, NodeLabelExpression: app.label})
		require.NoError(t, err)
		ask := Ask{Priority: 1, ResourceName: AnyResource, Capability: berth.New(app.mb, 1), Count: app.count}
		_, err = s.Allocate(app.id, []Ask{ask}, nil)
		require.NoError(t, err)
		require.NoError(t, s.RecordApp(app.id, 16))
	}
	return s, clock
}

// Each activity carries the partition of the node its walk ran on.
func TestExplainCarriesThePartition(t *testing.T) {
	s, clock := gpuWorld(t, nil)
	for _, id := range []string{"n1", "g1"} {
		clock.Advance(1000)
		require.NoError(t, s.RecordHeartbeat(id))
		_, err := s.Heartbeat(id, nil)
		require.NoError(t, err)
		label := map[string]string{"n1": "", "g1": "gpu"}[id]
		record := s.HeartbeatRecord(id)
		require.NotEmpty(t, record, id)
		for _, a := range record {
			assert.Equal(t, label, a.Partition, "%v", a)
			assert.Equal(t, id, a.Node, "%v", a)
		}
	}
	train, err := s.Explain("train", 0)
	require.NoError(t, err)
	require.NotEmpty(t, train)
	last := train[len(train)-1]
	assert.Equal(t, queue.Allocated, last.Outcome)
	assert.Equal(t, "gpu", last.Partition)
	assert.Contains(t, last.String(), "node g1 (gpu): train in root.ml ALLOCATED")
	report, err := s.Explain("report", 0)
	require.NoError(t, err)
	require.NotEmpty(t, report)
	assert.Equal(t, queue.Allocated, report[0].Outcome)
	assert.Equal(t, Activity{Node: "n1", Partition: ""}, Activity{Node: report[0].Node, Partition: report[0].Partition})
}
