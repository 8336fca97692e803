package fair

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/berthsched/berth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func (h *harness) beat(node string) []Allocation {
	h.t.Helper()
	als, err := h.s.Heartbeat(node, nil)
	require.NoError(h.t, err)
	require.NoError(h.t, h.s.Check())
	return als
}

func TestDelaySchedulingByThreshold(t *testing.T) {
	cfg := DefaultConfig()
	cfg.LocalityThresholdNode, cfg.LocalityThresholdRack = 0.5, 0.5
	h := newHarness(t, cfg, "")
	var nodes []string
	for i, rack := range []string{"/r1", "/r1", "/r2", "/r2"} {
		id := fmt.Sprintf("h%d", i+1)
		require.NoError(t, h.s.AddNode(NodeSpec{ID: id, Rack: rack, Capability: berth.New(8192, 8)}))
		nodes = append(nodes, id)
	}
	_, err := h.s.SubmitApp(AppSpec{ID: "a", Queue: "q", User: "u"})
	require.NoError(t, err)
	c := berth.New(1024, 1)
	_, err = h.s.Allocate("a", []Ask{
		{Priority: 1, ResourceName: "h1", Capability: c, Count: 2},
		{Priority: 1, ResourceName: "/r1", Capability: c, Count: 2},
		{Priority: 1, ResourceName: AnyResource, Capability: c, Count: 2},
	}, nil)
	require.NoError(t, err)
	// Off-rack heartbeats are refused until opportunities pass 4 × 0.5
	// twice (node → rack → off-switch).
	var got []Locality
	for range 3 {
		for _, n := range []string{"h3", "h4"} {
			for _, al := range h.beat(n) {
				got = append(got, al.Locality)
			}
		}
	}
	assert.Equal(t, []Locality{OffSwitch}, got, "relaxed to off-switch after enough missed opportunities")
	als := h.beat("h1")
	require.Len(t, als, 1)
	assert.Equal(t, NodeLocal, als[0].Locality)
}

func TestNoDelayPlacesOffSwitchAtOnce(t *testing.T) {
	h := newHarness(t, DefaultConfig(), "")
	n := h.addNode(4096, 4)
	h.request(1024, "q", "u", 1)
	als := h.beat(n)
	require.Len(t, als, 1)
	assert.Equal(t, OffSwitch, als[0].Locality)
	assert.Equal(t, "root.q", als[0].Queue)
}

func TestAssignMultiple(t *testing.T) {
	for _, tc := range []struct {
		name      string
		dynamic   bool
		maxAssign int
		want      int
	}{{"dynamic half", true, -1, 5}, {"max-assign 3", false, 3, 3}, {"unlimited", false, -1, 8}} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.AssignMultiple, cfg.DynamicMaxAssign, cfg.MaxAssign = true, tc.dynamic, tc.maxAssign
			h := newHarness(t, cfg, "")
			n := h.addNode(8192, 8)
			h.request(1024, "q", "u", 20)
			assert.Len(t, h.beat(n), tc.want)
		})
	}
	h := newHarness(t, DefaultConfig(), "")
	n := h.addNode(8192, 8)
	h.request(1024, "q", "u", 20)
	assert.Len(t, h.beat(n), 1, "one container per heartbeat by default")
}

func TestFairSplitAcrossQueuesAndFIFOInLeaf(t *testing.T) {
	h := newHarness(t, DefaultConfig(), allocXML(`<queue name="a"><schedulingPolicy>fifo</schedulingPolicy></queue><queue name="b"/>`))
	n := h.addNode(8192, 8)
	a1 := h.request(1024, "root.a", "u", 4)
	a2 := h.request(1024, "root.a", "u", 4)
	b1 := h.request(1024, "root.b", "u", 8)
	for range 8 {
		h.beat(n)
	}
	sn := h.s.Snapshot()
	assert.Equal(t, 4, sn.App(a1).Containers, "FIFO: the first app takes all of its queue's turns")
	assert.Equal(t, 0, sn.App(a2).Containers)
	assert.Equal(t, 4, sn.App(b1).Containers)
	assert.Equal(t, int64(4096), sn.Queue("root.a").Usage.Memory)
}

