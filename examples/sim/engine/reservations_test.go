package engine

import (
	"bytes"
	"fmt"
	"log/slog"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/capacity"
	"github.com/berthsched/berth/examples/rm"
	"github.com/berthsched/berth/examples/sim/metrics"
	"github.com/berthsched/berth/examples/sim/trace"
	"github.com/berthsched/berth/fair"
	"github.com/berthsched/berth/plan"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A synchronization the engine triggers outside the follower's runs (the
// publication of a reservation Submit accepted, or the engine's own
// refresh when the system publishes nothing) is handled as a run is: here
// job b's reservation is published at 11 s, after job a's reservation
// ended at 10 s and before the follower's next run at 60 s; the plan does
// not move applications on expiry, so the publication kills job a. Its
// containers end then, in the engine's books as in the scheduler's, and a
// is not restarted: the run ends with no container running and no call
// refused. Before, the engine dropped that result (the publication's and
// the refresh's alike), kept job a's containers running in its books and
// reported a finished at 10.5 s.
func TestPublicationKillsAreHandled(t *testing.T) {
	for _, tc := range []struct {
		name    string
		publish bool // the system publishes (rm's wiring); else the engine refreshes
	}{{"published by Submit", true}, {"refreshed by the engine", false}} {
		t.Run(tc.name, func(t *testing.T) { testPublicationKills(t, tc.publish) })
	}
}

func testPublicationKills(t *testing.T, publish bool) {
	clock := berth.NewManualClock(0)
	cfg := capacity.DefaultConfig()
	r := capacity.Queue("r", 50)
	r.Reservable = true
	cfg.Root.Children = []capacity.QueueConfig{capacity.Queue("a", 50), r}
	cfg.Clock = clock
	cs, err := capacity.New(cfg)
	require.NoError(t, err)
	spec, err := rm.CapacitySpec(cs)
	require.NoError(t, err)
	noMove := func(_ rm.PlanQueue, pc *plan.Config) error {
		pc.MoveOnExpiry, pc.Capacity = false, berth.New(4096, 4) // half of two nodes
		return nil
	}
	res, err := rm.NewReservations(spec, clock, rm.Options{ClusterTimestamp: 1, ConfigurePlan: noMove})
	require.NoError(t, err)
	sys := res.System
	if !publish { // the same plans in a system without Publish
		sys, err = plan.NewSystem(plan.SystemConfig{ClusterTimestamp: 1, Clock: clock})
		require.NoError(t, err)
		for _, p := range res.Plans {
			require.NoError(t, sys.AddPlan(p))
		}
	}

	c := berth.New(1024, 1)
	job := func(id string, start, deadline berth.Time) trace.Job {
		return trace.Job{ID: id, AMType: trace.AMMapReduce, User: "u", Queue: "r", Start: start, Deadline: deadline, AMResource: c,
			Tasks: []trace.Task{{Duration: 9_000, Resource: c, Priority: 20, Type: trace.TypeMap}, {Duration: 9_000, Resource: c, Priority: 20, Type: trace.TypeMap}}}
	}
	var warnings bytes.Buffer
	e, err := New(Config{Clock: clock, Scheduler: cs, Stats: NewCapacityStats(cs), Nodes: nodes(2), Jobs: []trace.Job{job("a", 0, 9_000), job("b", 10_000, 100_000)},
		Reservations: sys, Follower: res.Follower, FollowerInterval: 60_000, SampleInterval: 1000,
		Logger: slog.New(slog.NewTextHandler(&warnings, nil))})
	require.NoError(t, err)
	run, err := e.Run()
	require.NoError(t, err)
	require.Len(t, run.Jobs, 2)
	a, b := run.Jobs[0], run.Jobs[1]
	require.Equal(t, "reservation_1_0001", a.Reservation)
	assert.Equal(t, "root.r.reservation_1_0001", a.RanIn)
	assert.Zero(t, a.Finished, "killed at 10 s by the publication, before its maps ended at 10.5 s")
	assert.Equal(t, 1, a.Attempts, "killed, not restarted")
	assert.Equal(t, 3, a.Containers)
	assert.Positive(t, b.Finished)
	assert.Empty(t, warnings.String(), "no call refused: the engine's books and the scheduler's agree")
	assert.Zero(t, run.Samples[len(run.Samples)-1].RunningContainers)
	require.NoError(t, cs.Check())
}

// The simulator's count of replanning runs on a small fair world: ten
// nodes, a queue whose minimum share is three nodes' worth, and the
// reservable queue without one. Seven nodes are lost at 10 s and return at
// 40 s; the other queue's minimum share then takes the whole cluster and
// the plan's steady share is 0. Four deadline jobs hold reservations
// across the outage. The follower replans once, at 10 s, and the
// replanner deletes the four reservations (the plan cannot hold them);
// nothing is replanned again. The jobs go on in the plan's default queue.
func TestFairOutageReplansOnce(t *testing.T) {
	clock := berth.NewManualClock(0)
	af, err := fair.ParseAllocationFile([]byte(`<allocations>
  <queue name="other"><weight>1</weight><minResources>12288 mb, 12 vcores</minResources></queue>
  <queue name="dedicated"><weight>4</weight><reservation/></queue>
</allocations>`), fair.ParseOptions{})
	require.NoError(t, err)
	cfg := fair.DefaultConfig()
	cfg.Allocation = af
	cfg.Clock = clock
	fs, err := fair.New(cfg)
	require.NoError(t, err)
	spec, err := rm.FairSpec(fs, af)
	require.NoError(t, err)
	sized := func(_ rm.PlanQueue, pc *plan.Config) error { pc.Capacity = berth.New(32768, 32); return nil }
	res, err := rm.NewReservations(spec, clock, rm.Options{ClusterTimestamp: 1, ConfigurePlan: sized})
	require.NoError(t, err)

	c := berth.New(1024, 1)
	var jobs []trace.Job
	for i := range 4 {
		jobs = append(jobs, trace.Job{ID: fmt.Sprint("j", i), AMType: trace.AMMapReduce, User: "u", Queue: "dedicated", Start: 0, Deadline: 60_000, AMResource: c,
			Tasks: []trace.Task{{Duration: 50_000, Resource: c, Priority: 20, Type: trace.TypeMap}}})
	}
	var events []NodeEvent
	for i := 3; i < 10; i++ {
		events = append(events, NodeEvent{At: 10_000, Node: fmt.Sprint("node", i), Down: true}, NodeEvent{At: 40_000, Node: fmt.Sprint("node", i)})
	}
	e, err := New(Config{Clock: clock, Scheduler: fs, Stats: NewFairStats(fs), Nodes: nodes(10), Jobs: jobs, NodeEvents: events,
		Reservations: res.System, Follower: res.Follower})
	require.NoError(t, err)
	run, err := e.Run()
	require.NoError(t, err)
	require.Len(t, run.Reservations, 4)
	for _, r := range run.Reservations {
		assert.True(t, r.Accepted, r.ID)
		assert.Equal(t, berth.Time(10_000), r.Removed, "%s: deleted by the replanning at 10 s", r.ID)
	}
	assert.Equal(t, 1, run.Replans, "one replanning run, not one per step of the outage")
	for _, j := range run.Jobs {
		assert.Positive(t, j.Finished, j.ID)
	}
	var replanned []berth.Time
	for _, ev := range run.Timeline {
		if ev.Kind == metrics.PlanReplanned {
			replanned = append(replanned, ev.Time)
		}
	}
	assert.Equal(t, []berth.Time{10_000}, replanned)
}
