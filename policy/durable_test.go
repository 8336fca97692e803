package policy

import (
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/plan"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestResolveRebuildsBuiltins(t *testing.T) {
	exact := DefaultCapacityOverTimeConfig()
	exact.Window, exact.InstantaneousMaxPercent, exact.AveragePercent, exact.ExactAverage = 7_200_000, 62.5, 33.3, true
	cot, err := NewCapacityOverTime(exact)
	require.NoError(t, err)
	def, err := NewCapacityOverTime(DefaultCapacityOverTimeConfig())
	require.NoError(t, err)
	for _, pol := range []plan.SharingPolicy{NoOverCommit{}, cot, def} {
		spec := pol.(plan.Specified).StateSpec()
		got, err := Resolve(spec)
		require.NoError(t, err, spec.Name)
		assert.Equal(t, spec, got.(plan.Specified).StateSpec())
		if c, ok := pol.(*CapacityOverTime); ok {
			assert.Equal(t, c.Config(), got.(*CapacityOverTime).Config())
		}
	}
	assert.NotEqual(t, cot.StateSpec(), def.StateSpec(), "the configuration is part of the spec")
	got, err := Resolve(plan.ComponentSpec{})
	require.NoError(t, err)
	assert.Nil(t, got)

	rp, err := NewSimpleCapacityReplanner(ReplannerConfig{EnforcementWindow: 123_456})
	require.NoError(t, err)
	r, err := ResolveReplanner(rp.StateSpec())
	require.NoError(t, err)
	assert.Equal(t, rp.Config(), r.(*SimpleCapacityReplanner).Config())
	r, err = ResolveReplanner(plan.ComponentSpec{})
	require.NoError(t, err)
	assert.Nil(t, r)
}

func TestResolveRefuses(t *testing.T) {
	cot, err := NewCapacityOverTime(DefaultCapacityOverTimeConfig())
	require.NoError(t, err)
	good := cot.StateSpec()
	badWindow := CapacityOverTime{cfg: CapacityOverTimeConfig{Window: -1}}
	for _, spec := range []plan.ComponentSpec{
		{Name: "Unknown"},
		{Params: []byte{1}},
		{Name: NoOverCommitName, Params: []byte{0}},
		{Name: CapacityOverTimeName},
		{Name: CapacityOverTimeName, Params: good.Params[:len(good.Params)-1]},
		{Name: CapacityOverTimeName, Params: append(append([]byte(nil), good.Params[:len(good.Params)-1]...), 2)},
		badWindow.StateSpec(),
	} {
		got, err := Resolve(spec)
		assert.ErrorIs(t, err, berth.ErrInvalidArgument, "%+v", spec)
		assert.Nil(t, got)
	}
	for _, spec := range []plan.ComponentSpec{
		{Name: "Other"},
		{Name: SimpleCapacityReplannerName},
		{Name: SimpleCapacityReplannerName, Params: []byte{1, 2}},
		{Name: SimpleCapacityReplannerName, Params: []byte{1}}, // a negative window
	} {
		got, err := ResolveReplanner(spec)
		assert.ErrorIs(t, err, berth.ErrInvalidArgument, "%+v", spec)
		assert.Nil(t, got)
	}
}
