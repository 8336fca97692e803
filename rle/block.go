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
// it covers wholly (own, lazy, undefinedCount, lo, hi, extras) come first.
type block struct {
	own            *owner
	lazy           mv // added to every defined value
	undefinedCount int
	// hasExtras is set once the block holds extended types (extras or
	// lazyExtras); it is not cleared, which only costs speed.
	hasExtras bool
	// lo and hi bound the stored memory and vcores of the defined
	// breakpoints (lazy not included); meaningless when none is defined.
	lo, hi mv
	// extras holds the extended types of each breakpoint (memory and
	// vcores zero) and lazyExtras those of the lazy addition; nil/zero
	// when unused.
	// Blocks with extended types are handled breakpoint by breakpoint.
	extras     []berth.Resource
	lazyExtras berth.Resource
	times      []berth.Time
	// values[i] + lazy is the value of a defined breakpoint i.
	values []mv
	// undefined marks undefined breakpoints; nil when every breakpoint is
	// defined.
	undefined []bool
	// pad makes a block 256 bytes, so that allocations are aligned and
	// the hot fields above share the first cache line.
	_ [256 - 208]byte
}

func (b *block) defined(i int) bool { return b.undefined == nil || !b.undefined[i] }

func (b *block) nDef() int { return len(b.times) - b.undefinedCount }

// plain reports whether no breakpoint of the block has extended types, so
// that lo and hi bound every component.
func (b *block) plain() bool { return !b.hasExtras }

// value returns the effective value of defined breakpoint i.
func (b *block) value(i int) berth.Resource {
	r := berth.Resource{Memory: b.values[i].m + b.lazy.m, VCores: b.values[i].v + b.lazy.v}
	if !b.plain() {
		if b.extras != nil {
			r = r.Add(b.extras[i])
		}
		r = r.Add(b.lazyExtras)
	}
	return r
}

