package agent_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/agent"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/policy"
)

// A user's allocator plugged into a real plan decides differently from
// the built-in, and the plan holds its decision.
func TestCustomAllocatorChangesDecisions(t *testing.T) {
	def := plan.Definition{Arrival: 0, Deadline: 5000, Interpreter: plan.RAll, Stages: []plan.Stage{stage(1, 1, 1000)}}
	for _, tc := range []struct {
		name  string
		alloc agent.StageAllocator
		want  []plan.IntervalResource
	}{
		{"greedy", agent.GreedyRLE{}, []plan.IntervalResource{ir(0, 1000, 1)}},
		{"best-fit", BestFit{}, []plan.IntervalResource{ir(1000, 2000, 1)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := seedPlan()
			ip := &agent.IterativePlanner{Allocator: tc.alloc, Config: agent.DefaultConfig()}
			require.NoError(t, ip.CreateReservation(p, id(1), "u", def))
			assert.Equal(t, tc.want, blocks(t, p, id(1)))
		})
	}
}

// fixed answers the same blocks for every stage, whatever they are.
type fixed struct {
	blocks []agent.Placement
	ok     bool
}

func (fixed) Name() string { return "fixed" }
func (f fixed) Allocate(*agent.StageView, int, plan.Stage, berth.Interval) ([]agent.Placement, bool, error) {
	return f.blocks, f.ok, nil
}

func blk(s, e, n int64) agent.Placement {
	return agent.Placement{Interval: berth.Interval{Start: s, End: e}, Resource: berth.New(1024*n, n)}
}

// A misbehaving allocator gets a typed error and changes nothing.
func TestMisbehavingAllocatorIsRefused(t *testing.T) {
	twoGangs := plan.Definition{Arrival: 0, Deadline: 10_000, Interpreter: plan.RAll, Stages: []plan.Stage{stage(2, 1, 1000)}}
	for _, tc := range []struct {
		name   string
		blocks []agent.Placement
	}{
		{"outside the window", []agent.Placement{blk(9500, 10_500, 2)}},
		{"before the window", []agent.Placement{blk(-1000, 0, 2)}},
		{"empty interval", []agent.Placement{blk(1000, 1000, 2), blk(0, 1000, 2)}},
		{"negative", []agent.Placement{{Interval: berth.Interval{Start: 0, End: 1000}, Resource: berth.New(-2048, -2)}}},
		{"not a gang multiple", []agent.Placement{{Interval: berth.Interval{Start: 0, End: 1000}, Resource: berth.New(1536, 2)}}},
		{"too little", []agent.Placement{blk(0, 1000, 1)}},
		{"too much", []agent.Placement{blk(0, 1000, 2), blk(1000, 2000, 1)}},
		{"zero block", []agent.Placement{blk(0, 1000, 2), blk(2000, 3000, 0)}},
		{"overlap beyond capacity", []agent.Placement{blk(0, 400, 3), blk(0, 400, 2)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := emptyPlan(t, 4, policy.NoOverCommit{})
			require.NoError(t, mustGreedy(t).CreateReservation(p, id(1), "u",
				plan.Definition{Arrival: 0, Deadline: 1000, Interpreter: plan.RAll, Stages: []plan.Stage{stage(3, 1, 1000)}}))
			before := p.Snapshot()
			ip := &agent.IterativePlanner{Allocator: fixed{blocks: tc.blocks, ok: true}, Config: agent.DefaultConfig()}
			err := ip.CreateReservation(p, id(2), "u", twoGangs)
			var ce *agent.ContractError
			require.ErrorAs(t, err, &ce)
			assert.ErrorIs(t, err, agent.ErrContract)
			assert.Equal(t, "fixed", ce.Component)
			assert.Equal(t, 0, ce.Stage)
			assert.True(t, before.Equal(p), "the plan changed")
		})
	}
	// A well-behaved answer of the same allocator is accepted.
	p := emptyPlan(t, 4, policy.NoOverCommit{})
	ip := &agent.IterativePlanner{Allocator: fixed{blocks: []agent.Placement{blk(0, 1000, 1), blk(500, 1500, 1)}, ok: true}, Config: agent.DefaultConfig()}
	require.NoError(t, ip.CreateReservation(p, id(2), "u", twoGangs))
	// "No fit" is a NoPlacementError, not a contract error.
	ip = &agent.IterativePlanner{Allocator: fixed{}, Config: agent.DefaultConfig()}
	err := ip.CreateReservation(p, id(3), "u", twoGangs)
	assert.ErrorIs(t, err, berth.ErrNoPlacement)
	assert.NotErrorIs(t, err, agent.ErrContract)
}

