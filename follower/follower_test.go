package follower

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/policy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// openPlan is a plan that admits everything (no policy) with step 1 and
// capacity 100 containers.
func openPlan(t testing.TB, queue string, mod ...func(*plan.Config)) *plan.Plan {
	t.Helper()
	cfg := plan.DefaultConfig(queue, c(100), berth.NewManualClock(0))
	cfg.Step = 1
	for _, m := range mod {
		m(&cfg)
	}
	p, err := plan.New(cfg)
	require.NoError(t, err)
	return p
}

func mustFollower(t testing.TB, s Scheduler, fl Flavor, plans ...*plan.Plan) *Follower {
	t.Helper()
	f, err := New(Config{Scheduler: s, Flavor: fl, Plans: Plans(plans)})
	require.NoError(t, err)
	return f
}

func TestNewValidates(t *testing.T) {
	_, err := New(Config{Flavor: CapacityFlavor})
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)
	var fe *berth.FieldError
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, "follower.scheduler", fe.Field)
	_, err = New(Config{Scheduler: Funcs{}})
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)
	f, err := New(Config{Scheduler: Funcs{}, Flavor: FairFlavor})
	require.NoError(t, err)
	res, err := f.Run(5)
	assert.NoError(t, err, "no plans: nothing to do")
	assert.Empty(t, res)
	_, err = f.Synchronize(nil, 0)
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)
}

func TestAlignUp(t *testing.T) {
	for _, tc := range []struct{ t, step, want berth.Time }{
		{0, 1000, 0}, {1, 1000, 1000}, {999, 1000, 1000}, {1000, 1000, 1000}, {1001, 1000, 2000},
		{-3, 5, 0}, {-5, 5, -5}, {-7, 5, -5}, {7, 0, 7}, {7, -2, 7},
		{berth.MaxTime, 1000, berth.MaxTime - berth.MaxTime%1000}, {berth.MinTime, 1000, berth.MinTime - berth.MinTime%1000},
	} {
		assert.Equal(t, tc.want, AlignUp(tc.t, tc.step), "AlignUp(%d, %d)", tc.t, tc.step)
	}
}

func TestFlavorNames(t *testing.T) {
	assert.Equal(t, "reservation_1_0001", CapacityFlavor.QueueName("dedicated", "reservation_1_0001"))
	assert.Equal(t, "dedicated-default", defaultReservation(CapacityFlavor, "dedicated"))
	assert.Equal(t, "dedicated-default", defaultReservation(CapacityFlavor, "root.dedicated"))
	assert.Equal(t, "root.dedicated.reservation_1_0001", FairFlavor.QueueName("dedicated", "reservation_1_0001"))
	assert.Equal(t, "root.dedicated.reservation_1_0001", FairFlavor.QueueName("root.dedicated", "root.dedicated.reservation_1_0001"))
	assert.Equal(t, "root.dedicated.dedicated-default", FairFlavor.QueueName("root.dedicated", defaultReservation(FairFlavor, "root.dedicated")))
	assert.Equal(t, "reservation_1_0001", FairFlavor.ReservationName("root.dedicated.reservation_1_0001"))
	assert.True(t, CapacityFlavor.PublishesCapacity())
	assert.True(t, FairFlavor.PublishesCapacity(), "Berth: fair plans follow the cluster too")
}

func TestUnknownPlanQueueDoesNothing(t *testing.T) {
	fs := newFake(CapacityFlavor, "other", c(100), c(80))
	p := openPlan(t, "dedicated")
	require.NoError(t, p.AddReservation(newAllocation(t, rid(1), "u", 0, 5)))
	f := mustFollower(t, fs, CapacityFlavor, p)
	res, err := f.Run(0)
	assert.ErrorIs(t, err, berth.ErrNotFound)
	require.Len(t, res, 1)
	assert.Empty(t, fs.ops, "nothing is touched")
	assert.True(t, p.Capacity().Equal(c(100)), "plan capacity unchanged")
}

