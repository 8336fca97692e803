package capacity

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

// asyncWorld is TestCapacitySchedulerAsyncScheduling's setup: queues a,
// b, c, ten nodes of 20 GB, one application per queue with a 1 GB AM.
func asyncWorld(t *testing.T, mutate func(*Config)) (*Scheduler, *berth.ManualClock) {
	t.Helper()
	cfg := DefaultConfig()
	a, b, c := Queue("a", 10), Queue("b", 20), Queue("c", 70)
	for _, q := range []*QueueConfig{&a, &b, &c} {
		q.MaxCapacity = queue.Percent(100)
		q.Settings.UserLimitFactor = 100
	}
	cfg.Root.Children = []QueueConfig{a, b, c}
	cfg.Async.Enabled = true
	cfg.Async.Interval = 0
	mutate(&cfg)
	clock := berth.NewManualClock(0)
	cfg.Clock = clock
	s, err := New(cfg)
	require.NoError(t, err)
	for i := range 10 {
		require.NoError(t, s.AddNode(NodeSpec{ID: fmt.Sprintf("127.0.0.%d", i), Rack: "/default-rack", Capability: berth.New(20*gb, 20)}))
	}
	for i, q := range []string{"a", "b", "c"} {
		_, err := s.SubmitApp(AppSpec{ID: fmt.Sprintf("app%d", i), Queue: q, User: "user", AMResource: berth.New(gb, 1)})
		require.NoError(t, err)
	}
	return s, clock
}

// allocatedMB sums the live containers (queue usage counts reservations
// too).
func allocatedMB(s *Scheduler) int64 {
	var mb int64
	for _, c := range s.Snapshot().Containers {
		mb += c.Resource.Memory
	}
	return mb
}

