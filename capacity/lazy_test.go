package capacity

import (
	"testing"

	"github.com/berthsched/berth/queue"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// lazyLockstep is the property of the values the scheduler computes lazily
// or keeps cached: the tree's accounting charged when read (deferAccount),
// the visit headroom computed only for applications that get no container
// (assignLeaf), the cached user limits (userLimit) and the one-child move of
// sorted children (sortChildren). A lazy scheduler and an eager reference
// (which charges the tree at once, computes every headroom, recomputes
// every user limit and sorts every parent in full on every visit) run the
// same random operations and must give the same results; after every step
//   - each cached user limit still valid equals a recomputation from the
//     current state,
//   - the lazy tree plus what it deferred equals the reference's tree, for
//     every queue and every user of every queue,
//
// and every few steps (and at the end) the snapshots, which charge what
// was deferred, are equal, headrooms included.
func lazyLockstep(t *testing.T, seed uint64, steps int) {
	drive(t, seed, steps, func(lazy, eager *Scheduler) {
		eager.eagerAcct, eager.eagerHeadroom, eager.eagerLimits, eager.sortWalk = true, true, true, true
		lazy.checkOrder = true
		if seed%4 != 3 {
			lazy.sortFan = int(seed % 3) // kept orders too, idle children leaving them
		}
	}, func(lazy, eager *Scheduler, step int) {
		checkCachedLimits(t, lazy, seed, step)
		if k := usageDiff(treeUsage(eager), treeUsage(lazy)); k != "" {
			t.Fatalf("seed %d step %d: tree accounting with deferred changes differs from the eager one at %q", seed, step, k)
		}
		if step%7 == 0 {
			require.Equal(t, eager.Snapshot(), lazy.Snapshot(), "seed %d step %d", seed, step)
			require.Empty(t, lazy.acctDirty, "a snapshot charges everything deferred")
		}
		require.NoError(t, lazy.bug, "seed %d step %d", seed, step)
	})
}

// checkCachedLimits compares every user limit the lazy scheduler holds as
// valid with one computed afresh, without touching the caches.
func checkCachedLimits(t *testing.T, s *Scheduler, seed uint64, step int) {
	t.Helper()
	minA := s.cfg.MinAllocation
	for _, path := range sortedKeys(s.byPath) {
		q := s.byPath[path]
		lf := q.leaf
		if lf == nil || !lf.ulValid {
			continue
		}
		base := s.leafUserLimit(q)
		if !lf.ulBase.Equal(base) {
			t.Fatalf("seed %d step %d: %s cached limit %v, now %v", seed, step, path, lf.ulBase, base)
		}
		if lf.ulOneGen == lf.ulGen {
			if one := s.mulNormDown(base, 1, minA); !lf.ulOne.Equal(one) {
				t.Fatalf("seed %d step %d: %s cached weight-1 limit %v, now %v", seed, step, path, lf.ulOne, one)
			}
		}
		for _, name := range sortedKeys(lf.users) {
			u := lf.users[name]
			if u.ulGen != lf.ulGen {
				continue
			}
			if w := s.mulNormDown(base, u.weight, minA); !u.ulVal.Equal(w) {
				t.Fatalf("seed %d step %d: %s user %s cached limit %v, now %v", seed, step, path, name, u.ulVal, w)
			}
		}
	}
}

// treeUsage is the tree's accounting of every queue ("q path") and every
// user of every queue ("u path user"), plus what s deferred, without
// charging it. Users without usage are left out, as the tree leaves them
// out.
func treeUsage(s *Scheduler) map[string]queue.Usage {
	out := map[string]queue.Usage{}
	for path, q := range s.byPath {
		out["q "+path] = q.tq.Usage()
		for _, name := range q.tq.Users() {
			out["u "+path+" "+name] = q.tq.UserUsage(name)
		}
	}
	add := func(key string, d queue.Delta) {
		u := out[key]
		u.Used, u.Pending, u.Reserved = u.Used.Add(d.Used), u.Pending.Add(d.Pending), u.Reserved.Add(d.Reserved)
		out[key] = u
	}
	for _, e := range s.acctDirty {
		for n := e.q; n != nil; n = n.parent {
			add("q "+n.path, e.u.acct)
			add("u "+n.path+" "+e.u.name, e.u.acct)
		}
	}
	for k, u := range out {
		if k[0] == 'u' && u.IsZero() {
			delete(out, k)
		}
	}
	return out
}

// usageDiff returns a key where a and b differ, or "".
func usageDiff(a, b map[string]queue.Usage) string {
	for _, k := range sortedKeys(a) {
		if v, ok := b[k]; !ok || !a[k].Equal(v) {
			return k
		}
	}
	for _, k := range sortedKeys(b) {
		if _, ok := a[k]; !ok {
			return k
		}
	}
	return ""
}

// TestLazyValuesMatchEager is lazyLockstep over many random streams.
func TestLazyValuesMatchEager(t *testing.T) {
	n := 60
	if testing.Short() || raceEnabled {
		n = 10
	}
	for seed := range uint64(n) {
		lazyLockstep(t, seed, 400)
	}
}

func FuzzLazyValues(f *testing.F) {
	for _, s := range []uint64{3, 11, 42, 977} {
		f.Add(s, uint16(300))
	}
	f.Fuzz(func(t *testing.T, seed uint64, steps uint16) {
		lazyLockstep(t, seed, int(steps%800))
	})
}

// TestDeferredAccountingIsCharged: heartbeats leave their accounting
// deferred, and each reader of the tree charges it first.
func TestDeferredAccountingIsCharged(t *testing.T) {
	s, ids, _ := manyAppsWorld(t, OrderUtilization, 20, 30, 4, -1)
	for _, id := range ids {
		_, err := s.Heartbeat(id, nil)
		require.NoError(t, err)
	}
	require.NotEmpty(t, s.acctDirty, "allocations are deferred")
	snap := s.Snapshot()
	assert.Empty(t, s.acctDirty)
	root := snap.Queues.Root()
	assert.True(t, root.Usage.Used.Equal(s.root.used), "the snapshot's tree usage is the mirror's: %v, %v", root.Usage.Used, s.root.used)
	assert.True(t, root.Usage.Pending.Equal(s.root.pending), "pending: %v, %v", root.Usage.Pending, s.root.pending)
	require.NoError(t, s.Check())
}
