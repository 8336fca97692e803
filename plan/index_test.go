package plan

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/berthsched/berth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The copy-on-write interval treap against a brute-force list: queries agree,
// keys stay ordered, and roots kept before an owner change (a snapshot) are never changed by later updates.
func TestTreapAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	var root *tnode
	o := new(owner)
	x := newIvIndex() // the two-part index over the same keys
	live := map[ivKey]*Allocation{}
	type version struct {
		root *tnode
		keys []ivKey
	}
	var versions []version
	keysOf := func(m map[ivKey]*Allocation) []ivKey {
		var ks []ivKey
		for k := range m {
			ks = append(ks, k)
		}
		slices.SortFunc(ks, ivKey.compare)
		return ks
	}
	walk := func(n *tnode) []ivKey {
		var out []ivKey
		overlapping(n, berth.MinTime, berth.MaxTime, func(a *Allocation) bool {
			out = append(out, ivKey{a.Start, a.End, a.ID})
			return true
		})
		return out
	}
	for step := 0; step < 400; step++ {
		if rng.IntN(3) > 0 || len(live) == 0 {
			s := berth.Time(rng.IntN(1000))
			k := ivKey{start: s, end: s + 1 + berth.Time(rng.IntN(200)), id: rid(int64(step + 1))}
			a := &Allocation{ID: k.id, Start: k.start, End: k.end}
			root = treapInsert(root, k, a, o)
			x.insert(a, o)
			live[k] = a
		} else {
			ks := keysOf(live)
			k := ks[rng.IntN(len(ks))]
			var ok bool
			root, ok = treapDelete(root, k, o)
			require.True(t, ok)
			require.True(t, x.delete(live[k], o))
			delete(live, k)
		}
		if step%40 == 0 {
			// A snapshot: the kept root's nodes now belong to nobody
			// who changes them, so later changes copy them.
			versions = append(versions, version{root, keysOf(live)})
			o = new(owner)
		}
		require.Equal(t, len(live), treapSize(root))
		s := berth.Time(rng.IntN(1200)) - 100
		e := s + berth.Time(rng.IntN(300))
		var want []ivKey
		for _, k := range keysOf(live) {
			if k.start <= e && k.end > s {
				want = append(want, k)
			}
		}
		var got []ivKey
		overlapping(root, s, e, func(a *Allocation) bool {
			got = append(got, ivKey{a.Start, a.End, a.ID})
			return true
		})
		require.Equal(t, want, got, "[%d, %d]", s, e)
		var fromIndex []ivKey
		for _, a := range x.appendOverlapping(nil, s, e) {
			fromIndex = append(fromIndex, ivKey{a.Start, a.End, a.ID})
		}
		require.Equal(t, want, fromIndex, "index [%d, %d]", s, e)
		require.Len(t, x.appendOverlapping(nil, berth.MinTime, berth.MaxTime), len(live), "everything")
	}
	for i, v := range versions {
		assert.Equal(t, v.keys, walk(v.root), "version %d changed", i)
	}
	// Deleting an absent key returns the same root, untouched.
	same, ok := treapDelete(root, ivKey{start: -5, end: -4}, o)
	assert.False(t, ok)
	assert.Same(t, root, same)
}
