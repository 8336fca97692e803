package follower

import (
	"fmt"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/agent"
	"github.com/berthsched/berth/capacity"
	"github.com/berthsched/berth/fair"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/policy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The traps a new host meets in its first hour, on the documented path:
// the scheduler reports what a plan gets (PlanResources), the plan is
// built from it with YARN's default agent and a sharing policy, and the
// follower keeps the plan in step with the scheduler.

// yarnPlan is the plan YARN's reservation system creates for a plan queue
// of capacity capa: AlignedPlannerWithGreedy and the given sharing policy.
func yarnPlan(t testing.TB, queue string, capa berth.Resource, calc berth.Calculator, pol plan.SharingPolicy, clock berth.Clock) *plan.Plan {
	t.Helper()
	cfg := plan.DefaultConfig(queue, capa, clock)
	cfg.Calculator = calc
	ag, err := agent.NewAlignedPlannerWithGreedy(agent.DefaultConfig())
	require.NoError(t, err)
	rp, err := policy.NewSimpleCapacityReplanner(policy.DefaultReplannerConfig())
	require.NoError(t, err)
	cfg.Agent, cfg.Policy, cfg.Replanner = ag, pol, rp
	p, err := plan.New(cfg)
	require.NoError(t, err)
	return p
}

func sharingPolicies(t testing.TB) map[string]plan.SharingPolicy {
	cot, err := policy.NewCapacityOverTime(policy.DefaultCapacityOverTimeConfig())
	require.NoError(t, err)
	return map[string]plan.SharingPolicy{"CapacityOverTime": cot, "NoOverCommit": policy.NoOverCommit{}}
}

// fairCluster is a fair scheduler of ten <8 GB, 8> nodes with the reservable
// queue "dedicated" at weight 4 of 5, every queue under policy pol.
func fairCluster(t testing.TB, pol string, clock berth.Clock) *fair.Scheduler {
	t.Helper()
	af, err := fair.ParseAllocationFile([]byte(`<allocations>
  <queue name="default"><weight>1</weight></queue>
  <queue name="dedicated"><weight>4</weight><reservation/></queue>
  <defaultQueueSchedulingPolicy>`+pol+`</defaultQueueSchedulingPolicy>
</allocations>`), fair.ParseOptions{})
	require.NoError(t, err)
	cfg := fair.DefaultConfig()
	cfg.Allocation = af
	cfg.Clock = clock
	s, err := fair.New(cfg)
	require.NoError(t, err)
	for i := range 10 {
		require.NoError(t, s.AddNode(fair.NodeSpec{ID: fmt.Sprintf("n%d", i), Rack: "/r", Capability: berth.New(8192, 8)}))
	}
	return s
}

// capacityCluster is fairCluster's twin: a capacity scheduler of ten
// <8 GB, 8> nodes with the reservable queue "dedicated" at 80%.
func capacityCluster(t testing.TB, clock berth.Clock) *capacity.Scheduler {
	t.Helper()
	cfg := capacity.DefaultConfig()
	ded := capacity.Queue("dedicated", 80)
	ded.Reservable = true
	cfg.Root.Children = []capacity.QueueConfig{capacity.Queue("default", 20), ded}
	cfg.Clock = clock
	s, err := capacity.New(cfg)
	require.NoError(t, err)
	for i := range 10 {
		require.NoError(t, s.AddNode(capacity.NodeSpec{ID: fmt.Sprintf("n%d", i), Rack: "/r", Capability: berth.New(8192, 8)}))
	}
	return s
}

// A plan sized by the fair scheduler's plan resources admits reservations
// under the fair policy as under DRF, with either sharing policy. The fair
// policy divides memory alone; the plan resources used to carry 0 vcores,
// and every reservation (each asks for vcores) was refused.
func TestFairPlanAcceptsReservations(t *testing.T) {
	const minute = 60_000
	for _, schedPol := range []string{"fair", "drf"} {
		for name, sharing := range sharingPolicies(t) {
			t.Run(schedPol+"/"+name, func(t *testing.T) {
				clock := berth.NewManualClock(0)
				s := fairCluster(t, schedPol, clock)
				capa, err := s.PlanResources("root.dedicated")
				require.NoError(t, err)
				assert.Equal(t, berth.New(65536, 64), capa, "4/5 of <80 GB, 80>")
				p := yarnPlan(t, "root.dedicated", capa, s.ResourceCalculator(), sharing, clock)
				sys, err := plan.NewSystem(plan.SystemConfig{ClusterTimestamp: 1, Clock: clock})
				require.NoError(t, err)
				require.NoError(t, sys.AddPlan(p))
				accepted := 0
				for i := range 22 {
					def := plan.Definition{Arrival: berth.Time(i) * 10 * minute, Deadline: berth.Time(i)*10*minute + 60*minute,
						Interpreter: plan.RAll, Stages: []plan.Stage{{Capability: berth.New(2048, 2), Containers: 4, Concurrency: 2, Duration: 20 * minute}}}
					err := sys.Submit(plan.SubmissionRequest{Queue: "root.dedicated", ID: sys.NewReservationID(), User: "alice", Definition: &def})
					if assert.NoError(t, err, "reservation %d", i) {
						accepted++
					}
				}
				assert.Equal(t, 22, accepted)

				// The follower sizes the reservations' queues from the same
				// plan resources.
				f := mustFollower(t, s, FairFlavor, p)
				res, err := f.Run(20 * minute)
				require.NoError(t, err)
				require.Len(t, res, 1)
				assert.NotEmpty(t, res[0].Active)
				var total float32
				for _, a := range res[0].Assignments[1 : len(res[0].Assignments)-1] {
					total += a.Capacity
				}
				assert.Positive(t, res[0].Reserved.Memory)
				assert.InDelta(t, float64(res[0].Reserved.Memory)/float64(capa.Memory), total, 1e-4)
				require.NoError(t, s.Check())
			})
		}
	}
}

// Plans of both flavors follow the cluster: after 7 of 10 nodes are lost,
// the next follower run sets each plan's capacity to what its queue now
// gets, and a reservation the old capacity would hold is refused.
func TestPlansFollowTheCluster(t *testing.T) {
	const minute = 60_000
	type cluster struct {
		sched      Scheduler
		planQ      string
		flavor     Flavor
		removeNode func(id string) error
		capa       berth.Resource // the plan's capacity at creation
	}
	build := map[string]func(t *testing.T, clock berth.Clock) cluster{
		"capacity": func(t *testing.T, clock berth.Clock) cluster {
			s := capacityCluster(t, clock)
			capa := plan.PlanCapacity(berth.MemoryCalculator{}, s.ClusterResource(), 0.8, berth.New(1024, 1))
			return cluster{s, "dedicated", CapacityFlavor, func(id string) error { _, err := s.RemoveNode(id); return err }, capa}
		},
		"fair": func(t *testing.T, clock berth.Clock) cluster {
			s := fairCluster(t, "fair", clock)
			capa, err := s.PlanResources("root.dedicated")
			require.NoError(t, err)
			return cluster{s, "root.dedicated", FairFlavor, func(id string) error { _, err := s.RemoveNode(id); return err }, capa}
		},
	}
	for _, name := range []string{"capacity", "fair"} {
		t.Run(name, func(t *testing.T) {
			clock := berth.NewManualClock(0)
			c := build[name](t, clock)
			cot, err := policy.NewCapacityOverTime(policy.DefaultCapacityOverTimeConfig())
			require.NoError(t, err)
			p := yarnPlan(t, c.planQ, c.capa, berth.MemoryCalculator{}, cot, clock)
			f := mustFollower(t, c.sched, c.flavor, p)
			_, err = f.Run(0)
			require.NoError(t, err)
			assert.Equal(t, int64(65536), p.Capacity().Memory, "80%% of 80 GB")

			for i := range 7 {
				require.NoError(t, c.removeNode(fmt.Sprintf("n%d", i)))
			}
			clock.Set(1000)
			res, err := f.Run(1000)
			require.NoError(t, err)
			planRes := res[0].PlanResources
			assert.InDelta(t, 0.8*3*8192, float64(planRes.Memory), 1, "80%% of the 24 GB left")
			assert.Equal(t, planRes, p.Capacity(), "the plan follows its queue")

			// 40 containers of 1 GB at once fit the old 64 GB, not the
			// 19.2 GB left; 8 do.
			submit := func(n int64) error {
				def := plan.Definition{Arrival: 2 * minute, Deadline: 12 * minute, Interpreter: plan.RAll,
					Stages: []plan.Stage{{Capability: berth.New(1024, 1), Containers: n, Concurrency: n, Duration: 10 * minute}}}
				return p.Agent().CreateReservation(p, plan.ReservationID{ClusterTimestamp: 1, Sequence: n}, "alice", def)
			}
			assert.Error(t, submit(40), "refused against the capacity the plan has now")
			assert.NoError(t, submit(8))
		})
	}
}

// The two schedulers answer alike: an application naming a reservation
// whose queue does not exist (not yet active, or expired) is refused with
// berth.ErrNotFound on the reservation id, on either scheduler.
func TestSchedulersRefuseInactiveReservationAlike(t *testing.T) {
	clock := berth.NewManualClock(0)
	cs := newPFCapacity(t, berth.New(10240, 10))
	fs := fairCluster(t, "fair", clock)
	for name, submit := range map[string]func() error{
		"capacity": func() error {
			_, err := cs.SubmitApp(capacity.AppSpec{ID: "app_1", Queue: "dedicated", User: "alice", ReservationID: rid(9).String()})
			return err
		},
		"fair": func() error {
			_, err := fs.SubmitApp(fair.AppSpec{ID: "app_1", Queue: "root.dedicated", User: "alice", ReservationID: rid(9).String()})
			return err
		},
	} {
		err := submit()
		assert.ErrorIs(t, err, berth.ErrNotFound, name)
		var fe *berth.FieldError
		if assert.ErrorAs(t, err, &fe, name) {
			assert.Equal(t, "app.reservation-id", fe.Field, name)
		}
		assert.ErrorContains(t, err, "not", name)
	}
}

// A follower of the other scheduler's flavor is refused: the fair flavor
// would name a capacity scheduler's reservation queues by full path. A nil
// flavor takes the scheduler's own; a host's flavor is left to the host.
func TestFollowerFlavorMustMatchScheduler(t *testing.T) {
	cs := newPFCapacity(t, berth.New(10240, 10))
	fs := newPFFair(t, berth.New(10240, 10))
	for _, c := range []struct {
		name   string
		sched  Scheduler
		flavor Flavor
		want   Flavor // nil: refused
	}{
		{"capacity/capacity", cs, CapacityFlavor, CapacityFlavor},
		{"capacity/fair", cs, FairFlavor, nil},
		{"capacity/nil", cs, nil, CapacityFlavor},
		{"fair/fair", fs, FairFlavor, FairFlavor},
		{"fair/capacity", fs, CapacityFlavor, nil},
		{"fair/nil", fs, nil, FairFlavor},
		{"fair/host", fs, hostFlavor{}, hostFlavor{}},
		{"funcs/nil", Funcs{}, nil, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, err := New(Config{Scheduler: c.sched, Flavor: c.flavor})
			if c.want == nil {
				assert.ErrorIs(t, err, berth.ErrInvalidArgument)
				var fe *berth.FieldError
				require.ErrorAs(t, err, &fe)
				assert.Equal(t, "follower.flavor", fe.Field)
				assert.Nil(t, f)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.want, f.cfg.Flavor)
		})
	}
}

