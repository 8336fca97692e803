package rle

import (
	"math"

	"github.com/berthsched/berth"
)

// A block of breakpoints and its lazy addition: the leaves of the store.

// mv is the memory and vcores of a resource, the part every value has.
type mv struct{ m, v int64 }

func mvOf(r berth.Resource) mv { return mv{r.Memory, r.VCores} }

// extrasOf returns r without memory and vcores: its extended types only.
func extrasOf(r berth.Resource) berth.Resource {
	r.Memory, r.VCores = 0, 0
	return r
}

// block holds consecutive breakpoints, structure of arrays: times, then
// memory+vcores (16 bytes a breakpoint), then extended types only when some
// breakpoint has them. The fields an Add or a range query reads for a block
// it covers wholly (own, lazy, nUn, lo, hi, xs) come first.
type block struct {
	own  *owner
	lazy mv // added to every defined value
	nUn  int
	// x is set once the block holds extended types (xs or xlazy); it is
	// not cleared, which only costs speed.
	x bool
	// lo and hi bound the stored memory and vcores of the defined
	// breakpoints (lazy not included); meaningless when none is defined.
	lo, hi mv
	// xs holds the extended types of each breakpoint (memory and vcores
	// zero) and xlazy those of the lazy addition; nil/zero when unused.
	// Blocks with extended types are handled breakpoint by breakpoint.
	xs    []berth.Resource
	xlazy berth.Resource
	ts    []berth.Time
	// vs[i] + lazy is the value of a defined breakpoint i.
	vs []mv
	// un marks undefined breakpoints; nil when every breakpoint is defined.
	un []bool
	// pad makes a block 256 bytes, so that allocations are aligned and
	// the hot fields above share the first cache line.
	_ [256 - 208]byte
}

func (b *block) defined(i int) bool { return b.un == nil || !b.un[i] }

func (b *block) nDef() int { return len(b.ts) - b.nUn }

// plain reports whether no breakpoint of the block has extended types, so
// that lo and hi bound every component.
func (b *block) plain() bool { return !b.x }

// value returns the effective value of defined breakpoint i.
func (b *block) value(i int) berth.Resource {
	r := berth.Resource{Memory: b.vs[i].m + b.lazy.m, VCores: b.vs[i].v + b.lazy.v}
	if !b.plain() {
		if b.xs != nil {
			r = r.Add(b.xs[i])
		}
		r = r.Add(b.xlazy)
	}
	return r
}

// at returns breakpoint i with its effective value.
func (b *block) at(i int) Breakpoint {
	if !b.defined(i) {
		return Breakpoint{Time: b.ts[i], Undefined: true}
	}
	return Breakpoint{Time: b.ts[i], Value: b.value(i)}
}

// loR and hiR are the effective bounds of a plain block with a defined
// breakpoint.
func (b *block) loR() berth.Resource {
	return berth.Resource{Memory: b.lo.m + b.lazy.m, VCores: b.lo.v + b.lazy.v}
}

func (b *block) hiR() berth.Resource {
	return berth.Resource{Memory: b.hi.m + b.lazy.m, VCores: b.hi.v + b.lazy.v}
}

// recompute rebuilds lo and hi.
func (b *block) recompute() {
	lo := mv{math.MaxInt64, math.MaxInt64}
	hi := mv{math.MinInt64, math.MinInt64}
	if b.un == nil {
		for _, v := range b.vs {
			lo.m, lo.v = min(lo.m, v.m), min(lo.v, v.v)
			hi.m, hi.v = max(hi.m, v.m), max(hi.v, v.v)
		}
	} else {
		for i, v := range b.vs {
			if !b.un[i] {
				lo.m, lo.v = min(lo.m, v.m), min(lo.v, v.v)
				hi.m, hi.v = max(hi.m, v.m), max(hi.v, v.v)
			}
		}
	}
	if b.nDef() == 0 {
		lo, hi = mv{}, mv{}
	}
	b.lo, b.hi = lo, hi
}

// pushdown folds lazy into the stored values.
func (b *block) pushdown() {
	if b.lazy != (mv{}) {
		for i := range b.vs {
			if b.defined(i) {
				b.vs[i].m += b.lazy.m
				b.vs[i].v += b.lazy.v
			}
		}
		if b.nDef() > 0 {
			b.lo.m, b.lo.v = b.lo.m+b.lazy.m, b.lo.v+b.lazy.v
			b.hi.m, b.hi.v = b.hi.m+b.lazy.m, b.hi.v+b.lazy.v
		}
		b.lazy = mv{}
	}
	if b.xlazy.HasExtras() {
		b.ensureXs()
		for i := range b.xs {
			if b.defined(i) {
				b.xs[i] = b.xs[i].Add(b.xlazy)
			}
		}
		b.xlazy = berth.Resource{}
	}
}

