package plan_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/agent"
	"github.com/berthsched/berth/plan"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pipeline is a two-stage definition: 4 containers of 1 GB, then 2 of
// 2 GB, 10 minutes each, within an hour.
func pipeline(k plan.Interpreter) plan.Definition {
	return plan.Definition{Arrival: 0, Deadline: 60 * minute, Interpreter: k, Stages: []plan.Stage{
		{Capability: berth.New(1024, 1), Containers: 4, Concurrency: 4, Duration: 10 * minute},
		{Capability: berth.New(2048, 1), Containers: 2, Concurrency: 2, Duration: 10 * minute},
	}}
}

// An allocation says which stage each part of it serves, so that a host
// running a pipeline asks for the right stage's containers at each time:
// every stage for R_ALL, R_ORDER and R_ORDER_NO_GAP (stage 0 before stage
// 1 for the ordered ones, end to start without a gap for R_ORDER_NO_GAP),
// the one stage placed for R_ANY. The parts add up to the intervals.
func TestAllocationStages(t *testing.T) {
	gang := []berth.Resource{berth.New(4*1024, 4), berth.New(2*2048, 2)}
	for _, k := range []plan.Interpreter{plan.RAll, plan.ROrder, plan.ROrderNoGap, plan.RAny} {
		t.Run(k.String(), func(t *testing.T) {
			sys, p, _ := yarnSystem(t, 0)
			def := pipeline(k)
			id := sys.NewReservationID()
			require.NoError(t, sys.Submit(plan.SubmissionRequest{Queue: "dedicated", ID: id, User: "alice", Definition: &def}))
			a, ok := p.Reservation(id)
			require.True(t, ok)
			require.NotEmpty(t, a.Stages)

			placed := map[int]berth.Interval{} // each stage's span
			var sum int64
			for _, s := range a.Stages {
				assert.True(t, s.Resource.Equal(gang[s.Stage]), "a gang of stage %d at a time: %v", s.Stage, s.Resource)
				span, seen := placed[s.Stage]
				if !seen {
					span = s.Interval
				}
				placed[s.Stage] = berth.Interval{Start: min(span.Start, s.Interval.Start), End: max(span.End, s.Interval.End)}
				sum += s.Resource.Memory * (s.Interval.End - s.Interval.Start)
			}
			assert.Equal(t, memoryTime(a), sum, "the stages add up to the allocation")
			for st, span := range placed {
				assert.Equal(t, berth.Duration(10*minute), span.End-span.Start, "stage %d runs 10 minutes", st)
			}
			switch k {
			case plan.RAny:
				assert.Len(t, placed, 1, "one stage")
			default:
				require.Len(t, placed, 2, "both stages")
			}
			if k == plan.ROrder || k == plan.ROrderNoGap {
				assert.LessOrEqual(t, placed[0].End, placed[1].Start, "stage 0 first")
			}
			if k == plan.ROrderNoGap {
				assert.Equal(t, placed[0].End, placed[1].Start, "no gap")
			}
			// At any time, StagesAt names the stages running then.
			for st, span := range placed {
				at := a.StagesAt(span.Start)
				require.NotEmpty(t, at)
				found := false
				for _, s := range at {
					found = found || s.Stage == st
					assert.True(t, s.Interval.Start <= span.Start && span.Start < s.Interval.End)
				}
				assert.True(t, found, "stage %d at %d", st, span.Start)
			}
			assert.Empty(t, a.StagesAt(60*minute), "nothing after the deadline")
		})
	}
}

