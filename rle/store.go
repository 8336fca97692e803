package rle

import (
	"github.com/berthsched/berth"
	"github.com/google/btree"
)

// Storage layout.
//
// Breakpoints are kept in blocks of up to maxBlock consecutive breakpoints;
// the blocks live in a github.com/google/btree BTreeG keyed by the time of
// their first breakpoint. A block carries a lazy resource added to every
// defined value it holds, and the componentwise bounds of its values, so an
// Add or Remove that covers a whole block touches only those fields: the
// cost of a mutation is O(log n + B + k/B) for k breakpoints inside the
// interval and B the block size, and a range minimum is O(log n + B + k/B).
//
// Copy on write: btree's Clone shares nodes, and blocks are shared too. Each
// series owns a token; a block may be changed in place only by the series
// whose token it carries, any other series copies it first.

const (
	maxBlock   = 64 // breakpoints per block, at most
	minBlock   = 16 // a block smaller than this is merged with its successor when possible
	buildBlock = 48 // fill level of blocks built in bulk, leaving room for inserts
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

// block holds consecutive breakpoints. The fields an Add or a range query
// reads for a block it covers wholly (own, lazy, nUn, lo, hi) come first, so
// that they share the first cache lines.
type block struct {
	own  *owner
	lazy berth.Resource
	nUn  int
	// lo and hi bound vs componentwise over defined breakpoints (lazy not
	// included); meaningless when every breakpoint is undefined.
	lo, hi berth.Resource
	ts     []berth.Time
	// vs[i] + lazy is the value of a defined breakpoint i.
	vs []berth.Resource
	// un marks undefined breakpoints; nil when every breakpoint is defined.
	un []bool
}

func (b *block) defined(i int) bool { return b.un == nil || !b.un[i] }

func (b *block) nDef() int { return len(b.ts) - b.nUn }

// at returns breakpoint i with its effective value.
func (b *block) at(i int) Breakpoint {
	if !b.defined(i) {
		return Breakpoint{Time: b.ts[i], Undefined: true}
	}
	return Breakpoint{Time: b.ts[i], Value: b.vs[i].Add(b.lazy)}
}

// recompute rebuilds lo and hi; the memory+vcores path allocates nothing.
func (b *block) recompute() {
	ext := false
	for i := range b.vs {
		if b.vs[i].HasExtras() {
			ext = true
			break
		}
	}
	first := true
	if !ext && b.un == nil && len(b.vs) > 0 {
		v := &b.vs[0]
		loM, loV, hiM, hiV := v.Memory, v.VCores, v.Memory, v.VCores
		for k := 1; k < len(b.vs); k++ {
			v := &b.vs[k]
			loM, loV = min(loM, v.Memory), min(loV, v.VCores)
			hiM, hiV = max(hiM, v.Memory), max(hiV, v.VCores)
		}
		b.lo = berth.Resource{Memory: loM, VCores: loV}
		b.hi = berth.Resource{Memory: hiM, VCores: hiV}
		return
	}
	for i := range b.ts {
		if !b.defined(i) {
			continue
		}
		v := b.vs[i]
		if first {
			b.lo, b.hi, first = v, v, false
			continue
		}
		b.widen(v)
	}
	if first {
		b.lo, b.hi = berth.Resource{}, berth.Resource{}
	}
}

// widen extends lo and hi to include v.
func (b *block) widen(v berth.Resource) {
	if v.HasExtras() || b.lo.HasExtras() || b.hi.HasExtras() {
		b.lo = berth.ComponentwiseMin(b.lo, v)
		b.hi = berth.ComponentwiseMax(b.hi, v)
		return
	}
	b.lo.Memory = min(b.lo.Memory, v.Memory)
	b.lo.VCores = min(b.lo.VCores, v.VCores)
	b.hi.Memory = max(b.hi.Memory, v.Memory)
	b.hi.VCores = max(b.hi.VCores, v.VCores)
}

// pushdown folds lazy into the stored values.
func (b *block) pushdown() {
	if b.lazy.IsZero() {
		return
	}
	for i := range b.ts {
		if b.defined(i) {
			b.vs[i] = b.vs[i].Add(b.lazy)
		}
	}
	if b.nDef() > 0 {
		b.lo = b.lo.Add(b.lazy)
		b.hi = b.hi.Add(b.lazy)
	}
	b.lazy = berth.Resource{}
}

func (b *block) copyFor(o *owner) *block {
	nb := &block{
		own:  o,
		ts:   append(make([]berth.Time, 0, maxBlock), b.ts...),
		vs:   append(make([]berth.Resource, 0, maxBlock), b.vs...),
		nUn:  b.nUn,
		lazy: b.lazy,
		lo:   b.lo,
		hi:   b.hi,
	}
	if b.un != nil {
		nb.un = append(make([]bool, 0, maxBlock), b.un...)
	}
	return nb
}

// insertAt inserts p at index i; the caller keeps the tree key right.
func (b *block) insertAt(i int, p Breakpoint) {
	wasEmptyDef := b.nDef() == 0
	b.ts = append(b.ts, 0)
	copy(b.ts[i+1:], b.ts[i:])
	b.ts[i] = p.Time
	b.vs = append(b.vs, berth.Resource{})
	copy(b.vs[i+1:], b.vs[i:])
	if b.un != nil || p.Undefined {
		if b.un == nil {
			b.un = make([]bool, len(b.ts)-1, maxBlock)
		}
		b.un = append(b.un, false)
		copy(b.un[i+1:], b.un[i:])
		b.un[i] = p.Undefined
	}
	if p.Undefined {
		b.vs[i] = berth.Resource{}
		b.nUn++
		return
	}
	v := p.Value.Sub(b.lazy)
	b.vs[i] = v
	if wasEmptyDef {
		b.lo, b.hi = v, v
	} else {
		b.widen(v)
	}
}

// setAt replaces the value of breakpoint i.
func (b *block) setAt(i int, p Breakpoint) {
	was := b.defined(i)
	switch {
	case p.Undefined && was:
		if b.un == nil {
			b.un = make([]bool, len(b.ts), maxBlock)
		}
		b.un[i] = true
		b.nUn++
		b.vs[i] = berth.Resource{}
	case !p.Undefined && !was:
		b.un[i] = false
		b.nUn--
		if b.nUn == 0 {
			b.un = nil
		}
		b.vs[i] = p.Value.Sub(b.lazy)
	case !p.Undefined:
		b.vs[i] = p.Value.Sub(b.lazy)
	}
	b.recompute()
}

func (b *block) removeAt(i int) {
	def := b.defined(i)
	b.ts = append(b.ts[:i], b.ts[i+1:]...)
	b.vs = append(b.vs[:i], b.vs[i+1:]...)
	if b.un != nil {
		b.un = append(b.un[:i], b.un[i+1:]...)
		if !def {
			b.nUn--
			if b.nUn == 0 {
				b.un = nil
			}
		}
	}
	if def {
		b.recompute()
	}
}

// upper returns the number of times in ts that are ≤ t.
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
	return b.vs[i].Add(b.lazy), true
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
			nb := &block{own: s.own, ts: make([]berth.Time, 0, 4), vs: make([]berth.Resource, 0, 4)}
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
	if len(b.ts) >= maxBlock {
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
		own:  s.own,
		ts:   append(make([]berth.Time, 0, maxBlock), b.ts[h:]...),
		vs:   append(make([]berth.Resource, 0, maxBlock), b.vs[h:]...),
		lazy: b.lazy,
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
func (s *Series) delAt(it item, i int) {
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
	if len(b.ts) < minBlock {
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
	if !found || len(b.ts)+len(next.b.ts) > maxBlock {
		return
	}
	o := next.b
	b.pushdown()
	lazy := o.lazy
	for i := range o.ts {
		p := Breakpoint{Time: o.ts[i], Undefined: !o.defined(i)}
		if !p.Undefined {
			p.Value = o.vs[i].Add(lazy)
		}
		b.insertAt(len(b.ts), p)
	}
	s.tree.Delete(item{first: next.first})
}

// collect appends to s.scratch the blocks that may hold breakpoints in
// [from, to) (from the block in force at from).
func (s *Series) collect(from, to berth.Time) []item {
	s.scratch = s.scratch[:0]
	start, ok := s.startItem(from)
	if !ok {
		return nil
	}
	s.tree.AscendGreaterOrEqual(start, func(it item) bool {
		if it.first >= to {
			return false
		}
		s.scratch = append(s.scratch, it)
		return true
	})
	return s.scratch
}

// addRange adds r to every breakpoint with time in [from, to); undefined
// breakpoints become r. It reports whether an undefined one was touched.
func (s *Series) addRange(from, to berth.Time, r berth.Resource) bool {
	touched := false
	items := s.collect(from, to)
	fast := !r.HasExtras()
	for x, it := range items {
		// A block followed by one starting at or before to lies inside
		// [from, to) when it starts at or after from: no need to read it.
		if it.first >= from && x+1 < len(items) && items[x+1].first <= to && it.b.nUn == 0 {
			b := s.writable(it)
			if fast && !b.lazy.HasExtras() {
				b.lazy.Memory += r.Memory
				b.lazy.VCores += r.VCores
			} else {
				b.lazy = b.lazy.Add(r)
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
		if i == 0 && j == len(b.ts) && b.nUn == 0 {
			b.lazy = b.lazy.Add(r)
			continue
		}
		for k := i; k < j; k++ {
			if b.defined(k) {
				if fast {
					b.vs[k].Memory += r.Memory
					b.vs[k].VCores += r.VCores
				} else {
					b.vs[k] = b.vs[k].Add(r)
				}
				continue
			}
			touched = true
			b.un[k] = false
			b.nUn--
			b.vs[k] = r.Sub(b.lazy)
		}
		if b.nUn == 0 {
			b.un = nil
		}
		b.recompute()
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
