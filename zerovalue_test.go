package berth_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/policy"
	"github.com/berthsched/berth/queue"
	"github.com/berthsched/berth/rle"
)

// TestZeroValuesDocumentedUsable checks the types whose documentation says
// the zero value is ready to use. (The stateful types that need their
// constructor, such as plan.Plan, plan.System, queue.Tree, follower.Follower
// and both schedulers, say so in their documentation.)
func TestZeroValuesDocumentedUsable(t *testing.T) {
	t.Run("berth.ManualClock", func(t *testing.T) {
		var c berth.ManualClock
		assert.Equal(t, berth.Time(0), c.Now())
		c.Advance(5)
		assert.Equal(t, berth.Time(5), c.Now())
	})
	t.Run("rle.Series", func(t *testing.T) {
		var s rle.Series
		assert.True(t, s.Equal(rle.New()), "the zero value is New()'s empty series")
		require.NoError(t, s.Add(berth.Interval{Start: 0, End: 10}, berth.New(1024, 1)))
		assert.Equal(t, berth.New(1024, 1), s.At(5))
		assert.Equal(t, berth.Resource{}, s.At(10))
	})
	t.Run("queue.ReservationACLs", func(t *testing.T) {
		var a queue.ReservationACLs
		for _, op := range []plan.ReservationOp{plan.OpSubmitReservation, plan.OpUpdateReservation, plan.OpDeleteReservation, plan.OpListReservations} {
			assert.NoError(t, a.AuthorizeReservation("anyone", op, "dedicated", "someone-else"), op)
		}
	})
}

// TestZeroCapacityOverTimeRefuses: a policy not built by its constructor
// has no limits; it must say so rather than admit every reservation.
func TestZeroCapacityOverTimeRefuses(t *testing.T) {
	var c policy.CapacityOverTime
	p, err := plan.New(plan.DefaultConfig("q", berth.New(8192, 8), berth.NewManualClock(0)))
	require.NoError(t, err)
	def := plan.Definition{Arrival: 0, Deadline: 10_000, Interpreter: plan.RAll,
		Stages: []plan.Stage{{Capability: berth.New(1024, 1), Containers: 1, Concurrency: 1, Duration: 1000}}}
	a, err := plan.NewAllocation(plan.ReservationID{ClusterTimestamp: 1, Sequence: 1}, "u", def,
		berth.Interval{Start: 0, End: 10_000}, []plan.IntervalResource{{Interval: berth.Interval{Start: 0, End: 1000}, Resource: berth.New(1024, 1)}})
	require.NoError(t, err)
	err = c.Validate(p, a)
	assert.ErrorIs(t, err, berth.ErrInvalidState)
	_, err = c.Available(rle.New(), p, "u", plan.ReservationID{}, berth.Interval{Start: 0, End: 10_000})
	assert.ErrorIs(t, err, berth.ErrInvalidState)
}
