package queue

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/berthsched/berth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func accountingTree(t testing.TB) *Tree[int] {
	c := rootOf(
		parent("a", 50, leaf("a1", 50), parent("a2", 50, leaf("x", 100))),
		leaf("b", 50),
	)
	return mustTree(t, c, csOpts)
}

func TestAccountingPropagates(t *testing.T) {
	tr := accountingTree(t)
	x := mustQueue(t, tr, "root.a.a2.x")
	a1 := mustQueue(t, tr, "root.a.a1")
	r := berth.New(1024, 1)

	require.NoError(t, x.SubmitApp("u1"))
	require.NoError(t, x.ActivateApp("u1"))
	require.NoError(t, x.Update("u1", Delta{Pending: r.MulInt(3)}))
	require.NoError(t, x.Update("u1", Delta{Pending: r.Neg(), Used: r})) // an allocation
	require.NoError(t, a1.Allocate("u2", r.MulInt(2)))
	require.NoError(t, a1.Update("u1", Delta{Reserved: r}))

	for _, p := range []string{"root.a.a2.x", "root.a.a2"} {
		q := mustQueue(t, tr, p)
		assert.Equal(t, Usage{Used: r, Pending: r.MulInt(2), ActiveApps: 1}, q.Usage(), p)
	}
	a := mustQueue(t, tr, "root.a")
	want := Usage{Used: r.MulInt(3), Pending: r.MulInt(2), Reserved: r, ActiveApps: 1}
	assert.True(t, want.Equal(a.Usage()), "%v", a.Usage())
	assert.True(t, want.Equal(tr.Root().Usage()))
	assert.Equal(t, []string{"u1", "u2"}, a.Users())
	assert.Equal(t, Usage{Used: r.MulInt(2)}, a.UserUsage("u2"))
	assert.Equal(t, Usage{Used: r, Pending: r.MulInt(2), Reserved: r, ActiveApps: 1}, tr.Root().UserUsage("u1"))
	assert.Equal(t, Usage{}, tr.Root().UserUsage("nobody"))
	assert.Equal(t, 1, tr.Root().ActiveApps())
	assert.Equal(t, 0, tr.Root().PendingApps())
	assert.Equal(t, 1, tr.Root().NumApps())
	assert.Equal(t, r.MulInt(3), tr.Root().Used())
	assert.Equal(t, r.MulInt(2), tr.Root().Pending())
	assert.Equal(t, r, tr.Root().Reserved())
	assert.Equal(t, 0, mustQueue(t, tr, "root.b").NumUsers())

	// Releasing everything removes the users again.
	require.NoError(t, x.Release("u1", r))
	require.NoError(t, x.Update("u1", Delta{Pending: r.MulInt(2).Neg()}))
	require.NoError(t, x.FinishApp("u1", true))
	require.NoError(t, a1.Release("u2", r.MulInt(2)))
	require.NoError(t, a1.Update("u1", Delta{Reserved: r}.Neg()))
	assert.True(t, tr.Root().Usage().IsZero())
	assert.Equal(t, 0, tr.Root().NumUsers())
	assert.Empty(t, tr.Root().Users())
}

