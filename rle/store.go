package rle

import (
	"math"

	"github.com/berthsched/berth"
	"github.com/google/btree"
)

// Storage layout.
//
// Breakpoints are kept in blocks of up to maxBlock consecutive breakpoints;
// the blocks live in a github.com/google/btree BTreeG keyed by the time of
// their first breakpoint. A block carries a lazy addition applied to every
// defined value it holds and the bounds of its values, so an Add or Remove
// that covers a whole block touches only its header: a mutation costs
// O(log n + B + k/B) for k breakpoints inside the interval and B the block
// size, and so does a range minimum.
//
// A mutation collects the blocks of its interval with one descent (walking
// down from the end) and reuses that list to insert the end breakpoints, to
// check (Remove), to apply the change and to restore canonical form; only a
// block split or a breakpoint before every block sends it back to the tree.
//
// Copy on write: btree's Clone shares nodes, and blocks are shared too. Each
// series owns a token; a block may be changed in place only by the series
// whose token it carries, any other series copies it first.

const (
	maxBlock   = 128 // breakpoints per block, at most (a block under a quarter of it absorbs its successor when both fit)
	buildBlock = 96  // fill level of blocks built in bulk, leaving room for inserts
	treeDegree = 16
)

// owner is the copy-on-write token of a series. It has a non-zero size so
// that every new(owner) is a distinct pointer.
type owner struct{ _ byte }

// item is one tree entry: the key is stored by value so that searches need
// no allocation.
type item struct {
	first berth.Time
	b     *block
}

func itemLess(a, b item) bool { return a.first < b.first }

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

// ---- tree-level helpers on Series ----

// maxB is the block capacity: maxBlock, or smaller in tests so that small
// series exercise splits and merges of blocks.
func (s *Series) maxB() int {
	if s.bmax > 0 {
		return s.bmax
	}
	return maxBlock
}

func (s *Series) ensure() {
	if s.tree == nil {
		s.tree = btree.NewG(treeDegree, itemLess)
	}
	if s.own == nil {
		s.own = new(owner)
	}
}

// writable returns a block of it that s may change in place.
func (s *Series) writable(it item) *block {
	if it.b.own == s.own {
		return it.b
	}
	nb := it.b.copyFor(s.own)
	s.tree.ReplaceOrInsert(item{first: it.first, b: nb})
	return nb
}

// floorItem returns the block whose first breakpoint is the greatest ≤ t.
func (s *Series) floorItem(t berth.Time) (item, bool) {
	if s.tree == nil {
		return item{}, false
	}
	var out item
	found := false
	s.tree.DescendLessOrEqual(item{first: t}, func(it item) bool {
		out, found = it, true
		return false
	})
	return out, found
}

// startItem returns the block holding the breakpoint in force at t, or the
// first block when t precedes every breakpoint.
func (s *Series) startItem(t berth.Time) (item, bool) {
	if it, ok := s.floorItem(t); ok {
		return it, true
	}
	if s.tree == nil {
		return item{}, false
	}
	return s.tree.Min()
}

// locate returns the block and index of the greatest breakpoint ≤ t.
func (s *Series) locate(t berth.Time) (item, int, bool) {
	it, ok := s.floorItem(t)
	if !ok {
		return item{}, 0, false
	}
	return it, upper(it.b.ts, t) - 1, true
}

// lookup returns the value in force at t; ok is false where undefined.
func (s *Series) lookup(t berth.Time) (berth.Resource, bool) {
	it, i, ok := s.locate(t)
	if !ok {
		return berth.Resource{}, true
	}
	b := it.b
	if !b.defined(i) {
		return berth.Resource{}, false
	}
	return b.value(i), true
}

// before returns the breakpoint value in force just before t (the default,
// zero, when none).
func (s *Series) before(t berth.Time) Breakpoint {
	if t == berth.MinTime {
		return Breakpoint{Time: t}
	}
	it, i, ok := s.locate(t - 1)
	if !ok {
		return Breakpoint{Time: t}
	}
	return it.b.at(i)
}

