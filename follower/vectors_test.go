package follower

import (
	"fmt"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/plan"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pfHarness is a scheduler under the plan-follower vectors, seen by
// reservation name (an id string or "<plan>-default").
type pfHarness interface {
	scheduler() Scheduler
	exists(reservation string) bool
	capacity(reservation string) float64 // CS capacity, FS weight
	apps(reservation string) int
	submit(app, reservation string) error
}

type fakeHarness struct{ f *fakeScheduler }

func (h fakeHarness) scheduler() Scheduler { return h.f }
func (h fakeHarness) q(r string) *fakeQueue {
	return h.f.find(h.f.flavor.QueueName(h.f.planQ, r))
}
func (h fakeHarness) exists(r string) bool { return h.q(r) != nil }
func (h fakeHarness) capacity(r string) float64 {
	if q := h.q(r); q != nil {
		return float64(q.ent.Capacity)
	}
	return -1
}
func (h fakeHarness) apps(r string) int {
	if q := h.q(r); q != nil {
		return len(q.apps)
	}
	return -1
}
func (h fakeHarness) submit(app, r string) error { return h.f.submit(app, r) }

// runPF plays §11 (PF-1..PF-6, TestSchedulerPlanFollowerBase) on h.
// defaultBefore tells whether the default queue exists before the first
// run (CS: yes, FS: no); nil skips the check.
func runPF(t *testing.T, h pfHarness, fl Flavor, planQ string, move bool, defaultBefore *bool) *plan.Plan {
	t.Helper()
	p := pfPlan(t, planQ, move)
	f, err := New(Config{Scheduler: h.scheduler(), Flavor: fl, Plans: Plans{p}})
	require.NoError(t, err)
	def := defaultReservation(fl, planQ)
	r1, r2, r3 := rid(1).String(), rid(2).String(), rid(3).String()
	const eps = 0.01

	if defaultBefore != nil {
		require.Equal(t, *defaultBefore, h.exists(def), "default queue before the first run")
	}
	if h.exists(def) {
		assert.Equal(t, 0, h.apps(def))
	}
	run := func(now berth.Time) {
		t.Helper()
		res, err := f.Run(now)
		require.NoError(t, err, "run at %d", now)
		require.Len(t, res, 1)
	}

	// PF-1
	run(0)
	require.True(t, h.exists(r1), "PF-1 r1 queue")
	assert.InDelta(t, 0.1, h.capacity(r1), eps, "PF-1 r1 capacity")
	assert.False(t, h.exists(r2), "PF-1 r2 absent")
	assert.False(t, h.exists(r3), "PF-1 r3 absent")
	require.NoError(t, h.submit("app_1", r1))
	assert.Equal(t, 0, h.apps(def), "PF-1 default apps")

	// PF-2
	run(3)
	assert.Equal(t, 0, h.apps(def), "PF-2 default apps")
	assert.InDelta(t, 0.1, h.capacity(r1), eps, "PF-2 r1 capacity")
	assert.Equal(t, 1, h.apps(r1), "PF-2 r1 apps")
	assert.InDelta(t, 0.1, h.capacity(r2), eps, "PF-2 r2 capacity")
	assert.InDelta(t, 0.8, h.capacity(def), eps, "PF-2 [derived] default capacity")
	assert.False(t, h.exists(r3), "PF-2 r3 absent")

	// PF-3
	run(10)
	if move {
		assert.Equal(t, 1, h.apps(def), "PF-3 move: app in the default queue")
		assert.False(t, h.exists(r1), "PF-3 move: r1 removed")
	} else {
		assert.Equal(t, 0, h.apps(def), "PF-3 kill: default has no app")
		assert.True(t, h.exists(r1), "PF-3 kill: r1 kept until empty")
		assert.Equal(t, 0, h.apps(r1), "PF-3 kill: app killed")
	}
	assert.False(t, h.exists(r2), "PF-3 r2 absent")
	require.True(t, h.exists(r3), "PF-3 r3 queue")
	assert.InDelta(t, 0, h.capacity(r3), eps, "PF-3 r3 capacity 0")

	// PF-4
	run(11)
	if move {
		assert.Equal(t, 1, h.apps(def), "PF-4 move: default keeps the app")
	} else {
		assert.Equal(t, 0, h.apps(def), "PF-4 kill: default has no app")
	}
	assert.False(t, h.exists(r1), "PF-4 r1 absent")
	assert.False(t, h.exists(r2), "PF-4 r2 absent")
	assert.InDelta(t, 0.1, h.capacity(r3), eps, "PF-4 r3 capacity")

	// PF-5
	run(12)
	assert.InDelta(t, 0.2, h.capacity(r3), eps, "PF-5 r3 capacity")

	// PF-6
	run(16)
	assert.False(t, h.exists(r1), "PF-6 r1 absent")
	assert.False(t, h.exists(r2), "PF-6 r2 absent")
	assert.False(t, h.exists(r3), "PF-6 r3 absent")
	assert.Greater(t, h.capacity(def), 0.9, "PF-6 default capacity")
	return p
}

func TestPlanFollowerVectorsFake(t *testing.T) {
	cluster := berth.New(128000, 125)
	planRes := berth.New(102400, 100)
	for _, fl := range []Flavor{CapacityFlavor, FairFlavor} {
		planQ := "dedicated"
		if fl == FairFlavor {
			planQ = "root.dedicated"
		}
		for _, move := range []bool{true, false} {
			t.Run(fmt.Sprintf("%v/move=%v", fl, move), func(t *testing.T) {
				fs := newFake(fl, planQ, cluster, planRes)
				cs := fl == CapacityFlavor
				if cs {
					fs.withDefault()
				}
				p := runPF(t, fakeHarness{fs}, fl, planQ, move, &cs)
				assert.LessOrEqual(t, fs.maxSum, float32(1), "children never above 100%")
				// Both publish the plan resources (YARN's FS follower leaves
				// the plan's capacity as created).
				assert.True(t, p.Capacity().Equal(planRes), "the plan follows the plan resources: %v", p.Capacity())
			})
		}
	}
}

// The derived entitlements at clock 3, the order they are applied in, and
// the queue names of each flavor.
func TestEntitlementsAtClock3(t *testing.T) {
	for _, tc := range []struct {
		fl           Flavor
		planQ        string
		defQ, r1, r2 string
	}{
		{CapacityFlavor, "dedicated", "dedicated-default", rid(1).String(), rid(2).String()},
		{FairFlavor, "root.dedicated", "root.dedicated.dedicated-default", "root.dedicated." + rid(1).String(), "root.dedicated." + rid(2).String()},
	} {
		t.Run(tc.fl.String(), func(t *testing.T) {
			fs := newFake(tc.fl, tc.planQ, berth.New(128000, 125), berth.New(102400, 100))
			p := pfPlan(t, tc.planQ, true)
			f, err := New(Config{Scheduler: fs, Flavor: tc.fl})
			require.NoError(t, err)
			_, err = f.Synchronize(p, 0)
			require.NoError(t, err)
			res, err := f.Synchronize(p, 3)
			require.NoError(t, err)
			assert.Equal(t, []string{tc.r2}, res.Created)
			assert.Equal(t, []plan.ReservationID{rid(1), rid(2)}, res.Active)
			assert.True(t, res.Reserved.Equal(c(20)))
			// default to 0, r1 (delta 0) before r2 (delta 10c), default to the rest.
			require.Len(t, res.Assignments, 4)
			assert.Equal(t, Assignment{Queue: tc.defQ, Entitlement: Entitlement{Capacity: 0, MaxCapacity: 1}}, res.Assignments[0])
			assert.Equal(t, tc.r1, res.Assignments[1].Queue)
			assert.Equal(t, tc.r2, res.Assignments[2].Queue)
			assert.Equal(t, tc.defQ, res.Assignments[3].Queue)
			e := res.Entitlements()
			assert.InDelta(t, 0.1, e[tc.r1].Capacity, 1e-6)
			assert.InDelta(t, 1.0, e[tc.r1].MaxCapacity, 1e-6)
			assert.InDelta(t, 0.1, e[tc.r2].Capacity, 1e-6)
			assert.InDelta(t, 0.8, e[tc.defQ].Capacity, 1e-6)
			assert.InDelta(t, 1.0, e[tc.defQ].MaxCapacity, 1e-6)
		})
	}
}