// The behaviours of YARN's TestCapacitySchedulerAsyncScheduling that do
// not depend on threads racing (Berth commits each proposal as it makes
// it, so proposals never go stale).
func TestAsyncSchedulingBehaviours(t *testing.T) {
	multiNode := func(c *Config) {
		c.MultiNode.Enabled = true
		c.MultiNode.Policies = map[string]NodeSorting{"resource-based": {Policy: ResourceUsageNodes{}, Interval: 1000}}
		c.MultiNode.Policy = "resource-based"
	}
	for _, c := range []struct {
		name   string
		mutate func(*Config)
	}{
		{"one thread", func(c *Config) { c.Async.Threads = 1 }},
		{"two threads", func(c *Config) { c.Async.Threads = 2 }},
		{"three threads", func(c *Config) { c.Async.Threads = 3 }},
		{"multi-node placement", multiNode},
	} {
		t.Run("allocation completes: "+c.name, func(t *testing.T) {
			s, clock := asyncWorld(t, c.mutate)
			// The AMs first, then 20, 40 and 60 containers of 1 GB.
			for range 3 {
				_, err := s.ScheduleRound()
				require.NoError(t, err)
			}
			require.Equal(t, int64(3*gb), allocatedMB(s))
			for i := range 3 {
				_, err := s.Allocate(fmt.Sprintf("app%d", i), []Ask{{Priority: 1, ResourceName: AnyResource, Capability: berth.New(gb, 1), Count: 20 * (i + 1)}}, nil)
				require.NoError(t, err)
			}
			want := int64(3+20+40+60) * gb
			// YARN's threads run every 5 ms; the policy re-sorts every
			// second (a full node first in a stale order is reserved and
			// holds the round back until the next sort).
			for round := 0; allocatedMB(s) < want && round < 3000; round++ {
				clock.Advance(5)
				if round%200 == 0 { // the NodeManagers heartbeat every second
					for i := range 10 {
						_, err := s.Heartbeat(fmt.Sprintf("127.0.0.%d", i), nil)
						require.NoError(t, err)
					}
				}
				al, err := s.ScheduleRound()
				require.NoError(t, err)
				for _, a := range al {
					require.Equal(t, int64(gb), a.Resource.Memory)
				}
				require.NoError(t, s.Check())
			}
			require.Equal(t, want, allocatedMB(s))
			for range 20 { // nothing more than asked
				al, err := s.ScheduleRound()
				require.NoError(t, err)
				require.Empty(t, al)
			}
		})
	}

	t.Run("heartbeats allocate nothing", func(t *testing.T) {
		s, _ := asyncWorld(t, func(*Config) {})
		for i := range 10 {
			al, err := s.Heartbeat(fmt.Sprintf("127.0.0.%d", i), nil)
			require.NoError(t, err)
			require.Empty(t, al)
		}
		assert.Zero(t, allocatedMB(s))
	})

	t.Run("nodes that stopped heartbeating are skipped", func(t *testing.T) {
		s, clock := asyncWorld(t, func(c *Config) { c.Async.SkipNodeAfter = 200 }) // 100 ms heartbeats × 2
		for range 3 {
			_, err := s.ScheduleRound()
			require.NoError(t, err)
		}
		amNodes := map[string]bool{}
		for _, c := range s.Snapshot().Containers {
			amNodes[c.Node] = true
		}
		clock.Set(300) // no heartbeat for 3 intervals
		for i := range 3 {
			_, err := s.Allocate(fmt.Sprintf("app%d", i), []Ask{{Priority: 1, ResourceName: AnyResource, Capability: berth.New(gb, 1), Count: 20 * (i + 1)}}, nil)
			require.NoError(t, err)
		}
		for i := range 5 {
			_, err := s.Heartbeat(fmt.Sprintf("127.0.0.%d", i), nil)
			require.NoError(t, err)
		}
		for range 50 {
			_, err := s.ScheduleRound()
			require.NoError(t, err)
		}
		perNode := map[string]int{}
		for _, c := range s.Snapshot().Containers {
			if !c.AM {
				perNode[c.Node]++
			}
		}
		for i := range 10 {
			id := fmt.Sprintf("127.0.0.%d", i)
			if i < 5 {
				assert.Positive(t, perNode[id], id)
			} else {
				assert.Zero(t, perNode[id], id)
			}
		}
	})

	t.Run("a removed node gets nothing", func(t *testing.T) {
		s, _ := asyncWorld(t, func(*Config) {})
		_, err := s.RemoveNode("127.0.0.3")
		require.NoError(t, err)
		for range 5 {
			al, err := s.ScheduleRound()
			require.NoError(t, err)
			for _, a := range al {
				require.NotEqual(t, "127.0.0.3", a.Node)
			}
		}
		_, err = s.ScheduleRoundOn([]string{"127.0.0.3"})
		require.ErrorIs(t, err, berth.ErrNotFound)
	})

	t.Run("a proposal on another application's reservation is refused", func(t *testing.T) {
		cfg := DefaultConfig()
		cfg.Root.Children = []QueueConfig{Queue("a", 100)}
		cfg.Root.Children[0].Settings.UserLimitFactor = 100
		multiNode(&cfg)
		cfg.MultiNode.Policies["resource-based"] = NodeSorting{Policy: ResourceUsageNodes{}}
		h := newHarness(t, cfg, mkNode("n1", 8*gb, 8), mkNode("n2", 8*gb, 8))
		h.submit("big", "a", "u")
		h.ask("big", 1, 6*gb, 2)
		h.beat("n1")
		h.beat("n1") // one off-switch container per heartbeat: one on each node
		h.submit("filler", "a", "u")
		h.ask("filler", 1, 4*gb, 1)
		h.beat("n2") // 2 GB free on each: filler reserves the first, n1
		snap := h.s.Snapshot()
		require.Len(t, snap.Reservations, 1)
		require.Equal(t, "filler", snap.Reservations[0].App)
		require.Equal(t, "n1", snap.Reservations[0].Node)
		// small's 1 GB fits either node; n1 comes first and is filler's
		// reservation: YARN's committer refuses the proposal, and the
		// walk does not go on to n2 (the stall multi-node placement has
		// while the order holds).
		h.submit("small", "a", "u")
		h.ask("small", 1, gb, 1)
		for range 3 {
			for _, a := range h.beat("n2") {
				assert.NotEqual(t, "small", a.App)
			}
		}
		assert.Len(t, h.s.Snapshot().Reservations, 1)
	})
}

