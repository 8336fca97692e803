package plan_test

import (
	"errors"
	"math"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/agent"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/policy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// yarnSystem is a reservation system with one plan, "dedicated", of 32
// containers of <1024, 1>, wired as YARN's default (AlignedPlannerWithGreedy
// placing early, CapacityOverTime), on a manual clock at now.
func yarnSystem(t *testing.T, now berth.Time) (*plan.System, *plan.Plan, *berth.ManualClock) {
	t.Helper()
	clock := berth.NewManualClock(now)
	cfg := plan.DefaultConfig("dedicated", berth.New(32*1024, 32), clock)
	ag, err := agent.NewAlignedPlannerWithGreedy(agent.DefaultConfig())
	require.NoError(t, err)
	pol, err := policy.NewCapacityOverTime(policy.DefaultCapacityOverTimeConfig())
	require.NoError(t, err)
	cfg.Agent, cfg.Policy = ag, pol
	p, err := plan.New(cfg)
	require.NoError(t, err)
	sys, err := plan.NewSystem(plan.SystemConfig{ClusterTimestamp: 1, Clock: clock})
	require.NoError(t, err)
	require.NoError(t, sys.AddPlan(p))
	return sys, p, clock
}

// memoryTime is what a allocation holds over time, in MB·ms.
func memoryTime(a *plan.Allocation) int64 {
	var sum int64
	for _, iv := range a.Intervals {
		sum += iv.Resource.Memory * (iv.Interval.End - iv.Interval.Start)
	}
	return sum
}

// A definition that names no interpreter is R_ALL, what YARN's protocol
// means by an absent field: both stages of a pipeline are reserved, not
// one of the two (the zero value used to be R_ANY).
func TestDefinitionWithoutInterpreterReservesEveryStage(t *testing.T) {
	sys, p, _ := yarnSystem(t, 0)
	def := plan.Definition{Arrival: 0, Deadline: 60 * minute, Stages: []plan.Stage{
		{Capability: berth.New(1024, 1), Containers: 2, Concurrency: 2, Duration: 10 * minute},
		{Capability: berth.New(1024, 1), Containers: 4, Concurrency: 4, Duration: 10 * minute},
	}}
	id := sys.NewReservationID()
	require.NoError(t, sys.Submit(plan.SubmissionRequest{Queue: "dedicated", ID: id, User: "alice", Definition: &def}))
	a, ok := p.Reservation(id)
	require.True(t, ok)
	assert.Equal(t, plan.RAll, a.Definition.Interpreter)
	assert.Equal(t, int64((2+4)*1024*10*minute), memoryTime(a), "both stages")
}

// One mistake, one error kind, whatever the interpreter: a deadline
// before the arrival and an interpreter outside the enum are invalid
// arguments (R_ANY's agent used to answer NoPlacement for the first), from
// the system as from an agent called directly.
func TestDefinitionMistakesAreInvalidUnderEveryInterpreter(t *testing.T) {
	stages := []plan.Stage{{Capability: berth.New(1024, 1), Containers: 2, Concurrency: 1, Duration: minute}}
	type mistake struct {
		name  string
		def   plan.Definition
		field string
	}
	var cases []mistake
	for _, k := range []plan.Interpreter{plan.RAny, plan.RAll, plan.ROrder, plan.ROrderNoGap} {
		cases = append(cases, mistake{"deadline before arrival/" + k.String(),
			plan.Definition{Arrival: 30 * minute, Deadline: 20 * minute, Interpreter: k, Stages: stages},
			"reservation-definition.deadline"})
	}
	for _, k := range []plan.Interpreter{-1, 4, 9} {
		cases = append(cases, mistake{"interpreter/" + k.String(),
			plan.Definition{Arrival: 0, Deadline: 30 * minute, Interpreter: k, Stages: stages},
			"reservation-definition.reservation-requests.reservation-request-interpreter"})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sys, p, _ := yarnSystem(t, 0)
			def := c.def
			errs := map[string]error{
				"system": sys.Submit(plan.SubmissionRequest{Queue: "dedicated", ID: sys.NewReservationID(), User: "alice", Definition: &def}),
			}
			if !c.def.Interpreter.Valid() {
				errs["agent"] = p.Agent().CreateReservation(p, plan.ReservationID{ClusterTimestamp: 1, Sequence: 99}, "alice", c.def)
				_, errs["allocation"] = plan.NewAllocation(plan.ReservationID{ClusterTimestamp: 1, Sequence: 98}, "alice", c.def,
					berth.Interval{Start: 0, End: 30 * minute}, nil)
			}
			for via, err := range errs {
				assert.ErrorIs(t, err, berth.ErrInvalidArgument, via)
				assert.False(t, errors.Is(err, berth.ErrNoPlacement), via)
				var fe *berth.FieldError
				if assert.ErrorAs(t, err, &fe, via) {
					assert.Equal(t, c.field, fe.Field, via)
				}
			}
			assert.Zero(t, p.Len())
		})
	}
}