func TestDemandRefreshesOnUpdate(t *testing.T) {
	h := newHarness(t, DefaultConfig(), "")
	n := h.addNode(8192, 8)
	h.beat(n) // first heartbeat runs the update
	h.request(1024, "q", "u", 1)
	assert.Empty(t, h.beat(n), "demand is from the last update, as in YARN")
	h.clock.Advance(500)
	assert.Len(t, h.beat(n), 1, "the update interval passed")
	h.request(1024, "q", "u", 1)
	h.s.Update()
	assert.Len(t, h.beat(n), 1)
}

func TestAMShareLimit(t *testing.T) {
	h := newHarness(t, DefaultConfig(), allocXML(`<queue name="q"><maxAMShare>0.1</maxAMShare></queue>`))
	n := h.addNode(10240, 10)
	for _, id := range []string{"a1", "a2"} {
		_, err := h.s.SubmitApp(AppSpec{ID: id, Queue: "q", User: "u", AMResource: berth.New(1024, 1)})
		require.NoError(t, err)
	}
	h.s.Update()
	als := h.beat(n)
	require.Len(t, als, 1)
	assert.Equal(t, "a1", als[0].App)
	assert.True(t, als[0].AM)
	assert.Empty(t, h.beat(n), "a second AM would exceed 10% of the queue's fair share")
	sn := h.s.Snapshot()
	// maxAMShare is a float: 10240 × (double)0.1f rounds up to 1025, as in YARN.
	assert.True(t, sn.Queue("root.q").MaxAMResource.Equal(berth.New(1025, 1)), "%v", sn.Queue("root.q").MaxAMResource)
	_, err := h.s.FinishApp("a1")
	require.NoError(t, err)
	h.s.Update()
	als = h.beat(n)
	require.Len(t, als, 1)
	assert.Equal(t, "a2", als[0].App)
}

func TestReservationForStarvedApp(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Preemption = true
	cfg.PreemptionUtilizationThreshold = 0.5
	h := newHarness(t, cfg, allocXML(`<queue name="a"/><queue name="b"/><defaultFairSharePreemptionTimeout>1</defaultFairSharePreemptionTimeout>`))
	n := h.addNode(4096, 4)
	a := h.request(1024, "root.a", "u", 3)
	h.s.Update()
	var held []ContainerID
	for range 3 {
		for _, al := range h.beat(n) {
			held = append(held, al.ID)
		}
	}
	require.Len(t, held, 3)
	b := h.request(2048, "root.b", "u", 1)
	h.s.Update()
	h.clock.Advance(2000)
	h.s.Update()
	sn := h.s.Snapshot()
	assert.False(t, sn.App(b).FairShareStarvation.IsZero(), "b is below half its fair share past the timeout")
	assert.Empty(t, h.beat(n))
	sn = h.s.Snapshot()
	require.Len(t, sn.Reservations, 1)
	assert.Equal(t, b, sn.Reservations[0].App)
	assert.Equal(t, sn.Reservations[0].ID, sn.Nodes[0].Reserved)
	// a container of a finishes: the reservation is served first
	als, err := h.s.Heartbeat(n, []ContainerID{held[0]})
	require.NoError(t, err)
	require.Len(t, als, 1)
	assert.Equal(t, b, als[0].App)
	assert.Empty(t, h.s.Snapshot().Reservations)
	_ = a
}

func TestNoReservationWithoutStarvation(t *testing.T) {
	h := newHarness(t, DefaultConfig(), "")
	n := h.addNode(2048, 2)
	h.request(1024, "a", "u", 1)
	h.s.Update()
	h.beat(n)
	h.request(2048, "b", "u", 1)
	h.s.Update()
	assert.Empty(t, h.beat(n))
	assert.Empty(t, h.s.Snapshot().Reservations, "YARN reserves only for starved applications")
}

func TestMaxShareBlocksAndHasContainerForNode(t *testing.T) {
	h := newHarness(t, DefaultConfig(), allocXML(`<queue name="p"><maxResources>2048 mb, 2 vcores</maxResources><queue name="c"/></queue>`))
	n := h.addNode(8192, 8)
	id := h.request(1024, "root.p.c", "u", 5)
	for range 5 {
		h.beat(n)
	}
	assert.Equal(t, 2, h.s.Snapshot().App(id).Containers, "the parent's max share caps the child")
}

