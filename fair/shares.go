package fair

import "math"

// shareIterations is the number of bisection steps YARN's ComputeFairShares
// runs; it is part of the observable result (the shares are rounded from the
// upper bound after these steps), so it is not configurable.
const shareIterations = 25

// ShareEntry is one participant of a single-type fair-share computation:
// its weight, its minimum and maximum share of the type, and whether it is
// an inactive queue (an instantaneous computation gives such a queue 0).
type ShareEntry struct {
	Weight   float64 // weight (≤ 0: the entry gets its minimum)
	Min, Max int64   // minimum and maximum share (Max ≤ 0: the entry gets 0)
	Inactive bool    // an inactive queue: 0 in an instantaneous computation
}

// javaLong converts a double to a long the way Java's (long) cast does:
// NaN is 0 and out-of-range values saturate. Go leaves those cases
// implementation-defined, so every float→int64 conversion of a share goes
// through here.
func javaLong(f float64) int64 {
	switch {
	case f != f:
		return 0
	case f >= math.MaxInt64:
		return math.MaxInt64
	case f <= math.MinInt64:
		return math.MinInt64
	}
	return int64(f)
}

// satAdd adds with saturation at the int64 bounds (YARN's safeAdd in
// ComputeFairShares), so that unbounded maxima never wrap around.
func satAdd(a, b int64) int64 {
	r := a + b
	if (a^r)&(b^r) < 0 {
		if a > 0 {
			return math.MaxInt64
		}
		return math.MinInt64
	}
	return r
}

// fixedShare returns the share of an entry that does not take part in the
// search, and false when the entry is searched over (YARN's
// getFairShareIfFixed).
func fixedShare(e *ShareEntry, steady bool) (int64, bool) {
	switch {
	case e.Max <= 0:
		return 0, true
	case !steady && e.Inactive:
		return 0, true
	case e.Weight <= 0:
		return max(e.Min, 0), true
	}
	return 0, false
}

// shareScratch holds the flattened non-fixed entries of one computation, so
// that the inner loop of the search reads three dense float arrays.
type shareScratch struct {
	idx         []int
	w, min, max []float64
	imin, imax  []int64 // the exact bounds, for the final clamp
	fastLimit   float64
}

// reset empties the scratch for a computation over n entries.
func (s *shareScratch) reset(n int) {
	if cap(s.idx) < n {
		s.idx = make([]int, 0, n)
		s.w = make([]float64, 0, n)
		s.min = make([]float64, 0, n)
		s.max = make([]float64, 0, n)
		s.imin = make([]int64, 0, n)
		s.imax = make([]int64, 0, n)
	}
	s.idx, s.w, s.min, s.max, s.imin, s.imax = s.idx[:0], s.w[:0], s.min[:0], s.max[:0], s.imin[:0], s.imax[:0]
}

// push adds entry i, which is not fixed, to the search.
func (s *shareScratch) push(i int, e *ShareEntry) {
	s.idx = append(s.idx, i)
	s.w = append(s.w, e.Weight)
	s.min = append(s.min, float64(e.Min))
	s.max = append(s.max, float64(e.Max))
	s.imin = append(s.imin, e.Min)
	s.imax = append(s.imax, e.Max)
}

// used is the total taken at weight-to-resource ratio r (YARN's
// resourceUsedWithWeightToResourceRatio), saturating. Terms below fastLimit
// are summed without overflow checks (their count bounds the sum below
// 2^62); larger ones take the saturating path, so the result equals YARN's
// term-by-term saturating sum for non-negative shares.
func (s *shareScratch) used(r float64) int64 {
	w := s.w
	lo, hi := s.min[:len(w)], s.max[:len(w)]
	limit := s.fastLimit
	var fast, slow int64
	for i, wi := range w {
		// Go's min and max propagate NaN as Java's Math.min/max do.
		v := min(max(wi*r, lo[i]), hi[i])
		if v < limit {
			fast += int64(v)
		} else {
			slow = satAdd(slow, javaLong(v))
		}
	}
	return satAdd(fast, slow)
}

