package capacity

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/berthsched/berth"
)

// appStates returns, per application, "run" (runnable), or "wait".
func appStates(s *Scheduler) map[string]string {
	out := map[string]string{}
	for _, a := range s.Snapshot().Apps {
		switch {
		case !a.Runnable:
			out[a.ID] = "wait"
		case a.Active:
			out[a.ID] = "active"
		default:
			out[a.ID] = "pending"
		}
	}
	return out
}

func parallelTree(leafLimit, parentLimit int) Config {
	cfg := DefaultConfig()
	a, b := Queue("a", 50), Queue("b", 50)
	a.Settings.MaxParallelApps = leafLimit
	a.Settings.MaxAMResourcePercent = 1
	b.Settings.MaxAMResourcePercent = 1
	p := Queue("p", 100, a, b)
	p.Settings.MaxParallelApps = parentLimit
	cfg.Root.Children = []QueueConfig{p}
	return cfg
}

// max-parallel-apps: submissions past a limit are accepted but wait;
// an ending runnable application frees a slot for the earliest waiting
// one under the queue that was at its limit (CSMaxRunningAppsEnforcer).
func TestMaxParallelApps(t *testing.T) {
	cases := []struct {
		name       string
		cfg        func() Config
		submit     [][2]string // id, queue
		users      map[string]string
		wantBefore map[string]string
		finish     string
		wantAfter  map[string]string
	}{
		{
			name:       "leaf limit",
			cfg:        func() Config { return parallelTree(2, -1) },
			submit:     [][2]string{{"a1", "a"}, {"a2", "a"}, {"a3", "a"}, {"a4", "a"}, {"b1", "b"}},
			wantBefore: map[string]string{"a1": "active", "a2": "active", "a3": "wait", "a4": "wait", "b1": "active"},
			finish:     "a1",
			wantAfter:  map[string]string{"a2": "active", "a3": "active", "a4": "wait", "b1": "active"},
		},
		{
			name:       "parent limit frees a slot in a sibling leaf",
			cfg:        func() Config { return parallelTree(-1, 2) },
			submit:     [][2]string{{"a1", "a"}, {"b1", "b"}, {"b2", "b"}, {"a2", "a"}},
			wantBefore: map[string]string{"a1": "active", "b1": "active", "b2": "wait", "a2": "wait"},
			finish:     "a1",
			wantAfter:  map[string]string{"b1": "active", "b2": "active", "a2": "wait"},
		},
		{
			name: "user limit across queues",
			cfg: func() Config {
				c := parallelTree(-1, -1)
				c.UserMaxParallelAppsFor = map[string]int{"alice": 1}
				return c
			},
			submit:     [][2]string{{"x1", "a"}, {"x2", "b"}, {"y1", "b"}},
			users:      map[string]string{"x1": "alice", "x2": "alice", "y1": "bob"},
			wantBefore: map[string]string{"x1": "active", "x2": "wait", "y1": "active"},
			finish:     "x1",
			wantAfter:  map[string]string{"x2": "active", "y1": "active"},
		},
		{
			name: "scheduler-wide default applies to every queue, root included",
			cfg: func() Config {
				c := parallelTree(-1, -1)
				c.MaxParallelApps = 1
				return c
			},
			submit:     [][2]string{{"a1", "a"}, {"b1", "b"}},
			wantBefore: map[string]string{"a1": "active", "b1": "wait"},
			finish:     "a1",
			wantAfter:  map[string]string{"b1": "active"},
		},
		{
			name:       "a waiting application does not end a slot when it ends",
			cfg:        func() Config { return parallelTree(1, -1) },
			submit:     [][2]string{{"a1", "a"}, {"a2", "a"}, {"a3", "a"}},
			wantBefore: map[string]string{"a1": "active", "a2": "wait", "a3": "wait"},
			finish:     "a2",
			wantAfter:  map[string]string{"a1": "active", "a3": "wait"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, c.cfg(), mkNode("n1", 64*gb, 64))
			for _, sub := range c.submit {
				user := "u"
				if u, ok := c.users[sub[0]]; ok {
					user = u
				}
				_, err := h.s.SubmitApp(AppSpec{ID: sub[0], Queue: sub[1], User: user, AMResource: berth.New(gb, 1)})
				require.NoError(t, err, sub[0])
			}
			require.NoError(t, h.s.Check())
			assert.Equal(t, c.wantBefore, appStates(h.s))
			_, err := h.s.FinishApp(c.finish)
			require.NoError(t, err)
			require.NoError(t, h.s.Check())
			assert.Equal(t, c.wantAfter, appStates(h.s))
		})
	}
}

// Waiting applications count towards maximum-applications but not
// towards the user's maximum applications, as in YARN.
func TestMaxParallelAppsLimits(t *testing.T) {
	cfg := parallelTree(1, -1)
	cfg.Root.Children[0].Children[0].Settings.MaxApplications = 3
	h := newHarness(t, cfg, mkNode("n1", 64*gb, 64))
	for i := range 3 {
		h.submit(fmt.Sprintf("a%d", i), "a", "u")
	}
	_, err := h.s.SubmitApp(AppSpec{ID: "a4", Queue: "a", User: "u"})
	require.ErrorIs(t, err, berth.ErrCapacityExceeded, "three applications, two waiting, fill maximum-applications 3")

	// Per user: maxAppsPerUser = 3 × 100% × 1 = 3; the two waiting do not
	// count, so a user with one runnable and two waiting is below it.
	cfg = parallelTree(1, -1)
	cfg.Root.Children[0].Children[0].Settings.MaxApplications = 10
	cfg.Root.Children[0].Children[0].Settings.UserLimitFactor = 0.3 // 10 × 1 × 0.3 = 3 per user
	h = newHarness(t, cfg, mkNode("n1", 64*gb, 64))
	for i := range 5 {
		h.submit(fmt.Sprintf("a%d", i), "a", "u")
	}
	assert.Len(t, h.s.Snapshot().Apps, 5)
}

