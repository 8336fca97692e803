package order

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// checkOrderVals checks that a small set's copy of the values (Set.vals)
// is in step with its entries: one value per id, the entry's own for an id
// in use, the zero value (no reference held) for a free one, every free id
// unused and every used id in exactly one slot; and that a set on the
// btree keeps no slice state at all.
func checkOrderVals[K any](t *testing.T, o *Set[K, *string], msg string) {
	t.Helper()
	if o.tree != nil {
		require.Nil(t, o.small, msg)
		require.Nil(t, o.ents, msg)
		require.Nil(t, o.vals, msg)
		require.Nil(t, o.free, msg)
		return
	}
	require.Len(t, o.vals, len(o.ents), msg)
	free := map[uint32]bool{}
	for _, id := range o.free {
		require.False(t, free[id], "%s: id %d free twice", msg, id)
		free[id] = true
	}
	inSlot := map[uint32]int{}
	for _, x := range o.small {
		inSlot[x.id]++
	}
	for id, e := range o.ents {
		id := uint32(id)
		if e == nil {
			require.True(t, free[id], "%s: id %d neither used nor free", msg, id)
			require.Nil(t, o.vals[id], "%s: free id %d keeps a value", msg, id)
			require.Zero(t, inSlot[id], "%s: free id %d in a slot", msg, id)
			continue
		}
		require.False(t, free[id], "%s: used id %d is free", msg, id)
		require.Same(t, e.Value, o.vals[id], "%s: id %d's value", msg, id)
		require.Equal(t, 1, inSlot[id], "%s: id %d in %d slots", msg, id, inSlot[id])
		require.Equal(t, id, e.sid, msg)
		require.Same(t, o, e.in, msg)
	}
}

// TestOrderValsInStep drives a Set with pointer values through
// inserts, removals (freeing ids that later inserts reuse), re-keys of
// every size (the shift-the-front move included), early-stopping walks,
// clears and the move to the btree, and checks after each step that the
// values a walk reads beside the slots are the entries' own: a walk
// returns, in order, exactly the members' values.
func TestOrderValsInStep(t *testing.T) {
	for seed := range uint64(6) {
		rng := rand.New(rand.NewPCG(seed, 5))
		o := New[int, *string](func(a, b *int) int { return cmp.Compare(*a, *b) })
		o.limit = 8 + int(seed%3)*20 // the btree is reached in some runs, not others
		names := make([]string, 64)
		es := make([]Entry[int, *string], len(names))
		key := map[int]int{}
		index := map[*string]int{}
		for i := range es {
			names[i] = fmt.Sprint("app", i)
			es[i].Value = &names[i]
			index[&names[i]] = i
		}
		for step := range raceScaled(3000) {
			i := rng.IntN(len(es))
			e := &es[i]
			switch op := rng.IntN(20); {
			case op < 7:
				k := rng.IntN(100)
				o.Insert(e, k)
				key[i] = k
			case op < 11:
				o.Remove(e)
				delete(key, i)
			case op < 17:
				// mostly past everything (the front item served and
				// re-keyed to the back), else anywhere
				k := 1000 + step
				if rng.IntN(3) == 0 {
					k = rng.IntN(100)
				}
				o.Rekey(e, k)
				key[i] = k
			case op == 17 && rng.IntN(30) == 0:
				o.Clear()
				clear(key)
			default:
				stop := rng.IntN(len(key) + 1)
				n := 0
				o.Ascend(func(*string) bool { n++; return n < stop })
			}
			msg := fmt.Sprintf("seed %d step %d", seed, step)
			checkOrderVals(t, o, msg)
			var got []*string
			o.Ascend(func(v *string) bool { got = append(got, v); return true })
			require.Len(t, got, len(key), "%s", msg)
			walked := map[*string]bool{}
			for j, v := range got {
				idx, ok := index[v]
				require.True(t, ok, "%s: a walk returned a value no entry has", msg)
				_, member := key[idx]
				require.True(t, member, "%s: a walk returned %s, not a member", msg, *v)
				require.False(t, walked[v], "%s: %s walked twice", msg, *v)
				walked[v] = true
				if j > 0 {
					assert.LessOrEqual(t, key[index[got[j-1]]], key[idx], "%s: walk order", msg)
				}
			}
		}
	}
}

// TestOrderValsNaNKeys: with a comparison that is not a strict weak order
// (float keys with NaNs compared by <), a binary search may miss an
// entry and find falls back to a scan by id: the values stay in step with
// the entries all the same, and every member is walked once.
func TestOrderValsNaNKeys(t *testing.T) {
	for seed := range uint64(6) {
		rng := rand.New(rand.NewPCG(seed, 9))
		o := New[float64, *string](func(a, b *float64) int {
			switch {
			case *a < *b:
				return -1
			case *a > *b:
				return 1
			}
			return 0
		})
		names := make([]string, 40)
		es := make([]Entry[float64, *string], len(names))
		in := map[int]bool{}
		for i := range es {
			names[i] = string(rune('a' + i))
			es[i].Value = &names[i]
		}
		for step := range raceScaled(2000) {
			i := rng.IntN(len(es))
			k := float64(rng.IntN(10))
			if rng.IntN(4) == 0 {
				k = math.NaN()
			}
			switch rng.IntN(5) {
			case 0:
				o.Remove(&es[i])
				delete(in, i)
			default:
				o.Rekey(&es[i], k)
				in[i] = true
			}
			checkOrderVals(t, o, "nan keys")
			seen := map[*string]int{}
			o.Ascend(func(v *string) bool { seen[v]++; return true })
			require.Len(t, seen, len(in), "seed %d step %d", seed, step)
			for j := range in {
				require.Equal(t, 1, seen[&names[j]], "seed %d step %d: %s walked", seed, step, names[j])
			}
		}
	}
}
