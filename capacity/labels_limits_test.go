package capacity

import (
	"strings"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Behaviours of YARN's TestApplicationLimitsByPartition, as table tests:
// AM limits per partition (the partition's own share, else the queue's),
// per user on a partition, at least one AM per partition, and headrooms
// summed over the partitions an application asks for. The worlds are the
// YARN tests' MockRM worlds (labelWorld): 1 GB minimum allocation, 10 GB
// nodes.

// yarnComplexQueueLabels is TestUtils.getComplexConfigurationWithQueueLabels:
// a (10%, max 10%; x 100%, y 50%) with a1 (x, y; default x), b (90%; y 50%,
// z 100%) with b1 (50%, max 50%, no labels) and b2 (50%, max 50%; y, z
// 100%).
func yarnComplexQueueLabels() QueueConfig {
	a1 := withDefault(withMax(lq("a1", 100, []string{"x", "y"}, map[string]float32{"x": 100, "y": 100}), 100), "x")
	b1 := withMax(lq("b1", 50, []string{}, nil), 50)
	b2 := withMax(lq("b2", 50, []string{"y", "z"}, map[string]float32{"y": 100, "z": 100}), 50)
	return QueueConfig{Children: []QueueConfig{
		withMax(lq("a", 10, []string{"x", "y"}, map[string]float32{"x": 100, "y": 50}, a1), 10),
		withMax(lq("b", 90, []string{"y", "z"}, map[string]float32{"y": 50, "z": 100}, b1, b2), 100),
	}, Settings: QueueSettings{NodeLabels: map[string]LabelSettings{
		"x": {Capacity: queue.Percent(100)}, "y": {Capacity: queue.Percent(100)}, "z": {Capacity: queue.Percent(100)}}}}
}

// childAt returns the queue at path (child names from the root's
// children down) of a QueueConfig tree, for a test to edit.
func childAt(root *QueueConfig, path ...string) *QueueConfig {
	q := root
	for _, name := range path {
		var next *QueueConfig
		for i := range q.Children {
			if q.Children[i].Name == name {
				next = &q.Children[i]
			}
		}
		if next == nil {
			return nil
		}
		q = next
	}
	return q
}

// setLabelAM sets q's AM share on label l (maximum-am-resource-percent of
// accessible-node-labels.<l>).
func setLabelAM(q *QueueConfig, l string, share float64) {
	ls := q.Settings.NodeLabels[l]
	ls.MaxAMResourcePercent = share
	q.Settings.NodeLabels[l] = ls
}

// submitAM submits an application of user whose AM (amMB) asks for label
// amLabel.
func (w *labelWorld) submitAM(id, q, user, amLabel string, amMB int64) {
	w.t.Helper()
	_, err := w.s.SubmitApp(AppSpec{ID: id, Queue: q, User: user, AMResource: berth.New(amMB, 1), AMNodeLabelExpression: amLabel})
	require.NoError(w.t, err)
	require.NoError(w.t, w.s.Check())
}

// runAM heartbeats node until app's AM runs there (MockRM's
// launchAndRegisterAM).
func (w *labelWorld) runAM(app, node string) {
	w.t.Helper()
	for i := 0; w.on(app, node) == 0; i++ {
		require.Less(w.t, i, 10, "AM of %s not allocated on %s", app, node)
		w.hb(node, 1)
	}
}

// activeApps counts the active and the waiting applications of leaf q
// (by name), of user when user is not empty.
func (w *labelWorld) activeApps(q, user string) (active, waiting int) {
	for _, a := range w.s.Snapshot().Apps {
		if queuePathName(a.Queue) != q || (user != "" && a.User != user) {
			continue
		}
		if a.Active {
			active++
		} else {
			waiting++
		}
	}
	return active, waiting
}

func queuePathName(path string) string { return path[strings.LastIndexByte(path, '.')+1:] }

func TestApplicationLimitsByPartition(t *testing.T) {
	xy := []NodeLabel{{Name: "x"}, {Name: "y"}}
	simpleNodes := []NodeSpec{lnode("h1", "x", 10*lgb), lnode("h2", "y", 10*lgb), lnode("h3", "", 10*lgb)}
	type counts struct{ active, waiting int }
	apps := func(w *labelWorld, q, user string) counts {
		a, p := w.activeApps(q, user)
		return counts{a, p}
	}
	cases := []struct {
		name string
		run  func(t *testing.T)
	}{
		// a1's AM share on x is 0.2 of its 10 GB there: two 1 GB AMs run,
		// the third waits; c1's queue share 0.2 of 7 GB is normalized up to
		// 2 GB: the same, and the waiting AM starts when one ends.
		{"AMResourceLimitWithLabels", func(t *testing.T) {
			root := yarnQueueLabels()
			setLabelAM(childAt(&root, "a", "a1"), "x", 0.2)
			childAt(&root, "c", "c1").Settings.MaxAMResourcePercent = 0.2
			w := newLabelWorld(t, xy, root, simpleNodes...)
			for _, id := range []string{"app1", "app2", "app3"} {
				w.submitAM(id, "a1", "user", "x", lgb)
			}
			assert.Equal(t, counts{2, 1}, apps(w, "a1", ""))
			w.submitAM("app4", "c1", "user", "", lgb)
			w.runAM("app4", "h3")
			w.submitAM("app5", "c1", "user", "", lgb)
			w.runAM("app5", "h3")
			w.submitAM("app6", "c1", "user", "", lgb)
			assert.Equal(t, counts{2, 1}, apps(w, "c1", ""))
			_, err := w.s.KillApp("app4")
			require.NoError(t, err)
			require.NoError(t, w.s.Check())
			assert.Equal(t, counts{2, 0}, apps(w, "c1", ""))
		}},
		// An AM larger than its partition's AM limit starts when none runs
		// there; the next waits. The same on the default partition. (YARN's
		// test submits 2 GB AMs, within the 0.15 share of 10 GB once
		// normalized up to 2 GB; 3 GB ones exceed it.)
		{"AtleastOneAMRunPerPartition", func(t *testing.T) {
			root := yarnQueueLabels()
			setLabelAM(childAt(&root, "a", "a1"), "x", 0.15)
			childAt(&root, "c", "c1").Settings.MaxAMResourcePercent = 0.15
			w := newLabelWorld(t, xy, root, simpleNodes...)
			w.submitAM("app1", "a1", "user", "x", 3*lgb)
			w.runAM("app1", "h1")
			w.submitAM("app2", "a1", "user", "x", lgb)
			assert.Equal(t, counts{1, 1}, apps(w, "a1", ""))
			w.submitAM("app3", "c1", "user", "", 3*lgb)
			w.runAM("app3", "h3")
			w.submitAM("app4", "c1", "user", "", lgb)
			assert.Equal(t, counts{1, 1}, apps(w, "c1", ""))
		}},
		// Without a share of its own on x, a1's AMs there are held to the
		// queue's share (0.2 of 10 GB).
		{"DefaultAMLimitFromQueueForPartition", func(t *testing.T) {
			root := yarnQueueLabels()
			childAt(&root, "a", "a1").Settings.MaxAMResourcePercent = 0.2
			w := newLabelWorld(t, xy, root, simpleNodes...)
			w.submitAM("app1", "a1", "user", "x", 2*lgb)
			w.submitAM("app2", "a1", "user", "x", lgb)
			assert.Equal(t, counts{1, 1}, apps(w, "a1", ""))
		}},
		// a1's AM limit on x is 4 GB; with minimum-user-limit-percent 50
		// and two active users each user may run 2 GB of AMs there: user_1's
		// third AM waits although the queue's limit is not reached.
		{"UserAMResourceLimitWithLabels", func(t *testing.T) {
			root := yarnQueueLabels()
			a1 := childAt(&root, "a", "a1")
			setLabelAM(a1, "x", 0.4)
			a1.Settings.MinUserLimitPercent = 50
			w := newLabelWorld(t, xy, root, simpleNodes...)
			w.submitAM("app1", "a1", "user_0", "x", lgb)
			w.runAM("app1", "h1")
			w.ask("app1", lgb, 15, "")
			w.submitAM("app2", "a1", "user_1", "x", lgb)
			w.runAM("app2", "h1")
			assert.Equal(t, counts{2, 0}, apps(w, "a1", ""))
			assert.Equal(t, counts{1, 0}, apps(w, "a1", "user_0"))
			w.submitAM("app3", "a1", "user_1", "x", lgb)
			w.runAM("app3", "h1")
			w.ask("app3", lgb, 10, "")
			w.submitAM("app4", "a1", "user_1", "x", lgb)
			assert.Equal(t, counts{3, 1}, apps(w, "a1", ""))
			assert.Equal(t, counts{1, 0}, apps(w, "a1", "user_0"))
			assert.Equal(t, counts{2, 1}, apps(w, "a1", "user_1"))
		}},
		// a1 has 10 GB of y (a's 50% of two 10 GB nodes), AM share 0.25 on
		// y: 2.5 GB normalized up to 3 GB, so AMs of 2 and 1 GB run and the
		// next waits; b1 has 4.5 GB of the default partition, AM share
		// 0.15: 1 GB, one AM.
		{"AMResourceLimitForMultipleApplications", func(t *testing.T) {
			root := yarnComplexQueueLabels()
			setLabelAM(childAt(&root, "a", "a1"), "y", 0.25)
			childAt(&root, "b", "b1").Settings.MaxAMResourcePercent = 0.15
			w := newLabelWorld(t, []NodeLabel{{Name: "x"}, {Name: "y"}, {Name: "z"}}, root,
				lnode("h1", "x", 10*lgb), lnode("h2", "y", 10*lgb), lnode("h3", "y", 10*lgb),
				lnode("h4", "z", 10*lgb), lnode("h5", "", 10*lgb))
			w.submitAM("app1", "a1", "user", "y", 2*lgb)
			w.runAM("app1", "h2")
			w.submitAM("app2", "a1", "user", "y", lgb)
			w.runAM("app2", "h3")
			w.submitAM("app3", "a1", "user", "y", lgb)
			assert.Equal(t, counts{2, 1}, apps(w, "a1", ""))
			w.submitAM("app4", "b1", "user", "", lgb)
			w.runAM("app4", "h5")
			w.submitAM("app5", "b1", "user", "", lgb)
			assert.Equal(t, counts{1, 1}, apps(w, "b1", ""))
		}},
		// The headroom is the sum of the headrooms on the partitions the
		// application asks for: b2 has 72 GB of the default partition and
		// 80 GB of y, minimum-user-limit-percent 25, so 18 GB there and 20
		// GB on y, whatever the number of active users (25% is above 1/2).
		{"Headroom", func(t *testing.T) {
			root := yarnComplexQueueLabels()
			childAt(&root, "b", "b2").Settings.MinUserLimitPercent = 25
			w := newLabelWorld(t, []NodeLabel{{Name: "x"}, {Name: "y"}, {Name: "z"}}, root,
				lnode("h0", "", 160*lgb), lnode("h1", "x", 160*lgb), lnode("h2", "y", 160*lgb))
			headroom := func(app string) int64 {
				h, err := w.s.Headroom(app)
				require.NoError(t, err)
				return h.Memory
			}
			unmanaged := func(id, user string) {
				_, err := w.s.SubmitApp(AppSpec{ID: id, Queue: "b2", User: user})
				require.NoError(t, err)
			}
			unmanaged("app_0_0", "user_0")
			w.ask("app_0_0", lgb, 2, "")
			assert.Equal(t, int64(18*lgb), headroom("app_0_0"))
			unmanaged("app_0_1", "user_0")
			w.askAt("app_0_1", 1, lgb, 2, "")
			w.askAt("app_0_1", 2, lgb, 2, "y")
			assert.Equal(t, int64(18*lgb), headroom("app_0_0"))
			assert.Equal(t, int64(38*lgb), headroom("app_0_1"))
			unmanaged("app_1_0", "user_1")
			w.askAt("app_1_0", 1, lgb, 2, "")
			w.askAt("app_1_0", 2, lgb, 2, "y")
			assert.Equal(t, int64(18*lgb), headroom("app_0_0"))
			assert.Equal(t, int64(38*lgb), headroom("app_0_1"))
			assert.Equal(t, int64(38*lgb), headroom("app_1_0"))
			require.NoError(t, w.s.Check())
		}},
	}
	for _, c := range cases {
		t.Run(c.name, c.run)
	}
}
