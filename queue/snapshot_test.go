package queue

import (
	"testing"

	"github.com/berthsched/berth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSnapshot(t *testing.T) {
	tr, plan := planTree(t)
	b := mustQueue(t, tr, "root.b")
	require.NoError(t, b.SubmitApp("v"))
	require.NoError(t, b.SubmitApp("u"))
	require.NoError(t, b.Allocate("u", berth.New(2048, 2)))

	s := SnapshotWith(tr, func(q *Queue[int]) string { return q.Name() + "!" })
	require.Len(t, s.Queues, 4)
	assert.Equal(t, RootPath(), s.Root().Path)
	assert.Equal(t, []Path{plan.Path(), b.Path()}, s.Root().Children)
	sb := s.Get(b.Path())
	require.NotNil(t, sb)
	assert.Equal(t, "b!", sb.Extra)
	assert.Equal(t, RootPath(), sb.Parent)
	assert.Equal(t, KindLeaf, sb.Kind)
	assert.Equal(t, Percent(60), sb.Capacity)
	assert.InDelta(t, 0.6, sb.AbsoluteCapacity, 1e-7)
	assert.Equal(t, StateRunning, sb.State)
	assert.Equal(t, []UserSnapshot{
		{User: "u", Usage: Usage{Used: berth.New(2048, 2), PendingApps: 1}},
		{User: "v", Usage: Usage{PendingApps: 1}},
	}, sb.Users)
	assert.Equal(t, 2, s.Root().Usage.PendingApps)
	assert.Nil(t, s.Get(mustPath(t, "root.zzz")))
	assert.True(t, s.Get(mustPath(t, "root.plan.plan-default")).Parent == plan.Path())

	// Later changes do not show in the snapshot.
	require.NoError(t, b.Allocate("u", berth.New(1024, 1)))
	_, err := tr.AddReservationQueue(plan, "r9", 0)
	require.NoError(t, err)
	assert.Equal(t, berth.New(2048, 2), s.Get(b.Path()).Usage.Used)
	assert.Len(t, s.Queues, 4)
	assert.Len(t, s.Get(plan.Path()).Children, 1)
	assert.Len(t, tr.Snapshot().Queues, 5)
}

// TestSnapshotConcurrentReaders reads one snapshot from several goroutines
// while the owner keeps changing the tree (run with -race).
func TestSnapshotConcurrentReaders(t *testing.T) {
	tr := accountingTree(t)
	x := mustQueue(t, tr, "root.a.a2.x")
	require.NoError(t, x.Allocate("u", berth.New(1024, 1)))
	s := SnapshotWith(tr, func(q *Queue[int]) []string { return q.Users() })
	want := s.Root().Usage.Used
	done := make(chan bool)
	for i := 0; i < 4; i++ {
		go func() {
			ok := true
			for j := 0; j < 200; j++ {
				total := berth.None()
				for _, q := range s.Queues {
					if q.Kind.IsLeaf() {
						total = total.Add(q.Usage.Used)
					}
					_ = q.SubmitACL.Allows("u", nil)
					_ = len(q.Extra)
				}
				ok = ok && total.Equal(want) && s.Get(x.Path()).Users[0].User == "u"
			}
			done <- ok
		}()
	}
	for j := 0; j < 200; j++ {
		require.NoError(t, x.Allocate("v", berth.New(1, 1)))
		require.NoError(t, x.Release("v", berth.New(1, 1)))
	}
	for i := 0; i < 4; i++ {
		assert.True(t, <-done)
	}
}
