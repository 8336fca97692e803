package plan

import (
	"github.com/berthsched/berth"
	"github.com/berthsched/berth/rle"
)

// Window integrals of a load in O(log n).
//
// A load that is a sum of steps r·[s, e) is also the running sum of its
// changes: +r at s and −r at e. Keep the changes δ_τ in a tree keyed by
// time, every subtree carrying Σδ and Σδ·τ; then the integral of the load
// from the beginning of time to x is
//
//	F(x) = Σ_{τ<x} δ_τ·(x − τ) = x·Σ_{τ<x} δ_τ − Σ_{τ<x} δ_τ·τ,
//
// two prefix sums, one descent of the tree, and the integral over [a, b) is
// F(b) − F(a). Adding or removing a step changes two keys: O(log n) too. No
// range update is needed, unlike on the run-length series.
//
// The sums are kept modulo 2¹²⁸ (rle.Int128 wraps): terms such as δ·τ
// may not fit on their own, but every integral the plan answers does
// (|load| < 2⁶³ over less than 2⁶⁴ ms), so the wrapped difference is exact.
//
// Only memory and vcores are summed. A load with extended types (counted
// by ext) is integrated from its series instead.

// inode is a node of the change tree: a treap keyed by time, priorities
// hashed from the key so that its shape depends on its keys only, nodes
// copied on write as those of the interval index (see tnode).
type inode struct {
	t           berth.Time
	dm, dv      rle.Int128 // the change at t
	pm, pv      rle.Int128 // the change times t
	sm, sv      rle.Int128 // Σδ over the subtree
	tm, tv      rle.Int128 // Σδ·τ over the subtree
	prio        uint64
	own         *owner
	left, right *inode
}

func timePriority(t berth.Time) uint64 {
	return idPriority(ReservationID{ClusterTimestamp: -1, Sequence: t})
}

func (n *inode) fix() *inode {
	n.sm, n.sv, n.tm, n.tv = n.dm, n.dv, n.pm, n.pv
	if c := n.left; c != nil {
		n.sm, n.sv, n.tm, n.tv = n.sm.Add(c.sm), n.sv.Add(c.sv), n.tm.Add(c.tm), n.tv.Add(c.tv)
	}
	if c := n.right; c != nil {
		n.sm, n.sv, n.tm, n.tv = n.sm.Add(c.sm), n.sv.Add(c.sv), n.tm.Add(c.tm), n.tv.Add(c.tv)
	}
	return n
}

func (n *inode) mut(o *owner) *inode {
	if n.own == o {
		return n
	}
	c := *n
	c.own = o
	return &c
}

func (n *inode) zero() bool { return n.dm == (rle.Int128{}) && n.dv == (rle.Int128{}) }

// newINode returns a node for the change (dm, dv) at k, sums not set.
func newINode(k berth.Time, dm, dv rle.Int128, prio uint64, o *owner) *inode {
	return &inode{t: k, dm: dm, dv: dv, pm: dm.Scale(k), pv: dv.Scale(k), prio: prio, own: o}
}

// isplit divides t into keys < k and keys ≥ k.
func isplit(t *inode, k berth.Time, o *owner) (l, r *inode) {
	if t == nil {
		return nil, nil
	}
	c := t.mut(o)
	if c.t < k {
		c.right, r = isplit(c.right, k, o)
		return c.fix(), r
	}
	l, c.left = isplit(c.left, k, o)
	return l, c.fix()
}

func ijoin(l, r *inode, o *owner) *inode {
	switch {
	case l == nil:
		return r
	case r == nil:
		return l
	case l.prio >= r.prio:
		c := l.mut(o)
		c.right = ijoin(c.right, r, o)
		return c.fix()
	default:
		c := r.mut(o)
		c.left = ijoin(l, c.left, o)
		return c.fix()
	}
}

// ichange returns t with (dm, dv) added to the change at k; a change that
// comes back to zero leaves the tree.
func ichange(t *inode, k berth.Time, dm, dv rle.Int128, o *owner) *inode {
	if t == nil {
		n := newINode(k, dm, dv, timePriority(k), o)
		if n.zero() {
			return nil
		}
		return n.fix()
	}
	if t.t == k {
		c := t.mut(o)
		c.dm, c.dv = c.dm.Add(dm), c.dv.Add(dv)
		c.pm, c.pv = c.dm.Scale(k), c.dv.Scale(k)
		if c.zero() {
			return ijoin(c.left, c.right, o)
		}
		return c.fix()
	}
	if prio := timePriority(k); prio > t.prio {
		// k is absent (it would be above t): a new node on top.
		n := newINode(k, dm, dv, prio, o)
		if n.zero() {
			return t
		}
		n.left, n.right = isplit(t, k, o)
		return n.fix()
	}
	c := t.mut(o)
	if k < c.t {
		c.left = ichange(c.left, k, dm, dv, o)
	} else {
		c.right = ichange(c.right, k, dm, dv, o)
	}
	return c.fix()
}

