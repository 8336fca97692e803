package agent

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/berthsched/berth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type piece struct {
	s, e berth.Time
	v    berth.Resource
}

// piecesModel is pieces by definition: the sum (or difference) of the two
// profiles read at every instant where either may change, equal
// neighbours merged.
func piecesModel(s, e berth.Time, sign int64, a, b *profile) []piece {
	cuts := []berth.Time{s}
	for _, p := range []*profile{a, b} {
		if p == nil {
			continue
		}
		cuts = append(cuts, p.ts...)
		cuts = append(cuts, p.end)
	}
	slices.Sort(cuts)
	var out []piece
	for i, t := range cuts {
		if t < s || t >= e || (i > 0 && cuts[i-1] == t && t != s) {
			continue
		}
		read := func(p *profile) berth.Resource {
			if p == nil {
				return berth.Resource{}
			}
			r, _ := p.at(t)
			return r
		}
		v := read(a).Add(read(b))
		if sign < 0 {
			v = read(a).Sub(read(b))
		}
		if n := len(out); n > 0 && out[n-1].v.Equal(v) {
			continue
		}
		if n := len(out); n > 0 {
			out[n-1].e = t
		}
		out = append(out, piece{s: t, v: v})
	}
	if n := len(out); n > 0 {
		out[n-1].e = e
	}
	return out
}

// Property: pieces gives the model's pieces, with and without extended
// resource types, for profiles that start before, inside or after the
// range, end inside it, or are missing.
func TestPiecesMatchesModel(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 7))
	value := func() berth.Resource {
		m, v := r.Int64N(3)*1024, r.Int64N(3)
		if r.IntN(6) == 0 {
			return berth.NewWithExtras(m, v, berth.Quantity{Name: "gpu", Value: r.Int64N(3)})
		}
		return berth.New(m, v)
	}
	random := func() *profile {
		if r.IntN(8) == 0 {
			return nil
		}
		p := &profile{}
		t := r.Int64N(40) - 20
		for k := r.IntN(8); k >= 0; k-- {
			p.ts = append(p.ts, t)
			p.rs = append(p.rs, value())
			t += 1 + r.Int64N(10)
		}
		p.end = t + r.Int64N(10)
		return p
	}
	for round := 0; round < 20000; round++ {
		a, b := random(), random()
		s := r.Int64N(60) - 30
		e := s + r.Int64N(60)
		sign := int64(1 - 2*r.IntN(2))
		var got []piece
		pieces(s, e, sign, a, b, func(ps, pe berth.Time, v berth.Resource) {
			got = append(got, piece{ps, pe, v})
		})
		want := piecesModel(s, e, sign, a, b)
		require.Len(t, got, len(want), "round %d: %+v %+v [%d, %d)", round, a, b, s, e)
		for i := range want {
			require.Equal(t, want[i].s, got[i].s, "round %d piece %d", round, i)
			require.Equal(t, want[i].e, got[i].e, "round %d piece %d", round, i)
			require.True(t, want[i].v.Equal(got[i].v), "round %d piece %d: %v vs %v", round, i, want[i].v, got[i].v)
		}
	}
}

// lowCostModel is YARN's low-cost aligned allocation written plainly: every
// candidate window's gang count and cost read on its own from the model's
// pieces, each batch added to a copy of this job's load, the window read
// again after each batch.
func lowCostModel(in *lowCostInput, j stageJob, sa, sd berth.Time) ([]placement, bool) {
	window := int32((sd - sa) / j.duration)
	perUnit := gangsPerUnit(j.gangs, window, in.smooth)
	if n := (sd - sa) / j.duration; window <= 0 || n <= 0 || n > maxCandidates {
		return nil, false
	}
	mods := in.mods.clone()
	build := func(s berth.Time) durationInterval {
		e := s + j.duration
		di := durationInterval{start: s, end: e, canFit: math.MaxInt32}
		for _, p := range piecesModel(s, e, -1, in.net, mods) {
			if p.v.AnyNegative() || !in.net.holds(p.s) {
				di.canFit = 0
				break
			}
			di.canFit = min(di.canFit, j.fitter.fit(p.v, math.MaxInt32))
		}
		if di.canFit > 0 {
			for _, p := range piecesModel(s, e, 1, in.loads, mods) {
				di.cost = di.cost + float64(in.calc.Ratio(p.v, in.capacity))*float64(p.e-p.s)/float64(j.step)
			}
		}
		return di
	}
	n := int((sd - sa) / j.duration)
	first := sa
	if !in.left {
		first = sd - berth.Time(n)*j.duration
	}
	h := &diHeap{left: in.left}
	for k := 0; k < n; k++ {
		if di := build(first + berth.Time(k)*j.duration); di.canFit > 0 {
			h.push(di)
		}
	}
	var placed []placement
	remaining := j.gangs
	for rounds := 1; remaining > 0 && h.Len() > 0 && rounds <= maxBatches; rounds++ {
		best := h.pop()
		n := min(perUnit, remaining, best.canFit)
		remaining -= n
		r := j.batch(n)
		mods.add(best.start, best.end, r)
		placed = append(placed, placement{iv: berth.Interval{Start: best.start, End: best.end}, r: r})
		if di := build(best.start); di.canFit > 0 {
			h.push(di)
		}
	}
	if remaining > 0 {
		return nil, false
	}
	return canonical(placed), true
}

