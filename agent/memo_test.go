package agent

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/policy"
	"github.com/stretchr/testify/require"
)

// requireSameProfile checks that two reads gave the same answer: the same
// error, or profiles with the same breakpoints, values and end.
func requireSameProfile(t *testing.T, want, got *profile, werr, gerr error, where string) {
	t.Helper()
	require.Equal(t, werr == nil, gerr == nil, "errors %v / %v: %s", werr, gerr, where)
	if werr != nil {
		require.Equal(t, errors.Is(werr, errNoStretch), errors.Is(gerr, errNoStretch), where)
		require.Equal(t, werr.Error(), gerr.Error(), where)
		return
	}
	require.Equal(t, want.ts, got.ts, where)
	require.Equal(t, want.end, got.end, where)
	require.Len(t, got.rs, len(want.rs), where)
	for i := range want.rs {
		require.True(t, want.rs[i].Equal(got.rs[i]), "at %d: %v vs %v: %s", want.ts[i], want.rs[i], got.rs[i], where)
	}
}

// Property: every read the portfolio's memo answers (availability with or
// without the stretch test, hopeless's stretch test, the low-cost
// allocator's plan load) is the plan's own answer, on random plans with
// and without a policy that changes availability, periodic reservations,
// over-committed steps, updates, and windows inside, across and outside
// the contract.
func TestLoadsMemoAnswersAsThePlan(t *testing.T) {
	cfg := policy.DefaultCapacityOverTimeConfig()
	cfg.InstantaneousMaxPercent = 60 // Available is not a pass-through
	cfg.Window = 1000
	cot, err := policy.NewCapacityOverTime(cfg)
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(41, 43))
	served, noStretchServed, overServed, noRoomServed, loadsServed, hopelessSaid, sharedServed := 0, 0, 0, 0, 0, 0, 0
	rounds := 400
	if testing.Short() || raceEnabled {
		rounds = 120
	}
	for round := 0; round < rounds; round++ {
		var pol plan.SharingPolicy
		switch round % 4 {
		case 1:
			pol = policy.NoOverCommit{}
		case 2:
			pol = cot
		}
		pc := plan.DefaultConfig("q", berth.New(10*1024, 10), berth.NewManualClock(0))
		pc.Policy = pol
		pc.MaxPeriodicity = 100_000
		p, err := plan.New(pc)
		require.NoError(t, err)
		// Without a policy the plan takes any load: some steps end up
		// over-committed.
		addRandomLoad(t, r, p, 10, round%8 == 7, "u")
		bufs := newStepBuffers()
		direct := planAdapter{p: p, bufs: bufs}
		next := func(max int64) int64 { return r.Int64N(max + 1) }
		for q := 0; q < 4; q++ {
			def := randomDefinition(next)
			span := (def.Deadline - def.Arrival) * (1 + next(1))
			def.Arrival *= 1 + next(1)
			def.Deadline = def.Arrival + span
			id := plan.ReservationID{ClusterTimestamp: 2, Sequence: 1}
			if next(4) == 0 {
				id = plan.ReservationID{ClusterTimestamp: 1, Sequence: 1 + next(10)} // an update
			}
			if next(9) == 0 {
				def.Period = 100_000
			}
			m := newLoadsMemo(direct, id, def)
			var view planView = m
			for _, o := range []Config{{ComponentwiseFit: true}, {}} {
				want := hopeless(direct, id, "u", def, o)
				require.Equal(t, want, hopeless(m, id, "u", def, o), "round %d: hopeless of %+v", round, def)
				if want {
					hopelessSaid++
				}
			}
			contract := berth.Interval{Start: def.Arrival, End: def.Deadline}
			for k := 0; k < 12; k++ {
				w := contract
				switch next(3) {
				case 0:
					s := def.Arrival + next(def.Deadline-def.Arrival)
					w = berth.Interval{Start: s, End: s + next(def.Deadline-s)}
				case 1:
					s := def.Arrival - 3000 + next(def.Deadline-def.Arrival+6000)
					w = berth.Interval{Start: s, End: s + next(8000)}
				}
				s := def.Stages[next(int64(len(def.Stages)-1))]
				j := &job{view: direct, opts: Config{ComponentwiseFit: next(1) == 0}}
				need := newStretchNeed(j.stageJob(s))
				needp := &need
				if next(2) == 0 {
					needp = nil
				}
				old := id
				if next(5) == 0 {
					old = plan.ReservationID{ClusterTimestamp: 3, Sequence: 1}
				}
				period := def.Period
				_, _, ok := m.steps(old, w, period)
				want, werr := direct.availableFor("u", old, w, period, needp)
				got, gerr := view.availableFor("u", old, w, period, needp)
				if ok {
					served++
					if errors.Is(werr, errNoStretch) {
						noStretchServed++
					}
					if errors.Is(werr, berth.ErrCapacityExceeded) {
						overServed++
					}
				}
				requireSameProfile(t, want, got, werr, gerr, fmt.Sprintf("round %d window %v of %v", round, w, contract))
				want, werr = direct.available("u", old, w, period)
				got, gerr = view.available("u", old, w, period)
				requireSameProfile(t, want, got, werr, gerr, fmt.Sprintf("round %d window %v of %v", round, w, contract))
				jm := &job{view: m, id: old, period: period}
				if shared, ok := jm.planFreeShared(w); ok && werr == nil && needp == nil {
					// The low-cost allocator places alike on the shared
					// profile (domain beyond w) as on the plan's read of w.
					sharedServed++
					sj := j.stageJob(s)
					loads, err := yarnPlanLoads(p, bufs, old, contract)
					require.NoError(t, err)
					smooth, left := 1+next(9), next(1) == 0
					// What an earlier stage took.
					ms := w.Start + next(w.Len())
					me, mr := ms+next(w.End-ms), berth.New(1024*next(3), next(3))
					place := func(net *profile) ([]placement, bool) {
						mods := newFlat(berth.MinTime, berth.MaxTime, berth.Resource{})
						mods.add(ms, me, mr)
						in := &lowCostInput{loads: loads, mods: mods,
							net: net, capacity: p.Capacity(), calc: p.Calculator(), smooth: smooth, left: left}
						return lowCostAligned(in, sj, w.Start, w.End)
					}
					wp, wok := place(want)
					gp, gok := place(shared)
					require.Equal(t, wok, gok, "round %d window %v", round, w)
					require.Equal(t, wp, gp, "round %d window %v", round, w)
				}
				if w.Valid() && w.Len() > 0 {
					if none, ok := m.noRoom(old, w, &need); ok {
						if none {
							noRoomServed++
						}
						require.Equal(t, noRoom(p, bufs, w, &need), none, "round %d window %v", round, w)
					}
				}
			}
			if _, _, ok := m.steps(id, berth.Interval{Start: contract.Start, End: stepRoundDown(contract.End, p.Step()) + 1}, 0); ok {
				loadsServed++
			}
			want, werr := yarnPlanLoads(p, bufs, id, contract)
			got, gerr := view.planLoads(id, contract)
			requireSameProfile(t, want, got, werr, gerr, fmt.Sprintf("round %d plan loads of %v", round, contract))
			m.done()
		}
	}
	require.Greater(t, served, 1000, "the memo should answer most reads")
	require.Positive(t, noStretchServed, "some reads the memo answers should find no stretch")
	require.Positive(t, overServed, "some plans should be over-committed where the memo would answer")
	require.Positive(t, noRoomServed, "some stretch tests the memo answers should find no room")
	require.Greater(t, loadsServed, 100, "the memo should answer most plan loads")
	require.Positive(t, hopelessSaid, "some definitions should be hopeless")
	require.Greater(t, sharedServed, 100, "the shared availability should be exercised")
	t.Logf("%d reads answered by the memo (%d without a stretch, %d over-committed), %d stretch tests without room, %d plan loads, %d hopeless, %d low-cost placements on the shared availability",
		served, noStretchServed, overServed, noRoomServed, loadsServed, hopelessSaid, sharedServed)
}

// addRandomLoad adds n random one-interval allocations to p: 1 to 6
// containers of <1024, 1>, starting in the first 40 s and lasting up to
// 10 s, the first repeating every 50 s when periodic; the k-th belongs to
// users[k % len(users)]. The plan's policy may refuse some.
func addRandomLoad(t *testing.T, r *rand.Rand, p *plan.Plan, n int64, periodic bool, users ...string) {
	t.Helper()
	for k := int64(1); k <= n; k++ {
		s := r.Int64N(40_000)
		iv := berth.Interval{Start: s, End: s + 1 + r.Int64N(10_000)}
		def := plan.Definition{}
		if periodic && k == 1 {
			def.Period = 50_000
			iv = berth.Interval{Start: r.Int64N(20_000), End: 20_000 + r.Int64N(30_000)}
		}
		a, err := plan.NewAllocation(plan.ReservationID{ClusterTimestamp: 1, Sequence: k}, users[k%int64(len(users))],
			def, iv, []plan.IntervalResource{{Interval: iv, Resource: berth.New(1024, 1).MulInt(1 + r.Int64N(6))}})
		require.NoError(t, err)
		_ = p.AddReservation(a)
	}
}