// Shrinking reservations are resized before growing ones: with the
// default queue at 0, r1 going 50%→20% must precede r2 going 30%→60%, or
// the children would sum to 110%.
func TestDecreasesFirst(t *testing.T) {
	fs := newFake(CapacityFlavor, "dedicated", c(100), c(100)).withDefault()
	p := openPlan(t, "dedicated")
	require.NoError(t, p.AddReservation(newAllocation(t, rid(1), "u", 0, 50, 20)))
	require.NoError(t, p.AddReservation(newAllocation(t, rid(2), "u", 0, 30, 60)))
	f := mustFollower(t, fs, CapacityFlavor, p)
	_, err := f.Run(0)
	require.NoError(t, err)
	res, err := f.Run(1)
	require.NoError(t, err, "every entitlement accepted")
	require.Len(t, res[0].Assignments, 4)
	assert.Equal(t, rid(1).String(), res[0].Assignments[1].Queue, "the shrinking reservation first")
	assert.InDelta(t, 0.2, res[0].Assignments[1].Capacity, 1e-6)
	assert.Equal(t, rid(2).String(), res[0].Assignments[2].Queue)
	assert.InDelta(t, 0.6, res[0].Assignments[2].Capacity, 1e-6)
	assert.InDelta(t, 0.2, res[0].Assignments[3].Capacity, 1e-6, "the default gets the rest")
	assert.LessOrEqual(t, fs.maxSum, float32(1))
}

// Ties of the delta keep (start, id) order.
func TestTiesInStartIDOrder(t *testing.T) {
	fs := newFake(CapacityFlavor, "dedicated", c(100), c(100)).withDefault()
	p := openPlan(t, "dedicated")
	for _, seq := range []int64{3, 1, 2} {
		require.NoError(t, p.AddReservation(newAllocation(t, rid(seq), "u", 0, 10)))
	}
	require.NoError(t, p.AddReservation(newAllocation(t, rid(4), "u", -1, 10, 10)))
	res, err := mustFollower(t, fs, CapacityFlavor, p).Synchronize(p, 0)
	require.NoError(t, err)
	assert.Equal(t, []plan.ReservationID{rid(4), rid(1), rid(2), rid(3)}, res.Active)
	assert.Equal(t, []string{"dedicated-default"}, fs.names()[:1])
	assert.Equal(t, []string{rid(4).String(), rid(1).String(), rid(2).String(), rid(3).String()}, res.Created)
}

func TestGangCapsMaximum(t *testing.T) {
	fs := newFake(CapacityFlavor, "dedicated", c(100), c(100)).withDefault()
	p := openPlan(t, "dedicated")
	a := newAllocation(t, rid(1), "u", 0, 25)
	a.Gang = true
	require.NoError(t, p.AddReservation(a))
	res, err := mustFollower(t, fs, CapacityFlavor, p).Synchronize(p, 0)
	require.NoError(t, err)
	e := res.Entitlements()[rid(1).String()]
	assert.InDelta(t, 0.25, e.Capacity, 1e-6)
	assert.Equal(t, e.Capacity, e.MaxCapacity, "a gang reservation may not run beyond its share")
}

// A failed move falls back to killing; the queue goes on the next run.
func TestMoveFailureKills(t *testing.T) {
	fs := newFake(FairFlavor, "root.dedicated", c(100), c(100))
	fs.noMove = true
	p := openPlan(t, "root.dedicated", func(c *plan.Config) { c.MoveOnExpiry = true })
	require.NoError(t, p.AddReservation(newAllocation(t, rid(1), "u", 0, 10)))
	f := mustFollower(t, fs, FairFlavor, p)
	_, err := f.Run(0)
	require.NoError(t, err)
	require.NoError(t, fs.submit("app_1", rid(1).String()))
	res, err := f.Run(1)
	assert.ErrorIs(t, err, berth.ErrCapacityExceeded, "the move error is reported")
	q := "root.dedicated." + rid(1).String()
	assert.Equal(t, []string{q}, res[0].Expired)
	assert.Empty(t, res[0].Moved)
	assert.Equal(t, []string{"app_1"}, res[0].Killed)
	require.Len(t, res[0].Ended, 1, "the kill's containers reach the host")
	assert.Equal(t, "app_1", res[0].Ended[0].App)
	assert.Empty(t, res[0].Removed)
	assert.NotNil(t, fs.find(q), "kept until a run finds it empty")
	res, err = f.Run(2)
	require.NoError(t, err)
	assert.Equal(t, []string{q}, res[0].Removed)
	assert.Nil(t, fs.find(q))
}

