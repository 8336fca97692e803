package policy

import (
	"math"
	"math/big"
	"sort"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/rle"
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
	i0 rle.Int128
	dI rle.Int128
}

// samples is the sampling of a running integral the way YARN's
// CapacityOverTimePolicy takes it: at every breakpoint of the consumption,
// and every window inside each constant stretch.
type samples struct {
	w    int64
	runs []sampleRun
}

func (s *samples) time(r sampleRun, j int64) berth.Time { return r.t0 + j*s.w }

// buildSamples samples the step function segs for window w as YARN's
// walk does: at every breakpoint, and every window inside each stretch
// between two breakpoints. The walk ends at the last breakpoint: YARN went
// on to the end-of-time sentinel and overflowed there (every one of YARN's
// 2,586 refusals of workload W2, WORKLOADS.md); Berth stops before it.
func buildSamples(segs []seg, w int64) *samples {
	s := &samples{w: w, runs: make([]sampleRun, 0, 2*len(segs))}
	var integral rle.Int128
	for i, g := range segs {
		s.runs = append(s.runs, sampleRun{t0: g.t, n: 1, i0: integral})
		if i+1 == len(segs) {
			break
		}
		next := segs[i+1].t
		length := next - g.t
		k := length / w
		if k > 0 && g.t+k*w == next {
			k-- // that sample is the next breakpoint itself
		}
		step := rle.Product(g.v, w)
		if k > 0 {
			s.runs = append(s.runs, sampleRun{t0: g.t + w, n: k, i0: integral.Add(step), dI: step})
		}
		integral = integral.Add(rle.Product(g.v, length))
	}
	return s
}

// normalize is YARN's normalizeToResource for one component: the integral
// divided by the window, rounded half up (Math.round).
func normalize(v rle.Int128, w int64) int64 {
	return int64(math.Floor(v.Float64()/float64(w) + 0.5))
}

// cursor walks the samples in time order for non-decreasing queries.
type cursor struct {
	s *samples
	i int
}

// at returns the running integral at the last sample ≤ y; queries must not
// decrease.
func (c *cursor) at(y berth.Time) (rle.Int128, bool) {
	runs := c.s.runs
	for c.i < len(runs) && runs[c.i].t0 <= y {
		c.i++
	}
	if c.i == 0 {
		return rle.Int128{}, false
	}
	r := runs[c.i-1]
	j := min(r.n-1, (y-r.t0)/c.s.w)
	return r.i0.Add(r.dI.Scale(j)), true
}

// yarnExceeds reports the first time in [from, to] at which YARN's
// (sample-based, over-estimating) windowed average exceeds limit, with the
// offending value. The windowed value changes only at a sample or a sample
// plus the window, so it is evaluated there (and at from), in time order
// with two cursors. Inside a run the value is the same at every sample
// after the first, so only the first two and last two of a run are visited.
func yarnExceeds(segs []seg, from, to berth.Time, w, limit int64) (bool, berth.Time, int64) {
	if len(segs) == 0 || w <= 0 {
		return false, 0, 0
	}
	s := buildSamples(segs, w)
	// The sample times to visit, ascending.
	ts := make([]berth.Time, 0, 2*len(s.runs)+2)
	for _, r := range s.runs {
		last := int64(-1)
		for _, j := range [4]int64{0, 1, r.n - 2, r.n - 1} {
			if j <= last || j >= r.n {
				continue
			}
			last = j
			ts = append(ts, s.time(r, j))
		}
	}
	up, down := &cursor{s: s}, &cursor{s: s}
	eval := func(x berth.Time) (int64, bool) {
		u, ok := up.at(x)
		if !ok {
			return 0, false
		}
		v := normalize(u, w)
		if d, ok := down.at(satAdd(x, -w)); ok {
			v -= normalize(d, w)
		}
		return v, true
	}
	x0 := max(from, segs[0].t)
	if x0 > to {
		return false, 0, 0
	}
	// first the value in force at x0, then every change point after it:
	// merge ts and ts + w.
	if v, ok := eval(x0); ok && v > limit {
		return true, x0, v
	}
	i, k := 0, 0
	for i < len(ts) || k < len(ts) {
		var x berth.Time
		switch {
		case k >= len(ts) || (i < len(ts) && ts[i] <= satAdd(ts[k], w)):
			x = ts[i]
			i++
		default:
			x = satAdd(ts[k], w)
			k++
		}
		if x <= x0 {
			continue
		}
		if x > to {
			break
		}
		if v, ok := eval(x); ok && v > limit {
			return true, x, v
		}
	}
	return false, 0, 0
}