// Property: the low-cost allocator (one sweep for every window, gang
// counts derived after each batch, its batches kept out of this job's
// load) places exactly as the plain model, and as itself with every count
// read from the profiles, on random availability, loads and earlier
// stages, left and right, with the memory calculator's counts and
// componentwise ones, the dominant calculator's costs and extended types;
// it leaves this job's load as it was.
func TestLowCostMatchesModel(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 13))
	capacity := berth.New(16*1024, 16)
	derived, placedSome := 0, 0
	for round := 0; round < 3000; round++ {
		const step = 1000
		sa := r.Int64N(20) * step
		sd := sa + (1+r.Int64N(40))*step + r.Int64N(2)*r.Int64N(step)
		random := func(free bool) *profile {
			end := sd + r.Int64N(2)*step
			start := sa - r.Int64N(2)*step
			return randomProfile(r, start, end, func() berth.Time { return (1 + r.Int64N(6)) * step / (1 + r.Int64N(2)) }, free, 40)
		}
		net, loads := random(true), random(false)
		mods := newFlat(berth.MinTime, berth.MaxTime, berth.Resource{})
		for k := r.IntN(3); k > 0; k-- {
			s := sa + r.Int64N(sd-sa)
			mods.add(s, s+1+r.Int64N(sd-s), berth.New(1024*r.Int64N(4), r.Int64N(4)))
		}
		before := mods.clone()
		conc := 1 + r.Int64N(3)
		c := berth.New(1024*(1+r.Int64N(3)), r.Int64N(3))
		sj := stageJob{fitter: fitter{calc: berth.MemoryCalculator{}, cluster: capacity, gang: c.MulInt(conc), componentwise: r.IntN(4) != 0},
			container: c, concurrency: conc, gangs: 1 + r.Int64N(30), duration: (1 + r.Int64N(8)) * step, step: step}
		var calc berth.Calculator = berth.MemoryCalculator{}
		if r.IntN(3) == 0 {
			calc = berth.DominantCalculator{}
		}
		smooth, left := 1+r.Int64N(10), r.IntN(2) == 0
		input := func() *lowCostInput {
			return &lowCostInput{loads: loads, mods: mods, net: net, capacity: capacity, calc: calc, smooth: smooth, left: left}
		}
		want, wok := lowCostModel(input(), sj, sa, sd)
		for _, recount := range []bool{false, true} {
			in := input()
			in.recount = recount
			if r.IntN(2) == 0 {
				in.scratch = &lowCostScratch{}
			}
			got, gok := lowCostAligned(in, sj, sa, sd)
			require.Equal(t, wok, gok, "round %d", round)
			require.Equal(t, want, got, "round %d recount %v", round, recount)
			require.Equal(t, before.ts, mods.ts, "round %d: this job's load changed", round)
			require.Equal(t, before.rs, mods.rs, "round %d: this job's load changed", round)
		}
		if wok {
			placedSome++
			if countsDown(sj.fitter) && len(want) > 1 {
				derived++
			}
		}
	}
	require.Greater(t, placedSome, 500, "most stages should be placed")
	require.Greater(t, derived, 100, "the derived counts should be exercised")
	t.Logf("%d stages placed, %d of several batches with derived counts", placedSome, derived)
}

