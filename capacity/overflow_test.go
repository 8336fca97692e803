package capacity

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

// A node that would make the cluster's total wrap is refused, as the fair
// scheduler refuses it; the scheduler is unchanged and its books pass.
func TestAddNodeRefusesClusterOverflow(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Clock = berth.NewManualClock(0)
	s, err := New(cfg)
	require.NoError(t, err)
	require.NoError(t, s.AddNode(NodeSpec{ID: "n1", Rack: "/r", Capability: berth.New(8192, 8)}))
	err = s.AddNode(NodeSpec{ID: "huge", Rack: "/r", Capability: berth.New(math.MaxInt64, 1)})
	assert.ErrorIs(t, err, berth.ErrCapacityExceeded)
	var fe *berth.FieldError
	require.True(t, errors.As(err, &fe))
	assert.Equal(t, "node.capability", fe.Field)
	// Two nodes that overflow only together are refused as a batch.
	err = s.AddNodes(NodeSpec{ID: "a", Rack: "/r", Capability: berth.New(math.MaxInt64/2, 1)},
		NodeSpec{ID: "b", Rack: "/r", Capability: berth.New(math.MaxInt64/2, 1)})
	assert.ErrorIs(t, err, berth.ErrCapacityExceeded)
	assert.Equal(t, berth.New(8192, 8), s.ClusterResource())
	require.NoError(t, s.Check())
	// Up to the bound is fine.
	require.NoError(t, s.AddNode(NodeSpec{ID: "big", Rack: "/r", Capability: berth.New(math.MaxInt64-8192, 1)}))
	require.NoError(t, s.Check())
}

// An ask after which pending demand would wrap is refused, naming it; the
// books stay consistent (they went to −9.2e18 and failed Check).
func TestAllocateRefusesDemandOverflow(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Clock = berth.NewManualClock(0)
	s, err := New(cfg)
	require.NoError(t, err)
	require.NoError(t, s.AddNode(NodeSpec{ID: "n1", Rack: "/r", Capability: berth.New(8192, 8)}))
	for _, id := range []string{"a1", "a2"} {
		_, err := s.SubmitApp(AppSpec{ID: id, Queue: "default", User: "u"})
		require.NoError(t, err)
	}
	ask := func(prio int32, n int) Ask {
		return Ask{Priority: prio, ResourceName: AnyResource, Capability: berth.New(1024, 1), Count: n}
	}
	_, err = s.Allocate("a1", []Ask{ask(1, 2), ask(2, 1<<53)}, nil)
	assert.ErrorIs(t, err, berth.ErrCapacityExceeded)
	var fe *berth.FieldError
	require.True(t, errors.As(err, &fe))
	assert.Equal(t, "asks[1].count", fe.Field)
	require.NoError(t, s.Check())
	assert.True(t, s.Snapshot().Apps[0].Pending.IsZero(), "all or nothing")

	// Each application alone fits; together they would not.
	half := int(math.MaxInt64/1024/2) + 1
	_, err = s.Allocate("a1", []Ask{ask(1, half)}, nil)
	require.NoError(t, err)
	_, err = s.Allocate("a2", []Ask{ask(1, half)}, nil)
	assert.ErrorIs(t, err, berth.ErrCapacityExceeded)
	// Replacing one's ask makes room for the other.
	_, err = s.Allocate("a1", []Ask{ask(1, 1)}, nil)
	require.NoError(t, err)
	_, err = s.Allocate("a2", []Ask{ask(1, half)}, nil)
	require.NoError(t, err)
	require.NoError(t, s.Check())
	for _, q := range s.Snapshot().Queues.Queues {
		assert.False(t, q.Extra.Pending.AnyNegative(), q.Path)
	}
	// The bound is kept across a snapshot.
	var buf bytes.Buffer
	require.NoError(t, s.SaveState(&buf))
	r, err := RestoreScheduler(&buf, RestoreEnv{Clock: berth.NewManualClock(0)})
	require.NoError(t, err)
	_, err = r.Allocate("a1", []Ask{ask(1, half)}, nil)
	assert.ErrorIs(t, err, berth.ErrCapacityExceeded)
}

// Nil readers are refused with a typed error naming the argument.
func TestNilReaders(t *testing.T) {
	_, err := ParseXML(nil)
	var fe *berth.FieldError
	require.True(t, errors.As(err, &fe), "%v", err)
	assert.Equal(t, "reader", fe.Field)
	_, err = RestoreScheduler(nil, RestoreEnv{Clock: berth.NewManualClock(0)})
	require.True(t, errors.As(err, &fe), "%v", err)
	assert.Equal(t, "reader", fe.Field)
	cfg := DefaultConfig()
	cfg.Clock = berth.NewManualClock(0)
	s, err := New(cfg)
	require.NoError(t, err)
	err = s.SaveState(nil)
	require.True(t, errors.As(err, &fe), "%v", err)
	assert.Equal(t, "writer", fe.Field)
	_, err = ParseXML(strings.NewReader(""))
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)
	_ = queue.AnyResource
}
