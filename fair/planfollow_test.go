package fair

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/berthsched/berth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The follower's accessors: plan resources are the plan queue's steady
// fair share (weight 8 of 10), a reservation queue's are its own
// (weight 0.25 against the default queue's 1 at load; the short name "r1"
// is the plan's even though a queue root.r1 exists), apps are listed in
// submission order below any queue.
func TestPlanFollowerAccessors(t *testing.T) {
	h := newHarness(t, DefaultConfig(), allocXML(`<queue name="a"><weight>1</weight></queue>
<queue name="r1"><weight>0</weight></queue>
<queue name="plan"><weight>8</weight><reservation/></queue>
<queuePlacementPolicy><rule name="specified"/><rule name="default" queue="a"/></queuePlacementPolicy>`))
	h.addNode(102400, 100)

	pr, err := h.s.PlanResources("plan")
	require.NoError(t, err)
	assert.Equal(t, int64(81920), pr.Memory, "weights default 1, a 1, plan 8: 8/10 of 100 GB")
	pr2, err := h.s.PlanResources("root.plan")
	require.NoError(t, err)
	assert.True(t, pr.Equal(pr2))

	names, err := h.s.ReservationQueueNames("root.plan")
	require.NoError(t, err)
	assert.Equal(t, []string{"root.plan.plan-default"}, names, "the default queue exists with the plan")

	require.NoError(t, h.s.AddReservationQueue("root.plan", "r1"))
	require.NoError(t, h.s.SetEntitlement("root.plan.r1", Entitlement{Capacity: 0.25, MaxCapacity: 1}))
	names, err = h.s.ReservationQueueNames("plan")
	require.NoError(t, err)
	assert.Equal(t, []string{"root.plan.plan-default", "root.plan.r1"}, names)

	for _, name := range []string{"root.plan.r1", "r1"} {
		e, res, err := h.s.ReservationQueueState("root.plan", name)
		require.NoError(t, err, name)
		assert.Equal(t, Entitlement{Capacity: 0.25, MaxCapacity: 1}, e, name)
		assert.Equal(t, int64(16384), res.Memory, "%s: 0.25/1.25 of the plan", name)
	}
	e, res, err := h.s.ReservationQueueState("plan", "root.plan.plan-default")
	require.NoError(t, err)
	assert.Equal(t, float32(1), e.Capacity)
	assert.Equal(t, int64(65536), res.Memory)

	errCases := []struct {
		plan, queue string
		kind        error
	}{
		{"nope", "r1", berth.ErrNotFound},
		{"a", "r1", berth.ErrInvalidArgument},
		{"plan", "r9", berth.ErrNotFound},
		{"plan", "root.a", berth.ErrInvalidArgument},
		{"plan", "root.r1", berth.ErrInvalidArgument},
		{"plan", "root.plan", berth.ErrInvalidArgument},
		{"plan", "", berth.ErrNotFound},
	}
	for _, c := range errCases {
		_, _, err := h.s.ReservationQueueState(c.plan, c.queue)
		assert.ErrorIs(t, err, c.kind, "%s/%s", c.plan, c.queue)
		var fe *berth.FieldError
		assert.ErrorAs(t, err, &fe)
	}
	for _, p := range []string{"nope", "a", ""} {
		_, err := h.s.PlanResources(p)
		assert.Error(t, err, p)
		_, err = h.s.ReservationQueueNames(p)
		assert.Error(t, err, p)
	}

	// Apps in submission order, whatever their queue or runnability.
	for i, q := range []string{"plan", "root.a", "plan"} {
		spec := AppSpec{ID: fmt.Sprintf("app%d", i), Queue: q, User: "u"}
		if i == 2 {
			spec.ReservationID = "r1"
		}
		_, err := h.s.SubmitApp(spec)
		require.NoError(t, err)
	}
	for _, c := range []struct {
		queue string
		want  []string
	}{
		{"root", []string{"app0", "app1", "app2"}},
		{"plan", []string{"app0", "app2"}},
		{"root.plan.r1", []string{"app2"}},
		{"plan.plan-default", []string{"app0"}},
		{"a", []string{"app1"}},
	} {
		got, err := h.s.AppsInQueue(c.queue)
		require.NoError(t, err, c.queue)
		assert.Equal(t, c.want, got, c.queue)
	}
	_, err = h.s.AppsInQueue("root.nope")
	assert.ErrorIs(t, err, berth.ErrNotFound)
}

