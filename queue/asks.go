package queue

import (
	"math"
	"slices"

	"github.com/berthsched/berth"
)

// Requests is one application's table of outstanding resource requests,
// YARN's AppSchedulingInfo (with a LocalityAppPlacementAllocator per
// scheduler key), which both of YARN's schedulers share. Asks are grouped
// by request priority into [RequestKey]s; each key holds the ANY ask, the
// rack asks and the host asks with their counts and relaxLocality flags.
// The scheduler stores asks with [Requests.Update], reads them while it
// walks the keys in priority order ([Requests.Keys]) and charges every
// allocation with [RequestKey.Allocate].
//
// S is the scheduler's own per-key state (the capacity scheduler keeps
// its delay-scheduling and re-reservation counters there, YARN's
// per-SchedulerRequestKey maps of SchedulerApplicationAttempt); it lives in
// RequestKey.Payload so that hot paths need no side table.
//
// The zero value is an empty table; [RequestsIn] makes one whose first key
// lives in its owner's record. A Requests is not safe for concurrent use:
// it belongs to its scheduler, which serializes access.
type Requests[S any] struct {
	keys []*RequestKey[S] // ascending priority: the most important first
	// first is where the first key goes while the table has none; nil: a
	// new allocation (RequestsIn).
	first *keyBlock[S]
}

// RequestBlock is room for a table's first key, for a scheduler to keep in
// its application record beside the table (see [RequestsIn]). Most
// applications ask at one priority, and a walk reads the table and then
// its key: with thousands of applications both are out of cache, and a
// key in the record is read from lines next to the table's rather than
// from an allocation of its own. Its zero value is ready.
type RequestBlock[S any] struct{ b keyBlock[S] }

// RequestsIn returns an empty table whose first key will live in b. b must
// not move (it is held in place, as a field of a heap record) and serves
// one key: of copies made while the table is empty, the first to get a
// key uses the block and the others allocate their own. A nil b gives a
// zero table.
func RequestsIn[S any](b *RequestBlock[S]) Requests[S] {
	if b == nil {
		return Requests[S]{} // no block: the first key is allocated, as in a zero table
	}
	return Requests[S]{first: &b.b}
}

// RequestKey is one request priority of an application (YARN's
// SchedulerRequestKey) with its asks by locality. Keys are created by
// [Requests.Update] and live as long as the table: a key whose asks are
// all satisfied stays, with nothing outstanding, so that a scheduler's
// pointers to it (a container reservation) stay valid.
type RequestKey[S any] struct {
	// What a scheduler's walk reads on every offer comes first (the ANY
	// ask, then the payload), next to the slot pointing to a table's
	// first key (see keyBlock).
	any      locationAsk
	anySet   bool // an ANY entry exists (YARN's request map holds ANY)
	priority int32

	// Payload is the scheduler's per-key state; the table never reads it.
	Payload S

	capability berth.Resource
	racks      map[string]locationAsk
	hosts      map[string]locationAsk
}

// keyBlock is a table's first key allocated together with the one-slot
// array of the table's key list: most applications ask at one priority,
// and a walk reading the list's slot then finds the key in the same
// allocation instead of taking a second cache miss on a separate one.
// Once it holds its key the table refers to it through the slice only, so
// copying a Requests stays safe.
type keyBlock[S any] struct {
	slot [1]*RequestKey[S]
	key  RequestKey[S]
}

// insert puts k at position i of the key list and returns its address.
func (r *Requests[S]) insert(i int, k RequestKey[S]) *RequestKey[S] {
	if cap(r.keys) == 0 {
		b := r.first
		r.first = nil // a block serves one key (its table keeps it for good)
		if b == nil || b.slot[0] != nil {
			// A copy of the table made before its first key would
			// otherwise write into the block its original already uses.
			b = new(keyBlock[S])
		}
		b.key = k
		b.slot[0] = &b.key
		r.keys = b.slot[:1:1]
		return &b.key
	}
	p := new(RequestKey[S])
	*p = k
	r.keys = slices.Insert(r.keys, i, p)
	return p
}

// locationAsk is the count and relaxLocality flag of one resource name.
type locationAsk struct {
	count int
	relax bool
}

