package queue

import (
	"testing"

	"github.com/berthsched/berth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func pathStrings(ps []Path) []string {
	out := []string{}
	for _, p := range ps {
		out = append(out, p.String())
	}
	return out
}

func TestReconfigureDiffAndIdentity(t *testing.T) {
	c1 := rootOf(parent("a", 50, leaf("a1", 50), leaf("a2", 50)), leaf("b", 50))
	c1.Children[1].Settings = 7
	tr := mustTree(t, c1, csOpts)
	a1 := mustQueue(t, tr, "root.a.a1")
	b := mustQueue(t, tr, "root.b")
	require.NoError(t, a1.SubmitApp("u"))
	require.NoError(t, a1.Allocate("u", berth.New(1024, 1)))

	// a2 goes, c arrives, a1's capacity changes, b's settings change.
	c2 := rootOf(parent("a", 50, leaf("a1", 100)), leaf("b", 30), leaf("c", 20))
	c2.Children[1].Settings = 8
	diff, err := tr.Reconfigure(c2)
	require.NoError(t, err)
	assert.Equal(t, []string{"root.c"}, pathStrings(diff.Added))
	assert.Equal(t, []string{"root.a.a2"}, pathStrings(diff.Removed))
	assert.Equal(t, []string{"root.a.a1", "root.b"}, pathStrings(diff.Changed))
	assert.False(t, diff.IsEmpty())

	// Identity, accounting and payload.
	assert.Same(t, a1, mustQueue(t, tr, "root.a.a1"))
	assert.Same(t, b, mustQueue(t, tr, "root.b"))
	assert.Equal(t, 8, b.Payload, "without Merge the new settings replace the payload")
	assert.InDelta(t, 0.5, a1.AbsoluteCapacity(), 1e-7)
	assert.Equal(t, berth.New(1024, 1), tr.Root().Used())
	assert.Equal(t, 1, mustQueue(t, tr, "root.a").PendingApps())
	assert.Nil(t, tr.Queue(mustPath(t, "root.a.a2")))
	assert.Equal(t, 1, mustQueue(t, tr, "root.a").NumChildren())
	assert.Equal(t, 5, tr.Len())
	_, err = tr.Lookup("a2")
	assert.ErrorIs(t, err, berth.ErrNotFound)
	q, err := tr.Lookup("c")
	require.NoError(t, err)
	assert.Equal(t, "root.c", q.Path().String())

	// Same configuration again: nothing changes.
	diff, err = tr.Reconfigure(c2)
	require.NoError(t, err)
	assert.True(t, diff.IsEmpty())
}

func TestReconfigureRefusals(t *testing.T) {
	c1 := rootOf(parent("a", 50, leaf("a1", 50), leaf("a2", 50)), leaf("b", 50))
	tests := []struct {
		name  string
		prep  func(tr *Tree[int])
		next  cfgT
		opts  TreeConfig[int]
		kind  error
		path  string
		field string
	}{
		{"invalid config", nil, rootOf(leaf("a", 30), leaf("b", 30)), csOpts, berth.ErrInvalidArgument, "root", "capacity"},
		{"remove a leaf with apps", func(tr *Tree[int]) { _ = mustQueue(t, tr, "root.a.a2").SubmitApp("u") },
			rootOf(parent("a", 50, leaf("a1", 100)), leaf("b", 50)), csOpts, berth.ErrInvalidState, "root.a.a2", "applications"},
		{"remove a parent whose leaf has apps", func(tr *Tree[int]) { _ = mustQueue(t, tr, "root.a.a2").SubmitApp("u") },
			rootOf(leaf("b", 100)), csOpts, berth.ErrInvalidState, "root.a", "applications"},
		{"remove a leaf with usage only", func(tr *Tree[int]) {
			_ = mustQueue(t, tr, "root.b").Update("u", Delta{Pending: berth.New(1, 1)})
		}, rootOf(parent("a", 100, leaf("a1", 50), leaf("a2", 50))), csOpts, berth.ErrInvalidState, "root.b", "used"},
		{"leaf with apps turned parent", func(tr *Tree[int]) { _ = mustQueue(t, tr, "root.b").SubmitApp("u") },
			rootOf(parent("a", 50, leaf("a1", 50), leaf("a2", 50)), parent("b", 50, leaf("x", 100))), csOpts, berth.ErrInvalidState, "root.b", "applications"},
		{"leaf with apps turned plan", func(tr *Tree[int]) { _ = mustQueue(t, tr, "root.b").SubmitApp("u") },
			rootOf(parent("a", 50, leaf("a1", 50), leaf("a2", 50)), cfgT{Name: "b", Capacity: Percent(50), Reservable: true}), csOpts, berth.ErrInvalidState, "root.b", "applications"},
		{"remove a running queue (CS)", nil, rootOf(parent("a", 50, leaf("a1", 100)), leaf("b", 50)),
			TreeConfig[int]{CheckCapacitySums: true, RequireStoppedToRemove: true}, berth.ErrInvalidState, "root.a.a2", "state"},
		{"validate hook refuses", nil, c1, TreeConfig[int]{Validate: func(tr *Tree[int]) error {
			if tr.Queue(RootPath()).Payload == 0 {
				return invalid("root", "x", 0, "no")
			}
			return nil
		}}, berth.ErrInvalidArgument, "root", "x"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := tc.opts
			validate := opts.Validate
			opts.Validate = nil
			tr := mustTree(t, c1, opts)
			tr.opts.Validate = validate
			if tc.prep != nil {
				tc.prep(tr)
			}
			before := tr.Snapshot()
			paths := tr.Paths()
			diff, err := tr.Reconfigure(tc.next)
			require.Error(t, err)
			assert.True(t, diff.IsEmpty())
			assert.ErrorIs(t, err, tc.kind)
			qe := asQueueError(t, err)
			assert.Equal(t, tc.path, qe.QueuePath)
			assert.Equal(t, tc.field, qe.Field)
			assert.Equal(t, before.Queues, tr.Snapshot().Queues, "the old tree stays")
			assert.Equal(t, paths, tr.Paths())
		})
	}
}

