package rle

import "github.com/berthsched/berth"

// Range mutation on the blocks a mutation collected: Add and Remove of an
// interval.

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
	i = upper(b.times, t) - 1
	if b.times[i] == t {
		return true, x, i, true
	}
	if len(b.times) >= s.maxB() {
		return s.ensureBreak(t), -1, -1, false
	}
	b = s.writable(items[x])
	items[x].b = b
	b.insertDup(i, t)
	s.length++
	return false, x, i + 1, true
}

// fixIn drops the breakpoint at t, which is breakpoint i of block x of the
// collected blocks, if it repeats the value before it.
func (s *Series) fixIn(items []item, x, i int, t berth.Time) {
	if x < 0 || x >= len(items) || i >= len(items[x].b.times) || items[x].b.times[i] != t {
		s.fix(t)
		return
	}
	b := items[x].b
	if i > 0 && b.undefined == nil && b.plain() {
		// same block, memory and vcores only: compare the stored values
		if b.values[i] == b.values[i-1] {
			next := -1
			if x+1 < len(items) {
				next = len(items[x+1].b.times)
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
		prev = pb.at(len(pb.times) - 1)
	default:
		prev = s.before(t)
	}
	if b.at(i).same(prev) {
		next := -1
		if x+1 < len(items) {
			next = len(items[x+1].b.times)
		}
		s.delAtHint(items[x], i, next)
	}
}

// shortAt finds the first breakpoint in [i, j) of b that r does not fit in
// (undefined counts as zero).
func shortAt(b *block, i, j int, r berth.Resource) (Breakpoint, bool) {
	quick := !r.HasExtras() && b.undefined == nil && b.plain()
	needM, needV := r.Memory-b.lazy.m, r.VCores-b.lazy.v
	for k := i; k < j; k++ {
		if quick {
			if v := b.values[k]; v.m >= needM && v.v >= needV {
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
		i, j := 0, len(it.b.times)
		whole := it.first >= from && k+1 < len(items) && items[k+1].first <= to && it.b.undefinedCount == 0
		if whole && it.b.plain() && !x && it.b.lo.m+it.b.lazy.m >= d.m && it.b.lo.v+it.b.lazy.v >= d.v {
			b := s.writable(it)
			items[k].b = b
			b.lazy.m -= d.m
			b.lazy.v -= d.v
			continue
		}
		if it.first < from {
			i = lower(it.b.times, from)
		}
		if it.b.times[j-1] >= to {
			j = lower(it.b.times, to)
		}
		if i >= j {
			continue
		}
		if !x && it.b.undefined == nil && it.b.plain() {
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
