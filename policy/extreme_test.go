package policy_test

import (
	"math"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/policy"
	"github.com/stretchr/testify/require"
)

// Allocations at the ends of time must not panic.
func TestExtremeTimes(t *testing.T) {
	for _, exact := range []bool{false, true} {
		cfg := policy.DefaultCapacityOverTimeConfig()
		cfg.ExactAverage = exact
		cfg.AveragePercent = 50
		pol, err := policy.NewCapacityOverTime(cfg)
		require.NoError(t, err)
		for _, pl := range []plan.SharingPolicy{pol, policy.NoOverCommit{}} {
			p := policyPlan(t, pl, berth.New(10*1024, 10), 1000)
			for i, iv := range []berth.Interval{
				{Start: math.MinInt64 + 1, End: math.MinInt64 + 5000},
				{Start: math.MaxInt64 - 5000, End: math.MaxInt64 - 1},
				{Start: math.MinInt64 + 10, End: math.MaxInt64 - 10},
				{Start: -10, End: 10},
			} {
				a, err := plan.NewAllocation(plan.ReservationID{ClusterTimestamp: 5, Sequence: int64(i + 1)}, "u", plan.Definition{},
					iv, []plan.IntervalResource{{Interval: iv, Resource: berth.New(2048, 2)}})
				require.NoError(t, err)
				_ = p.AddReservation(a) // no panic; the decision is not asserted
			}
			rp, err := policy.NewSimpleCapacityReplanner(policy.DefaultReplannerConfig())
			require.NoError(t, err)
			require.NoError(t, p.SetCapacity(berth.New(1024, 1)))
			require.NoError(t, rp.Plan(p, nil, math.MaxInt64-100_000))
			require.NoError(t, rp.Plan(p, nil, 0))
		}
	}
}
