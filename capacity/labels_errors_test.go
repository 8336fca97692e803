package capacity

import (
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// twoLabelConfig is a small valid configuration with partitions x and y:
// a uses x, b uses y.
func twoLabelConfig() Config {
	p := queue.Percent
	cfg := DefaultConfig()
	cfg.NodeLabels = []NodeLabel{{Name: "x"}, {Name: "y", NonExclusive: true}}
	a, b := Queue("a", 50), Queue("b", 50)
	a.Settings.AccessibleNodeLabels = []string{"x"}
	a.Settings.NodeLabels = map[string]LabelSettings{"x": {Capacity: p(100)}}
	b.Settings.AccessibleNodeLabels = []string{"y"}
	b.Settings.NodeLabels = map[string]LabelSettings{"y": {Capacity: p(100)}}
	cfg.Root.Children = []QueueConfig{a, b}
	cfg.Root.Settings.NodeLabels = map[string]LabelSettings{"x": {Capacity: p(100)}, "y": {Capacity: p(100)}}
	return cfg
}

func TestLabelsConfigErrors(t *testing.T) {
	p := queue.Percent
	cases := []struct {
		name  string
		edit  func(*Config)
		field string
		kind  error
	}{
		{"label name", func(c *Config) { c.NodeLabels[0].Name = "x.y" }, "node-labels[0].name", berth.ErrInvalidArgument},
		{"label twice", func(c *Config) { c.NodeLabels[1].Name = "x" }, "node-labels[1].name", berth.ErrAlreadyExists},
		{"child label beyond its parent's", func(c *Config) {
			a := &c.Root.Children[0]
			a.Children = []QueueConfig{Queue("a1", 100)}
			a.Children[0].Settings.AccessibleNodeLabels = []string{"x", "y"}
		}, prefix + "root.a.a1.accessible-node-labels", berth.ErrInvalidArgument},
		{"child * under a parent that is not", func(c *Config) {
			a := &c.Root.Children[0]
			a.Children = []QueueConfig{Queue("a1", 100)}
			a.Children[0].Settings.AccessibleNodeLabels = []string{AnyLabel}
		}, prefix + "root.a.a1.accessible-node-labels", berth.ErrInvalidArgument},
		{"default expression the queue cannot use", func(c *Config) {
			c.Root.Children[1].Settings.DefaultNodeLabelExpression = "x"
		}, prefix + "root.b.default-node-label-expression", berth.ErrInvalidArgument},
		{"label capacity over 100", func(c *Config) {
			c.Root.Children[0].Settings.NodeLabels["x"] = LabelSettings{Capacity: p(120)}
		}, prefix + "root.a.accessible-node-labels.x.capacity", berth.ErrInvalidArgument},
		{"capacity above maximum", func(c *Config) {
			c.Root.Children[0].Settings.NodeLabels["x"] = LabelSettings{Capacity: p(100), MaxCapacity: p(50)}
		}, prefix + "root.a.accessible-node-labels.x.maximum-capacity", berth.ErrInvalidArgument},
		{"children do not sum to 100", func(c *Config) {
			c.Root.Children[0].Settings.NodeLabels["x"] = LabelSettings{Capacity: p(60)}
		}, prefix + "root.accessible-node-labels.x.capacity", berth.ErrInvalidArgument},
		{"AM share over 1", func(c *Config) {
			c.Root.Children[0].Settings.NodeLabels["x"] = LabelSettings{Capacity: p(100), MaxAMResourcePercent: 2}
		}, prefix + "root.a.accessible-node-labels.x.maximum-am-resource-percent", berth.ErrInvalidArgument},
		{"absolute capacity above absolute maximum", func(c *Config) {
			c.Root.Children[0].Settings.NodeLabels["x"] = LabelSettings{Capacity: queue.Absolute(berth.New(10, 1)), MaxCapacity: queue.Absolute(berth.New(5, 1))}
		}, prefix + "root.a.accessible-node-labels.x.capacity", berth.ErrInvalidArgument},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := twoLabelConfig()
			c.edit(&cfg)
			cfg.Clock = berth.NewManualClock(0)
			_, err := New(cfg)
			require.Error(t, err)
			var fe *berth.FieldError
			require.ErrorAs(t, err, &fe)
			assert.Equal(t, c.field, fe.Field, err.Error())
			assert.ErrorIs(t, err, c.kind)
		})
	}
}