// Keys returns the keys in ascending request priority (the most important
// first). The slice is the table's own: read it, do not modify it, and do
// not keep it across Update.
func (r *Requests[S]) Keys() []*RequestKey[S] { return r.keys }

// Key returns the key of priority prio, or nil when the application never
// asked at that priority.
func (r *Requests[S]) Key(prio int32) *RequestKey[S] {
	if i, ok := r.search(prio); ok {
		return r.keys[i]
	}
	return nil
}

func (r *Requests[S]) search(prio int32) (int, bool) {
	return slices.BinarySearchFunc(r.keys, prio, func(k *RequestKey[S], p int32) int {
		switch {
		case k.priority < p:
			return -1
		case k.priority > p:
			return 1
		}
		return 0
	})
}

// Update stores one ask, replacing the previous one for the same
// (priority, resource name), as YARN's allocate call does; rack tells
// whether a resource name other than [AnyResource] is a rack (the caller
// knows its topology). The ANY ask sets the key's capability; a rack or
// host ask sets it only while the key has none (YARN takes the
// capability from the ANY request). An ask with count 0 stays in the table
// as an entry with nothing outstanding (it still counts in
// [RequestKey.UniqueLocationAsks] and still carries its relaxLocality
// flag), as in YARN. An invalid ask ([Ask.Validate]) changes nothing.
func (r *Requests[S]) Update(a Ask, rack bool) (*RequestKey[S], error) {
	if err := a.Validate("ask"); err != nil {
		return nil, err
	}
	i, ok := r.search(a.Priority)
	if !ok {
		r.insert(i, RequestKey[S]{priority: a.Priority, any: locationAsk{relax: true}})
	}
	k := r.keys[i]
	entry := locationAsk{count: a.Count, relax: !a.StrictLocality}
	if a.ResourceName == AnyResource {
		k.any, k.anySet = entry, true
		k.capability = a.Capability
		return k, nil
	}
	m := &k.hosts
	if rack {
		m = &k.racks
	}
	if *m == nil {
		*m = map[string]locationAsk{}
	}
	(*m)[a.ResourceName] = entry
	if k.capability.IsZero() {
		k.capability = a.Capability
	}
	return k, nil
}

// Clear drops every ask of every key (the application ended or was
// killed); the keys and their payloads stay.
func (r *Requests[S]) Clear() {
	for _, k := range r.keys {
		k.any, k.anySet = locationAsk{relax: true}, false
		k.racks, k.hosts = nil, nil
	}
}

// Pending is the application's outstanding demand: Σ capability × ANY
// count over its keys (YARN's pending resource).
func (r *Requests[S]) Pending() berth.Resource {
	var p berth.Resource
	for _, k := range r.keys {
		if k.any.count > 0 {
			p = p.Add(k.capability.MulInt(int64(k.any.count)))
		}
	}
	return p
}

// PendingAfter is what [Requests.Pending] would return once asks are
// stored with Update in order, computed without changing the table, and
// whether it is representable: false when a capability × count or the
// sum overflows int64 in some type. A scheduler refuses asks that would
// make the demand it keeps books of wrap (YARN's long arithmetic does).
// Asks must be valid ([Ask.Validate]).
func (r *Requests[S]) PendingAfter(asks []Ask) (berth.Resource, bool) {
	type entry struct {
		capability berth.Resource
		count      int
	}
	changed := map[int32]entry{}
	for _, a := range asks {
		e, ok := changed[a.Priority]
		if !ok {
			if k := r.Key(a.Priority); k != nil {
				e = entry{k.capability, k.any.count}
			}
		}
		if a.ResourceName == AnyResource {
			e = entry{a.Capability, a.Count}
		} else if e.capability.IsZero() {
			e.capability = a.Capability
		}
		changed[a.Priority] = e
	}
	var p berth.Resource
	add := func(e entry) bool {
		if e.count <= 0 {
			return true
		}
		d, ok := mulExact(e.capability, int64(e.count))
		if !ok || p.AddOverflows(d) {
			return false
		}
		p = p.Add(d)
		return true
	}
	for _, k := range r.keys {
		if _, ok := changed[k.priority]; !ok && !add(entry{k.capability, k.any.count}) {
			return p, false
		}
	}
	for _, e := range changed {
		if !add(e) {
			return p, false
		}
	}
	return p, true
}

