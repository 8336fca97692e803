package engine

import (
	"bytes"
	"log/slog"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/capacity"
	"github.com/berthsched/berth/examples/rm"
	"github.com/berthsched/berth/examples/sim/trace"
	"github.com/berthsched/berth/plan"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A synchronization the engine triggers outside the follower's runs (the
// publication of a reservation Submit accepted, or the engine's own
// refresh) is handled as a run is: here job b's reservation is published
// at 11 s, after job a's reservation ended at 10 s and before the
// follower's next run at 60 s; the plan does not move applications on
// expiry, so the publication kills job a. Its containers end then, in the
// engine's books as in the scheduler's, and a is not restarted: the run
// ends with no container running and no call refused. Before, the engine
// dropped that result, kept job a's containers running in its books and
// reported a finished at 10.5 s.
func TestPublicationKillsAreHandled(t *testing.T) {
	clock := berth.NewManualClock(0)
	cfg := capacity.DefaultConfig()
	r := capacity.Queue("r", 50)
	r.Reservable = true
	cfg.Root.Children = []capacity.QueueConfig{capacity.Queue("a", 50), r}
	cs, err := capacity.New(cfg, clock)
	require.NoError(t, err)
	spec, err := rm.CapacitySpec(cs)
	require.NoError(t, err)
	noMove := func(_ rm.PlanQueue, pc *plan.Config) error {
		pc.MoveOnExpiry, pc.Capacity = false, berth.New(4096, 4) // half of two nodes
		return nil
	}
	res, err := rm.NewReservations(spec, clock, rm.Options{ClusterTimestamp: 1, ConfigurePlan: noMove})
	require.NoError(t, err)

	c := berth.New(1024, 1)
	job := func(id string, start, deadline berth.Time) trace.Job {
		return trace.Job{ID: id, AMType: trace.AMMapReduce, User: "u", Queue: "r", Start: start, Deadline: deadline, AMResource: c,
			Tasks: []trace.Task{{Duration: 9_000, Resource: c, Priority: 20, Type: trace.TypeMap}, {Duration: 9_000, Resource: c, Priority: 20, Type: trace.TypeMap}}}
	}
	var warnings bytes.Buffer
	e, err := New(Config{Clock: clock, Scheduler: cs, Stats: NewCapacityStats(cs), Nodes: nodes(2), Jobs: []trace.Job{job("a", 0, 9_000), job("b", 10_000, 100_000)},
		Reservations: res.System, Follower: res.Follower, FollowerInterval: 60_000, SampleInterval: 1000,
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
