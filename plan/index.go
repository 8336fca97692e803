package plan

import (
	"github.com/berthsched/berth"
	"github.com/google/btree"
)

// ivKey orders the interval index: by start, end, then id, so keys are
// unique and iteration is deterministic.
type ivKey struct {
	start, end berth.Time
	id         ReservationID
}

func (k ivKey) compare(o ivKey) int {
	switch {
	case k.start < o.start:
		return -1
	case k.start > o.start:
		return 1
	case k.end < o.end:
		return -1
	case k.end > o.end:
		return 1
	}
	return k.id.Compare(o.id)
}

// owner marks the nodes a state may change in place. Every state has its
// own; a snapshot gives both the source and the copy fresh owners, so the
// nodes they share belong to neither and are copied on write (the first
// change after a snapshot copies one path, later changes none). It has a
// non-zero size so that distinct owners have distinct addresses.
type owner struct{ _ byte }

// tnode is a node of a treap keyed by ivKey and augmented with the largest
// end in its subtree: an interval tree. Nodes of the state's owner are
// changed in place; others are shared with a snapshot and copied on write
// (only the O(log n) nodes on a path). Priorities come from a hash of the
// id, so the shape is deterministic: an insert undone by a delete gives the
// same tree back.
type tnode struct {
	key         ivKey
	a           *Allocation
	prio        uint64
	maxEnd      berth.Time
	minStart    berth.Time // smallest a.Start in the subtree
	own         *owner
	left, right *tnode
}

