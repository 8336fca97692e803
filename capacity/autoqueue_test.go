package capacity

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

func v2Config() Config {
	cfg := DefaultConfig()
	x := Queue("x", 0)
	x.Capacity = queue.Weight(1)
	p := QueueConfig{Name: "p", Capacity: queue.Percent(100), Settings: DefaultSettings(), Children: []QueueConfig{x}}
	p.Settings.AutoCreate = DefaultAutoCreate(true)
	cfg.Root.Children = []QueueConfig{p}
	return cfg
}

func queuePaths(s *Scheduler) []string {
	var out []string
	for _, q := range s.Snapshot().Queues.Queues {
		out = append(out, q.Path.String())
	}
	return out
}

// v2 auto-creation: up to two levels under an eligible parent, weights
// shared with the siblings, limits and refusals as YARN's.
func TestAutoCreateV2(t *testing.T) {
	cfg := v2Config()
	clock := berth.NewManualClock(1000)
	cfg.Clock = clock
	s, err := New(cfg)
	require.NoError(t, err)
	require.NoError(t, s.AddNode(mkNode("n1", 100*gb, 100)))

	q, err := s.SubmitApp(AppSpec{ID: "a1", Queue: "root.p.team.alice", User: "alice"})
	require.NoError(t, err)
	assert.Equal(t, "root.p.team.alice", q)
	assert.Contains(t, queuePaths(s), "root.p.team")
	abs := func(p string) float64 { return s.byPath[p].absCap }
	assert.InDelta(t, 0.5, abs("root.p.x"), 1e-6, "x and team share p by weight 1:1")
	assert.InDelta(t, 0.5, abs("root.p.team"), 1e-6)
	assert.InDelta(t, 0.5, abs("root.p.team.alice"), 1e-6)
	_, err = s.SubmitApp(AppSpec{ID: "a2", Queue: "root.p.team.bob", User: "bob"})
	require.NoError(t, err)
	assert.InDelta(t, 0.25, abs("root.p.team.bob"), 1e-6, "a created parent creates in turn")
	require.NoError(t, s.Check())

	for _, c := range []struct {
		name, queue string
		kind        error
	}{
		{"three levels", "root.p.a.b.c", berth.ErrInvalidArgument},
		{"under a parent that does not create", "root.q.a", berth.ErrNotFound},
		{"not a full path", "nowhere", berth.ErrNotFound},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := s.SubmitApp(AppSpec{ID: "z", Queue: c.queue, User: "u"})
			require.ErrorIs(t, err, c.kind)
			assert.NotContains(t, queuePaths(s), c.queue)
		})
	}

	// Max queues and weight-only children.
	cfg = v2Config()
	cfg.Root.Children[0].Settings.AutoCreate.MaxQueues = 2
	cfg.Clock = clock
	s2, err := New(cfg)
	require.NoError(t, err)
	_, err = s2.SubmitApp(AppSpec{ID: "a", Queue: "root.p.one", User: "u"})
	require.NoError(t, err)
	_, err = s2.SubmitApp(AppSpec{ID: "b", Queue: "root.p.two", User: "u"})
	require.ErrorIs(t, err, berth.ErrCapacityExceeded, "x and one fill max-queues 2")
	cfg = v2Config()
	cfg.Root.Children[0].Children[0].Capacity = queue.Percent(100)
	cfg.Clock = clock
	s3, err := New(cfg)
	require.NoError(t, err)
	_, err = s3.SubmitApp(AppSpec{ID: "a", Queue: "root.p.one", User: "u"})
	require.ErrorIs(t, err, berth.ErrInvalidArgument, "x uses a percentage: v2 creates only beside weights")
}

// v2 queues left idle past the expiration time are deleted, leaves
// first, on the host's clock.
func TestAutoCreateV2Expiry(t *testing.T) {
	cfg := v2Config()
	cfg.AutoQueueExpiration = 10_000
	clock := berth.NewManualClock(0)
	cfg.Clock = clock
	s, err := New(cfg)
	require.NoError(t, err)
	_, err = s.SubmitApp(AppSpec{ID: "a1", Queue: "root.p.team.alice", User: "alice"})
	require.NoError(t, err)
	clock.Set(20_000)
	gone, err := s.ManageQueues()
	require.NoError(t, err)
	assert.Empty(t, gone, "a queue with an application stays")
	clock.Set(25_000)
	_, err = s.SubmitApp(AppSpec{ID: "a2", Queue: "root.p.team.alice", User: "alice"})
	require.NoError(t, err)
	for _, id := range []string{"a1", "a2"} {
		_, err = s.FinishApp(id)
		require.NoError(t, err)
	}
	clock.Set(35_000)
	gone, err = s.ManageQueues()
	require.NoError(t, err)
	assert.Empty(t, gone, "idle since the submission at 25 s: not expired at 35 s")
	clock.Set(35_001)
	gone, err = s.ManageQueues()
	require.NoError(t, err)
	assert.Equal(t, []string{"root.p.team.alice", "root.p.team"}, gone)
	assert.NotContains(t, queuePaths(s), "root.p.team")
	assert.InDelta(t, 1.0, s.byPath["root.p.x"].absCap, 1e-6, "x has p to itself again")
	require.NoError(t, s.Check())
}

