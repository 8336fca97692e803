package capacity

import (
	"os"
	"strings"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLabelsRealConfig loads yarn-rest-dump-labels.xml, a live cluster's
// configuration with the partitions fpga and gpu: its label keys are
// modelled, its partitions have YARN's capacities, and applications run
// on them, in its asynchronous rounds on single nodes and, turned on,
// with multi-node placement (each partition's nodes one candidate set).
func TestLabelsRealConfig(t *testing.T) {
	f, err := os.Open(realInput(t, "configs", "yarn-rest-dump-labels.xml"))
	require.NoError(t, err)
	defer f.Close()
	cfg, rep, err := ParseXMLReport(f, XMLOptions{})
	require.NoError(t, err)
	for _, n := range rep.Notes {
		assert.NotContains(t, n.Key, "node-label", "label keys are modelled: %s", n)
	}
	require.Equal(t, []NodeLabel{{Name: "fpga"}, {Name: "gpu"}}, cfg.NodeLabels)
	cfg.NodeLabels[1].NonExclusive = true // the host says which are shared
	t.Run("async", func(t *testing.T) { labelsRealRun(t, cfg) })
	cfg.MultiNode = MultiNodePlacement{Enabled: true, Policy: "usage", Policies: map[string]NodeSorting{"usage": {Policy: ResourceUsageNodes{}}}}
	t.Run("multi-node", func(t *testing.T) { labelsRealRun(t, cfg) })
}

func labelsRealRun(t *testing.T, cfg Config) {
	cfg.Clock = berth.NewManualClock(0)
	s, err := New(cfg)
	require.NoError(t, err)
	node := func(id, label string) NodeSpec {
		return NodeSpec{ID: id, Rack: "/r", Capability: berth.New(64*1024, 32), Label: label}
	}
	require.NoError(t, s.AddNodes(node("d1", ""), node("d2", ""), node("f1", "fpga"), node("g1", "gpu"), node("g2", "gpu")))

	// YARN's per-label absolute capacities: production holds all of fpga
	// and gpu, its two children half each, prodteam001 all of prod01's.
	want := map[string]map[string]float32{
		"root.production":                               {"fpga": 1, "gpu": 1},
		"root.production.prod01":                        {"fpga": 0.5, "gpu": 0.5},
		"root.production.prod02":                        {"fpga": 0.5, "gpu": 0.5},
		"root.production.prod01.prodteam01.prodteam001": {"fpga": 0.5, "gpu": 0.5},
		"root.development.team1":                        {"fpga": 0, "gpu": 0},
		"root.default":                                  {"fpga": 0, "gpu": 0},
	}
	for path, labels := range want {
		q := s.byPath[path]
		require.NotNil(t, q, path)
		for l, c := range labels {
			assert.InDelta(t, c, q.lp[s.partOf[l]-1].absCap, 1e-6, "%s on %s", path, l)
		}
	}
	// team1 lists gpu and default inherits root's "*", with no key for
	// either label: YARN loads no capacities for them
	// (CSQueueUtils.loadCapacitiesByLabelsFromConf), so no maximum either.
	for _, path := range []string{"root.development.team1", "root.default"} {
		for _, l := range []string{"fpga", "gpu"} {
			assert.Zero(t, s.byPath[path].lp[s.partOf[l]-1].absMax, "%s on %s", path, l)
		}
	}
	// team1 lists gpu only; development and default inherit root's "*".
	assert.True(t, s.byPath["root.development.team1"].access.has("gpu"))
	assert.False(t, s.byPath["root.development.team1"].access.has("fpga"))
	assert.True(t, s.byPath["root.default"].access.any)

	// A gpu application of prodteam001 runs on the gpu nodes only.
	_, err = s.SubmitApp(AppSpec{ID: "train", Queue: "prodteam001", User: "u", AMResource: berth.New(1024, 1), NodeLabelExpression: "gpu"})
	require.NoError(t, err)
	_, err = s.Allocate("train", []Ask{{Priority: 1, ResourceName: AnyResource, Capability: berth.New(4096, 2), Count: 4}}, nil)
	require.NoError(t, err)
	// The file turns asynchronous scheduling on: heartbeats only report,
	// rounds allocate.
	require.True(t, cfg.Async.Enabled)
	beat := func(nodes ...string) {
		for _, n := range nodes {
			_, err := s.Heartbeat(n, nil)
			require.NoError(t, err)
		}
		_, err := s.ScheduleRound()
		require.NoError(t, err)
	}
	beat("d1", "f1", "g1", "g2")
	labelOf := map[string]string{}
	for _, n := range s.Snapshot().Nodes {
		labelOf[n.ID] = n.Label
	}
	require.NotEmpty(t, s.Snapshot().Containers)
	for _, c := range s.Snapshot().Containers {
		assert.Equal(t, "gpu", labelOf[c.Node], "container %d of %s", c.ID, c.App)
	}
	// fpga is exclusive: an unlabelled application of root.default never
	// runs there; gpu is shared: its idle room is lent.
	_, err = s.SubmitApp(AppSpec{ID: "etl", Queue: "default", User: "v", AMResource: berth.New(1024, 1)})
	require.NoError(t, err)
	_, err = s.Allocate("etl", []Ask{{Priority: 1, ResourceName: AnyResource, Capability: berth.New(8192, 1), Count: 100}}, nil)
	require.NoError(t, err)
	for range 40 {
		beat("d1", "d2", "f1", "g1", "g2")
	}
	on := map[string]int{}
	for _, c := range s.Snapshot().Containers {
		if c.App == "etl" {
			on[labelOf[c.Node]]++
		}
	}
	assert.Zero(t, on["fpga"])
	assert.Positive(t, on[""])
	assert.Positive(t, on["gpu"], "etl borrows gpu")
	require.NoError(t, s.Check())
	// root.default inherits "*" from root and may ask for fpga; team1,
	// which lists gpu only, may not.
	_, err = s.Allocate("etl", []Ask{{Priority: 2, ResourceName: AnyResource, Capability: berth.New(1024, 1), Count: 1, NodeLabelExpression: "fpga"}}, nil)
	require.NoError(t, err)
	_, err = s.SubmitApp(AppSpec{ID: "t1", Queue: "team1", User: "w", AMResource: berth.New(1024, 1), NodeLabelExpression: "fpga"})
	require.ErrorIs(t, err, berth.ErrInvalidArgument)
	assert.True(t, strings.Contains(err.Error(), "cannot access node label fpga"), err)
}

// TestLabelsAmbariMinusOne: Ambari's HDP 2.2 file writes -1 for a label's
// capacity and maximum capacity; they read as unset and the file loads.
func TestLabelsAmbariMinusOne(t *testing.T) {
	f, err := os.Open(realInput(t, "configs", "hdp22-ambari-generated.xml"))
	require.NoError(t, err)
	defer f.Close()
	cfg, err := ParseXML(f)
	require.NoError(t, err)
	assert.Equal(t, LabelSettings{}, cfg.Root.Settings.NodeLabels["default"])
	assert.Equal(t, queue.NoLabel, cfg.Root.Settings.DefaultNodeLabelExpression)
	cfg.Clock = berth.NewManualClock(0)
	_, err = New(cfg)
	require.NoError(t, err)
}
