package queue

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/berthsched/berth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRequestsUpdate(t *testing.T) {
	gb := berth.New(1024, 1)
	tests := []struct {
		name      string
		asks      []Ask
		racks     []string // names the caller classifies as racks
		prio      int32
		capab     berth.Resource
		any       int
		anyRelax  bool
		rack      string
		rackCount int
		rackRelax bool
		host      string
		hostCount int
		unique    int
	}{
		{name: "any only", asks: []Ask{{Priority: 1, ResourceName: AnyResource, Capability: gb, Count: 3}},
			prio: 1, capab: gb, any: 3, anyRelax: true, rack: "/r", rackRelax: true, unique: 1},
		{name: "locality ask sets capability until ANY does", asks: []Ask{
			{Priority: 1, ResourceName: "h1", Capability: gb.MulInt(2), Count: 1},
			{Priority: 1, ResourceName: AnyResource, Capability: gb, Count: 1},
		}, prio: 1, capab: gb, any: 1, anyRelax: true, host: "h1", hostCount: 1, rack: "/r", rackRelax: true, unique: 2},
		{name: "first location ask's capability stays", asks: []Ask{
			{Priority: 1, ResourceName: "h1", Capability: gb.MulInt(2), Count: 1},
			{Priority: 1, ResourceName: "/r", Capability: gb.MulInt(3), Count: 1},
		}, racks: []string{"/r"}, prio: 1, capab: gb.MulInt(2), anyRelax: true, host: "h1", hostCount: 1,
			rack: "/r", rackCount: 1, rackRelax: true, unique: 2},
		{name: "count replaces, not adds", asks: []Ask{
			{Priority: 2, ResourceName: AnyResource, Capability: gb, Count: 5},
			{Priority: 2, ResourceName: AnyResource, Capability: gb, Count: 2},
		}, prio: 2, capab: gb, any: 2, anyRelax: true, rack: "/r", rackRelax: true, unique: 1},
		{name: "strict rack", asks: []Ask{
			{Priority: 1, ResourceName: "/r", Capability: gb, Count: 2, StrictLocality: true},
			{Priority: 1, ResourceName: AnyResource, Capability: gb, Count: 2, StrictLocality: true},
		}, racks: []string{"/r"}, prio: 1, capab: gb, any: 2, rack: "/r", rackCount: 2, unique: 2},
		{name: "zero-count entries stay and count", asks: []Ask{
			{Priority: 1, ResourceName: "h1", Capability: gb, Count: 0, StrictLocality: true},
			{Priority: 1, ResourceName: AnyResource, Capability: gb, Count: 1},
		}, prio: 1, capab: gb, any: 1, anyRelax: true, host: "h1", rack: "/r", rackRelax: true, unique: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var r Requests[int]
			for _, a := range tc.asks {
				_, err := r.Update(a, slices.Contains(tc.racks, a.ResourceName))
				require.NoError(t, err)
			}
			k := r.Key(tc.prio)
			require.NotNil(t, k)
			assert.Equal(t, tc.prio, k.Priority())
			assert.True(t, tc.capab.Equal(k.Capability()), "capability %v", k.Capability())
			n, relax := k.AnyAsk()
			assert.Equal(t, tc.any, n)
			assert.Equal(t, tc.any, k.Outstanding())
			assert.Equal(t, tc.anyRelax, relax)
			n, relax = k.RackAsk(tc.rack)
			assert.Equal(t, tc.rackCount, n)
			assert.Equal(t, tc.rackRelax, relax)
			if tc.host != "" {
				n, _ = k.HostAsk(tc.host)
				assert.Equal(t, tc.hostCount, n)
			}
			assert.Equal(t, tc.unique, k.UniqueLocationAsks())
		})
	}
}

func TestRequestsUpdateRejectsBadAsks(t *testing.T) {
	var r Requests[struct{}]
	for _, a := range []Ask{
		{ResourceName: "", Count: 1},
		{ResourceName: AnyResource, Count: -1},
		{ResourceName: AnyResource, Count: 1, Capability: berth.New(-1, 0)},
	} {
		k, err := r.Update(a, false)
		assert.Nil(t, k)
		assert.ErrorIs(t, err, berth.ErrInvalidArgument)
		var fe *berth.FieldError
		assert.True(t, errors.As(err, &fe))
	}
	assert.Empty(t, r.Keys(), "a rejected ask creates no key")
}

