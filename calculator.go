package berth

import (
	"math"
	"sort"
)

// Calculator compares and divides resources the way a scheduler sees them.
// It is YARN's ResourceCalculator: [MemoryCalculator] looks at memory only
// (DefaultResourceCalculator), [DominantCalculator] at every type by dominant
// share (DominantResourceCalculator).
//
// Ratios are float32 because YARN computes them in single precision, and
// decisions that compare ratios must round the same way to agree with YARN.
//
// Implementations are stateless and safe for concurrent use.
type Calculator interface {
	// Compare returns -1, 0 or +1 as l is smaller than, equal to or larger
	// than r relative to the cluster resource.
	Compare(cluster, l, r Resource) int
	// Divide returns the share of num relative to den, both seen against the
	// cluster (YARN's divide).
	Divide(cluster, num, den Resource) float32
	// Ratio returns a / b (YARN's ratio); x/0 is +Inf and 0/0 is 0.
	Ratio(a, b Resource) float32
	// IsInvalidDivisor reports whether r cannot be divided by (some
	// considered component is zero).
	IsInvalidDivisor(r Resource) bool
	// IsAllInvalidDivisor reports whether every considered component of r is
	// zero.
	IsAllInvalidDivisor(r Resource) bool
	// FitsIn reports whether small fits in big for the types the calculator
	// considers.
	FitsIn(small, big Resource) bool
	// AvailableContainers returns how many req fit in avail.
	AvailableContainers(avail, req Resource) int64
	// DivideAndCeil divides r by n, rounding up (0 when n is 0).
	DivideAndCeil(r Resource, n int64) Resource
	// Normalize raises r to at least min, rounds up to a multiple of step and
	// caps at max.
	Normalize(r, min, max, step Resource) Resource
	// RoundUp rounds r up to a multiple of step.
	RoundUp(r, step Resource) Resource
	// RoundDown rounds r down to a multiple of step.
	RoundDown(r, step Resource) Resource
	// MultiplyAndNormalizeUp scales r by by and rounds up to step.
	MultiplyAndNormalizeUp(r Resource, by float64, step Resource) Resource
	// MultiplyAndNormalizeDown scales r by by and rounds down to step.
	MultiplyAndNormalizeDown(r Resource, by float64, step Resource) Resource
	// AnyMajorZeroOrNegative reports whether a considered component is ≤ 0.
	AnyMajorZeroOrNegative(r Resource) bool
	// AnyMajorAboveZero reports whether a considered component is > 0.
	AnyMajorAboveZero(r Resource) bool
	// InsufficientResources names the considered types where req exceeds
	// avail, in type order.
	InsufficientResources(req, avail Resource) []string
}

// divideAndCeil is YARN's integer divideAndCeil: 0 when b is 0.
func divideAndCeil(a, b int64) int64 {
	if b == 0 {
		return 0
	}
	return (a + b - 1) / b
}

// RoundUpTo rounds a up to a multiple of step (0 when step is 0).
func RoundUpTo(a, step int64) int64 { return divideAndCeil(a, step) * step }

// RoundDownTo rounds a down to a multiple of step (a when step is 0).
func RoundDownTo(a, step int64) int64 {
	if step == 0 {
		return a
	}
	return (a / step) * step
}

// divideSafely is YARN's divideSafelyAsFloat: 0/0 is 0, x/0 is ±Inf.
func divideSafely(l, r int64) float32 {
	if l == 0 && r == 0 {
		return 0
	}
	return float32(l) / float32(r)
}

// MemoryCalculator is YARN's DefaultResourceCalculator: it considers memory
// only. Results it builds from a memory amount carry vcores 1 (memory > 0)
// or 0, as YARN's createResource(mem) does.
type MemoryCalculator struct{}

var _ Calculator = MemoryCalculator{}

// Compare compares memory only.
func (MemoryCalculator) Compare(_, l, r Resource) int { return cmpI(l.Memory, r.Memory) }

// Divide is Ratio(num, den).
func (c MemoryCalculator) Divide(_, num, den Resource) float32 { return c.Ratio(num, den) }

// Ratio is memory over memory.
func (MemoryCalculator) Ratio(a, b Resource) float32 { return divideSafely(a.Memory, b.Memory) }

