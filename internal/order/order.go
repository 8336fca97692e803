package order

import (
	"math"

	"github.com/google/btree"
)

// Set keeps a set of items sorted by a key that the owner computes, so a
// scheduler walks its applications or child queues in policy order without
// sorting them on every heartbeat: inserting, removing or re-keying an item
// costs O(log n), walking costs O(1) per item visited.
//
// The owner computes each item's key from the item's state (usage, demand,
// weight, …) and must call [Set.Rekey] whenever any input of the key may
// have changed: the Set keeps the key it was given, which is what lets it
// find the item again. Keys are compared by the function given to
// [New], which must be a strict weak order; items whose keys compare
// equal are kept in insertion order (a sequence number breaks the tie), so a
// policy whose comparator is total — as YARN's are, ending on a unique name —
// gets exactly the order a sort would give.
//
// Set is the building block for pluggable ordering policies: a policy
// supplies the key and the comparison; the scheduler notifies the key's
// changes. It is not safe for concurrent use; schedulers hold their lock.
// Only [New] (or [NewPrefixed]) makes a usable Set: the zero
// value has no comparator and is not one (removing from it panics).
type Set[K, V any] struct {
	// What every walk and re-key reads comes first (owners may hold an
	// Set in place, in a larger record that is out of cache).
	tree *btree.BTreeG[*Entry[K, V]]
	// Small sets live in a sorted slice (a binary search and a short
	// memmove per change beat a btree's pointer chasing there); a set that
	// grows past smallOrder moves to the btree for good. The slice holds
	// each entry's prefix: a search compares them in place and touches an
	// item (large, scattered, mostly out of cache) only on equal prefixes.
	small []orderSlot
	// vals holds the slice's values by slot id: a walk reads them without
	// touching the entries (held by owners' records, mostly out of cache).
	vals []V
	stop int // where the last walk stopped: the entry most likely re-keyed next (find)
	// (a walk reads the fields above: 64 bytes where V is a pointer)
	// ents holds the slice's entries by slot id: slots hold ids, not
	// pointers, so the memmove of a change needs no GC write barriers.
	ents   []*Entry[K, V]
	cmp    func(a, b *K) int
	prefix func(k *K) Prefix // nil: every prefix is zero
	seq    uint64
	limit  int // smallOrder; tests lower it
	// base is small's whole backing array: small may start past its front
	// (see Rekey), and room reuses that space before it grows.
	base []orderSlot
	free []uint32 // ids of ents not in use
	tmp  K        // Rekey's new key: comparing it through a pointer to a local would allocate
}

// Prefix is a compact summary of a key that a Set compares before
// the key itself: items are ordered by prefix (lexicographically), then by
// the comparison function, then by insertion. An owner whose prefixes
// follow its comparison (cmp(a, b) < 0 implies prefix(a) <= prefix(b))
// gets exactly the comparison's order, with most comparisons decided by
// the prefixes alone.
type Prefix [4]uint64

// PrefixFloat maps floats other than NaN to uint64s in the same order (-0
// and +0 alike): a building block of OrderPrefixes.
func PrefixFloat(x float64) uint64 {
	if x == 0 {
		return 1 << 63
	}
	b := math.Float64bits(x)
	if b>>63 != 0 {
		return ^b
	}
	return b | 1<<63
}

// PrefixInt maps int64s to uint64s in the same order.
func PrefixInt(x int64) uint64 { return uint64(x) ^ 1<<63 }

func (p *Prefix) compare(o *Prefix) int {
	for i := range p {
		if p[i] != o[i] {
			if p[i] < o[i] {
				return -1
			}
			return 1
		}
	}
	return 0
}

// orderSlot is one entry of the sorted slice: a copy of its prefix and
// its id in Set.ents.
type orderSlot struct {
	pre Prefix
	id  uint32
}

// Entry is one item's place in a Set. The owner embeds or keeps one
// per item and passes it to the Set's methods; an entry belongs to at most
// one Set at a time.
type Entry[K, V any] struct {
	// What a re-key reads first comes first, together, in 32 bytes (an
	// owner can fit them in a cache line with other fields it reads):
	// the key, written on re-keys, after.
	in  *Set[K, V]
	idx int32  // a hint of the position in the sorted slice (small sets, at most smallOrder); see find
	sid uint32 // its id in Set.ents (small sets)
	seq uint64
	// Value is the item the entry stands for, returned by the walks. It
	// must not change while the entry is in a Set (small sets keep a
	// copy, see Set.vals).
	Value V
	pre   Prefix
	key   K
}

// Key returns the key the entry was last inserted or re-keyed with.
func (e *Entry[K, V]) Key() K { return e.key }

// In reports whether the entry is in o.
func (e *Entry[K, V]) In(o *Set[K, V]) bool { return e.in == o && o != nil }

// Member returns the Set holding the entry, or nil.
func (e *Entry[K, V]) Member() *Set[K, V] { return e.in }

