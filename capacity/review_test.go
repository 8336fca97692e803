package capacity

import (
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// activeApps lists the activated applications of the snapshot.
func activeApps(h *harness) []string {
	var out []string
	for _, a := range h.s.Snapshot().Apps {
		if a.Active {
			out = append(out, a.ID)
		}
	}
	return out
}

// YARN waives the user AM limit only while the QUEUE has no AM running
// (LeafQueue.activateApplications checks queueUsage.getAMUsed), not while
// the user has none: a second user's oversized AM waits.
func TestUserAMLimitWaiverIsPerQueue(t *testing.T) {
	cfg := DefaultConfig()
	a := Queue("a", 100)
	a.Settings.UserLimitFactor = 0.25 // user AM limit: 16 GB × 0.5 × 0.25 = 2 GB
	cfg.Root.Children = []QueueConfig{a}
	cfg.MaximumAMResourcePercent = 0.5 // queue AM limit 8 GB
	h := newHarness(t, cfg, mkNode("n1", 16*gb, 16))
	_, err := h.s.SubmitApp(AppSpec{ID: "a1", Queue: "a", User: "u1", AMResource: berth.New(3*gb, 1)})
	require.NoError(t, err)
	assert.Equal(t, []string{"a1"}, activeApps(h), "the first AM of the queue is always allowed")
	_, err = h.s.SubmitApp(AppSpec{ID: "a2", Queue: "a", User: "u2", AMResource: berth.New(3*gb, 1)})
	require.NoError(t, err)
	assert.Equal(t, []string{"a1"}, activeApps(h), "u2's 3 GB AM exceeds its 2 GB user AM limit while the queue runs an AM")
	_, err = h.s.FinishApp("a1")
	require.NoError(t, err)
	assert.Equal(t, []string{"a2"}, activeApps(h), "with no AM in the queue the limit is waived")
	require.NoError(t, h.s.Check())
}

// The amount a user over its limit must unreserve belongs to that user's
// application only: YARN resets it per application (canAssignToUser). It
// used to leak to the next application, which then could not allocate
// without a reservation of its own to give up.
func TestNeedUnreserveDoesNotLeakToNextApp(t *testing.T) {
	cfg := DefaultConfig()
	a := Queue("a", 100)
	a.Settings.MinUserLimitPercent = 50
	cfg.Root.Children = []QueueConfig{a}
	cfg.MaxOffSwitchAssignments = 10
	h := newHarness(t, cfg, mkNode("n1", 8*gb, 8), mkNode("n2", 3*gb, 8))
	h.submit("app1", "a", "u1")
	h.ask("app1", 1, 2*gb, 3)
	require.Len(t, h.beat("n1"), 3)
	h.ask("app1", 2, 4*gb, 1)
	require.Empty(t, h.beat("n1"), "4 GB does not fit the 2 GB left: n1 is reserved")
	require.Len(t, h.s.Snapshot().Reservations, 1)
	h.submit("app2", "a", "u2")
	h.ask("app2", 1, 1*gb, 1)
	// u1 (10 GB with its reservation) is over its 6 GB limit but may go on
	// by unreserving; its 4 GB ask cannot run on the 3 GB n2, so app2 is
	// next, and u2 is well within its limit.
	al := h.beat("n2")
	require.Len(t, al, 1)
	assert.Equal(t, "app2", al[0].App)
	require.NoError(t, h.s.Check())
}

// The AM limit uses the queue's limit from the last cluster-resource
// update (YARN's queueResourceLimitsInfo, set only by
// updateClusterResource), not the limit of the last allocation walk, which
// shrinks while siblings are busy.
func TestAMLimitUsesClusterUpdateLimit(t *testing.T) {
	cfg := DefaultConfig()
	b := Queue("b", 50)
	b.Settings.UserLimitFactor = 2
	cfg.Root.Children = []QueueConfig{Queue("a", 50), b}
	cfg.MaxOffSwitchAssignments = 100
	h := newHarness(t, cfg, mkNode("n1", 16*gb, 16))
	h.submit("b1", "b", "ub")
	h.ask("b1", 1, 1*gb, 10)
	require.Len(t, h.beat("n1"), 10)
	_, err := h.s.SubmitApp(AppSpec{ID: "a1", Queue: "a", User: "ua", AMResource: berth.New(1*gb, 1)})
	require.NoError(t, err)
	al := h.beat("n1") // a is walked with 6 GB left to it
	require.Len(t, al, 1)
	require.True(t, al[0].AM)
	// AM limit: the 16 GB limit of the last cluster update × 10% = 2 GB.
	_, err = h.s.SubmitApp(AppSpec{ID: "a2", Queue: "a", User: "ua2", AMResource: berth.New(1*gb, 1)})
	require.NoError(t, err)
	assert.Equal(t, []string{"b1", "a1", "a2"}, activeApps(h))
	require.NoError(t, h.s.Check())
}

// Serving a node's reservation enters the leaf with the whole cluster as
// its limit, and YARN caches that limit for the headroom: the headroom
// told with the allocation does not keep the limit of an older walk made
// while the cluster was full.
func TestReservedAllocationHeadroomLimit(t *testing.T) {
	cfg := DefaultConfig()
	a, b := Queue("a", 50), Queue("b", 50)
	a.Settings.UserLimitFactor, b.Settings.UserLimitFactor = 4, 4
	cfg.Root.Children = []QueueConfig{a, b}
	cfg.MaxOffSwitchAssignments = 100
	h := newHarness(t, cfg, mkNode("n1", 8*gb, 8), mkNode("n2", 8*gb, 8), mkNode("n3", 1*gb, 8))
	h.submit("b1", "b", "ub")
	h.ask("b1", 1, 1*gb, 4)
	require.Len(t, h.beat("n1"), 4)
	h.ask("b1", 1, 1*gb, 4)
	require.Len(t, h.beat("n2"), 4)
	h.submit("a1", "a", "ua")
	h.ask("a1", 1, 6*gb, 1)
	require.Empty(t, h.beat("n2"), "6 GB does not fit the 4 GB left: n2 is reserved")
	h.ask("b1", 1, 1*gb, 3)
	require.Len(t, h.beat("n1"), 3, "the cluster (17 GB with the reservation) is full")
	require.Empty(t, h.beat("n3"), "a is walked with the cluster full")
	_, err := h.s.FinishApp("b1")
	require.NoError(t, err)
	al := h.beat("n2")
	require.Len(t, al, 1)
	assert.Equal(t, "a1", al[0].App)
	// user limit 9 GB (8.5 GB guarantee rounded up) less 6 GB used
	assert.Equal(t, int64(3*gb), al[0].Headroom.Memory)
	require.NoError(t, h.s.Check())
}

// maximum-applications is derived in float32 as YARN's Java does: a 70%
// queue of 10000 gets 7000 (float64 arithmetic on the float32 capacity
// gave 6999), and the same for plan queues' constant 10000.
func TestMaxApplicationsFloat32(t *testing.T) {
	cases := []struct {
		pct  float32
		want int
	}{{70, 7000}, {57, 5700}, {90, 9000}, {30, 3000}, {12.5, 1250}, {0.7, 70}}
	for _, c := range cases {
		cfg := DefaultConfig()
		plan := Queue("a", c.pct)
		plan.Reservable = true
		for _, a := range []QueueConfig{Queue("a", c.pct), plan} {
			cfg.Root.Children = []QueueConfig{a, Queue("b", 100-c.pct)}
			cfg.Clock = berth.NewManualClock(0)
			s, err := New(cfg)
			require.NoError(t, err)
			lf := s.byPath["root.a"].leaf
			if a.Reservable {
				lf = s.byPath["root.a.a-default"].leaf
			}
			assert.Equal(t, c.want, lf.maxApps, "reservable %v at %v%%", a.Reservable, c.pct)
			assert.Equal(t, c.want, lf.maxAppsPerUser, "reservable %v at %v%%", a.Reservable, c.pct)
		}
	}
}

// The seed's step 7 (resolveReservationQueueName): a reservation id that
// names an existing queue outside the plan is "does not belong to the
// specified queue" (a conflict), not "not currently active"; only a
// missing queue is inactive.
func TestReservationIDNamingOrdinaryQueue(t *testing.T) {
	cfg := DefaultConfig()
	plan := Queue("plan", 50)
	plan.Reservable = true
	cfg.Root.Children = []QueueConfig{plan, Queue("other", 50)}
	h := newHarness(t, cfg, mkNode("n1", 16*gb, 16))
	_, err := h.s.SubmitApp(AppSpec{ID: "x", Queue: "plan", User: "u", ReservationID: "other"})
	assert.ErrorIs(t, err, berth.ErrConflict)
	assert.ErrorContains(t, err, "does not belong")
	_, err = h.s.SubmitApp(AppSpec{ID: "y", Queue: "plan", User: "u", ReservationID: "missing"})
	assert.ErrorIs(t, err, berth.ErrNotFound)
	q, err := h.s.SubmitApp(AppSpec{ID: "z", Queue: "plan", User: "u", ReservationID: "plan-default"})
	require.NoError(t, err)
	assert.Equal(t, "root.plan.plan-default", q, "the plan's own default queue is a child of the plan")
}

// YARN resets a key's missed scheduling opportunities after a first
// node- or rack-local assignment whether it allocated or reserved
// (doAllocation: "reservedContainer == null"); a node-local reservation
// restarts the locality delay like an allocation.
func TestLocalReservationResetsDelay(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Root.Children = []QueueConfig{Queue("a", 100)}
	cfg.NodeLocalityDelay = 1
	cfg.RackLocalityAdditionalDelay = 10
	cfg.MaxOffSwitchAssignments = 100
	h := newHarness(t, cfg, mkNode("n1", 8*gb, 8), mkNode("n2", 8*gb, 8))
	h.submit("filler", "a", "f")
	h.ask("filler", 1, 1*gb, 4)
	require.Len(t, h.beat("n1"), 4)
	h.submit("app", "a", "u")
	c := berth.New(6*gb, 1)
	_, err := h.s.Allocate("app", []Ask{
		{Priority: 1, ResourceName: "n1", Capability: c, Count: 1},
		{Priority: 1, ResourceName: "/rack", Capability: c, Count: 1},
		{Priority: 1, ResourceName: AnyResource, Capability: c, Count: 1},
	}, nil)
	require.NoError(t, err)
	require.Empty(t, h.beat("n1"), "node-local reservation on n1")
	require.Len(t, h.s.Snapshot().Reservations, 1)
	// The reservation reset the count: n2 is the first missed opportunity
	// since, not more than the node-locality-delay of 1.
	assert.Empty(t, h.beat("n2"), "rack-local must still wait")
	al := h.beat("n2")
	require.Len(t, al, 1, "second opportunity: rack-local, giving up the reservation")
	assert.Equal(t, RackLocal, al[0].Locality)
	assert.Empty(t, h.s.Snapshot().Reservations)
	require.NoError(t, h.s.Check())
}

// A parent whose child was held at its queue limit reports QUEUE_LIMIT
// with the blocked headroom of its subtree, and its own parent withholds
// that headroom from later siblings (ParentQueue: a parent child's
// blocked headroom is its limits' accumulated blocked headroom). Only a
// leaf's blocking used to count.
func TestNestedBlockedHeadroom(t *testing.T) {
	cfg := DefaultConfig()
	l1 := Queue("l1", 50)
	l1.MaxCapacity = queue.Percent(25) // 4 GB of 16
	x := Queue("x", 50)
	x.Settings.UserLimitFactor = 4
	cfg.Root.Children = []QueueConfig{Queue("p", 50, l1, Queue("l2", 50)), x}
	cfg.MaxOffSwitchAssignments = 100
	h := newHarness(t, cfg, mkNode("n1", 16*gb, 16))
	h.submit("big", "l1", "u1")
	h.ask("big", 1, 5*gb, 1) // above l1's 4 GB limit: QUEUE_LIMIT, 4 GB blocked
	h.submit("xs", "x", "u2")
	h.ask("xs", 1, 1*gb, 16)
	al := h.beat("n1")
	assert.Len(t, al, 12, "x gets the 16 GB less the 4 GB l1 is held at")
	require.NoError(t, h.s.Check())
}

// A reconfigured plan queue re-applies its user limit, user-limit-factor
// and application limits to its reservation queues (YARN's PlanQueue
// reinitialize); they used to keep the values copied when created.
func TestPlanReconfigureReappliesLimits(t *testing.T) {
	build := func(ulf, ulPct float64, maxApps int) Config {
		cfg := DefaultConfig()
		plan := Queue("plan", 50)
		plan.Reservable = true
		plan.Settings.UserLimitFactor, plan.Settings.MinUserLimitPercent = ulf, ulPct
		plan.Settings.MaxApplications = maxApps
		cfg.Root.Children = []QueueConfig{plan, Queue("other", 50)}
		return cfg
	}
	h := newHarness(t, build(1, 100, -1), mkNode("n1", 16*gb, 16))
	require.NoError(t, h.s.AddReservationQueue("plan", "reservation_1"))
	_, err := h.s.Reconfigure(build(2, 50, 100))
	require.NoError(t, err)
	for _, p := range []string{"root.plan.plan-default", "root.plan.reservation_1"} {
		lf := h.s.byPath[p].leaf
		assert.Equal(t, 2.0, lf.ulf, p)
		assert.Equal(t, 50.0, lf.ulPct, p)
		assert.Equal(t, 100, lf.maxApps, p)
		assert.Equal(t, 100, lf.maxAppsPerUser, p, "100 × 50% × 2")
	}
}

// YARN resets a key's re-reservation count on every new reservation and
// every unreservation (FiCaSchedulerApp.reserve / internalUnreserve); the
// count feeds the starvation bonus that lets a key reserve more nodes
// than it still needs. A stale count let it reserve a third node here.
func TestReReservationCountResets(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Root.Children = []QueueConfig{Queue("a", 100)}
	cfg.MaxOffSwitchAssignments = 100
	h := newHarness(t, cfg, mkNode("n1", 8*gb, 8), mkNode("n2", 8*gb, 8), mkNode("n3", 8*gb, 8), mkNode("big", 64*gb, 64))
	h.submit("filler", "a", "f")
	for _, n := range []string{"n1", "n2", "n3"} {
		h.ask("filler", 1, 1*gb, 4)
		require.Len(t, h.beat(n), 4)
	}
	h.submit("app", "a", "u")
	h.ask("app", 1, 6*gb, 2)
	require.Empty(t, h.beat("n1"))
	for i := 0; i < 10; i++ {
		require.Empty(t, h.beat("n1"), "re-reservation")
	}
	require.Empty(t, h.beat("n2"), "the starvation bonus allows a second reservation")
	require.Len(t, h.s.Snapshot().Reservations, 2)
	require.Empty(t, h.beat("n3"))
	assert.Len(t, h.s.Snapshot().Reservations, 2, "two reservations for two containers: no bonus left")
	require.NoError(t, h.s.Check())
}

// A reservation whose ask grew since (same priority, new capability) is
// given up rather than served: serving skips the queue limits, which the
// reservation only covered for the old size (found by FuzzScheduler: the
// root ended 1 GB over the cluster). YARN allocates the new size.
func TestReservationOfResizedAskIsDropped(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Root.Children = []QueueConfig{Queue("a", 100)}
	cfg.MaxOffSwitchAssignments = 100
	h := newHarness(t, cfg, mkNode("n1", 4*gb, 4), mkNode("n2", 4*gb, 4))
	h.submit("filler", "a", "f")
	h.ask("filler", 1, 2*gb, 1)
	require.Len(t, h.beat("n1"), 1)
	h.ask("filler", 1, 2*gb, 1)
	require.Len(t, h.beat("n2"), 1)
	h.submit("app", "a", "u")
	h.ask("app", 1, 3*gb, 1)
	require.Empty(t, h.beat("n1"))
	require.Len(t, h.s.Snapshot().Reservations, 1, "3 GB reserved on n1: the cluster's 8 GB are in use with it")
	h.ask("app", 1, 4*gb, 1)
	_, err := h.s.FinishApp("filler")
	require.NoError(t, err)
	assert.Empty(t, h.beat("n1"), "the 3 GB reservation does not cover a 4 GB container")
	assert.Empty(t, h.s.Snapshot().Reservations)
	al := h.beat("n1")
	require.Len(t, al, 1, "allocated by the normal walk")
	assert.Equal(t, int64(4*gb), al[0].Resource.Memory)
	require.NoError(t, h.s.Check())
}
