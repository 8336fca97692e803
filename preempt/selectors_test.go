package preempt_test

import (
	"errors"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/capacity"
	"github.com/berthsched/berth/preempt"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func heartbeatAll(t *testing.T, s *capacity.Scheduler, clock *berth.ManualClock, nodes ...string) {
	t.Helper()
	for k := 0; k < 20; k++ {
		clock.Advance(100)
		for _, n := range nodes {
			_, err := s.Heartbeat(n, nil)
			require.NoError(t, err)
		}
	}
}

// Inside one queue, a high-priority application takes from a
// low-priority one (priority_first), within the round's budget.
func TestIntraQueuePriorityFirst(t *testing.T) {
	cfg := capacity.DefaultConfig()
	cfg.MaxAppPriority = 10 // YARN's default cluster maximum, 0, would make both priorities 0
	a := capacity.Queue("a", 100)
	a.Settings.UserLimitFactor = 2 // the user's limit lets the high app's demand through
	cfg.Root.Children = []capacity.QueueConfig{a}
	clock := berth.NewManualClock(0)
	cfg.Clock = clock
	s, err := capacity.New(cfg)
	require.NoError(t, err)
	require.NoError(t, s.AddNodes(capacity.NodeSpec{ID: "n1", Rack: "/r", Capability: berth.New(16*cGB, 16)},
		capacity.NodeSpec{ID: "n2", Rack: "/r", Capability: berth.New(16*cGB, 16)}))
	one := berth.New(cGB, 1)
	_, err = s.SubmitApp(capacity.AppSpec{ID: "low", Queue: "a", User: "u", Priority: 1, AMResource: one})
	require.NoError(t, err)
	heartbeatAll(t, s, clock, "n1", "n2")
	_, err = s.Allocate("low", []capacity.Ask{{Priority: 1, ResourceName: capacity.AnyResource, Capability: one, Count: 31}}, nil)
	require.NoError(t, err)
	heartbeatAll(t, s, clock, "n1", "n2")
	require.Equal(t, int64(32*cGB), capQueueUsed(s, "root.a"))
	_, err = s.SubmitApp(capacity.AppSpec{ID: "high", Queue: "a", User: "u", Priority: 5})
	require.NoError(t, err)
	_, err = s.Allocate("high", []capacity.Ask{{Priority: 1, ResourceName: capacity.AnyResource, Capability: one, Count: 8}}, nil)
	require.NoError(t, err)

	pc := preempt.DefaultProportionalConfig()
	pc.IntraQueueEnabled = true
	pc.IntraQueueOrder = preempt.PriorityFirst
	p, err := preempt.NewProportional(preempt.ProportionalSetup{State: s, Actor: s, Config: pc})
	require.NoError(t, err)
	rep, err := p.Round(0)
	require.NoError(t, err)
	// The demand is capped by the round's budget (10% of 32 GB = 3276
	// MB), which fits three 1 GB containers.
	require.Len(t, rep.Decisions, 3)
	for i, d := range rep.Decisions {
		assert.Equal(t, "intra-queue", d.Selector)
		assert.Equal(t, "low", d.App)
		assert.False(t, d.AM)
		if i > 0 {
			assert.Less(t, d.ID, rep.Decisions[i-1].ID, "newest first")
		}
	}
	// With intra-queue preemption off (or disabled on the queue), nothing.
	for _, mod := range []func(*preempt.ProportionalConfig){
		func(c *preempt.ProportionalConfig) { c.IntraQueueEnabled = false },
		func(c *preempt.ProportionalConfig) {
			yes := true
			c.Queues = map[string]preempt.QueuePreemption{"root.a": {DisableIntraQueuePreemption: &yes}}
		},
	} {
		c := pc
		mod(&c)
		p, err := preempt.NewProportional(preempt.ProportionalSetup{State: s, Actor: s, Config: c})
		require.NoError(t, err)
		rep, err := p.Evaluate(0)
		require.NoError(t, err)
		assert.Empty(t, rep.Decisions)
	}
}

// Under a priority-utilization parent, a reservation of the higher
// priority queue frees its node from the lower one, once old enough
// (a queue can reserve only within its parent's room, as in YARN).
func TestQueuePrioritySelector(t *testing.T) {
	cfg := capacity.DefaultConfig()
	hi, lo := capacity.Queue("hi", 50), capacity.Queue("lo", 50)
	hi.Settings.Priority, lo.Settings.Priority = 2, 1
	lo.Settings.UserLimitFactor = 2
	cfg.Root.Settings.ChildOrdering = capacity.OrderPriorityUtilization
	cfg.Root.Children = []capacity.QueueConfig{hi, lo}
	clock := berth.NewManualClock(0)
	cfg.Clock = clock
	s, err := capacity.New(cfg)
	require.NoError(t, err)
	require.NoError(t, s.AddNodes(capacity.NodeSpec{ID: "n1", Rack: "/r", Capability: berth.New(8*cGB, 8)},
		capacity.NodeSpec{ID: "n2", Rack: "/r", Capability: berth.New(8*cGB, 8)}))
	one := berth.New(cGB, 1)
	_, err = s.SubmitApp(capacity.AppSpec{ID: "l", Queue: "lo", User: "u"})
	require.NoError(t, err)
	_, err = s.Allocate("l", []capacity.Ask{{Priority: 1, ResourceName: capacity.AnyResource, Capability: one, Count: 12}}, nil)
	require.NoError(t, err)
	heartbeatAll(t, s, clock, "n1", "n2") // 6 GB on each node: 2 GB free on each
	require.Equal(t, int64(12*cGB), capQueueUsed(s, "root.lo"))
	_, err = s.SubmitApp(capacity.AppSpec{ID: "h", Queue: "hi", User: "v"})
	require.NoError(t, err)
	_, err = s.Allocate("h", []capacity.Ask{{Priority: 1, ResourceName: capacity.AnyResource, Capability: berth.New(4*cGB, 1), Count: 1}}, nil)
	require.NoError(t, err)
	_, err = s.Heartbeat("n1", nil)
	require.NoError(t, err)
	require.Len(t, s.Snapshot().Reservations, 1)

	pc := preempt.DefaultProportionalConfig()
	pc.PriorityPreemption = true
	pc.TotalPreemptionPerRound = 1
	p, err := preempt.NewProportional(preempt.ProportionalSetup{State: s, Actor: s, Config: pc})
	require.NoError(t, err)
	rep, err := p.Evaluate(0)
	require.NoError(t, err)
	for _, d := range rep.Decisions {
		assert.NotEqual(t, "queue-priority", d.Selector, "reservation younger than the delay")
	}
	clock.Advance(pc.PriorityReservedContainerDelay)
	rep, err = p.Round(clock.Now())
	require.NoError(t, err)
	var mine []preempt.Decision
	for _, d := range rep.Decisions {
		if d.Selector == "queue-priority" {
			mine = append(mine, d)
		}
	}
	require.Len(t, mine, 2, "2 GB free + 2 GB freed on the reserved node")
	for _, d := range mine {
		assert.Equal(t, "n1", d.Node)
		assert.Equal(t, "l", d.App)
		assert.Equal(t, preempt.Marked, d.Action)
	}
}

// preemption-to-balance-queue-after-satisfied: b, beyond its guarantee
// with demand left, may even out with a, further beyond its own; without
// the balance selector nothing moves (b is capped at max(used, guaranteed)).
func TestBalanceSelector(t *testing.T) {
	w := &capWorld{root: &capQueue{path: "root", guar: capRes(100), max: capRes(100)}}
	for _, q := range []struct {
		name string
		g    int64
	}{{"a", 30}, {"b", 30}, {"c", 40}} {
		w.root.children = append(w.root.children, &capQueue{path: "root." + q.name, guar: capRes(q.g), max: capRes(100)})
	}
	w.nodes = []capacity.NodeSpec{{ID: "n1", Rack: "/r", Capability: capRes(100)}}
	w.apps = []capApp{
		{id: "a1", queue: "root.a", groups: []capGroup{{node: "n1", size: capRes(1), count: 55}}},
		{id: "b1", queue: "root.b", groups: []capGroup{{node: "n1", size: capRes(1), count: 35}}},
		{id: "c1", queue: "root.c", groups: []capGroup{{node: "n1", size: capRes(1), count: 10}}},
	}
	w.carriers = []capCarrier{{queue: "root.b", total: capRes(20), unit: capRes(1)}}
	s, _ := w.build(t)
	cfg := preempt.DefaultProportionalConfig()
	cfg.TotalPreemptionPerRound = 1
	cfg.NaturalTerminationFactor = 1
	p, err := preempt.NewProportional(preempt.ProportionalSetup{State: s, Actor: s, Config: cfg})
	require.NoError(t, err)
	rep, err := p.Evaluate(0)
	require.NoError(t, err)
	assert.Empty(t, rep.Decisions, "b is satisfied: plain FIFO leaves a alone")

	cfg.BalanceAfterSatisfied = true
	p, err = preempt.NewProportional(preempt.ProportionalSetup{State: s, Actor: s, Config: cfg})
	require.NoError(t, err)
	rep, err = p.Round(0)
	require.NoError(t, err)
	require.NotEmpty(t, rep.Decisions)
	for _, d := range rep.Decisions {
		assert.Equal(t, "fifo-balance", d.Selector)
		assert.Equal(t, "a1", d.App)
	}
	q := rep.Queue("root.a")
	assert.Equal(t, int64(len(rep.Decisions)), q.ToObtain.Memory, "a gives what its balanced ideal asks")
	assert.Less(t, q.Ideal.Memory, int64(55))
	// Its own kill wait (300 s by default), not max_wait_before_kill.
	rep, err = p.Round(cfg.MaxWaitBeforeKill)
	require.NoError(t, err)
	assert.Zero(t, actionCounts(rep)[preempt.Killed])
	rep, err = p.Round(cfg.BalanceMaxWaitBeforeKill)
	require.NoError(t, err)
	assert.NotZero(t, actionCounts(rep)[preempt.Killed])
}

// flakyCapacity is a scheduler whose hooks fail: a container that vanished is
// reported, any other failure stops the round with the cause.
type flakyCapacity struct {
	*capacity.Scheduler
	markErr       error
	containersErr error
}

func (f *flakyCapacity) MarkForPreemption(id preempt.ContainerID) error {
	if f.markErr != nil {
		return f.markErr
	}
	return f.Scheduler.MarkForPreemption(id)
}

func (f *flakyCapacity) AppendAppContainers(dst []capacity.Container, app string) ([]capacity.Container, error) {
	if f.containersErr != nil {
		return dst, f.containersErr
	}
	return f.Scheduler.AppendAppContainers(dst, app)
}

func TestSchedulerFailures(t *testing.T) {
	s, _, _ := starvingCapacityCluster(t)
	cfg := preempt.DefaultProportionalConfig()
	cfg.TotalPreemptionPerRound = 0.5
	f := &flakyCapacity{Scheduler: s, markErr: &berth.FieldError{Field: "container.id", Reason: "not found", Kind: berth.ErrNotFound}}
	p, err := preempt.NewProportional(preempt.ProportionalSetup{State: f, Actor: f, Config: cfg})
	require.NoError(t, err)
	rep, err := p.Round(0)
	require.NoError(t, err)
	assert.Equal(t, map[preempt.Action]int{preempt.Vanished: 4}, actionCounts(rep))
	assert.Empty(t, p.Marked())

	f.markErr = errors.New("scheduler down")
	_, err = p.Round(1)
	assert.ErrorContains(t, err, "scheduler down")

	f.markErr, f.containersErr = nil, berth.ErrInvalidState
	_, err = p.Round(2)
	assert.ErrorIs(t, err, berth.ErrInvalidState)
}
