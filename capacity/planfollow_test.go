package capacity

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/berthsched/berth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// planFollowHarness: root.{dedicated 80% reservable (reservation_1 at 25%,
// the default at 75%), other 10% reservable, a 10% (a1, a2)} on
// 128000 MB × 125 vcores.
func planFollowHarness(t *testing.T) *Scheduler {
	t.Helper()
	cfg := DefaultConfig()
	ded := Queue("dedicated", 80)
	ded.Reservable = true
	other := Queue("other", 10)
	other.Reservable = true
	cfg.Root.Children = []QueueConfig{ded, other, Queue("a", 10, Queue("a1", 50), Queue("a2", 50))}
	cfg.Clock = berth.NewManualClock(0)
	s, err := New(cfg)
	require.NoError(t, err)
	require.NoError(t, s.AddNode(NodeSpec{ID: "n1", Rack: "/r1", Capability: berth.New(128000, 125)}))
	require.NoError(t, s.AddReservationQueue("dedicated", "reservation_1"))
	require.NoError(t, s.SetEntitlement("dedicated-default", Entitlement{Capacity: 0.75, MaxCapacity: 1}))
	require.NoError(t, s.SetEntitlement("reservation_1", Entitlement{Capacity: 0.25, MaxCapacity: 0.5}))
	return s
}

func TestPlanResources(t *testing.T) {
	s := planFollowHarness(t)
	cases := []struct {
		plan string
		want berth.Resource
		kind error
	}{
		{"dedicated", berth.New(102400, 100), nil},
		{"root.dedicated", berth.New(102400, 100), nil},
		{"other", berth.New(12800, 12), nil}, // 125 × 0.1 truncates
		{"a", berth.None(), berth.ErrInvalidArgument},
		{"reservation_1", berth.None(), berth.ErrInvalidArgument},
		{"nope", berth.None(), berth.ErrNotFound},
	}
	for _, c := range cases {
		t.Run(c.plan, func(t *testing.T) {
			got, err := s.PlanResources(c.plan)
			if c.kind != nil {
				assert.ErrorIs(t, err, c.kind)
				return
			}
			require.NoError(t, err)
			assert.True(t, c.want.Equal(got), "%v, want %v", got, c.want)
		})
	}
}

func TestReservationQueueAccessors(t *testing.T) {
	s := planFollowHarness(t)
	names, err := s.ReservationQueueNames("root.dedicated")
	require.NoError(t, err)
	assert.Equal(t, []string{"dedicated-default", "reservation_1"}, names)
	names, err = s.ReservationQueueNames("other")
	require.NoError(t, err)
	assert.Equal(t, []string{"other-default"}, names)
	_, err = s.ReservationQueueNames("a1")
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)

	cases := []struct {
		name, plan, queue string
		ent               Entitlement
		res               berth.Resource
		kind              error
	}{
		{"reservation", "dedicated", "reservation_1", Entitlement{Capacity: 0.25, MaxCapacity: 0.5}, berth.New(25600, 25), nil},
		{"full path", "root.dedicated", "root.dedicated.reservation_1", Entitlement{Capacity: 0.25, MaxCapacity: 0.5}, berth.New(25600, 25), nil},
		{"default", "dedicated", "dedicated-default", Entitlement{Capacity: 0.75, MaxCapacity: 1}, berth.New(76800, 75), nil},
		{"another plan's", "other", "reservation_1", Entitlement{}, berth.None(), berth.ErrInvalidArgument},
		{"not a reservation queue", "dedicated", "a1", Entitlement{}, berth.None(), berth.ErrInvalidArgument},
		{"unknown queue", "dedicated", "reservation_9", Entitlement{}, berth.None(), berth.ErrNotFound},
		{"not a plan", "a", "reservation_1", Entitlement{}, berth.None(), berth.ErrInvalidArgument},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, r, err := s.ReservationQueueState(c.plan, c.queue)
			if c.kind != nil {
				assert.ErrorIs(t, err, c.kind)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.ent, e)
			assert.True(t, c.res.Equal(r), "%v, want %v", r, c.res)
		})
	}
}

