package agent

import (
	"math/rand/v2"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/policy"
	"github.com/stretchr/testify/require"
)

// Property: the agents' fast availability (sums of allocations, policy
// applied) equals the plan's AvailableResources, and the fast loads equal
// CumulativeLoad minus the old reservation.
func TestFastReadsMatchThePlan(t *testing.T) {
	cfg := policy.DefaultCapacityOverTimeConfig()
	cfg.InstantaneousMaxPercent = 60 // so that Available is not a pass-through
	cfg.Window = 1000
	cot, err := policy.NewCapacityOverTime(cfg)
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(8, 8))
	for round := 0; round < 40; round++ {
		var pol plan.SharingPolicy = cot
		if round%2 == 1 {
			pol = policy.NoOverCommit{}
		}
		pc := plan.DefaultConfig("q", berth.New(20*1024, 20), berth.NewManualClock(0))
		pc.Policy = pol
		pc.MaxPeriodicity = 100
		p, err := plan.New(pc)
		require.NoError(t, err)
		for k := int64(1); k <= 12; k++ {
			s := r.Int64N(200)
			iv := berth.Interval{Start: s, End: s + 1 + r.Int64N(40)}
			def := plan.Definition{}
			if r.IntN(5) == 0 {
				def.Period = 50
				iv = berth.Interval{Start: r.Int64N(20), End: 20 + r.Int64N(30)}
			}
			a, err := plan.NewAllocation(plan.ReservationID{ClusterTimestamp: 1, Sequence: k}, []string{"a", "b"}[r.IntN(2)],
				def, iv, []plan.IntervalResource{{Interval: iv, Resource: berth.New(1024, 1).MulInt(1 + r.Int64N(4))}})
			require.NoError(t, err)
			_ = p.AddReservation(a)
		}
		v := newView(p)
		for q := 0; q < 10; q++ {
			s := r.Int64N(250) - 20
			w := berth.Interval{Start: s, End: s + 1 + r.Int64N(80)}
			old := plan.ReservationID{ClusterTimestamp: 1, Sequence: 1 + r.Int64N(14)}
			user := []string{"a", "b"}[r.IntN(2)]
			fast, ferr := v.available(user, old, w, 0)
			slow, serr := p.AvailableResources(user, old, w, 0)
			require.Equal(t, serr == nil, ferr == nil, "errors: %v / %v", ferr, serr)
			if serr != nil {
				continue
			}
			want := profileOf(slow, w)
			require.Equal(t, want.ts, fast.ts, "round %d window %v", round, w)
			for i := range want.rs {
				require.True(t, want.rs[i].Equal(fast.rs[i]), "round %d at %d: %v vs %v", round, want.ts[i], want.rs[i], fast.rs[i])
			}
			fl, err := v.loads(old, w)
			require.NoError(t, err)
			cl, err := p.CumulativeLoad(w)
			require.NoError(t, err)
			ref := profileOf(cl, w)
			if a, ok := p.Reservation(old); ok {
				back, err := a.ResourcesOver(w)
				require.NoError(t, err)
				for st := range back.StepsIn(w) {
					ref.sub(st.Interval.Start, st.Interval.End, st.Value)
				}
			}
			require.Equal(t, ref.ts, fl.ts)
			for i := range ref.rs {
				require.True(t, ref.rs[i].Equal(fl.rs[i]))
			}
		}
	}
}

// Property: recycling buffers across placements changes nothing. A planner
// with buffers (the constructors') and the same planner without (a
// literal) place the same random sequence of requests identically, each on
// its own copy of a plan; many requests fail and leave dirty buffers.
func TestRecycledBuffersChangeNothing(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 9))
	for _, left := range []bool{true, false} {
		opts := DefaultConfig()
		opts.FavorEarlyAllocation = left
		pooled, err := NewGreedy(opts)
		require.NoError(t, err)
		require.NotNil(t, pooled.bufs)
		fresh := &IterativePlanner{Interval: Unconstrained{}, Allocator: GreedyRLE{}, Config: opts}
		cot, err := policy.NewCapacityOverTime(policy.DefaultCapacityOverTimeConfig())
		require.NoError(t, err)
		pc := plan.DefaultConfig("q", berth.New(16*1024, 16), berth.NewManualClock(0))
		pc.Policy = cot
		p1, err := plan.New(pc)
		require.NoError(t, err)
		p2 := p1.Snapshot()
		accepted := 0
		for k := int64(1); k <= 300; k++ {
			arrival := r.Int64N(200) * 1000
			dur := (1 + r.Int64N(20)) * 1000
			n := 1 + r.Int64N(12)
			conc := int64(1)
			if r.IntN(2) == 0 {
				conc = n
			}
			def := plan.Definition{Arrival: arrival, Deadline: arrival + dur*(1+r.Int64N(4)), Interpreter: plan.RAll,
				Stages: []plan.Stage{{Capability: berth.New(1024, 1), Containers: n, Concurrency: conc, Duration: dur}}}
			id := plan.ReservationID{ClusterTimestamp: 1, Sequence: k}
			user := []string{"a", "b", "c"}[r.IntN(3)]
			e1 := pooled.CreateReservation(p1, id, user, def)
			e2 := fresh.CreateReservation(p2, id, user, def)
			require.Equal(t, e1 == nil, e2 == nil, "request %d: %v / %v", k, e1, e2)
			if e1 != nil {
				continue
			}
			accepted++
			a1, _ := p1.Reservation(id)
			a2, _ := p2.Reservation(id)
			require.Equal(t, a2.Intervals, a1.Intervals, "request %d", k)
		}
		require.Greater(t, accepted, 30)
		require.Less(t, accepted, 290, "the plan fills up, so that searches fail too")
	}
}