func legacyConfig(fail bool) Config {
	cfg := DefaultConfig()
	m := QueueConfig{Name: "m", Capacity: queue.Percent(80), Settings: DefaultSettings(), Parent: true}
	m.Settings.AutoCreate = DefaultAutoCreate(false)
	m.Settings.AutoCreate.Leaf.Capacity = queue.Percent(40)
	m.Settings.AutoCreate.Leaf.Settings.UserLimitFactor = 2
	m.Settings.AutoCreate.FailOnExceedingCapacity = fail
	cfg.Root.Children = []QueueConfig{Queue("default", 20), m}
	cfg.Placement.Mappings = []QueueMapping{{Kind: MapUser, Source: MapCurrentUser, Parent: "root.m", Queue: MapCurrentUser}}
	return cfg
}

// Legacy managed parents: leaves created through a mapping, with the
// template's capacity while the parent's guarantee lasts
// (GuaranteedOrZeroCapacityOverTimePolicy), re-balanced by ManageQueues.
func TestAutoCreateLegacy(t *testing.T) {
	clock := berth.NewManualClock(0)
	cfg := legacyConfig(false)
	cfg.Clock = clock
	s, err := New(cfg)
	require.NoError(t, err)
	require.NoError(t, s.AddNode(mkNode("n1", 100*gb, 100)))
	for _, u := range []string{"alice", "bob", "carol"} {
		clock.Advance(10)
		q, err := s.SubmitApp(AppSpec{ID: u + "1", Queue: "default", User: u})
		require.NoError(t, err)
		assert.Equal(t, "root.m."+u, q)
	}
	capOf := func(p string) float32 { return s.byPath[p].tq.CapacityFraction() }
	assert.Equal(t, float32(0.4), capOf("root.m.alice"))
	assert.Equal(t, float32(0.4), capOf("root.m.bob"))
	assert.Equal(t, float32(0), capOf("root.m.carol"), "the parent's guarantee is given out")
	assert.Equal(t, 2.0, s.byPath["root.m.alice"].set().UserLimitFactor, "the template's settings")

	// Direct submission to an auto-created leaf, without the mapping.
	cfg = legacyConfig(false)
	_, err = s.SubmitApp(AppSpec{ID: "direct", Queue: "root.m.alice", User: "alice"})
	require.ErrorIs(t, err, berth.ErrPermissionDenied)
	_ = cfg

	// alice's application ends: her leaf gives its guarantee to carol's.
	_, err = s.FinishApp("alice1")
	require.NoError(t, err)
	_, err = s.ManageQueues()
	require.NoError(t, err)
	assert.Equal(t, float32(0), capOf("root.m.alice"))
	assert.Equal(t, float32(0.4), capOf("root.m.carol"))
	require.NoError(t, s.Check())

	// fail-on-exceeding-parent-capacity refuses the third leaf.
	cfg = legacyConfig(true)
	cfg.Clock = clock
	f, err := New(cfg)
	require.NoError(t, err)
	for _, u := range []string{"alice", "bob"} {
		_, err := f.SubmitApp(AppSpec{ID: u, Queue: "default", User: u})
		require.NoError(t, err)
	}
	_, err = f.SubmitApp(AppSpec{ID: "carol", Queue: "default", User: "carol"})
	require.ErrorIs(t, err, berth.ErrCapacityExceeded)
	assert.NotContains(t, queuePaths(f), "root.m.carol")
}