// idPriority hashes an id into a treap priority (splitmix64).
func idPriority(id ReservationID) uint64 {
	z := uint64(id.ClusterTimestamp)*0x9e3779b97f4a7c15 ^ uint64(id.Sequence)
	z += 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

func (n *tnode) fix() *tnode {
	n.maxEnd, n.minStart = n.key.end, n.a.Start
	if l := n.left; l != nil {
		n.maxEnd, n.minStart = max(n.maxEnd, l.maxEnd), min(n.minStart, l.minStart)
	}
	if r := n.right; r != nil {
		n.maxEnd, n.minStart = max(n.maxEnd, r.maxEnd), min(n.minStart, r.minStart)
	}
	return n
}

// mut returns n itself when o owns it, else an owned copy.
func (n *tnode) mut(o *owner) *tnode {
	if n.own == o {
		return n
	}
	c := *n
	c.own = o
	return &c
}

// split divides t into keys < k and keys ≥ k.
func split(t *tnode, k ivKey, o *owner) (l, r *tnode) {
	if t == nil {
		return nil, nil
	}
	c := t.mut(o)
	if c.key.compare(k) < 0 {
		c.right, r = split(c.right, k, o)
		return c.fix(), r
	}
	l, c.left = split(c.left, k, o)
	return l, c.fix()
}

// join concatenates l and r, every key of l below every key of r.
func join(l, r *tnode, o *owner) *tnode {
	switch {
	case l == nil:
		return r
	case r == nil:
		return l
	case l.prio >= r.prio:
		c := l.mut(o)
		c.right = join(c.right, r, o)
		return c.fix()
	default:
		c := r.mut(o)
		c.left = join(l, c.left, o)
		return c.fix()
	}
}

// treapInsert returns t with (k, a) added; k must be absent.
func treapInsert(t *tnode, k ivKey, a *Allocation, o *owner) *tnode {
	n := &tnode{key: k, a: a, prio: idPriority(k.id), own: o}
	n.fix()
	return insertNode(t, n, o)
}

func insertNode(t, n *tnode, o *owner) *tnode {
	if t == nil {
		return n
	}
	if n.prio > t.prio {
		n.left, n.right = split(t, n.key, o)
		return n.fix()
	}
	c := t.mut(o)
	if n.key.compare(c.key) < 0 {
		c.left = insertNode(c.left, n, o)
	} else {
		c.right = insertNode(c.right, n, o)
	}
	return c.fix()
}

// treapDelete returns t without key k and whether k was present; t itself
// is returned, untouched, when k is absent.
func treapDelete(t *tnode, k ivKey, o *owner) (*tnode, bool) {
	if t == nil {
		return nil, false
	}
	switch c := k.compare(t.key); {
	case c == 0:
		return join(t.left, t.right, o), true
	case c < 0:
		l, ok := treapDelete(t.left, k, o)
		if !ok {
			return t, false
		}
		n := t.mut(o)
		n.left = l
		return n.fix(), true
	default:
		r, ok := treapDelete(t.right, k, o)
		if !ok {
			return t, false
		}
		n := t.mut(o)
		n.right = r
		return n.fix(), true
	}
}

// treapCopy copies every node of t for owner o (O(n)): a copy that shares
// nothing, for a snapshot taken without exclusive access to the source.
func treapCopy(t *tnode, o *owner) *tnode {
	if t == nil {
		return nil
	}
	c := *t
	c.own = o
	c.left, c.right = treapCopy(t.left, o), treapCopy(t.right, o)
	return &c
}

// overlapping visits, in key order, the allocations with start ≤ e and
// end > s (YARN's getReservations test: closed at e). It prunes subtrees
// whose largest end is ≤ s and those starting after e, so a query costs
// O((1 + k) log n) for k answers. visit returns false to stop.
func overlapping(t *tnode, s, e berth.Time, visit func(*Allocation) bool) bool {
	for t != nil && t.maxEnd > s {
		if !overlapping(t.left, s, e, visit) {
			return false
		}
		if t.key.start > e {
			return true
		}
		if t.key.end > s && !visit(t.a) {
			return false
		}
		t = t.right
	}
	return true
}

// appendOverlapping appends to out, in key order, the allocations with
// start ≤ e and end > s: overlapping without the callback.
func appendOverlapping(out []*Allocation, t *tnode, s, e berth.Time) []*Allocation {
	for t != nil && t.maxEnd > s {
		out = appendOverlapping(out, t.left, s, e)
		if t.key.start > e {
			return out
		}
		if t.key.end > s {
			out = append(out, t.a)
		}
		t = t.right
	}
	return out
}

// treapSize counts the nodes (tests only need it; O(n)).
func treapSize(t *tnode) int {
	if t == nil {
		return 0
	}
	return 1 + treapSize(t.left) + treapSize(t.right)
}

// ivEntry is a non-periodic reservation under its key, for the ordered
// list of an ivIndex.
type ivEntry struct {
	k ivKey
	a *Allocation
}

func lessIv(x, y ivEntry) bool { return x.k.compare(y.k) < 0 }

// ivIndex indexes non-periodic reservations twice: a treap for the ones
// that started before a window and still run in it (a stabbing query), and
// a btree in key order for the ones starting inside it, read as one
// contiguous range (far cheaper per answer than a tree walk). Both are
// copy-on-write.
type ivIndex struct {
	root  *tnode
	byKey *btree.BTreeG[ivEntry]
}

func newIvIndex() ivIndex { return ivIndex{byKey: btree.NewG(btreeDegree, lessIv)} }

func (x *ivIndex) insert(a *Allocation, o *owner) {
	k := keyOf(a)
	x.root = treapInsert(x.root, k, a, o)
	x.byKey.ReplaceOrInsert(ivEntry{k: k, a: a})
}

// delete removes a and reports whether it was there.
func (x *ivIndex) delete(a *Allocation, o *owner) bool {
	k := keyOf(a)
	root, ok := treapDelete(x.root, k, o)
	if !ok {
		return false
	}
	x.root = root
	x.byKey.Delete(ivEntry{k: k})
	return true
}

// clone returns a copy-on-write copy (the caller holds the index
// exclusively and has given it a fresh owner).
func (x *ivIndex) clone() ivIndex { return ivIndex{root: x.root, byKey: x.byKey.Clone()} }

// copyFor returns a copy sharing nothing, for owner o, without touching x.
func (x *ivIndex) copyFor(o *owner) ivIndex {
	out := newIvIndex()
	out.root = treapCopy(x.root, o)
	x.byKey.Ascend(func(e ivEntry) bool { out.byKey.ReplaceOrInsert(e); return true })
	return out
}

// appendOverlapping appends to out, in key order, the reservations with
// start ≤ e and end > s (YARN's test, closed at e).
func (x *ivIndex) appendOverlapping(out []*Allocation, s, e berth.Time) []*Allocation {
	if s > berth.MinTime {
		// Started before s, still running at s.
		out = appendOverlapping(out, x.root, s, min(s-1, e))
	}
	if e < s || x.byKey == nil {
		return out
	}
	x.byKey.AscendGreaterOrEqual(ivEntry{k: ivKey{start: s, end: berth.MinTime}}, func(en ivEntry) bool {
		if en.k.start > e {
			return false
		}
		if en.k.end > s {
			out = append(out, en.a)
		}
		return true
	})
	return out
}