// Applications submitted right after their reservation, in the same tick
// and before the follower's next run, are accepted on both schedulers: the
// system publishes a reservation that arrives within one plan step at once
// (SystemConfig.Publish, YARN's refreshScheduler). One arriving later has
// no queue until it is active, and an application submitted to it early
// is refused as YARN refuses it (not yet active: berth.ErrNotFound).
func TestApplicationsInTheTickOfTheirReservation(t *testing.T) {
	type cluster struct {
		sched  Scheduler
		planQ  string
		submit func(app, reservation string) error
	}
	build := map[string]func(clock berth.Clock) cluster{
		"capacity": func(clock berth.Clock) cluster {
			s := capacityCluster(t, clock)
			return cluster{s, "dedicated", func(app, r string) error {
				_, err := s.SubmitApp(capacity.AppSpec{ID: app, Queue: "dedicated", User: "alice", ReservationID: r})
				return err
			}}
		},
		"fair": func(clock berth.Clock) cluster {
			s := fairCluster(t, "fair", clock)
			return cluster{s, "root.dedicated", func(app, r string) error {
				_, err := s.SubmitApp(fair.AppSpec{ID: app, Queue: "root.dedicated", User: "alice", ReservationID: r})
				return err
			}}
		},
	}
	for _, name := range []string{"capacity", "fair"} {
		t.Run(name, func(t *testing.T) {
			clock := berth.NewManualClock(0)
			c := build[name](clock)
			cot, err := policy.NewCapacityOverTime(policy.DefaultCapacityOverTimeConfig())
			require.NoError(t, err)
			capa, err := c.sched.PlanResources(c.planQ)
			require.NoError(t, err)
			p := yarnPlan(t, c.planQ, capa, berth.MemoryCalculator{}, cot, clock)
			var f *Follower
			published := 0
			sys, err := plan.NewSystem(plan.SystemConfig{ClusterTimestamp: 1, Clock: clock, Publish: func(p *plan.Plan, now berth.Time) {
				published++
				f.Publish(p, now)
			}})
			require.NoError(t, err)
			require.NoError(t, sys.AddPlan(p))
			f, err = New(Config{Scheduler: c.sched, Plans: sys})
			require.NoError(t, err)

			reserve := func(arrival berth.Time) plan.ReservationID {
				def := plan.Definition{Arrival: arrival, Deadline: arrival + 600_000, Stages: []plan.Stage{
					{Capability: berth.New(1024, 1), Containers: 2, Concurrency: 2, Duration: 60_000}}}
				id := sys.NewReservationID()
				require.NoError(t, sys.Submit(plan.SubmissionRequest{Queue: c.planQ, ID: id, User: "alice", Definition: &def}))
				return id
			}
			refused := 0
			for i := range 22 {
				clock.Set(berth.Time(i) * 1500) // mid-step ticks too
				id := reserve(clock.Now())
				if err := c.submit(fmt.Sprintf("app_%d", i), id.String()); err != nil {
					refused++
					t.Log(err)
				}
				if i%3 == 0 { // the follower runs on its own steps
					_, err := f.Run(clock.Now())
					require.NoError(t, err)
				}
			}
			assert.Zero(t, refused, "22 of 22 accepted")
			assert.Equal(t, 22, published)

			// A reservation five steps ahead is not published yet.
			now := clock.Now()
			later := reserve(now + 5000)
			assert.Equal(t, 22, published)
			err = c.submit("early", later.String())
			assert.ErrorIs(t, err, berth.ErrNotFound)
			clock.Set(now + 5000)
			_, err = f.Run(clock.Now())
			require.NoError(t, err)
			assert.NoError(t, c.submit("on-time", later.String()))
		})
	}
}
