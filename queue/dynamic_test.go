package queue

import (
	"testing"

	"github.com/berthsched/berth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func planTree(t testing.TB) (*Tree[int], *Queue[int]) {
	c := rootOf(cfgT{Name: "plan", Capacity: Percent(40), MaxCapacity: Percent(80), Reservable: true, Settings: 5}, leaf("b", 60))
	tr := mustTree(t, c, csOpts)
	return tr, mustQueue(t, tr, "root.plan")
}

func TestPlanQueue(t *testing.T) {
	tr, plan := planTree(t)
	assert.Equal(t, KindPlan, plan.Kind())
	assert.False(t, plan.IsLeaf())
	require.Equal(t, 1, plan.NumChildren())
	def := plan.Child(0)
	assert.Equal(t, "root.plan.plan-default", def.Path().String())
	assert.Equal(t, KindReservation, def.Kind())
	assert.True(t, def.IsDynamic())
	assert.True(t, def.IsLeaf())
	assert.Equal(t, Entitlement{1, 1}, def.Entitlement())
	assert.InDelta(t, 0.4, def.AbsoluteCapacity(), 1e-7)
	assert.InDelta(t, 0.8, def.AbsoluteMaxCapacity(), 1e-7)
	assert.Equal(t, 5, def.Payload, "the default queue starts with the plan's settings")
	q, err := tr.LookupLeaf("plan-default")
	require.NoError(t, err)
	assert.Same(t, def, q)
	_, err = tr.LookupLeaf("plan")
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)
}

func TestReservationQueueLifecycle(t *testing.T) {
	tr, plan := planTree(t)
	def := plan.Child(0)

	r1, err := tr.AddReservationQueue(plan, "reservation_1_0001", 9)
	require.NoError(t, err)
	assert.Equal(t, Entitlement{0, 1}, r1.Entitlement())
	assert.Equal(t, 9, r1.Payload)
	assert.Same(t, r1, mustQueue(t, tr, "root.plan.reservation_1_0001"))
	q, err := tr.Lookup("reservation_1_0001")
	require.NoError(t, err)
	assert.Same(t, r1, q)

	// Sum of entitlements may not exceed 1: lower the default first.
	err = tr.SetEntitlement(r1, Entitlement{0.3, 0.5})
	assert.ErrorIs(t, err, berth.ErrCapacityExceeded)
	assert.Equal(t, "capacity", asQueueError(t, err).Field)
	require.NoError(t, tr.SetEntitlement(def, Entitlement{0.7, 1}))
	require.NoError(t, tr.SetEntitlement(r1, Entitlement{0.3, 0.5}))
	assert.InDelta(t, 0.12, r1.AbsoluteCapacity(), 1e-6)
	assert.InDelta(t, 0.4, r1.AbsoluteMaxCapacity(), 1e-6)
	assert.Equal(t, CapacityPercent, r1.Capacity().Kind)
	assert.InDelta(t, 30, r1.Capacity().Percent, 1e-4)

	// Charges propagate through the plan.
	require.NoError(t, r1.SubmitApp("u"))
	require.NoError(t, r1.Allocate("u", berth.New(512, 1)))
	assert.Equal(t, berth.New(512, 1), tr.Root().Used())

	// Removal rules.
	assert.ErrorIs(t, tr.RemoveReservationQueue(r1), berth.ErrInvalidState, "has apps")
	require.NoError(t, r1.Release("u", berth.New(512, 1)))
	require.NoError(t, r1.FinishApp("u", false))
	err = tr.RemoveReservationQueue(r1)
	assert.ErrorIs(t, err, berth.ErrInvalidState, "non zero capacity")
	assert.Equal(t, "capacity", asQueueError(t, err).Field)
	require.NoError(t, tr.SetEntitlement(r1, Entitlement{0, 0.5}))
	require.NoError(t, tr.RemoveReservationQueue(r1))
	assert.True(t, r1.Removed())
	assert.Nil(t, tr.Queue(r1.Path()))
	assert.Equal(t, 1, plan.NumChildren())
	_, err = tr.Lookup("reservation_1_0001")
	assert.ErrorIs(t, err, berth.ErrNotFound)
	assert.ErrorIs(t, tr.RemoveReservationQueue(r1), berth.ErrNotFound)
	assert.ErrorIs(t, tr.SetEntitlement(r1, Entitlement{0, 0}), berth.ErrNotFound)
	assert.ErrorIs(t, r1.Allocate("u", berth.New(1, 1)), berth.ErrNotFound)

	// The default queue stays.
	assert.ErrorIs(t, tr.RemoveReservationQueue(def), berth.ErrInvalidState)
}