// The view a custom allocator sees agrees with the plan.
func TestStageViewReadsThePlan(t *testing.T) {
	p := seedPlan()
	var seen []berth.Resource
	probe := probeAlloc{t: t, f: func(v *agent.StageView, s plan.Stage, w berth.Interval) {
		assert.Equal(t, p.Capacity(), v.Capacity())
		assert.Equal(t, p.Step(), v.Step())
		assert.Equal(t, p.MinAllocation(), v.MinAllocation())
		assert.Equal(t, p.MaxAllocation(), v.MaxAllocation())
		assert.Equal(t, "alice", v.User())
		assert.Equal(t, 2, v.NumStages())
		av, err := v.Available(w)
		require.NoError(t, err)
		seen = append(seen, av.At(2500), v.FreeAt(2500), v.Taken(2500))
		free, ok := v.PlanLeastFree(berth.Interval{Start: 0, End: 5000})
		assert.True(t, ok)
		assert.Equal(t, berth.Resource{}, free)
		v.Release(av)
	}}
	def := plan.Definition{Arrival: 0, Deadline: 5000, Interpreter: plan.RAll,
		Stages: []plan.Stage{stage(1, 1, 1000), stage(1, 1, 1000)}}
	ip := &agent.IterativePlanner{Allocator: probe, Config: agent.DefaultConfig()}
	_, err := ip.Place(p, id(1), "alice", def)
	require.NoError(t, err)
	// Both stages see nothing free at 2500 (the plan holds two there); the
	// second sees the first stage's block at [0, 1000) in Taken(500) — here
	// at 2500 nothing is taken.
	require.Len(t, seen, 6)
	for _, r := range seen {
		assert.True(t, r.IsZero(), "%v", r)
	}
}

type probeAlloc struct {
	t *testing.T
	f func(v *agent.StageView, s plan.Stage, w berth.Interval)
}

func (probeAlloc) Name() string { return "probe" }
func (a probeAlloc) Allocate(v *agent.StageView, i int, s plan.Stage, w berth.Interval) ([]agent.Placement, bool, error) {
	a.f(v, s, w)
	if i == 1 {
		assert.Equal(a.t, berth.New(1024, 1), v.Taken(500))
		env, ok := v.Placed()
		assert.True(a.t, ok)
		assert.Equal(a.t, berth.Interval{Start: 0, End: 1000}, env)
	}
	return []agent.Placement{blk(0, 1000, 1)}, true, nil
}

func mustGreedy(t *testing.T) plan.Agent {
	ag, err := agent.NewGreedy(agent.DefaultConfig())
	require.NoError(t, err)
	return ag
}

// lateHalf is a user's stage interval: the second half of the contract.
type lateHalf struct{}

func (lateHalf) Name() string { return "late-half" }
func (lateHalf) Window(v *agent.StageView, _ int) berth.Interval {
	c := v.Contract()
	return berth.Interval{Start: c.Start + c.Len()/2, End: c.End}
}

// A user's interval narrows where the built-in allocator may place.
func TestCustomIntervalChangesDecisions(t *testing.T) {
	def := plan.Definition{Arrival: 0, Deadline: 10_000, Interpreter: plan.RAll, Stages: []plan.Stage{stage(2, 1, 1000)}}
	p := emptyPlan(t, 4, policy.NoOverCommit{})
	ip := &agent.IterativePlanner{Interval: lateHalf{}, Config: agent.DefaultConfig()}
	require.NoError(t, ip.CreateReservation(p, id(1), "u", def))
	assert.Equal(t, []plan.IntervalResource{ir(5000, 6000, 2)}, blocks(t, p, id(1)))
}

// FuzzCustomAllocator: whatever blocks an allocator answers, the planner
// accepts exactly the ones within the contract, or refuses with a typed
// error and leaves the plan unchanged; nothing panics.
func FuzzCustomAllocator(f *testing.F) {
	f.Add(int64(0), int64(1000), int64(2), int64(0), int64(0), int64(0))
	f.Add(int64(500), int64(1500), int64(1), int64(1500), int64(2500), int64(1))
	f.Add(int64(-5), int64(10), int64(-1), int64(9000), int64(9000), int64(7))
	f.Add(int64(0), int64(400), int64(5), int64(0), int64(0), int64(0))
	f.Fuzz(func(t *testing.T, s1, e1, n1, s2, e2, n2 int64) {
		p := emptyPlan(t, 4, policy.NoOverCommit{})
		require.NoError(t, mustGreedy(t).CreateReservation(p, id(1), "u",
			plan.Definition{Arrival: 2000, Deadline: 3000, Interpreter: plan.RAll, Stages: []plan.Stage{stage(3, 1, 1000)}}))
		before := p.Snapshot()
		bs := []agent.Placement{blk(s1, e1, n1)}
		if n2 != 0 {
			bs = append(bs, blk(s2, e2, n2))
		}
		ip := &agent.IterativePlanner{Allocator: fixed{blocks: bs, ok: true}, Config: agent.DefaultConfig()}
		def := plan.Definition{Arrival: 0, Deadline: 10_000, Interpreter: plan.RAll, Stages: []plan.Stage{stage(2, 1, 1000)}}
		err := ip.CreateReservation(p, id(2), "u", def)
		if err != nil {
			if !errors.Is(err, agent.ErrContract) && !errors.Is(err, berth.ErrCapacityExceeded) &&
				!errors.Is(err, berth.ErrInvalidArgument) {
				t.Fatalf("untyped error: %v", err)
			}
			assert.True(t, before.Equal(p), "the plan changed on %v", err)
			return
		}
		// Accepted: inside the window, whole gangs, the stage's demand.
		var area int64
		for _, b := range bs {
			require.True(t, b.Interval.Start >= 0 && b.Interval.End <= 10_000 && b.Interval.Valid(), "%v", b)
			require.Positive(t, b.Resource.Memory)
			area += b.Resource.Memory / 1024 * b.Interval.Len()
		}
		assert.Equal(t, int64(2*1000), area)
		a, ok := p.Reservation(id(2))
		require.True(t, ok)
		assert.Equal(t, "u", a.User)
	})
}
