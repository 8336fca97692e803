package capacity

import (
	"errors"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func aclP(s string) *queue.ACL { a := queue.ParseACL(s); return &a }

func TestSubmitChecks(t *testing.T) {
	cfg := DefaultConfig()
	a := Queue("a", 50)
	a.SubmitACL = aclP("alice devs")
	b := Queue("b", 30)
	b.Settings.MaxApplications = 1
	s2 := Queue("stopped", 20)
	s2.State = queue.StateStopped
	root := cfg.Root
	root.SubmitACL = aclP(" ")
	root.AdminACL = aclP(" ")
	cfg.Root = root
	cfg.Root.Children = []QueueConfig{a, b, s2}
	cfg.MaximumApplications = 10
	h := newHarness(t, cfg, mkNode("n1", 8*gb, 8))
	cases := []struct {
		name string
		spec AppSpec
		kind error
	}{
		{"acl user", AppSpec{ID: "x1", Queue: "a", User: "alice"}, nil},
		{"acl group", AppSpec{ID: "x2", Queue: "root.a", User: "bob", Groups: []string{"devs"}}, nil},
		{"acl denied", AppSpec{ID: "x3", Queue: "a", User: "eve"}, berth.ErrPermissionDenied},
		{"unknown queue", AppSpec{ID: "x4", Queue: "nope", User: "alice"}, berth.ErrNotFound},
		{"duplicate", AppSpec{ID: "x1", Queue: "a", User: "alice"}, berth.ErrAlreadyExists},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := h.s.SubmitApp(c.spec)
			if c.kind == nil {
				assert.NoError(t, err)
			} else {
				assert.ErrorIs(t, err, c.kind)
			}
		})
	}
	// Root ACLs are nobody: b and stopped refuse everybody.
	_, err := h.s.SubmitApp(AppSpec{ID: "y1", Queue: "b", User: "alice"})
	assert.ErrorIs(t, err, berth.ErrPermissionDenied)

	open := DefaultConfig()
	open.Root.Children = []QueueConfig{b, s2, Queue("c", 50)}
	open.MaximumApplications = 2
	open.GlobalQueueMaxApplications = 5
	h = newHarness(t, open, mkNode("n1", 8*gb, 8))
	_, err = h.s.SubmitApp(AppSpec{ID: "x5", Queue: "root", User: "alice"})
	assert.ErrorIs(t, err, berth.ErrInvalidArgument, "non-leaf")
	_, err = h.s.SubmitApp(AppSpec{ID: "s1", Queue: "stopped", User: "u"})
	assert.ErrorIs(t, err, berth.ErrInvalidState, "stopped queue")
	_, err = h.s.SubmitApp(AppSpec{ID: "b1", Queue: "b", User: "u"})
	require.NoError(t, err)
	_, err = h.s.SubmitApp(AppSpec{ID: "b2", Queue: "b", User: "u"})
	assert.ErrorIs(t, err, berth.ErrCapacityExceeded, "queue maximum-applications")
	_, err = h.s.SubmitApp(AppSpec{ID: "c1", Queue: "c", User: "u"})
	require.NoError(t, err)
	_, err = h.s.SubmitApp(AppSpec{ID: "c2", Queue: "c", User: "u"})
	assert.ErrorIs(t, err, berth.ErrCapacityExceeded, "system maximum-applications")
	var fe *berth.FieldError
	require.True(t, errors.As(err, &fe))
	assert.Equal(t, prefix+"maximum-applications", fe.Field)
}

func TestAMLimitActivation(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Root.Children = []QueueConfig{Queue("a", 100)}
	cfg.MaximumAMResourcePercent = 0.25 // 4 GB of 16
	h := newHarness(t, cfg, mkNode("n1", 16*gb, 16))
	for _, id := range []string{"a1", "a2", "a3"} {
		_, err := h.s.SubmitApp(AppSpec{ID: id, Queue: "a", User: id, AMResource: berth.New(2*gb, 1)})
		require.NoError(t, err)
	}
	active := func() []string { return activeApps(h) }
	assert.Equal(t, []string{"a1", "a2"}, active(), "the third AM does not fit 4 GB")
	al := h.beat("n1")
	require.Len(t, al, 1)
	assert.True(t, al[0].AM)
	assert.Equal(t, "a1", al[0].App)
	_, err := h.s.FinishApp("a1")
	require.NoError(t, err)
	assert.Equal(t, []string{"a2", "a3"}, active(), "finishing a1 frees AM room")
	require.NoError(t, h.s.Check())
}

