package capacity

import (
	"errors"
	"fmt"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const gb = 1024

// leafQueueTree is TestLeafQueue's tree: root → newRoot(100%) → a 8.5%
// (max 20%), b 80% (max 99%), c 1.5%{c1}, d 9%, e 1%. The queue under test
// gets maximum capacity 100% and the given user-limit settings.
func leafQueueTree(under string, ulPct, ulf float64) Config {
	cfg := DefaultConfig()
	cfg.MaxAllocation = berth.New(16*gb, 32)
	cfg.ContinueLooking = false
	a := Queue("a", 8.5)
	a.MaxCapacity = queue.Percent(20)
	b := Queue("b", 80)
	b.MaxCapacity = queue.Percent(99)
	kids := []QueueConfig{a, b, Queue("c", 1.5, Queue("c1", 100)), Queue("d", 9), Queue("e", 1)}
	for i := range kids {
		if kids[i].Name == under {
			kids[i].MaxCapacity = queue.Percent(100)
			kids[i].Settings.MinUserLimitPercent = ulPct
			kids[i].Settings.UserLimitFactor = ulf
		}
	}
	cfg.Root.Children = []QueueConfig{Queue("newRoot", 100, kids...)}
	return cfg
}

type harness struct {
	t *testing.T
	s *Scheduler
}

func newHarness(t *testing.T, cfg Config, nodes ...NodeSpec) *harness {
	t.Helper()
	cfg.Clock = berth.NewManualClock(0)
	s, err := New(cfg)
	require.NoError(t, err)
	for _, n := range nodes {
		require.NoError(t, s.AddNode(n))
	}
	return &harness{t: t, s: s}
}

func (h *harness) submit(id, q, user string) {
	h.t.Helper()
	_, err := h.s.SubmitApp(AppSpec{ID: id, Queue: q, User: user})
	require.NoError(h.t, err)
}

func (h *harness) ask(id string, prio int32, mem int64, n int) {
	h.t.Helper()
	_, err := h.s.Allocate(id, []Ask{{Priority: prio, ResourceName: AnyResource, Capability: berth.New(mem, 1), Count: n}}, nil)
	require.NoError(h.t, err)
}

func (h *harness) beat(node string) []Allocation {
	h.t.Helper()
	al, err := h.s.Heartbeat(node, nil)
	require.NoError(h.t, err)
	require.NoError(h.t, h.s.Check())
	return al
}

func (h *harness) queueUsed(path string) int64 {
	return h.s.Snapshot().Queues.Get(mustPath(path)).Extra.Used.Memory
}

func (h *harness) appUsed(id string) int64 {
	for _, a := range h.s.Snapshot().Apps {
		if a.ID == id {
			return a.Used.Memory
		}
	}
	return -1
}

func (h *harness) headroom(id string) int64 {
	r, err := h.s.Headroom(id)
	require.NoError(h.t, err)
	return r.Memory
}

func mustPath(s string) queue.Path {
	p, err := queue.ParsePath(s)
	if err != nil {
		panic(err)
	}
	return p
}

func mkNode(id string, mem, vc int64) NodeSpec {
	return NodeSpec{ID: id, Rack: "/rack", Capability: berth.New(mem, vc)}
}

// I-01..I-03: testUserLimits.
func TestVectorsUserLimits(t *testing.T) {
	h := newHarness(t, leafQueueTree("a", 50, 2), mkNode("node_0", 8*gb, 16), mkNode("node_1", 8*gb, 16))
	h.submit("app_0", "a", "user_0")
	h.submit("app_1", "a", "user_1")
	h.ask("app_0", 1, 3*gb, 2)
	h.ask("app_1", 1, 1*gb, 2)
	steps := []struct {
		id         string
		node       string
		wantApp    string
		queue, a0  int64
		a1         int64
		activeUser int
	}{
		{"I-01", "node_0", "app_0", 3 * gb, 3 * gb, 0, 2},
		{"I-02", "node_0", "app_1", 4 * gb, 3 * gb, 1 * gb, 2},
		{"I-03", "node_1", "app_0", 7 * gb, 6 * gb, 1 * gb, 1},
	}
	for _, st := range steps {
		al := h.beat(st.node)
		require.Len(t, al, 1, st.id)
		assert.Equal(t, st.wantApp, al[0].App, st.id)
		assert.Equal(t, st.queue, h.queueUsed("root.newRoot.a"), st.id)
		assert.Equal(t, st.a0, h.appUsed("app_0"), st.id)
		assert.Equal(t, st.a1, h.appUsed("app_1"), st.id)
		assert.Equal(t, st.activeUser, h.s.Snapshot().Queues.Get(mustPath("root.newRoot.a")).Extra.ActiveUsers, st.id)
	}
}

// I-04..I-07: testComputeUserLimitAndSetHeadroom.
func TestVectorsHeadroom(t *testing.T) {
	t.Run("I-04 I-05", func(t *testing.T) {
		h := newHarness(t, leafQueueTree("b", 100, 1), mkNode("node_0", 8*gb, 1), mkNode("node_1", 8*gb, 0))
		h.submit("app_0", "b", "user_0")
		h.ask("app_0", 1, 4*gb, 1)
		al := h.beat("node_0")
		require.Len(t, al, 1)
		assert.Equal(t, int64(9*gb), al[0].Headroom.Memory, "I-04 headroom with the allocation")
		assert.Equal(t, int64(9*gb), h.headroom("app_0"), "I-04")
		h.submit("app_2", "b", "user_1")
		h.ask("app_2", 1, 4*gb, 1)
		require.Len(t, h.beat("node_1"), 1)
		assert.Equal(t, int64(8*gb), h.queueUsed("root.newRoot.b"))
		assert.Equal(t, int64(8*gb), h.headroom("app_0"), "I-05 app_0")
		assert.Equal(t, int64(8*gb), h.headroom("app_2"), "I-05 app_2")
	})
	t.Run("I-06 I-07", func(t *testing.T) {
		h := newHarness(t, leafQueueTree("b", 50, 1), mkNode("node_0", 8*gb, 1), mkNode("node_1", 8*gb, 0))
		h.submit("app_1", "b", "user_0")
		h.submit("app_3", "b", "user_1")
		h.ask("app_1", 1, 2*gb, 1)
		h.ask("app_3", 1, 2*gb, 1)
		require.Len(t, h.beat("node_0"), 1)
		require.Len(t, h.beat("node_0"), 1)
		assert.Equal(t, int64(4*gb), h.queueUsed("root.newRoot.b"))
		assert.Equal(t, int64(5*gb), h.headroom("app_1"), "I-06 app_1")
		assert.Equal(t, int64(5*gb), h.headroom("app_3"), "I-06 app_3")
		// I-07: a 6 GB ask does not fit the 4 GB left on node_0: reserved.
		h.submit("app_4", "b", "user_0")
		h.ask("app_4", 1, 6*gb, 1)
		assert.Empty(t, h.beat("node_0"))
		snap := h.s.Snapshot()
		require.Len(t, snap.Reservations, 1)
		assert.Equal(t, "app_4", snap.Reservations[0].App)
		assert.Equal(t, int64(10*gb), h.queueUsed("root.newRoot.b"))
		assert.Equal(t, int64(6*gb), h.headroom("app_3"), "I-07 app_3")
		assert.Equal(t, int64(1*gb), h.headroom("app_4"), "I-07 app_4")
	})
}

// I-09..I-13: TestParentQueue.testSingleLevelQueues child ordering. Usage
// is set up by real allocations, then one container is offered to both
// queues: the child visited first gets it.
func TestVectorsChildOrdering(t *testing.T) {
	cases := []struct {
		id        string
		usedA     int
		usedB     int
		wantFirst string
	}{
		{"I-09", 0, 0, "b"},
		{"I-10", 0, 1, "a"},
		{"I-11", 2, 2, "b"},
		{"I-12", 3, 4, "b"},
		{"I-13", 3, 8, "a"},
	}
	for _, c := range cases {
		t.Run(c.id, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Root.Children = []QueueConfig{Queue("a", 30), Queue("b", 70)}
			cfg.MaxOffSwitchAssignments = 1
			h := newHarness(t, cfg, mkNode("n0", 10*gb, 16), mkNode("n1", 10*gb, 16))
			h.submit("pa", "a", "u")
			h.submit("pb", "b", "u")
			if c.usedA > 0 {
				h.ask("pa", 5, 1*gb, c.usedA)
			}
			if c.usedB > 0 {
				h.ask("pb", 5, 1*gb, c.usedB)
			}
			for i := 0; i < c.usedA+c.usedB; i++ {
				h.beat([]string{"n0", "n1"}[i%2])
			}
			require.Equal(t, int64(c.usedA*gb), h.queueUsed("root.a"))
			require.Equal(t, int64(c.usedB*gb), h.queueUsed("root.b"))
			h.ask("pa", 1, 1*gb, 1)
			h.ask("pb", 1, 1*gb, 1)
			al := h.beat("n0")
			require.Len(t, al, 1)
			assert.Equal(t, "root."+c.wantFirst, al[0].Queue)
		})
	}
}