// A reconfiguration that raises a limit makes every waiting application
// that fits runnable (updateRunnabilityOnReload); moving an application
// keeps it waiting.
func TestMaxParallelAppsReconfigureAndMove(t *testing.T) {
	cfg := parallelTree(1, -1)
	h := newHarness(t, cfg, mkNode("n1", 64*gb, 64))
	for _, id := range []string{"a1", "a2", "a3"} {
		h.submit(id, "a", "u")
	}
	_, err := h.s.MoveApp("a3", "b")
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"a1": "active", "a2": "wait", "a3": "wait"}, appStates(h.s))
	require.NoError(t, h.s.Check())

	cfg.Root.Children[0].Children[0].Settings.MaxParallelApps = 3
	_, err = h.s.Reconfigure(cfg)
	require.NoError(t, err)
	require.NoError(t, h.s.Check())
	// a3 is in b, which has no limit: runnable too.
	assert.Equal(t, map[string]string{"a1": "active", "a2": "active", "a3": "active"}, appStates(h.s))
}

// The XML keys: per queue, scheduler-wide, per user; negative values
// are refused with the key named.
func TestMaxParallelAppsXML(t *testing.T) {
	cfg, err := ParseXML(stringsReader(xmlDoc(
		prefix+"root.queues", "a",
		prefix+"root.a.capacity", "100",
		prefix+"root.a.max-parallel-apps", "3",
		prefix+"max-parallel-apps", "7",
		prefix+"user.max-parallel-apps", "5",
		prefix+"user.alice.max-parallel-apps", "2",
	)))
	require.NoError(t, err)
	assert.Equal(t, 3, cfg.Root.Children[0].Settings.MaxParallelApps)
	assert.Equal(t, -1, cfg.Root.Settings.MaxParallelApps)
	assert.Equal(t, 7, cfg.MaxParallelApps)
	assert.Equal(t, 5, cfg.UserMaxParallelApps)
	assert.Equal(t, map[string]int{"alice": 2}, cfg.UserMaxParallelAppsFor)

	for _, k := range []string{prefix + "root.a.max-parallel-apps", prefix + "max-parallel-apps", prefix + "user.bob.max-parallel-apps"} {
		_, err := ParseXML(stringsReader(xmlDoc(prefix+"root.queues", "a", prefix+"root.a.capacity", "100", k, "-1")))
		assertFieldError(t, err, k)
	}
}

// Property: with random submissions and endings, no queue and no user
// ever runs more applications than its limit, the scheduler's counts
// match a recount, and a waiting application waits only while a limit
// above it, or its user's, is full.
func TestMaxParallelAppsProperty(t *testing.T) {
	for seed := range uint64(30) {
		r := rand.New(rand.NewPCG(seed, 7))
		cfg := parallelTree(r.IntN(3), 1+r.IntN(4))
		cfg.UserMaxParallelApps = 1 + r.IntN(3)
		h := newHarness(t, cfg, mkNode("n1", 256*gb, 256))
		limits := map[string]int{"root.p.a": cfg.Root.Children[0].Children[0].Settings.MaxParallelApps,
			"root.p": cfg.Root.Children[0].Settings.MaxParallelApps}
		var live []string
		for step := range 60 {
			if len(live) == 0 || r.IntN(3) > 0 {
				id := fmt.Sprintf("s%d-%d", seed, step)
				q := []string{"a", "b"}[r.IntN(2)]
				_, err := h.s.SubmitApp(AppSpec{ID: id, Queue: q, User: fmt.Sprintf("u%d", r.IntN(3))})
				require.NoError(t, err)
				live = append(live, id)
			} else {
				i := r.IntN(len(live))
				_, err := h.s.FinishApp(live[i])
				require.NoError(t, err)
				live = slices.Delete(live, i, i+1)
			}
			require.NoError(t, h.s.Check())
			runQ, runU := map[string]int{}, map[string]int{}
			snap := h.s.Snapshot()
			for _, a := range snap.Apps {
				if a.Runnable {
					runQ[a.Queue]++
					runQ["root.p"]++
					runU[a.User]++
				}
			}
			for q, lim := range limits {
				if lim >= 0 {
					require.LessOrEqual(t, runQ[q], lim, "seed %d step %d queue %s", seed, step, q)
				}
			}
			for u, n := range runU {
				require.LessOrEqual(t, n, cfg.UserMaxParallelApps, "seed %d step %d user %s", seed, step, u)
			}
			for _, a := range snap.Apps {
				if a.Runnable {
					continue
				}
				full := runU[a.User] >= cfg.UserMaxParallelApps || runQ["root.p"] >= limits["root.p"] ||
					(a.Queue == "root.p.a" && runQ["root.p.a"] >= limits["root.p.a"])
				require.True(t, full, "seed %d step %d: %s waits with room above it", seed, step, a.ID)
			}
		}
	}
}