// exactExceeds reports the first x in [from, to] at which the exact integral
// of segs over [x − w, x) exceeds bound (see exactWindowBound). The
// integral of a step function over a sliding window is piecewise linear in
// x, with kinks where x or x − w meets a breakpoint, so checking those
// candidates is exact. Consumption before segs[0].t counts as zero; the
// last value holds to end.
func exactExceeds(segs []seg, end, from, to berth.Time, w int64, bound rle.Int128) (bool, berth.Time, rle.Int128) {
	if len(segs) == 0 || w <= 0 || from > to {
		return false, 0, rle.Int128{}
	}
	// prefix integrals at each breakpoint
	pre := make([]rle.Int128, len(segs)+1)
	for i, g := range segs {
		next := end
		if i+1 < len(segs) {
			next = segs[i+1].t
		}
		pre[i+1] = pre[i].Add(rle.Product(g.v, max(next-g.t, 0)))
	}
	integralAt := func(x berth.Time) rle.Int128 {
		if x <= segs[0].t {
			return rle.Int128{}
		}
		x = min(x, end)
		i := sort.Search(len(segs), func(i int) bool { return segs[i].t > x }) - 1
		return pre[i].Add(rle.Product(segs[i].v, x-segs[i].t))
	}
	check := func(x berth.Time) (bool, rle.Int128) {
		if x < from || x > to {
			return false, rle.Int128{}
		}
		v := integralAt(x).Sub(integralAt(satAdd(x, -w)))
		return v.Cmp(bound) > 0, v
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
	return false, 0, rle.Int128{}
}

// exactWindowBound is the largest integral of one resource type over a
// window of w ms that the exact average check admits: the real number
// capacity × percent / 100 × w, which is the limit AveragePercent puts on
// the type, rounded down. The integral is a whole number, so comparing it
// with the rounded-down bound is comparing it with the real one: nothing
// is truncated before the comparison (YARN truncates the limit to whole
// units, then rounds the averages it compares, see the package doc).
func exactWindowBound(capacity int64, percent float32, w int64) rle.Int128 {
	x := new(big.Rat).SetFloat64(float64(percent)) // exact: percent is finite
	x.Mul(x, new(big.Rat).SetInt(rle.Product(capacity, w).Big()))
	x.Quo(x, big.NewRat(100, 1))
	q := new(big.Int).Quo(x.Num(), x.Denom()) // x ≥ 0: truncation is floor
	return int128OfBig(q)
}

// int128OfBig converts a non-negative v, saturating at the largest Int128
// (no integral reaches it).
func int128OfBig(v *big.Int) rle.Int128 {
	if v.BitLen() > 127 {
		v = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 127), big.NewInt(1))
	}
	var words [4]uint32 // little-endian 32-bit words
	t := new(big.Int).Set(v)
	mask := big.NewInt(math.MaxUint32)
	for i := range words {
		words[i] = uint32(new(big.Int).And(t, mask).Uint64())
		t.Rsh(t, 32)
	}
	r := rle.Int128Of(int64(words[3]))
	for i := 2; i >= 0; i-- {
		r = r.Scale(1 << 32).Add(rle.Int128Of(int64(words[i])))
	}
	return r
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
