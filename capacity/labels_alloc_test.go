package capacity

import (
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Behaviours of YARN's TestNodeLabelContainerAllocation, as table tests:
// each case builds the configuration of the YARN test (its MockRM defaults:
// 1 GB minimum allocation, AM share 10%, one off-switch container per
// heartbeat), drives the same heartbeats and asserts what YARN asserts.

const lgb = 1024

// lq is a queue with a percentage capacity, its accessible labels (nil:
// inherited) and per-label capacities written "label" → capacity percent.
func lq(name string, capPct float32, access []string, labelCaps map[string]float32, children ...QueueConfig) QueueConfig {
	q := Queue(name, capPct, children...)
	q.Settings.AccessibleNodeLabels = access
	for l, c := range labelCaps {
		if q.Settings.NodeLabels == nil {
			q.Settings.NodeLabels = map[string]LabelSettings{}
		}
		q.Settings.NodeLabels[l] = LabelSettings{Capacity: queue.Percent(c)}
	}
	return q
}

// withMax sets q's maximum capacity (percent) on the default partition.
func withMax(q QueueConfig, maxPct float32) QueueConfig {
	q.MaxCapacity = queue.Percent(maxPct)
	return q
}

// withLabelMax sets q's maximum capacity on label l.
func withLabelMax(q QueueConfig, l string, maxPct float32) QueueConfig {
	ls := q.Settings.NodeLabels[l]
	ls.MaxCapacity = queue.Percent(maxPct)
	q.Settings.NodeLabels[l] = ls
	return q
}

// withDefault sets q's default node label expression.
func withDefault(q QueueConfig, e string) QueueConfig {
	q.Settings.DefaultNodeLabelExpression = e
	return q
}

// labelWorld is a scheduler of the YARN tests' MockRM shape.
type labelWorld struct {
	t *testing.T
	s *Scheduler
}

func newLabelWorld(t *testing.T, labels []NodeLabel, root QueueConfig, nodes ...NodeSpec) *labelWorld {
	t.Helper()
	cfg := DefaultConfig()
	cfg.NodeLabels = labels
	cfg.MinAllocation = berth.New(lgb, 1)
	cfg.MaxAllocation = berth.New(8*lgb, 4)
	root.Name = "root"
	rootLabels := root.Settings.NodeLabels
	root.Settings = DefaultSettings()
	root.Settings.NodeLabels = rootLabels
	cfg.Root = root
	cfg.Clock = berth.NewManualClock(0)
	s, err := New(cfg)
	require.NoError(t, err)
	require.NoError(t, s.AddNodes(nodes...))
	return &labelWorld{t: t, s: s}
}

func lnode(id, label string, mb int64) NodeSpec {
	return NodeSpec{ID: id, Rack: "/default-rack", Capability: berth.New(mb, 8), Label: label}
}

// launch submits an application whose AM runs on node (MockRM's
// launchAndRegisterAM heartbeats that node until the AM is allocated).
func (w *labelWorld) launch(id, q, label string, amMB int64, node string) {
	w.t.Helper()
	_, err := w.s.SubmitApp(AppSpec{ID: id, Queue: q, User: "user", AMResource: berth.New(amMB, 1), NodeLabelExpression: label})
	require.NoError(w.t, err)
	for i := 0; ; i++ {
		require.Less(w.t, i, 10, "AM of %s not allocated on %s", id, node)
		if w.on(id, node) > 0 {
			return
		}
		w.hb(node, 1)
	}
}

// ask is MockAM.allocate("*", mb, n, priority 1, label).
func (w *labelWorld) ask(app string, mb int64, n int, label string) {
	w.t.Helper()
	w.askAt(app, 1, mb, n, label)
}

func (w *labelWorld) askAt(app string, prio int32, mb int64, n int, label string) {
	w.t.Helper()
	_, err := w.s.Allocate(app, []Ask{{Priority: prio, ResourceName: AnyResource, Capability: berth.New(mb, 1), Count: n, NodeLabelExpression: label}}, nil)
	require.NoError(w.t, err)
}

func (w *labelWorld) hb(node string, n int) {
	w.t.Helper()
	for range n {
		_, err := w.s.Heartbeat(node, nil)
		require.NoError(w.t, err)
	}
	require.NoError(w.t, w.s.Check())
}

// on counts app's live containers on node.
func (w *labelWorld) on(app, node string) int {
	n := 0
	for _, c := range w.s.Snapshot().Containers {
		if c.App == app && c.Node == node {
			n++
		}
	}
	return n
}

// onNode counts node's live containers.
func (w *labelWorld) onNode(node string) int {
	for _, n := range w.s.Snapshot().Nodes {
		if n.ID == node {
			k := 0
			for _, c := range w.s.Snapshot().Containers {
				if c.Node == node {
					k++
				}
			}
			return k
		}
	}
	return -1
}

// pendingMB is app's outstanding demand in MB.
func (w *labelWorld) pendingMB(app string) int64 {
	for _, a := range w.s.Snapshot().Apps {
		if a.ID == app {
			return a.Pending.Memory
		}
	}
	return -1
}

// partitionInfo is queue q's record on label l.
func (w *labelWorld) partitionInfo(q, l string) PartitionInfo {
	w.t.Helper()
	for _, n := range w.s.Snapshot().Queues.Queues {
		if n.Path.String() == q || n.Path.Name() == q {
			if l == "" {
				e := n.Extra
				return PartitionInfo{Guaranteed: e.Guaranteed, Maximum: e.Maximum, UsedCapacity: e.UsedCapacity,
					AbsoluteUsedCapacity: e.AbsoluteUsedCapacity, Used: e.Used, Reserved: e.Reserved, Pending: e.Pending,
					AMUsed: e.AMUsed, AMLimit: e.AMLimit}
			}
			for _, p := range n.Extra.Partitions {
				if p.Label == l {
					return p
				}
			}
		}
	}
	w.t.Fatalf("no queue %s with label %q", q, l)
	return PartitionInfo{}
}

// yarnQueueLabels is TestUtils.getConfigurationWithQueueLabels: a (x), b
// (y) and c (none) with one leaf each; b1 may give AMs its whole capacity.
func yarnQueueLabels() QueueConfig {
	b1 := lq("b1", 100, nil, map[string]float32{"y": 100})
	b1.MaxCapacity = queue.Percent(100)
	b1.Settings.MaxAMResourcePercent = 1
	return QueueConfig{Children: []QueueConfig{
		withMax(lq("a", 10, []string{"x"}, map[string]float32{"x": 100}, withMax(lq("a1", 100, nil, map[string]float32{"x": 100}), 100)), 15),
		lq("b", 20, []string{"y"}, map[string]float32{"y": 100}, b1),
		withMax(lq("c", 70, []string{}, nil, withMax(lq("c1", 100, nil, nil), 100)), 70),
	}, Settings: QueueSettings{NodeLabels: map[string]LabelSettings{"x": {Capacity: queue.Percent(100)}, "y": {Capacity: queue.Percent(100)}}}}
}

func TestNodeLabelContainerAllocation(t *testing.T) {
	rootLabels := func(root QueueConfig, labels ...string) QueueConfig {
		root.Settings.NodeLabels = map[string]LabelSettings{}
		for _, l := range labels {
			root.Settings.NodeLabels[l] = LabelSettings{Capacity: queue.Percent(100)}
		}
		return root
	}
	cases := []struct {
		name string
		run  func(t *testing.T)
	}{
		{"ContainerAllocateWithLabels", func(t *testing.T) {
			w := newLabelWorld(t, []NodeLabel{{Name: "x"}, {Name: "y"}}, yarnQueueLabels(),
				lnode("h1", "x", 8000), lnode("h2", "y", 8000), lnode("h3", "", 8000))
			// a1's asks for x land on h1, never h2; b1's for y on h2; c1's
			// unlabelled ones on h3.
			w.launch("app1", "a1", "", 200, "h3")
			w.ask("app1", lgb, 1, "x")
			w.hb("h2", 1)
			assert.Zero(t, w.on("app1", "h2"))
			w.hb("h1", 1)
			assert.Equal(t, 1, w.on("app1", "h1"))
			w.launch("app2", "b1", "", 200, "h3")
			w.ask("app2", lgb, 1, "y")
			w.hb("h1", 1)
			assert.Zero(t, w.on("app2", "h1"))
			w.hb("h2", 1)
			assert.Equal(t, 1, w.on("app2", "h2"))
			w.launch("app3", "c1", "", 200, "h3")
			w.ask("app3", lgb, 1, "")
			w.hb("h2", 1)
			assert.Zero(t, w.on("app3", "h2"))
			w.hb("h3", 1)
			assert.Equal(t, 2, w.on("app3", "h3"))
		}},
		{"ContainerAllocateWithDefaultQueueLabels", func(t *testing.T) {
			root := yarnQueueLabels()
			root.Children[0] = withDefault(root.Children[0], "x")
			root.Children[1] = withDefault(root.Children[1], "y")
			w := newLabelWorld(t, []NodeLabel{{Name: "x"}, {Name: "y"}}, root,
				lnode("h1", "x", 8000), lnode("h2", "y", 8000), lnode("h3", "", 8000))
			// The queues' default expressions label the AMs and the asks.
			w.launch("app1", "a1", "", 200, "h1")
			w.ask("app1", lgb, 1, "")
			w.hb("h3", 1)
			w.hb("h1", 1)
			assert.Equal(t, 2, w.on("app1", "h1"))
			assert.Zero(t, w.on("app1", "h3"))
			w.launch("app2", "b1", "", 200, "h2")
			w.ask("app2", lgb, 1, "")
			w.hb("h3", 1)
			w.hb("h2", 1)
			assert.Equal(t, 2, w.on("app2", "h2"))
			w.launch("app3", "c1", "", 200, "h3")
			w.ask("app3", lgb, 1, "")
			w.hb("h2", 1)
			w.hb("h3", 1)
			assert.Equal(t, 2, w.on("app3", "h3"))
		}},
		{"ContainerAllocationWithSingleUserLimits", func(t *testing.T) {
			root := yarnQueueLabels()
			root.Children[0] = withDefault(root.Children[0], "x")
			root.Children[1] = withDefault(root.Children[1], "y")
			w := newLabelWorld(t, []NodeLabel{{Name: "x"}, {Name: "y"}}, root,
				lnode("h1", "x", 8000), lnode("h2", "y", 8000), lnode("h3", "", 8000))
			w.launch("app1", "a1", "", 200, "h1")
			// a has only 10% (max 15%) of the default partition: one
			// unlabelled container, not two.
			w.ask("app1", lgb, 1, queue.NoLabel)
			w.hb("h3", 1)
			assert.Equal(t, 1, w.on("app1", "h3"))
			w.ask("app1", lgb, 1, queue.NoLabel)
			w.hb("h3", 5)
			assert.Equal(t, 1, w.on("app1", "h3"))
			// User limit 100%: all of x, floor(8000/1024) = 7 containers.
			for range 6 {
				w.ask("app1", lgb, 1, "x")
				w.hb("h1", 1)
			}
			assert.Equal(t, 7, w.on("app1", "h1"))
		}},
		{"PreferenceOfNeedyAppsTowardsNodePartitions", func(t *testing.T) {
			w := newLabelWorld(t, []NodeLabel{{Name: "x"}, {Name: "y", NonExclusive: true}}, yarnQueueLabels(),
				lnode("h1", "y", 8*lgb), lnode("h2", "", 100*lgb))
			w.launch("app1", "b1", "", lgb, "h2")
			w.launch("app2", "b1", "", lgb, "h2")
			// app1 asks unlabelled, app2 labelled: the labelled node serves
			// app2 first, though app1 came first.
			w.ask("app1", lgb, 8, "")
			w.ask("app2", lgb, 8, "y")
			for range 50 {
				w.hb("h1", 1)
				w.hb("h2", 1)
			}
			assert.Equal(t, 0, w.on("app1", "h1"))
			assert.Equal(t, 9, w.on("app1", "h2"))
			assert.Equal(t, 8, w.on("app2", "h1"))
			assert.Equal(t, 1, w.on("app2", "h2"))
		}},
		{"PreferenceOfNeedyPrioritiesUnderSameAppTowardsNodePartitions", func(t *testing.T) {
			w := newLabelWorld(t, []NodeLabel{{Name: "x"}, {Name: "y", NonExclusive: true}}, yarnQueueLabels(),
				lnode("h1", "y", 8*lgb), lnode("h2", "", 100*lgb))
			w.launch("app1", "b1", "", lgb, "h2")
			w.askAt("app1", 1, lgb, 1, queue.NoLabel)
			w.askAt("app1", 2, lgb, 1, "y")
			w.hb("h1", 1)
			// Priority 2 (y) is served before priority 1 (unlabelled).
			assert.Equal(t, int64(lgb), w.pendingMB("app1"))
			assert.Equal(t, 1, w.on("app1", "h1"))
		}},
		{"NonLabeledResourceRequestGetPreferrenceToNonLabeledNode", func(t *testing.T) {
			w := newLabelWorld(t, []NodeLabel{{Name: "x", NonExclusive: true}, {Name: "y"}}, yarnQueueLabels(),
				lnode("h1", "x", 8*lgb), lnode("h2", "", 100*lgb))
			w.launch("app1", "b1", "", lgb, "h2")
			w.askAt("app1", 1, lgb, 6, queue.NoLabel)
			for w.on("app1", "h1")+w.on("app1", "h2") < 7 {
				w.hb("h1", 1)
				w.hb("h2", 1)
			}
			assert.Equal(t, 0, w.onNode("h1"))
			assert.Equal(t, 7, w.onNode("h2"))
		}},
		{"QueuesWithoutAccessUsingPartitionedNodes", func(t *testing.T) {
			b := lq("b", 50, []string{}, nil)
			b.Settings.UserLimitFactor = 5
			root := rootLabels(QueueConfig{Children: []QueueConfig{lq("a", 50, []string{"x"}, map[string]float32{"x": 100}), b}}, "x")
			w := newLabelWorld(t, []NodeLabel{{Name: "x", NonExclusive: true}, {Name: "y"}}, root,
				lnode("h1", "x", 10*lgb), lnode("h2", "", 10*lgb))
			w.launch("app1", "b", "", lgb, "h2")
			w.ask("app1", lgb, 50, "")
			waited := 0
			for range 50 {
				w.hb("h1", 1)
				w.hb("h2", 1)
				if w.onNode("h1") == 0 {
					waited++
				}
			}
			// Ten cycles fill h2 before the ask, having missed as many
			// opportunities as there are nodes, borrows h1.
			assert.Equal(t, 10, waited)
			assert.Equal(t, 10, w.onNode("h1"))
			assert.Equal(t, 10, w.onNode("h2"))
		}},
		{"AMContainerAllocationWillAlwaysBeExclusive", func(t *testing.T) {
			w := newLabelWorld(t, []NodeLabel{{Name: "x", NonExclusive: true}, {Name: "y"}}, yarnQueueLabels(),
				lnode("h1", "x", 8*lgb))
			_, err := w.s.SubmitApp(AppSpec{ID: "app", Queue: "b1", User: "user", AMResource: berth.New(lgb, 1)})
			require.NoError(t, err)
			w.hb("h1", 50)
			assert.Zero(t, w.onNode("h1"))
		}},
		{"QueueMaxCapacitiesWillNotBeHonoredWhenNotRespectingExclusivity", func(t *testing.T) {
			root := rootLabels(QueueConfig{Children: []QueueConfig{
				withLabelMax(lq("a", 50, []string{"x"}, map[string]float32{"x": 50}), "x", 50),
				withLabelMax(lq("b", 50, []string{"x"}, map[string]float32{"x": 50}), "x", 50),
			}}, "x")
			w := newLabelWorld(t, []NodeLabel{{Name: "x", NonExclusive: true}}, root,
				lnode("h1", "x", 10*lgb), lnode("h2", "", 10*lgb))
			w.launch("app1", "a", "", lgb, "h2")
			w.ask("app1", lgb, 10, "")
			w.hb("h1", 50)
			// Borrowing x, a uses all of it, beyond its 50% maximum there.
			assert.Equal(t, 10, w.onNode("h1"))
			assert.Equal(t, 10*lgb, int(w.partitionInfo("a", "x").Used.Memory))
			_, err := w.s.FinishApp("app1")
			require.NoError(t, err)
			assert.Zero(t, w.s.root.leaf) // root is no leaf
			assert.Zero(t, w.s.byPath["root.a"].leaf.borrowed)
		}},
		{"QueueUsedCapacitiesUpdate", func(t *testing.T) {
			a1 := lq("a1", 50, []string{"x"}, map[string]float32{"x": 50})
			a2 := lq("a2", 50, []string{"x"}, map[string]float32{"x": 50})
			root := rootLabels(QueueConfig{Children: []QueueConfig{
				lq("a", 50, []string{"x"}, map[string]float32{"x": 50}, a1, a2),
				lq("b", 50, []string{"x"}, map[string]float32{"x": 50}),
			}}, "x")
			w := newLabelWorld(t, []NodeLabel{{Name: "x", NonExclusive: true}}, root)
			check := func(q, l string, used, abs float32) {
				t.Helper()
				p := w.partitionInfo(q, l)
				assert.InDelta(t, used, p.UsedCapacity, 1e-6, "%s used capacity on %q", q, l)
				assert.InDelta(t, abs, p.AbsoluteUsedCapacity, 1e-6, "%s absolute used capacity on %q", q, l)
			}
			for _, q := range []string{"root", "a", "a1", "a2", "b"} {
				check(q, "x", 0, 0)
				check(q, "", 0, 0)
			}
			require.NoError(t, w.s.AddNodes(lnode("h1", "x", 10*lgb), lnode("h2", "", 10*lgb)))
			w.launch("app1", "a1", "", lgb, "h2")
			w.ask("app1", lgb, 1, "")
			w.hb("h2", 10)
			check("a", "", 0.4, 0.2)
			check("a1", "", 0.8, 0.2)
			check("root", "", 0.2, 0.2)
			check("a1", "x", 0, 0)
			w.ask("app1", lgb, 2, "x")
			w.hb("h1", 10)
			check("a", "x", 0.4, 0.2)
			check("a1", "x", 0.8, 0.2)
			check("root", "x", 0.2, 0.2)
			w.launch("app2", "a2", "", lgb, "h2")
			w.ask("app2", lgb, 1, "x")
			w.hb("h1", 10)
			check("a", "x", 0.6, 0.3)
			check("a2", "x", 0.4, 0.1)
			check("a2", "", 0.4, 0.1)
			check("root", "x", 0.3, 0.3)
			// Twice the nodes: half the used capacities.
			require.NoError(t, w.s.AddNodes(lnode("h3", "x", 10*lgb), lnode("h4", "", 10*lgb)))
			check("a", "x", 0.3, 0.15)
			check("a1", "x", 0.4, 0.1)
			check("a2", "", 0.2, 0.05)
			check("root", "", 0.15, 0.15)
			// a doubles its capacities, b goes to 0.
			cfg := w.s.Config()
			a, b := &cfg.Root.Children[0], &cfg.Root.Children[1]
			a.Capacity, b.Capacity = queue.Percent(100), queue.Percent(0)
			a.Settings.NodeLabels["x"] = LabelSettings{Capacity: queue.Percent(100)}
			b.Settings.NodeLabels["x"] = LabelSettings{Capacity: queue.Percent(0)}
			_, err := w.s.Reconfigure(cfg)
			require.NoError(t, err)
			check("a", "x", 0.15, 0.15)
			check("a1", "x", 0.2, 0.1)
			check("a2", "", 0.1, 0.05)
			check("b", "x", 0, 0)
			check("root", "x", 0.15, 0.15)
			// a1 releases its three task containers (one unlabelled, two on x).
			var tasks []ContainerID
			for _, c := range w.s.Snapshot().Containers {
				if c.App == "app1" && !c.AM {
					tasks = append(tasks, c.ID)
				}
			}
			require.Len(t, tasks, 3)
			_, err = w.s.Allocate("app1", nil, tasks)
			require.NoError(t, err)
			check("a", "x", 0.05, 0.05)
			check("a", "", 0.10, 0.10)
			check("a1", "x", 0, 0)
			check("a1", "", 0.1, 0.05)
			check("a2", "x", 0.1, 0.05)
			check("root", "x", 0.05, 0.05)
			check("root", "", 0.10, 0.10)
		}},
		{"OrderOfAllocationOnPartitions", func(t *testing.T) {
			root := rootLabels(QueueConfig{Children: []QueueConfig{
				lq("a", 25, []string{"x"}, map[string]float32{"x": 30}),
				lq("b", 25, []string{"x"}, map[string]float32{"x": 70}),
				lq("c", 25, []string{}, nil),
				lq("d", 25, []string{}, nil),
			}}, "x")
			w := newLabelWorld(t, []NodeLabel{{Name: "x", NonExclusive: true}}, root,
				lnode("h1", "x", 10*lgb), lnode("h2", "", 10*lgb))
			for i, q := range []string{"a", "b", "c", "d"} {
				w.launch([]string{"app1", "app2", "app3", "app4"}[i], q, "", lgb, "h2")
			}
			expect := func(want ...int) {
				t.Helper()
				for i, n := range want {
					assert.Equal(t, n, w.on([]string{"app1", "app2", "app3", "app4"}[i], "h1"), "app%d", i+1)
				}
			}
			// 1: both at 0 of x, b has the larger capacity there.
			w.ask("app1", lgb, 1, "x")
			w.ask("app2", lgb, 1, "x")
			w.hb("h1", 1)
			expect(0, 1, 0, 0)
			// 2: a at 0, b at 1/7.
			w.ask("app2", lgb, 1, "x")
			w.hb("h1", 1)
			expect(1, 1, 0, 0)
			// 3: borrowing, b (1/7) before a (1/3) again.
			w.ask("app1", lgb, 1, queue.NoLabel)
			w.ask("app2", lgb, 1, queue.NoLabel)
			w.hb("h1", 2)
			expect(1, 2, 0, 0)
			// 4: then a.
			w.hb("h1", 2)
			expect(2, 2, 0, 0)
			// 5: b, which may access x, before c and d whatever their usage.
			w.ask("app2", lgb, 1, queue.NoLabel)
			w.ask("app3", lgb, 2, queue.NoLabel)
			w.ask("app4", lgb, 2, queue.NoLabel)
			w.hb("h1", 2)
			expect(2, 3, 0, 0)
			// 6: c before d by position; 7: d, less used; 8: c again.
			w.hb("h1", 1)
			expect(2, 3, 1, 0)
			w.hb("h1", 1)
			expect(2, 3, 1, 1)
			w.hb("h1", 1)
			expect(2, 3, 2, 1)
		}},
		{"ParentQueueMaxCapsAreRespected", func(t *testing.T) {
			a1 := withLabelMax(lq("a1", 50, []string{"x"}, map[string]float32{"x": 50}), "x", 100)
			a1.Settings.UserLimitFactor = 100
			a2 := withLabelMax(lq("a2", 50, []string{"x"}, map[string]float32{"x": 50}), "x", 100)
			a2.Settings.UserLimitFactor = 100
			root := rootLabels(QueueConfig{Children: []QueueConfig{
				withLabelMax(lq("a", 10, []string{"x"}, map[string]float32{"x": 50}, a1, a2), "x", 50),
				withLabelMax(lq("b", 90, []string{"x"}, map[string]float32{"x": 50}), "x", 50),
			}}, "x")
			w := newLabelWorld(t, []NodeLabel{{Name: "x", NonExclusive: true}}, root, lnode("h1", "x", 24*lgb))
			w.launch("app1", "a1", "x", lgb, "h1")
			w.ask("app1", 4*lgb, 2, "x")
			w.hb("h1", 10)
			assert.Equal(t, 3, w.on("app1", "h1"))
			w.launch("app2", "a2", "x", 2*lgb, "h1")
			// 9 GB + 2 GB used under a, whose maximum on x is 12 GB.
			w.ask("app2", 2*lgb, 2, "x")
			w.hb("h1", 10)
			assert.Equal(t, 1, w.on("app2", "h1"))
		}},
		{"QueueMetricsWithLabels", func(t *testing.T) {
			root := rootLabels(QueueConfig{Children: []QueueConfig{
				withLabelMax(lq("a", 25, []string{"x"}, map[string]float32{"x": 50}), "x", 50),
				withLabelMax(lq("b", 75, []string{"x"}, map[string]float32{"x": 50}), "x", 50),
			}}, "x")
			w := newLabelWorld(t, []NodeLabel{{Name: "x", NonExclusive: true}, {Name: "y", NonExclusive: true}}, root,
				lnode("h1", "x", 10*lgb), lnode("h2", "y", 10*lgb))
			w.launch("app1", "a", "x", lgb, "h1")
			w.ask("app1", lgb, 5, "x")
			w.hb("h1", 50)
			// Its maximum on x, 5 GB, holds the AM and four more.
			assert.Equal(t, 5, w.onNode("h1"))
			assert.Zero(t, w.onNode("h2"))
			p := w.partitionInfo("a", "x")
			assert.Equal(t, int64(5*lgb), p.Used.Memory)
			assert.Equal(t, int64(lgb), p.AMUsed.Memory)
			_, err := w.s.KillAppsInQueue("a")
			require.NoError(t, err)
			assert.Zero(t, w.partitionInfo("a", "x").AMUsed.Memory)
			assert.Zero(t, w.partitionInfo("a", "x").Used.Memory)
		}},
		// a1 (default label x) asks on y and gets h2; b1's AM fills its
		// 1 GB maximum, so its next ask waits; b2 gets y on h3, never x,
		// and z on h4.
		{"ContainerAllocateWithComplexLabels", func(t *testing.T) {
			w := newLabelWorld(t, []NodeLabel{{Name: "x"}, {Name: "y"}, {Name: "z"}}, yarnComplexQueueLabels(),
				lnode("h1", "x", 2*lgb), lnode("h2", "y", 2*lgb), lnode("h3", "y", 2*lgb), lnode("h4", "z", 2*lgb), lnode("h5", "", 2*lgb))
			w.launch("app1", "a1", "", lgb, "h1")
			w.ask("app1", lgb, 1, "y")
			w.hb("h2", 1)
			assert.Equal(t, 1, w.on("app1", "h2"))
			w.launch("app2", "b1", "", lgb, "h5")
			w.ask("app2", lgb, 1, "")
			w.hb("h4", 10)
			w.hb("h5", 10)
			assert.Equal(t, 0, w.on("app2", "h4"))
			assert.Equal(t, 1, w.on("app2", "h5"), "only the AM")
			w.launch("app3", "b2", "", lgb, "h5")
			w.ask("app3", lgb, 1, "y")
			w.hb("h1", 10)
			assert.Equal(t, 0, w.on("app3", "h1"))
			w.hb("h3", 1)
			assert.Equal(t, 1, w.on("app3", "h3"))
			w.ask("app3", lgb, 1, "z")
			w.hb("h4", 1)
			assert.Equal(t, 1, w.on("app3", "h4"))
		}},
		// a accesses every label ("*") with 60% of x, b accesses x with
		// 40%: on x, a goes first.
		{"OrderOfAllocationOnPartitionsWhenAccessibilityIsAll", func(t *testing.T) {
			root := rootLabels(QueueConfig{Children: []QueueConfig{
				lq("a", 25, []string{AnyLabel}, map[string]float32{"x": 60}),
				lq("b", 75, []string{"x"}, map[string]float32{"x": 40}),
			}}, "x")
			w := newLabelWorld(t, []NodeLabel{{Name: "x", NonExclusive: true}}, root, lnode("h1", "x", 10*lgb))
			w.launch("app1", "a", "x", lgb, "h1")
			w.launch("app2", "b", "x", lgb, "h1")
			w.ask("app1", lgb, 1, "x")
			w.ask("app2", lgb, 1, "x")
			w.hb("h1", 1)
			assert.Equal(t, 2, w.on("app1", "h1"))
			assert.Equal(t, 1, w.on("app2", "h1"))
		}},
		// Unlabelled asks of a borrow the shared x (three containers on
		// h1) and count on x; later ones go to the default partition's h2,
		// one off-switch container per heartbeat.
		{"QueueMetricsWithLabelsOnDefaultLabelNode", func(t *testing.T) {
			root := rootLabels(QueueConfig{Children: []QueueConfig{
				withLabelMax(lq("a", 25, []string{"x"}, map[string]float32{"x": 50}), "x", 50),
				withLabelMax(lq("b", 75, []string{"x"}, map[string]float32{"x": 50}), "x", 50),
			}}, "x")
			w := newLabelWorld(t, []NodeLabel{{Name: "x", NonExclusive: true}}, root,
				lnode("h1", "x", 10*lgb), lnode("h2", "", 10*lgb))
			w.launch("app1", "a", "", lgb, "h2")
			w.ask("app1", lgb, 3, "")
			w.hb("h1", 50)
			assert.Equal(t, 3, w.onNode("h1"))
			assert.Equal(t, 1, w.onNode("h2"))
			assert.Equal(t, int64(3*lgb), w.partitionInfo("a", "x").Used.Memory)
			assert.Equal(t, int64(lgb), w.partitionInfo("a", "").Used.Memory)
			w.ask("app1", lgb, 5, "")
			w.hb("h2", 1)
			assert.Equal(t, 2, w.onNode("h2"))
			assert.Equal(t, int64(2*lgb), w.partitionInfo("a", "").Used.Memory)
		}},
		// a1's asks take its queue's default label x: the second 4 GB
		// container does not fit h1 and reserves it; x's usage counts the
		// reservation until the ask is cancelled.
		{"ContainerReservationWithLabels", func(t *testing.T) {
			root := yarnQueueLabels()
			root.Children[0] = withDefault(root.Children[0], "x")
			root.Children[1] = withDefault(root.Children[1], "y")
			w := newLabelWorld(t, []NodeLabel{{Name: "x"}, {Name: "y"}, {Name: "z"}}, root,
				lnode("h1", "x", 8*lgb), lnode("h2", "y", 8*lgb), lnode("h3", "x", 8*lgb))
			w.launch("app1", "a1", "", lgb, "h1")
			w.ask("app1", 4*lgb, 2, "")
			w.hb("h1", 2)
			assert.Equal(t, 2, w.on("app1", "h1"))
			for _, q := range []string{"root", "a1"} {
				p := w.partitionInfo(q, "x")
				assert.Equal(t, int64(9*lgb), p.Used.Memory, q)
				assert.Equal(t, int64(4*lgb), p.Reserved.Memory, q)
			}
			w.ask("app1", 4*lgb, 0, "")
			w.hb("h1", 1)
			assert.Equal(t, int64(5*lgb), w.partitionInfo("root", "x").Used.Memory)
			assert.Zero(t, w.partitionInfo("root", "x").Reserved.Memory)
			assert.Zero(t, w.partitionInfo("a1", "x").Reserved.Memory)
		}},
		// Only a1, b1 and c1 have x (their default label); a2, b2 and c2
		// have none of it and ask for the default partition: fifteen
		// heartbeats of the shared x serve the fifteen labelled asks and
		// lend nothing.
		{"PreferenceOfQueuesTowardsNodePartitions", func(t *testing.T) {
			parent := func(name string, c float32) QueueConfig {
				return lq(name, c, []string{"x"}, map[string]float32{"x": c},
					withDefault(lq(name+"1", 50, nil, map[string]float32{"x": 100}), "x"),
					lq(name+"2", 50, nil, map[string]float32{"x": 0}))
			}
			root := rootLabels(QueueConfig{Children: []QueueConfig{parent("a", 33), parent("b", 33), parent("c", 34)}}, "x")
			w := newLabelWorld(t, []NodeLabel{{Name: "x", NonExclusive: true}, {Name: "y"}}, root,
				lnode("h1", "x", 20*lgb), lnode("h2", "", 100*lgb))
			apps := []struct{ id, q, node string }{
				{"app1", "a1", "h1"}, {"app2", "a2", "h2"}, {"app3", "b1", "h1"},
				{"app4", "b2", "h2"}, {"app5", "c1", "h1"}, {"app6", "c2", "h2"},
			}
			for _, a := range apps {
				w.launch(a.id, a.q, "", lgb, a.node)
			}
			for _, a := range apps {
				w.ask(a.id, lgb, 5, "")
			}
			w.hb("h1", 15)
			assert.Equal(t, 18, w.onNode("h1"))
			for i, a := range apps {
				want := int64(0)
				if i%2 == 1 {
					want = 5 * lgb
				}
				assert.Equal(t, want, w.pendingMB(a.id), a.id)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, c.run)
	}
}
