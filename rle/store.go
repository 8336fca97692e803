package rle

import (
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

// Tree-level helpers on Series: locating, inserting and deleting
// breakpoints across blocks.

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
	return it, upper(it.b.times, t) - 1, true
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
	if !ok || it.b.times[i] != t {
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
	i := upper(b.times, t) - 1
	if b.times[i] == t {
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
	if !ok || it.b.times[i] != t {
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
		if i := upper(it.b.times, p.Time) - 1; it.b.times[i] == p.Time {
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
			nb := &block{own: s.own, times: make([]berth.Time, 0, 4), values: make([]mv, 0, 4)}
			nb.insertAt(0, p)
			s.tree.ReplaceOrInsert(item{first: p.Time, b: nb})
			s.length++
			return
		}
		s.insertInto(it, 0, p)
		return
	}
	s.insertInto(it, upper(it.b.times, p.Time), p)
}

// insertInto inserts p at index i of the block of it.
func (s *Series) insertInto(it item, i int, p Breakpoint) {
	b := s.writable(it)
	if len(b.times) >= s.maxB() {
		nb := s.split(b)
		if i > len(b.times) {
			i -= len(b.times)
			b = nb
		}
	}
	oldFirst := b.times[0]
	b.insertAt(i, p)
	if i == 0 {
		s.tree.Delete(item{first: oldFirst})
		s.tree.ReplaceOrInsert(item{first: p.Time, b: b})
	}
	s.length++
}

// split moves the upper half of the owned block b into a new block.
func (s *Series) split(b *block) *block {
	h := len(b.times) / 2
	nb := &block{
		own:        s.own,
		times:      append(make([]berth.Time, 0, maxBlock), b.times[h:]...),
		values:     append(make([]mv, 0, maxBlock), b.values[h:]...),
		lazy:       b.lazy,
		lazyExtras: b.lazyExtras,
		hasExtras:  b.hasExtras,
	}
	if b.extras != nil {
		nb.extras = append(make([]berth.Resource, 0, maxBlock), b.extras[h:]...)
		b.extras = b.extras[:h]
	}
	if b.undefined != nil {
		nb.undefined = append(make([]bool, 0, maxBlock), b.undefined[h:]...)
		for _, u := range nb.undefined {
			if u {
				nb.undefinedCount++
			}
		}
		if nb.undefinedCount == 0 {
			nb.undefined = nil
		}
		b.undefined = b.undefined[:h]
		b.undefinedCount -= nb.undefinedCount
		if b.undefinedCount == 0 {
			b.undefined = nil
		}
	}
	b.times = b.times[:h]
	b.values = b.values[:h]
	b.recompute()
	nb.recompute()
	s.tree.ReplaceOrInsert(item{first: nb.times[0], b: nb})
	return nb
}

// del removes the breakpoint at t, if any.
func (s *Series) del(t berth.Time) {
	it, i, ok := s.locate(t)
	if !ok || it.b.times[i] != t {
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
	s.length--
	if len(b.times) == 0 {
		s.tree.Delete(item{first: it.first})
		return
	}
	if i == 0 {
		s.tree.Delete(item{first: it.first})
		s.tree.ReplaceOrInsert(item{first: b.times[0], b: b})
	}
	if len(b.times) < s.maxB()/4 && (nextLen < 0 || len(b.times)+nextLen <= s.maxB()) {
		s.absorbNext(b)
	}
}

// absorbNext merges the successor of the owned block b into it when both fit.
func (s *Series) absorbNext(b *block) {
	var next item
	found := false
	s.tree.AscendGreaterOrEqual(item{first: b.times[0]}, func(it item) bool {
		if it.first == b.times[0] {
			return true
		}
		next, found = it, true
		return false
	})
	if !found || len(b.times)+len(next.b.times) > s.maxB() {
		return
	}
	o := next.b
	b.pushdown()
	for i := range o.times {
		b.insertAt(len(b.times), o.at(i))
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
		if it.first >= from && k+1 < len(items) && items[k+1].first <= to && it.b.undefinedCount == 0 {
			b := s.writable(it)
			items[k].b = b
			b.lazy.m += d.m
			b.lazy.v += d.v
			if x {
				b.lazyExtras = b.lazyExtras.Add(extrasOf(r))
				b.hasExtras = true
			}
			continue
		}
		i, j := 0, len(it.b.times)
		if it.first < from {
			i = lower(it.b.times, from)
		}
		if it.b.times[j-1] >= to {
			j = lower(it.b.times, to)
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
			i = upper(b.times, from) - 1 // the breakpoint in force at from
		}
		j := len(b.times)
		if b.times[j-1] >= to {
			j = lower(b.times, to)
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