func TestACLAndPlacementRejection(t *testing.T) {
	h := newHarness(t, DefaultConfig(), allocXML(`<queue name="root"><aclSubmitApps> </aclSubmitApps><aclAdministerApps> </aclAdministerApps>
<queue name="open"><aclSubmitApps>alice</aclSubmitApps></queue></queue>
<queuePlacementPolicy><rule name="specified" create="false"/><rule name="reject"/></queuePlacementPolicy>`))
	q, err := h.s.SubmitApp(AppSpec{ID: "x", Queue: "open", User: "alice"})
	require.NoError(t, err)
	assert.Equal(t, "root.open", q)
	_, err = h.s.SubmitApp(AppSpec{ID: "y", Queue: "open", User: "bob"})
	assert.ErrorIs(t, err, berth.ErrPermissionDenied)
	_, err = h.s.SubmitApp(AppSpec{ID: "z", Queue: "nowhere", User: "alice"})
	assert.ErrorIs(t, err, berth.ErrNoPlacement)
	_, err = h.s.SubmitApp(AppSpec{ID: "x", Queue: "open", User: "alice"})
	assert.ErrorIs(t, err, berth.ErrAlreadyExists)
	assert.Nil(t, h.s.Snapshot().Queue("root.nowhere"))
}

func TestSubmitToParentAndZeroMax(t *testing.T) {
	h := newHarness(t, DefaultConfig(), allocXML(`<queue name="p" type="parent"/><queue name="z"><maxResources>memory-mb=0, vcores=0</maxResources></queue>`))
	_, err := h.s.SubmitApp(AppSpec{ID: "x", Queue: "p", User: "u"})
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)
	assert.Contains(t, err.Error(), "is not a leaf queue")
	_, err = h.s.SubmitApp(AppSpec{ID: "y", Queue: "z", User: "u", AMResource: berth.New(1024, 1)})
	assert.ErrorIs(t, err, berth.ErrCapacityExceeded)
}

func TestMoveApp(t *testing.T) {
	h := newHarness(t, DefaultConfig(), allocXML(`<queue name="a"/><queue name="b"><maxRunningApps>1</maxRunningApps></queue><queue name="c"><maxResources>1024 mb, 1 vcores</maxResources></queue>`))
	n := h.addNode(8192, 8)
	x := h.request(2048, "root.a", "u", 1)
	h.request(1024, "root.b", "u", 1)
	h.beat(n)
	_, err := h.s.MoveApp(x, "root.b")
	assert.ErrorIs(t, err, berth.ErrCapacityExceeded)
	_, err = h.s.MoveApp(x, "root.c")
	assert.ErrorIs(t, err, berth.ErrCapacityExceeded)
	_, err = h.s.MoveApp(x, "root.nope")
	assert.ErrorIs(t, err, berth.ErrNotFound)
	got, err := h.s.MoveApp(x, "default")
	require.NoError(t, err)
	assert.Equal(t, "root.default", got)
	require.NoError(t, h.s.Check())
	sn := h.s.Snapshot()
	assert.Equal(t, int64(2048), sn.Queue("root.default").Usage.Memory)
	assert.Equal(t, int64(0), sn.Queue("root.a").Usage.Memory)
}

func TestReservationQueues(t *testing.T) {
	h := newHarness(t, DefaultConfig(), allocXML(`<queue name="plan"><reservation/></queue>`))
	h.addNode(10240, 10)
	q, err := h.s.SubmitApp(AppSpec{ID: "d", Queue: "plan", User: "u"})
	require.NoError(t, err)
	assert.Equal(t, "root.plan.plan-default", q)
	require.NoError(t, h.s.AddReservationQueue("plan", "reservation_1"))
	assert.ErrorIs(t, h.s.AddReservationQueue("plan", "reservation_1"), berth.ErrAlreadyExists)
	assert.ErrorIs(t, h.s.AddReservationQueue("default", "r"), berth.ErrInvalidArgument)
	_, err = h.s.SubmitApp(AppSpec{ID: "r0", Queue: "plan", User: "u", ReservationID: "reservation_9"})
	assert.ErrorIs(t, err, berth.ErrNotFound)
	q, err = h.s.SubmitApp(AppSpec{ID: "r1", Queue: "plan", User: "u", ReservationID: "reservation_1"})
	require.NoError(t, err)
	assert.Equal(t, "root.plan.reservation_1", q)
	require.NoError(t, h.s.SetEntitlement("reservation_1", Entitlement{Capacity: 0.25, MaxCapacity: 1}))
	assert.ErrorIs(t, h.s.SetEntitlement("reservation_1", Entitlement{Capacity: 2}), berth.ErrInvalidArgument)
	_, err = h.s.Allocate("d", []Ask{{Priority: 1, ResourceName: AnyResource, Capability: berth.New(1024, 1), Count: 10}}, nil)
	require.NoError(t, err)
	_, err = h.s.Allocate("r1", []Ask{{Priority: 1, ResourceName: AnyResource, Capability: berth.New(1024, 1), Count: 10}}, nil)
	require.NoError(t, err)
	h.s.Update()
	sn := h.s.Snapshot()
	assert.Equal(t, int64(8192), sn.Queue("root.plan.plan-default").FairShare.Memory, "weight 1 vs 0.25")
	assert.Equal(t, int64(2048), sn.Queue("root.plan.reservation_1").FairShare.Memory)
	infos, err := h.s.ReservationQueues("plan")
	require.NoError(t, err)
	require.Len(t, infos, 2)
	assert.True(t, infos[0].Default)
	assert.ErrorIs(t, h.s.RemoveReservationQueue("reservation_1"), berth.ErrInvalidState)
	_, err = h.s.FinishApp("r1")
	require.NoError(t, err)
	require.NoError(t, h.s.RemoveReservationQueue("reservation_1"))
	assert.ErrorIs(t, h.s.RemoveReservationQueue("plan-default"), berth.ErrInvalidArgument)
}