func TestAccountingRefusals(t *testing.T) {
	tr := accountingTree(t)
	x := mustQueue(t, tr, "root.a.a2.x")
	b := mustQueue(t, tr, "root.b")
	r := berth.New(1024, 1)
	require.NoError(t, x.Allocate("u1", r))
	require.NoError(t, b.Allocate("u2", r))
	require.NoError(t, x.SubmitApp("u1"))
	before := tr.Snapshot()

	huge := berth.New(math.MaxInt64, 0)
	tests := []struct {
		name  string
		q     *Queue[int]
		user  string
		d     Delta
		kind  error
		field string
	}{
		{"parent", mustQueue(t, tr, "root.a"), "u1", Delta{Used: r}, berth.ErrInvalidArgument, ""},
		{"empty user", x, "", Delta{Used: r}, berth.ErrInvalidArgument, "user"},
		{"release more than the user holds", x, "u1", Delta{Used: r.MulInt(2).Neg()}, berth.ErrInvalidState, "used"},
		{"release another user's", x, "u2", Delta{Used: r.Neg()}, berth.ErrInvalidState, "used"},
		{"release vcores only", x, "u1", Delta{Used: berth.New(0, -2)}, berth.ErrInvalidState, "used"},
		{"negative pending", x, "u1", Delta{Pending: r.Neg()}, berth.ErrInvalidState, "pending"},
		{"negative reserved", x, "u1", Delta{Reserved: r.Neg()}, berth.ErrInvalidState, "reserved"},
		{"activate without pending", x, "u2", Delta{PendingApps: -1, ActiveApps: 1}, berth.ErrInvalidState, "pending-apps"},
		{"finish not active", x, "u1", Delta{ActiveApps: -1}, berth.ErrInvalidState, "active-apps"},
		{"negative extra type", x, "u1", Delta{Used: berth.NewWithExtras(0, 0, berth.Quantity{Name: berth.ResourceGPU, Value: -1})}, berth.ErrInvalidState, "used"},
		// x holds 1024 MB: MaxInt64 fits in x alone? No: 1024+MaxInt64 overflows at x.
		{"overflow at the leaf", x, "u1", Delta{Used: huge}, berth.ErrInvalidArgument, "used"},
		// b's user u3 holds nothing, b holds 1024: MaxInt64-1024 fits b, then overflows at root (2048 held).
		{"overflow at the root", b, "u3", Delta{Used: berth.New(math.MaxInt64-1024, 0)}, berth.ErrInvalidArgument, "used"},
		{"overflow of an app count", x, "u1", Delta{PendingApps: math.MaxInt}, berth.ErrInvalidArgument, "pending-apps"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.q.Update(tc.user, tc.d)
			require.Error(t, err)
			assert.ErrorIs(t, err, tc.kind)
			assert.Equal(t, tc.field, asQueueError(t, err).Field)
			after := tr.Snapshot()
			assert.Equal(t, before.Queues, after.Queues, "all-or-nothing")
		})
	}
	assert.ErrorIs(t, x.FinishApp("u1", true), berth.ErrInvalidState)
	assert.NoError(t, x.FinishApp("u1", false))
}

// model is the reference: usage per (leaf, user), summed on demand.
type model map[string]map[string]Usage

func (m model) apply(leaf, user string, d Delta) {
	if m[leaf] == nil {
		m[leaf] = map[string]Usage{}
	}
	m[leaf][user] = addUsage(m[leaf][user], d)
}

func (m model) canApply(leaf, user string, d Delta) bool {
	u := addUsage(m[leaf][user], d)
	return !u.Used.AnyNegative() && !u.Pending.AnyNegative() && !u.Reserved.AnyNegative() && u.PendingApps >= 0 && u.ActiveApps >= 0
}

// expected returns what a queue (its subtree) should hold for every user.
func (m model) expected(q *Queue[int]) (Usage, map[string]Usage) {
	total := Usage{}
	users := map[string]Usage{}
	for leaf, us := range m {
		lp, _ := ParsePath(leaf)
		if lp != q.Path() && !q.Path().IsAncestorOf(lp) {
			continue
		}
		for u, v := range us {
			total = addUsage(total, Delta(v))
			users[u] = addUsage(users[u], Delta(v))
		}
	}
	for u, v := range users {
		if v.IsZero() {
			delete(users, u)
		}
	}
	return total, users
}

// TestAccountingProperty replays random charge/release sequences against
// the model: parents equal the sum of their children, users sum to their
// queue, nothing is ever negative, and refused updates change nothing.
func TestAccountingProperty(t *testing.T) {
	steps := 3000
	if testing.Short() || raceEnabled {
		steps = 500
	}
	for seed := uint64(1); seed <= 4; seed++ {
		rng := rand.New(rand.NewPCG(seed, 42))
		tr := accountingTree(t)
		leaves := tr.Leaves()
		m := model{}
		users := []string{"u1", "u2", "u3"}
		refused := 0
		for step := 0; step < steps; step++ {
			l := leaves[rng.IntN(len(leaves))]
			u := users[rng.IntN(len(users))]
			res := func() berth.Resource {
				r := berth.New(rng.Int64N(9)-4, rng.Int64N(5)-2)
				if rng.IntN(8) == 0 {
					r = r.With(berth.ResourceGPU, rng.Int64N(3)-1)
				}
				return r
			}
			var d Delta
			switch rng.IntN(6) {
			case 0:
				d.Used = res()
			case 1:
				d.Pending = res()
			case 2:
				d.Reserved = res()
			case 3:
				d.PendingApps = rng.IntN(3) - 1
			case 4:
				d = Delta{PendingApps: -1, ActiveApps: 1}
			default:
				d = Delta{Used: res(), Pending: res(), Reserved: res(), PendingApps: rng.IntN(3) - 1, ActiveApps: rng.IntN(3) - 1}
			}
			err := l.Update(u, d)
			if m.canApply(l.Path().String(), u, d) {
				require.NoError(t, err, "step %d", step)
				m.apply(l.Path().String(), u, d)
			} else {
				require.Error(t, err, "step %d: %v on %s/%s", step, d, l.Path(), u)
				refused++
			}
			if step%50 == 0 || step == steps-1 {
				checkInvariants(t, tr, m)
			}
		}
		assert.Positive(t, refused, "the sequence exercised refusals")
	}
}