// mulExact returns r × n and whether no type overflowed; r and n are not
// negative.
func mulExact(r berth.Resource, n int64) (berth.Resource, bool) {
	for _, t := range berth.TypeNames(r) {
		if v := r.Get(t); v != 0 && n > math.MaxInt64/v {
			return r, false
		}
	}
	return r.MulInt(n), true
}

// NextPending returns the capability and ANY count of the most important
// key with something outstanding (YARN's next pending ask), or a zero
// resource and 0.
func (r *Requests[S]) NextPending() (berth.Resource, int) {
	for _, k := range r.keys {
		if k.any.count > 0 {
			return k.capability, k.any.count
		}
	}
	return berth.Resource{}, 0
}

// Priority is the key's request priority; a lower number is more
// important.
func (k *RequestKey[S]) Priority() int32 { return k.priority }

// Capability is the size of each container the key asks for.
func (k *RequestKey[S]) Capability() berth.Resource { return k.capability }

// Outstanding is the ANY count: how many containers the key still needs
// (YARN's getOutstandingAsksCount(ANY)).
func (k *RequestKey[S]) Outstanding() int { return k.any.count }

// Pending is capability × outstanding.
func (k *RequestKey[S]) Pending() berth.Resource {
	if k.any.count <= 0 {
		return berth.Resource{}
	}
	return k.capability.MulInt(int64(k.any.count))
}

// AnyAsk returns the ANY ask's count and whether it relaxes locality
// (YARN's canDelayTo(ANY): true when there is no ANY ask).
func (k *RequestKey[S]) AnyAsk() (count int, relax bool) { return k.any.count, k.any.relax }

// RackAsk returns the count of the ask on rack and whether it relaxes
// locality past the rack (YARN's canDelayTo(rack): true when the key has
// no ask on that rack).
func (k *RequestKey[S]) RackAsk(rack string) (count int, relax bool) { return lookup(k.racks, rack) }

// HostAsk returns the count of the ask on host and its relaxLocality flag
// (true when the key has no ask on that host).
func (k *RequestKey[S]) HostAsk(host string) (count int, relax bool) { return lookup(k.hosts, host) }

func lookup(m map[string]locationAsk, name string) (int, bool) {
	if e, ok := m[name]; ok {
		return e.count, e.relax
	}
	return 0, true
}

// UniqueLocationAsks is the number of resource names the key holds an
// entry for, ANY included (YARN's getUniqueLocationAsks, the size of the
// request map). Delay scheduling reads it: a key whose only entry is ANY
// may go off-switch at once. As in YARN, an entry the application set to
// 0 still counts, and an entry an allocation brought to 0 does not.
func (k *RequestKey[S]) UniqueLocationAsks() int {
	n := len(k.racks) + len(k.hosts)
	if k.anySet {
		n++
	}
	return n
}

// Allocate charges one container placed at loc on host (on rack) to the
// key, as YARN's AppSchedulingInfo.allocate does: a node-local container
// takes one from the host, the rack and ANY asks, a rack-local one from
// the rack and ANY, an off-switch one from ANY only. An entry that reaches
// 0 leaves the table. It returns false, changing nothing, when the key has
// nothing outstanding.
func (k *RequestKey[S]) Allocate(loc Locality, host, rack string) bool {
	if k.any.count <= 0 {
		return false
	}
	switch loc {
	case NodeLocal:
		decrement(k.hosts, host)
		decrement(k.racks, rack)
	case RackLocal:
		decrement(k.racks, rack)
	}
	if k.any.count--; k.any.count == 0 {
		k.any, k.anySet = locationAsk{relax: true}, false // the ANY entry leaves too
	}
	return true
}

func decrement(m map[string]locationAsk, name string) {
	e, ok := m[name]
	if !ok || e.count <= 0 {
		return
	}
	if e.count--; e.count == 0 {
		delete(m, name)
		return
	}
	m[name] = e
}