// Property: the accessors agree with a snapshot (the reference model)
// after random reservation-queue edits, submissions and moves.
func TestPlanFollowerAccessorsMatchSnapshot(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		h := newHarness(t, DefaultConfig(), allocXML(`<queue name="a"/><queue name="p"><weight>3</weight><reservation/></queue>`))
		h.addNode(int64(1024*(1+rng.IntN(64))), 64)
		nApps := 0
		for step := 0; step < 40; step++ {
			r := fmt.Sprintf("r%d", rng.IntN(5))
			switch rng.IntN(5) {
			case 0:
				_ = h.s.AddReservationQueue("p", r)
			case 1:
				_ = h.s.SetEntitlement("root.p."+r, Entitlement{Capacity: float32(rng.IntN(11)) / 10, MaxCapacity: 1})
			case 2:
				_ = h.s.RemoveReservationQueue("root.p." + r)
			case 3:
				nApps++
				spec := AppSpec{ID: fmt.Sprintf("app%d", nApps), Queue: "p", User: "u"}
				if rng.IntN(2) == 0 {
					spec.ReservationID = r
				}
				if rng.IntN(3) == 0 {
					spec.Queue = "a"
				}
				_, _ = h.s.SubmitApp(spec)
			case 4:
				if nApps > 0 {
					_, _ = h.s.MoveApp(fmt.Sprintf("app%d", 1+rng.IntN(nApps)), "root.p."+r)
				}
			}
			sn := h.s.Snapshot()
			pr, err := h.s.PlanResources("p")
			require.NoError(t, err)
			assert.True(t, pr.Equal(plannedShare(sn, nil, "root.p")), "seed %d step %d", seed, step)
			names, err := h.s.ReservationQueueNames("p")
			require.NoError(t, err)
			infos, err := h.s.ReservationQueues("p")
			require.NoError(t, err)
			require.Len(t, names, len(infos))
			for i, n := range names {
				assert.Equal(t, infos[i].Path, n)
				e, res, err := h.s.ReservationQueueState("p", n)
				require.NoError(t, err)
				assert.Equal(t, infos[i].Entitlement, e)
				assert.True(t, res.Equal(plannedShare(sn, nil, n)), "seed %d step %d %s", seed, step, n)
				want := []string{}
				for _, a := range sn.Apps {
					if a.Queue == n {
						want = append(want, a.ID)
					}
				}
				got, err := h.s.AppsInQueue(n)
				require.NoError(t, err)
				assert.Equal(t, want, got, "seed %d step %d %s", seed, step, n)
			}
			require.NoError(t, h.s.Check())
		}
	}
}

// plannedShare is the reference model of what the scheduler tells a plan
// follower a queue gets: its steady fair share in the snapshot, with
// vcores and the extended types given the share's fraction of the
// cluster's memory when a queue above it divides by the fair policy
// (memory only).
func plannedShare(sn *Snapshot, types []string, path string) berth.Resource {
	q := sn.Queue(path)
	share := q.SteadyFairShare
	memOnly := false
	for p := sn.Queue(q.Parent); p != nil; p = sn.Queue(p.Parent) {
		memOnly = memOnly || p.Policy == PolicyFair
	}
	if !memOnly || sn.Cluster.Memory <= 0 {
		return share
	}
	f := min(float64(share.Memory)/float64(sn.Cluster.Memory), 1)
	share.VCores = int64(float64(sn.Cluster.VCores) * f)
	for _, t := range types {
		share = share.With(t, int64(float64(sn.Cluster.Get(t))*f))
	}
	return share
}

// Under the fair policy the plan resources carry vcores (and extended
// types) in the proportion of the share's memory, and so do a reservation
// queue's; under DRF they are the steady share as computed (p has weight
// 3 of 5: root.default and root.a have 1).
func TestPlanResourcesCompleteMemoryOnlyShares(t *testing.T) {
	for _, c := range []struct {
		name, xml       string
		want, wantChild berth.Resource
	}{
		{"fair", `<queue name="a"/><queue name="p"><weight>3</weight><reservation/></queue>`,
			berth.New(6144, 12).With("gpu", 4), berth.New(3072, 6).With("gpu", 2)},
		{"drf", `<queue name="a"/><queue name="p"><weight>3</weight><reservation/></queue>
<defaultQueueSchedulingPolicy>drf</defaultQueueSchedulingPolicy>`,
			berth.New(6144, 12).With("gpu", 6), berth.New(3072, 6).With("gpu", 3)},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.ResourceTypes = []string{"gpu"}
			h := newHarness(t, cfg, allocXML(c.xml))
			require.NoError(t, h.s.AddNode(NodeSpec{ID: "n1", Capability: berth.New(10240, 20).With("gpu", 8)}))
			pr, err := h.s.PlanResources("p")
			require.NoError(t, err)
			assert.True(t, pr.Equal(c.want), "%v", pr)
			assert.True(t, pr.Equal(plannedShare(h.s.Snapshot(), cfg.ResourceTypes, "root.p")))
			// The default queue and r1 have weight 1 each.
			require.NoError(t, h.s.AddReservationQueue("p", "r1"))
			require.NoError(t, h.s.SetEntitlement("r1", Entitlement{Capacity: 1, MaxCapacity: 1}))
			_, res, err := h.s.ReservationQueueState("p", "r1")
			require.NoError(t, err)
			assert.True(t, res.Equal(c.wantChild), "%v", res)
			assert.True(t, res.Equal(plannedShare(h.s.Snapshot(), cfg.ResourceTypes, "root.p.r1")))
			assert.Equal(t, berth.MemoryCalculator{}, h.s.ResourceCalculator(), "YARN's FairScheduler plans by memory")
		})
	}
}