// prefix returns Σδ and Σδ·τ over the changes at τ < x.
func (t *inode) prefix(x berth.Time) (sm, sv, tm, tv rle.Int128) {
	for n := t; n != nil; {
		if n.t >= x {
			n = n.left
			continue
		}
		sm, sv, tm, tv = sm.Add(n.dm), sv.Add(n.dv), tm.Add(n.pm), tv.Add(n.pv)
		if l := n.left; l != nil {
			sm, sv, tm, tv = sm.Add(l.sm), sv.Add(l.sv), tm.Add(l.tm), tv.Add(l.tv)
		}
		n = n.right
	}
	return
}

// upTo returns F(x), the integral of the load from the beginning of time
// to x (memory, vcores).
func (t *inode) upTo(x berth.Time) (m, v rle.Int128) {
	sm, sv, tm, tv := t.prefix(x)
	return sm.Scale(x).Sub(tm), sv.Scale(x).Sub(tv)
}

func icopy(t *inode, o *owner) *inode {
	if t == nil {
		return nil
	}
	c := *t
	c.own = o
	c.left, c.right = icopy(t.left, o), icopy(t.right, o)
	return &c
}

func isize(t *inode) int {
	if t == nil {
		return 0
	}
	return 1 + isize(t.left) + isize(t.right)
}

// areaIndex is the change tree of a load, and how many of the steps it was
// given have extended types (those are not in the tree).
type areaIndex struct {
	root *inode
	ext  int
}

// change adds (sign 1) or removes (sign −1) the steps, which are sorted
// and disjoint (an allocation's): where one step ends as the next starts,
// the two changes are made as one.
func (x *areaIndex) change(steps []rle.Step, sign int64, o *owner) {
	var at berth.Time
	var pm, pv rle.Int128 // the change pending at at
	pending := false
	flush := func() {
		if pending && (pm != rle.Int128{} || pv != rle.Int128{}) {
			x.root = ichange(x.root, at, pm, pv, o)
		}
		pending = false
	}
	for _, st := range steps {
		r := st.Value
		if r.IsZero() || !st.Interval.Valid() {
			continue
		}
		if r.HasExtras() {
			x.ext += int(sign)
			continue
		}
		m, v := rle.Int128Of(r.Memory).Scale(sign), rle.Int128Of(r.VCores).Scale(sign)
		if pending && at == st.Interval.Start {
			pm, pv = pm.Add(m), pv.Add(v)
		} else {
			flush()
			x.root = ichange(x.root, st.Interval.Start, m, v, o)
		}
		flush()
		at, pm, pv, pending = st.Interval.End, m.Neg(), v.Neg(), true
	}
	flush()
}

// integral returns the integral over the valid window w.
func (x *areaIndex) integral(w berth.Interval) rle.Area {
	bm, bv := x.root.upTo(w.End)
	am, av := x.root.upTo(w.Start)
	return rle.Area{Memory: bm.Sub(am), VCores: bv.Sub(av)}
}

// patternIntegral is the integral over the valid window w of pattern (one
// period on [0, per)) repeated for ever: whole periods times the pattern's
// area, plus the pieces at both ends.
func patternIntegral(pattern *rle.Series, per berth.Duration, w berth.Interval) rle.Area {
	upTo := func(x berth.Time) rle.Area {
		k := floorDiv(x, per)
		a := pattern.Integral(berth.Interval{Start: 0, End: per}).Scale(k)
		return a.Add(pattern.Integral(berth.Interval{Start: 0, End: floorMod(x, per)}))
	}
	return upTo(w.End).Add(upTo(w.Start).Scale(-1))
}

// LoadIntegral returns the integral over window of what the plan (or
// user's reservations, when user is not empty) holds, periodic reservations
// included: the area under [Plan.LoadSteps], exact (see [rle.Area]). For a
// user it costs O(log n) for the user's n reservations whatever the
// window's length (a tree of the load's changes with prefix sums), plus
// O(u) for the u steps of each periodic pattern, and O(k) for the k steps
// in window when some reservation has extended resource types. For the
// whole plan it walks the k steps of its series in window (O(log n + k)):
// the sharing policies only ask per user, and a plan-wide tree cost every
// add about as much as the series itself. An empty window gives zero.
// Unlike LoadSteps it does not refuse a window spanning many periods.
func (p *Plan) LoadIntegral(window berth.Interval, user string) (rle.Area, error) {
	if window.Start > window.End {
		return rle.Area{}, berth.InvalidField("window", window, "start must not be after end")
	}
	if window.Start == window.End {
		return rle.Area{}, nil
	}
	p.mu.RLock()
	defer p.mu.RUnlock()
	total, patterns, idx := p.st.total, p.st.patterns, (*areaIndex)(nil)
	if user != "" {
		us := p.st.users[user]
		if us == nil {
			return rle.Area{}, nil
		}
		total, patterns, idx = us.total, us.patterns, &us.area
	}
	var out rle.Area
	if idx == nil || idx.ext > 0 {
		out = total.Integral(window)
	} else {
		out = idx.integral(window)
	}
	for _, per := range sortedPeriods(patterns) {
		out = out.Add(patternIntegral(patterns[per], per, window))
	}
	return out, nil
}