// Property: one sweep gives every candidate window the gang count and (for
// a window that fits a gang) the cost, bit for bit, that canFit and cost
// read for it alone, with and without earlier stages' load, extended
// resource types, and availability wider than the windows.
func TestLowCostSweepMatchesWindows(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 19))
	capacity := berth.New(16*1024, 16)
	for round := 0; round < 3000; round++ {
		const step = 1000
		n := r.IntN(12)
		dur := (1 + r.Int64N(6)) * step / (1 + r.Int64N(2))
		first := r.Int64N(20) * step
		last := first + berth.Time(n)*dur
		random := func(free bool) *profile {
			// Mostly defined over all the windows, sometimes starting
			// late or ending early.
			end := last + r.Int64N(2)*step - r.Int64N(2)*r.Int64N(3*step)
			start := first - r.Int64N(2)*step + r.Int64N(2)*r.Int64N(3*step)
			return randomProfile(r, start, end, func() berth.Time { return 1 + r.Int64N(4*step) }, free, 30)
		}
		net, loads := random(true), random(false)
		mods := newFlat(berth.MinTime, berth.MaxTime, berth.Resource{})
		for k := r.IntN(3); k > 0 && n > 0; k-- {
			s := first + r.Int64N(last-first)
			mods.add(s, s+1+r.Int64N(last-s), berth.New(1024*r.Int64N(3), r.Int64N(3)))
		}
		c := berth.New(1024*(1+r.Int64N(3)), r.Int64N(3))
		f := fitter{calc: berth.MemoryCalculator{}, cluster: capacity, gang: c.MulInt(1 + r.Int64N(2)), componentwise: r.IntN(2) == 0}
		var calc berth.Calculator = berth.MemoryCalculator{}
		if r.IntN(3) == 0 {
			calc = berth.DominantCalculator{}
		}
		in := &lowCostInput{loads: loads, mods: mods, net: net, capacity: capacity, calc: calc}
		if r.IntN(2) == 0 {
			in.scratch = &lowCostScratch{}
		}
		costs, fits := in.sweep(first, n, dur, step, f)
		require.Len(t, fits, n)
		for k := 0; k < n; k++ {
			s, e := first+berth.Time(k)*dur, first+berth.Time(k+1)*dur
			require.Equal(t, in.canFit(s, e, f, berth.Resource{}), fits[k], "round %d window %d", round, k)
			if fits[k] > 0 {
				require.Equal(t, math.Float64bits(in.cost(s, e, step, berth.Resource{})), math.Float64bits(costs[k]), "round %d window %d", round, k)
				// YARN's sum, the calculator asked piece by piece.
				want := 0.0
				for _, p := range piecesModel(s, e, 1, loads, mods) {
					want = want + float64(in.calc.Ratio(p.v, capacity))*float64(p.e-p.s)/float64(step)
				}
				require.Equal(t, math.Float64bits(want), math.Float64bits(costs[k]), "round %d window %d", round, k)
			}
		}
	}
}

// BenchmarkLowCostAligned places a stage of 4 gangs in a window of 10
// candidate windows over an availability of 31 breakpoints (about a W4
// stage), the allocator's scratch recycled as in a planning run.
func BenchmarkLowCostAligned(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	capacity := berth.New(8192*20, 8*20)
	sa, sd := berth.Time(0), berth.Time(36_000_000)
	random := func(free bool) *profile {
		p := &profile{end: sd}
		for t := sa; t < sd; t += (sd - sa) / 31 {
			m := r.Int64N(20) * 8192
			v := berth.New(m, m/1024)
			if free {
				v = capacity.Sub(v)
			}
			p.ts = append(p.ts, t)
			p.rs = append(p.rs, v)
		}
		p.compact(0, len(p.ts))
		return p
	}
	net, loads := random(true), random(false)
	mods := newFlat(berth.MinTime, berth.MaxTime, berth.Resource{})
	sj := stageJob{fitter: fitter{calc: berth.MemoryCalculator{}, cluster: capacity, gang: berth.New(2048, 2), componentwise: true},
		container: berth.New(1024, 1), concurrency: 2, gangs: 4, duration: 3_600_000, step: 1000}
	var sc lowCostScratch
	b.ReportAllocs()
	blocks := 0
	for b.Loop() {
		in := &lowCostInput{loads: loads, mods: mods, net: net, capacity: capacity, calc: berth.MemoryCalculator{}, smooth: 10, scratch: &sc}
		ps, ok := lowCostAligned(in, sj, sa, sd)
		if !ok {
			b.Fatal("the stage should fit")
		}
		blocks = len(ps)
		for _, p := range ps {
			mods.sub(p.iv.Start, p.iv.End, p.r)
		}
	}
	b.ReportMetric(float64(blocks), "blocks")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/10, "ns/candidate")
}