// ResourceUsageNodes: the least allocated candidate first; a kept order
// is refreshed only once its interval has passed on the host's clock.
func TestMultiNodeSorting(t *testing.T) {
	for _, interval := range []berth.Duration{0, 1000} {
		t.Run(fmt.Sprint("interval ", interval), func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Root.Children = []QueueConfig{Queue("a", 100)}
			cfg.Root.Children[0].Settings.UserLimitFactor = 100
			cfg.MultiNode = MultiNodePlacement{Enabled: true, Policy: "p",
				Policies: map[string]NodeSorting{"p": {Policy: ResourceUsageNodes{}, Interval: interval}}}
			cfg.Async.Enabled = true
			clock := berth.NewManualClock(0)
			cfg.Clock = clock
			s, err := New(cfg)
			require.NoError(t, err)
			require.NoError(t, s.AddNodes(mkNode("n1", 8*gb, 8), mkNode("n2", 8*gb, 8), mkNode("n3", 8*gb, 8)))
			_, err = s.SubmitApp(AppSpec{ID: "x", Queue: "a", User: "u"})
			require.NoError(t, err)
			_, err = s.Allocate("x", []Ask{{Priority: 1, ResourceName: AnyResource, Capability: berth.New(gb, 1), Count: 6}}, nil)
			require.NoError(t, err)
			var got []string
			for range 6 {
				al, err := s.ScheduleRound()
				require.NoError(t, err)
				require.Len(t, al, 1)
				got = append(got, al[0].Node)
			}
			if interval == 0 {
				// Re-sorted each time: the least allocated, ties by id.
				assert.Equal(t, []string{"n1", "n2", "n3", "n1", "n2", "n3"}, got)
			} else {
				// The order sorted at time 0 holds until time 1000.
				assert.Equal(t, []string{"n1", "n1", "n1", "n1", "n1", "n1"}, got)
				_, err = s.Allocate("x", []Ask{{Priority: 1, ResourceName: AnyResource, Capability: berth.New(gb, 1), Count: 1}}, nil)
				require.NoError(t, err)
				clock.Set(1000)
				al, err := s.ScheduleRound()
				require.NoError(t, err)
				require.Len(t, al, 1)
				assert.Equal(t, "n2", al[0].Node, "re-sorted after the interval")
			}
		})
	}
	// Without a policy YARN tries the first candidate only.
	cfg := DefaultConfig()
	cfg.Root.Children = []QueueConfig{Queue("a", 100)}
	cfg.MultiNode.Enabled = true
	h := newHarness(t, cfg, mkNode("n1", 2*gb, 2), mkNode("n2", 8*gb, 8))
	h.submit("x", "a", "u")
	h.ask("x", 1, 4*gb, 1)
	al, err := h.s.ScheduleRoundOn([]string{"n1", "n2"})
	require.NoError(t, err)
	assert.Empty(t, al, "n1, the first candidate, is too small; n2 is not tried")
	assert.Len(t, h.s.Snapshot().Reservations, 0, "4 GB does not fit n1's total: no reservation either")
}

// A round over one node decides as a heartbeat of that node that may
// allocate one container (YARN's allocateContainersToNode with and
// without withNodeHeartbeat): the same containers, reservations and
// state, on random streams.
func TestRoundEqualsHeartbeat(t *testing.T) {
	for seed := range uint64(12) {
		r := rand.New(rand.NewPCG(seed, 5))
		base := propConfig(rand.New(rand.NewPCG(seed, 9)))
		base.MultipleAssignments = false
		sync := base
		async := base
		async.Async.Enabled = true
		async.Async.SkipNodeAfter = 0
		sync.Clock = berth.NewManualClock(0)
		cs, err := New(sync)
		require.NoError(t, err)
		async.Clock = berth.NewManualClock(0)
		ca, err := New(async)
		require.NoError(t, err)
		both := func(f func(s *Scheduler) error) {
			require.NoError(t, f(cs))
			require.NoError(t, f(ca))
		}
		nodes := []string{}
		for i := range 4 {
			id := fmt.Sprintf("n%d", i)
			spec := NodeSpec{ID: id, Rack: fmt.Sprintf("/r%d", i%2), Capability: berth.New(int64(4+r.IntN(8))*gb, 8)}
			both(func(s *Scheduler) error { return s.AddNode(spec) })
			nodes = append(nodes, id)
		}
		var apps []string
		for step := range 200 {
			switch k := r.IntN(6); {
			case k == 0 || len(apps) == 0:
				id := fmt.Sprintf("app%d", step)
				spec := AppSpec{ID: id, Queue: []string{"a1", "a2", "b"}[r.IntN(3)], User: fmt.Sprintf("u%d", r.IntN(2)), AMResource: berth.New(gb, 1)}
				both(func(s *Scheduler) error { _, err := s.SubmitApp(spec); return err })
				apps = append(apps, id)
			case k == 1:
				id := apps[r.IntN(len(apps))]
				ask := Ask{Priority: int32(1 + r.IntN(2)), ResourceName: AnyResource, Capability: berth.New(int64(1+r.IntN(5))*gb, 1), Count: r.IntN(4)}
				both(func(s *Scheduler) error { _, err := s.Allocate(id, []Ask{ask}, nil); return err })
			default:
				n := nodes[r.IntN(len(nodes))]
				want, err := cs.Heartbeat(n, nil)
				require.NoError(t, err)
				_, err = ca.Heartbeat(n, nil)
				require.NoError(t, err)
				got, err := ca.ScheduleRoundOn([]string{n})
				require.NoError(t, err)
				require.Equal(t, want, got, "seed %d step %d", seed, step)
			}
		}
		require.NoError(t, cs.Check())
		require.NoError(t, ca.Check())
		ss, sa := cs.Snapshot(), ca.Snapshot()
		assert.Equal(t, ss.Containers, sa.Containers)
		assert.Equal(t, ss.Reservations, sa.Reservations)
		assert.Equal(t, ss.Apps, sa.Apps)
	}
}