// IsInvalidDivisor reports whether memory is zero.
func (MemoryCalculator) IsInvalidDivisor(r Resource) bool { return r.Memory == 0 }

// IsAllInvalidDivisor reports whether memory is zero.
func (MemoryCalculator) IsAllInvalidDivisor(r Resource) bool { return r.Memory == 0 }

// FitsIn compares memory only.
func (MemoryCalculator) FitsIn(small, big Resource) bool { return small.Memory <= big.Memory }

// AvailableContainers is avail.Memory / req.Memory (0 when req has no memory).
func (MemoryCalculator) AvailableContainers(avail, req Resource) int64 {
	if req.Memory == 0 {
		return 0
	}
	return avail.Memory / req.Memory
}

// DivideAndCeil divides memory, rounding up.
func (MemoryCalculator) DivideAndCeil(r Resource, n int64) Resource {
	return FromMemory(divideAndCeil(r.Memory, n))
}

// Normalize works on memory; a zero step falls back to min, as in YARN.
func (MemoryCalculator) Normalize(r, minR, maxR, step Resource) Resource {
	s := step.Memory
	if s == 0 {
		s = minR.Memory
	}
	return FromMemory(min(RoundUpTo(max(r.Memory, minR.Memory), s), maxR.Memory))
}

// RoundUp rounds memory up to step.
func (MemoryCalculator) RoundUp(r, step Resource) Resource {
	return FromMemory(RoundUpTo(r.Memory, step.Memory))
}

// RoundDown rounds memory down to step.
func (MemoryCalculator) RoundDown(r, step Resource) Resource {
	return FromMemory(RoundDownTo(r.Memory, step.Memory))
}

// MultiplyAndNormalizeUp rounds memory×by half up, then up to step.
func (MemoryCalculator) MultiplyAndNormalizeUp(r Resource, by float64, step Resource) Resource {
	return FromMemory(RoundUpTo(int64(float64(r.Memory)*by+0.5), step.Memory))
}

// MultiplyAndNormalizeDown truncates memory×by, then rounds down to step.
func (MemoryCalculator) MultiplyAndNormalizeDown(r Resource, by float64, step Resource) Resource {
	return FromMemory(RoundDownTo(int64(float64(r.Memory)*by), step.Memory))
}

// AnyMajorZeroOrNegative reports memory ≤ 0.
func (MemoryCalculator) AnyMajorZeroOrNegative(r Resource) bool { return r.Memory <= 0 }

// AnyMajorAboveZero reports memory > 0.
func (MemoryCalculator) AnyMajorAboveZero(r Resource) bool { return r.Memory > 0 }

// InsufficientResources names memory when req has more than avail.
func (MemoryCalculator) InsufficientResources(req, avail Resource) []string {
	if req.Memory > avail.Memory {
		return []string{ResourceMemory}
	}
	return nil
}

// DominantCalculator is YARN's DominantResourceCalculator (DRF): resources
// are ordered by their dominant share of the cluster, over every type.
type DominantCalculator struct{}

var _ Calculator = DominantCalculator{}

// share is value/cluster with Java's double semantics: x/0 is ±Inf, 0/0 NaN.
func share(v, c int64) float64 { return float64(v) / float64(c) }