// search runs YARN's search for the weight-to-resource ratio and returns
// the upper bound it ends with. used is non-decreasing in the ratio
// (weights are positive, clamping and truncation keep order), which allows
// two shortcuts that never change the result: when the minimum shares
// alone exceed want, every step of the search moves the upper bound down,
// so it ends at 2^-25 without evaluating anything; and a doubling step
// whose ratio cannot reach want even before clamping at the maxima
// (ratio × Σweights + Σminimums, with a safety margin) is skipped.
func (s *shareScratch) search(want int64) float64 {
	if s.used(0) > want {
		hi := 1.0
		for range shareIterations {
			hi /= 2
		}
		return hi
	}
	var sumW, sumMin float64
	for i, w := range s.w {
		sumW += w
		sumMin += max(s.min[i], 0)
	}
	rMax := 1.0
	for !math.IsInf(rMax, 1) {
		if bound := rMax*sumW + sumMin; bound*(1+1e-9)+1 < float64(want) {
			rMax *= 2 // used(rMax) ≤ bound < want
			continue
		}
		if s.used(rMax) >= want {
			break
		}
		rMax *= 2
	}
	lo, hi := 0.0, rMax
	for range shareIterations {
		mid := (lo + hi) / 2
		u := s.used(mid)
		if u == want {
			return mid
		}
		if u < want {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}

// share is one entry's share at ratio r: weight×r clamped to [min, max] in
// double precision, then truncated.
func (s *shareScratch) share(i int, r float64) int64 {
	return javaLong(min(max(s.w[i]*r, s.min[i]), s.max[i]))
}

// ComputeShares computes the fair shares of one resource type exactly as
// YARN's ComputeFairShares does and writes them to out (which should have
// the length of entries; a shorter out receives the shares of the first
// len(out) entries). With steady false inactive entries get 0 (the
// instantaneous fair share); with steady true every entry takes part.
//
// Entries with a maximum ≤ 0 get 0, entries with weight ≤ 0 get their
// minimum; the rest share what is left of total by a 25-step bisection on
// the weight-to-resource ratio, whose upper bound is used, and each share
// is truncated — so the shares may add up to slightly more than total, as
// in YARN.
func ComputeShares(entries []ShareEntry, total int64, steady bool, out []int64) {
	var sc shareScratch
	if len(out) < len(entries) {
		all := make([]int64, len(entries))
		computeShares(entries, total, steady, all, &sc)
		copy(out, all)
		return
	}
	computeShares(entries, total, steady, out, &sc)
}

// computeShares is ComputeShares with reusable scratch. Callers that read
// their entries from elsewhere (computeType) run the same two steps
// (fixed shares, then finish) without building the entries.
func computeShares(entries []ShareEntry, total int64, steady bool, out []int64, sc *shareScratch) {
	sc.reset(len(entries))
	var taken int64
	for i := range entries {
		e := &entries[i]
		if v, ok := fixedShare(e, steady); ok {
			out[i] = v
			taken = satAdd(taken, v)
			continue
		}
		sc.push(i, e)
	}
	sc.finish(total, taken, out)
}

// finish divides what is left of total after the fixed shares (taken)
// among the pushed entries and writes their shares to out.
func (sc *shareScratch) finish(total, taken int64, out []int64) {
	if len(sc.idx) == 0 {
		return
	}
	sc.fastLimit = float64(int64(1)<<62) / float64(len(sc.idx)+1)
	var totalMax int64
	for _, m := range sc.imax {
		totalMax = satAdd(totalMax, m)
		if totalMax == math.MaxInt64 {
			break
		}
	}
	want := min(max(total-taken, 0), totalMax)
	hi := sc.search(want)
	lo, up := sc.imin[:len(sc.idx)], sc.imax[:len(sc.idx)]
	for k, i := range sc.idx {
		// Above 2^53 the double arithmetic can round a share past its
		// integer bounds; clamp so no share ever exceeds its maximum.
		v := sc.share(k, hi)
		if v > up[k] {
			v = up[k]
		}
		if v < lo[k] && lo[k] <= up[k] {
			v = lo[k]
		}
		out[i] = v
	}
}
