package agent

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/policy"
	"github.com/berthsched/berth/rle"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Property: under the memory calculator room (a float32 comparison) is
// exactly fit(free, 1) ≥ 1, also where float32 rounds (values past 2²⁴)
// and for negative or zero free memory.
func TestStretchRoomIsFitOfOne(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 2))
	edges := []int64{0, 1, -1, 1 << 24, 1<<24 + 1, 1<<24 - 1, 1<<25 + 3, 1 << 40, 1<<40 + 1, math.MaxInt64, math.MinInt64, 1<<53 + 1}
	draw := func() int64 {
		switch r.IntN(3) {
		case 0:
			return edges[r.IntN(len(edges))] + r.Int64N(5) - 2
		case 1:
			return r.Int64N(1 << 20)
		}
		return r.Int64() >> r.IntN(63)
	}
	n := 200000
	if testing.Short() || raceEnabled {
		n = 50000
	}
	for i := 0; i < n; i++ {
		g := draw()
		if g <= 0 {
			g = 1 + r.Int64N(4096)
		}
		free := draw()
		if r.IntN(4) == 0 {
			free = g + r.Int64N(5) - 2 // right at the boundary
		}
		sj := stageJob{fitter: fitter{calc: berth.MemoryCalculator{}, cluster: berth.New(1<<30, 1<<20), gang: berth.New(g, 1)}}
		n := newStretchNeed(sj)
		require.Positive(t, n.memGang, "the memory calculator takes the comparison")
		fr := berth.New(free, 0)
		require.Equal(t, sj.fitter.fit(fr, 1) >= 1, n.room(fr), "free %d gang %d", free, g)
	}
}

// stretchCase is a random profile of steps on a small integer grid and one
// gang's need.
type stretchCase struct {
	steps    []rle.Step
	capacity berth.Resource
	w        berth.Interval
	sj       stageJob
}

func randomStretchCase(next func(max int64) int64, drf bool) stretchCase {
	capacity := berth.New(8*1024, 8)
	var calc berth.Calculator = berth.MemoryCalculator{}
	if drf {
		calc = berth.DominantCalculator{}
	}
	start := next(20)
	w := berth.Interval{Start: start, End: start + 1 + next(60)}
	var steps []rle.Step
	for t := w.Start; t < w.End; {
		e := min(w.End, t+1+next(8))
		k := next(8)
		if next(12) == 0 {
			k = 9 // over-committed: the test must step aside
		}
		v := berth.New(1024*k, next(8))
		if n := len(steps); n > 0 && steps[n-1].Value.Equal(v) {
			steps[n-1].Interval.End = e
		} else {
			steps = append(steps, rle.Step{Interval: berth.Interval{Start: t, End: e}, Value: v})
		}
		t = e
	}
	gang := berth.New(1024*(1+next(3)), 1+next(3))
	dur := 1 + next(20)
	sj := stageJob{fitter: fitter{calc: calc, cluster: capacity, gang: gang, componentwise: next(3) == 0},
		container: gang, concurrency: 1, gangs: 1 + next(4), duration: dur, requestedDuration: dur - next(1), step: 1}
	sj.requestedDuration = max(sj.requestedDuration, 1)
	return stretchCase{steps: steps, capacity: capacity, w: w, sj: sj}
}

// bruteStretch is the reference: on the integer grid, some start s with
// [s, s+dur) inside the window and room at every instant of it.
func bruteStretch(c stretchCase) bool {
	room := func(t berth.Time) bool {
		for _, st := range c.steps {
			if st.Interval.Start <= t && t < st.Interval.End {
				return c.sj.fitter.fit(c.capacity.Sub(st.Value), 1) >= 1
			}
		}
		return false
	}
	if c.w.End-c.w.Start < c.sj.requestedDuration {
		return false
	}
	for s := c.w.Start; s+c.sj.duration <= c.w.End; s++ {
		ok := true
		for t := s; t < s+c.sj.duration && ok; t++ {
			ok = room(t)
		}
		if ok {
			return true
		}
	}
	return false
}