// Property: alignedRuns is canonical for blocks on equal or disjoint
// windows, extended types and zero blocks included.
func TestAlignedRunsMatchCanonical(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 29))
	for round := 0; round < 20000; round++ {
		dur := 1 + r.Int64N(5)
		var ps []placement
		for k := r.IntN(12); k > 0; k-- {
			s := r.Int64N(8) * dur
			v := berth.New(1024*r.Int64N(3), r.Int64N(2))
			if r.IntN(8) == 0 {
				v = berth.NewWithExtras(v.Memory, v.VCores, berth.Quantity{Name: "gpu", Value: r.Int64N(2)})
			}
			ps = append(ps, placement{iv: berth.Interval{Start: s, End: s + dur}, r: v})
		}
		want := canonical(slices.Clone(ps))
		got := alignedRuns(nil, slices.Clone(ps))
		if len(want) == 0 {
			require.Empty(t, got, "round %d: %+v", round, ps)
			continue
		}
		require.Equal(t, want, got, "round %d: %+v", round, ps)
	}
}

// randomProfile draws a profile over [start, end): a breakpoint at start
// and then every gap(), each value from randomAvailability (drawn before
// the gap that follows it).
func randomProfile(r *rand.Rand, start, end berth.Time, gap func() berth.Time, free bool, oneIn int) *profile {
	p := &profile{end: end}
	for t := start; t < end; t += gap() {
		p.ts = append(p.ts, t)
		p.rs = append(p.rs, randomAvailability(r, free, oneIn))
	}
	p.compact(0, len(p.ts))
	return p
}

// randomAvailability is one value of the low-cost tests' random profiles
// on a 16-container plan: now and then (one in oneIn) an over-booked step
// where free is set, or a value holding an extended type.
func randomAvailability(r *rand.Rand, free bool, oneIn int) berth.Resource {
	m := r.Int64N(17) * 1024
	v := berth.New(m, min(16, m/1024+r.Int64N(3)))
	switch {
	case free && r.IntN(oneIn) == 0:
		v = berth.New(-1024, 0) // an over-booked step: no gang fits
	case r.IntN(oneIn) == 0:
		v = berth.NewWithExtras(m, v.VCores, berth.Quantity{Name: "gpu", Value: 1 + r.Int64N(2)})
	}
	return v
}

// A stage window whose count of candidate windows wraps, in YARN's int32
// cast (2^32+5 windows) or in the subtraction (a window from before zero
// to the end of time), to a small positive number is beyond
// maxCandidates: not placed, and nothing sized by the true count is
// built.
func TestLowCostWrappedCandidateCount(t *testing.T) {
	capacity := berth.New(16*1024, 16)
	c := berth.New(1024, 1)
	for _, tc := range []struct {
		name         string
		sa, sd, step berth.Time
	}{
		{"cast", 0, (1<<32 + 5) * 1000, 1000},
		// MaxTime + 6 wraps to MinTime + 5, whose int32 is 5.
		{"subtraction", -6, berth.MaxTime, 1},
	} {
		sj := stageJob{fitter: fitter{calc: berth.MemoryCalculator{}, cluster: capacity, gang: c},
			container: c, concurrency: 1, gangs: 3, duration: tc.step, step: tc.step}
		window := int32((tc.sd - tc.sa) / tc.step)
		require.True(t, window > 0 && window <= maxCandidates, "%s: the wrapped count %d must pass YARN's bound", tc.name, window)
		net := &profile{ts: []berth.Time{tc.sa}, rs: []berth.Resource{capacity}, end: tc.sd}
		loads := &profile{ts: []berth.Time{tc.sa}, rs: []berth.Resource{{}}, end: tc.sd}
		for _, left := range []bool{false, true} {
			in := &lowCostInput{loads: loads, mods: newFlat(berth.MinTime, berth.MaxTime, berth.Resource{}), net: net,
				capacity: capacity, calc: berth.MemoryCalculator{}, smooth: 1, left: left, scratch: &lowCostScratch{}}
			ps, ok := lowCostAligned(in, sj, tc.sa, tc.sd)
			assert.False(t, ok, "%s left %v", tc.name, left)
			assert.Nil(t, ps, "%s left %v", tc.name, left)
			assert.Zero(t, cap(in.scratch.costs), "%s left %v: scratch sized by the wrapped count", tc.name, left)
		}
	}
}