// A deleted reservation expires like an ended one.
func TestDeletedReservationExpires(t *testing.T) {
	fs := newFake(CapacityFlavor, "dedicated", c(100), c(100)).withDefault()
	p := openPlan(t, "dedicated")
	require.NoError(t, p.AddReservation(newAllocation(t, rid(1), "u", 0, 10, 10, 10)))
	f := mustFollower(t, fs, CapacityFlavor, p)
	_, err := f.Run(0)
	require.NoError(t, err)
	require.NoError(t, fs.submit("a", rid(1).String()))
	require.NoError(t, p.DeleteReservation(rid(1)))
	res, err := f.Run(1)
	require.NoError(t, err)
	assert.Equal(t, []Move{{App: "a", From: rid(1).String(), To: "dedicated-default"}}, res[0].Moved)
	assert.Equal(t, []string{rid(1).String()}, res[0].Removed)
	assert.Equal(t, []string{"dedicated-default"}, fs.names())
	assert.Equal(t, []string{"a"}, fs.find("dedicated-default").apps)
	assert.InDelta(t, 1, fs.find("dedicated-default").ent.Capacity, 1e-6)
}

// The plan queue shrank below the active reservations: the replanner
// deletes the newest, and the repaired plan is what gets published.
func TestReplanOnCapacityLoss(t *testing.T) {
	rp, err := policy.NewSimpleCapacityReplanner(policy.ReplannerConfig{EnforcementWindow: 10})
	require.NoError(t, err)
	clock := berth.NewManualClock(0)
	p := openPlan(t, "dedicated", func(c *plan.Config) { c.Replanner = rp; c.Clock = clock })
	for i := int64(1); i <= 4; i++ {
		clock.Set(i) // acceptance order = sequence order
		require.NoError(t, p.AddReservation(newAllocation(t, rid(i), "u", 0, 25, 25)))
	}
	fs := newFake(CapacityFlavor, "dedicated", c(100), c(60)).withDefault()
	res, err := mustFollower(t, fs, CapacityFlavor, p).Synchronize(p, 0)
	require.NoError(t, err)
	assert.True(t, res.Replanned)
	assert.False(t, res.Resized)
	assert.Contains(t, res.String(), ", replanned")
	assert.NotContains(t, res.String(), "resized")
	assert.Equal(t, []plan.ReservationID{rid(1), rid(2)}, res.Active, "r4 then r3 deleted")
	assert.Equal(t, 2, p.Len())
	assert.True(t, res.Reserved.Equal(c(50)))
	e := res.Entitlements()
	assert.InDelta(t, 25.0/60, e[rid(1).String()].Capacity, 1e-6)
	assert.InDelta(t, 10.0/60, e["dedicated-default"].Capacity, 1e-5)
	assert.Nil(t, fs.find(rid(3).String()), "no queue for a reservation the replanner deleted")
	assert.True(t, p.Capacity().Equal(c(60)), "CS publishes the plan resources before replanning")
}

// Recovery (no replanning), a plan without replanner, and a plan its
// replanner leaves over-committed, shrink every reservation in proportion
// instead.
func TestResizeProportionally(t *testing.T) {
	for _, name := range []string{"recover", "no-replanner", "fair-still-over"} {
		t.Run(name, func(t *testing.T) {
			fl := CapacityFlavor
			planQ := "dedicated"
			var mod []func(*plan.Config)
			if name == "fair-still-over" {
				// A replanner that repairs nothing (a host's, or one
				// whose window misses the over-commitment).
				fl, planQ = FairFlavor, "root.dedicated"
				mod = append(mod, func(c *plan.Config) { c.Replanner = idleReplanner{} })
			}
			p := openPlan(t, planQ, mod...)
			require.NoError(t, p.AddReservation(newAllocation(t, rid(1), "u", 0, 30)))
			require.NoError(t, p.AddReservation(newAllocation(t, rid(2), "u", 0, 50)))
			fs := newFake(fl, planQ, c(100), c(40))
			f := mustFollower(t, fs, fl, p)
			var res Result
			var err error
			if name == "recover" {
				res, err = f.Recover(p, 0)
			} else {
				res, err = f.Synchronize(p, 0)
			}
			require.NoError(t, err)
			assert.True(t, res.Resized)
			assert.Equal(t, name == "fair-still-over", res.Replanned)
			assert.Contains(t, res.String(), ", resized")
			assert.Equal(t, 2, p.Len(), "nothing deleted")
			e := res.Entitlements()
			assert.InDelta(t, 3.0/8, e[fl.QueueName(planQ, rid(1).String())].Capacity, 1e-3)
			assert.InDelta(t, 5.0/8, e[fl.QueueName(planQ, rid(2).String())].Capacity, 1e-3)
			assert.LessOrEqual(t, fs.maxSum, float32(1))
			assert.InDelta(t, 0, e[fl.QueueName(planQ, defaultReservation(fl, planQ))].Capacity, 1e-3)
		})
	}
}

