package follower

import (
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/policy"
	"github.com/stretchr/testify/require"
)

// c returns n containers of <1024, 1>.
func c(n int64) berth.Resource { return berth.New(1024*n, n) }

func rid(seq int64) plan.ReservationID {
	return plan.ReservationID{ClusterTimestamp: 1404198295326, Sequence: seq}
}

// generateAllocation is ReservationSystemTestUtil.generateAllocation with
// step 1: [start+i, start+i+1) → alloc[i] containers of <1024, 1>.
func generateAllocation(start berth.Time, alloc ...int64) []plan.IntervalResource {
	out := make([]plan.IntervalResource, len(alloc))
	for i, n := range alloc {
		out[i] = plan.IntervalResource{Interval: berth.Interval{Start: start + berth.Time(i), End: start + berth.Time(i) + 1}, Resource: c(n)}
	}
	return out
}

// newAllocation builds a reservation over [start, start+len(alloc)).
func newAllocation(t testing.TB, id plan.ReservationID, user string, start berth.Time, alloc ...int64) *plan.Allocation {
	t.Helper()
	end := start + berth.Time(len(alloc))
	def := plan.Definition{Arrival: start, Deadline: end, Interpreter: plan.RAll,
		Stages: []plan.Stage{{Capability: berth.New(1024, 1), Containers: 1, Concurrency: 1, Duration: end - start}}}
	a, err := plan.NewAllocation(id, user, def, berth.Interval{Start: start, End: end}, generateAllocation(start, alloc...))
	require.NoError(t, err)
	return a
}

// pfPlanConfig is the plan of TestSchedulerPlanFollowerBase: capacity the
// cluster <128000,125>, step 1, CapacityOverTime (window 20, average 20%,
// instantaneous 40%), minimum <1024,1>, maximum <8192,8>.
func pfPlanConfig(queue string, move bool, clock berth.Clock) plan.Config {
	cfg := plan.DefaultConfig(queue, berth.New(128000, 125), clock)
	cfg.Step = 1
	cfg.MaxAllocation = berth.New(8192, 8)
	pol, err := policy.NewCapacityOverTime(policy.CapacityOverTimeConfig{Window: 20, InstantaneousMaxPercent: 40, AveragePercent: 20})
	if err != nil {
		panic(err)
	}
	cfg.Policy = pol
	cfg.MoveOnExpiry = move
	return cfg
}

// pfPlan is the plan of §11 with r1, r2, r3.
func pfPlan(t testing.TB, queue string, move bool) *plan.Plan {
	t.Helper()
	p, err := plan.New(pfPlanConfig(queue, move, berth.NewManualClock(0)))
	require.NoError(t, err)
	require.NoError(t, p.AddReservation(newAllocation(t, rid(1), "u3", 0, 10, 10, 10, 10, 10)))
	require.NoError(t, p.AddReservation(newAllocation(t, rid(2), "u3", 3, 10, 10, 10, 10, 10)))
	require.NoError(t, p.AddReservation(newAllocation(t, rid(3), "u4", 10, 0, 10, 20, 10, 0)))
	return p
}