func TestRequestKeyAllocate(t *testing.T) {
	gb := berth.New(1024, 1)
	setup := func(t *testing.T) (*Requests[int], *RequestKey[int]) {
		var r Requests[int]
		for _, a := range []Ask{
			{Priority: 1, ResourceName: "h1", Capability: gb, Count: 1},
			{Priority: 1, ResourceName: "h2", Capability: gb, Count: 2},
			{Priority: 1, ResourceName: "/r1", Capability: gb, Count: 3},
			{Priority: 1, ResourceName: AnyResource, Capability: gb, Count: 3, StrictLocality: true},
		} {
			_, err := r.Update(a, a.ResourceName[0] == '/')
			require.NoError(t, err)
		}
		return &r, r.Key(1)
	}
	tests := []struct {
		name                    string
		loc                     Locality
		host, rack              string
		h1, h2, r1, any, unique int
	}{
		{"node local takes host, rack and ANY; empty host leaves", NodeLocal, "h1", "/r1", 0, 2, 2, 2, 3},
		{"node local on a host with more", NodeLocal, "h2", "/r1", 1, 1, 2, 2, 4},
		{"rack local takes rack and ANY", RackLocal, "h3", "/r1", 1, 2, 2, 2, 4},
		{"off switch takes ANY only", OffSwitch, "h9", "/r9", 1, 2, 3, 2, 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, k := setup(t)
			require.True(t, k.Allocate(tc.loc, tc.host, tc.rack))
			h1, _ := k.HostAsk("h1")
			h2, _ := k.HostAsk("h2")
			r1, _ := k.RackAsk("/r1")
			assert.Equal(t, []int{tc.h1, tc.h2, tc.r1, tc.any}, []int{h1, h2, r1, k.Outstanding()})
			assert.Equal(t, tc.unique, k.UniqueLocationAsks())
			assert.True(t, gb.MulInt(int64(tc.any)).Equal(r.Pending()))
		})
	}

	t.Run("last container empties the key; ANY leaves and relaxes", func(t *testing.T) {
		r, k := setup(t)
		for range 3 {
			require.True(t, k.Allocate(OffSwitch, "x", "/x"))
		}
		assert.False(t, k.Allocate(OffSwitch, "x", "/x"), "nothing outstanding")
		n, relax := k.AnyAsk()
		assert.Equal(t, 0, n)
		assert.True(t, relax, "no ANY entry: canDelayTo(ANY) is true")
		assert.Equal(t, 3, k.UniqueLocationAsks(), "host and rack entries stay")
		assert.True(t, r.Pending().IsZero())
		c, cnt := r.NextPending()
		assert.True(t, c.IsZero())
		assert.Equal(t, 0, cnt)
		assert.Same(t, k, r.Key(1), "the key itself stays")
	})
}

func TestRequestsKeysOrderAndClear(t *testing.T) {
	var r Requests[string]
	for _, p := range []int32{5, -1, 3, 5, 0} {
		k, err := r.Update(Ask{Priority: p, ResourceName: AnyResource, Capability: berth.New(int64(p+2), 1), Count: 1}, false)
		require.NoError(t, err)
		k.Payload = fmt.Sprint("p", p)
	}
	var prios []int32
	for _, k := range r.Keys() {
		prios = append(prios, k.Priority())
	}
	assert.Equal(t, []int32{-1, 0, 3, 5}, prios)
	assert.Nil(t, r.Key(4))
	c, n := r.NextPending()
	assert.True(t, berth.New(1, 1).Equal(c), "priority -1 is the most important")
	assert.Equal(t, 1, n)
	assert.True(t, berth.New(1+2+5+7, 4).Equal(r.Pending()))

	r.Clear()
	assert.True(t, r.Pending().IsZero())
	assert.Len(t, r.Keys(), 4)
	assert.Equal(t, "p3", r.Key(3).Payload, "payloads survive Clear")
	assert.Equal(t, 0, r.Key(3).UniqueLocationAsks())
}

