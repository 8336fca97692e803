package order

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// orderModel is the reference: every member with its key, sorted from
// scratch on each look (ties by insertion order, as Set promises).
type orderModel struct {
	key map[int]int
	at  map[int]int // insertion sequence
	seq int
	pre func(*int) Prefix // the Set's prefix, nil for none
}

func (m *orderModel) sorted() []int {
	var out []int
	for v := range m.key {
		out = append(out, v)
	}
	slices.SortFunc(out, func(a, b int) int {
		if m.pre != nil {
			ka, kb := m.key[a], m.key[b]
			pa, pb := m.pre(&ka), m.pre(&kb)
			if c := slices.Compare(pa[:], pb[:]); c != 0 {
				return c
			}
		}
		if c := cmp.Compare(m.key[a], m.key[b]); c != 0 {
			return c
		}
		return cmp.Compare(m.at[a], m.at[b])
	})
	return out
}

// orderPrefixes are the prefixes runOrder tries (by seed): none, one that
// follows the keys coarsely (many equal prefixes, decided by the keys),
// and one that does not follow them (the order is by prefix first).
var orderPrefixes = []func(*int) Prefix{
	nil,
	func(k *int) Prefix { return Prefix{uint64(*k / 16)} },
	func(k *int) Prefix { return Prefix{0, 0, uint64(*k % 5), uint64(*k % 3)} },
}

// runOrder applies random inserts, removes, re-keys (often to the same or a
// nearby key), clears and early-stopping walks to a Set and the model,
// growing past the slice-to-btree switch, and compares them after every
// operation.
func runOrder(t *testing.T, seed uint64, steps int) {
	rng := rand.New(rand.NewPCG(seed, 3))
	pre := orderPrefixes[seed%3]
	o := NewPrefixed[int, int](func(a, b *int) int { return cmp.Compare(*a, *b) }, pre)
	if seed%2 == 0 {
		o.limit = 1 + int(seed%64) // reach the btree with few items too
	}
	m := &orderModel{key: map[int]int{}, at: map[int]int{}, pre: pre}
	es := make([]Entry[int, int], 400)
	for i := range es {
		es[i].Value = i
	}
	keys := 1 + rng.IntN(1000) // few distinct keys: many ties
	for step := range steps {
		v := rng.IntN(len(es))
		e := &es[v]
		k := rng.IntN(keys)
		switch op := rng.IntN(20); {
		case op < 8:
			o.Insert(e, k)
			m.seq++
			m.key[v], m.at[v] = k, m.seq
		case op < 11:
			o.Remove(e)
			delete(m.key, v)
		case op < 18:
			if old, ok := m.key[v]; ok && rng.IntN(2) == 0 {
				k = old + rng.IntN(3) - 1 // small moves, and no move at all
			}
			if rng.IntN(2) == 0 {
				o.Rekey(e, k)
			} else {
				o.RekeyPtr(e, &k) // the same notification, by pointer
			}
			if old, ok := m.key[v]; !ok || old != k {
				if !ok {
					m.seq++
					m.at[v] = m.seq
				}
				m.key[v] = k
			}
		case op == 18 && rng.IntN(20) == 0:
			o.Clear()
			clear(m.key)
		default:
			stop := rng.IntN(len(m.key) + 1)
			var got []int
			o.Ascend(func(v int) bool { got = append(got, v); return len(got) < stop })
			want := m.sorted()
			if stop > 0 {
				want = want[:min(stop, len(want))]
			} else if len(want) > 0 {
				want = want[:1]
			}
			require.Equal(t, want, got, "seed %d step %d: early stop at %d", seed, step, stop)
		}
		var got []int
		o.Ascend(func(v int) bool { got = append(got, v); return true })
		want := m.sorted()
		if len(want) == 0 {
			want = nil
		}
		require.Equal(t, want, got, "seed %d step %d", seed, step)
		require.Equal(t, len(want), o.Len())
		if o.tree == nil {
			// Every slot's id names its entry; ids not in use are free.
			require.Equal(t, len(o.small), len(o.ents)-len(o.free), "seed %d step %d", seed, step)
			for i, x := range o.small {
				require.Equal(t, x.id, o.ents[x.id].sid, "seed %d step %d slot %d", seed, step, i)
			}
		}
		_, in := m.key[v]
		assert.Equal(t, in, e.In(o))
		if in {
			assert.Equal(t, m.key[v], e.Key())
		}
	}
}

// TestOrderMatchesSortedModel is Set's property test: after any sequence
// of changes it walks its members exactly as a sort of their keys does.
func TestOrderMatchesSortedModel(t *testing.T) {
	for seed := range uint64(raceScaled(12)) {
		runOrder(t, seed, 1500)
	}
}

func FuzzOrder(f *testing.F) {
	for _, s := range []uint64{0, 1, 99} {
		f.Add(s, uint16(2000))
	}
	f.Fuzz(func(t *testing.T, seed uint64, steps uint16) {
		runOrder(t, seed, int(steps%5000))
	})
}

// TestOrderMovesBetweenOrders: inserting an entry of one Set into
// another moves it.
func TestOrderMovesBetweenOrders(t *testing.T) {
	c := func(a, b *int) int { return cmp.Compare(*a, *b) }
	a, b := New[int, string](c), New[int, string](c)
	e := &Entry[int, string]{Value: "x"}
	a.Insert(e, 1)
	require.True(t, e.In(a))
	b.Rekey(e, 2)
	assert.False(t, e.In(a))
	assert.True(t, e.In(b))
	assert.Equal(t, 0, a.Len())
	assert.Equal(t, 1, b.Len())
	assert.Same(t, b, e.Member())
	b.Remove(e)
	assert.Nil(t, e.Member())
}

// TestOrderRoundRobinRekeys is the schedulers' common pattern: the item
// served first is re-keyed past all others, over and over, which moves the
// slice's start forward (Rekey) and, when the end is reached, compacts it
// back into its backing array (room). The walk stays sorted throughout and
// the backing array stays within a small multiple of the set's size.
func TestOrderRoundRobinRekeys(t *testing.T) {
	for _, n := range []int{1, 2, 3, 10, 100} {
		o := New[int, int](func(a, b *int) int { return cmp.Compare(*a, *b) })
		es := make([]Entry[int, int], n)
		keys := make([]int, n)
		for i := range es {
			es[i].Value = i
			keys[i] = i
			o.Insert(&es[i], i)
		}
		next := n
		for step := range 20 * n {
			var first int
			o.Ascend(func(v int) bool { first = v; return false })
			// Mostly to the back; every fifth move lands mid-way, which
			// shifts the slots between the two places instead.
			k := next
			if step%5 == 4 {
				k = keys[(first+n/2)%n]
			} else {
				next++
			}
			keys[first] = k
			o.Rekey(&es[first], k)
			var got []int
			o.Ascend(func(v int) bool { got = append(got, v); return true })
			want := make([]int, n)
			for i := range want {
				want[i] = i
			}
			// Ties (a mid-way move onto another item's key) go by
			// insertion sequence, as Set promises.
			slices.SortStableFunc(want, func(a, b int) int {
				if c := cmp.Compare(keys[a], keys[b]); c != 0 {
					return c
				}
				return cmp.Compare(es[a].seq, es[b].seq)
			})
			require.Equal(t, want, got, "n %d step %d", n, step)
			assert.LessOrEqual(t, cap(o.base), max(4*n, 8), "n %d step %d: the backing array grows", n, step)
		}
	}
}