func TestLabelsRuntimeErrors(t *testing.T) {
	newS := func(t *testing.T) *Scheduler {
		cfg := twoLabelConfig()
		cfg.Clock = berth.NewManualClock(0)
		s, err := New(cfg)
		require.NoError(t, err)
		require.NoError(t, s.AddNodes(NodeSpec{ID: "d", Rack: "/r", Capability: berth.New(8192, 8)},
			NodeSpec{ID: "x1", Rack: "/r", Capability: berth.New(8192, 8), Label: "x"}))
		return s
	}
	t.Run("node with an unknown label, all or nothing", func(t *testing.T) {
		s := newS(t)
		before := s.ClusterResource()
		err := s.AddNodes(NodeSpec{ID: "ok", Rack: "/r", Capability: berth.New(1024, 1)},
			NodeSpec{ID: "bad", Rack: "/r", Capability: berth.New(1024, 1), Label: "z"})
		var fe *berth.FieldError
		require.ErrorAs(t, err, &fe)
		assert.Equal(t, "node.label", fe.Field)
		assert.Equal(t, before, s.ClusterResource())
		assert.Len(t, s.Snapshot().Nodes, 2)
	})
	t.Run("submission with a label its queue cannot use", func(t *testing.T) {
		s := newS(t)
		for _, l := range []string{"y", "z"} {
			_, err := s.SubmitApp(AppSpec{ID: "app-" + l, Queue: "a", User: "u", AMResource: berth.New(1024, 1), NodeLabelExpression: l})
			var fe *berth.FieldError
			require.ErrorAs(t, err, &fe, l)
			assert.Equal(t, "app.am-node-label-expression", fe.Field)
			assert.ErrorIs(t, err, berth.ErrInvalidArgument)
		}
		assert.Empty(t, s.Snapshot().Apps)
	})
	t.Run("asks: one bad label refuses the whole call", func(t *testing.T) {
		s := newS(t)
		_, err := s.SubmitApp(AppSpec{ID: "app", Queue: "a", User: "u"})
		require.NoError(t, err)
		one := berth.New(1024, 1)
		_, err = s.Allocate("app", []Ask{
			{Priority: 1, ResourceName: AnyResource, Capability: one, Count: 2, NodeLabelExpression: "x"},
			{Priority: 2, ResourceName: AnyResource, Capability: one, Count: 2, NodeLabelExpression: "y"},
		}, nil)
		var fe *berth.FieldError
		require.ErrorAs(t, err, &fe)
		assert.Equal(t, "asks[1].node-label-expression", fe.Field)
		assert.True(t, s.Snapshot().Apps[0].Pending.IsZero(), "nothing stored")
	})
	t.Run("move to a queue that cannot serve the application's labels", func(t *testing.T) {
		s := newS(t)
		_, err := s.SubmitApp(AppSpec{ID: "app", Queue: "a", User: "u"})
		require.NoError(t, err)
		_, err = s.Allocate("app", []Ask{{Priority: 1, ResourceName: AnyResource, Capability: berth.New(1024, 1), Count: 1, NodeLabelExpression: "x"}}, nil)
		require.NoError(t, err)
		_, err = s.MoveApp("app", "b")
		require.ErrorIs(t, err, berth.ErrInvalidArgument)
		_, err = s.Allocate("app", []Ask{{Priority: 1, ResourceName: AnyResource, Capability: berth.New(1024, 1), Count: 0, NodeLabelExpression: "x"}}, nil)
		require.NoError(t, err)
		q, err := s.MoveApp("app", "b")
		require.NoError(t, err, "nothing asked on x any more")
		assert.Equal(t, "root.b", q)
	})
	t.Run("reconfigure adds labels, never drops one", func(t *testing.T) {
		s := newS(t)
		cfg := s.Config()
		cfg.NodeLabels = cfg.NodeLabels[:1]
		_, err := s.Reconfigure(cfg)
		require.ErrorIs(t, err, berth.ErrInvalidState)
		assert.Len(t, s.Config().NodeLabels, 2, "unchanged")
		cfg = s.Config()
		cfg.NodeLabels = append([]NodeLabel{{Name: "z"}}, cfg.NodeLabels...)
		cfg.NodeLabels[1].NonExclusive = true
		_, err = s.Reconfigure(cfg)
		require.NoError(t, err)
		require.NoError(t, s.AddNode(NodeSpec{ID: "z1", Rack: "/r", Capability: berth.New(4096, 4), Label: "z"}))
		snap := s.Snapshot()
		var labels []string
		for _, p := range snap.Queues.Root().Extra.Partitions {
			labels = append(labels, p.Label)
		}
		assert.Equal(t, []string{"x", "y", "z"}, labels, "partitions keep their order, the new one last")
		require.NoError(t, s.Check())
	})
	t.Run("removing a labelled node shrinks its partition", func(t *testing.T) {
		s := newS(t)
		g := func() berth.Resource {
			return s.Snapshot().Queues.Get(mustPath("root.a")).Extra.Partitions[0].Guaranteed
		}
		assert.Equal(t, berth.New(8192, 8), g())
		_, err := s.RemoveNode("x1")
		require.NoError(t, err)
		assert.True(t, g().IsZero())
		assert.Equal(t, berth.New(8192, 8), s.ClusterResource())
	})
}

