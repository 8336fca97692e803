package plan

import (
	"slices"

	"github.com/berthsched/berth"
)

// periodicIndex finds the periodic reservations a window meets without
// walking them all. Reservations are grouped by period; in each group an
// interval treap holds each reservation's arc of one period, keyed by
// [phase, phase + length) with phase = Start mod period and length =
// (End − Start) mod period, the two quantities YARN's overlap test uses. A
// window shorter than the period is an arc too, and two arcs meet when one
// of three shifted copies of the window (by −period, 0, +period) meets the
// arc as an interval, which the treap answers in O(log n + k). The treap is
// also augmented with the smallest Start, for YARN's "starts no later than
// the window end" condition.
type periodicIndex struct {
	groups []periodGroup // by period
}

type periodGroup struct {
	period berth.Duration
	n      int
	root   *tnode
}

// arcKey is a's key in its period's treap.
func arcKey(a *Allocation) ivKey {
	x := floorMod(a.Start, a.Period())
	return ivKey{start: x, end: x + arcLen(a), id: a.ID}
}

// arcLen is the part of a period a periodic reservation spans: (End −
// Start) mod period as YARN computes it, except that a reservation
// spanning a whole period or more spans it all (YARN's modulo gives 0 and
// lists such a reservation only for windows that wrap over its start).
func arcLen(a *Allocation) berth.Duration {
	p := a.Period()
	if d := a.End - a.Start; d >= p || d < 0 && a.End > a.Start { // d < 0: overflow
		return p
	}
	return floorMod(floorMod(a.End, p)-floorMod(a.Start, p), p)
}

func (x *periodicIndex) find(p berth.Duration) (int, bool) {
	return slices.BinarySearchFunc(x.groups, p, func(g periodGroup, p berth.Duration) int { return cmpInt(g.period, p) })
}

func (x *periodicIndex) insert(a *Allocation, o *owner) {
	i, ok := x.find(a.Period())
	if !ok {
		x.groups = slices.Insert(x.groups, i, periodGroup{period: a.Period()})
	}
	g := &x.groups[i]
	g.root = treapInsert(g.root, arcKey(a), a, o)
	g.n++
}

// delete removes a and reports whether it was there.
func (x *periodicIndex) delete(a *Allocation, o *owner) bool {
	i, ok := x.find(a.Period())
	if !ok {
		return false
	}
	g := &x.groups[i]
	if g.root, ok = treapDelete(g.root, arcKey(a), o); !ok {
		return false
	}
	if g.n--; g.n == 0 {
		x.groups = slices.Delete(x.groups, i, i+1)
	}
	return true
}

// copyWith returns a copy whose trees are tree(root) (shared or copied).
func (x periodicIndex) copyWith(tree func(*tnode) *tnode) periodicIndex {
	if len(x.groups) == 0 {
		return periodicIndex{}
	}
	out := periodicIndex{groups: slices.Clone(x.groups)}
	for i := range out.groups {
		out.groups[i].root = tree(out.groups[i].root)
	}
	return out
}

// appendMeeting appends the periodic reservations that YARN's test
// (periodicOverlaps) matches against the search window [s, e], unordered
// and possibly twice.
func (x *periodicIndex) appendMeeting(out []*Allocation, s, e berth.Time) []*Allocation {
	for _, g := range x.groups {
		p := g.period
		d := e - s
		switch {
		case e < s: // an inverted window, rare: YARN's test on each
			out = appendIf(out, g.root, func(a *Allocation) bool { return a.Start <= e && periodicOverlaps(a, s, e) })
			continue
		case d < 0 || d > p: // longer than a period (d < 0: overflow)
			out = appendArcs(out, g.root, berth.MinTime, berth.MaxTime, e)
			continue
		case d == p:
			// Both ends have the same phase: YARN's test reads it as the
			// single point s.
			d = 0
		}
		ws := floorMod(s, p)
		for _, k := range [3]berth.Duration{-p, 0, p} {
			out = appendArcs(out, g.root, ws+k, ws+d+k, e)
		}
	}
	return out
}

// appendArcs appends the allocations whose arc [start, end) meets the
// closed [s, e] (start ≤ e, end > s) and that start by last.
func appendArcs(out []*Allocation, t *tnode, s, e, last berth.Time) []*Allocation {
	for t != nil && t.maxEnd > s && t.minStart <= last {
		out = appendArcs(out, t.left, s, e, last)
		if t.key.start > e {
			return out
		}
		if t.key.end > s && t.a.Start <= last {
			out = append(out, t.a)
		}
		t = t.right
	}
	return out
}

// appendIf appends the allocations of t that keep accepts (O(n)).
func appendIf(out []*Allocation, t *tnode, keep func(*Allocation) bool) []*Allocation {
	if t == nil {
		return out
	}
	out = appendIf(out, t.left, keep)
	if keep(t.a) {
		out = append(out, t.a)
	}
	return appendIf(out, t.right, keep)
}