// get returns the breakpoint at exactly t.
func (s *Series) get(t berth.Time) (Breakpoint, bool) {
	it, i, ok := s.locate(t)
	if !ok || it.b.ts[i] != t {
		return Breakpoint{}, false
	}
	return it.b.at(i), true
}

// ensureBreak makes sure a breakpoint exists at t, inserting one with the
// value in force there; it reports whether one existed.
func (s *Series) ensureBreak(t berth.Time) bool {
	s.ensure()
	it, ok := s.floorItem(t)
	if !ok {
		s.insert(Breakpoint{Time: t})
		return false
	}
	b := it.b
	i := upper(b.ts, t) - 1
	if b.ts[i] == t {
		return true
	}
	p := b.at(i)
	p.Time = t
	s.insertInto(it, i+1, p)
	return false
}

// fix drops the breakpoint at t if it repeats the value before it.
func (s *Series) fix(t berth.Time) {
	it, i, ok := s.locate(t)
	if !ok || it.b.ts[i] != t {
		return
	}
	p := it.b.at(i)
	var prev Breakpoint
	if i > 0 {
		prev = it.b.at(i - 1)
	} else {
		prev = s.before(t)
	}
	if p.same(prev) {
		s.delAt(it, i)
	}
}

// set inserts or replaces the breakpoint at p.Time.
func (s *Series) set(p Breakpoint) {
	s.ensure()
	it, ok := s.floorItem(p.Time)
	if ok {
		if i := upper(it.b.ts, p.Time) - 1; it.b.ts[i] == p.Time {
			s.writable(it).setAt(i, p)
			return
		}
	}
	s.insert(p)
}

// insert adds a breakpoint at a time that has none.
func (s *Series) insert(p Breakpoint) {
	s.ensure()
	it, ok := s.floorItem(p.Time)
	if !ok {
		it, ok = s.tree.Min()
		if !ok {
			nb := &block{own: s.own, ts: make([]berth.Time, 0, 4), vs: make([]mv, 0, 4)}
			nb.insertAt(0, p)
			s.tree.ReplaceOrInsert(item{first: p.Time, b: nb})
			s.n++
			return
		}
		s.insertInto(it, 0, p)
		return
	}
	s.insertInto(it, upper(it.b.ts, p.Time), p)
}

// insertInto inserts p at index i of the block of it.
func (s *Series) insertInto(it item, i int, p Breakpoint) {
	b := s.writable(it)
	if len(b.ts) >= s.maxB() {
		nb := s.split(b)
		if i > len(b.ts) {
			i -= len(b.ts)
			b = nb
		}
	}
	oldFirst := b.ts[0]
	b.insertAt(i, p)
	if i == 0 {
		s.tree.Delete(item{first: oldFirst})
		s.tree.ReplaceOrInsert(item{first: p.Time, b: b})
	}
	s.n++
}

// split moves the upper half of the owned block b into a new block.
func (s *Series) split(b *block) *block {
	h := len(b.ts) / 2
	nb := &block{
		own:   s.own,
		ts:    append(make([]berth.Time, 0, maxBlock), b.ts[h:]...),
		vs:    append(make([]mv, 0, maxBlock), b.vs[h:]...),
		lazy:  b.lazy,
		xlazy: b.xlazy,
		x:     b.x,
	}
	if b.xs != nil {
		nb.xs = append(make([]berth.Resource, 0, maxBlock), b.xs[h:]...)
		b.xs = b.xs[:h]
	}
	if b.un != nil {
		nb.un = append(make([]bool, 0, maxBlock), b.un[h:]...)
		for _, u := range nb.un {
			if u {
				nb.nUn++
			}
		}
		if nb.nUn == 0 {
			nb.un = nil
		}
		b.un = b.un[:h]
		b.nUn -= nb.nUn
		if b.nUn == 0 {
			b.un = nil
		}
	}
	b.ts = b.ts[:h]
	b.vs = b.vs[:h]
	b.recompute()
	nb.recompute()
	s.tree.ReplaceOrInsert(item{first: nb.ts[0], b: nb})
	return nb
}