func TestReservationQueueRefusals(t *testing.T) {
	tr, plan := planTree(t)
	b := mustQueue(t, tr, "root.b")
	r1, err := tr.AddReservationQueue(plan, "r1", 0)
	require.NoError(t, err)

	_, err = tr.AddReservationQueue(b, "r2", 0)
	assert.ErrorIs(t, err, berth.ErrInvalidArgument, "not a plan")
	_, err = tr.AddReservationQueue(nil, "r2", 0)
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)
	_, err = tr.AddReservationQueue(plan, "r1", 0)
	assert.ErrorIs(t, err, berth.ErrAlreadyExists)
	_, err = tr.AddReservationQueue(plan, "bad name", 0)
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)
	other, _ := planTree(t)
	_, err = tr.AddReservationQueue(other.Queue(plan.Path()), "r3", 0)
	assert.ErrorIs(t, err, berth.ErrNotFound, "a queue of another tree")

	for _, e := range []Entitlement{{-0.1, 1}, {1.1, 1}, {0, 1.5}, {0.5, 0.4}, {float32NaN(), 1}} {
		err := tr.SetEntitlement(r1, e)
		assert.ErrorIs(t, err, berth.ErrInvalidArgument, "%v", e)
	}
	assert.ErrorIs(t, tr.SetEntitlement(b, Entitlement{0, 1}), berth.ErrInvalidArgument, "not dynamic")
	assert.ErrorIs(t, tr.SetEntitlement(nil, Entitlement{0, 1}), berth.ErrInvalidArgument)
	assert.ErrorIs(t, tr.RemoveReservationQueue(b), berth.ErrInvalidArgument)
	assert.Equal(t, Entitlement{0, 1}, r1.Entitlement(), "refusals change nothing")

	// Within YARN's 0.0001 tolerance.
	require.NoError(t, tr.SetEntitlement(plan.Child(0), Entitlement{0.5, 1}))
	require.NoError(t, tr.SetEntitlement(r1, Entitlement{0.50005, 1}))
}

func float32NaN() float32 { var z float32; return z / z }

func TestReconfigureKeepsReservationQueues(t *testing.T) {
	tr, plan := planTree(t)
	def := plan.Child(0)
	r1, err := tr.AddReservationQueue(plan, "r1", 3)
	require.NoError(t, err)
	require.NoError(t, tr.SetEntitlement(def, Entitlement{0.5, 1}))
	require.NoError(t, tr.SetEntitlement(r1, Entitlement{0.5, 1}))
	require.NoError(t, r1.SubmitApp("u"))

	// The plan's capacity changes: dynamic queues survive, re-derived.
	c := rootOf(cfgT{Name: "plan", Capacity: Percent(50), Reservable: true, State: StateStopped, Settings: 6}, leaf("b", 50))
	diff, err := tr.Reconfigure(c)
	require.NoError(t, err)
	assert.Empty(t, diff.Added)
	assert.Empty(t, diff.Removed)
	assert.Equal(t, []string{"root.b", "root.plan", "root.plan.plan-default", "root.plan.r1"}, pathStrings(diff.Changed),
		"dynamic queues are re-derived from their plan")
	assert.Same(t, plan, mustQueue(t, tr, "root.plan"))
	assert.Same(t, r1, mustQueue(t, tr, "root.plan.r1"))
	assert.Same(t, def, mustQueue(t, tr, "root.plan.plan-default"))
	assert.Equal(t, 3, r1.Payload)
	assert.Equal(t, 6, plan.Payload)
	assert.InDelta(t, 0.25, r1.AbsoluteCapacity(), 1e-7)
	assert.Equal(t, StateDraining, r1.State(), "inherits the stopped plan")
	assert.Equal(t, 1, tr.Root().PendingApps())

	// The plan stops being reservable while r1 has an app: refused.
	c2 := rootOf(leaf("plan", 50), leaf("b", 50))
	_, err = tr.Reconfigure(c2)
	assert.ErrorIs(t, err, berth.ErrInvalidState)
	assert.Equal(t, "root.plan.r1", asQueueError(t, err).QueuePath)

	// Once idle, the reservation queues go with it.
	require.NoError(t, r1.FinishApp("u", false))
	diff, err = tr.Reconfigure(c2)
	require.NoError(t, err)
	assert.Equal(t, []string{"root.plan.plan-default", "root.plan.r1"}, pathStrings(diff.Removed))
	assert.Equal(t, KindLeaf, plan.Kind())
	assert.True(t, r1.Removed())
	assert.True(t, def.Removed())

	// And making it reservable again adds a fresh default queue.
	diff, err = tr.Reconfigure(c)
	require.NoError(t, err)
	assert.Equal(t, []string{"root.plan.plan-default"}, pathStrings(diff.Added))
	assert.Equal(t, KindPlan, plan.Kind())
}

