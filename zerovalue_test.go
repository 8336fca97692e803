package berth_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/plan"
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
