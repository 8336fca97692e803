package agent

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/policy"
	"github.com/stretchr/testify/require"
)

// subject is an agent under test with access to its per-stage placements.
type subject struct {
	name   string
	agent  plan.Agent
	stages func(p *plan.Plan, id plan.ReservationID, user string, def plan.Definition) ([][]placement, error)
}

func subjects(t testing.TB) []subject {
	ip := func(name string, x *IterativePlanner) subject {
		return subject{name: name, agent: x, stages: func(p *plan.Plan, id plan.ReservationID, user string, def plan.Definition) ([][]placement, error) {
			_, st, err := x.compute(newView(p), id, user, def)
			return st, err
		}}
	}
	left, err := NewGreedy(DefaultConfig())
	require.NoError(t, err)
	rightOpts := DefaultConfig()
	rightOpts.FavorEarlyAllocation = false
	right, err := NewGreedy(rightOpts)
	require.NoError(t, err)
	exact := DefaultConfig()
	exact.ExactScan, exact.ComponentwiseFit = true, true
	exactRight := exact
	exactRight.FavorEarlyAllocation = false
	aligned, err := NewAlignedPlannerWithGreedy(DefaultConfig())
	require.NoError(t, err)
	lowCost := aligned.Agents[0].(*IterativePlanner)
	legacy := &LegacyGreedy{}
	return []subject{
		ip("greedy-left", left),
		ip("greedy-right", right),
		ip("greedy-exact-left", &IterativePlanner{Config: exact}),
		ip("greedy-exact-right", &IterativePlanner{Config: exactRight}),
		ip("step-greedy", &IterativePlanner{Allocator: Greedy{}, Config: DefaultConfig()}),
		ip("low-cost-by-demand", lowCost),
		ip("low-cost-right", &IterativePlanner{Interval: ByDemand{}, Allocator: LowCostAligned{}, Config: rightOpts}),
		{name: "aligned-with-greedy", agent: aligned},
		{name: "legacy", agent: legacy, stages: func(p *plan.Plan, id plan.ReservationID, _ string, def plan.Definition) ([][]placement, error) {
			_, st, _, err := legacy.compute(newView(p), id, def)
			return st, err
		}},
	}
}

// bytesSource turns fuzz input into numbers (zero once exhausted).
type bytesSource struct{ b []byte }

func (s *bytesSource) n(max int64) int64 {
	if max <= 0 {
		return 0
	}
	if len(s.b) < 2 {
		s.b = nil
		return 0
	}
	v := int64(binary.LittleEndian.Uint16(s.b))
	s.b = s.b[2:]
	return v % (max + 1)
}

// randomDefinition draws a small definition: 1–3 stages on a horizon of
// about 60 steps of 1000 ms, times not always aligned to the step.
func randomDefinition(next func(max int64) int64) plan.Definition {
	const step = 1000
	arrival := next(40)*step + next(1)*next(999)
	span := 1 + next(30)*step + next(999)
	def := plan.Definition{Arrival: arrival, Deadline: arrival + span, Interpreter: interpreterOf(next(3))}
	for i := int64(0); i <= next(2); i++ {
		k := 1 + next(2)
		conc := 1 + next(2)
		def.Stages = append(def.Stages, plan.Stage{
			Capability:  berth.New(1024*k, k),
			Concurrency: conc,
			Containers:  conc * (1 + next(3)),
			Duration:    1 + next(8)*step + next(1)*next(999),
		})
	}
	return def
}

func testPlan(t testing.TB, pol plan.SharingPolicy) *plan.Plan {
	cfg := plan.DefaultConfig("q", berth.New(10*1024, 10), berth.NewManualClock(0))
	cfg.MaxAllocation = berth.New(4096, 4)
	cfg.Policy = pol
	p, err := plan.New(cfg)
	require.NoError(t, err)
	return p
}