// TestLabelsAbsoluteCapacities: absolute capacities on a label are the
// queues' guarantees there, scaled down per type when the siblings'
// exceed the parent's.
func TestLabelsAbsoluteCapacities(t *testing.T) {
	abs := func(mb int64) queue.Capacity { return queue.Absolute(berth.New(mb, mb/1024)) }
	cfg := DefaultConfig()
	cfg.NodeLabels = []NodeLabel{{Name: "gpu"}}
	a, b := Queue("a", 50), Queue("b", 50)
	for _, q := range []*QueueConfig{&a, &b} {
		q.Settings.AccessibleNodeLabels = []string{"gpu"}
	}
	a.Settings.NodeLabels = map[string]LabelSettings{"gpu": {Capacity: abs(24 * 1024), MaxCapacity: abs(32 * 1024)}}
	b.Settings.NodeLabels = map[string]LabelSettings{"gpu": {Capacity: abs(8 * 1024)}}
	cfg.Root.Children = []QueueConfig{a, b}
	cfg.Root.Settings.NodeLabels = map[string]LabelSettings{"gpu": {Capacity: queue.Percent(100)}}
	cfg.Clock = berth.NewManualClock(0)
	s, err := New(cfg)
	require.NoError(t, err)
	require.NoError(t, s.AddNodes(NodeSpec{ID: "g", Rack: "/r", Capability: berth.New(16*1024, 16), Label: "gpu"},
		NodeSpec{ID: "h", Rack: "/r", Capability: berth.New(16*1024, 16), Label: "gpu"}))
	part := func(q string) PartitionInfo {
		return s.Snapshot().Queues.Get(mustPath(q)).Extra.Partitions[0]
	}
	assert.Equal(t, berth.New(24*1024, 24), part("root.a").Guaranteed)
	assert.Equal(t, berth.New(32*1024, 32), part("root.a").Maximum)
	assert.Equal(t, berth.New(8*1024, 8), part("root.b").Guaranteed)
	assert.Equal(t, berth.New(32*1024, 32), part("root.b").Maximum, "an absolute guarantee without a maximum: the parent's")
	// The partition shrinks below the configured guarantees: they scale.
	_, err = s.RemoveNode("h")
	require.NoError(t, err)
	assert.Equal(t, int64(12*1024), part("root.a").Guaranteed.Memory)
	assert.Equal(t, int64(4*1024), part("root.b").Guaranteed.Memory)
	_, err = s.SubmitApp(AppSpec{ID: "app", Queue: "b", User: "u", NodeLabelExpression: "gpu"})
	require.NoError(t, err)
	_, err = s.Allocate("app", []Ask{{Priority: 1, ResourceName: AnyResource, Capability: berth.New(1024, 1), Count: 2}}, nil)
	require.NoError(t, err)
	for range 2 { // one off-switch container per heartbeat
		_, err = s.Heartbeat("g", nil)
		require.NoError(t, err)
	}
	assert.InDelta(t, 0.5, part("root.b").UsedCapacity, 1e-6, "2 GB of a 4 GB guarantee")
}

// TestLabelsPlanOnDefaultPartition: the reservation system plans on the
// default partition: a plan queue's resources are its share of the
// unlabelled nodes, whatever the labelled ones hold.
func TestLabelsPlanOnDefaultPartition(t *testing.T) {
	cfg := twoLabelConfig()
	c := Queue("c", 40)
	c.Reservable = true
	cfg.Root.Children[0].Capacity = queue.Percent(30)
	cfg.Root.Children[1].Capacity = queue.Percent(30)
	cfg.Root.Children = append(cfg.Root.Children, c)
	cfg.Clock = berth.NewManualClock(0)
	s, err := New(cfg)
	require.NoError(t, err)
	require.NoError(t, s.AddNodes(NodeSpec{ID: "d", Rack: "/r", Capability: berth.New(10*1024, 10)},
		NodeSpec{ID: "x1", Rack: "/r", Capability: berth.New(100*1024, 100), Label: "x"}))
	got, err := s.PlanResources("c")
	require.NoError(t, err)
	assert.Equal(t, berth.New(4*1024, 4), got)
	require.NoError(t, s.AddReservationQueue("c", "r1"))
	require.NoError(t, s.SetEntitlement("c-default", Entitlement{Capacity: 0.5, MaxCapacity: 1}))
	require.NoError(t, s.SetEntitlement("r1", Entitlement{Capacity: 0.5, MaxCapacity: 1}))
	_, res, err := s.ReservationQueueState("c", "r1")
	require.NoError(t, err)
	assert.Equal(t, berth.New(2*1024, 2), res)
	assert.Equal(t, berth.New(110*1024, 110), s.ClusterResource())
}
