package queue

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/berthsched/berth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestUserRefMatchesModel replays random charge/release streams through
// UpdateRef with a small pool of UserRefs, each reused for whatever leaf and
// user the step picks (so refs go stale by switching, by their entries
// dropping to zero and being reused, and by refusals), and checks every
// result and the whole tree against the reference model that Update is
// checked against.
func TestUserRefMatchesModel(t *testing.T) {
	steps := 4000
	if testing.Short() || raceEnabled {
		steps = 600
	}
	for seed := uint64(1); seed <= 4; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		tr := accountingTree(t)
		if seed%2 == 0 {
			tr = deepTree(t) // deeper than a UserRef keeps in place
		}
		leaves := tr.Leaves()
		m := model{}
		users := []string{"u1", "u2", "u3"}
		refs := make([]UserRef[int], 4)
		refused, hits := 0, 0
		for step := 0; step < steps; step++ {
			// Mostly stay with a ref's last leaf and user, as a holder does.
			ri := rng.IntN(len(refs))
			ref := &refs[ri]
			l, u := ref.leaf, ref.user
			if l == nil || rng.IntN(5) == 0 {
				l, u = leaves[rng.IntN(len(leaves))], users[rng.IntN(len(users))]
			}
			var d Delta
			r := berth.New(rng.Int64N(7)-3, rng.Int64N(5)-2)
			switch rng.IntN(4) {
			case 0:
				d.Used = r
			case 1:
				d.Pending = r
			case 2:
				d.Reserved = r
			default:
				d.PendingApps, d.ActiveApps = rng.IntN(3)-1, rng.IntN(3)-1
			}
			if ref.leaf == l && ref.user == u && ref.near[0].q != nil {
				hits++
			}
			err := l.UpdateRef(ref, u, d)
			if m.canApply(l.Path().String(), u, d) {
				require.NoError(t, err, "step %d", step)
				m.apply(l.Path().String(), u, d)
			} else {
				require.ErrorIs(t, err, berth.ErrInvalidState, "step %d", step)
				refused++
			}
			checkInvariants(t, tr, m)
		}
		assert.Positive(t, refused, "the stream exercised refusals")
		assert.Greater(t, hits, steps/2, "the stream reused refs")
	}
}

// TestUserRefStaleAfterRemoval: an entry that dropped to zero is reused for
// another user; a ref still pointing at it must not charge that user.
func TestUserRefStaleAfterRemoval(t *testing.T) {
	tr := accountingTree(t)
	x := mustQueue(t, tr, "root.a.a2.x")
	r := berth.New(1024, 1)
	var refA UserRef[int]
	require.NoError(t, x.UpdateRef(&refA, "a", Delta{Used: r}))
	require.NoError(t, x.UpdateRef(&refA, "a", Delta{Used: r.Neg()})) // a's entries leave the maps
	require.NoError(t, x.Update("b", Delta{Used: r.MulInt(2)}))       // and are reused for b
	require.NoError(t, x.UpdateRef(&refA, "a", Delta{Used: r}))
	for _, p := range []string{"root.a.a2.x", "root.a.a2", "root.a", "root"} {
		q := mustQueue(t, tr, p)
		assert.Equal(t, Usage{Used: r}, q.UserUsage("a"), p)
		assert.Equal(t, Usage{Used: r.MulInt(2)}, q.UserUsage("b"), p)
	}
	// Switching leaf or user through the same ref charges the right entries.
	b := mustQueue(t, tr, "root.b")
	require.NoError(t, b.UpdateRef(&refA, "a", Delta{Used: r}))
	require.NoError(t, b.UpdateRef(&refA, "c", Delta{Used: r}))
	assert.Equal(t, Usage{Used: r.MulInt(2)}, tr.Root().UserUsage("a"))
	assert.Equal(t, Usage{Used: r}, tr.Root().UserUsage("c"))
	assert.Equal(t, Usage{Used: r}, b.UserUsage("c"))
	// A refused update through a ref changes nothing.
	before := tr.Snapshot()
	require.ErrorIs(t, b.UpdateRef(&refA, "c", Delta{Used: r.MulInt(2).Neg()}), berth.ErrInvalidState)
	assert.Equal(t, before.Queues, tr.Snapshot().Queues)
}

// FuzzUserRef is FuzzAccounting through UserRefs picked by the input.
func FuzzUserRef(f *testing.F) {
	f.Add([]byte{0, 0, 0, 1, 5, 5, 0, 0, 0, 1, 3, 3})
	f.Add([]byte{1, 2, 0, 3, 200, 7, 7, 1, 1, 0, 0, 9})
	f.Add([]byte{3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3, 2, 3, 8, 4, 6, 2, 6, 4, 3, 3})
	f.Fuzz(func(t *testing.T, data []byte) {
		tr := accountingTree(t)
		leaves := tr.Leaves()
		src := &byteSource{b: data}
		m := model{}
		refs := make([]UserRef[int], 3)
		res := func() berth.Resource {
			return berth.New(int64(src.n(9))-4, int64(src.n(5))-2)
		}
		for steps := 0; src.i < len(data) && steps < 200; steps++ {
			ref := &refs[src.n(len(refs))]
			l := leaves[src.n(len(leaves))]
			u := []string{"a", "b"}[src.n(2)]
			var d Delta
			switch src.n(4) {
			case 0:
				d.Used = res()
			case 1:
				d.Pending = res()
			case 2:
				d.Reserved = res()
			default:
				d.PendingApps, d.ActiveApps = src.n(3)-1, src.n(3)-1
			}
			err := l.UpdateRef(ref, u, d)
			if m.canApply(l.Path().String(), u, d) {
				if err != nil {
					t.Fatalf("refused valid update %+v: %v", d, err)
				}
				m.apply(l.Path().String(), u, d)
			} else if err == nil {
				t.Fatalf("accepted invalid update %+v", d)
			} else if !errors.Is(err, berth.ErrInvalidState) {
				t.Fatalf("unexpected error kind: %v", err)
			}
			checkInvariants(t, tr, m)
		}
	})
}

// deepTree has leaves six levels down.
func deepTree(t testing.TB) *Tree[int] {
	c := rootOf(
		parent("a", 50, parent("b", 100, parent("c", 100, parent("d", 100, parent("e", 100, leaf("x", 50), leaf("y", 50)))))),
		leaf("z", 50),
	)
	return mustTree(t, c, csOpts)
}