func TestFinishKillMove(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Root.Children = []QueueConfig{Queue("a", 50), Queue("b", 50)}
	cfg.MaxOffSwitchAssignments = 10
	h := newHarness(t, cfg, mkNode("n1", 16*gb, 16))
	h.submit("app", "a", "u")
	h.ask("app", 1, 2*gb, 3)
	require.Len(t, h.beat("n1"), 3)
	assert.Equal(t, int64(6*gb), h.queueUsed("root.a"))

	path, err := h.s.MoveApp("app", "b")
	require.NoError(t, err)
	assert.Equal(t, "root.b", path)
	assert.Equal(t, int64(0), h.queueUsed("root.a"))
	assert.Equal(t, int64(6*gb), h.queueUsed("root.b"))
	for _, c := range h.s.Snapshot().Containers {
		assert.Equal(t, "root.b", c.Queue)
	}
	require.NoError(t, h.s.Check())
	_, err = h.s.MoveApp("app", "root")
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)

	ended, err := h.s.KillApp("app")
	require.NoError(t, err)
	require.Len(t, ended, 3)
	for _, e := range ended {
		assert.Equal(t, Killed, e.Status)
	}
	assert.Equal(t, int64(0), h.queueUsed("root.b"))
	_, err = h.s.KillApp("app")
	assert.ErrorIs(t, err, berth.ErrNotFound)
	require.NoError(t, h.s.Check())

	// Release through Allocate, and completion through Heartbeat.
	h.submit("app2", "a", "u")
	h.ask("app2", 1, 1*gb, 2)
	al := h.beat("n1")
	require.Len(t, al, 2)
	_, err = h.s.Allocate("app2", nil, []ContainerID{al[0].ID})
	require.NoError(t, err)
	_, err = h.s.Heartbeat("n1", []ContainerID{al[1].ID, 9999})
	require.NoError(t, err)
	assert.Equal(t, int64(0), h.queueUsed("root.a"))
	_, err = h.s.Allocate("app2", nil, []ContainerID{al[0].ID})
	assert.ErrorIs(t, err, berth.ErrNotFound, "released twice")

	h.submit("k1", "a", "u")
	h.submit("k2", "a", "v")
	h.ask("k1", 1, gb, 1)
	h.ask("k2", 1, gb, 1)
	require.Len(t, h.beat("n1"), 2)
	ended, err = h.s.KillAppsInQueue("a")
	require.NoError(t, err)
	assert.Len(t, ended, 2)
	assert.Equal(t, int64(0), h.queueUsed("root.a"))
	assert.Empty(t, h.s.Snapshot().Apps, "app2, k1 and k2 were all in a")
	_, err = h.s.KillAppsInQueue("root")
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)
	require.NoError(t, h.s.Check())

	ended, err = h.s.RemoveNode("n1")
	require.NoError(t, err)
	assert.Empty(t, ended)
}

func TestRejectsBadInput(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Root.Children = []QueueConfig{Queue("a", 100)}
	h := newHarness(t, cfg, mkNode("n1", 8*gb, 8))
	h.submit("app", "a", "u")
	cases := []struct {
		name string
		ask  Ask
	}{
		{"negative count", Ask{Priority: 1, ResourceName: AnyResource, Capability: berth.New(gb, 1), Count: -1}},
		{"above max allocation", Ask{Priority: 1, ResourceName: AnyResource, Capability: berth.New(64*gb, 1), Count: 1}},
		{"empty name", Ask{Priority: 1, Capability: berth.New(gb, 1), Count: 1}},
		{"negative capability", Ask{Priority: 1, ResourceName: AnyResource, Capability: berth.New(-1, 1), Count: 1}},
	}
	for _, c := range cases {
		_, err := h.s.Allocate("app", []Ask{{Priority: 3, ResourceName: AnyResource, Capability: berth.New(gb, 1), Count: 1}, c.ask}, nil)
		assert.ErrorIs(t, err, berth.ErrInvalidArgument, c.name)
		var fe *berth.FieldError
		assert.True(t, errors.As(err, &fe), c.name)
	}
	assert.Equal(t, int64(0), h.s.Snapshot().Queues.Get(mustPath("root.a")).Extra.Pending.Memory, "failed calls change nothing")
	assert.ErrorIs(t, h.s.AddNode(mkNode("n1", gb, 1)), berth.ErrAlreadyExists)
	assert.ErrorIs(t, h.s.AddNode(NodeSpec{ID: "x", Rack: "", Capability: berth.New(gb, 1)}), berth.ErrInvalidArgument)
	_, err := h.s.Heartbeat("nope", nil)
	assert.ErrorIs(t, err, berth.ErrNotFound)
	cfg.Clock = nil
	_, err = New(cfg)
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)
}