// checkSubmit submits def with s and checks the properties of the outcome.
func checkSubmit(t testing.TB, s subject, p *plan.Plan, id plan.ReservationID, def plan.Definition) error {
	before := p.Snapshot()
	var stages [][]placement
	var stageErr error
	if s.stages != nil {
		stages, stageErr = s.stages(p, id, "u", def)
	}
	err := s.agent.CreateReservation(p, id, "u", def)
	if err != nil {
		if !p.Equal(before) {
			t.Fatalf("%s: a rejected submission changed the plan: %v", s.name, err)
		}
		if !errors.Is(err, berth.ErrNoPlacement) && !errors.Is(err, berth.ErrInvalidArgument) &&
			!errors.Is(err, berth.ErrCapacityExceeded) {
			t.Fatalf("%s: unexpected error kind: %v", s.name, err)
		}
		return err
	}
	a, ok := p.Reservation(id)
	if !ok {
		t.Fatalf("%s: accepted reservation %v not in the plan", s.name, id)
	}
	for _, e := range a.Intervals {
		if e.Resource.IsZero() {
			continue
		}
		if e.Interval.Start < def.Arrival || e.Interval.End > def.Deadline {
			t.Fatalf("%s: block %v outside [%d, %d)", s.name, e.Interval, def.Arrival, def.Deadline)
		}
	}
	load, lerr := p.CumulativeLoad(berth.Interval{Start: -1_000_000, End: 1_000_000})
	if lerr != nil {
		t.Fatalf("%s: %v", s.name, lerr)
	}
	for st := range load.StepsIn(berth.Interval{Start: -1_000_000, End: 1_000_000}) {
		if !st.Value.FitsIn(p.Capacity()) {
			t.Fatalf("%s: plan over capacity on %v: %v", s.name, st.Interval, st.Value)
		}
	}
	if s.stages == nil {
		return nil
	}
	if stageErr != nil {
		t.Fatalf("%s: stages failed (%v) where the agent succeeded", s.name, stageErr)
	}
	checkStages(t, s.name, p.Step(), def, stages)
	return nil
}

func checkStages(t testing.TB, name string, step berth.Duration, def plan.Definition, stages [][]placement) {
	placed := 0
	for i, ps := range stages {
		if ps == nil {
			continue
		}
		placed++
		st := def.Stages[i]
		gang := st.Capability.MulInt(st.Concurrency)
		var area int64
		for _, x := range ps {
			if x.r.IsZero() {
				continue
			}
			n := x.r.Memory / gang.Memory
			if !x.r.Equal(gang.MulInt(n)) {
				t.Fatalf("%s: stage %d block %v of %v is not a multiple of the gang %v", name, i, x.iv, x.r, gang)
			}
			area += x.r.Memory * x.iv.Len()
		}
		want := st.Capability.Memory * st.Containers * stepRoundUp(st.Duration, step)
		if area != want {
			t.Fatalf("%s: stage %d holds %d MB·ms, want %d", name, i, area, want)
		}
	}
	span := func(ps []placement) (berth.Time, berth.Time) {
		s, e := ps[0].iv.Start, ps[0].iv.End
		for _, x := range ps {
			s, e = min(s, x.iv.Start), max(e, x.iv.End)
		}
		return s, e
	}
	switch def.Interpreter {
	case plan.RAny:
		if placed != 1 {
			t.Fatalf("%s: R_ANY placed %d stages", name, placed)
		}
	case plan.RAll, plan.ROrder, plan.ROrderNoGap:
		if placed != len(def.Stages) {
			t.Fatalf("%s: %v placed %d of %d stages", name, def.Interpreter, placed, len(def.Stages))
		}
	}
	if def.Interpreter == plan.ROrder || def.Interpreter == plan.ROrderNoGap {
		for i := 0; i+1 < len(stages); i++ {
			_, e := span(stages[i])
			s, _ := span(stages[i+1])
			if e > s {
				t.Fatalf("%s: stage %d ends at %d after stage %d starts at %d", name, i, e, i+1, s)
			}
			if def.Interpreter == plan.ROrderNoGap && s-e > step {
				t.Fatalf("%s: gap of %d between stages %d and %d", name, s-e, i, i+1)
			}
		}
	}
}

// Property: on random plans, whatever each agent accepts lies in its
// window, keeps the plan within capacity, places whole gangs and honours
// the interpreter; whatever it rejects leaves the plan as it was.
func TestAgentProperties(t *testing.T) {
	rounds := 60
	if testing.Short() || raceEnabled {
		rounds = 15
	}
	for _, s := range subjects(t) {
		t.Run(s.name, func(t *testing.T) {
			accepted, rejected := propertyRounds(t, s, rand.New(rand.NewPCG(11, 17)), rounds)
			require.Positive(t, accepted, "the generator should produce placeable requests")
			t.Logf("%s: %d accepted, %d rejected", s.name, accepted, rejected)
		})
	}
}

