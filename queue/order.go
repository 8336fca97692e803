package queue

import "github.com/google/btree"

// Order keeps a set of items sorted by a key that the owner computes, so a
// scheduler walks its applications or child queues in policy order without
// sorting them on every heartbeat: inserting, removing or re-keying an item
// costs O(log n), walking costs O(1) per item visited.
//
// The owner computes each item's key from the item's state (usage, demand,
// weight, …) and must call [Order.Rekey] whenever any input of the key may
// have changed: the Order keeps the key it was given, which is what lets it
// find the item again. Keys are compared by the function given to
// [NewOrder], which must be a strict weak order; items whose keys compare
// equal are kept in insertion order (a sequence number breaks the tie), so a
// policy whose comparator is total — as YARN's are, ending on a unique name —
// gets exactly the order a sort would give.
//
// Order is the building block for pluggable ordering policies: a policy
// supplies the key and the comparison; the scheduler notifies the key's
// changes. It is not safe for concurrent use; schedulers hold their lock.
type Order[K, V any] struct {
	cmp func(a, b *K) int
	// Small sets live in a sorted slice (a binary search and a short
	// memmove per change beat a btree's pointer chasing there); a set that
	// grows past smallOrder moves to the btree for good.
	small []*OrderEntry[K, V]
	limit int // smallOrder; tests lower it
	tree  *btree.BTreeG[*OrderEntry[K, V]]
	seq   uint64
	tmp   K // Rekey's new key: comparing it through a pointer to a local would allocate
}

// OrderEntry is one item's place in an Order. The owner embeds or keeps one
// per item and passes it to the Order's methods; an entry belongs to at most
// one Order at a time.
type OrderEntry[K, V any] struct {
	// Value is the item the entry stands for, returned by the walks.
	Value V
	key   K
	seq   uint64
	idx   int // position in the sorted slice (small sets)
	in    *Order[K, V]
}

// Key returns the key the entry was last inserted or re-keyed with.
func (e *OrderEntry[K, V]) Key() K { return e.key }

// In reports whether the entry is in o.
func (e *OrderEntry[K, V]) In(o *Order[K, V]) bool { return e.in == o && o != nil }

// Member returns the Order holding the entry, or nil.
func (e *OrderEntry[K, V]) Member() *Order[K, V] { return e.in }

// orderDegree is the btree's degree: small nodes suit the short keys and
// the frequent re-keying.
const orderDegree = 16

// smallOrder is the largest set kept in a sorted slice: its memmove per
// change (at most 1 KiB) is bounded by it, so changes stay O(log n)
// comparisons plus a bounded copy. Below it the slice is faster than the
// btree; measured on the schedulers' re-keying.
const smallOrder = 128

// NewOrder returns an empty Order comparing keys with cmp (negative: a
// first); keys are passed by pointer so large keys are not copied.
func NewOrder[K, V any](cmp func(a, b *K) int) *Order[K, V] {
	return &Order[K, V]{cmp: cmp, limit: smallOrder}
}

func (o *Order[K, V]) less(a, b *OrderEntry[K, V]) bool {
	if c := o.cmp(&a.key, &b.key); c != 0 {
		return c < 0
	}
	return a.seq < b.seq
}

// Len returns the number of items.
func (o *Order[K, V]) Len() int {
	if o.tree != nil {
		return o.tree.Len()
	}
	return len(o.small)
}

// search returns the first position in small[lo:hi] whose entry is not
// before e.
func (o *Order[K, V]) search(e *OrderEntry[K, V], lo, hi int) int {
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if o.less(o.small[m], e) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// reindex records the positions of small[lo:hi].
func (o *Order[K, V]) reindex(lo, hi int) {
	for i := lo; i < hi; i++ {
		o.small[i].idx = i
	}
}

// add puts e, whose key and sequence are set, in place.
func (o *Order[K, V]) add(e *OrderEntry[K, V]) {
	if o.tree == nil && len(o.small) >= o.limit {
		o.tree = btree.NewG(orderDegree, o.less)
		for _, x := range o.small {
			o.tree.ReplaceOrInsert(x)
		}
		o.small = nil
	}
	if o.tree != nil {
		o.tree.ReplaceOrInsert(e)
		return
	}
	i := o.search(e, 0, len(o.small))
	o.small = append(o.small, nil)
	copy(o.small[i+1:], o.small[i:])
	o.small[i] = e
	o.reindex(i, len(o.small))
}

// del takes e, with the key it was added with, out of place.
func (o *Order[K, V]) del(e *OrderEntry[K, V]) {
	if o.tree != nil {
		o.tree.Delete(e)
		return
	}
	i := e.idx
	o.small = append(o.small[:i], o.small[i+1:]...)
	o.reindex(i, len(o.small))
}

// Insert adds e with key k; an entry already in another Order is moved, one
// already in o is re-keyed.
func (o *Order[K, V]) Insert(e *OrderEntry[K, V], k K) {
	if e.in != nil {
		e.in.Remove(e)
	}
	o.seq++
	e.key, e.seq, e.in = k, o.seq, o
	o.add(e)
}

// Remove takes e out of o; it does nothing when e is not in o.
func (o *Order[K, V]) Remove(e *OrderEntry[K, V]) {
	if e.in != o {
		return
	}
	o.del(e)
	e.in = nil
}

// Rekey is the "key changed" notification: e moves to the place of key k.
// Equal keys keep e where it is (and its tie-break position).
func (o *Order[K, V]) Rekey(e *OrderEntry[K, V], k K) {
	if e.in != o {
		o.Insert(e, k)
		return
	}
	o.tmp = k
	same := o.cmp(&e.key, &o.tmp) == 0
	var zero K
	o.tmp = zero // hold no references
	if same {
		e.key = k
		return
	}
	if o.tree != nil {
		o.tree.Delete(e)
		e.key = k
		o.tree.ReplaceOrInsert(e)
		return
	}
	// Slice: e moves only past the entries between its old and new
	// places (none when it is still between its neighbours).
	i, n := e.idx, len(o.small)
	e.key = k
	switch {
	case i > 0 && o.less(e, o.small[i-1]):
		j := o.search(e, 0, i-1)
		copy(o.small[j+1:i+1], o.small[j:i])
		o.small[j] = e
		o.reindex(j, i+1)
	case i < n-1 && o.less(o.small[i+1], e):
		j := o.search(e, i+2, n) - 1
		copy(o.small[i:j], o.small[i+1:j+1])
		o.small[j] = e
		o.reindex(i, j+1)
	}
}

// Ascend calls f on the items in order until f returns false. f must not
// change o.
func (o *Order[K, V]) Ascend(f func(V) bool) {
	if o.tree != nil {
		o.tree.Ascend(func(e *OrderEntry[K, V]) bool { return f(e.Value) })
		return
	}
	for _, e := range o.small {
		if !f(e.Value) {
			return
		}
	}
}

// Clear removes every item.
func (o *Order[K, V]) Clear() {
	if o.tree != nil {
		o.tree.Ascend(func(e *OrderEntry[K, V]) bool {
			e.in = nil
			return true
		})
	}
	for _, e := range o.small {
		e.in = nil
	}
	o.small, o.tree = nil, nil
}