func TestAppsInQueue(t *testing.T) {
	s := planFollowHarness(t)
	submit := func(id, q, res string) {
		_, err := s.SubmitApp(AppSpec{ID: id, Queue: q, User: "u", ReservationID: res})
		require.NoError(t, err)
	}
	// Ids deliberately out of lexical order: the answer follows submission.
	submit("z", "dedicated", "reservation_1")
	submit("b", "dedicated", "")
	submit("y", "a1", "")
	submit("c", "dedicated", "reservation_1")
	submit("a", "a2", "")
	cases := []struct {
		queue string
		want  []string
	}{
		{"reservation_1", []string{"z", "c"}},
		{"dedicated-default", []string{"b"}},
		{"dedicated", []string{"z", "b", "c"}},
		{"root.a", []string{"y", "a"}},
		{"root", []string{"z", "b", "y", "c", "a"}},
		{"other-default", []string{}},
	}
	for _, c := range cases {
		t.Run(c.queue, func(t *testing.T) {
			got, err := s.AppsInQueue(c.queue)
			require.NoError(t, err)
			assert.Equal(t, c.want, got)
		})
	}
	_, err := s.AppsInQueue("nope")
	assert.ErrorIs(t, err, berth.ErrNotFound)

	// A moved application is listed by its new queue, in submission order.
	_, err = s.MoveApp("z", "dedicated")
	require.NoError(t, err)
	got, err := s.AppsInQueue("dedicated-default")
	require.NoError(t, err)
	assert.Equal(t, []string{"z", "b"}, got)

	_, err = s.KillApp("z")
	require.NoError(t, err)
	got, err = s.AppsInQueue("dedicated")
	require.NoError(t, err)
	assert.Equal(t, []string{"b", "c"}, got)
	_, err = s.KillAppsInQueue("reservation_1")
	require.NoError(t, err)
	got, err = s.AppsInQueue("reservation_1")
	require.NoError(t, err)
	assert.Empty(t, got)
	require.NoError(t, s.Check())
}

// derived renders what applyCapacities derives for every queue (caps) and
// the limits refreshLimits hands each leaf (limits), to compare an
// incremental update with a full recomputation.
func derived(s *Scheduler) (caps, limits map[string]string) {
	caps, limits = map[string]string{}, map[string]string{}
	for p, q := range s.byPath {
		d := fmt.Sprintf("abs %v/%v eff %v/%v/%v used %v/%v", q.absCap, q.absMax, q.effMin, q.effMax, q.effMaxDown, q.usedCap, q.absUsedCap)
		if lf := q.leaf; lf != nil {
			d += fmt.Sprintf(" apps %d/%d", lf.maxApps, lf.maxAppsPerUser)
			for _, u := range sortedUsers(lf) {
				d += fmt.Sprintf(" %s:%v", u.name, u.weight)
			}
			limits[p] = fmt.Sprintf("%v/%v", lf.currentLimit, lf.cachedLimit)
		}
		caps[p] = d
	}
	return caps, limits
}

// SetEntitlement updates only the queue it changes: afterwards every
// guarantee equals a full recomputation, the changed queue's limit too,
// and no other leaf's limit moved (limits follow usage at each walk). With
// usage in the plan's queues, along random entitlement sequences.
func TestSetEntitlementIncremental(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		r := rand.New(rand.NewPCG(seed, 7))
		s := planFollowHarness(t)
		require.NoError(t, s.AddReservationQueue("dedicated", "reservation_2"))
		for i, q := range []string{"reservation_1", "reservation_2", "dedicated-default", "a1"} {
			id := fmt.Sprint("app", i)
			spec := AppSpec{ID: id, Queue: q, User: fmt.Sprint("u", i%2)}
			if i < 2 {
				spec.Queue, spec.ReservationID = "dedicated", q
			}
			_, err := s.SubmitApp(spec)
			require.NoError(t, err)
			_, err = s.Allocate(id, []Ask{{Priority: 1, ResourceName: AnyResource, Capability: berth.New(4096, 4), Count: 8}}, nil)
			require.NoError(t, err)
		}
		names := []string{"reservation_1", "reservation_2", "dedicated-default"}
		for step := 0; step < 30; step++ {
			_, err := s.Heartbeat("n1", nil)
			require.NoError(t, err)
			c := float32(r.IntN(11)) / 10
			e := Entitlement{Capacity: c, MaxCapacity: c + float32(r.IntN(int(11-10*c)))/10}
			name := names[r.IntN(len(names))]
			_, before := derived(s)
			if err := s.SetEntitlement(name, e); err != nil {
				require.ErrorIs(t, err, berth.ErrCapacityExceeded, "only the sum may refuse")
				continue
			}
			caps, limits := derived(s)
			s.mu.Lock()
			s.clusterChanged()
			s.mu.Unlock()
			fullCaps, fullLimits := derived(s)
			require.Equal(t, fullCaps, caps, "seed %d step %d", seed, step)
			path := "root.dedicated." + name
			assert.Equal(t, fullLimits[path], limits[path], "seed %d step %d: limit of %s", seed, step, name)
			delete(limits, path)
			delete(before, path)
			require.Equal(t, before, limits, "seed %d step %d: other leaves untouched", seed, step)
		}
		require.NoError(t, s.Check())
	}
}