func TestNodeRemovalAndContainerCalls(t *testing.T) {
	h := newHarness(t, DefaultConfig(), "")
	n := h.addNode(4096, 4)
	id := h.request(1024, "q", "u", 3)
	h.beat(n)
	h.beat(n)
	sn := h.s.Snapshot()
	require.Len(t, sn.Containers, 2)
	require.NoError(t, h.s.MarkForPreemption(sn.Containers[0].ID))
	assert.True(t, h.s.Snapshot().Containers[0].MarkedForPreemption)
	assert.ErrorIs(t, h.s.MarkForPreemption(999), berth.ErrNotFound)
	e, err := h.s.PreemptContainer(sn.Containers[0].ID)
	require.NoError(t, err)
	assert.Equal(t, Preempted, e.Status)
	_, err = h.s.KillContainer(sn.Containers[0].ID)
	assert.ErrorIs(t, err, berth.ErrNotFound)
	ended, err := h.s.RemoveNode(n)
	require.NoError(t, err)
	require.Len(t, ended, 1)
	assert.Equal(t, Lost, ended[0].Status)
	assert.True(t, h.s.ClusterResource().IsZero())
	assert.True(t, h.s.Snapshot().App(id).Usage.IsZero())
	require.NoError(t, h.s.Check())
	_, err = h.s.Heartbeat(n, nil)
	assert.ErrorIs(t, err, berth.ErrNotFound)
}

func TestInputErrors(t *testing.T) {
	h := newHarness(t, DefaultConfig(), "")
	assert.ErrorIs(t, h.s.AddNode(NodeSpec{}), berth.ErrInvalidArgument)
	assert.ErrorIs(t, h.s.AddNode(NodeSpec{ID: "n", Capability: berth.New(-1, 0)}), berth.ErrInvalidArgument)
	require.NoError(t, h.s.AddNode(NodeSpec{ID: "n", Capability: berth.New(1, 1)}))
	assert.ErrorIs(t, h.s.AddNode(NodeSpec{ID: "n"}), berth.ErrAlreadyExists)
	_, err := h.s.SubmitApp(AppSpec{ID: "", User: "u"})
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)
	_, err = h.s.Allocate("none", nil, nil)
	assert.ErrorIs(t, err, berth.ErrNotFound)
	_, err = h.s.SubmitApp(AppSpec{ID: "a", User: "u"})
	require.NoError(t, err)
	_, err = h.s.Allocate("a", []Ask{{ResourceName: AnyResource, Capability: berth.New(1<<40, 1), Count: 1}}, nil)
	var fe *berth.FieldError
	require.True(t, errors.As(err, &fe))
	assert.Equal(t, "asks[0].capability", fe.Field)
	_, err = h.s.Allocate("a", []Ask{{ResourceName: AnyResource, Count: -1}}, nil)
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)
	_, err = h.s.Allocate("a", nil, []ContainerID{99})
	assert.ErrorIs(t, err, berth.ErrNotFound)
	_, err = New(DefaultConfig()) // no clock
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)
	bad := DefaultConfig()
	bad.Increment = berth.New(0, 1)
	bad.Clock = berth.NewManualClock(0)
	_, err = New(bad)
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)
}

