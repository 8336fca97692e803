package agent

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/policy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// refPortfolio is Portfolio.compute without the memo and without
// hopeless: every planner reads the plan itself.
func refPortfolio(f *Portfolio, v planView, id plan.ReservationID, user string, def plan.Definition) ([]placement, error) {
	multi := len(def.Stages) > 1
	if multi && def.Interpreter == plan.RAny {
		for i, s := range def.Stages {
			if err := validateStage(i, s, v.capacity(), v.maxAllocation(), v.calculator()); err != nil {
				return nil, err
			}
		}
		var last error
		for _, i := range largestFirst(def.Stages, v.step(), v.capacity()) {
			one := def
			one.Stages = def.Stages[i : i+1]
			for _, ip := range f.anyOf {
				ps, _, err := ip.compute(v, id, user, one)
				if err == nil {
					return ps, nil
				}
				if !errors.Is(err, berth.ErrNoPlacement) {
					return nil, err
				}
				last = err
			}
		}
		return nil, last
	}
	var last error
	for _, ip := range f.planners(def) {
		ps, _, err := ip.compute(v, id, user, def)
		if err == nil {
			return ps, nil
		}
		if !errors.Is(err, berth.ErrNoPlacement) {
			return nil, err
		}
		last = err
	}
	if multi {
		stages, ok, err := chain(v, id, user, def)
		if err != nil {
			return nil, err
		}
		if ok {
			var all []placement
			for _, x := range stages {
				all = append(all, x)
			}
			return canonical(all), nil
		}
	}
	return nil, last
}

// Property: the portfolio's multi-stage decision (memo + hopeless) is the
// decision of its planners reading the plan directly: same placement, and
// for a refusal the same kind (no placement vs. an error such as an
// over-committed plan).
func TestPortfolioMemoSameDecisions(t *testing.T) {
	mk := func(inst float32) plan.SharingPolicy {
		cfg := policy.DefaultCapacityOverTimeConfig()
		cfg.InstantaneousMaxPercent = inst
		cfg.Window = 1000
		cot, err := policy.NewCapacityOverTime(cfg)
		require.NoError(t, err)
		return cot
	}
	pols := []func() plan.SharingPolicy{
		func() plan.SharingPolicy { return nil },
		func() plan.SharingPolicy { return policy.NoOverCommit{} },
		func() plan.SharingPolicy { return mk(60) },
		func() plan.SharingPolicy { return mk(100) },
	}
	f, err := NewPortfolio(Config{})
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(7, 11))
	next := func(max int64) int64 { return r.Int64N(max + 1) }
	compared, placed := 0, 0
	rounds := 600
	if testing.Short() || raceEnabled {
		rounds = 160
	}
	for round := 0; round < rounds; round++ {
		pc := plan.DefaultConfig("q", berth.New(10*1024, 10), berth.NewManualClock(0))
		pc.MaxAllocation = berth.New(4096, 4)
		pc.Policy = pols[round%len(pols)]()
		pc.MaxPeriodicity = 100_000
		p, err := plan.New(pc)
		require.NoError(t, err)
		addRandomLoad(t, r, p, 8, round%8 == 7, "v", "u")
		for q := 0; q < 4; q++ {
			def := randomDefinition(next)
			if len(def.Stages) < 2 {
				def.Stages = append(def.Stages, def.Stages[0])
			}
			id := plan.ReservationID{ClusterTimestamp: 2, Sequence: 1}
			if next(4) == 0 {
				id = plan.ReservationID{ClusterTimestamp: 1, Sequence: 1 + next(8)}
			}
			switch next(9) {
			case 0:
				def.Deadline = berth.MaxTime // the contract reaches the end of time
			case 1:
				def.Deadline = berth.MaxTime - 1
			}
			direct := planAdapter{p: p, bufs: newStepBuffers()}
			want, werr := refPortfolio(f, direct, id, "u", def)
			got, _, gerr := f.compute(planAdapter{p: p, bufs: f.single[0].bufs}, id, "u", def)
			where := fmt.Sprintf("round %d policy %d def %+v id %v", round, round%len(pols), def, id)
			compared++
			require.Equal(t, werr == nil, gerr == nil, "%s: %v / %v", where, werr, gerr)
			if werr == nil {
				placed++
				require.Equal(t, canonical(want), canonical(got), where)
				continue
			}
			// The same kind of refusal, an over-committed plan's included
			// (TestHopelessLeavesOverCommitToThePlanners).
			require.Equal(t, errors.Is(werr, berth.ErrNoPlacement), errors.Is(gerr, berth.ErrNoPlacement), "%s: %v / %v", where, werr, gerr)
			require.Equal(t, errors.Is(werr, berth.ErrCapacityExceeded), errors.Is(gerr, berth.ErrCapacityExceeded), "%s: %v / %v", where, werr, gerr)
		}
	}
	require.Positive(t, placed)
	t.Logf("%d decisions compared, %d placed", compared, placed)
}

