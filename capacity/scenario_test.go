package capacity

import (
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSeedWalk follows the seed's description of a NODE_UPDATE step by
// step: asks are stored per priority and resource name (a new ask replaces
// the old one), the heartbeat starts at the root, visits the most
// under-served child first, a leaf gives one container to one application,
// the parent re-sorts, and the walk repeats while the node has room and no
// off-switch container was assigned.
func TestSeedWalk(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Root.Children = []QueueConfig{Queue("a", 30), Queue("b", 70)}
	cfg.NodeLocalityDelay = 0
	h := newHarness(t, cfg,
		NodeSpec{ID: "h1", Rack: "/r1", Capability: berth.New(4*gb, 4)},
		NodeSpec{ID: "h2", Rack: "/r2", Capability: berth.New(4*gb, 4)})
	h.submit("appA", "a", "alice")
	h.submit("appB", "b", "bob")

	// Step 1: the AM's asks, a five-tuple (priority, resource name,
	// capability, count, relaxLocality). A second ask for the same
	// (priority, name) replaces the first.
	one := berth.New(1*gb, 1)
	_, err := h.s.Allocate("appA", []Ask{
		{Priority: 1, ResourceName: "h1", Capability: one, Count: 5},
		{Priority: 1, ResourceName: "/r1", Capability: one, Count: 5},
		{Priority: 1, ResourceName: AnyResource, Capability: one, Count: 5},
	}, nil)
	require.NoError(t, err)
	_, err = h.s.Allocate("appA", []Ask{
		{Priority: 1, ResourceName: "h1", Capability: one, Count: 1},
		{Priority: 1, ResourceName: "/r1", Capability: one, Count: 1},
		{Priority: 1, ResourceName: AnyResource, Capability: one, Count: 1},
	}, nil)
	require.NoError(t, err)
	h.ask("appB", 1, 1*gb, 3)
	snap := h.s.Snapshot()
	assert.Equal(t, int64(1*gb), snap.Queues.Get(mustPath("root.a")).Extra.Pending.Memory, "the second ask replaced the first")
	assert.Equal(t, int64(3*gb), snap.Queues.Get(mustPath("root.b")).Extra.Pending.Memory)

	// Step 2: heartbeat of h1. Both queues are unused: b (larger capacity)
	// is visited first, its only ask is ANY, so the container is
	// off-switch and the heartbeat stops after it.
	al := h.beat("h1")
	require.Len(t, al, 1)
	assert.Equal(t, "root.b", al[0].Queue)
	assert.Equal(t, OffSwitch, al[0].Locality)

	// Step 3: heartbeat of h1 again. a (0 used) is now the most
	// under-served: appA gets a node-local container; the walk goes on
	// (node-local does not end it), re-sorts, a has nothing left, b gets
	// an off-switch container, and that ends the heartbeat.
	al = h.beat("h1")
	require.Len(t, al, 2)
	assert.Equal(t, "appA", al[0].App)
	assert.Equal(t, NodeLocal, al[0].Locality)
	assert.Equal(t, "appB", al[1].App)
	assert.Equal(t, OffSwitch, al[1].Locality)

	// Step 4: with assign-multiple raised, one heartbeat fills the node:
	// b's last container, then the node keeps room but nobody asks.
	al = h.beat("h2")
	require.Len(t, al, 1)
	assert.Equal(t, "appB", al[0].App)
	assert.Empty(t, h.beat("h2"))
	assert.Equal(t, int64(1*gb), h.queueUsed("root.a"))
	assert.Equal(t, int64(3*gb), h.queueUsed("root.b"))
}

func TestDelayScheduling(t *testing.T) {
	base := func() Config {
		cfg := DefaultConfig()
		cfg.Root.Children = []QueueConfig{Queue("a", 100)}
		return cfg
	}
	nodes := []NodeSpec{
		{ID: "h1", Rack: "/r1", Capability: berth.New(8*gb, 8)},
		{ID: "h2", Rack: "/r1", Capability: berth.New(8*gb, 8)},
		{ID: "h3", Rack: "/r2", Capability: berth.New(8*gb, 8)},
	}
	ask := func(h *harness, relaxAny bool) {
		one := berth.New(gb, 1)
		_, err := h.s.Allocate("app", []Ask{
			{Priority: 1, ResourceName: "h1", Capability: one, Count: 1},
			{Priority: 1, ResourceName: "/r1", Capability: one, Count: 1},
			{Priority: 1, ResourceName: AnyResource, Capability: one, Count: 1, StrictLocality: !relaxAny},
		}, nil)
		require.NoError(t, err)
	}
	t.Run("rack-local after node-locality-delay", func(t *testing.T) {
		cfg := base()
		cfg.NodeLocalityDelay = 2
		cfg.RackLocalityAdditionalDelay = 5 // off-switch waits for min(3, 2+5) missed
		h := newHarness(t, cfg, nodes...)
		h.submit("app", "a", "u")
		ask(h, true)
		// missed opportunities 1, 2: rack-local refused (min(3,2) < missed fails)
		assert.Empty(t, h.beat("h2"))
		assert.Empty(t, h.beat("h2"))
		al := h.beat("h2")
		require.Len(t, al, 1)
		assert.Equal(t, RackLocal, al[0].Locality)
	})
	t.Run("node-local at once", func(t *testing.T) {
		h := newHarness(t, base(), nodes...)
		h.submit("app", "a", "u")
		ask(h, true)
		al := h.beat("h1")
		require.Len(t, al, 1)
		assert.Equal(t, NodeLocal, al[0].Locality)
	})
	t.Run("off-switch after the wait factor", func(t *testing.T) {
		h := newHarness(t, base(), nodes...)
		h.submit("app", "a", "u")
		ask(h, true)
		// 3 unique asks, 3 nodes: waitFactor = 2/3, 1 container → wait while missed ≤ 0.67
		al := h.beat("h3")
		require.Len(t, al, 1)
		assert.Equal(t, OffSwitch, al[0].Locality)
	})
	t.Run("rack-locality-additional-delay", func(t *testing.T) {
		cfg := base()
		cfg.NodeLocalityDelay = 1
		cfg.RackLocalityAdditionalDelay = 1
		h := newHarness(t, cfg, nodes...)
		h.submit("app", "a", "u")
		ask(h, true)
		assert.Empty(t, h.beat("h3"))
		assert.Empty(t, h.beat("h3"))
		al := h.beat("h3") // missed 3 > min(3, 1+1)
		require.Len(t, al, 1)
		assert.Equal(t, OffSwitch, al[0].Locality)
	})
	t.Run("relaxLocality false never goes off-switch", func(t *testing.T) {
		h := newHarness(t, base(), nodes...)
		h.submit("app", "a", "u")
		ask(h, false)
		for i := 0; i < 10; i++ {
			assert.Empty(t, h.beat("h3"))
		}
		al := h.beat("h1")
		require.Len(t, al, 1)
		assert.Equal(t, NodeLocal, al[0].Locality)
	})
}

func TestContainerReservation(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Root.Children = []QueueConfig{Queue("a", 100)}
	cfg.MaxOffSwitchAssignments = 10
	h := newHarness(t, cfg, mkNode("n1", 8*gb, 8), mkNode("n2", 8*gb, 8))
	h.submit("small", "a", "u1")
	h.submit("big", "a", "u2")
	h.ask("small", 1, 3*gb, 2)
	require.Len(t, h.beat("n1"), 2) // 6 GB used, 2 GB free
	h.ask("big", 1, 4*gb, 1)
	assert.Empty(t, h.beat("n1"), "4 GB does not fit: reserved")
	snap := h.s.Snapshot()
	require.Len(t, snap.Reservations, 1)
	assert.Equal(t, snap.Reservations[0].ID, snap.Nodes[0].Reserved)
	assert.Equal(t, int64(10*gb), h.queueUsed("root.a"), "reserved counts as used")
	// While reserved, the node serves only the reservation.
	h.ask("small", 2, 1*gb, 1)
	assert.Empty(t, h.beat("n1"))
	// A container completes: the reservation turns into an allocation.
	var done ContainerID
	for _, c := range snap.Containers {
		if c.App == "small" {
			done = c.ID
			break
		}
	}
	al, err := h.s.Heartbeat("n1", []ContainerID{done})
	require.NoError(t, err)
	require.Len(t, al, 1)
	assert.Equal(t, "big", al[0].App)
	assert.Empty(t, h.s.Snapshot().Reservations)
	require.NoError(t, h.s.Check())

	t.Run("unreserved when no longer needed", func(t *testing.T) {
		h := newHarness(t, cfg, mkNode("n1", 8*gb, 8), mkNode("n2", 8*gb, 8))
		h.submit("small", "a", "u1")
		h.submit("big", "a", "u2")
		h.ask("small", 1, 3*gb, 2)
		h.beat("n1")
		h.ask("big", 1, 4*gb, 1)
		h.beat("n1")
		require.Len(t, h.s.Snapshot().Reservations, 1)
		h.ask("big", 1, 4*gb, 0)
		assert.Empty(t, h.beat("n1"))
		assert.Empty(t, h.s.Snapshot().Reservations)
		assert.Equal(t, int64(6*gb), h.queueUsed("root.a"))
	})
}

func TestAbsoluteCapacities(t *testing.T) {
	cfg := DefaultConfig()
	a, b := Queue("a", 0), Queue("b", 0)
	a.Capacity = queue.Absolute(berth.New(12*gb, 12))
	b.Capacity = queue.Absolute(berth.New(4*gb, 4))
	cfg.Root.Children = []QueueConfig{a, b}
	h := newHarness(t, cfg, mkNode("n1", 8*gb, 8), mkNode("n2", 8*gb, 8))
	snap := h.s.Snapshot()
	assert.Equal(t, int64(12*gb), snap.Queues.Get(mustPath("root.a")).Extra.Guaranteed.Memory)
	assert.Equal(t, int64(4*gb), snap.Queues.Get(mustPath("root.b")).Extra.Guaranteed.Memory)
	// Node loss: the guarantees exceed the cluster and are scaled down.
	_, err := h.s.RemoveNode("n2")
	require.NoError(t, err)
	snap = h.s.Snapshot()
	assert.Equal(t, int64(6*gb), snap.Queues.Get(mustPath("root.a")).Extra.Guaranteed.Memory)
	assert.Equal(t, int64(2*gb), snap.Queues.Get(mustPath("root.b")).Extra.Guaranteed.Memory)
	h.submit("app", "b", "u")
	h.ask("app", 1, gb, 1)
	al := h.beat("n1")
	require.Len(t, al, 1)
	assert.Equal(t, "root.b", al[0].Queue)
}

func TestStrictRackLocality(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Root.Children = []QueueConfig{Queue("a", 100)}
	cfg.NodeLocalityDelay = 0
	h := newHarness(t, cfg,
		NodeSpec{ID: "h1", Rack: "/r1", Capability: berth.New(8*gb, 8)},
		NodeSpec{ID: "h2", Rack: "/r1", Capability: berth.New(8*gb, 8)})
	h.submit("app", "a", "u")
	one := berth.New(gb, 1)
	_, err := h.s.Allocate("app", []Ask{
		{Priority: 1, ResourceName: "h1", Capability: one, Count: 1},
		{Priority: 1, ResourceName: "/r1", Capability: one, Count: 1, StrictLocality: true},
		{Priority: 1, ResourceName: AnyResource, Capability: one, Count: 1, StrictLocality: true},
	}, nil)
	require.NoError(t, err)
	for i := 0; i < 5; i++ {
		assert.Empty(t, h.beat("h2"), "the rack ask may not relax past h1")
	}
	al := h.beat("h1")
	require.Len(t, al, 1)
	assert.Equal(t, NodeLocal, al[0].Locality)
}

func TestAssignmentsPerHeartbeat(t *testing.T) {
	cases := []struct {
		name     string
		multiple bool
		maxOff   int
		maxAll   int
		local    bool
		want     int
	}{
		{"one off-switch by default", true, 1, 100, false, 1},
		{"off-switch limit raised", true, 3, 100, false, 3},
		{"container limit", true, 10, 2, false, 2},
		{"node-local is not capped by the off-switch limit", true, 1, 100, true, 8},
		{"multiple assignments disabled", false, 10, 100, true, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Root.Children = []QueueConfig{Queue("a", 100)}
			cfg.MultipleAssignments = c.multiple
			cfg.MaxOffSwitchAssignments = c.maxOff
			cfg.MaxContainerAssignments = c.maxAll
			h := newHarness(t, cfg, NodeSpec{ID: "h1", Rack: "/r1", Capability: berth.New(8*gb, 8)})
			h.submit("app", "a", "u")
			one := berth.New(gb, 1)
			asks := []Ask{{Priority: 1, ResourceName: AnyResource, Capability: one, Count: 8}}
			if c.local {
				asks = append(asks, Ask{Priority: 1, ResourceName: "h1", Capability: one, Count: 8},
					Ask{Priority: 1, ResourceName: "/r1", Capability: one, Count: 8})
			}
			_, err := h.s.Allocate("app", asks, nil)
			require.NoError(t, err)
			assert.Len(t, h.beat("h1"), c.want)
		})
	}
}