// propertyRounds runs the agent property on rounds fresh plans, drawing
// from r: twelve random submissions each (checkSubmit checks what is
// accepted; a rejection for want of room is a *NoPlacementError), then a
// random update of one reservation, which, when it fails, leaves the plan
// as it was (one that succeeds keeps the plan within capacity).
func propertyRounds(t *testing.T, s subject, r *rand.Rand, rounds int) (accepted, rejected int) {
	next := func(max int64) int64 { return r.Int64N(max + 1) }
	for round := 0; round < rounds; round++ {
		p := testPlan(t, policy.NoOverCommit{})
		for k := int64(1); k <= 12; k++ {
			def := randomDefinition(next)
			err := checkSubmit(t, s, p, plan.ReservationID{ClusterTimestamp: 1, Sequence: k}, def)
			if err == nil {
				accepted++
				continue
			}
			rejected++
			if errors.Is(err, berth.ErrNoPlacement) {
				var np *NoPlacementError
				require.ErrorAs(t, err, &np, "%s", s.name)
			}
		}
		for _, a := range p.All() {
			before := p.Snapshot()
			err := s.agent.UpdateReservation(p, a.ID, a.User, randomDefinition(next))
			if err != nil {
				require.True(t, p.Equal(before), "%s: a failed update changed the plan: %v", s.name, err)
			}
			break
		}
	}
	return accepted, rejected
}

// Fuzz: arbitrary definitions through the plan's validator and every
// agent: no panic, and every accepted placement has the properties above.
func FuzzAgents(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("\x05\x00\x01\x00\x10\x00\x01\x00\x02\x00\x01\x00\x03\x00\x02\x00"))
	f.Add([]byte("\xff\xff\xff\xff\x00\x00\x03\x00\x02\x00\x02\x00\x07\x00\x01\x00\x00\x00\x01\x00"))
	f.Add([]byte("\x00\x00\x00\x00\x1e\x00\x02\x00\x02\x00\x02\x00\x02\x00\x08\x00\x02\x00\x01\x00\x02\x00\x02\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		src := &bytesSource{b: data}
		ss := subjects(t)
		for _, s := range ss {
			fuzzSubmissions(t, s, &bytesSource{b: append([]byte(nil), src.b...)}, 4)
		}
	})
}

// fuzzSubmissions submits n definitions drawn from src to a fresh plan:
// the validator refuses a bad one with berth.ErrInvalidArgument, and
// checkSubmit checks what the agent does with a good one.
func fuzzSubmissions(t *testing.T, s subject, src *bytesSource, n int64) {
	p := testPlan(t, policy.NoOverCommit{})
	for k := int64(1); k <= n; k++ {
		def := randomDefinition(src.n)
		if err := plan.ValidateDefinition(&def, p.Limits(0)); err != nil {
			if !errors.Is(err, berth.ErrInvalidArgument) {
				t.Fatalf("validator: %v", err)
			}
			continue
		}
		_ = checkSubmit(t, s, p, plan.ReservationID{ClusterTimestamp: 1, Sequence: k}, def)
	}
}

func TestStageValidationErrors(t *testing.T) {
	p := testPlan(t, policy.NoOverCommit{})
	ag, err := NewGreedy(DefaultConfig())
	require.NoError(t, err)
	good := plan.Stage{Capability: berth.New(1024, 1), Containers: 2, Concurrency: 1, Duration: 1000}
	cases := []struct {
		name  string
		stage plan.Stage
		field string
	}{
		{"gang size", plan.Stage{Capability: good.Capability, Containers: 2, Concurrency: 0, Duration: 1000}, "min-concurrency"},
		{"containers", plan.Stage{Capability: good.Capability, Containers: 0, Concurrency: 1, Duration: 1000}, "num-containers"},
		{"multiple", plan.Stage{Capability: good.Capability, Containers: 3, Concurrency: 2, Duration: 1000}, "num-containers"},
		{"max allocation", plan.Stage{Capability: berth.New(8192, 1), Containers: 1, Concurrency: 1, Duration: 1000}, "capability"},
		{"zero duration", plan.Stage{Capability: good.Capability, Containers: 1, Concurrency: 1, Duration: 0}, "duration"},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			def := plan.Definition{Arrival: 0, Deadline: 10_000, Interpreter: plan.RAll, Stages: []plan.Stage{good, c.stage}}
			err := ag.CreateReservation(p, plan.ReservationID{ClusterTimestamp: 1, Sequence: int64(i + 1)}, "u", def)
			var fe *berth.FieldError
			require.ErrorAs(t, err, &fe)
			require.ErrorIs(t, err, berth.ErrInvalidArgument)
			require.Equal(t, fmt.Sprintf("reservation-definition.reservation-requests.reservation-request[1].%s", c.field), fe.Field)
			require.Equal(t, 0, p.Len())
		})
	}
}

// interpreterOf is the interpreter of a YARN code drawn in 0–3.
func interpreterOf(code int64) plan.Interpreter {
	i, err := plan.InterpreterOf(code)
	if err != nil {
		panic(err)
	}
	return i
}