// idleReplanner repairs nothing.
type idleReplanner struct{}

func (idleReplanner) Plan(*plan.Plan, []plan.Definition, berth.Time) error { return nil }

// A plan queue with no resources gives every reservation 0.
func TestZeroPlanResources(t *testing.T) {
	fs := newFake(CapacityFlavor, "dedicated", c(0), berth.None()).withDefault()
	p := openPlan(t, "dedicated")
	require.NoError(t, p.AddReservation(newAllocation(t, rid(1), "u", 0, 10)))
	res, err := mustFollower(t, fs, CapacityFlavor, p).Synchronize(p, 0)
	require.NoError(t, err)
	assert.True(t, res.Resized)
	e := res.Entitlements()
	assert.Zero(t, e[rid(1).String()].Capacity)
	assert.InDelta(t, 1, e["dedicated-default"].Capacity, 1e-6)
}

// Archiving: the plan drops reservations that ended before now − window.
func TestArchivesCompleted(t *testing.T) {
	pol, err := policy.NewCapacityOverTime(policy.CapacityOverTimeConfig{Window: 5, InstantaneousMaxPercent: 100, AveragePercent: 100})
	require.NoError(t, err)
	p := openPlan(t, "dedicated", func(c *plan.Config) { c.Policy = pol })
	require.NoError(t, p.AddReservation(newAllocation(t, rid(1), "u", 0, 10, 10)))
	fs := newFake(CapacityFlavor, "dedicated", c(100), c(100)).withDefault()
	f := mustFollower(t, fs, CapacityFlavor, p)
	res, err := f.Run(6)
	require.NoError(t, err)
	assert.Empty(t, res[0].Archived, "ended at 2 > 6 - 5")
	res, err = f.Run(7)
	require.NoError(t, err)
	assert.Equal(t, []plan.ReservationID{rid(1)}, res[0].Archived)
	assert.Zero(t, p.Len())
}

// Scheduler errors are joined, wrapped, and logged; the run goes on.
func TestErrorsJoinedAndLogged(t *testing.T) {
	var buf bytes.Buffer
	lg := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	s := Funcs{
		Cluster: func() berth.Resource { return c(100) },
		Plan:    func(string) (berth.Resource, error) { return c(100), nil },
		Queues:  func(string) ([]QueueState, error) { return nil, nil },
	}
	p := openPlan(t, "dedicated")
	require.NoError(t, p.AddReservation(newAllocation(t, rid(1), "u", 0, 10)))
	f, err := New(Config{Scheduler: s, Flavor: CapacityFlavor, Plans: Plans{p}, Logger: lg})
	require.NoError(t, err)
	res, err := f.Run(0)
	require.Error(t, err)
	assert.ErrorIs(t, err, berth.ErrInvalidState, "the adapter lacks Add and Entitle")
	var fe *berth.FieldError
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, "scheduler.add-reservation-queue", fe.Field)
	assert.Len(t, res[0].Assignments, 3, "every step still attempted")
	assert.Contains(t, buf.String(), "level=WARN")
	assert.Contains(t, buf.String(), "assigning capacity")
	assert.Contains(t, buf.String(), "finished plan follower iteration")
}