// I-14..I-20: capacity validation.
func TestVectorsCapacityValidation(t *testing.T) {
	q := func(name string, c float32, kids ...QueueConfig) QueueConfig { return Queue(name, c, kids...) }
	deep := func(a, b, b1 float32) []QueueConfig {
		return []QueueConfig{
			q("a", a, q("a1", 50), q("a2", 50)),
			q("b", b, q("b1", b1), q("b2", b1), q("b3", b1)),
			q("c", 19.5, q("c1", 100, q("c11", 100, q("c111", 100, q("c1111", 100))))),
			q("d", 20.5),
		}
	}
	cases := []struct {
		id   string
		kids []QueueConfig
		ok   bool
	}{
		{"I-14", []QueueConfig{q("a", 30), q("b", 70.5)}, false},
		{"I-15", []QueueConfig{q("a", 30), q("b", 70)}, true},
		{"I-16", []QueueConfig{q("a", 30), q("b", 70.005)}, true},
		{"I-17", deep(10, 50, 0), false},
		{"I-18", deep(60, 0, 100.0/3), false},
		{"I-19", deep(60, 0, 0), true},
		{"I-20", []QueueConfig{q("a", 100), q("b", 0)}, true},
	}
	for _, c := range cases {
		t.Run(c.id, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Root.Children = c.kids
			cfg.Clock = berth.NewManualClock(0)
			_, err := New(cfg)
			if c.ok {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.True(t, errors.Is(err, berth.ErrInvalidArgument))
			var fe *berth.FieldError
			require.True(t, errors.As(err, &fe))
			assert.Contains(t, fe.Field, prefix+"root", fmt.Sprint(err))
		})
	}
}