// at returns breakpoint i with its effective value.
func (b *block) at(i int) Breakpoint {
	if !b.defined(i) {
		return Breakpoint{Time: b.times[i], Undefined: true}
	}
	return Breakpoint{Time: b.times[i], Value: b.value(i)}
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
	if b.undefined == nil {
		for _, v := range b.values {
			lo.m, lo.v = min(lo.m, v.m), min(lo.v, v.v)
			hi.m, hi.v = max(hi.m, v.m), max(hi.v, v.v)
		}
	} else {
		for i, v := range b.values {
			if !b.undefined[i] {
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
		for i := range b.values {
			if b.defined(i) {
				b.values[i].m += b.lazy.m
				b.values[i].v += b.lazy.v
			}
		}
		if b.nDef() > 0 {
			b.lo.m, b.lo.v = b.lo.m+b.lazy.m, b.lo.v+b.lazy.v
			b.hi.m, b.hi.v = b.hi.m+b.lazy.m, b.hi.v+b.lazy.v
		}
		b.lazy = mv{}
	}
	if b.lazyExtras.HasExtras() {
		b.ensureXs()
		for i := range b.extras {
			if b.defined(i) {
				b.extras[i] = b.extras[i].Add(b.lazyExtras)
			}
		}
		b.lazyExtras = berth.Resource{}
	}
}

// ensureXs allocates the extended-type slice.
func (b *block) ensureXs() {
	if b.extras == nil {
		b.extras = make([]berth.Resource, len(b.times), max(len(b.times), 4))
	}
	b.hasExtras = true
}

func (b *block) copyFor(o *owner) *block {
	nb := &block{
		own:            o,
		lazy:           b.lazy,
		undefinedCount: b.undefinedCount,
		hasExtras:      b.hasExtras,
		lo:             b.lo,
		hi:             b.hi,
		lazyExtras:     b.lazyExtras,
		times:          append(make([]berth.Time, 0, len(b.times)+8), b.times...),
		values:         append(make([]mv, 0, len(b.times)+8), b.values...),
	}
	if b.undefined != nil {
		nb.undefined = append(make([]bool, 0, len(b.times)+8), b.undefined...)
	}
	if b.extras != nil {
		nb.extras = append(make([]berth.Resource, 0, len(b.times)+8), b.extras...)
	}
	return nb
}

// store writes the value of breakpoint i (stored = value - lazy).
func (b *block) store(i int, r berth.Resource) {
	b.values[i] = mv{r.Memory - b.lazy.m, r.VCores - b.lazy.v}
	if r.HasExtras() || b.lazyExtras.HasExtras() {
		b.ensureXs()
	}
	if b.extras != nil {
		b.extras[i] = extrasOf(r).Sub(b.lazyExtras)
	}
}

// insertAt inserts p at index i; the caller keeps the tree key right.
func (b *block) insertAt(i int, p Breakpoint) {
	wasEmptyDef := b.nDef() == 0
	b.times = append(b.times, 0)
	copy(b.times[i+1:], b.times[i:])
	b.times[i] = p.Time
	b.values = append(b.values, mv{})
	copy(b.values[i+1:], b.values[i:])
	b.values[i] = mv{}
	if b.extras != nil {
		b.extras = append(b.extras, berth.Resource{})
		copy(b.extras[i+1:], b.extras[i:])
		b.extras[i] = berth.Resource{}
	}
	if b.undefined != nil || p.Undefined {
		if b.undefined == nil {
			b.undefined = make([]bool, len(b.times)-1, cap(b.times))
		}
		b.undefined = append(b.undefined, false)
		copy(b.undefined[i+1:], b.undefined[i:])
		b.undefined[i] = p.Undefined
	}
	if p.Undefined {
		b.undefinedCount++
		return
	}
	b.store(i, p.Value)
	v := b.values[i]
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
	b.times = append(b.times, 0)
	copy(b.times[i+2:], b.times[i+1:])
	b.times[i+1] = t
	b.values = append(b.values, mv{})
	copy(b.values[i+2:], b.values[i+1:])
	b.values[i+1] = b.values[i]
	if b.extras != nil {
		b.extras = append(b.extras, berth.Resource{})
		copy(b.extras[i+2:], b.extras[i+1:])
		b.extras[i+1] = b.extras[i]
	}
	if b.undefined != nil {
		b.undefined = append(b.undefined, false)
		copy(b.undefined[i+2:], b.undefined[i+1:])
		b.undefined[i+1] = b.undefined[i]
		if b.undefined[i] {
			b.undefinedCount++
		}
	}
}

// setAt replaces the value of breakpoint i.
func (b *block) setAt(i int, p Breakpoint) {
	was := b.defined(i)
	switch {
	case p.Undefined && was:
		if b.undefined == nil {
			b.undefined = make([]bool, len(b.times), cap(b.times))
		}
		b.undefined[i] = true
		b.undefinedCount++
		b.values[i] = mv{}
		if b.extras != nil {
			b.extras[i] = berth.Resource{}
		}
	case !p.Undefined && !was:
		b.undefined[i] = false
		b.undefinedCount--
		if b.undefinedCount == 0 {
			b.undefined = nil
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
	keep := def && ((i > 0 && b.defined(i-1) && b.values[i-1] == b.values[i]) ||
		(i+1 < len(b.times) && b.defined(i+1) && b.values[i+1] == b.values[i]))
	b.times = append(b.times[:i], b.times[i+1:]...)
	b.values = append(b.values[:i], b.values[i+1:]...)
	if b.extras != nil {
		b.extras = append(b.extras[:i], b.extras[i+1:]...)
	}
	if b.undefined != nil {
		b.undefined = append(b.undefined[:i], b.undefined[i+1:]...)
		if !def {
			b.undefinedCount--
			if b.undefinedCount == 0 {
				b.undefined = nil
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
	if b.undefined == nil && !r.HasExtras() {
		b.addToPlain(i, j, d)
		return false
	}
	if r.HasExtras() {
		b.ensureXs()
	}
	for k := i; k < j; k++ {
		if !b.defined(k) {
			touched = true
			b.undefined[k] = false
			b.undefinedCount--
			b.store(k, r)
			continue
		}
		b.values[k].m += d.m
		b.values[k].v += d.v
		if r.HasExtras() {
			b.extras[k] = b.extras[k].Add(extrasOf(r))
		}
	}
	if b.undefinedCount == 0 {
		b.undefined = nil
	}
	b.recompute()
	return touched
}

// addToPlain adds d to values[i:j] of a block with every breakpoint defined
// and keeps the bounds exact without reading outside [i, j) when it can: a
// component moving up keeps its low bound if it lies outside the range (and
// the reverse); otherwise it rebuilds them.
func (b *block) addToPlain(i, j int, d mv) {
	mid := b.values[i:j]
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
	mid := b.values[i:j]
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
	if i == 0 && j == len(b.values) {
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
