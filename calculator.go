package berth

import (
	"math"
	"slices"
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
	// cluster (YARN's divide). A zero denominator gives +Inf (or NaN for
	// 0/0), as in YARN: check IsInvalidDivisor first.
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
	// avail, in type order (memory, vcores, then extended types by name).
	InsufficientResources(req, avail Resource) []string
}

// divideAndCeil is YARN's integer divideAndCeil, (a + b - 1) / b, with 0 when
// b is 0. Where YARN's formula overflows (a near math.MaxInt64, e.g. an
// Unbounded maximum) Berth returns the exact ceiling instead of a wrapped
// negative number.
func divideAndCeil(a, b int64) int64 {
	if b == 0 {
		return 0
	}
	if b != math.MinInt64 {
		if s := a + (b - 1); (b > 0 && s >= a) || (b < 0 && s < a) {
			return s / b // no overflow: YARN's exact answer
		}
	}
	q, rem := a/b, a%b
	if rem != 0 && (rem > 0) == (b > 0) {
		q++
	}
	return q
}

// mulSat multiplies with saturation at the int64 limits.
func mulSat(a, b int64) int64 {
	if a == 0 || b == 0 {
		return 0
	}
	p := a * b
	if p/b == a && !(a == -1 && b == math.MinInt64) && !(b == -1 && a == math.MinInt64) {
		return p
	}
	if (a > 0) == (b > 0) {
		return math.MaxInt64
	}
	return math.MinInt64
}

// RoundUpTo rounds a up to a multiple of step (0 when step is 0, as YARN's
// roundUp). A result beyond int64 saturates at math.MaxInt64 instead of
// wrapping negative as YARN's long arithmetic would.
func RoundUpTo(a, step int64) int64 { return mulSat(divideAndCeil(a, step), step) }

// RoundDownTo rounds a down (toward zero) to a multiple of step. A zero step
// returns a unchanged, where YARN would throw ArithmeticException.
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
//
// Differences from YARN, where YARN throws ArithmeticException on a zero
// divisor: AvailableContainers with a zero-memory request returns
// math.MaxInt32 (nothing bounds it, the same answer DominantCalculator
// gives), and RoundDown / MultiplyAndNormalizeDown with a zero memory step
// leave memory unrounded.
type MemoryCalculator struct{}

var _ Calculator = MemoryCalculator{}

// Compare compares memory only.
func (MemoryCalculator) Compare(_, l, r Resource) int { return cmpI(l.Memory, r.Memory) }

// Divide is Ratio(num, den): the cluster plays no part.
func (c MemoryCalculator) Divide(_, num, den Resource) float32 { return c.Ratio(num, den) }

// Ratio is memory over memory in single precision (0/0 is 0).
func (MemoryCalculator) Ratio(a, b Resource) float32 { return divideSafely(a.Memory, b.Memory) }

// IsInvalidDivisor reports whether memory is zero.
func (MemoryCalculator) IsInvalidDivisor(r Resource) bool { return r.Memory == 0 }

// IsAllInvalidDivisor reports whether memory is zero.
func (MemoryCalculator) IsAllInvalidDivisor(r Resource) bool { return r.Memory == 0 }

// FitsIn compares memory only.
func (MemoryCalculator) FitsIn(small, big Resource) bool { return small.Memory <= big.Memory }

// AvailableContainers is avail.Memory / req.Memory, truncated, not capped;
// math.MaxInt32 when req has no memory.
func (MemoryCalculator) AvailableContainers(avail, req Resource) int64 {
	if req.Memory == 0 {
		return math.MaxInt32
	}
	return avail.Memory / req.Memory
}

// DivideAndCeil divides memory, rounding up; the result's vcores follow
// [FromMemory].
func (MemoryCalculator) DivideAndCeil(r Resource, n int64) Resource {
	return FromMemory(divideAndCeil(r.Memory, n))
}

// Normalize works on memory: max(r, min) rounded up to step, capped at max.
// A zero step falls back to min's memory, as in YARN (which logs an error).
func (MemoryCalculator) Normalize(r, minR, maxR, step Resource) Resource {
	s := step.Memory
	if s == 0 {
		s = minR.Memory
	}
	return FromMemory(min(RoundUpTo(max(r.Memory, minR.Memory), s), maxR.Memory))
}

// RoundUp rounds memory up to step (a zero step gives 0, as in YARN).
func (MemoryCalculator) RoundUp(r, step Resource) Resource {
	return FromMemory(RoundUpTo(r.Memory, step.Memory))
}

