package capacity

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/berthsched/berth"
)

// Effective lifetimes down the tree (QueueAppLifetimeAndLimitSettings)
// and the lifetime an application gets (checkAndGetApplicationLifetime).
func TestLifetimes(t *testing.T) {
	cases := []struct {
		name             string
		rootMax, rootDef int64
		leafMax, leafDef int64
		requested        int64
		wantLife         int64 // seconds; 0 none
		refused          bool
	}{
		{name: "nothing set", rootMax: -1, rootDef: -1, leafMax: -1, leafDef: -1, requested: 0, wantLife: 0},
		{name: "requested, no maximum", rootMax: -1, rootDef: -1, leafMax: -1, leafDef: -1, requested: 30, wantLife: 30},
		{name: "leaf maximum caps", rootMax: -1, rootDef: -1, leafMax: 20, leafDef: -1, requested: 30, wantLife: 20},
		{name: "unset default is the maximum", rootMax: -1, rootDef: -1, leafMax: 20, leafDef: -1, requested: 0, wantLife: 20},
		{name: "inherited maximum", rootMax: 40, rootDef: -1, leafMax: -1, leafDef: -1, requested: 50, wantLife: 40},
		{name: "0 overrides the parent's maximum", rootMax: 40, rootDef: -1, leafMax: 0, leafDef: -1, requested: 50, wantLife: 50},
		{name: "inherited default, below the maximum", rootMax: -1, rootDef: 10, leafMax: 20, leafDef: -1, requested: 0, wantLife: 10},
		{name: "inherited default above the leaf maximum", rootMax: -1, rootDef: 30, leafMax: 20, leafDef: -1, requested: 0, wantLife: 20},
		{name: "default without a maximum", rootMax: -1, rootDef: -1, leafMax: -1, leafDef: 15, requested: 0, wantLife: 15},
		{name: "default above the maximum is refused", rootMax: -1, rootDef: -1, leafMax: 20, leafDef: 30, refused: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Root.Settings.MaxAppLifetime, cfg.Root.Settings.DefaultAppLifetime = c.rootMax, c.rootDef
			a := Queue("a", 100)
			a.Settings.MaxAppLifetime, a.Settings.DefaultAppLifetime = c.leafMax, c.leafDef
			cfg.Root.Children = []QueueConfig{a}
			clock := berth.NewManualClock(1000)
			cfg.Clock = clock
			s, err := New(cfg)
			if c.refused {
				assertFieldError(t, err, prefix+"root.a.default-application-lifetime")
				return
			}
			require.NoError(t, err)
			_, err = s.SubmitApp(AppSpec{ID: "x", Queue: "a", User: "u", LifetimeSeconds: c.requested})
			require.NoError(t, err)
			d, ok, err := s.AppDeadline("x")
			require.NoError(t, err)
			if c.wantLife == 0 {
				assert.False(t, ok)
				return
			}
			require.True(t, ok)
			assert.Equal(t, 1000+c.wantLife*1000, d)
		})
	}
}

// An application expires once the clock is past its deadline: killed
// with its containers, and the ones waiting behind it start.
func TestExpireApps(t *testing.T) {
	cfg := DefaultConfig()
	a := Queue("a", 100)
	a.Settings.MaxParallelApps = 1
	cfg.Root.Children = []QueueConfig{a}
	clock := berth.NewManualClock(0)
	cfg.Clock = clock
	s, err := New(cfg)
	require.NoError(t, err)
	require.NoError(t, s.AddNode(mkNode("n1", 8*gb, 8)))
	_, err = s.SubmitApp(AppSpec{ID: "short", Queue: "a", User: "u", LifetimeSeconds: 10})
	require.NoError(t, err)
	_, err = s.SubmitApp(AppSpec{ID: "next", Queue: "a", User: "u"})
	require.NoError(t, err)
	_, err = s.Allocate("short", []Ask{{Priority: 1, ResourceName: AnyResource, Capability: berth.New(gb, 1), Count: 2}}, nil)
	require.NoError(t, err)
	for range 2 { // one off-switch container per heartbeat
		al, err := s.Heartbeat("n1", nil)
		require.NoError(t, err)
		require.Len(t, al, 1)
	}

	clock.Set(10_000)
	ex, err := s.ExpireApps()
	require.NoError(t, err)
	assert.Empty(t, ex, "at the deadline the application still runs")

	clock.Set(10_001)
	ex, err = s.ExpireApps()
	require.NoError(t, err)
	require.Len(t, ex, 1)
	assert.Equal(t, "short", ex[0].App)
	assert.Equal(t, berth.Time(10_000), ex[0].Deadline)
	require.Len(t, ex[0].Containers, 2)
	for _, c := range ex[0].Containers {
		assert.Equal(t, Killed, c.Status)
	}
	require.NoError(t, s.Check())
	assert.Equal(t, map[string]string{"next": "active"}, appStates(s))
	_, _, err = s.AppDeadline("short")
	require.ErrorIs(t, err, berth.ErrNotFound)
}

// Property: at every check, exactly the applications whose deadline the
// clock has passed are gone, in deadline order.
func TestLifetimesExpireOnTheClock(t *testing.T) {
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 3))
		cfg := DefaultConfig()
		a := Queue("a", 100)
		a.Settings.MaxAppLifetime = int64(5 + r.IntN(30))
		cfg.Root.Children = []QueueConfig{a}
		clock := berth.NewManualClock(0)
		cfg.Clock = clock
		s, err := New(cfg)
		require.NoError(t, err)
		deadlines := map[string]berth.Time{}
		for step := range 60 {
			clock.Set(clock.Now() + berth.Time(r.IntN(4000)))
			if r.IntN(2) == 0 {
				id := fmt.Sprintf("a%d", step)
				life := int64(r.IntN(40))
				_, err := s.SubmitApp(AppSpec{ID: id, Queue: "a", User: "u", LifetimeSeconds: life})
				require.NoError(t, err)
				if life == 0 || life > a.Settings.MaxAppLifetime {
					life = a.Settings.MaxAppLifetime // no default: the maximum
				}
				deadlines[id] = clock.Now() + life*1000
			}
			ex, err := s.ExpireApps()
			require.NoError(t, err)
			var last berth.Time
			for _, e := range ex {
				require.Equal(t, deadlines[e.App], e.Deadline)
				require.Greater(t, clock.Now(), e.Deadline)
				require.GreaterOrEqual(t, e.Deadline, last)
				last = e.Deadline
				delete(deadlines, e.App)
			}
			for _, ai := range s.Snapshot().Apps {
				require.LessOrEqual(t, clock.Now(), deadlines[ai.ID], "seed %d: %s outlived its deadline", seed, ai.ID)
			}
			require.Len(t, s.Snapshot().Apps, len(deadlines))
		}
	}
}

func TestLifetimeXML(t *testing.T) {
	cfg, err := ParseXML(stringsReader(xmlDoc(prefix+"root.queues", "a", prefix+"root.a.capacity", "100",
		prefix+"root.maximum-application-lifetime", "100", prefix+"root.a.default-application-lifetime", "-1")))
	require.NoError(t, err)
	assert.Equal(t, int64(100), cfg.Root.Settings.MaxAppLifetime)
	assert.Equal(t, int64(-1), cfg.Root.Children[0].Settings.DefaultAppLifetime)
	_, err = ParseXML(stringsReader(xmlDoc(prefix+"root.queues", "a", prefix+"root.a.capacity", "100",
		prefix+"root.maximum-application-lifetime", "100", prefix+"root.a.default-application-lifetime", "200")))
	assertFieldError(t, err, prefix+"root.a.default-application-lifetime")
}
