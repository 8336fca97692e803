package queue

import (
	"fmt"
	"slices"

	"github.com/berthsched/berth"
)

// Durable state of a request table. A scheduler writes each
// application's table with [Requests.WriteState] inside its own snapshot
// and reads it back with [ReadRequests]. The layout, after the key count:
// per key in ascending priority, the priority, the capability (kept even
// when nothing is outstanding: a later rack or host ask keeps it), the ANY
// entry (present, count, relax), the rack entries and the host entries
// (count, then name, count, relax, by name), then the scheduler's payload.
// Everything the table decides with is primary state, so it is written
// as it is rather than replayed through Update, which would need the
// topology the asks were classified with.

// maxStateKeys bounds the number of keys or entries read for one table.
const maxStateKeys = 1 << 24

// WriteState writes the table to e; payload writes one key's scheduler
// state (nil: none). A nil e writes nothing.
func (r *Requests[S]) WriteState(e *berth.StateEncoder, payload func(e *berth.StateEncoder, s *S)) {
	if e == nil {
		return
	}
	e.Len(len(r.keys))
	for _, k := range r.keys {
		e.Varint(int64(k.priority))
		e.Resource(k.capability)
		e.Bool(k.anySet)
		e.Int(k.any.count)
		e.Bool(k.any.relax)
		writeEntries(e, k.racks)
		writeEntries(e, k.hosts)
		if payload != nil {
			payload(e, &k.Payload)
		}
	}
}

func writeEntries(e *berth.StateEncoder, m map[string]locationAsk) {
	e.Len(len(m))
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		a := m[n]
		e.String(n)
		e.Int(a.count)
		e.Bool(a.relax)
	}
}

// ReadRequests reads a table written by [Requests.WriteState]; payload
// reads one key's scheduler state. Malformed contents (priorities out of
// order, a negative count or capability, an empty or duplicate name) are
// recorded on d as corrupt state; the table returned is then partial and
// must be dropped with the rest of the snapshot. A nil payload reads no
// key state (the pair of a WriteState with a nil payload); a nil d gives
// an empty table.
func ReadRequests[S any](d *berth.StateDecoder, payload func(d *berth.StateDecoder, s *S)) *Requests[S] {
	return ReadRequestsIn(d, payload, nil)
}

// ReadRequestsIn is ReadRequests into a table made by [RequestsIn] with b
// (nil: a zero table).
func ReadRequestsIn[S any](d *berth.StateDecoder, payload func(d *berth.StateDecoder, s *S), b *RequestBlock[S]) *Requests[S] {
	r := new(Requests[S])
	*r = RequestsIn(b)
	if d == nil {
		return r
	}
	n := d.Len(maxStateKeys)
	for i := 0; i < n && d.Err() == nil; i++ {
		prio := d.Varint()
		var k RequestKey[S]
		k.capability = d.Resource()
		k.anySet = d.Bool()
		k.any.count = d.Int()
		k.any.relax = d.Bool()
		switch {
		case d.Err() != nil:
			return r
		case prio < -1<<31 || prio >= 1<<31:
			d.Fail(fmt.Errorf("request priority %d out of range", prio))
		case i > 0 && int32(prio) <= r.keys[i-1].priority:
			d.Fail(fmt.Errorf("request priority %d not after %d", prio, r.keys[i-1].priority))
		case k.any.count < 0 || (!k.anySet && (k.any.count != 0 || !k.any.relax)):
			d.Fail(fmt.Errorf("priority %d: malformed ANY entry", prio))
		case k.capability.AnyNegative():
			d.Fail(fmt.Errorf("priority %d: negative capability %v", prio, k.capability))
		}
		k.priority = int32(prio)
		k.racks = readEntries(d)
		k.hosts = readEntries(d)
		if payload != nil {
			payload(d, &k.Payload)
		}
		r.insert(len(r.keys), k)
	}
	return r
}

func readEntries(d *berth.StateDecoder) map[string]locationAsk {
	n := d.Len(maxStateKeys)
	if n == 0 || d.Err() != nil {
		return nil
	}
	m := make(map[string]locationAsk, min(n, 64))
	prev := ""
	for i := 0; i < n && d.Err() == nil; i++ {
		name := d.String()
		a := locationAsk{count: d.Int(), relax: d.Bool()}
		switch {
		case d.Err() != nil:
		case name == "" || name == AnyResource || (i > 0 && name <= prev):
			d.Fail(fmt.Errorf("ask entry %q out of order or invalid", name))
		case a.count < 0:
			d.Fail(fmt.Errorf("ask entry %q: negative count %d", name, a.count))
		}
		m[name] = a
		prev = name
	}
	return m
}
