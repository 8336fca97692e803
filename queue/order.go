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
	cmp  func(a, b *K) int
	tree *btree.BTreeG[*OrderEntry[K, V]]
	seq  uint64
}

// OrderEntry is one item's place in an Order. The owner embeds or keeps one
// per item and passes it to the Order's methods; an entry belongs to at most
// one Order at a time.
type OrderEntry[K, V any] struct {
	// Value is the item the entry stands for, returned by the walks.
	Value V
	key   K
	seq   uint64
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

// NewOrder returns an empty Order comparing keys with cmp (negative: a
// first); keys are passed by pointer so large keys are not copied.
func NewOrder[K, V any](cmp func(a, b *K) int) *Order[K, V] {
	o := &Order[K, V]{cmp: cmp}
	o.tree = btree.NewG(orderDegree, o.less)
	return o
}

func (o *Order[K, V]) less(a, b *OrderEntry[K, V]) bool {
	if c := o.cmp(&a.key, &b.key); c != 0 {
		return c < 0
	}
	return a.seq < b.seq
}

// Len returns the number of items.
func (o *Order[K, V]) Len() int { return o.tree.Len() }

// Insert adds e with key k; an entry already in another Order is moved, one
// already in o is re-keyed.
func (o *Order[K, V]) Insert(e *OrderEntry[K, V], k K) {
	if e.in != nil {
		e.in.Remove(e)
	}
	o.seq++
	e.key, e.seq, e.in = k, o.seq, o
	o.tree.ReplaceOrInsert(e)
}

// Remove takes e out of o; it does nothing when e is not in o.
func (o *Order[K, V]) Remove(e *OrderEntry[K, V]) {
	if e.in != o {
		return
	}
	o.tree.Delete(e)
	e.in = nil
}

// Rekey is the "key changed" notification: e moves to the place of key k.
// Equal keys keep e where it is (and its tie-break position).
func (o *Order[K, V]) Rekey(e *OrderEntry[K, V], k K) {
	if e.in != o {
		o.Insert(e, k)
		return
	}
	if o.cmp(&e.key, &k) == 0 {
		e.key = k
		return
	}
	o.tree.Delete(e)
	e.key = k
	o.tree.ReplaceOrInsert(e)
}

// Ascend calls f on the items in order until f returns false. f must not
// change o.
func (o *Order[K, V]) Ascend(f func(V) bool) {
	o.tree.Ascend(func(e *OrderEntry[K, V]) bool { return f(e.Value) })
}

// Clear removes every item.
func (o *Order[K, V]) Clear() {
	o.tree.Ascend(func(e *OrderEntry[K, V]) bool {
		e.in = nil
		return true
	})
	o.tree.Clear(false)
}