// asyncPropWorld is the property world drawn from seed allocating in
// mode (propWorld.mode: 1 asynchronous rounds, 2 multi-node heartbeats,
// 3 both).
func asyncPropWorld(t *testing.T, mode int, seed uint64) *propWorld {
	r := rand.New(rand.NewPCG(seed, seed^0x5bd1e995))
	w := newPropWorldFrom(t, r, seed%2 == 1)
	cfg := w.s.Config()
	cfg.Async.Enabled = mode&1 == 1
	if mode >= 2 {
		cfg.MultiNode = MultiNodePlacement{Enabled: true, Policy: "p",
			Policies: map[string]NodeSorting{"p": {Policy: ResourceUsageNodes{}, Interval: berth.Duration(r.IntN(2) * 1500)}}}
	}
	_, err := w.s.Reconfigure(cfg)
	require.NoError(t, err)
	w.mode = mode
	return w
}

// The heartbeat walk's invariants hold under asynchronous rounds and
// multi-node placement: every container counted once, no node over its
// capability, nothing beyond the asks, queues within their maximum.
func TestPropertyAsyncStreams(t *testing.T) {
	for mode := 1; mode <= 3; mode++ {
		for seed := uint64(1); seed <= 12; seed++ {
			t.Run(fmt.Sprintf("mode %d seed %d", mode, seed), func(t *testing.T) {
				w := asyncPropWorld(t, mode, seed)
				for range 200 {
					w.step()
				}
			})
		}
	}
}

// Rounds, last heartbeats and the sorters' kept orders survive a
// snapshot: the restored scheduler decides as the saved one.
func TestAsyncStateRoundTrip(t *testing.T) {
	for _, multi := range []bool{false, true} {
		s, clock := asyncWorld(t, func(c *Config) {
			if multi {
				c.MultiNode = MultiNodePlacement{Enabled: true, Policy: "p",
					Policies: map[string]NodeSorting{"p": {Policy: ResourceUsageNodes{}, Interval: 5000}}}
			}
		})
		for i := range 3 {
			_, err := s.Allocate(fmt.Sprintf("app%d", i), []Ask{{Priority: 1, ResourceName: AnyResource, Capability: berth.New(gb, 1), Count: 30}}, nil)
			require.NoError(t, err)
		}
		for range 4 {
			_, err := s.ScheduleRound()
			require.NoError(t, err)
		}
		clock.Set(1500)
		_, err := s.Heartbeat("127.0.0.2", nil)
		require.NoError(t, err)
		var buf bytes.Buffer
		require.NoError(t, s.SaveState(&buf))
		r, err := RestoreScheduler(bytes.NewReader(buf.Bytes()), RestoreEnv{Clock: clock})
		require.NoError(t, err)
		assert.Equal(t, saveBytes(t, s), saveBytes(t, r))
		for range 5 {
			a, err := s.ScheduleRound()
			require.NoError(t, err)
			b, err := r.ScheduleRound()
			require.NoError(t, err)
			require.Equal(t, a, b)
		}
	}
}