// TestRequestKeysStayPut: a scheduler keeps pointers to keys (a
// reservation's, the walk's), so a key's address must not change as
// other priorities are added before or after it; the first key, allocated
// with the list's first slot, included. A copied table shares the keys.
func TestRequestKeysStayPut(t *testing.T) {
	var r Requests[int]
	first, err := r.Update(Ask{Priority: 5, ResourceName: AnyResource, Capability: berth.New(1, 1), Count: 2}, false)
	require.NoError(t, err)
	first.Payload = 42
	seen := map[int32]*RequestKey[int]{5: first}
	for _, p := range []int32{7, 1, 6, -3, 5, 2} {
		k, err := r.Update(Ask{Priority: p, ResourceName: AnyResource, Capability: berth.New(1, 1), Count: 1}, false)
		require.NoError(t, err)
		if old, ok := seen[p]; ok {
			assert.Same(t, old, k, "priority %d", p)
		}
		seen[p] = k
		for q, want := range seen {
			assert.Same(t, want, r.Key(q), "priority %d after adding %d", q, p)
		}
	}
	assert.Equal(t, 42, r.Key(5).Payload)
	cp := r
	k, err := cp.Update(Ask{Priority: 5, ResourceName: AnyResource, Capability: berth.New(1, 1), Count: 9}, false)
	require.NoError(t, err)
	assert.Same(t, first, k, "a copy shares the keys")
	assert.Equal(t, 9, r.Key(5).Outstanding())
}

// --- reference model: YARN's single request map per key ---

type modelEntry struct {
	count int
	relax bool
	rack  bool
}

type modelKey struct {
	capab   berth.Resource
	entries map[string]modelEntry // "*" is ANY
}

type asksModel map[int32]*modelKey

func (m asksModel) update(a Ask, rack bool) {
	k := m[a.Priority]
	if k == nil {
		k = &modelKey{entries: map[string]modelEntry{}}
		m[a.Priority] = k
	}
	k.entries[a.ResourceName] = modelEntry{count: a.Count, relax: !a.StrictLocality, rack: rack && a.ResourceName != AnyResource}
	if a.ResourceName == AnyResource || k.capab.IsZero() {
		k.capab = a.Capability
	}
}

func (m asksModel) allocate(prio int32, loc Locality, host, rack string) bool {
	k := m[prio]
	if k == nil || k.entries[AnyResource].count <= 0 {
		return false
	}
	dec := func(name string, rackEntry bool) {
		e, ok := k.entries[name]
		if !ok || e.rack != rackEntry || e.count <= 0 {
			return
		}
		e.count--
		if e.count == 0 {
			delete(k.entries, name)
			return
		}
		k.entries[name] = e
	}
	if loc == NodeLocal {
		dec(host, false)
	}
	if loc <= RackLocal {
		dec(rack, true)
	}
	dec(AnyResource, false)
	return true
}

func (m asksModel) clear() {
	for _, k := range m {
		clear(k.entries)
	}
}