// mirrorShape renders the tree mirror's structure: every queue's children
// and scheduling order by name, and its position among its siblings.
func mirrorShape(s *Scheduler) map[string]string {
	out := map[string]string{}
	for p, q := range s.byPath {
		d := fmt.Sprintf("pos %d parent %v;", q.pos, q.parent != nil)
		for _, c := range q.children {
			d += " " + c.name
		}
		d += " |"
		for _, c := range q.order {
			d += " " + c.name
		}
		out[p] = d
	}
	return out
}

// Adding and removing reservation queues updates the mirror in place: after
// every step the mirror equals a full rebuild from the tree (structure,
// order, guarantees, limits), along random add/entitle/remove sequences
// with running applications in the plan.
func TestReservationQueueChurnIncremental(t *testing.T) {
	for seed := uint64(1); seed <= 15; seed++ {
		r := rand.New(rand.NewPCG(seed, 11))
		s := planFollowHarness(t)
		_, err := s.SubmitApp(AppSpec{ID: "r1app", Queue: "dedicated", ReservationID: "reservation_1", User: "u"})
		require.NoError(t, err)
		_, err = s.Allocate("r1app", []Ask{{Priority: 1, ResourceName: AnyResource, Capability: berth.New(4096, 4), Count: 8}}, nil)
		require.NoError(t, err)
		var live []string
		next := 0
		for step := 0; step < 40; step++ {
			_, err := s.Heartbeat("n1", nil)
			require.NoError(t, err)
			_, before := derived(s)
			changed := ""
			switch op := r.IntN(3); {
			case op == 0 || len(live) == 0:
				next++
				id := fmt.Sprint("res_", next)
				plan := []string{"dedicated", "other"}[r.IntN(2)]
				require.NoError(t, s.AddReservationQueue(plan, id))
				live = append(live, id)
				changed = "root." + plan + "." + id
			case op == 1:
				id := live[r.IntN(len(live))]
				if err := s.SetEntitlement(id, Entitlement{Capacity: float32(r.IntN(3)) / 100, MaxCapacity: 1}); err != nil {
					require.ErrorIs(t, err, berth.ErrCapacityExceeded, "only the sum may refuse")
					break
				}
				q, err := s.lookupQueue(id)
				require.NoError(t, err)
				changed = q.path
			default:
				i := r.IntN(len(live))
				id := live[i]
				q, err := s.lookupQueue(id)
				require.NoError(t, err)
				require.NoError(t, s.SetEntitlement(id, Entitlement{Capacity: 0, MaxCapacity: 1}))
				require.NoError(t, s.RemoveReservationQueue(id))
				live = append(live[:i], live[i+1:]...)
				delete(before, q.path)
			}
			// Parents re-sort their children at every visit; compare
			// the order a visit would use.
			s.mu.Lock()
			s.resortAll(s.root)
			s.mu.Unlock()
			shape := mirrorShape(s)
			caps, limits := derived(s)
			s.mu.Lock()
			s.syncTree()
			s.clusterChanged()
			s.mu.Unlock()
			fullCaps, fullLimits := derived(s)
			require.Equal(t, mirrorShape(s), shape, "seed %d step %d", seed, step)
			require.Equal(t, fullCaps, caps, "seed %d step %d", seed, step)
			// Leaf limits follow usage at each walk: only the queue
			// changed gets a new one, and it is the full recomputation's.
			if changed != "" {
				assert.Equal(t, fullLimits[changed], limits[changed], "seed %d step %d: limit of %s", seed, step, changed)
				delete(limits, changed)
				delete(before, changed)
			}
			require.Equal(t, before, limits, "seed %d step %d: other leaves untouched", seed, step)
		}
		require.NoError(t, s.Check())
	}
}