// TestConcurrentUse drives one scheduler from several goroutines; run
// with -race.
func TestConcurrentUse(t *testing.T) {
	h := newHarness(t, DefaultConfig(), allocXML(`<queue name="root"><schedulingPolicy>drf</schedulingPolicy><queue name="a"/><queue name="b"><schedulingPolicy>drf</schedulingPolicy></queue></queue>`))
	for range 4 {
		h.addNode(8192, 8)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 20 {
				id := fmt.Sprintf("g%d-%d", g, i)
				if _, err := h.s.SubmitApp(AppSpec{ID: id, Queue: []string{"root.a", "root.b"}[i%2], User: "u"}); err != nil {
					t.Error(err)
					return
				}
				if _, err := h.s.Allocate(id, []Ask{{Priority: 1, ResourceName: AnyResource, Capability: berth.New(512, 1), Count: 2}}, nil); err != nil {
					t.Error(err)
					return
				}
				if _, err := h.s.Heartbeat(fmt.Sprintf("node%d", 1+(g+i)%4), nil); err != nil {
					t.Error(err)
				}
				h.s.Update()
				_ = h.s.Snapshot()
				if i%3 == 0 {
					if _, err := h.s.FinishApp(id); err != nil {
						t.Error(err)
					}
				}
			}
		}()
	}
	wg.Wait()
	require.NoError(t, h.s.Check())
}

func TestMaxContainerAllocation(t *testing.T) {
	h := newHarness(t, DefaultConfig(), allocXML(`<queue name="small"><maxContainerAllocation>2048 mb, 2 vcores</maxContainerAllocation><queue name="leaf"/></queue>`))
	_, err := h.s.SubmitApp(AppSpec{ID: "a", Queue: "root.small.leaf", User: "u"})
	require.NoError(t, err)
	_, err = h.s.Allocate("a", []Ask{{Priority: 1, ResourceName: AnyResource, Capability: berth.New(4096, 1), Count: 1}}, nil)
	assert.ErrorIs(t, err, berth.ErrInvalidArgument, "the parent's maxContainerAllocation is inherited")
	_, err = h.s.Allocate("a", []Ask{{Priority: 1, ResourceName: AnyResource, Capability: berth.New(1500, 1), Count: 1}}, nil)
	require.NoError(t, err)
	n := h.addNode(8192, 8)
	h.s.Update()
	als := h.beat(n)
	require.Len(t, als, 1)
	assert.True(t, als[0].Resource.Equal(berth.New(2048, 1)), "rounded up to the 1024 MB increment: %v", als[0].Resource)
}

func TestDelaySchedulingByTime(t *testing.T) {
	cfg := DefaultConfig()
	cfg.TimeBasedLocality = true
	cfg.LocalityDelayNode, cfg.LocalityDelayRack = 1000, 1000
	h := newHarness(t, cfg, "")
	require.NoError(t, h.s.AddNode(NodeSpec{ID: "h1", Rack: "/r1", Capability: berth.New(8192, 8)}))
	require.NoError(t, h.s.AddNode(NodeSpec{ID: "h2", Rack: "/r2", Capability: berth.New(8192, 8)}))
	_, err := h.s.SubmitApp(AppSpec{ID: "a", Queue: "q", User: "u"})
	require.NoError(t, err)
	c := berth.New(1024, 1)
	_, err = h.s.Allocate("a", []Ask{{Priority: 1, ResourceName: "h1", Capability: c, Count: 1},
		{Priority: 1, ResourceName: "/r1", Capability: c, Count: 1}, {Priority: 1, ResourceName: AnyResource, Capability: c, Count: 1}}, nil)
	require.NoError(t, err)
	assert.Empty(t, h.beat("h2"), "node-local only at first")
	h.clock.Advance(1001)
	assert.Empty(t, h.beat("h2"), "rack-local after the node delay; h2 is on another rack")
	h.clock.Advance(1001)
	als := h.beat("h2")
	require.Len(t, als, 1, "off-switch after both delays")
	assert.Equal(t, OffSwitch, als[0].Locality)
}