// javaCompare orders doubles as Java's Double.compare: NaN is above +Inf and
// equal to itself.
func javaCompare(a, b float64) int {
	an, bn := math.IsNaN(a), math.IsNaN(b)
	switch {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Compare orders l and r by dominant share of cluster; see the package doc
// for YARN's rules on zero cluster components.
func (DominantCalculator) Compare(cluster, l, r Resource) int {
	if l.Equal(r) {
		return 0
	}
	if !cluster.HasExtras() && !l.HasExtras() && !r.HasExtras() {
		if cluster.Memory == 0 && cluster.VCores == 0 {
			return dominance(l, r)
		}
		return compareTwo(cluster, l, r)
	}
	names := TypeNames(cluster, l, r)
	allZero := true
	for _, n := range names {
		if cluster.Extra(n) != 0 {
			allZero = false
			break
		}
	}
	if allZero {
		return dominance(l, r)
	}
	ls := make([]float64, len(names))
	rs := make([]float64, len(names))
	for i, n := range names {
		c := cluster.Extra(n)
		ls[i], rs[i] = share(l.Extra(n), c), share(r.Extra(n), c)
	}
	less := func(s []float64) func(i, j int) bool {
		return func(i, j int) bool { return javaCompare(s[i], s[j]) < 0 }
	}
	sort.Slice(ls, less(ls))
	sort.Slice(rs, less(rs))
	for i := len(ls) - 1; i >= 0; i-- {
		if math.IsInf(ls[i], 0) || math.IsInf(rs[i], 0) {
			continue
		}
		if d := javaCompare(ls[i], rs[i]); d != 0 {
			return d
		}
	}
	return 0
}

// compareTwo is the memory+vcores fast path: compare the dominant shares,
// then the other shares.
func compareTwo(cluster, l, r Resource) int {
	lm, lc := share(l.Memory, cluster.Memory), share(l.VCores, cluster.VCores)
	rm, rc := share(r.Memory, cluster.Memory), share(r.VCores, cluster.VCores)
	lMax, lMin := lm, lc
	if !(lm >= lc) {
		lMax, lMin = lc, lm
	}
	rMax, rMin := rm, rc
	if !(rm >= rc) {
		rMax, rMin = rc, rm
	}
	if d := javaCompare(lMax, rMax); d != 0 {
		return d
	}
	return javaCompare(lMin, rMin)
}

// dominance compares componentwise: +1 if l ≥ r everywhere and > somewhere,
// -1 in the mirror case, 0 otherwise. YARN uses it when the cluster is empty.
func dominance(l, r Resource) int {
	ge, le, gt, lt := true, true, false, false
	for _, n := range TypeNames(l, r) {
		a, b := l.Extra(n), r.Extra(n)
		if a < b {
			ge, lt = false, true
		}
		if a > b {
			le, gt = false, true
		}
	}
	switch {
	case ge && gt:
		return 1
	case le && lt:
		return -1
	}
	return 0
}

// maxFiniteShare is the largest share of r in cluster ignoring infinite ones.
func maxFiniteShare(cluster, r Resource) float64 {
	best := 0.0
	for _, n := range TypeNames(cluster, r) {
		s := share(r.Extra(n), cluster.Extra(n))
		if math.IsInf(s, 0) || math.IsNaN(s) {
			continue
		}
		best = max(best, s)
	}
	return best
}

// Divide is the dominant share of num over the dominant share of den.
func (DominantCalculator) Divide(cluster, num, den Resource) float32 {
	return float32(maxFiniteShare(cluster, num) / maxFiniteShare(cluster, den))
}

// Ratio is the largest per-type ratio a_i / b_i.
func (DominantCalculator) Ratio(a, b Resource) float32 {
	var best float32
	for i, n := range TypeNames(a, b) {
		v := divideSafely(a.Extra(n), b.Extra(n))
		if i == 0 || v > best {
			best = v
		}
	}
	return best
}

// IsInvalidDivisor reports whether any type is zero.
func (DominantCalculator) IsInvalidDivisor(r Resource) bool {
	return r.Memory == 0 || r.VCores == 0
}

// IsAllInvalidDivisor reports whether every type is zero.
func (DominantCalculator) IsAllInvalidDivisor(r Resource) bool { return r.IsZero() }

// FitsIn compares every type.
func (DominantCalculator) FitsIn(small, big Resource) bool { return small.FitsIn(big) }

// AvailableContainers is the minimum over requested types of avail_i/req_i.
func (DominantCalculator) AvailableContainers(avail, req Resource) int64 {
	n := int64(math.MaxInt32)
	for _, t := range TypeNames(avail, req) {
		if q := req.Extra(t); q != 0 {
			n = min(n, avail.Extra(t)/q)
		}
	}
	return n
}

// perType applies f to every type of r (memory, vcores and r's extras) with
// the matching component of step.
func perType(r, step Resource, f func(v, s int64) int64) Resource {
	out := Resource{Memory: f(r.Memory, step.Memory), VCores: f(r.VCores, step.VCores)}
	for _, q := range r.ext {
		out = out.With(q.Name, f(q.Value, step.Extra(q.Name)))
	}
	return out
}

// DivideAndCeil divides every type, rounding up.
func (DominantCalculator) DivideAndCeil(r Resource, n int64) Resource {
	return perType(r, Resource{}, func(v, _ int64) int64 { return divideAndCeil(v, n) })
}

// Normalize raises each type to min, rounds it up to step (where step is
// non-zero) and caps it at max.
func (DominantCalculator) Normalize(r, minR, maxR, step Resource) Resource {
	out := Resource{}
	for _, n := range TypeNames(r, minR, maxR, step) {
		v := max(r.Extra(n), minR.Extra(n))
		if s := step.Extra(n); s != 0 {
			v = RoundUpTo(v, s)
		}
		out = out.With(n, min(v, maxR.Extra(n)))
	}
	return out
}

// RoundUp rounds each type up to step, skipping zero steps.
func (DominantCalculator) RoundUp(r, step Resource) Resource {
	return perType(r, step, func(v, s int64) int64 {
		if s == 0 {
			return v
		}
		return RoundUpTo(v, s)
	})
}

// RoundDown rounds each type down to step, skipping zero steps.
func (DominantCalculator) RoundDown(r, step Resource) Resource {
	return perType(r, step, RoundDownTo)
}

// MultiplyAndNormalizeUp scales each type (through float32, as YARN does)
// and rounds up to step.
func (DominantCalculator) MultiplyAndNormalizeUp(r Resource, by float64, step Resource) Resource {
	return perType(r, step, func(v, s int64) int64 {
		x := int64(math.Ceil(float64(float32(float64(v) * by))))
		if s == 0 {
			return x
		}
		return RoundUpTo(x, s)
	})
}

// MultiplyAndNormalizeDown truncates each scaled type and rounds down to step.
func (DominantCalculator) MultiplyAndNormalizeDown(r Resource, by float64, step Resource) Resource {
	return perType(r, step, func(v, s int64) int64 { return RoundDownTo(int64(float64(v)*by), s) })
}

// AnyMajorZeroOrNegative reports whether any type is ≤ 0.
func (DominantCalculator) AnyMajorZeroOrNegative(r Resource) bool {
	if r.Memory <= 0 || r.VCores <= 0 {
		return true
	}
	for _, q := range r.ext {
		if q.Value <= 0 {
			return true
		}
	}
	return false
}

// AnyMajorAboveZero reports whether any type is > 0.
func (DominantCalculator) AnyMajorAboveZero(r Resource) bool {
	if r.Memory > 0 || r.VCores > 0 {
		return true
	}
	for _, q := range r.ext {
		if q.Value > 0 {
			return true
		}
	}
	return false
}

// InsufficientResources names every type where req exceeds avail.
func (DominantCalculator) InsufficientResources(req, avail Resource) []string {
	var out []string
	for _, n := range TypeNames(req, avail) {
		if req.Extra(n) > avail.Extra(n) {
			out = append(out, n)
		}
	}
	return out
}

// Min returns a if c.Compare(cluster, a, b) ≤ 0, else b: one whole operand,
// ties returning a, as YARN's Resources.min.
func Min(c Calculator, cluster, a, b Resource) Resource {
	if c.Compare(cluster, a, b) <= 0 {
		return a
	}
	return b
}

// Max returns a if c.Compare(cluster, a, b) ≥ 0, else b (ties return a).
func Max(c Calculator, cluster, a, b Resource) Resource {
	if c.Compare(cluster, a, b) >= 0 {
		return a
	}
	return b
}

// LessThan reports whether a < b under c.
func LessThan(c Calculator, cluster, a, b Resource) bool { return c.Compare(cluster, a, b) < 0 }

// LessOrEqual reports whether a ≤ b under c.
func LessOrEqual(c Calculator, cluster, a, b Resource) bool { return c.Compare(cluster, a, b) <= 0 }

// GreaterThan reports whether a > b under c.
func GreaterThan(c Calculator, cluster, a, b Resource) bool { return c.Compare(cluster, a, b) > 0 }

// GreaterOrEqual reports whether a ≥ b under c.
func GreaterOrEqual(c Calculator, cluster, a, b Resource) bool { return c.Compare(cluster, a, b) >= 0 }
