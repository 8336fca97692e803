package fair

import (
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/berthsched/berth"
)

// An ask after which an application's pending demand would wrap is
// refused as in package capacity; demands summed over applications
// saturate instead of wrapping.
func TestAllocateRefusesDemandOverflow(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Clock = berth.NewManualClock(0)
	s, err := New(cfg)
	require.NoError(t, err)
	require.NoError(t, s.AddNode(NodeSpec{ID: "n1", Capability: berth.New(8192, 8)}))
	for _, id := range []string{"a1", "a2"} {
		_, err := s.SubmitApp(AppSpec{ID: id, Queue: "root.default", User: "u"})
		require.NoError(t, err)
	}
	ask := func(n int) Ask {
		return Ask{Priority: 1, ResourceName: AnyResource, Capability: berth.New(1024, 1), Count: n}
	}
	_, err = s.Allocate("a1", []Ask{ask(1 << 53)}, nil)
	assert.ErrorIs(t, err, berth.ErrCapacityExceeded)
	var fe *berth.FieldError
	require.True(t, errors.As(err, &fe))
	assert.Equal(t, "asks[0].count", fe.Field)

	half := int(math.MaxInt64/1024/2) + 1
	for _, id := range []string{"a1", "a2"} {
		_, err = s.Allocate(id, []Ask{ask(half)}, nil)
		require.NoError(t, err)
	}
	s.Update()
	q := s.Snapshot().Queue("root.default")
	assert.False(t, q.Demand.AnyNegative(), "saturated, not wrapped: %v", q.Demand)
	assert.Equal(t, int64(math.MaxInt64), q.Demand.Memory)
	require.NoError(t, s.Check())
}