func TestAdHocQueues(t *testing.T) {
	tr := mustTree(t, rootOf(cfgT{Name: "default"}, cfgT{Name: "users", Parent: true}), TreeConfig[int]{})
	users := mustQueue(t, tr, "root.users")
	alice, err := tr.AddDynamicQueue(users, "alice", KindLeaf, 1)
	require.NoError(t, err)
	assert.True(t, alice.IsDynamic())
	assert.Equal(t, KindLeaf, alice.Kind())
	assert.Equal(t, float32(0), alice.CapacityFraction())
	assert.Equal(t, float32(1), alice.AbsoluteMaxCapacity())
	assert.True(t, alice.ACL(SubmitApplications).AllowsNobody())
	assert.True(t, alice.CanSubmit("x", nil), "root's default * still applies")

	_, err = tr.AddDynamicQueue(users, "alice", KindLeaf, 0)
	assert.ErrorIs(t, err, berth.ErrAlreadyExists)
	_, err = tr.AddDynamicQueue(alice, "x", KindLeaf, 0)
	assert.ErrorIs(t, err, berth.ErrInvalidArgument, "under a leaf")
	_, err = tr.AddDynamicQueue(users, "x", KindPlan, 0)
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)
	_, err = tr.AddDynamicQueue(users, "a b", KindLeaf, 0)
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)
	_, err = tr.AddDynamicQueue(nil, "x", KindLeaf, 0)
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)

	// EnsureLeaf creates intermediate parents, all-or-nothing.
	var made []string
	mk := func(p Path, k Kind) int { made = append(made, p.String()+":"+k.String()); return 2 }
	leafQ, err := tr.EnsureLeaf(mustPath(t, "root.groups.dev.bob"), mk)
	require.NoError(t, err)
	assert.Equal(t, []string{"root.groups:parent", "root.groups.dev:parent", "root.groups.dev.bob:leaf"}, made)
	assert.Equal(t, 2, leafQ.Payload)
	assert.Same(t, leafQ, mustQueue(t, tr, "root.groups.dev.bob"))
	again, err := tr.EnsureLeaf(leafQ.Path(), mk)
	require.NoError(t, err)
	assert.Same(t, leafQ, again)
	n := tr.Len()
	_, err = tr.EnsureLeaf(mustPath(t, "root.groups.dev"), mk)
	assert.ErrorIs(t, err, berth.ErrInvalidArgument, "exists as a parent")
	_, err = tr.EnsureLeaf(mustPath(t, "root.default.x.y"), mk)
	assert.ErrorIs(t, err, berth.ErrInvalidArgument, "ancestor is a leaf")
	_, err = tr.EnsureLeaf(Path{}, mk)
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)
	assert.Equal(t, n, tr.Len(), "failed EnsureLeaf creates nothing")

	// Charges flow through ad-hoc parents.
	require.NoError(t, leafQ.Allocate("bob", berth.New(10, 1)))
	assert.Equal(t, berth.New(10, 1), mustQueue(t, tr, "root.groups").Used())

	// Reconfigure keeps ad-hoc queues under surviving parents, adopts named ones.
	c := rootOf(cfgT{Name: "default"}, cfgT{Name: "users", Parent: true, Children: []cfgT{{Name: "carol"}}},
		cfgT{Name: "groups", Parent: true, State: StateStopped, Settings: 7})
	diff, err := tr.Reconfigure(c)
	require.NoError(t, err)
	assert.Equal(t, []string{"root.users.carol"}, pathStrings(diff.Added))
	assert.Empty(t, diff.Removed)
	assert.Contains(t, pathStrings(diff.Changed), "root.groups")
	assert.Contains(t, pathStrings(diff.Changed), "root.groups.dev", "re-derived: now stopped")
	groups := mustQueue(t, tr, "root.groups")
	assert.False(t, groups.IsDynamic(), "adopted by the configuration")
	assert.Equal(t, 7, groups.Payload)
	assert.True(t, mustQueue(t, tr, "root.groups.dev").IsDynamic())
	assert.Equal(t, StateStopped, leafQ.State())
	assert.Same(t, alice, mustQueue(t, tr, "root.users.alice"))
	assert.Equal(t, []string{"carol", "alice"}, []string{users.Child(0).Name(), users.Child(1).Name()}, "configured first, then ad-hoc")

	// Removing ad-hoc queues: idle and childless only.
	assert.ErrorIs(t, tr.RemoveDynamicQueue(mustQueue(t, tr, "root.groups.dev")), berth.ErrInvalidState)
	assert.ErrorIs(t, tr.RemoveDynamicQueue(leafQ), berth.ErrInvalidState)
	assert.ErrorIs(t, tr.RemoveDynamicQueue(users), berth.ErrInvalidArgument, "configured")
	require.NoError(t, leafQ.Release("bob", berth.New(10, 1)))
	require.NoError(t, tr.RemoveDynamicQueue(leafQ))
	require.NoError(t, tr.RemoveDynamicQueue(mustQueue(t, tr, "root.groups.dev")))
	assert.ErrorIs(t, tr.RemoveDynamicQueue(leafQ), berth.ErrNotFound)
	assert.Equal(t, 0, groups.NumChildren())

	// A parent turned leaf drops its ad-hoc children when they are idle.
	diff, err = tr.Reconfigure(rootOf(cfgT{Name: "default"}, cfgT{Name: "users"}, cfgT{Name: "groups", Parent: true}))
	require.NoError(t, err)
	assert.Equal(t, []string{"root.users.alice", "root.users.carol"}, pathStrings(diff.Removed))
	assert.True(t, alice.Removed())
}