// ensureXs allocates the extended-type slice.
func (b *block) ensureXs() {
	if b.xs == nil {
		b.xs = make([]berth.Resource, len(b.ts), max(len(b.ts), 4))
	}
	b.x = true
}

func (b *block) copyFor(o *owner) *block {
	nb := &block{
		own:   o,
		lazy:  b.lazy,
		nUn:   b.nUn,
		x:     b.x,
		lo:    b.lo,
		hi:    b.hi,
		xlazy: b.xlazy,
		ts:    append(make([]berth.Time, 0, len(b.ts)+8), b.ts...),
		vs:    append(make([]mv, 0, len(b.ts)+8), b.vs...),
	}
	if b.un != nil {
		nb.un = append(make([]bool, 0, len(b.ts)+8), b.un...)
	}
	if b.xs != nil {
		nb.xs = append(make([]berth.Resource, 0, len(b.ts)+8), b.xs...)
	}
	return nb
}

// store writes the value of breakpoint i (stored = value - lazy).
func (b *block) store(i int, r berth.Resource) {
	b.vs[i] = mv{r.Memory - b.lazy.m, r.VCores - b.lazy.v}
	if r.HasExtras() || b.xlazy.HasExtras() {
		b.ensureXs()
	}
	if b.xs != nil {
		b.xs[i] = extrasOf(r).Sub(b.xlazy)
	}
}

// insertAt inserts p at index i; the caller keeps the tree key right.
func (b *block) insertAt(i int, p Breakpoint) {
	wasEmptyDef := b.nDef() == 0
	b.ts = append(b.ts, 0)
	copy(b.ts[i+1:], b.ts[i:])
	b.ts[i] = p.Time
	b.vs = append(b.vs, mv{})
	copy(b.vs[i+1:], b.vs[i:])
	b.vs[i] = mv{}
	if b.xs != nil {
		b.xs = append(b.xs, berth.Resource{})
		copy(b.xs[i+1:], b.xs[i:])
		b.xs[i] = berth.Resource{}
	}
	if b.un != nil || p.Undefined {
		if b.un == nil {
			b.un = make([]bool, len(b.ts)-1, cap(b.ts))
		}
		b.un = append(b.un, false)
		copy(b.un[i+1:], b.un[i:])
		b.un[i] = p.Undefined
	}
	if p.Undefined {
		b.nUn++
		return
	}
	b.store(i, p.Value)
	v := b.vs[i]
	if wasEmptyDef {
		b.lo, b.hi = v, v
	} else {
		b.lo.m, b.lo.v = min(b.lo.m, v.m), min(b.lo.v, v.v)
		b.hi.m, b.hi.v = max(b.hi.m, v.m), max(b.hi.v, v.v)
	}
}

// insertDup inserts at index i+1 a breakpoint at time t repeating breakpoint
// i (the caller keeps the times ordered). The bounds do not change.
func (b *block) insertDup(i int, t berth.Time) {
	b.ts = append(b.ts, 0)
	copy(b.ts[i+2:], b.ts[i+1:])
	b.ts[i+1] = t
	b.vs = append(b.vs, mv{})
	copy(b.vs[i+2:], b.vs[i+1:])
	b.vs[i+1] = b.vs[i]
	if b.xs != nil {
		b.xs = append(b.xs, berth.Resource{})
		copy(b.xs[i+2:], b.xs[i+1:])
		b.xs[i+1] = b.xs[i]
	}
	if b.un != nil {
		b.un = append(b.un, false)
		copy(b.un[i+2:], b.un[i+1:])
		b.un[i+1] = b.un[i]
		if b.un[i] {
			b.nUn++
		}
	}
}

// setAt replaces the value of breakpoint i.
func (b *block) setAt(i int, p Breakpoint) {
	was := b.defined(i)
	switch {
	case p.Undefined && was:
		if b.un == nil {
			b.un = make([]bool, len(b.ts), cap(b.ts))
		}
		b.un[i] = true
		b.nUn++
		b.vs[i] = mv{}
		if b.xs != nil {
			b.xs[i] = berth.Resource{}
		}
	case !p.Undefined && !was:
		b.un[i] = false
		b.nUn--
		if b.nUn == 0 {
			b.un = nil
		}
		b.store(i, p.Value)
	case !p.Undefined:
		b.store(i, p.Value)
	}
	b.recompute()
}