// Stages set by hand are checked when the plan takes the allocation: a
// stage index the definition lacks, or parts that do not add up to the
// intervals, are invalid arguments; none at all is fine (the allocation
// does not say).
func TestAllocationStagesChecked(t *testing.T) {
	iv := berth.Interval{Start: 0, End: 10 * minute}
	later := berth.Interval{Start: 10 * minute, End: 20 * minute}
	r := berth.New(4096, 4)
	for _, c := range []struct {
		name   string
		stages []plan.StageInterval
		field  string // "": accepted
	}{
		{"none", nil, ""},
		{"one stage", []plan.StageInterval{{Stage: 0, Interval: iv, Resource: r}}, ""},
		{"split between stages", []plan.StageInterval{{Stage: 0, Interval: iv, Resource: berth.New(1024, 1)}, {Stage: 1, Interval: iv, Resource: berth.New(3072, 3)}}, ""},
		{"no such stage", []plan.StageInterval{{Stage: 2, Interval: iv, Resource: r}}, "allocation.stages[0].stage"},
		{"negative stage", []plan.StageInterval{{Stage: -1, Interval: iv, Resource: r}}, "allocation.stages[0].stage"},
		{"too little", []plan.StageInterval{{Stage: 0, Interval: iv, Resource: berth.New(1024, 1)}}, "allocation.stages"},
		{"elsewhere", []plan.StageInterval{{Stage: 0, Interval: later, Resource: r}}, "allocation.stages"},
		{"negative", []plan.StageInterval{{Stage: 0, Interval: iv, Resource: berth.New(-1, 0)}}, "allocation.stages[0].resource"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, p, _ := yarnSystem(t, 0)
			a, err := plan.NewAllocation(plan.ReservationID{ClusterTimestamp: 1, Sequence: 1}, "alice", pipeline(plan.RAll),
				berth.Interval{Start: 0, End: 60 * minute}, []plan.IntervalResource{{Interval: iv, Resource: r}})
			require.NoError(t, err)
			a.Stages = c.stages
			err = p.AddReservation(a)
			if c.field == "" {
				require.NoError(t, err)
				got, _ := p.Reservation(a.ID)
				assert.Equal(t, c.stages, got.Stages)
				return
			}
			assert.ErrorIs(t, err, berth.ErrInvalidArgument)
			var fe *berth.FieldError
			require.ErrorAs(t, err, &fe)
			assert.Equal(t, c.field, fe.Field)
			assert.Zero(t, p.Len())
		})
	}
}

func restoreAligned(t *testing.T, b []byte) *plan.Plan {
	t.Helper()
	q, err := plan.RestorePlan(bytes.NewReader(b), plan.RestoreEnv{Clock: berth.NewManualClock(0),
		Resolver: plan.ResolverFunc(func(s plan.PlanSpec) (plan.PlanParts, error) {
			ag, err := agent.Resolve(s.Agent)
			return plan.PlanParts{Agent: ag}, err
		})})
	require.NoError(t, err)
	return q
}

// Stages survive a snapshot; a snapshot of body version 1 (before stages)
// is still read, its allocations without stages and its interpreters read
// from YARN's codes.
func TestAllocationStagesDurable(t *testing.T) {
	sys, p, _ := yarnSystem(t, 0)
	for _, k := range []plan.Interpreter{plan.ROrder, plan.RAny} {
		def := pipeline(k)
		require.NoError(t, sys.Submit(plan.SubmissionRequest{Queue: "dedicated", ID: sys.NewReservationID(), User: "alice", Definition: &def}))
	}
	var buf bytes.Buffer
	require.NoError(t, p.SaveState(&buf))
	q, err := plan.RestorePlan(bytes.NewReader(buf.Bytes()), plan.RestoreEnv{Clock: berth.NewManualClock(0),
		Resolver: plan.ResolverFunc(func(s plan.PlanSpec) (plan.PlanParts, error) {
			ag, err := agent.Resolve(s.Agent)
			if err != nil {
				return plan.PlanParts{}, err
			}
			return plan.PlanParts{Agent: ag, Policy: p.Policy()}, nil
		})})
	require.NoError(t, err)
	require.Equal(t, p.Len(), q.Len())
	for _, a := range p.Reservations(plan.Filter{}) {
		b, ok := q.Reservation(a.ID)
		require.True(t, ok)
		assert.NotEmpty(t, b.Stages)
		assert.True(t, a.Equal(b), "%v", a.ID)
	}

	v1, err := os.ReadFile(filepath.Join("testdata", "plan-v1.snap"))
	require.NoError(t, err)
	old := restoreAligned(t, v1)
	require.Equal(t, 2, old.Len())
	want := map[int64]plan.Interpreter{1: plan.ROrder, 2: plan.RAny}
	for _, a := range old.Reservations(plan.Filter{}) {
		assert.Equal(t, want[a.ID.Sequence], a.Definition.Interpreter, "%v", a.ID)
		assert.Nil(t, a.Stages, "version 1 says nothing of stages")
		assert.NotEmpty(t, a.Intervals)
	}
}