// bruteGangTime is the reference of the exact-count bound: on the grid,
// whether the maximal stretches with room, at least dur long, hold gangs ×
// dur of min(free gangs, gangs) summed instant by instant. It applies under
// the memory calculator with exact counts only (true otherwise).
func bruteGangTime(c stretchCase) bool {
	need := newStretchNeed(c.sj)
	if !need.exact(c.capacity) {
		return true
	}
	free := func(t berth.Time) (int64, bool) {
		for _, st := range c.steps {
			if st.Interval.Start <= t && t < st.Interval.End {
				return (c.capacity.Memory - st.Value.Memory) / need.gangMem, true
			}
		}
		return 0, false
	}
	var total int64
	for t := c.w.Start; t < c.w.End; {
		if n, _ := free(t); n < 1 {
			t++
			continue
		}
		var area int64
		s := t
		for ; t < c.w.End; t++ {
			n, _ := free(t)
			if n < 1 {
				break
			}
			area += min(n, c.sj.gangs)
		}
		if t-s >= c.sj.duration {
			total += area
		}
	}
	return total >= c.sj.gangs*c.sj.duration
}

func overCommitted(c stretchCase) bool {
	for _, st := range c.steps {
		if !st.Value.FitsIn(c.capacity) {
			return true
		}
	}
	return false
}

// checkStretch checks noStretch on c against the references and the
// greedy: with no over-commitment it answers as the brute forces (a long
// enough stretch, and enough gang time in them when counts are exact), and
// when it finds no placement the left greedy places nothing on the same
// availability.
func checkStretch(t testing.TB, c stretchCase) {
	need := newStretchNeed(c.sj)
	got := noStretch(c.steps, c.capacity, &need, c.w)
	if overCommitted(c) {
		require.False(t, got, "an over-committed step is left to the caller")
		return
	}
	require.Equal(t, !(bruteStretch(c) && bruteGangTime(c)), got, "steps %v window %v dur %d gangs %d", c.steps, c.w, c.sj.duration, c.sj.gangs)
	if !got {
		return
	}
	prof := &profile{end: c.w.End}
	for _, st := range c.steps {
		prof.ts = append(prof.ts, st.Interval.Start)
		prof.rs = append(prof.rs, c.capacity.Sub(st.Value))
	}
	_, ok := greedyRLE(prof, c.sj, c.w.Start, c.w.End, true, scanOptions{seeBatches: true})
	require.False(t, ok, "no stretch, yet the greedy placed the stage")
}

// Property: noStretch against a brute force over the grid, under the memory
// calculator (comparison), the dominant one and the componentwise fit
// (fit per step).
func TestNoStretchAgainstBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 3))
	next := func(max int64) int64 { return r.Int64N(max + 1) }
	for i := 0; i < 20000; i++ {
		checkStretch(t, randomStretchCase(next, i%2 == 1))
	}
}

func FuzzNoStretch(f *testing.F) {
	for _, seed := range [][]byte{nil, {1, 0, 40, 0, 3, 0}, {9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9}, make([]byte, 64)} {
		f.Add(seed, false)
		f.Add(seed, true)
	}
	f.Fuzz(func(t *testing.T, b []byte, drf bool) {
		src := &bytesSource{b: b}
		checkStretch(t, randomStretchCase(src.n, drf))
	})
}

// noNeedView reads a plan as planAdapter does but never makes the stretch
// test nor answers the least free resources: the reference for what the
// planners decided before either.
type noNeedView struct{ planAdapter }

func (v noNeedView) availableFor(user string, old plan.ReservationID, w berth.Interval, period berth.Duration, _ *stretchNeed) (*profile, error) {
	return v.planAdapter.availableFor(user, old, w, period, nil)
}

func (noNeedView) leastFree(string, plan.ReservationID, berth.Interval, berth.Duration) (berth.Resource, bool) {
	return berth.Resource{}, false
}

// countingView counts the shortcuts taken, so that the property below is
// known to exercise them.
type countingView struct {
	planAdapter
	least, none *int
}

func (v countingView) leastFree(user string, old plan.ReservationID, w berth.Interval, period berth.Duration) (berth.Resource, bool) {
	free, ok := v.planAdapter.leastFree(user, old, w, period)
	if ok {
		*v.least++
	}
	return free, ok
}

func (v countingView) availableFor(user string, old plan.ReservationID, w berth.Interval, period berth.Duration, need *stretchNeed) (*profile, error) {
	p, err := v.planAdapter.availableFor(user, old, w, period, need)
	if err == errNoStretch {
		*v.none++
	}
	return p, err
}