// The XML keys of both kinds of auto-creation and their templates.
func TestAutoCreateXML(t *testing.T) {
	cfg, rep, err := ParseXMLReport(stringsReader(xmlDoc(
		prefix+"root.queues", "m,p",
		prefix+"root.m.capacity", "50", prefix+"root.p.capacity", "50",
		prefix+"root.m.auto-create-child-queue.enabled", "true",
		prefix+"root.m.auto-create-child-queue.max-queues", "7",
		prefix+"root.m.leaf-queue-template.capacity", "10",
		prefix+"root.m.leaf-queue-template.maximum-capacity", "30",
		prefix+"root.m.leaf-queue-template.user-limit-factor", "3",
		prefix+"root.m.leaf-queue-template.ordering-policy", "fair",
		prefix+"root.p.queues", "x",
		prefix+"root.p.x.capacity", "2w",
		prefix+"root.p.auto-queue-creation-v2.enabled", "true",
		prefix+"root.p.auto-queue-creation-v2.template.maximum-capacity", "50",
		prefix+"root.p.auto-queue-creation-v2.leaf-template.capacity", "3w",
		prefix+"root.p.auto-queue-creation-v2.parent-template.user-limit-factor", "5",
		prefix+"root.p.auto-queue-creation-v2.queue-auto-removal.enable", "false",
		prefix+"auto-queue-creation-v2.queue-expiration-time", "60",
	)), XMLOptions{})
	require.NoError(t, err)
	assert.Empty(t, rep.Of(queue.NoteNotModelled))
	assert.Empty(t, rep.Of(queue.NoteUnknown))
	m, p := cfg.Root.Children[0], cfg.Root.Children[1]
	require.NotNil(t, m.Settings.AutoCreate)
	assert.True(t, m.Parent, "a managed parent is a parent without children")
	am := m.Settings.AutoCreate
	assert.False(t, am.V2)
	assert.Equal(t, 7, am.MaxQueues)
	assert.Equal(t, queue.Percent(10), am.Leaf.Capacity)
	assert.Equal(t, queue.Percent(30), am.Leaf.MaxCapacity)
	assert.Equal(t, 3.0, am.Leaf.Settings.UserLimitFactor)
	assert.Equal(t, OrderFair, am.Leaf.Settings.AppOrdering)
	ap := p.Settings.AutoCreate
	require.NotNil(t, ap)
	assert.True(t, ap.V2)
	assert.False(t, ap.AutoRemoval)
	assert.Equal(t, queue.Weight(3), ap.Leaf.Capacity)
	assert.Equal(t, queue.Percent(50), ap.Leaf.MaxCapacity, "the shared template")
	assert.Equal(t, queue.Weight(1), ap.Parent.Capacity, "1w by default")
	assert.Equal(t, 5.0, ap.Parent.Settings.UserLimitFactor)
	assert.Equal(t, 1.0, ap.Leaf.Settings.UserLimitFactor)
	assert.Equal(t, berth.Duration(60_000), cfg.AutoQueueExpiration)

	_, err = ParseXML(stringsReader(xmlDoc(prefix+"root.queues", "a", prefix+"root.a.capacity", "100",
		prefix+"root.a.auto-create-child-queue.enabled", "true", prefix+"root.a.auto-queue-creation-v2.enabled", "true")))
	assertFieldError(t, err, prefix+"root.a.auto-queue-creation-v2.enabled")
}

// Auto-created queues survive a snapshot and a reconfiguration.
func TestAutoCreateStateAndReconfigure(t *testing.T) {
	cfg := v2Config()
	clock := berth.NewManualClock(0)
	cfg.Clock = clock
	s, err := New(cfg)
	require.NoError(t, err)
	require.NoError(t, s.AddNode(mkNode("n1", 10*gb, 10)))
	_, err = s.SubmitApp(AppSpec{ID: "a1", Queue: "root.p.team.alice", User: "alice"})
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, s.SaveState(&buf))
	r, err := RestoreScheduler(bytes.NewReader(buf.Bytes()), RestoreEnv{Clock: clock})
	require.NoError(t, err)
	assert.Equal(t, saveBytes(t, s), saveBytes(t, r))
	assert.Equal(t, queuePaths(s), queuePaths(r))

	// A reconfiguration adds a weight sibling: the created queues keep
	// their place and the weights are shared anew.
	y := Queue("y", 0)
	y.Capacity = queue.Weight(2)
	cfg.Root.Children[0].Children = append(cfg.Root.Children[0].Children, y)
	_, err = s.Reconfigure(cfg)
	require.NoError(t, err)
	assert.Contains(t, queuePaths(s), "root.p.team.alice")
	assert.InDelta(t, 0.25, s.byPath["root.p.x"].absCap, 1e-6)
	assert.InDelta(t, 0.5, s.byPath["root.p.y"].absCap, 1e-6)
	assert.InDelta(t, 0.25, s.byPath["root.p.team"].absCap, 1e-6)
	require.NoError(t, s.Check())
}