// del removes the breakpoint at t, if any.
func (s *Series) del(t berth.Time) {
	it, i, ok := s.locate(t)
	if !ok || it.b.ts[i] != t {
		return
	}
	s.delAt(it, i)
}

// delAt removes breakpoint i of the block of it.
func (s *Series) delAt(it item, i int) { s.delAtHint(it, i, -1) }

// delAtHint is delAt knowing the successor's length (-1 if unknown), which
// spares looking the successor up when the two could not merge anyway.
func (s *Series) delAtHint(it item, i, nextLen int) {
	b := s.writable(it)
	b.removeAt(i)
	s.n--
	if len(b.ts) == 0 {
		s.tree.Delete(item{first: it.first})
		return
	}
	if i == 0 {
		s.tree.Delete(item{first: it.first})
		s.tree.ReplaceOrInsert(item{first: b.ts[0], b: b})
	}
	if len(b.ts) < s.maxB()/4 && (nextLen < 0 || len(b.ts)+nextLen <= s.maxB()) {
		s.absorbNext(b)
	}
}

// absorbNext merges the successor of the owned block b into it when both fit.
func (s *Series) absorbNext(b *block) {
	var next item
	found := false
	s.tree.AscendGreaterOrEqual(item{first: b.ts[0]}, func(it item) bool {
		if it.first == b.ts[0] {
			return true
		}
		next, found = it, true
		return false
	})
	if !found || len(b.ts)+len(next.b.ts) > s.maxB() {
		return
	}
	o := next.b
	b.pushdown()
	for i := range o.ts {
		b.insertAt(len(b.ts), o.at(i))
	}
	s.tree.Delete(item{first: next.first})
}

// collect gathers into s.scratch the consecutive blocks from the one in
// force at from (or the first) to the one in force at to, inclusive. It
// walks down from to, so it costs a single tree descent.
func (s *Series) collect(from, to berth.Time) []item {
	s.scratch = s.scratch[:0]
	if s.tree == nil {
		return nil
	}
	s.tree.DescendLessOrEqual(item{first: to}, func(it item) bool {
		s.scratch = append(s.scratch, it)
		return it.first > from
	})
	if len(s.scratch) == 0 {
		// every block starts after to: the first one may still be needed
		if it, ok := s.tree.Min(); ok {
			s.scratch = append(s.scratch, it)
		}
		return s.scratch
	}
	for i, j := 0, len(s.scratch)-1; i < j; i, j = i+1, j-1 {
		s.scratch[i], s.scratch[j] = s.scratch[j], s.scratch[i]
	}
	return s.scratch
}

// addRange adds r to every breakpoint with time in [from, to); undefined
// breakpoints become r. It reports whether an undefined one was touched.
func (s *Series) addRange(items []item, from, to berth.Time, r berth.Resource) bool {
	touched := false
	d, x := mvOf(r), r.HasExtras()
	for k, it := range items {
		// A block followed by one starting at or before to lies inside
		// [from, to) when it starts at or after from: no need to read it.
		if it.first >= from && k+1 < len(items) && items[k+1].first <= to && it.b.nUn == 0 {
			b := s.writable(it)
			items[k].b = b
			b.lazy.m += d.m
			b.lazy.v += d.v
			if x {
				b.xlazy = b.xlazy.Add(extrasOf(r))
				b.x = true
			}
			continue
		}
		i, j := 0, len(it.b.ts)
		if it.first < from {
			i = lower(it.b.ts, from)
		}
		if it.b.ts[j-1] >= to {
			j = lower(it.b.ts, to)
		}
		if i >= j {
			continue
		}
		b := s.writable(it)
		items[k].b = b
		if b.addTo(i, j, r) {
			touched = true
		}
	}
	return touched
}

// scan visits, in time order, the values in force over [from, to): first the
// one in force at from (reported at time from; the default zero when no
// breakpoint precedes), then every breakpoint inside. skip may dismiss a
// whole block (all of whose breakpoints lie inside) from its header; visit
// returns false to stop.
func (s *Series) scan(from, to berth.Time, skip func(b *block) bool, visit func(p Breakpoint) bool) {
	s.scanBlocks(from, to, func() bool { return visit(Breakpoint{Time: from}) }, skip,
		func(b *block, i, j int) bool {
			for k := i; k < j; k++ {
				p := b.at(k)
				if p.Time < from {
					p.Time = from
				}
				if !visit(p) {
					return false
				}
			}
			return true
		})
}