func (b *block) removeAt(i int) {
	def := b.defined(i)
	// A value repeated by a neighbour leaves the bounds as they are.
	keep := def && ((i > 0 && b.defined(i-1) && b.vs[i-1] == b.vs[i]) ||
		(i+1 < len(b.ts) && b.defined(i+1) && b.vs[i+1] == b.vs[i]))
	b.ts = append(b.ts[:i], b.ts[i+1:]...)
	b.vs = append(b.vs[:i], b.vs[i+1:]...)
	if b.xs != nil {
		b.xs = append(b.xs[:i], b.xs[i+1:]...)
	}
	if b.un != nil {
		b.un = append(b.un[:i], b.un[i+1:]...)
		if !def {
			b.nUn--
			if b.nUn == 0 {
				b.un = nil
			}
		}
	}
	if def && !keep {
		b.recompute()
	}
}

// addTo adds r to the defined breakpoints [i, j) (undefined ones become r)
// and rebuilds the bounds; it reports whether an undefined one was touched.
func (b *block) addTo(i, j int, r berth.Resource) bool {
	touched := false
	d := mvOf(r)
	if b.un == nil && !r.HasExtras() {
		b.addToPlain(i, j, d)
		return false
	}
	if r.HasExtras() {
		b.ensureXs()
	}
	for k := i; k < j; k++ {
		if !b.defined(k) {
			touched = true
			b.un[k] = false
			b.nUn--
			b.store(k, r)
			continue
		}
		b.vs[k].m += d.m
		b.vs[k].v += d.v
		if r.HasExtras() {
			b.xs[k] = b.xs[k].Add(extrasOf(r))
		}
	}
	if b.nUn == 0 {
		b.un = nil
	}
	b.recompute()
	return touched
}

// addToPlain adds d to vs[i:j] of a block with every breakpoint defined
// and keeps the bounds exact without reading outside [i, j) when it can: a
// component moving up keeps its low bound if it lies outside the range (and
// the reverse); otherwise it rebuilds them.
func (b *block) addToPlain(i, j int, d mv) {
	mid := b.vs[i:j]
	plo := mv{math.MaxInt64, math.MaxInt64}
	phi := mv{math.MinInt64, math.MinInt64}
	for k := range mid {
		v := &mid[k]
		plo.m, plo.v = min(plo.m, v.m), min(plo.v, v.v)
		phi.m, phi.v = max(phi.m, v.m), max(phi.v, v.v)
		v.m += d.m
		v.v += d.v
	}
	b.rebound(i, j, plo, phi, d)
}

// subPlain is addToPlain of -d after checking that d fits in every value of
// [i, j) in the same pass: on the first value that is short it puts back
// what it took and returns that index (the block is unchanged); otherwise
// it returns -1.
func (b *block) subPlain(i, j int, d mv) int {
	mid := b.vs[i:j]
	needM, needV := d.m-b.lazy.m, d.v-b.lazy.v
	plo := mv{math.MaxInt64, math.MaxInt64}
	phi := mv{math.MinInt64, math.MinInt64}
	for k := range mid {
		v := &mid[k]
		if v.m < needM || v.v < needV {
			for u := range mid[:k] {
				mid[u].m += d.m
				mid[u].v += d.v
			}
			return i + k
		}
		plo.m, plo.v = min(plo.m, v.m), min(plo.v, v.v)
		phi.m, phi.v = max(phi.m, v.m), max(phi.v, v.v)
		v.m -= d.m
		v.v -= d.v
	}
	b.rebound(i, j, plo, phi, mv{-d.m, -d.v})
	return -1
}

// rebound restores the bounds after d was added to [i, j), whose bounds
// before the change were plo and phi.
func (b *block) rebound(i, j int, plo, phi, d mv) {
	if i == 0 && j == len(b.vs) {
		b.lo = mv{plo.m + d.m, plo.v + d.v}
		b.hi = mv{phi.m + d.m, phi.v + d.v}
		return
	}
	lo, hi := b.lo, b.hi
	ok := true
	switch {
	case d.m > 0:
		hi.m = max(hi.m, phi.m+d.m)
		ok = plo.m > lo.m
	case d.m < 0:
		lo.m = min(lo.m, plo.m+d.m)
		ok = phi.m < hi.m
	}
	switch {
	case d.v > 0:
		hi.v = max(hi.v, phi.v+d.v)
		ok = ok && plo.v > lo.v
	case d.v < 0:
		lo.v = min(lo.v, plo.v+d.v)
		ok = ok && phi.v < hi.v
	}
	if !ok {
		b.recompute()
		return
	}
	b.lo, b.hi = lo, hi
}

// upper returns the number of times in ts that are ≤ t. (A branch-free
// search measured slower on W1: the probes miss the cache, and a branchy
// search lets the processor run ahead.)
func upper(ts []berth.Time, t berth.Time) int {
	lo, hi := 0, len(ts)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if ts[m] <= t {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// lower returns the number of times in ts that are < t.
func lower(ts []berth.Time, t berth.Time) int {
	lo, hi := 0, len(ts)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if ts[m] < t {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}
