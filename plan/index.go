package plan

import "github.com/berthsched/berth"

// ivKey orders the interval index: by start, end, then id, so keys are
// unique and iteration is deterministic.
type ivKey struct {
	start, end berth.Time
	id         ReservationID
}

func (k ivKey) compare(o ivKey) int {
	if c := (berth.Interval{Start: k.start, End: k.end}).Compare(berth.Interval{Start: o.start, End: o.end}); c != 0 {
		return c
	}
	return k.id.Compare(o.id)
}

// tnode is a node of a persistent treap keyed by ivKey and augmented with
// the largest end in its subtree: an interval tree whose updates copy only
// the O(log n) nodes on a path, so an old root stays a valid, unchanged
// index (states of the plan share everything else). Priorities come from a
// hash of the id, so the shape is deterministic.
type tnode struct {
	key         ivKey
	a           *Allocation
	prio        uint64
	maxEnd      berth.Time
	left, right *tnode
}

// splitmix64 hashes an id into a treap priority.
func idPriority(id ReservationID) uint64 {
	z := uint64(id.ClusterTimestamp)*0x9e3779b97f4a7c15 ^ uint64(id.Sequence)
	z += 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

func (n *tnode) fix() *tnode {
	n.maxEnd = n.key.end
	if n.left != nil && n.left.maxEnd > n.maxEnd {
		n.maxEnd = n.left.maxEnd
	}
	if n.right != nil && n.right.maxEnd > n.maxEnd {
		n.maxEnd = n.right.maxEnd
	}
	return n
}

func (n *tnode) copy() *tnode { c := *n; return &c }

// split divides t into keys < k and keys ≥ k, copying the path.
func split(t *tnode, k ivKey) (l, r *tnode) {
	if t == nil {
		return nil, nil
	}
	c := t.copy()
	if c.key.compare(k) < 0 {
		c.right, r = split(c.right, k)
		return c.fix(), r
	}
	l, c.left = split(c.left, k)
	return l, c.fix()
}

// join concatenates l and r, every key of l below every key of r.
func join(l, r *tnode) *tnode {
	switch {
	case l == nil:
		return r
	case r == nil:
		return l
	case l.prio >= r.prio:
		c := l.copy()
		c.right = join(c.right, r)
		return c.fix()
	default:
		c := r.copy()
		c.left = join(l, c.left)
		return c.fix()
	}
}

// treapInsert returns t with (k, a) added; k must be absent.
func treapInsert(t *tnode, k ivKey, a *Allocation) *tnode {
	n := &tnode{key: k, a: a, prio: idPriority(k.id)}
	n.fix()
	return insertNode(t, n)
}

func insertNode(t, n *tnode) *tnode {
	if t == nil {
		return n
	}
	if n.prio > t.prio {
		n.left, n.right = split(t, n.key)
		return n.fix()
	}
	c := t.copy()
	if n.key.compare(c.key) < 0 {
		c.left = insertNode(c.left, n)
	} else {
		c.right = insertNode(c.right, n)
	}
	return c.fix()
}

// treapDelete returns t without key k (t itself when k is absent).
func treapDelete(t *tnode, k ivKey) *tnode {
	if t == nil {
		return nil
	}
	switch c := k.compare(t.key); {
	case c == 0:
		return join(t.left, t.right)
	case c < 0:
		l := treapDelete(t.left, k)
		if l == t.left {
			return t
		}
		n := t.copy()
		n.left = l
		return n.fix()
	default:
		r := treapDelete(t.right, k)
		if r == t.right {
			return t
		}
		n := t.copy()
		n.right = r
		return n.fix()
	}
}

// overlapping visits, in key order, the allocations with start ≤ e and
// end > s (YARN's getReservations test: closed at e). It prunes subtrees
// whose largest end is ≤ s and those starting after e, so a query costs
// O((1 + k) log n) for k answers. visit returns false to stop.
func overlapping(t *tnode, s, e berth.Time, visit func(*Allocation) bool) bool {
	if t == nil || t.maxEnd <= s {
		return true
	}
	if !overlapping(t.left, s, e, visit) {
		return false
	}
	if t.key.start > e {
		return true
	}
	if t.key.end > s && !visit(t.a) {
		return false
	}
	return overlapping(t.right, s, e, visit)
}

// treapSize counts the nodes (tests only need it; O(n)).
func treapSize(t *tnode) int {
	if t == nil {
		return 0
	}
	return 1 + treapSize(t.left) + treapSize(t.right)
}
