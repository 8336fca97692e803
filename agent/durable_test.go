package agent_test

import (
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/agent"
	"github.com/berthsched/berth/plan"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestResolveRebuildsBuiltinAgents(t *testing.T) {
	o := agent.DefaultConfig()
	o.ExactScan, o.ComponentwiseFit, o.SmoothnessFactor = true, true, 7
	late := agent.DefaultConfig()
	late.FavorEarlyAllocation = false
	greedy, err := agent.NewGreedy(late)
	require.NoError(t, err)
	aligned, err := agent.NewAlignedPlannerWithGreedy(o)
	require.NoError(t, err)
	portfolio, err := agent.NewPortfolio(o)
	require.NoError(t, err)
	legacy := &agent.LegacyGreedy{ComponentwiseFit: true}
	wopts := agent.DefaultWasteConfig()
	wopts.Gap, wopts.Slack = 1800*1000, -1
	leastWaste, err := agent.NewLeastWaste(agent.LeastWasteConfig{Config: o, Waste: wopts})
	require.NoError(t, err)
	nested := &agent.TryMany{Agents: []plan.Agent{legacy, greedy, aligned}}
	cases := []struct {
		a    plan.Agent
		name string
	}{
		{greedy, agent.GreedyName},
		{aligned, agent.AlignedPlannerWithGreedyName},
		{portfolio, agent.PortfolioName},
		{legacy, agent.LegacyGreedyName},
		{leastWaste, agent.LeastWasteName},
		{nested, agent.TryManyName},
	}
	for _, tc := range cases {
		spec := tc.a.(plan.Specified).StateSpec()
		assert.Equal(t, tc.name, spec.Name)
		got, err := agent.Resolve(spec)
		require.NoError(t, err, tc.name)
		assert.IsType(t, tc.a, got)
		assert.Equal(t, spec, got.(plan.Specified).StateSpec(), tc.name)
	}
	// The Config is part of the spec.
	early, err := agent.NewGreedy(agent.DefaultConfig())
	require.NoError(t, err)
	assert.NotEqual(t, early.StateSpec(), greedy.StateSpec())
	// A planner of other parts is named by them and only the host can
	// supply it.
	custom := &agent.IterativePlanner{Interval: agent.ByDemand{}, Allocator: agent.GreedyRLE{}, Config: o}
	_, err = agent.Resolve(custom.StateSpec())
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)
	got, err := agent.Resolve(plan.ComponentSpec{})
	require.NoError(t, err)
	assert.Nil(t, got)
}

func TestResolveRefusesMalformedAgents(t *testing.T) {
	for _, spec := range []plan.ComponentSpec{
		{Name: "Unknown"},
		{Params: []byte{1}},
		{Name: agent.GreedyName},
		{Name: agent.GreedyName, Params: []byte{8, 0}},    // an unknown flag
		{Name: agent.GreedyName, Params: []byte{1, 1}},    // a negative smoothness factor
		{Name: agent.GreedyName, Params: []byte{1, 0, 0}}, // trailing bytes
		{Name: agent.LegacyGreedyName, Params: []byte{2}},
		{Name: agent.TryManyName, Params: []byte{5, 'a'}}, // a truncated name
		{Name: agent.TryManyName, Params: []byte{0, 0}},   // a nil agent
		{Name: agent.TryManyName, Params: []byte{3, 'x', 'y', 'z', 0}},
	} {
		got, err := agent.Resolve(spec)
		assert.ErrorIs(t, err, berth.ErrInvalidArgument, "%+v", spec)
		assert.Nil(t, got)
	}
	// Nesting is bounded.
	spec := plan.ComponentSpec{Name: agent.LegacyGreedyName, Params: []byte{0}}
	for i := 0; i < 10; i++ {
		var b []byte
		b = append(b, byte(len(spec.Name)))
		b = append(b, spec.Name...)
		b = append(b, byte(len(spec.Params)))
		b = append(b, spec.Params...)
		spec = plan.ComponentSpec{Name: agent.TryManyName, Params: b}
	}
	_, err := agent.Resolve(spec)
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)
}