// check compares the table with the model on every name in names.
func (m asksModel) check(t *testing.T, r *Requests[int], names []string) {
	t.Helper()
	keys := r.Keys()
	require.Len(t, keys, len(m))
	var pending berth.Resource
	var next berth.Resource
	nextN := 0
	for i, k := range keys {
		if i > 0 {
			require.Less(t, keys[i-1].Priority(), k.Priority(), "keys ascending, unique")
		}
		mk := m[k.Priority()]
		require.NotNil(t, mk)
		require.Same(t, k, r.Key(k.Priority()))
		require.True(t, mk.capab.Equal(k.Capability()), "capability")
		require.Equal(t, len(mk.entries), k.UniqueLocationAsks(), "unique location asks")
		anyE, ok := mk.entries[AnyResource]
		if !ok {
			anyE = modelEntry{relax: true}
		}
		n, relax := k.AnyAsk()
		require.Equal(t, anyE.count, n, "ANY count")
		require.Equal(t, anyE.relax, relax, "ANY relax")
		for _, name := range names {
			e, ok := mk.entries[name]
			wantRack, wantHost := modelEntry{relax: true}, modelEntry{relax: true}
			if ok && e.rack {
				wantRack = e
			} else if ok {
				wantHost = e
			}
			c, rl := k.RackAsk(name)
			require.Equal(t, wantRack.count, c, "rack %s count", name)
			require.Equal(t, wantRack.relax, rl, "rack %s relax", name)
			c, rl = k.HostAsk(name)
			require.Equal(t, wantHost.count, c, "host %s count", name)
			require.Equal(t, wantHost.relax, rl, "host %s relax", name)
		}
		if anyE.count > 0 {
			pending = pending.Add(mk.capab.MulInt(int64(anyE.count)))
			require.True(t, mk.capab.MulInt(int64(anyE.count)).Equal(k.Pending()))
			if nextN == 0 {
				next, nextN = mk.capab, anyE.count
			}
		} else {
			require.True(t, k.Pending().IsZero())
		}
	}
	require.True(t, pending.Equal(r.Pending()), "pending %v, model %v", r.Pending(), pending)
	c, n := r.NextPending()
	require.Equal(t, nextN, n)
	require.True(t, next.Equal(c))
}

var askNames = []string{AnyResource, "h1", "h2", "/r1", "/r2"}

// runAsks drives a table and the model with decisions from next and checks
// them after every step. A name's rack-ness is fixed, as a topology is.
// With blk the table is made by RequestsIn: it must answer the same, and
// its first key (the first asked for) must live in blk.
func runAsks(t *testing.T, next func(n int) int, steps int, blk *RequestBlock[int]) {
	var r Requests[int]
	if blk != nil {
		r = RequestsIn(blk)
	}
	m := asksModel{}
	var first *RequestKey[int]
	for range steps {
		switch next(8) {
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
			}
			require.Equal(t, m.allocate(prio, loc, host, rack), got, "allocate")
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
		m.check(t, &r, []string{"h1", "h2", "h3", "/r1", "/r2"})
		if first == nil && len(r.Keys()) > 0 {
			first = r.Keys()[0]
			if blk != nil {
				require.Same(t, &blk.b.key, first, "the first key lives in the block")
			}
		}
		if first != nil {
			require.Contains(t, r.Keys(), first, "keys stay put")
		}
	}
}

// TestRequestsAgainstModel checks random operation sequences against
// YARN's single-map model.
func TestRequestsAgainstModel(t *testing.T) {
	for seed := range uint64(200) {
		rng := rand.New(rand.NewPCG(seed, 7))
		var blk *RequestBlock[int]
		if seed%2 == 1 {
			blk = new(RequestBlock[int])
		}
		runAsks(t, rng.IntN, 60, blk)
	}
}

// FuzzRequests drives the table from fuzz input and checks it against the
// model after every step; it must never panic.
func FuzzRequests(f *testing.F) {
	f.Add([]byte{4, 0, 0, 2, 1, 1, 0})                         // one ANY ask, then an allocation
	f.Add([]byte{5, 1, 1, 1, 1, 1, 0, 4, 1, 0, 1, 1, 2, 1, 0}) // host ask, ANY ask, node-local allocation
	f.Add([]byte{6, 0, 3, 2, 1, 3, 0, 0, 7, 2, 2, 2, 1, 1})    // strict rack ask, clear
	f.Add([]byte{7, 2, 4, 0, 0, 0, 0, 1, 2, 1, 1, 1, 1, 3, 3, 3, 3, 3})
	f.Fuzz(func(t *testing.T, data []byte) {
		i := 0
		next := func(n int) int {
			if i >= len(data) {
				return 0
			}
			v := int(data[i]) % n
			i++
			return v
		}
		var blk *RequestBlock[int]
		if len(data) > 0 && data[0]%2 == 1 {
			blk = new(RequestBlock[int])
		}
		runAsks(t, next, min(len(data), 300), blk)
	})
}