// A node whose capability would wrap the cluster total is refused, and
// the cluster is left as it was.
func TestAddNodeOverflow(t *testing.T) {
	big := berth.New(math.MaxInt64-10, 4).With("gpu", math.MaxInt64)
	for _, c := range []struct {
		name   string
		second berth.Resource
		ok     bool
	}{
		{"memory fits exactly", berth.New(10, 4), true},
		{"memory overflows", berth.New(11, 4), false},
		{"vcores overflow", berth.New(1, math.MaxInt64), false},
		{"extra type overflows", berth.New(1, 1).With("gpu", 1), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.ResourceTypes = []string{"gpu"}
			h := newHarness(t, cfg, "")
			require.NoError(t, h.s.AddNode(NodeSpec{ID: "n1", Capability: big}))
			err := h.s.AddNode(NodeSpec{ID: "n2", Capability: c.second})
			if c.ok {
				require.NoError(t, err)
				assert.Equal(t, int64(math.MaxInt64), h.s.ClusterResource().Memory)
			} else {
				assert.ErrorIs(t, err, berth.ErrCapacityExceeded)
				var fe *berth.FieldError
				require.ErrorAs(t, err, &fe)
				assert.Equal(t, "node.capability", fe.Field)
				assert.True(t, h.s.ClusterResource().Equal(big))
				assert.Len(t, h.s.Snapshot().Nodes, 1)
			}
			require.NoError(t, h.s.Check())
		})
	}
}

// A bare reservation id names the reservation queue with the smallest
// path when two plans hold one of that name; a full path names exactly.
func TestReservationQueueByShortName(t *testing.T) {
	h := newHarness(t, DefaultConfig(), allocXML(`<queue name="p2"><reservation/></queue><queue name="p1"><reservation/></queue>`))
	h.addNode(8192, 8)
	require.NoError(t, h.s.AddReservationQueue("p2", "r1"))
	require.NoError(t, h.s.AddReservationQueue("p1", "r1"))
	require.NoError(t, h.s.SetEntitlement("r1", Entitlement{Capacity: 0.5, MaxCapacity: 1}))
	require.NoError(t, h.s.SetEntitlement("root.p2.r1", Entitlement{Capacity: 0.25, MaxCapacity: 1}))
	for path, want := range map[string]float32{"root.p1.r1": 0.5, "root.p2.r1": 0.25} {
		e, _, err := h.s.ReservationQueueState(path[:len("root.p1")], path)
		require.NoError(t, err)
		assert.Equal(t, want, e.Capacity, path)
	}
	assert.ErrorIs(t, h.s.SetEntitlement("r9", Entitlement{}), berth.ErrNotFound)
	require.NoError(t, h.s.RemoveReservationQueue("r1"))
	names, err := h.s.ReservationQueueNames("p1")
	require.NoError(t, err)
	assert.Equal(t, []string{"root.p1.p1-default"}, names)
}

// The follower's accessors and edits are safe beside submissions and
// heartbeats (run with -race).
func TestPlanFollowerConcurrentUse(t *testing.T) {
	h := newHarness(t, DefaultConfig(), allocXML(`<queue name="a"/><queue name="plan"><reservation/></queue>`))
	for range 2 {
		h.addNode(8192, 8)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	wg.Add(2)
	go func() { // the follower
		defer wg.Done()
		for i := range 40 {
			r := fmt.Sprintf("r%d", i%4)
			_ = h.s.AddReservationQueue("plan", r)
			if err := h.s.SetEntitlement("root.plan."+r, Entitlement{Capacity: 0.2, MaxCapacity: 1}); err != nil {
				errs <- err
			}
			if _, err := h.s.PlanResources("plan"); err != nil {
				errs <- err
			}
			names, err := h.s.ReservationQueueNames("plan")
			if err != nil {
				errs <- err
			}
			for _, n := range names {
				if _, _, err := h.s.ReservationQueueState("plan", n); err != nil {
					errs <- err
				}
				if _, err := h.s.AppsInQueue(n); err != nil {
					errs <- err
				}
			}
		}
	}()
	go func() { // applications and nodes
		defer wg.Done()
		for i := range 40 {
			id := fmt.Sprintf("app%d", i)
			if _, err := h.s.SubmitApp(AppSpec{ID: id, Queue: []string{"plan", "a"}[i%2], User: "u"}); err != nil {
				errs <- err
				continue
			}
			if _, err := h.s.Allocate(id, []Ask{{Priority: 1, ResourceName: AnyResource, Capability: berth.New(512, 1), Count: 1}}, nil); err != nil {
				errs <- err
			}
			if _, err := h.s.Heartbeat(fmt.Sprintf("node%d", 1+i%2), nil); err != nil {
				errs <- err
			}
		}
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	apps, err := h.s.AppsInQueue("root")
	require.NoError(t, err)
	assert.Len(t, apps, 40)
	require.NoError(t, h.s.Check())
}