// yarnPlanLoadAt is a pointwise model of YARN's planLoads at t: the plan's
// run-length entries from the one in force at ja to the last one at or
// before jd, the last held onwards, unless YARN clips them to [ja, jd)
// (old version taken away).
func yarnPlanLoadAt(tb testing.TB, p *plan.Plan, old plan.ReservationID, contract berth.Interval, t berth.Time) berth.Resource {
	tb.Helper()
	step := p.Step()
	ja, jd := stepRoundUp(contract.Start, step), stepRoundDown(contract.End, step)
	clipped := p.HoldsPeriodic()
	a, hasOld := p.Reservation(old)
	if hasOld {
		for u := berth.Time(-1000); u <= jd; u++ {
			if !a.ResourcesAt(u).IsZero() {
				clipped = true
				break
			}
		}
	}
	if clipped {
		if t < ja || t >= jd {
			return berth.Resource{}
		}
		r := p.TotalCommitted(t)
		if hasOld {
			// A periodic old version counts unrolled, as in the plan's total.
			s, err := a.ResourcesOver(berth.Interval{Start: t, End: t + 1})
			require.NoError(tb, err)
			r = r.Sub(s.At(t))
		}
		return r
	}
	// An entry (a change of the plan's load) in (t, ja] hides t.
	for u := t + 1; u <= ja; u++ {
		if !p.TotalCommitted(u).Equal(p.TotalCommitted(u - 1)) {
			return berth.Resource{}
		}
	}
	return p.TotalCommitted(min(t, jd))
}

// Property: yarnPlanLoads equals the pointwise model of YARN's planLoads
// on every ms of the definition's window, for creates and updates, with
// and without periodic reservations, with windows not aligned to the step.
func TestYARNPlanLoadsMatchTheModel(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 11))
	for round := 0; round < 60; round++ {
		pc := plan.DefaultConfig("q", berth.New(40*1024, 40), berth.NewManualClock(0))
		pc.Step = 10
		pc.MaxPeriodicity = 200
		p, err := plan.New(pc)
		require.NoError(t, err)
		for k := int64(1); k <= 8; k++ {
			s := r.Int64N(300)
			iv := berth.Interval{Start: s, End: s + 1 + r.Int64N(60)}
			def := plan.Definition{}
			if round%3 == 0 && r.IntN(4) == 0 {
				def.Period = 200
				iv = berth.Interval{Start: r.Int64N(100), End: 100 + r.Int64N(90)}
			}
			a, err := plan.NewAllocation(plan.ReservationID{ClusterTimestamp: 1, Sequence: k}, "u",
				def, iv, []plan.IntervalResource{{Interval: iv, Resource: berth.New(1024, 1).MulInt(1 + r.Int64N(4))}})
			require.NoError(t, err)
			require.NoError(t, p.AddReservation(a))
		}
		for q := 0; q < 8; q++ {
			s := r.Int64N(320)
			contract := berth.Interval{Start: s, End: s + 1 + r.Int64N(120)}
			old := plan.ReservationID{ClusterTimestamp: 1, Sequence: r.Int64N(12)} // 0, 9..11: a create
			got, err := yarnPlanLoads(p, nil, old, contract)
			require.NoError(t, err)
			if stepRoundUp(contract.Start, 10) > stepRoundDown(contract.End, 10) {
				// No aligned instant inside: no candidate window either.
				require.True(t, got.empty())
				continue
			}
			for tm := contract.Start; tm < contract.End; tm++ {
				want := yarnPlanLoadAt(t, p, old, contract, tm)
				have, _ := got.at(tm)
				require.Truef(t, want.Equal(have), "round %d contract %v old %v t %d: want %v, have %v", round, contract, old, tm, want, have)
			}
		}
	}
}