// The XML keys of asynchronous and multi-node scheduling.
func TestAsyncXML(t *testing.T) {
	base := []string{prefix + "root.queues", "a", prefix + "root.a.capacity", "100"}
	cfg, err := ParseXML(stringsReader(xmlDoc(append(base,
		prefix+"schedule-asynchronously.enable", "true",
		prefix+"schedule-asynchronously.scheduling-interval-ms", "10",
		prefix+"schedule-asynchronously.maximum-threads", "4",
		"yarn.resourcemanager.nodemanagers.heartbeat-interval-ms", "500",
		prefix+"multi-node-placement-enabled", "true",
		prefix+"multi-node-sorting.policy.names", "default,mine",
		prefix+"multi-node-sorting.policy", "default",
		prefix+"multi-node-sorting.policy.mine.class", ResourceUsageClass,
		prefix+"multi-node-sorting.policy.mine.sorting-interval.ms", "0",
		prefix+"root.a.multi-node-sorting.policy", "mine",
	)...)))
	require.NoError(t, err)
	assert.Equal(t, AsyncScheduling{Enabled: true, Interval: 10, Threads: 4, MaxPendingBacklogs: 100, SkipNodeAfter: 1000}, cfg.Async)
	assert.Equal(t, MultiNodePlacement{Enabled: true, Policy: "default", Policies: map[string]NodeSorting{
		"default": {Policy: ResourceUsageNodes{}, Interval: 1000}, "mine": {Policy: ResourceUsageNodes{}, Interval: 0}}}, cfg.MultiNode)
	assert.Equal(t, "mine", cfg.Root.Children[0].Settings.NodeSortingPolicy)

	for _, c := range []struct {
		props []string
		key   string
	}{
		{[]string{prefix + "multi-node-sorting.policy.names", "x"}, prefix + "multi-node-sorting.policy.x.class"},
		{[]string{prefix + "multi-node-sorting.policy.names", "x", prefix + "multi-node-sorting.policy.x.class", "com.example.Nope"}, prefix + "multi-node-sorting.policy.x.class"},
		{[]string{prefix + "multi-node-sorting.policy", "x"}, prefix + "multi-node-sorting.policy"},
		{[]string{prefix + "root.a.multi-node-sorting.policy", "x"}, prefix + "root.a.multi-node-sorting.policy"},
		{[]string{prefix + "schedule-asynchronously.scheduling-interval-ms", "-5"}, prefix + "schedule-asynchronously.scheduling-interval-ms"},
	} {
		_, err := ParseXML(stringsReader(xmlDoc(append(append([]string{}, base...), c.props...)...)))
		assertFieldError(t, err, c.key)
	}
	// A host's policy, registered by class name.
	reg := &NodeSortings{}
	require.NoError(t, reg.Register("com.example.Packed", packedNodes{}))
	cfg, _, err = ParseXMLReport(stringsReader(xmlDoc(append(base,
		prefix+"multi-node-sorting.policy.names", "packed",
		prefix+"multi-node-sorting.policy.packed.class", "com.example.Packed")...)), XMLOptions{NodeSortings: reg})
	require.NoError(t, err)
	assert.Equal(t, packedNodes{}, cfg.MultiNode.Policies["packed"].Policy)

	// YARN's partial-shuffle variant sorts as the resource-usage policy,
	// without its random shuffle: noted as not modelled, refused when
	// strict.
	for _, class := range []string{partialShuffleClass, "ResourceUsageWithPartialShuffleMultiNodeLookupPolicy"} {
		doc := xmlDoc(append(append([]string{}, base...),
			prefix+"multi-node-sorting.policy.names", "shuffled",
			prefix+"multi-node-sorting.policy.shuffled.class", class)...)
		cfg, rep, err := ParseXMLReport(stringsReader(doc), XMLOptions{})
		require.NoError(t, err)
		assert.Equal(t, ResourceUsageNodes{}, cfg.MultiNode.Policies["shuffled"].Policy)
		var noted bool
		for _, n := range rep.Notes {
			noted = noted || (n.Kind == queue.NoteNotModelled && n.Key == prefix+"multi-node-sorting.policy.shuffled.class")
		}
		assert.True(t, noted, "%v", rep.Notes)
		_, _, err = ParseXMLReport(stringsReader(doc), XMLOptions{Strict: true})
		assert.Error(t, err)
	}
}

// packedNodes is a host's policy: the most allocated node first.
type packedNodes struct{}

func (packedNodes) Name() string              { return "com.example.Packed" }
func (packedNodes) Compare(a, b NodeView) int { return cmpResource(b.Allocated(), a.Allocated()) }