func TestReservableNodesLimit(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Preemption = true
	cfg.PreemptionUtilizationThreshold = 0
	cfg.ReservableNodes = 0.05 // ceil(2 × 0.05) = 1 node
	h := newHarness(t, cfg, allocXML(`<queue name="a"/><queue name="b"/><defaultFairSharePreemptionTimeout>0</defaultFairSharePreemptionTimeout>`))
	n1, n2 := h.addNode(3072, 4), h.addNode(3072, 4)
	h.request(1024, "root.a", "u", 4)
	h.s.Update()
	for range 2 {
		h.beat(n1)
		h.beat(n2)
	}
	b := h.request(3072, "root.b", "u", 2)
	h.s.Update()
	require.False(t, h.s.Snapshot().App(b).FairShareStarvation.IsZero())
	h.beat(n1)
	h.beat(n2)
	sn := h.s.Snapshot()
	require.Len(t, sn.Reservations, 1, "an app may hold off-switch reservations on ceil(nodes × 5%%) nodes")
	assert.Equal(t, n1, sn.Reservations[0].Node)
	require.NoError(t, h.s.KillReservation(sn.Reservations[0].ID))
	assert.Empty(t, h.s.Snapshot().Reservations)
}

func TestSizeBasedWeight(t *testing.T) {
	cfg := DefaultConfig()
	cfg.SizeBasedWeight = true
	h := newHarness(t, cfg, "")
	h.addNode(8192, 8)
	small := h.request(1024, "q", "u", 1)
	big := h.request(1024, "q", "u", 7)
	h.s.Update()
	sn := h.s.Snapshot()
	assert.InDelta(t, 10.0, sn.App(small).Weight, 0.01, "log2(1 + 1024)")
	assert.InDelta(t, 12.81, sn.App(big).Weight, 0.01, "log2(1 + 7168)")
	assert.Greater(t, sn.App(big).FairShare.Memory, sn.App(small).FairShare.Memory)
}

func TestDeferredTypeChange(t *testing.T) {
	h := newHarness(t, DefaultConfig(), allocXML(`<queue name="q"/>`))
	id := h.request(1024, "root.q", "u", 1)
	af, err := ParseAllocationFile([]byte(allocXML(`<queue name="q"><queue name="child"/></queue><queue name="gone" type="parent"><queue name="x"><schedulingPolicy>fifo</schedulingPolicy></queue></queue>`)), ParseOptions{})
	require.NoError(t, err)
	res := reloadOK(t, h.s, af)
	assert.Equal(t, []string{"root.q"}, res.Deferred)
	assert.Equal(t, []string{"root.q.child"}, res.Skipped, "its parent is still a leaf holding an application")
	assert.True(t, h.queue("root.q").Leaf)
	h.finish(id)
	h.s.Update()
	require.NoError(t, h.s.Check())
	assert.False(t, h.queue("root.q").Leaf, "changed once empty")
	assert.NotNil(t, h.s.Snapshot().Queue("root.gone.x"))
}

// Min-share starvation, with YARN's literal distribution: an application
// whose unmet demand x exceeds the remaining min-share starvation p gets
// x − p, not p.
func TestMinShareStarvation(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Preemption = true
	cfg.PreemptionUtilizationThreshold = 0.5
	h := newHarness(t, cfg, allocXML(`<queue name="big"/><queue name="needy"><minResources>4096 mb, 4 vcores</minResources><minSharePreemptionTimeout>1</minSharePreemptionTimeout></queue>`))
	n := h.addNode(8192, 8)
	h.request(1024, "root.big", "u", 8)
	h.s.Update()
	for range 8 {
		h.beat(n)
	}
	id := h.request(1024, "root.needy", "u", 6)
	h.s.Update()
	assert.True(t, h.s.Snapshot().App(id).MinShareStarvation.IsZero(), "not starved before the timeout")
	h.clock.Advance(1000)
	h.s.Update()
	st := h.s.Snapshot().App(id)
	assert.True(t, st.FairShareStarvation.IsZero(), "fair-share timeout is infinite")
	assert.Equal(t, int64(2048), st.MinShareStarvation.Memory, "6144 unmet − 4096 starvation")
}