// Parallel multi-stage placements on ONE plan (Place does not change it)
// answer as a lone caller does: the memo and its pooled buffers are per
// decision, never shared between goroutines.
func TestPortfolioParallelOnePlan(t *testing.T) {
	f, err := NewPortfolio(Config{})
	require.NoError(t, err)
	lw, err := NewLeastWaste(LeastWasteConfig{Config: DefaultConfig()})
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(3, 5))
	next := func(max int64) int64 { return r.Int64N(max + 1) }
	p := testPlan(t, policy.NoOverCommit{})
	for k := int64(1); k <= 20; k++ {
		def := randomDefinition(next)
		_ = f.CreateReservation(p, plan.ReservationID{ClusterTimestamp: 1, Sequence: k}, "u", def)
	}
	defs := make([]plan.Definition, 40)
	for i := range defs {
		defs[i] = randomDefinition(next)
		if len(defs[i].Stages) < 2 {
			defs[i].Stages = append(defs[i].Stages, defs[i].Stages[0])
		}
	}
	type answer struct {
		a   *plan.Allocation
		err string
	}
	run := func(ag interface {
		Place(*plan.Plan, plan.ReservationID, string, plan.Definition) (*plan.Allocation, error)
	}) []answer {
		out := make([]answer, len(defs))
		for i, d := range defs {
			a, err := ag.Place(p, plan.ReservationID{ClusterTimestamp: 2, Sequence: int64(i + 1)}, "u", d)
			out[i].a = a
			if err != nil {
				out[i].err = err.Error()
			}
		}
		return out
	}
	for _, ag := range []interface {
		Place(*plan.Plan, plan.ReservationID, string, plan.Definition) (*plan.Allocation, error)
	}{f, lw} {
		want := run(ag)
		var wg sync.WaitGroup
		got := make([][]answer, 6)
		for g := range got {
			wg.Add(1)
			go func(g int) {
				defer wg.Done()
				for k := 0; k < 3; k++ {
					got[g] = run(ag)
				}
			}(g)
		}
		wg.Wait()
		placed := 0
		for _, a := range want {
			if a.a != nil {
				placed++
			}
		}
		require.Positive(t, placed)
		for g := range got {
			require.Equal(t, want, got[g], "caller %d", g)
		}
	}
}

// On an over-committed plan, a multi-stage request that hopeless could
// refuse by arithmetic alone (a stage cannot fit its window) is refused
// as the portfolio's planners refuse it: with the plan's over-commit
// error, berth.ErrCapacityExceeded, as YARN's
// getAvailableResourceOverTime throws, not berth.ErrNoPlacement.
func TestHopelessLeavesOverCommitToThePlanners(t *testing.T) {
	// A plan under NoOverCommit whose capacity shrank (the plan follower
	// does this when the cluster shrinks): over-committed until replanned.
	pc := plan.DefaultConfig("q", berth.New(16*1024, 16), berth.NewManualClock(0))
	pc.Policy = policy.NoOverCommit{}
	p, err := plan.New(pc)
	require.NoError(t, err)
	iv := berth.Interval{Start: 0, End: 10_000}
	a, err := plan.NewAllocation(plan.ReservationID{ClusterTimestamp: 1, Sequence: 1}, "u", plan.Definition{},
		iv, []plan.IntervalResource{{Interval: iv, Resource: berth.New(12*1024, 12)}})
	require.NoError(t, err)
	require.NoError(t, p.AddReservation(a))
	require.NoError(t, p.SetCapacity(berth.New(10*1024, 10)))
	st := plan.Stage{Capability: berth.New(1024, 1), Concurrency: 1, Containers: 1, Duration: 2000}
	def := plan.Definition{Arrival: 0, Deadline: 1500, Interpreter: plan.RAll, Stages: []plan.Stage{st, st}}
	f, err := NewPortfolio(Config{})
	require.NoError(t, err)
	_, werr := refPortfolio(f, planAdapter{p: p}, plan.ReservationID{ClusterTimestamp: 2, Sequence: 1}, "u", def)
	require.ErrorIs(t, werr, berth.ErrCapacityExceeded, "the planners read the plan")
	_, gerr := f.Place(p, plan.ReservationID{ClusterTimestamp: 2, Sequence: 1}, "u", def)
	assert.ErrorIs(t, gerr, berth.ErrCapacityExceeded, "the portfolio should answer as its planners: got %v", gerr)
}