func TestFuncsUnsupported(t *testing.T) {
	var f Funcs
	assert.True(t, f.ClusterResource().IsZero())
	_, err := f.PlanResources("p")
	assert.ErrorIs(t, err, berth.ErrInvalidState)
	_, err = f.ReservationQueueNames("p")
	assert.ErrorIs(t, err, berth.ErrInvalidState)
	_, _, err = f.ReservationQueueState("p", "q")
	assert.ErrorIs(t, err, berth.ErrInvalidState)
	_, err = f.AppsInQueue("q")
	assert.ErrorIs(t, err, berth.ErrInvalidState)
	_, err = f.MoveApp("a", "q")
	assert.ErrorIs(t, err, berth.ErrInvalidState)
	_, err = f.KillApp("a")
	assert.ErrorIs(t, err, berth.ErrInvalidState)
	for _, err := range []error{f.AddReservationQueue("p", "r"), f.SetEntitlement("q", Entitlement{}),
		f.RemoveReservationQueue("q")} {
		assert.ErrorIs(t, err, berth.ErrInvalidState)
	}
}

// Funcs serves the per-queue reads from its Queues list and passes errors
// through.
func TestFuncsFromQueues(t *testing.T) {
	boom := errors.New("boom")
	f := Funcs{
		Queues: func(p string) ([]QueueState, error) {
			if p != "plan" {
				return nil, boom
			}
			return []QueueState{{Queue: "plan-default", Entitlement: Entitlement{Capacity: 0.5, MaxCapacity: 1}, Resources: c(5)},
				{Queue: "r1", Entitlement: Entitlement{Capacity: 0.5, MaxCapacity: 0.5}, Resources: c(5)}}, nil
		},
		Move: func(app, q string) (string, error) {
			if app == "bad" {
				return "", boom
			}
			return q, nil
		},
	}
	names, err := f.ReservationQueueNames("plan")
	require.NoError(t, err)
	assert.Equal(t, []string{"plan-default", "r1"}, names)
	_, err = f.ReservationQueueNames("other")
	assert.ErrorIs(t, err, boom)
	e, r, err := f.ReservationQueueState("plan", "r1")
	require.NoError(t, err)
	assert.Equal(t, Entitlement{Capacity: 0.5, MaxCapacity: 0.5}, e)
	assert.True(t, r.Equal(c(5)))
	_, _, err = f.ReservationQueueState("plan", "r2")
	assert.ErrorIs(t, err, berth.ErrNotFound)
	_, _, err = f.ReservationQueueState("other", "r1")
	assert.ErrorIs(t, err, boom)
	q, err := f.MoveApp("app", "plan-default")
	require.NoError(t, err)
	assert.Equal(t, "plan-default", q)
	_, err = f.MoveApp("bad", "plan-default")
	assert.ErrorIs(t, err, boom)
}

// Run follows the source's current plans (a System gains plans on
// Reinitialize) and keeps going past a failing plan.
func TestRunFollowsSource(t *testing.T) {
	sys, err := plan.NewSystem(plan.SystemConfig{ClusterTimestamp: 1, Clock: berth.NewManualClock(0)})
	require.NoError(t, err)
	fs := newFake(CapacityFlavor, "dedicated", c(100), c(100)).withDefault()
	f := mustFollower(t, fs, CapacityFlavor)
	f.SetPlans(sys)
	res, err := f.Run(0)
	require.NoError(t, err)
	assert.Empty(t, res)
	cfgA := plan.DefaultConfig("dedicated", c(100), berth.NewManualClock(0))
	cfgB := plan.DefaultConfig("unknown", c(100), berth.NewManualClock(0))
	_, err = sys.Reinitialize(cfgA, cfgB)
	require.NoError(t, err)
	res, err = f.Run(0)
	assert.ErrorIs(t, err, berth.ErrNotFound, "the plan of an unknown queue fails")
	require.Len(t, res, 2, "but the other plan is synchronized")
	assert.Equal(t, "dedicated", res[0].PlanQueue)
	assert.InDelta(t, 1, res[0].Entitlements()["dedicated-default"].Capacity, 1e-6)
}

// Concurrent runs are serialized (run with -race).
func TestConcurrentRuns(t *testing.T) {
	fs := newFake(CapacityFlavor, "dedicated", c(100), c(100)).withDefault()
	p := openPlan(t, "dedicated")
	for i := int64(1); i <= 5; i++ {
		require.NoError(t, p.AddReservation(newAllocation(t, rid(i), "u", i, 10, 10, 10)))
	}
	f := mustFollower(t, fs, CapacityFlavor, p)
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for now := berth.Time(0); now < 10; now++ {
				if _, err := f.Run(now); err != nil {
					errs <- err
				}
				if _, err := f.Synchronize(p, now); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		assert.NoError(t, err)
	}
	assert.LessOrEqual(t, fs.maxSum, float32(1)+1e-6)

}

