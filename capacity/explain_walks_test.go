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

// Multi-node walks are recorded: an application allocated in a round
// explains its attempts, each naming the candidate it got (none when the
// walk chose none), and recording changes no decision.
func TestExplainMultiNodeRounds(t *testing.T) {
	multi := func(c *Config) {
		c.Async.Enabled = true
		c.MultiNode.Enabled = true
		c.MultiNode.Policies = map[string]NodeSorting{"p": {Policy: ResourceUsageNodes{}}}
		c.MultiNode.Policy = "p"
	}
	s, clock := gpuWorld(t, multi)
	twin, clock2 := gpuWorld(t, multi)
	require.NoError(t, twin.RecordApp("", 0))
	for _, id := range []string{"train", "report"} {
		require.NoError(t, twin.RecordApp(id, 0))
	}
	sink := &activitySink{}
	s.SetObserver(sink)
	byID := map[ContainerID]Allocation{}
	for round := range 4 {
		clock.Advance(100)
		clock2.Advance(100)
		if round == 2 {
			require.NoError(t, s.RecordHeartbeat(""))
		}
		got, err := s.ScheduleRound()
		require.NoError(t, err)
		want, err := twin.ScheduleRound()
		require.NoError(t, err)
		require.Equal(t, want, got, "recording changes no decision")
		for _, al := range got {
			byID[al.Container.ID] = al
		}
	}
	require.Equal(t, saveBytes(t, twin), saveBytes(t, s), "recording leaves no trace in the state")
	require.NotEmpty(t, byID)
	allocated := 0
	for _, id := range []string{"train", "report"} {
		atts, err := s.Explain(id, 0)
		require.NoError(t, err)
		require.NotEmpty(t, atts, id)
		for _, a := range atts {
			if a.Outcome != queue.Allocated {
				continue
			}
			allocated++
			al, ok := byID[a.Container]
			require.True(t, ok, "an allocation the rounds did not return: %v", a)
			assert.Equal(t, id, al.Container.App)
			assert.Equal(t, al.Container.Node, a.Node, "the activity names the candidate chosen")
			assert.Equal(t, map[string]string{"n1": "", "g1": "gpu"}[a.Node], a.Partition)
		}
	}
	assert.Equal(t, len(byID), allocated, "every allocation of the rounds has its activity")
	record := s.HeartbeatRecord("")
	require.NotEmpty(t, record, "a round is recorded when any node's next heartbeat is")
	assert.Subset(t, sink.got, record)
	skips := 0
	for _, a := range sink.got {
		if a.Outcome == queue.Skipped {
			assert.Empty(t, a.Node, "a skip of a multi-node walk names no candidate: %v", a)
			skips++
		}
	}
	assert.Positive(t, skips)
}

// A synchronous heartbeat with multi-node placement is recorded under its
// node, and a dry run of it says what it would do.
func TestExplainMultiNodeHeartbeat(t *testing.T) {
	s, clock := gpuWorld(t, func(c *Config) { c.MultiNode.Enabled = true })
	clock.Advance(1000)
	dry, err := s.DryRun("n1")
	require.NoError(t, err)
	require.NoError(t, s.RecordHeartbeat("n1"))
	got, err := s.Heartbeat("n1", nil)
	require.NoError(t, err)
	require.NotEmpty(t, got)
	assert.Equal(t, dry.Allocations, got)
	record := s.HeartbeatRecord("n1")
	assert.Equal(t, dry.Activities, record)
	n := 0
	for _, a := range record {
		if a.Outcome == queue.Allocated {
			assert.Equal(t, "n1", a.Node)
			n++
		}
	}
	assert.Equal(t, len(got), n)
}

// A multi-node proposal for a node another application reserved is
// refused at commit, and recorded so: skipped for the node's reservation,
// naming the node.
func TestExplainRefusedMultiNodeProposal(t *testing.T) {
	cfg := DefaultConfig()
	a, b := Queue("a", 50), Queue("b", 50)
	a.MaxCapacity, b.MaxCapacity = queue.Percent(100), queue.Percent(100)
	a.Settings.UserLimitFactor, b.Settings.UserLimitFactor = 10, 10
	cfg.Root.Children = []QueueConfig{a, b}
	cfg.MultiNode = MultiNodePlacement{Enabled: true, Policy: "p",
		Policies: map[string]NodeSorting{"p": {Policy: ResourceUsageNodes{}}}}
	clock := berth.NewManualClock(0)
	cfg.Clock = clock
	s, err := New(cfg)
	require.NoError(t, err)
	require.NoError(t, s.AddNodes(NodeSpec{ID: "n1", Rack: "/r", Capability: berth.New(8192, 8)},
		NodeSpec{ID: "n2", Rack: "/r", Capability: berth.New(8192, 8)}))
	ask := func(app string, mb int64, count int) {
		_, err := s.Allocate(app, []Ask{{Priority: 1, ResourceName: AnyResource, Capability: berth.New(mb, 1), Count: count}}, nil)
		require.NoError(t, err)
	}
	round := func() []Allocation {
		clock.Advance(1)
		got, err := s.ScheduleRoundOn([]string{"n1", "n2"})
		require.NoError(t, err)
		return got
	}
	for _, q := range []string{"a", "b"} {
		_, err := s.SubmitApp(AppSpec{ID: q + "app", Queue: q, User: q})
		require.NoError(t, err)
	}
	ask("aapp", 4096, 1)
	require.Len(t, round(), 1) // on n1
	ask("aapp", 5120, 2)
	require.Len(t, round(), 1) // on n2
	round()                    // reserves n1
	require.NotNil(t, s.nodes["n1"].reserved)
	require.NoError(t, s.RecordApp("bapp", 8))
	ask("bapp", 1024, 1)
	assert.Empty(t, round(), "the proposal on n1 is refused")
	atts, err := s.Explain("bapp", 0)
	require.NoError(t, err)
	require.Len(t, atts, 1)
	assert.Equal(t, Activity{Time: 4, Node: "n1", Queue: "root.b", App: "bapp",
		Result:   queue.Result{Outcome: queue.Skipped, Reason: queue.ReasonNodeReserved},
		Priority: 1, Resource: berth.New(1024, 1), Locality: OffSwitch}, atts[0])
}