// I-08: getTotalPendingResourcesConsideringUserLimit.
func TestVectorsPendingWithinUserLimits(t *testing.T) {
	apps := []pendingEntry{
		{user: "u", pending: berth.New(1*gb, 1)},
		{user: "u", pending: berth.New(3*gb, 3), reserved: berth.New(1*gb, 1)},
	}
	room := func() map[string]berth.Resource { return map[string]berth.Resource{"u": berth.New(2*gb, 2)} } // limit 8 GB, used 6 GB
	assert.Equal(t, int64(2*gb), pendingWithinUserLimits(apps, room(), false).Memory, "I-08")
	assert.Equal(t, int64(2*gb), pendingWithinUserLimits(apps, room(), true).Memory, "I-08 deductReserved")

	// The same through the scheduler: user limit 8 GB (user-limit-factor
	// 0.5 of 16 GB), 6 GB used, asks of 1 GB and 3 GB outstanding.
	cfg := DefaultConfig()
	cfg.Root.Children = []QueueConfig{Queue("a", 100)}
	cfg.Root.Children[0].Settings.UserLimitFactor = 0.5
	cfg.MaxOffSwitchAssignments = 10
	h := newHarness(t, cfg, mkNode("n1", 16*gb, 16))
	h.submit("app1", "a", "u")
	h.submit("app2", "a", "u")
	h.ask("app1", 1, gb, 6)
	require.Len(t, h.beat("n1"), 6)
	h.ask("app1", 1, gb, 1)
	h.ask("app2", 1, gb, 3)
	got, err := h.s.PendingWithinUserLimits("a", false)
	require.NoError(t, err)
	assert.Equal(t, int64(2*gb), got.Memory)
	_, err = h.s.PendingWithinUserLimits("root", false)
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)
}