// orderDegree is the btree's degree: small nodes suit the short keys and
// the frequent re-keying.
const orderDegree = 16

// smallOrder is the largest set kept in a sorted slice: its memmove per
// change is bounded by it, so changes stay O(log n) comparisons plus a
// bounded copy. Below it the slice is faster than the btree; measured on
// the schedulers' re-keying.
const smallOrder = 128

// New returns an empty Set comparing keys with cmp (negative: a
// first); keys are passed by pointer so large keys are not copied. A nil
// cmp finds every key equal: the order is the insertion order.
func New[K, V any](cmp func(a, b *K) int) *Set[K, V] {
	return NewPrefixed[K, V](cmp, nil)
}

// NewPrefixed is New with prefixes (see [Prefix]): prefix is
// called once per insertion or re-key.
func NewPrefixed[K, V any](cmp func(a, b *K) int, prefix func(k *K) Prefix) *Set[K, V] {
	if cmp == nil {
		cmp = func(*K, *K) int { return 0 }
	}
	return &Set[K, V]{cmp: cmp, prefix: prefix, limit: smallOrder}
}

func (o *Set[K, V]) less(a, b *Entry[K, V]) bool {
	if c := a.pre.compare(&b.pre); c != 0 {
		return c < 0
	}
	if c := o.cmp(&a.key, &b.key); c != 0 {
		return c < 0
	}
	return a.seq < b.seq
}

// before reports whether slot x comes before entry e, whose prefix is pre
// (e's own, or the one it is about to get).
func (o *Set[K, V]) before(x *orderSlot, e *Entry[K, V], pre *Prefix) bool {
	if c := x.pre.compare(pre); c != 0 {
		return c < 0
	}
	if x.id == e.sid {
		return false
	}
	xe := o.ents[x.id]
	if c := o.cmp(&xe.key, &e.key); c != 0 {
		return c < 0
	}
	return xe.seq < e.seq
}

// Len returns the number of items.
func (o *Set[K, V]) Len() int {
	if o.tree != nil {
		return o.tree.Len()
	}
	return len(o.small)
}

