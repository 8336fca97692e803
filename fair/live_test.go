package fair

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// checkLive compares x with the reference map: lookups of every id seen,
// the count, the id order of all, and that no empty page is kept.
func checkLive(t *testing.T, x *liveIndex, ref map[ContainerID]*container, ids []ContainerID) {
	t.Helper()
	for _, id := range ids {
		c, ok := x.get(id)
		want, wok := ref[id]
		require.Equal(t, wok, ok, "get(%d)", id)
		require.Same(t, want, c, "get(%d)", id)
	}
	require.Equal(t, len(ref), x.len())
	var got []ContainerID
	for _, c := range x.all() {
		got = append(got, c.ID)
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

// liveSteps runs ops decoded from b on a liveIndex and on a map: ids are
// handed out increasing (as newID does, with gaps for reservations) and
// removed at random, sometimes twice or before they exist.
func liveSteps(t *testing.T, b []byte) {
	x, ref := newLiveIndex(), map[ContainerID]*container{}
	var next ContainerID
	var seen []ContainerID
	for i := 0; i+1 < len(b); i += 2 {
		op, arg := b[i]%4, ContainerID(b[i+1])
		switch op {
		case 0, 1: // add, after a gap of arg%3 ids
			next += 1 + arg%3
			c := &container{}
			c.ID = next
			x.put(c)
			ref[next] = c
			seen = append(seen, next)
		case 2: // remove an id seen (or about to be)
			if len(seen) > 0 {
				id := seen[int(arg)%len(seen)]
				x.del(id)
				delete(ref, id)
			}
		case 3: // remove an unknown id, maybe on a page that does not exist
			id := next + 1 + arg*livePageSize
			x.del(id)
			seen = append(seen, id)
		}
		checkLive(t, &x, ref, seen)
	}
}

func TestLiveIndexMatchesMap(t *testing.T) {
	for seed := uint64(0); seed < 40; seed++ {
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

func TestLiveIndexEdges(t *testing.T) {
	x := newLiveIndex()
	_, ok := x.get(0)
	assert.False(t, ok, "empty index")
	x.del(5) // unknown id: no effect
	assert.Equal(t, 0, x.len())
	// Ids on a page boundary and a re-put of a live id.
	for _, id := range []ContainerID{livePageSize - 1, livePageSize, 2*livePageSize + 1} {
		c := &container{}
		c.ID = id
		x.put(c)
		x.put(c)
	}
	assert.Equal(t, 3, x.len())
	assert.Len(t, x.pages, 3)
	x.del(livePageSize)
	assert.Len(t, x.pages, 2, "the emptied page is dropped")
	_, ok = x.get(livePageSize)
	assert.False(t, ok)
	c, ok := x.get(2*livePageSize + 1)
	require.True(t, ok)
	assert.Equal(t, ContainerID(2*livePageSize+1), c.ID)
}

func FuzzLiveIndex(f *testing.F) {
	f.Add([]byte{0, 0, 0, 1, 2, 0, 2, 0, 3, 9})
	f.Add([]byte{1, 2, 1, 2, 1, 2, 2, 1, 2, 0, 2, 2, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 4096 {
			b = b[:4096]
		}
		liveSteps(t, b)
	})
}

// listSteps runs ops decoded from b on two liveLists sharing containers
// (as an application's and a node's do) and on slices: pushes of
// increasing ids, removals at random; both lists must stay in id order.
func listSteps(t *testing.T, b []byte) {
	var l [2]liveList
	var ref [2][]*container
	var next ContainerID
	var all []*container
	for i := 0; i+1 < len(b); i += 2 {
		op, arg := b[i]%3, int(b[i+1])
		switch op {
		case 0, 1: // allocate into the app list and node list arg%2
			next += 1 + ContainerID(arg%3)
			c := &container{}
			c.ID = next
			l[appList].push(c, appList)
			ref[appList] = append(ref[appList], c)
			if arg%2 == 0 {
				l[nodeList].push(c, nodeList)
				ref[nodeList] = append(ref[nodeList], c)
			}
			all = append(all, c)
		case 2: // release from every list holding it
			if len(all) == 0 {
				continue
			}
			j := arg % len(all)
			c := all[j]
			all = slices.Delete(all, j, j+1)
			for w := range l {
				if k := slices.Index(ref[w], c); k >= 0 {
					l[w].remove(c, w)
					ref[w] = slices.Delete(ref[w], k, k+1)
				}
			}
		}
		for w := range l {
			got := l[w].all(w)
			require.Equal(t, len(ref[w]), l[w].n, "list %d count", w)
			require.Equal(t, len(ref[w]), len(got), "list %d length", w)
			for k := range got {
				require.Same(t, ref[w][k], got[k], "list %d item %d", w, k)
				if k > 0 {
					require.Less(t, got[k-1].ID, got[k].ID, "list %d in id order", w)
				}
			}
			if len(got) > 0 {
				require.Same(t, got[len(got)-1], l[w].tail)
			} else {
				require.Nil(t, l[w].tail)
			}
		}
	}
}

func TestLiveListMatchesSlices(t *testing.T) {
	for seed := uint64(0); seed < 40; seed++ {
		r := rand.New(rand.NewPCG(seed, 11))
		b := make([]byte, 2*(20+r.IntN(300)))
		for i := range b {
			b[i] = byte(r.UintN(256))
		}
		listSteps(t, b)
	}
}

func FuzzLiveList(f *testing.F) {
	f.Add([]byte{0, 0, 0, 1, 2, 0, 1, 2, 2, 1, 2, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 2048 {
			b = b[:2048]
		}
		listSteps(t, b)
	})
}