// The run time is rounded up to the plan step.
func TestRunTimeAlignedToStep(t *testing.T) {
	p := openPlan(t, "dedicated", func(c *plan.Config) { c.Step = 1000 })
	require.NoError(t, p.AddReservation(newAllocation(t, rid(1), "u", 1000, 10)))
	fs := newFake(CapacityFlavor, "dedicated", c(100), c(100)).withDefault()
	f := mustFollower(t, fs, CapacityFlavor, p)
	res, err := f.Run(1)
	require.NoError(t, err)
	assert.Equal(t, berth.Time(1000), res[0].Now)
	assert.Equal(t, []plan.ReservationID{rid(1)}, res[0].Active, "active at the next step boundary")
	res, err = f.Run(0)
	require.NoError(t, err)
	assert.Empty(t, res[0].Active)
	assert.Equal(t, []string{rid(1).String()}, res[0].Removed, "a clock going back expires it again")
}

// §13.5: a reservation arriving within a step is published at once.
func TestRefreshOnSubmit(t *testing.T) {
	p := openPlan(t, "dedicated", func(c *plan.Config) { c.Step = 1000 })
	fs := newFake(CapacityFlavor, "dedicated", c(100), c(100)).withDefault()
	f := mustFollower(t, fs, CapacityFlavor, p)
	require.NoError(t, p.AddReservation(newAllocation(t, rid(1), "u", 5000, 10)))
	_, done, err := f.Refresh(p, 5000, 4000)
	require.NoError(t, err)
	assert.False(t, done, "arrives a whole step later: left to the periodic run")
	require.NoError(t, p.AddReservation(newAllocation(t, rid(2), "u", 4000, 10)))
	res, done, err := f.Refresh(p, 4000, 3500)
	require.NoError(t, err)
	assert.True(t, done)
	assert.Equal(t, berth.Time(4000), res.Now)
	assert.Contains(t, res.Created, rid(2).String())
	_, done, err = f.Refresh(p, berth.MinTime, berth.MaxTime)
	require.NoError(t, err)
	assert.True(t, done, "an arrival in the past always refreshes")
	_, done, _ = f.Refresh(p, berth.MaxTime, berth.MinTime)
	assert.False(t, done, "no overflow")
	_, _, err = f.Refresh(nil, 0, 0)
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)
}

// stateless fails ReservationQueueState, as a scheduler might.
type stateless struct{ *fakeScheduler }

func (stateless) ReservationQueueState(_, queue string) (Entitlement, berth.Resource, error) {
	return Entitlement{}, berth.None(), &berth.FieldError{Field: "queue", Value: queue, Kind: berth.ErrInvalidState, Reason: "unreadable"}
}

// A queue whose state cannot be read counts as holding nothing: the error
// is joined, and the run still sizes every queue.
func TestQueueStateErrorJoined(t *testing.T) {
	fs := newFake(CapacityFlavor, "dedicated", c(100), c(100)).withDefault()
	p := openPlan(t, "dedicated")
	require.NoError(t, p.AddReservation(newAllocation(t, rid(1), "u", 0, 50, 20)))
	f := mustFollower(t, fs, CapacityFlavor, p)
	_, err := f.Run(0)
	require.NoError(t, err, "no queue to read yet")
	f = mustFollower(t, stateless{fs}, CapacityFlavor, p)
	res, err := f.Run(1)
	assert.ErrorIs(t, err, berth.ErrInvalidState)
	// The operation, then the queue, each once (the scheduler's error names it).
	assert.ErrorContains(t, err, "follower: read reservation queue: ")
	assert.Equal(t, 1, strings.Count(err.Error(), rid(1).String()), err.Error())
	assert.InDelta(t, 0.2, res[0].Entitlements()[rid(1).String()].Capacity, 1e-6)
	assert.InDelta(t, 0.8, res[0].Entitlements()["dedicated-default"].Capacity, 1e-6)
}