func BenchmarkRequestsAllocate(b *testing.B) {
	var r Requests[struct{}]
	hosts := make([]string, 64)
	for i := range hosts {
		hosts[i] = fmt.Sprintf("h%d", i)
	}
	b.ReportAllocs()
	for range b.N {
		for p := range int32(4) {
			for _, h := range hosts[:8] {
				_, _ = r.Update(Ask{Priority: p, ResourceName: h, Capability: berth.New(1024, 1), Count: 2}, false)
			}
			_, _ = r.Update(Ask{Priority: p, ResourceName: AnyResource, Capability: berth.New(1024, 1), Count: 16}, false)
		}
		for _, k := range r.Keys() {
			for j := 0; k.Outstanding() > 0; j++ {
				k.Allocate(NodeLocal, hosts[j%8], "/r")
			}
		}
	}
}

// Copies of an empty table made by RequestsIn share its block: the first
// to get a key keeps it there, the other allocates, and neither sees the
// other's asks.
func TestRequestsInCopiesDoNotShareKeys(t *testing.T) {
	var blk RequestBlock[int]
	a := RequestsIn(&blk)
	b := a
	_, err := a.Update(Ask{Priority: 1, ResourceName: AnyResource, Capability: berth.New(1024, 1), Count: 3}, false)
	require.NoError(t, err)
	_, err = b.Update(Ask{Priority: 2, ResourceName: AnyResource, Capability: berth.New(2048, 2), Count: 5}, false)
	require.NoError(t, err)
	require.Len(t, a.Keys(), 1)
	require.Len(t, b.Keys(), 1)
	assert.Same(t, &blk.b.key, a.Keys()[0], "the first to ask keeps its key in the block")
	assert.NotSame(t, a.Keys()[0], b.Keys()[0])
	assert.Equal(t, int32(1), a.Keys()[0].Priority())
	assert.Equal(t, int32(2), b.Keys()[0].Priority())
}

// RequestsIn without a block is a zero table.
func TestRequestsInNilBlock(t *testing.T) {
	r := RequestsIn[int](nil)
	_, err := r.Update(Ask{Priority: 1, ResourceName: AnyResource, Capability: berth.New(1024, 1), Count: 1}, false)
	require.NoError(t, err)
	assert.Len(t, r.Keys(), 1)
}

// PendingAfter answers what Update then Pending give, without changing
// the table, and says when that would overflow.
func TestRequestsPendingAfterMatchesUpdate(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for round := 0; round < 300; round++ {
		var r Requests[int]
		var batches [][]Ask
		for b := 0; b < 3; b++ {
			var asks []Ask
			for n := rng.IntN(4); n >= 0; n-- {
				name := []string{AnyResource, "h1", "/r1"}[rng.IntN(3)]
				c := berth.New(int64(rng.IntN(4))*1024, int64(rng.IntN(3)))
				if rng.IntN(10) == 0 {
					c = berth.New(math.MaxInt64/2, 1)
				}
				asks = append(asks, Ask{Priority: int32(rng.IntN(3)), ResourceName: name, Capability: c, Count: rng.IntN(5)})
			}
			batches = append(batches, asks)
		}
		for _, asks := range batches {
			before := r.Pending()
			got, ok := r.PendingAfter(asks)
			require.Equal(t, before, r.Pending(), "PendingAfter changes nothing")
			for _, a := range asks {
				_, err := r.Update(a, a.ResourceName == "/r1")
				require.NoError(t, err)
			}
			// The reference: the exact sum in big integers.
			want, fits := exactPending(&r)
			require.Equal(t, fits, ok, "round %d", round)
			if fits {
				require.Equal(t, r.Pending(), got)
				require.Equal(t, want, got)
			}
		}
	}
}

// exactPending sums Σ capability × count over the keys exactly.
func exactPending(r *Requests[int]) (berth.Resource, bool) {
	mem, vc := new(big.Int), new(big.Int)
	for _, k := range r.Keys() {
		n := big.NewInt(int64(k.Outstanding()))
		mem.Add(mem, new(big.Int).Mul(big.NewInt(k.Capability().Memory), n))
		vc.Add(vc, new(big.Int).Mul(big.NewInt(k.Capability().VCores), n))
	}
	if !mem.IsInt64() || !vc.IsInt64() {
		return berth.Resource{}, false
	}
	return berth.New(mem.Int64(), vc.Int64()), true
}