// RoundDown rounds memory down to step.
func (MemoryCalculator) RoundDown(r, step Resource) Resource {
	return FromMemory(RoundDownTo(r.Memory, step.Memory))
}

// MultiplyAndNormalizeUp rounds memory×by half up, then up to step.
func (MemoryCalculator) MultiplyAndNormalizeUp(r Resource, by float64, step Resource) Resource {
	return FromMemory(RoundUpTo(javaLong(float64(r.Memory)*by+0.5), step.Memory))
}

// MultiplyAndNormalizeDown truncates memory×by, then rounds down to step.
func (MemoryCalculator) MultiplyAndNormalizeDown(r Resource, by float64, step Resource) Resource {
	return FromMemory(RoundDownTo(javaLong(float64(r.Memory)*by), step.Memory))
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
//
// Which types count: YARN iterates over every resource type configured in
// the cluster; Berth has no registry and considers memory, vcores and every
// extended type present in any operand. A type absent from all operands is
// zero everywhere, and such a type changes no YARN answer (its share is
// skipped or equal on both sides, it fits, it rounds to 0, it bounds no
// container count), so results agree with YARN for any configuration —
// except the single-operand predicates IsInvalidDivisor and
// AnyMajorZeroOrNegative: YARN answers true when r lacks a configured type
// (e.g. a cluster with yarn.io/gpu configured but no GPU node), Berth cannot
// know about it and looks at memory and vcores only for absent types. A host
// with configured extended types that needs YARN's answer also checks
// r.Extra(name) == 0 for each of them.
//
// Compare follows YARN 3.3 exactly: equal resources compare 0; a cluster with
// every type zero falls back to componentwise dominance; otherwise each
// type's share is amount/cluster amount, a zero cluster amount giving a share
// of +Inf (never NaN). With memory and vcores only, the dominant shares are
// compared, then the other shares (two +Inf compare equal). With extended
// types, each side's shares are sorted and compared from the largest down,
// skipping +Inf positions. Both rules give the same order whenever both
// apply, so which one runs is only a matter of speed.
type DominantCalculator struct{}

var _ Calculator = DominantCalculator{}

// share is YARN's calculateShare: amount over cluster amount as a double,
// +Inf when the cluster has none of the type (whatever the amount, so that
// the type is skipped consistently on both sides).
func share(v, c int64) float64 {
	if c == 0 {
		return math.Inf(1)
	}
	return float64(v) / float64(c)
}

func cmpF(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Compare orders l and r by dominant share of cluster (see the type doc).
func (DominantCalculator) Compare(cluster, l, r Resource) int {
	if l.Equal(r) {
		return 0
	}
	if cluster.IsZero() { // YARN's isAllInvalidDivisor(cluster)
		return dominance(l, r)
	}
	if len(cluster.ext) == 0 && len(l.ext) == 0 && len(r.ext) == 0 {
		return compareTwo(cluster, l, r)
	}
	return compareSorted(cluster, l, r)
}

// compareTwo is the memory+vcores rule: compare the dominant shares, then the
// other shares. Ties for the dominant type pick memory, which does not matter
// for the result.
func compareTwo(cluster, l, r Resource) int {
	lm, lc := share(l.Memory, cluster.Memory), share(l.VCores, cluster.VCores)
	rm, rc := share(r.Memory, cluster.Memory), share(r.VCores, cluster.VCores)
	lDom, lSub := lm, lc
	if lc > lm {
		lDom, lSub = lc, lm
	}
	rDom, rSub := rm, rc
	if rc > rm {
		rDom, rSub = rc, rm
	}
	if d := cmpF(lDom, rDom); d != 0 {
		return d
	}
	return cmpF(lSub, rSub)
}

// compareSorted is the general rule: sort each side's shares ascending and
// compare from the largest down, skipping +Inf positions. Up to 16 types the
// share vectors live on the stack.
func compareSorted(cluster, l, r Resource) int {
	var lbuf, rbuf [16]float64
	ls := append(lbuf[:0], share(l.Memory, cluster.Memory), share(l.VCores, cluster.VCores))
	rs := append(rbuf[:0], share(r.Memory, cluster.Memory), share(r.VCores, cluster.VCores))
	for it := iterExt(cluster, l, r); it.next(); {
		ls = append(ls, share(it.vals[1], it.vals[0]))
		rs = append(rs, share(it.vals[2], it.vals[0]))
	}
	slices.Sort(ls)
	slices.Sort(rs)
	inf := math.Inf(1)
	for i := len(ls) - 1; i >= 0; i-- {
		if ls[i] == inf || rs[i] == inf {
			continue
		}
		if d := cmpF(ls[i], rs[i]); d != 0 {
			return d
		}
	}
	return 0
}

// dominance compares componentwise: +1 if l ≥ r everywhere and > somewhere,
// -1 in the mirror case, 0 otherwise. YARN uses it when the cluster is empty.
func dominance(l, r Resource) int {
	lGreater, rGreater := false, false
	see := func(a, b int64) {
		if a > b {
			lGreater = true
		} else if a < b {
			rGreater = true
		}
	}
	see(l.Memory, r.Memory)
	see(l.VCores, r.VCores)
	for it := iterExt(l, r); it.next(); {
		see(it.vals[0], it.vals[1])
	}
	switch {
	case lGreater && !rGreater:
		return 1
	case rGreater && !lGreater:
		return -1
	}
	return 0
}

// Divide is the dominant share of num over the dominant share of den, where
// a dominant share is the largest share (at least 0) over the types the
// cluster has. A zero denominator share gives +Inf, or NaN for 0/0, as in YARN.
func (DominantCalculator) Divide(cluster, num, den Resource) float32 {
	var mn, md float64
	see := func(c, n, d int64) {
		if c == 0 { // share +Inf on both sides: YARN skips the type
			return
		}
		mn = max(mn, share(n, c))
		md = max(md, share(d, c))
	}
	see(cluster.Memory, num.Memory, den.Memory)
	see(cluster.VCores, num.VCores, den.VCores)
	for it := iterExt(cluster, num, den); it.next(); {
		see(it.vals[0], it.vals[1], it.vals[2])
	}
	return float32(mn / md)
}

// Ratio is the largest per-type ratio a_i / b_i (each as divideSafelyAsFloat,
// so 0/0 is 0), and never below 0: YARN starts its maximum at 0.
func (DominantCalculator) Ratio(a, b Resource) float32 {
	best := max(float32(0), divideSafely(a.Memory, b.Memory), divideSafely(a.VCores, b.VCores))
	for it := iterExt(a, b); it.next(); {
		best = max(best, divideSafely(it.vals[0], it.vals[1]))
	}
	return best
}

// IsInvalidDivisor reports whether memory or vcores (or a present extended
// type) is zero; see the type doc for configured extended types.
func (DominantCalculator) IsInvalidDivisor(r Resource) bool {
	if r.Memory == 0 || r.VCores == 0 {
		return true
	}
	for _, q := range r.ext {
		if q.Value == 0 {
			return true
		}
	}
	return false
}

// IsAllInvalidDivisor reports whether every type is zero.
func (DominantCalculator) IsAllInvalidDivisor(r Resource) bool { return r.IsZero() }

// FitsIn compares every type.
func (DominantCalculator) FitsIn(small, big Resource) bool { return small.FitsIn(big) }

// AvailableContainers is the minimum over the types req asks for (non-zero)
// of avail_i/req_i, capped at math.MaxInt32 (also the answer when req is
// zero). YARN narrows the result to a Java int, which wraps for counts below
// math.MinInt32; Berth keeps the int64.
func (DominantCalculator) AvailableContainers(avail, req Resource) int64 {
	n := int64(math.MaxInt32)
	if req.Memory != 0 {
		n = min(n, avail.Memory/req.Memory)
	}
	if req.VCores != 0 {
		n = min(n, avail.VCores/req.VCores)
	}
	for _, q := range req.ext {
		if q.Value != 0 {
			n = min(n, avail.Extra(q.Name)/q.Value)
		}
	}
	return n
}

// perType applies f to every type of r (memory, vcores and r's extended
// types) with the matching component of step. Types absent from r stay 0,
// since every f used here maps 0 to 0.
func perType(r, step Resource, f func(v, s int64) int64) Resource {
	out := Resource{Memory: f(r.Memory, step.Memory), VCores: f(r.VCores, step.VCores)}
	if len(r.ext) > 0 {
		ext := make([]Quantity, len(r.ext))
		for i, q := range r.ext {
			ext[i] = Quantity{Name: q.Name, Value: f(q.Value, step.Extra(q.Name))}
		}
		out.ext = compact(ext)
	}
	return out
}

// DivideAndCeil divides every type, rounding up.
func (DominantCalculator) DivideAndCeil(r Resource, n int64) Resource {
	return perType(r, Resource{}, func(v, _ int64) int64 { return divideAndCeil(v, n) })
}

// normalizeOne is one type of DRC normalize: raise to min, round up to a
// non-zero step, cap at max.
func normalizeOne(v, lo, hi, step int64) int64 {
	v = max(v, lo)
	if step != 0 {
		v = RoundUpTo(v, step)
	}
	return min(v, hi)
}

// Normalize raises each type to min, rounds it up to step (where step is
// non-zero: unlike MemoryCalculator a zero step means no rounding, not the
// minimum) and caps it at max. A type max lacks is capped at 0, as YARN does
// for a configured type with a zero maximum.
func (DominantCalculator) Normalize(r, minR, maxR, step Resource) Resource {
	out := Resource{
		Memory: normalizeOne(r.Memory, minR.Memory, maxR.Memory, step.Memory),
		VCores: normalizeOne(r.VCores, minR.VCores, maxR.VCores, step.VCores),
	}
	if len(r.ext)+len(minR.ext)+len(maxR.ext)+len(step.ext) == 0 {
		return out
	}
	var ext []Quantity
	for it := iterExt(r, minR, maxR, step); it.next(); {
		if v := normalizeOne(it.vals[0], it.vals[1], it.vals[2], it.vals[3]); v != 0 {
			ext = append(ext, Quantity{Name: it.name, Value: v})
		}
	}
	out.ext = ext
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

// MultiplyAndNormalizeUp scales each type, rounds the product up after
// narrowing it to float32 (YARN's (long) ceil((float) (v*by)), which can
// round a large product up by more than 1) and rounds up to a non-zero step.
func (DominantCalculator) MultiplyAndNormalizeUp(r Resource, by float64, step Resource) Resource {
	return perType(r, step, func(v, s int64) int64 {
		x := javaLong(math.Ceil(float64(float32(float64(v) * by))))
		if s == 0 {
			return x
		}
		return RoundUpTo(x, s)
	})
}

// MultiplyAndNormalizeDown truncates each scaled type and rounds down to a
// non-zero step.
func (DominantCalculator) MultiplyAndNormalizeDown(r Resource, by float64, step Resource) Resource {
	return perType(r, step, func(v, s int64) int64 { return RoundDownTo(javaLong(float64(v)*by), s) })
}

// AnyMajorZeroOrNegative reports whether memory, vcores or a present
// extended type is ≤ 0; see the type doc for configured extended types.
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
	if req.Memory > avail.Memory {
		out = append(out, ResourceMemory)
	}
	if req.VCores > avail.VCores {
		out = append(out, ResourceVCores)
	}
	for it := iterExt(req, avail); it.next(); {
		if it.vals[0] > it.vals[1] {
			out = append(out, it.name)
		}
	}
	return out
}

// orMemory is c, or MemoryCalculator (Berth's default, as YARN's) when c
// is nil: the package-level comparisons below take a nil calculator for
// the default rather than fail.
func orMemory(c Calculator) Calculator {
	if c == nil {
		return MemoryCalculator{}
	}
	return c
}

// Min returns a if c.Compare(cluster, a, b) ≤ 0, else b: one whole operand,
// ties returning a, as YARN's Resources.min. A nil c is MemoryCalculator,
// as for every comparison below.
func Min(c Calculator, cluster, a, b Resource) Resource {
	if orMemory(c).Compare(cluster, a, b) <= 0 {
		return a
	}
	return b
}

// Max returns a if c.Compare(cluster, a, b) ≥ 0, else b (ties return a).
func Max(c Calculator, cluster, a, b Resource) Resource {
	if orMemory(c).Compare(cluster, a, b) >= 0 {
		return a
	}
	return b
}

// LessThan reports whether a < b under c.
func LessThan(c Calculator, cluster, a, b Resource) bool {
	return orMemory(c).Compare(cluster, a, b) < 0
}

// LessOrEqual reports whether a ≤ b under c.
func LessOrEqual(c Calculator, cluster, a, b Resource) bool {
	return orMemory(c).Compare(cluster, a, b) <= 0
}

// GreaterThan reports whether a > b under c.
func GreaterThan(c Calculator, cluster, a, b Resource) bool {
	return orMemory(c).Compare(cluster, a, b) > 0
}

// GreaterOrEqual reports whether a ≥ b under c.
func GreaterOrEqual(c Calculator, cluster, a, b Resource) bool {
	return orMemory(c).Compare(cluster, a, b) >= 0
}