// search returns the first position in small[lo:hi] whose entry is not
// before e, with prefix pre and e's key and sequence.
func (o *Set[K, V]) search(e *Entry[K, V], pre *Prefix, lo, hi int) int {
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if o.before(&o.small[m], e, pre) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// find returns e's position in the sorted slice. Entries do not keep
// their positions up to date (rewriting the index of every entry shifted
// by a change would touch each shifted item): e's hint and the last
// walk's stop are tried, then a binary search on its prefix and key finds it, as they and sequences
// order the slice strictly. The linear scan is a safety net for a
// comparison that is not a strict weak order; -1 means e is not there
// (never, while e.in == o).
func (o *Set[K, V]) find(e *Entry[K, V]) int {
	id := e.sid
	if i := int(e.idx); i < len(o.small) && o.small[i].id == id {
		return i
	}
	if i := o.stop; i < len(o.small) && o.small[i].id == id {
		return i // a scheduler re-keys the item its walk stopped at
	}
	if i := o.search(e, &e.pre, 0, len(o.small)); i < len(o.small) && o.small[i].id == id {
		return i
	}
	for i := range o.small {
		if o.small[i].id == id {
			return i
		}
	}
	return -1
}

// add puts e, whose key, prefix and sequence are set, in place.
func (o *Set[K, V]) add(e *Entry[K, V]) {
	if o.tree == nil && len(o.small) >= o.limit {
		o.tree = btree.NewG(orderDegree, o.less)
		for _, x := range o.small {
			o.tree.ReplaceOrInsert(o.ents[x.id])
		}
		o.small, o.base, o.ents, o.vals, o.free = nil, nil, nil, nil, nil
	}
	if o.tree != nil {
		o.tree.ReplaceOrInsert(e)
		return
	}
	if n := len(o.free); n > 0 {
		e.sid = o.free[n-1]
		o.free = o.free[:n-1]
		o.ents[e.sid] = e
		o.vals[e.sid] = e.Value
	} else {
		e.sid = uint32(len(o.ents))
		o.ents = append(o.ents, e)
		o.vals = append(o.vals, e.Value)
	}
	i := o.search(e, &e.pre, 0, len(o.small))
	o.room()
	o.small = o.small[:len(o.small)+1]
	copy(o.small[i+1:], o.small[i:])
	o.small[i] = orderSlot{pre: e.pre, id: e.sid}
	e.idx = int32(i)
}

// room makes room for one more slot at the end of small: the space before
// its start is reused when it is at least half its length (so the copy is
// amortised over as many moves), else the slice grows.
func (o *Set[K, V]) room() {
	n := len(o.small)
	if n < cap(o.small) {
		return
	}
	if off := cap(o.base) - cap(o.small); off > 0 && 2*off >= n {
		copy(o.base[:n], o.small)
		o.small = o.base[:n]
		return
	}
	b := make([]orderSlot, n, max(2*n, 4))
	copy(b, o.small)
	o.small, o.base = b, b[:cap(b)]
}

// del takes e, with the key it was added with, out of place.
func (o *Set[K, V]) del(e *Entry[K, V]) {
	if o.tree != nil {
		o.tree.Delete(e)
		return
	}
	i, n := o.find(e), len(o.small)
	if i < 0 {
		return
	}
	copy(o.small[i:], o.small[i+1:])
	o.small = o.small[:n-1]
	o.ents[e.sid] = nil // hold no reference
	var zero V
	o.vals[e.sid] = zero
	o.free = append(o.free, e.sid)
}

func (o *Set[K, V]) prefixOf(k *K) Prefix {
	if o.prefix == nil {
		return Prefix{}
	}
	return o.prefix(k)
}

// Insert adds e with key k; an entry already in another Set is moved, one
// already in o is re-keyed. e.Value must be set before and stay as it is
// while e is in o: walks of small sets return a copy taken here. A nil e
// is ignored, as by Remove, Rekey and RekeyPtr (and a nil k there).
func (o *Set[K, V]) Insert(e *Entry[K, V], k K) {
	if e == nil {
		return
	}
	if e.in != nil {
		e.in.Remove(e)
	}
	o.seq++
	e.key, e.seq, e.in = k, o.seq, o
	e.pre = o.prefixOf(&e.key)
	o.add(e)
}

// Remove takes e out of o; it does nothing when e is not in o.
func (o *Set[K, V]) Remove(e *Entry[K, V]) {
	if e == nil || e.in != o {
		return
	}
	o.del(e)
	e.in = nil
}

// Rekey is the "key changed" notification: e moves to the place of key k.
// Equal keys keep e where it is (and its tie-break position).
func (o *Set[K, V]) Rekey(e *Entry[K, V], k K) {
	if e == nil {
		return
	}
	if e.in != o {
		o.Insert(e, k)
		return
	}
	o.tmp = k
	o.RekeyPtr(e, &o.tmp)
	var zero K
	o.tmp = zero // hold no references
}

// RekeyPtr is Rekey with the new key passed by pointer: large keys are
// then copied once, into e, rather than at every call. o does not retain
// k.
func (o *Set[K, V]) RekeyPtr(e *Entry[K, V], k *K) {
	if e == nil || k == nil {
		return
	}
	if e.in != o {
		o.Insert(e, *k)
		return
	}
	pre := o.prefixOf(k)
	if pre == e.pre && o.cmp(&e.key, k) == 0 {
		e.key = *k
		return
	}
	if o.tree != nil {
		o.tree.Delete(e)
		e.key, e.pre = *k, pre
		o.tree.ReplaceOrInsert(e)
		return
	}
	i, n := o.find(e), len(o.small)
	e.key, e.pre = *k, pre
	if i < 0 {
		// Not reached while e.in == o is kept (find); a safety net for an
		// owner's misuse (a copied entry whose original left o): e is
		// added afresh rather than indexing past the slice. e holds no
		// slot id then (ents[e.sid] != e: only del frees an id), so there
		// is nothing to release.
		o.add(e)
		return
	}
	// e moves only past the slots between its old and new places (none
	// when it is still between its neighbours).
	j := i
	switch {
	case i > 0 && !o.before(&o.small[i-1], e, &pre):
		j = o.search(e, &pre, 0, i-1)
		copy(o.small[j+1:i+1], o.small[j:i])
	case i < n-1 && o.before(&o.small[i+1], e, &pre):
		j = o.search(e, &pre, i+2, n) - 1
		if i+(n-1-j) >= j-i {
			copy(o.small[i:j], o.small[i+1:j+1])
			break
		}
		// Fewer slots lie before i and after j than between them (an
		// item served first and re-keyed to the back, the usual move):
		// shift those instead, the front ones into i's place and the
		// slice's start one further.
		copy(o.small[1:i+1], o.small[:i])
		o.small = o.small[1:]
		o.room()
		o.small = o.small[:n]
		copy(o.small[j+1:], o.small[j:n-1])
	}
	o.small[j] = orderSlot{pre: pre, id: e.sid}
	e.idx = int32(j)
}

// Ascend calls f on the items in order until f returns false. f must not
// change o; a nil f visits nothing.
func (o *Set[K, V]) Ascend(f func(V) bool) {
	if f == nil {
		return
	}
	if o.tree != nil {
		o.tree.Ascend(func(e *Entry[K, V]) bool { return f(e.Value) })
		return
	}
	for i := range o.small {
		if !f(o.vals[o.small[i].id]) {
			o.stop = i
			return
		}
	}
}

// Clear removes every item.
func (o *Set[K, V]) Clear() {
	if o.tree != nil {
		o.tree.Ascend(func(e *Entry[K, V]) bool {
			e.in = nil
			return true
		})
	}
	for _, x := range o.small {
		o.ents[x.id].in = nil
	}
	o.small, o.base, o.ents, o.vals, o.free, o.tree = nil, nil, nil, nil, nil, nil
}
