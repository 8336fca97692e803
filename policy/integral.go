package policy

import (
	"math"
	"math/bits"
	"sort"

	"github.com/berthsched/berth"
)

// seg is one step of a one-component step function: value v from t until
// the next seg (or the end of the walk).
type seg struct {
	t berth.Time
	v int64
}

// sampleRun is a run of integral sample points t0, t0+w, …, t0+(n-1)w whose
// running integral grows by dI from one to the next. YARN materialises every
// sample; a run keeps long constant stretches O(1) however many windows they
// span.
type sampleRun struct {
	t0 berth.Time
	n  int64
	i0 i128
	dI i128
}

// mulI multiplies an i128 by a small non-negative count.
func mulI(a i128, n int64) i128 {
	if n == 0 {
		return i128{}
	}
	// a × n = hi×n×2^64 + lo×n; counts are far below 2^63 and integrals of
	// real plans far below 2^127, so the schoolbook product is exact.
	neg := a.hi < 0
	if neg {
		a = a.neg()
	}
	hi, lo := bits.Mul64(a.lo, uint64(n))
	r := i128{hi: a.hi*n + int64(hi), lo: lo}
	if neg {
		return r.neg()
	}
	return r
}

// samples is the sampling of a running integral the way YARN's
// CapacityOverTimePolicy takes it: at every breakpoint of the consumption,
// and every window inside each constant stretch.
type samples struct {
	w    int64
	runs []sampleRun
}

func (s *samples) time(r sampleRun, j int64) berth.Time { return r.t0 + j*s.w }

// build samples the step function segs (each value holding until the next
// breakpoint, the last one until end) for window w.
func buildSamples(segs []seg, end berth.Time, w int64) *samples {
	s := &samples{w: w, runs: make([]sampleRun, 0, 2*len(segs)+1)}
	var integral i128
	for i, g := range segs {
		s.runs = append(s.runs, sampleRun{t0: g.t, n: 1, i0: integral})
		next := end
		if i+1 < len(segs) {
			next = segs[i+1].t
		}
		if next <= g.t {
			continue
		}
		length := next - g.t
		k := length / w
		if k > 0 && g.t+k*w == next {
			k-- // that sample is the next breakpoint itself
		}
		step := mul64(g.v, w)
		if k > 0 {
			s.runs = append(s.runs, sampleRun{t0: g.t + w, n: k, i0: integral.add(step), dI: step})
		}
		integral = integral.add(mul64(g.v, length))
	}
	if n := len(segs); n > 0 && end > segs[n-1].t {
		s.runs = append(s.runs, sampleRun{t0: end, n: 1, i0: integral})
	}
	return s
}

// lookup returns the running integral at the last sample at or before y.
func (s *samples) lookup(y berth.Time) (i128, bool) {
	i := sort.Search(len(s.runs), func(i int) bool { return s.runs[i].t0 > y }) - 1
	if i < 0 {
		return i128{}, false
	}
	r := s.runs[i]
	j := min(r.n-1, (y-r.t0)/s.w)
	return r.i0.add(mulI(r.dI, j)), true
}

// normalize is YARN's normalizeToResource for one component: the integral
// divided by the window, rounded half up (Math.round).
func normalize(v i128, w int64) int64 {
	return int64(math.Floor(v.float()/float64(w) + 0.5))
}

// yarnWindowValue is the windowed integral YARN's check compares at x: the
// normalised integral at the last sample ≤ x minus the one at the last
// sample ≤ x − w. ok is false before the first sample (YARN leaves it
// undefined, hence unchecked).
func (s *samples) yarnWindowValue(x berth.Time) (int64, bool) {
	up, ok := s.lookup(x)
	if !ok {
		return 0, false
	}
	v := normalize(up, s.w)
	if down, ok := s.lookup(satAdd(x, -s.w)); ok {
		v -= normalize(down, s.w)
	}
	return v, true
}

// events calls f for every time in [from, to] at which the windowed
// integral can change value: from itself, each sample and each sample + w.
// Inside a run the value is the same at every sample after the first, so
// only the first two and last two samples of a run are visited.
func (s *samples) events(from, to berth.Time, f func(berth.Time) bool) bool {
	if !f(from) {
		return false
	}
	visit := func(t berth.Time) bool {
		if t > from && t <= to {
			return f(t)
		}
		return true
	}
	for _, r := range s.runs {
		last := int64(-1)
		for _, j := range [4]int64{0, 1, r.n - 2, r.n - 1} {
			if j <= last || j >= r.n {
				continue
			}
			last = j
			t := s.time(r, j)
			if !visit(t) || !visit(satAdd(t, s.w)) {
				return false
			}
		}
	}
	return true
}

// yarnExceeds reports the first time in [from, to] at which YARN's
// (sample-based, over-estimating) windowed average exceeds limit, with the
// offending value.
func yarnExceeds(segs []seg, end, from, to berth.Time, w, limit int64) (bool, berth.Time, int64) {
	if len(segs) == 0 || w <= 0 {
		return false, 0, 0
	}
	s := buildSamples(segs, end, w)
	var at berth.Time
	var val int64
	bad := false
	s.events(max(from, segs[0].t), to, func(x berth.Time) bool {
		v, ok := s.yarnWindowValue(x)
		if ok && v > limit {
			bad, at, val = true, x, v
			return false
		}
		return true
	})
	return bad, at, val
}

// exactExceeds reports the first x in [from, to] at which the exact integral
// of segs over [x − w, x) exceeds limit × w. The integral of a step function
// over a sliding window is piecewise linear in x, with kinks where x or
// x − w meets a breakpoint, so checking those candidates is exact.
// Consumption before segs[0].t counts as zero; the last value holds to end.
func exactExceeds(segs []seg, end, from, to berth.Time, w, limit int64) (bool, berth.Time, i128) {
	if len(segs) == 0 || w <= 0 || from > to {
		return false, 0, i128{}
	}
	// prefix integrals at each breakpoint
	pre := make([]i128, len(segs)+1)
	for i, g := range segs {
		next := end
		if i+1 < len(segs) {
			next = segs[i+1].t
		}
		pre[i+1] = pre[i].add(mul64(g.v, max(next-g.t, 0)))
	}
	integralAt := func(x berth.Time) i128 {
		if x <= segs[0].t {
			return i128{}
		}
		x = min(x, end)
		i := sort.Search(len(segs), func(i int) bool { return segs[i].t > x }) - 1
		return pre[i].add(mul64(segs[i].v, x-segs[i].t))
	}
	bound := mul64(limit, w)
	check := func(x berth.Time) (bool, i128) {
		if x < from || x > to {
			return false, i128{}
		}
		v := integralAt(x).sub(integralAt(satAdd(x, -w)))
		return v.cmp(bound) > 0, v
	}
	cands := make([]berth.Time, 0, 2*len(segs)+4)
	cands = append(cands, from, to, end, satAdd(end, w))
	for _, g := range segs {
		cands = append(cands, g.t, satAdd(g.t, w))
	}
	sort.Slice(cands, func(i, j int) bool { return cands[i] < cands[j] })
	for _, x := range cands {
		if bad, v := check(x); bad {
			return true, x, v
		}
	}
	return false, 0, i128{}
}

// satAdd adds a duration to a time, saturating at the int64 sentinels
// instead of wrapping (YARN's wrap at end + window is one of its bugs).
func satAdd(t berth.Time, d berth.Duration) berth.Time {
	r := t + d
	if d > 0 && r < t {
		return berth.MaxTime
	}
	if d < 0 && r > t {
		return berth.MinTime
	}
	return r
}