func TestReservationQueues(t *testing.T) {
	cfg := DefaultConfig()
	plan := Queue("plan", 50)
	plan.Reservable = true
	plan2 := Queue("plan2", 20)
	plan2.Reservable = true
	cfg.Root.Children = []QueueConfig{plan, plan2, Queue("other", 30)}
	h := newHarness(t, cfg, mkNode("n1", 16*gb, 16))
	s := h.s
	assert.Equal(t, []string{"root.plan", "root.plan2"}, s.PlanQueues())

	// Resolution (the seed's step 7).
	q, err := s.SubmitApp(AppSpec{ID: "d", Queue: "plan", User: "u"})
	require.NoError(t, err)
	assert.Equal(t, "root.plan.plan-default", q, "no reservation id: the plan's default queue")
	_, err = s.SubmitApp(AppSpec{ID: "r0", Queue: "plan", User: "u", ReservationID: "reservation_1"})
	assert.ErrorIs(t, err, berth.ErrNotFound, "reservation not active")
	require.NoError(t, s.AddReservationQueue("plan", "reservation_1"))
	require.NoError(t, s.AddReservationQueue("plan2", "reservation_2"))
	q, err = s.SubmitApp(AppSpec{ID: "r1", Queue: "plan", User: "u", ReservationID: "reservation_1"})
	require.NoError(t, err)
	assert.Equal(t, "root.plan.reservation_1", q)
	_, err = s.SubmitApp(AppSpec{ID: "r2", Queue: "plan", User: "u", ReservationID: "reservation_2"})
	assert.ErrorIs(t, err, berth.ErrConflict, "reservation of another plan")
	q, err = s.SubmitApp(AppSpec{ID: "o", Queue: "other", User: "u", ReservationID: "reservation_1"})
	require.NoError(t, err)
	assert.Equal(t, "root.other", q, "not a plan queue: the id is ignored")

	// Entitlements: the default holds 100%, so a new one must wait.
	err = s.SetEntitlement("reservation_1", Entitlement{Capacity: 0.4, MaxCapacity: 1})
	assert.ErrorIs(t, err, berth.ErrCapacityExceeded)
	require.NoError(t, s.SetEntitlement("plan-default", Entitlement{Capacity: 0.6, MaxCapacity: 1}))
	require.NoError(t, s.SetEntitlement("reservation_1", Entitlement{Capacity: 0.4, MaxCapacity: 1}))
	assert.ErrorIs(t, s.SetEntitlement("reservation_1", Entitlement{Capacity: 1.5, MaxCapacity: 1}), berth.ErrInvalidArgument)
	assert.ErrorIs(t, s.SetEntitlement("other", Entitlement{Capacity: 0.5, MaxCapacity: 1}), berth.ErrInvalidArgument)
	infos, err := s.ReservationQueues("plan")
	require.NoError(t, err)
	require.Len(t, infos, 2)
	assert.True(t, infos[0].Default)
	assert.InDelta(t, 0.4, infos[1].Capacity, 1e-6)
	snap := s.Snapshot()
	assert.Equal(t, int64(3276), snap.Queues.Get(mustPath("root.plan.reservation_1")).Extra.Guaranteed.Memory)

	// Allocation in the reservation queue.
	h.ask("r1", 1, gb, 2)
	al := h.beat("n1")
	require.Len(t, al, 1)
	assert.Equal(t, "root.plan.reservation_1", al[0].Queue)

	// Removal: not while it has apps or capacity; never the default.
	assert.ErrorIs(t, s.RemoveReservationQueue("reservation_1"), berth.ErrInvalidState)
	_, err = s.FinishApp("r1")
	require.NoError(t, err)
	assert.ErrorIs(t, s.RemoveReservationQueue("reservation_1"), berth.ErrInvalidState, "capacity still 0.4")
	require.NoError(t, s.SetEntitlement("reservation_1", Entitlement{Capacity: 0, MaxCapacity: 1}))
	require.NoError(t, s.RemoveReservationQueue("reservation_1"))
	assert.ErrorIs(t, s.RemoveReservationQueue("plan-default"), berth.ErrInvalidState, "the default queue stays")
	_, err = s.SubmitApp(AppSpec{ID: "r3", Queue: "plan", User: "u", ReservationID: "reservation_1"})
	assert.ErrorIs(t, err, berth.ErrNotFound, "expired reservation")

	// Moving to a plan queue lands in its default queue.
	q, err = s.MoveApp("o", "plan")
	require.NoError(t, err)
	assert.Equal(t, "root.plan.plan-default", q)
	require.NoError(t, s.Check())
}