// scanBlocks is scan by runs of breakpoints: def is called first when no
// breakpoint precedes from (the default zero is in force there); whole may
// dismiss a block lying wholly inside; part gets every other run
// b.ts[i:j] of breakpoints in force somewhere in [from, to) (b.ts[i] may be
// before from). Any callback returns false to stop.
func (s *Series) scanBlocks(from, to berth.Time, def func() bool, whole func(b *block) bool, part func(b *block, i, j int) bool) {
	if from >= to {
		return
	}
	start, ok := s.startItem(from)
	if !ok || start.first > from {
		if !def() {
			return
		}
	}
	if !ok {
		return
	}
	// Blocks are handled one behind the iteration, so that the next block's
	// first time tells whether the pending one lies wholly inside.
	var pend item
	havePend, stopped := false, false
	run := func(it item) bool {
		b := it.b
		i := 0
		if it.first < from {
			i = upper(b.ts, from) - 1 // the breakpoint in force at from
		}
		j := len(b.ts)
		if b.ts[j-1] >= to {
			j = lower(b.ts, to)
		}
		return i >= j || part(b, i, j)
	}
	s.tree.AscendGreaterOrEqual(start, func(it item) bool {
		if havePend {
			if pend.first >= from && it.first <= to && whole != nil && whole(pend.b) {
				// dismissed whole
			} else if !run(pend) {
				stopped = true
				return false
			}
		}
		if it.first >= to {
			havePend = false
			return false
		}
		pend, havePend = it, true
		return true
	})
	if havePend && !stopped {
		run(pend)
	}
}

// ---- range mutation on collected blocks ----

// floorIn returns the index in items of the block holding the greatest
// breakpoint ≤ t, or -1.
func floorIn(items []item, t berth.Time) int {
	if len(items) > 1 && items[0].first <= t && items[1].first > t {
		return 0
	}
	x := len(items) - 1
	for x >= 0 && items[x].first > t {
		x--
	}
	return x
}

// ensureIn makes sure a breakpoint exists at t, using the collected blocks
// when it can. It reports whether one existed, where it is (block x of
// items, index i), and whether items is still valid (false after a
// structural change: the caller collects again).
func (s *Series) ensureIn(items []item, t berth.Time) (had bool, x, i int, valid bool) {
	x = floorIn(items, t)
	if x < 0 {
		return s.ensureBreak(t), -1, -1, false
	}
	b := items[x].b
	i = upper(b.ts, t) - 1
	if b.ts[i] == t {
		return true, x, i, true
	}
	if len(b.ts) >= s.maxB() {
		return s.ensureBreak(t), -1, -1, false
	}
	b = s.writable(items[x])
	items[x].b = b
	b.insertDup(i, t)
	s.n++
	return false, x, i + 1, true
}

// fixIn drops the breakpoint at t, which is breakpoint i of block x of the
// collected blocks, if it repeats the value before it.
func (s *Series) fixIn(items []item, x, i int, t berth.Time) {
	if x < 0 || x >= len(items) || i >= len(items[x].b.ts) || items[x].b.ts[i] != t {
		s.fix(t)
		return
	}
	b := items[x].b
	if i > 0 && b.un == nil && b.plain() {
		// same block, memory and vcores only: compare the stored values
		if b.vs[i] == b.vs[i-1] {
			next := -1
			if x+1 < len(items) {
				next = len(items[x+1].b.ts)
			}
			s.delAtHint(items[x], i, next)
		}
		return
	}
	var prev Breakpoint
	switch {
	case i > 0:
		prev = b.at(i - 1)
	case x > 0:
		pb := items[x-1].b
		prev = pb.at(len(pb.ts) - 1)
	default:
		prev = s.before(t)
	}
	if b.at(i).same(prev) {
		next := -1
		if x+1 < len(items) {
			next = len(items[x+1].b.ts)
		}
		s.delAtHint(items[x], i, next)
	}
}

