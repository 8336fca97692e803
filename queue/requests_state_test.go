package queue

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/berthsched/berth"
	"github.com/stretchr/testify/require"
)

// roundTrip writes r (with its payloads) and reads it back.
func roundTrip(t *testing.T, r *Requests[int]) *Requests[int] {
	t.Helper()
	var buf bytes.Buffer
	e := berth.NewStateEncoder(&buf, "queue.Requests", 1)
	r.WriteState(e, func(e *berth.StateEncoder, p *int) { e.Int(*p) })
	require.NoError(t, e.Finish())
	d, err := berth.NewStateDecoder(&buf, "queue.Requests", 1)
	require.NoError(t, err)
	var blk *RequestBlock[int]
	if len(r.keys)%2 == 1 {
		blk = new(RequestBlock[int]) // the copy's first key in a block
	}
	out := ReadRequestsIn(d, func(d *berth.StateDecoder, p *int) { *p = d.Int() }, blk)
	require.NoError(t, d.Finish())
	if blk != nil {
		require.Same(t, &blk.b.key, out.Keys()[0])
	}
	return out
}

// runAsksState drives a table and the model as runAsks does, with one more
// operation: the table is replaced by its durable copy. The copy must
// answer as the model from then on, payloads included.
func runAsksState(t *testing.T, next func(n int) int, steps int) {
	r := &Requests[int]{}
	m := asksModel{}
	payload := map[int32]int{}
	for range steps {
		switch next(9) {
		case 0:
			r.Clear()
			m.clear()
		case 1, 2, 3:
			prio := int32(next(3))
			loc := Locality(next(3))
			host, rack := []string{"h1", "h2", "h3"}[next(3)], []string{"/r1", "/r2"}[next(2)]
			var got bool
			if k := r.Key(prio); k != nil {
				got = k.Allocate(loc, host, rack)
				k.Payload++
				payload[prio]++
			}
			require.Equal(t, m.allocate(prio, loc, host, rack), got, "allocate")
		case 4:
			r = roundTrip(t, r)
		default:
			a := Ask{
				Priority:       int32(next(3)),
				ResourceName:   askNames[next(len(askNames))],
				Capability:     berth.New(int64(next(3))*512, int64(next(2))),
				Count:          next(4),
				StrictLocality: next(3) == 0,
			}
			rack := a.ResourceName[0] == '/'
			_, err := r.Update(a, rack)
			require.NoError(t, err)
			m.update(a, rack)
		}
		m.check(t, r, []string{"h1", "h2", "h3", "/r1", "/r2"})
		for _, k := range r.Keys() {
			require.Equal(t, payload[k.Priority()], k.Payload, "payload of %d", k.Priority())
		}
		// what the preemption view reads is unchanged by a round trip
		for i, k := range roundTrip(t, r).Keys() {
			require.Equal(t, r.Keys()[i].AppendAsks(nil), k.AppendAsks(nil))
		}
	}
}

func TestRequestsStateAgainstModel(t *testing.T) {
	for seed := range uint64(100) {
		rng := rand.New(rand.NewPCG(seed, 11))
		runAsksState(t, rng.IntN, 60)
	}
}

// FuzzRequestsState feeds arbitrary bytes to ReadRequests in a valid
// frame: it must not panic, and a table it accepts must round-trip.
func FuzzRequestsState(f *testing.F) {
	r := &Requests[int]{}
	_, _ = r.Update(Ask{Priority: 1, ResourceName: AnyResource, Capability: berth.New(1024, 1), Count: 2}, false)
	_, _ = r.Update(Ask{Priority: 1, ResourceName: "/r1", Capability: berth.New(1024, 1), Count: 1}, true)
	_, _ = r.Update(Ask{Priority: 3, ResourceName: "h1", Capability: berth.New(512, 1), Count: 0, StrictLocality: true}, false)
	var buf bytes.Buffer
	e := berth.NewStateEncoder(&buf, "queue.Requests", 1)
	r.WriteState(e, func(e *berth.StateEncoder, p *int) { e.Int(*p) })
	_ = e.Finish()
	f.Add(buf.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := berth.NewStateDecoder(bytes.NewReader(data), "queue.Requests", 1)
		if err != nil {
			return
		}
		out := ReadRequests(d, func(d *berth.StateDecoder, p *int) { *p = d.Int() })
		if d.Finish() != nil {
			return
		}
		back := roundTrip(t, out)
		require.Equal(t, len(out.Keys()), len(back.Keys()))
		for i, k := range back.Keys() {
			require.Equal(t, out.Keys()[i].AppendAsks(nil), k.AppendAsks(nil))
			require.Equal(t, out.Keys()[i].UniqueLocationAsks(), k.UniqueLocationAsks())
		}
	})
}