func TestAdHocChildSettings(t *testing.T) {
	h := newHarness(t, DefaultConfig(), allocXML(`<queue name="p" type="parent"><maxChildResources>8192 mb, 8 vcores</maxChildResources><allowPreemptionFrom>false</allowPreemptionFrom>
<minSharePreemptionTimeout>7</minSharePreemptionTimeout></queue>`))
	h.addNode(65536, 64)
	h.request(1024, "root.p.x", "u", 1)
	q := h.queue("root.p.x")
	assert.True(t, q.Dynamic)
	assert.True(t, q.MaxShare.Equal(berth.New(8192, 8)), "ad-hoc children get maxChildResources: %v", q.MaxShare)
	assert.False(t, q.Preemptable, "allowPreemptionFrom=false is inherited")
	assert.Equal(t, berth.Duration(7000), q.MinSharePreemptionTimeout, "timeouts are inherited")
	assert.True(t, h.queue("root.default").Preemptable)
	// the ad-hoc queue goes away with its last application
	sn := h.s.Snapshot()
	h.finish(sn.Apps[0].ID)
	h.s.Update()
	assert.Nil(t, h.s.Snapshot().Queue("root.p.x"))
	assert.NotNil(t, h.s.Snapshot().Queue("root.p"), "configured parents stay")
}

func TestSnapshotTreeBooks(t *testing.T) {
	h := newHarness(t, DefaultConfig(), allocXML(`<queue name="a"/>`))
	n := h.addNode(4096, 4)
	h.request(1024, "root.a", "alice", 2)
	h.beat(n)
	sn := h.s.Snapshot()
	require.NotNil(t, sn.Tree)
	qa := sn.Tree.Get(mustPath("root.a"))
	require.NotNil(t, qa)
	assert.True(t, qa.Usage.Used.Equal(berth.New(1024, 1)))
	assert.Equal(t, 1, qa.Usage.ActiveApps)
	require.Len(t, qa.Users, 1)
	assert.Equal(t, "alice", qa.Users[0].User)
	assert.Equal(t, "root.a", h.s.Snapshot().App("app01").Queue)
	q, err := h.s.Place("a", "bob")
	require.NoError(t, err)
	assert.Equal(t, "root.a", q)
}

// A waiting application is not checked against the target's limits and
// starts at once where there is room (YARN 3.x executeMove); a runnable
// one is checked (TestMoveApp); one that cannot start keeps waiting.
func TestMoveWaitingApp(t *testing.T) {
	file := func(cMax string) string {
		return allocXML(`<queue name="a"><maxRunningApps>1</maxRunningApps></queue>
<queue name="b"><maxRunningApps>1</maxRunningApps></queue>
<queue name="c"><maxResources>` + cMax + `</maxResources></queue>
<queue name="d"/>`)
	}
	h := newHarness(t, DefaultConfig(), file("4096 mb, 4 vcores"))
	n := h.addNode(8192, 8)
	h.request(1024, "root.a", "u", 1)
	w := h.request(1024, "root.a", "u", 1)
	h.request(1024, "root.b", "u", 1)
	h.request(2048, "root.c", "u", 1)
	h.beat(n)
	h.beat(n)
	h.beat(n)
	info := func(id string) AppInfo {
		for _, a := range h.s.Snapshot().Apps {
			if a.ID == id {
				return a
			}
		}
		t.Fatalf("no app %s", id)
		return AppInfo{}
	}
	require.False(t, info(w).Runnable)
	af, err := ParseAllocationFile([]byte(file("1024 mb, 1 vcores")), ParseOptions{})
	require.NoError(t, err)
	reloadOK(t, h.s, af)
	require.False(t, h.queue("root.c").Usage.FitsIn(h.queue("root.c").MaxShare), "c is above its max share")

	got, err := h.s.MoveApp(w, "root.b")
	require.NoError(t, err)
	assert.Equal(t, "root.b", got)
	assert.False(t, info(w).Runnable, "b is full: the app keeps waiting there")
	assert.Equal(t, 1, h.queue("root.b").NumPending)
	require.NoError(t, h.s.Check())

	// c is above its max share, which YARN checks only for runnable apps;
	// it has running room, so the app starts there.
	got, err = h.s.MoveApp(w, "c")
	require.NoError(t, err)
	assert.Equal(t, "root.c", got)
	assert.True(t, info(w).Runnable, "room in c: it starts")
	assert.Equal(t, 2, h.queue("root.c").NumRunnable)
	assert.Equal(t, 0, h.queue("root.b").NumPending)
	require.NoError(t, h.s.Check())
	// Now runnable, it is checked: b is full.
	_, err = h.s.MoveApp(w, "root.b")
	assert.ErrorIs(t, err, berth.ErrCapacityExceeded)
	_, err = h.s.MoveApp(w, "root.d")
	require.NoError(t, err)
	als := h.beat(n)
	require.Len(t, als, 1)
	assert.Equal(t, w, als[0].App)
}
