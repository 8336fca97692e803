package capacity

import (
	"testing"

	"github.com/berthsched/berth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLeafOrdering(t *testing.T) {
	cases := []struct {
		name   string
		policy AppOrdering
		want   []string
	}{
		{"fifo serves the first app first", OrderFIFO, []string{"app1", "app1", "app1", "app1"}},
		{"fair alternates by usage", OrderFair, []string{"app1", "app2", "app1", "app2"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Root.Children = []QueueConfig{Queue("a", 100)}
			cfg.Root.Children[0].Settings.AppOrdering = c.policy
			cfg.Root.Children[0].Settings.UserLimitFactor = 10
			h := newHarness(t, cfg, mkNode("n1", 16*gb, 16))
			h.submit("app1", "a", "u")
			h.submit("app2", "a", "u")
			h.ask("app1", 1, gb, 4)
			h.ask("app2", 1, gb, 4)
			var got []string
			for i := 0; i < 4; i++ {
				al := h.beat("n1")
				require.Len(t, al, 1)
				got = append(got, al[0].App)
			}
			assert.Equal(t, c.want, got)
		})
	}
	t.Run("fifo respects application priority", func(t *testing.T) {
		cfg := DefaultConfig()
		cfg.MaxAppPriority = 10 // YARN's default, 0, makes every priority 0
		cfg.Root.Children = []QueueConfig{Queue("a", 100)}
		h := newHarness(t, cfg, mkNode("n1", 16*gb, 16))
		h.submit("low", "a", "u")
		_, err := h.s.SubmitApp(AppSpec{ID: "high", Queue: "a", User: "u", Priority: 5})
		require.NoError(t, err)
		h.ask("low", 1, gb, 1)
		h.ask("high", 1, gb, 1)
		al := h.beat("n1")
		require.Len(t, al, 1)
		assert.Equal(t, "high", al[0].App)
	})
	t.Run("request priorities: lower number first", func(t *testing.T) {
		cfg := DefaultConfig()
		cfg.Root.Children = []QueueConfig{Queue("a", 100)}
		h := newHarness(t, cfg, mkNode("n1", 16*gb, 16))
		h.submit("app", "a", "u")
		h.ask("app", 7, 2*gb, 1)
		h.ask("app", 3, 1*gb, 1)
		al := h.beat("n1")
		require.Len(t, al, 1)
		assert.Equal(t, int32(3), al[0].Priority)
	})
}

func TestQueuePriorityOrdering(t *testing.T) {
	for _, policy := range []ChildOrdering{OrderUtilization, OrderPriorityUtilization} {
		t.Run(policy.String(), func(t *testing.T) {
			cfg := DefaultConfig()
			a, b := Queue("a", 50), Queue("b", 50)
			b.Settings.Priority = 1
			cfg.Root.Children = []QueueConfig{a, b}
			cfg.Root.Settings.ChildOrdering = policy
			h := newHarness(t, cfg, mkNode("n1", 16*gb, 16))
			h.submit("pa", "a", "u")
			h.submit("pb", "b", "v")
			h.ask("pa", 1, gb, 8)
			h.ask("pb", 1, gb, 8)
			var got []string
			for i := 0; i < 4; i++ {
				al := h.beat("n1")
				require.Len(t, al, 1)
				got = append(got, al[0].Queue)
			}
			if policy == OrderPriorityUtilization {
				// both under their guarantee: the higher priority wins
				assert.Equal(t, []string{"root.b", "root.b", "root.b", "root.b"}, got)
			} else {
				assert.Equal(t, []string{"root.a", "root.b", "root.a", "root.b"}, got)
			}
		})
	}
}

func TestContinueLookingUnreserves(t *testing.T) {
	for _, cl := range []bool{true, false} {
		t.Run(map[bool]string{true: "continue-looking", false: "no continue-looking"}[cl], func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Root.Children = []QueueConfig{Queue("a", 100)}
			cfg.ContinueLooking = cl
			cfg.MaxOffSwitchAssignments = 10
			h := newHarness(t, cfg, mkNode("n1", 8*gb, 8), mkNode("n2", 8*gb, 8))
			h.submit("small", "a", "u1")
			h.submit("big", "a", "u2")
			h.ask("small", 1, 4*gb, 1)
			require.Len(t, h.beat("n1"), 1)
			h.ask("big", 1, 6*gb, 1)
			assert.Empty(t, h.beat("n1"))
			require.Len(t, h.s.Snapshot().Reservations, 1)
			al := h.beat("n2")
			if cl {
				require.Len(t, al, 1, "allocated on n2, giving up the n1 reservation")
				assert.Equal(t, "big", al[0].App)
				assert.Empty(t, h.s.Snapshot().Reservations)
			} else {
				assert.Empty(t, al, "the key already holds enough reservations")
				assert.Len(t, h.s.Snapshot().Reservations, 1)
			}
			assert.Equal(t, int64(10*gb), h.queueUsed("root.a"))
		})
	}
}

func TestUserWeights(t *testing.T) {
	cfg := DefaultConfig()
	a := Queue("a", 100)
	a.Settings.MinUserLimitPercent = 50
	a.Settings.UserWeights = map[string]float64{"alice": 2}
	cfg.Root.Children = []QueueConfig{a}
	h := newHarness(t, cfg, mkNode("n1", 16*gb, 16))
	h.submit("pa", "a", "alice")
	h.submit("pb", "a", "bob")
	h.ask("pa", 1, gb, 20)
	h.ask("pb", 1, gb, 20)
	// Active users' weights sum to 3: alice's limit is twice bob's.
	ha, err := h.s.Headroom("pa")
	require.NoError(t, err)
	hb, err := h.s.Headroom("pb")
	require.NoError(t, err)
	assert.Greater(t, ha.Memory, hb.Memory)
	_, err = New(func() Config {
		c := cfg.clone()
		c.Root.Children[0].Settings.UserWeights = map[string]float64{"alice": 3}
		c.Clock = berth.NewManualClock(0)
		return c
	}())
	assert.ErrorIs(t, err, berth.ErrInvalidArgument, "weight above 100/min-user-limit-percent")
}

// A leaf stopped at its queue limit keeps its unused headroom from its
// later siblings (YARN's blocked headroom / net limit).
func TestBlockedHeadroom(t *testing.T) {
	cfg := DefaultConfig()
	p := Queue("p", 50, Queue("x", 50), Queue("y", 50))
	p.MaxCapacity = queueP(50)
	p.Children[0].MaxCapacity = queueP(50)
	p.Children[0].Settings.UserLimitFactor = 4
	p.Children[1].Settings.UserLimitFactor = 4
	cfg.Root.Children = []QueueConfig{p, Queue("q", 50)}
	h := newHarness(t, cfg, mkNode("n1", 8*gb, 8))
	h.submit("ax", "x", "u")
	h.submit("ay", "y", "v")
	h.ask("ax", 1, gb, 1)
	h.ask("ay", 1, gb, 1)
	require.Len(t, h.beat("n1"), 1)
	require.Len(t, h.beat("n1"), 1)
	h.ask("ax", 2, 2*gb, 1)
	h.ask("ay", 2, 2*gb, 1)
	// x (visited first) has 1 GB of room under its 2 GB maximum: skipped
	// at its queue limit, and that 1 GB is withheld from y, whose limit
	// becomes 2 GB: y cannot take 2 GB more either.
	assert.Empty(t, h.beat("n1"))
	assert.Equal(t, int64(2*gb), h.queueUsed("root.p"))
}