// shortAt finds the first breakpoint in [i, j) of b that r does not fit in
// (undefined counts as zero).
func shortAt(b *block, i, j int, r berth.Resource) (Breakpoint, bool) {
	quick := !r.HasExtras() && b.un == nil && b.plain()
	needM, needV := r.Memory-b.lazy.m, r.VCores-b.lazy.v
	for k := i; k < j; k++ {
		if quick {
			if v := b.vs[k]; v.m >= needM && v.v >= needV {
				continue
			}
		}
		p := b.at(k)
		if p.Undefined || !r.FitsIn(p.Value) {
			return p, true
		}
	}
	return Breakpoint{}, false
}

// removeRange subtracts r from every breakpoint with time in [from, to) after
// checking, block by block, that r fits; on the first shortfall it puts back
// what it took and reports the breakpoint. Blocks are visited once.
func (s *Series) removeRange(items []item, from, to berth.Time, r berth.Resource) (Breakpoint, bool) {
	d, x := mvOf(r), r.HasExtras()
	neg := r.Neg()
	for k, it := range items {
		i, j := 0, len(it.b.ts)
		whole := it.first >= from && k+1 < len(items) && items[k+1].first <= to && it.b.nUn == 0
		if whole && it.b.plain() && !x && it.b.lo.m+it.b.lazy.m >= d.m && it.b.lo.v+it.b.lazy.v >= d.v {
			b := s.writable(it)
			items[k].b = b
			b.lazy.m -= d.m
			b.lazy.v -= d.v
			continue
		}
		if it.first < from {
			i = lower(it.b.ts, from)
		}
		if it.b.ts[j-1] >= to {
			j = lower(it.b.ts, to)
		}
		if i >= j {
			continue
		}
		if !x && it.b.un == nil && it.b.plain() {
			// check and subtract in one pass
			b := s.writable(it)
			items[k].b = b
			if at := b.subPlain(i, j, d); at >= 0 {
				s.addRange(items[:k], from, to, r) // undo
				return b.at(at), true
			}
			continue
		}
		if p, short := shortAt(it.b, i, j, r); short {
			s.addRange(items[:k], from, to, r) // undo
			return p, true
		}
		b := s.writable(it)
		items[k].b = b
		b.addTo(i, j, neg)
	}
	return Breakpoint{}, false
}

// applyRange adds d over iv, or removes r = -d when remove is set after
// checking that it is present (on failure nothing changes), and restores
// canonical form. The blocks are collected once and reused throughout.
func (s *Series) applyRange(iv berth.Interval, d berth.Resource, remove bool) *RemoveError {
	s.ensure()
	items := s.collect(iv.Start, iv.End)
	hadEnd, xe, ie, valid := s.ensureIn(items, iv.End)
	if !valid {
		items = s.collect(iv.Start, iv.End)
		xe = -1
	}
	hadStart, xs, is, valid := s.ensureIn(items, iv.Start)
	if !valid {
		items = s.collect(iv.Start, iv.End)
		xe, xs = -1, -1
	} else if xs == xe && !hadStart {
		ie++ // the start went in before the end, in the same block
	}
	touched := false
	if remove {
		r := d.Neg()
		if p, short := s.removeRange(items, iv.Start, iv.End, r); short {
			// the inserted ends repeat their neighbours: take them out again
			if !hadEnd {
				s.del(iv.End)
			}
			if !hadStart {
				s.del(iv.Start)
			}
			return &RemoveError{Time: max(p.Time, iv.Start), Present: p.Value, Requested: r}
		}
	} else {
		touched = s.addRange(items, iv.Start, iv.End, d)
	}
	if touched {
		s.canonicalize(iv.Start, iv.End)
		if hadEnd {
			s.fix(iv.End)
		}
		if hadStart {
			s.fix(iv.Start)
		}
		return nil
	}
	if hadEnd {
		s.fixIn(items, xe, ie, iv.End)
	}
	if hadStart {
		s.fixIn(items, xs, is, iv.Start)
	}
	return nil
}