// Property: the stretch test and the least-free shortcut of the probe
// change no decision. Random plans (memory and dominant calculators,
// periodic reservations, both policies, updates of a held reservation) and
// random multi-stage definitions are placed by the greedy planner in both
// directions with and without them, with the same placements and errors.
func TestStretchChangesNoDecision(t *testing.T) {
	cot, err := policy.NewCapacityOverTime(policy.DefaultCapacityOverTimeConfig())
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(14, 4))
	next := func(max int64) int64 { return r.Int64N(max + 1) }
	decided, least, none := 0, 0, 0
	rounds := 150
	if testing.Short() || raceEnabled {
		rounds = 40
	}
	for round := 0; round < rounds; round++ {
		pc := plan.DefaultConfig("q", berth.New(6*1024, 6), berth.NewManualClock(0))
		pc.MaxAllocation = berth.New(4096, 4)
		pc.MaxPeriodicity = 100_000
		if round%2 == 1 {
			pc.Calculator = berth.DominantCalculator{}
		}
		pc.Policy = []plan.SharingPolicy{cot, policy.NoOverCommit{}}[round%3%2]
		p, err := plan.New(pc)
		require.NoError(t, err)
		for k := int64(1); k <= 25; k++ {
			s := next(60) * 1000
			iv := berth.Interval{Start: s, End: s + (1+next(10))*1000}
			def := plan.Definition{Arrival: iv.Start, Deadline: iv.End}
			if next(8) == 0 {
				def.Period = 100_000
				iv = berth.Interval{Start: next(50) * 1000, End: 50_000 + next(40)*1000}
				def.Arrival, def.Deadline = iv.Start, iv.End
			}
			a, err := plan.NewAllocation(plan.ReservationID{ClusterTimestamp: 1, Sequence: k}, []string{"a", "b"}[next(1)],
				def, iv, []plan.IntervalResource{{Interval: iv, Resource: berth.New(1024*(1+next(2)), 1+next(3))}})
			require.NoError(t, err)
			_ = p.AddReservation(a) // over-commits are refused
		}
		for q := 0; q < 20; q++ {
			def := randomStretchDefinition(next)
			id := plan.ReservationID{ClusterTimestamp: 1, Sequence: 1 + next(30)} // sometimes held: an update
			user := []string{"a", "b"}[next(1)]
			for _, left := range []bool{true, false} {
				ip := &IterativePlanner{Config: Config{FavorEarlyAllocation: left, ComponentwiseFit: next(3) == 0}}
				got, gotStages, gotErr := ip.compute(countingView{planAdapter{p: p}, &least, &none}, id, user, def)
				want, wantStages, wantErr := ip.compute(noNeedView{planAdapter{p: p}}, id, user, def)
				require.Equal(t, wantErr, gotErr, "round %d: %+v", round, def)
				assert.Equal(t, want, got)
				assert.Equal(t, wantStages, gotStages)
				if gotErr == nil {
					decided++
				}
			}
		}
	}
	require.Positive(t, decided, "some definitions must be placed")
	require.Positive(t, least, "the least-free shortcut must be exercised")
	require.Positive(t, none, "the stretch test must reject some stages")
}

// randomStretchDefinition draws 1–3 stages of 1–6 gangs inside a window of
// up to 70 s on the plan's 1 s step, arrival not always aligned.
func randomStretchDefinition(next func(max int64) int64) plan.Definition {
	arrival := next(50)*1000 + next(1)*next(999)
	def := plan.Definition{Arrival: arrival, Deadline: arrival + 1 + next(20)*1000 + next(999),
		Interpreter: interpreterOf(next(3))}
	for i := int64(0); i <= next(2); i++ {
		k, conc := 1+next(2), 1+next(1)
		def.Stages = append(def.Stages, plan.Stage{Capability: berth.New(1024*k, k), Concurrency: conc,
			Containers: conc * (1 + next(5)), Duration: 1 + next(8)*1000 + next(1)*next(999)})
	}
	return def
}

// Property: the memory calculator's fit written in gives the calculator's
// own answer, 0/0, negatives, zero gangs and float32 rounding included.
func TestMemoryFitMatchesCalculator(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 10))
	vals := []int64{0, 1, -1, 1024, 1 << 24, 1<<24 + 1, math.MaxInt64, math.MinInt64, 1<<53 + 7}
	draw := func() int64 {
		if r.IntN(3) == 0 {
			return vals[r.IntN(len(vals))]
		}
		return r.Int64() >> r.IntN(64)
	}
	for i := 0; i < 100000; i++ {
		f := fitter{calc: berth.MemoryCalculator{}, cluster: berth.New(draw(), draw()), gang: berth.New(draw(), draw())}
		avail, limit := berth.New(draw(), draw()), r.Int64N(1<<40)
		want := min(javaFloorToInt(berth.MemoryCalculator{}.Divide(f.cluster, avail, f.gang)), limit)
		require.Equal(t, want, f.fit(avail, limit), "avail %v gang %v", avail, f.gang)
	}
}
