package plan

import (
	"bytes"
	"testing"

	"github.com/berthsched/berth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testResolver gives restored plans the test doubles of testPlanConfig.
var testResolver = ResolverFunc(func(spec PlanSpec) (PlanParts, error) {
	return PlanParts{Agent: testAgent{}, Policy: testNoOverCommit{}}, nil
})

func TestPlanStateRoundTrip(t *testing.T) {
	p := newTestPlan(t)
	require.NoError(t, p.AddReservation(resAlloc(t, rid(1), "u1", 10, []int64{10, 10, 10, 10}, false, 0)))
	require.NoError(t, p.AddReservation(resAlloc(t, rid(2), "u2", 12, []int64{5, 10, 20}, true, 0)))
	require.NoError(t, p.RecoverReservation(resAlloc(t, rid(3), "u1", 3, []int64{5, 7}, false, 20)))
	require.NoError(t, p.SetCapacity(berth.New(50*1024, 50)))

	var buf bytes.Buffer
	require.NoError(t, p.SaveState(&buf))
	saved := bytes.Clone(buf.Bytes())
	q, err := RestorePlan(&buf, RestoreEnv{Clock: p.Clock(), Resolver: testResolver})
	require.NoError(t, err)
	assert.True(t, p.Equal(q))
	assert.Equal(t, p.Config().Capacity, q.Config().Capacity)
	var again bytes.Buffer
	require.NoError(t, q.SaveState(&again))
	assert.Equal(t, saved, again.Bytes())
	for _, u := range []string{"", "u1", "u2"} {
		w := berth.Interval{Start: 0, End: 100}
		a, err := p.LoadSteps(w, u)
		require.NoError(t, err)
		b, err := q.LoadSteps(w, u)
		require.NoError(t, err)
		assert.Equal(t, a, b, u)
	}
}