func checkInvariants(t *testing.T, tr *Tree[int], m model) {
	t.Helper()
	for q := range tr.All() {
		want, wantUsers := m.expected(q)
		require.True(t, want.Equal(q.Usage()), "%s: want %+v got %+v", q.Path(), want, q.Usage())
		require.Len(t, q.Users(), len(wantUsers), q.Path().String())
		sum := Usage{}
		for _, u := range q.Users() {
			got := q.UserUsage(u)
			require.True(t, wantUsers[u].Equal(got), "%s/%s", q.Path(), u)
			require.False(t, got.IsZero())
			sum = addUsage(sum, Delta(got))
		}
		require.True(t, sum.Equal(q.Usage()), "users sum to the queue at %s", q.Path())
		if q.NumChildren() > 0 {
			cs := Usage{}
			for _, c := range q.Children() {
				cs = addUsage(cs, Delta(c.Usage()))
			}
			require.True(t, cs.Equal(q.Usage()), "children sum to the parent at %s", q.Path())
		}
		u := q.Usage()
		require.False(t, u.Used.AnyNegative() || u.Pending.AnyNegative() || u.Reserved.AnyNegative() || u.PendingApps < 0 || u.ActiveApps < 0)
	}
}

func TestDeltaHelpers(t *testing.T) {
	d := Delta{Used: berth.New(1, 2), PendingApps: 3}
	assert.Equal(t, Delta{Used: berth.New(-1, -2), Pending: berth.New(0, 0), Reserved: berth.New(0, 0), PendingApps: -3}, d.Neg())
	assert.False(t, d.IsZero())
	assert.True(t, Delta{}.IsZero())
	assert.Equal(t, 5, Usage{PendingApps: 2, ActiveApps: 3}.Apps())
}

func TestMove(t *testing.T) {
	tr := accountingTree(t)
	x := mustQueue(t, tr, "root.a.a2.x")
	a1 := mustQueue(t, tr, "root.a.a1")
	b := mustQueue(t, tr, "root.b")
	r := berth.New(1024, 1)
	require.NoError(t, x.SubmitApp("u"))
	require.NoError(t, x.ActivateApp("u"))
	require.NoError(t, x.Update("u", Delta{Used: r.MulInt(2), Reserved: r}))
	app := Delta{Used: r.MulInt(2), Reserved: r, ActiveApps: 1}

	require.NoError(t, Move(x, a1, "u", app))
	assert.True(t, x.Usage().IsZero())
	assert.Equal(t, Usage{Used: r.MulInt(2), Reserved: r, ActiveApps: 1}, a1.Usage())
	assert.Equal(t, Usage{Used: r.MulInt(2), Reserved: r, ActiveApps: 1}, mustQueue(t, tr, "root.a").Usage())
	assert.Equal(t, 0, x.NumUsers())

	before := tr.Snapshot()
	assert.ErrorIs(t, Move(a1, b, "u", Delta{Used: r.MulInt(3)}), berth.ErrInvalidState, "more than held")
	assert.ErrorIs(t, Move(a1, b, "v", Delta{Used: r}), berth.ErrInvalidState, "another user's")
	assert.ErrorIs(t, Move(a1, mustQueue(t, tr, "root.a"), "u", Delta{Used: r}), berth.ErrInvalidArgument, "to a parent")
	assert.ErrorIs(t, Move(a1, b, "u", Delta{Used: r.Neg()}), berth.ErrInvalidArgument, "negative amount")
	assert.NoError(t, Move(a1, a1, "u", app), "same queue: nothing to do")
	assert.ErrorIs(t, Move(a1, a1, "v", app), berth.ErrInvalidState, "same queue, but v holds nothing")
	assert.ErrorIs(t, Move(nil, a1, "u", app), berth.ErrInvalidArgument)
	assert.Equal(t, before.Queues, tr.Snapshot().Queues)
}
