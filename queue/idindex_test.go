package queue

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// liveItem stands for a scheduler's container record.
type liveItem struct{ id ContainerID }

// checkLive compares x with the reference map: lookups of every id seen,
// the count, the id order of all, and that no empty page is kept.
func checkLive(t *testing.T, x *IDIndex[liveItem], ref map[ContainerID]*liveItem, ids []ContainerID) {
	t.Helper()
	for _, id := range ids {
		c, ok := x.Get(id)
		want, wok := ref[id]
		require.Equal(t, wok, ok, "get(%d)", id)
		require.Same(t, want, c, "get(%d)", id)
	}
	require.Equal(t, len(ref), x.Len())
	var got []ContainerID
	for _, c := range x.All() {
		got = append(got, c.id)
	}
	want := make([]ContainerID, 0, len(ref))
	for id := range ref {
		want = append(want, id)
	}
	slices.Sort(want)
	require.Equal(t, want, append([]ContainerID{}, got...), "ids in order")
	for k, p := range x.pages {
		require.Positive(t, p.n, "page %d kept empty", k)
	}
}

// liveSteps runs ops decoded from b on an IDIndex and on a map: ids are
// handed out increasing (as newID does, with gaps for reservations) and
// removed at random, sometimes twice or before they exist.
func liveSteps(t *testing.T, b []byte) {
	x, ref := &IDIndex[liveItem]{}, map[ContainerID]*liveItem{}
	var next ContainerID
	var seen []ContainerID
	for i := 0; i+1 < len(b); i += 2 {
		op, arg := b[i]%4, ContainerID(b[i+1])
		switch op {
		case 0, 1: // add, after a gap of arg%3 ids
			next += 1 + arg%3
			c := &liveItem{}
			c.id = next
			x.Put(c.id, c)
			ref[next] = c
			seen = append(seen, next)
		case 2: // remove an id seen (or about to be)
			if len(seen) > 0 {
				id := seen[int(arg)%len(seen)]
				x.Delete(id)
				delete(ref, id)
			}
		case 3: // remove an unknown id, maybe on a page that does not exist
			id := next + 1 + arg*idPageSize
			x.Delete(id)
			seen = append(seen, id)
		}
		checkLive(t, x, ref, seen)
	}
}

func TestIDIndexMatchesMap(t *testing.T) {
	for seed := uint64(0); seed < uint64(raceScaled(40)); seed++ {
		r := rand.New(rand.NewPCG(seed, 7))
		b := make([]byte, 2*(50+r.IntN(400)))
		for i := range b {
			b[i] = byte(r.UintN(256))
		}
		// Bias some runs to long removal phases, so pages empty and go.
		if seed%2 == 1 {
			for i := len(b) / 2; i < len(b); i += 2 {
				b[i] = 2
			}
		}
		liveSteps(t, b)
	}
}

func TestIDIndexEdges(t *testing.T) {
	x := &IDIndex[liveItem]{}
	_, ok := x.Get(0)
	assert.False(t, ok, "empty index")
	x.Delete(5) // unknown id: no effect
	assert.Equal(t, 0, x.Len())
	// Ids on a page boundary and a re-put of a live id.
	for _, id := range []ContainerID{idPageSize - 1, idPageSize, 2*idPageSize + 1} {
		c := &liveItem{}
		c.id = id
		x.Put(c.id, c)
		x.Put(c.id, c)
	}
	assert.Equal(t, 3, x.Len())
	assert.Len(t, x.pages, 3)
	x.Delete(idPageSize)
	assert.Len(t, x.pages, 2, "the emptied page is dropped")
	_, ok = x.Get(idPageSize)
	assert.False(t, ok)
	c, ok := x.Get(2*idPageSize + 1)
	require.True(t, ok)
	assert.Equal(t, ContainerID(2*idPageSize+1), c.id)
}

func FuzzIDIndex(f *testing.F) {
	f.Add([]byte{0, 0, 0, 1, 2, 0, 2, 0, 3, 9})
	f.Add([]byte{1, 2, 1, 2, 1, 2, 2, 1, 2, 0, 2, 2, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 4096 {
			b = b[:4096]
		}
		liveSteps(t, b)
	})
}