// An arrival in the past is placed from now: nothing is booked before the
// submission (the early-placing agent used to put the stages at the
// arrival, down to MinTime). The stored definition starts at the
// submission, and resubmitting the request as sent is idempotent.
func TestPastArrivalIsPlacedFromNow(t *testing.T) {
	const now = 600 * minute
	for _, arrival := range []berth.Time{now - 30*minute, now - 1, berth.MinTime} {
		for _, k := range []plan.Interpreter{plan.RAny, plan.RAll, plan.ROrder, plan.ROrderNoGap} {
			sys, p, clock := yarnSystem(t, now)
			def := plan.Definition{Arrival: arrival, Deadline: now + 60*minute, Interpreter: k, Stages: []plan.Stage{
				{Capability: berth.New(1024, 1), Containers: 4, Concurrency: 4, Duration: 10 * minute},
				{Capability: berth.New(1024, 1), Containers: 2, Concurrency: 2, Duration: 10 * minute},
			}}
			id := sys.NewReservationID()
			req := plan.SubmissionRequest{Queue: "dedicated", ID: id, User: "alice", Definition: &def}
			require.NoError(t, sys.Submit(req), "%d %v", arrival, k)
			a, ok := p.Reservation(id)
			require.True(t, ok)
			assert.Equal(t, berth.Time(now), a.Start, "%d %v", arrival, k)
			assert.Equal(t, berth.Time(now), a.Definition.Arrival)
			require.NotEmpty(t, a.Intervals)
			for _, iv := range a.Intervals {
				assert.GreaterOrEqual(t, iv.Interval.Start, berth.Time(now), "%d %v: %v", arrival, k, a.Intervals)
			}
			assert.Equal(t, berth.Time(now), a.Intervals[0].Interval.Start, "early placement starts at the submission")
			// The same request later: accepted already, nothing changes.
			clock.Advance(minute)
			require.NoError(t, sys.Submit(req), "idempotent")
			again, _ := p.Reservation(id)
			assert.Same(t, a, again)
			// Another request under the id is still a conflict.
			other := def
			other.Deadline += minute
			assert.ErrorIs(t, sys.Submit(plan.SubmissionRequest{Queue: "dedicated", ID: id, User: "alice", Definition: &other}), berth.ErrConflict)
		}
	}
	// A periodic definition keeps its arrival: it sets every occurrence's
	// phase.
	sys, p, _ := yarnSystem(t, now)
	def := plan.Definition{Arrival: now - 30*minute, Deadline: now + 30*minute, Period: 24 * 60 * minute, Interpreter: plan.RAll,
		Stages: []plan.Stage{{Capability: berth.New(1024, 1), Containers: 2, Concurrency: 2, Duration: 10 * minute}}}
	id := sys.NewReservationID()
	require.NoError(t, sys.Submit(plan.SubmissionRequest{Queue: "dedicated", ID: id, User: "alice", Definition: &def}))
	a, _ := p.Reservation(id)
	assert.Equal(t, berth.Time(now-30*minute), a.Definition.Arrival)
	assert.Equal(t, berth.Time(now-30*minute), a.Definition.PlacedArrival(math.MaxInt64))
}