func TestReconfigure(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Root.Children = []QueueConfig{Queue("a", 50), Queue("b", 50)}
	h := newHarness(t, cfg, mkNode("n1", 16*gb, 16))
	h.submit("app", "a", "u")
	h.ask("app", 1, gb, 1)
	h.beat("n1")

	// Invalid: children sum to 110%. Refused, old config stays.
	bad := cfg
	bad.Root.Children = []QueueConfig{Queue("a", 60), Queue("b", 50)}
	_, err := h.s.Reconfigure(bad)
	require.ErrorIs(t, err, berth.ErrInvalidArgument)
	var fe *berth.FieldError
	require.True(t, errors.As(err, &fe))
	assert.Contains(t, fe.Field, prefix+"root")
	assert.Equal(t, float32(50), h.s.Config().Root.Children[0].Capacity.Percent)

	// Removing a running queue is refused.
	rm := cfg
	rm.Root.Children = []QueueConfig{Queue("a", 100)}
	_, err = h.s.Reconfigure(rm)
	require.Error(t, err)

	// Valid change: capacities, a new queue, a global knob.
	good := cfg
	good.NodeLocalityDelay = 10
	good.Root.Children = []QueueConfig{Queue("a", 40), Queue("b", 50), Queue("c", 10)}
	ch, err := h.s.Reconfigure(good)
	require.NoError(t, err)
	assert.Equal(t, []string{"root.c"}, ch.Added)
	assert.Contains(t, ch.Modified, "root.a")
	assert.True(t, ch.Global)
	assert.Equal(t, int64(gb), h.queueUsed("root.a"), "usage survives")
	snap := h.s.Snapshot()
	assert.Equal(t, int64(6553), snap.Queues.Get(mustPath("root.a")).Extra.Guaranteed.Memory)
	require.NoError(t, h.s.Check())

	// Stop and remove b.
	stop := good
	stop.Root.Children = []QueueConfig{Queue("a", 40), Queue("b", 50), Queue("c", 10)}
	stop.Root.Children[1].State = queue.StateStopped
	_, err = h.s.Reconfigure(stop)
	require.NoError(t, err)
	drop := good
	drop.Root.Children = []QueueConfig{Queue("a", 90), Queue("c", 10)}
	ch, err = h.s.Reconfigure(drop)
	require.NoError(t, err)
	assert.Equal(t, []string{"root.b"}, ch.Removed)
	require.NoError(t, h.s.Check())
}

func TestPreemptionHooks(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Root.Children = []QueueConfig{Queue("a", 50), Queue("b", 50)}
	cfg.Root.Children[0].Settings.UserLimitFactor = 2
	cfg.MaxOffSwitchAssignments = 10
	h := newHarness(t, cfg, mkNode("n1", 8*gb, 8), mkNode("n2", 8*gb, 8))
	h.submit("app", "a", "u")
	h.ask("app", 1, 4*gb, 4)
	require.Len(t, h.beat("n1"), 2)
	require.Len(t, h.beat("n2"), 2)
	snap := h.s.Snapshot()
	require.Len(t, snap.Containers, 4)
	qa := snap.Queues.Get(mustPath("root.a"))
	assert.Equal(t, int64(16*gb), qa.Extra.Used.Memory)
	assert.Equal(t, int64(8*gb), qa.Extra.Guaranteed.Memory)
	assert.InDelta(t, 2.0, qa.Extra.UsedCapacity, 1e-6)

	victim := snap.Containers[3].ID
	require.NoError(t, h.s.MarkForPreemption(victim))
	snap2 := h.s.Snapshot()
	assert.True(t, snap2.Containers[3].MarkedForPreemption)
	assert.False(t, snap.Containers[3].MarkedForPreemption, "snapshots do not change")
	e, err := h.s.PreemptContainer(victim)
	require.NoError(t, err)
	assert.Equal(t, Preempted, e.Status)
	assert.Equal(t, int64(12*gb), h.queueUsed("root.a"))
	_, err = h.s.PreemptContainer(victim)
	assert.ErrorIs(t, err, berth.ErrNotFound)
	assert.ErrorIs(t, h.s.KillReservation(12345), berth.ErrNotFound)
	require.NoError(t, h.s.Check())
}