func TestReconfigureStoppedRemoval(t *testing.T) {
	opts := TreeConfig[int]{CheckCapacitySums: true, RequireStoppedToRemove: true}
	c1 := rootOf(parent("a", 50, leaf("a1", 50), leaf("a2", 50)), leaf("b", 50))
	tr := mustTree(t, c1, opts)
	a2 := mustQueue(t, tr, "root.a.a2")
	// Stop a2 first (a refresh), then remove it.
	c1.Children[0].Children[1].State = StateStopped
	diff, err := tr.Reconfigure(c1)
	require.NoError(t, err)
	assert.Equal(t, []string{"root.a.a2"}, pathStrings(diff.Changed))
	assert.Equal(t, StateStopped, a2.State())
	diff, err = tr.Reconfigure(rootOf(parent("a", 50, leaf("a1", 100)), leaf("b", 50)))
	require.NoError(t, err)
	assert.Equal(t, []string{"root.a.a2"}, pathStrings(diff.Removed))
	assert.True(t, a2.Removed())
	assert.ErrorIs(t, a2.SubmitApp("u"), berth.ErrNotFound, "a removed queue takes no charges")
}

func TestReconfigureMergeAndSettingsEqual(t *testing.T) {
	opts := TreeConfig[int]{
		Merge:         func(_ Path, old, settings int) int { return old*100 + settings },
		SettingsEqual: func(a, b int) bool { return a%100 == b%100 },
	}
	c := rootOf(cfgT{Name: "a", Settings: 1})
	tr := mustTree(t, c, opts)
	a := mustQueue(t, tr, "root.a")
	c.Children[0].Settings = 2
	diff, err := tr.Reconfigure(c)
	require.NoError(t, err)
	assert.Equal(t, 102, a.Payload)
	assert.Equal(t, []string{"root.a"}, pathStrings(diff.Changed))
}

func TestReconfigureKindChanges(t *testing.T) {
	tr := mustTree(t, rootOf(leaf("a", 50), parent("b", 50, leaf("x", 100))), csOpts)
	a := mustQueue(t, tr, "root.a")
	b := mustQueue(t, tr, "root.b")
	// idle leaf a becomes a parent, idle parent b becomes a leaf.
	diff, err := tr.Reconfigure(rootOf(parent("a", 50, leaf("y", 100)), leaf("b", 50)))
	require.NoError(t, err)
	assert.Equal(t, []string{"root.a.y"}, pathStrings(diff.Added))
	assert.Equal(t, []string{"root.b.x"}, pathStrings(diff.Removed))
	assert.Equal(t, []string{"root.a", "root.b"}, pathStrings(diff.Changed))
	assert.Same(t, a, mustQueue(t, tr, "root.a"))
	assert.Equal(t, KindParent, a.Kind())
	assert.Equal(t, KindLeaf, b.Kind())
	assert.Equal(t, 0, b.NumChildren())
	assert.NoError(t, b.SubmitApp("u"))
	assert.Error(t, a.SubmitApp("u"))
}
