package agent_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/agent"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/policy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// YARN-parity cases: the setups and asserted placements of YARN 3.x's own
// unit tests for the planning agents (TestGreedyReservationAgent,
// TestAlignedPlanner, TestReservationAgents), kept as data. Each case names
// the YARN test method it comes from. Where YARN checks only some ranges of
// a placement, these cases assert the whole placement (it agrees with every
// YARN check and has nothing else). YARN's plan in those tests: 100
// containers of <1024 MB, 1 vcore>, step 1 s (1 min for the aligned
// planner), maxAlloc <8192, 8>, a CapacityOverTimePolicy at 100%/100% (no
// limit below the plan's capacity, so policy.NoOverCommit stands in for it).

const yarnStep = 1000

// yarnStage is a ReservationRequest: capability in containers of the
// minimum allocation <1024, 1>, number of containers, gang size, duration.
func yarnStage(units, containers, gang, dur int64) plan.Stage {
	return plan.Stage{Capability: berth.New(1024*units, units), Containers: containers, Concurrency: gang, Duration: dur}
}

// yarnBlocker is a reservation added to the plan before the agent runs:
// per-step container counts from start (generateAllocation in YARN).
type yarnBlocker struct {
	start  int64
	counts []int64
	// periodic: the blocker's definition carries the request's recurrence
	// (testOrder* in YARN 3.x); prepareBasicPlan's blockers never do.
	periodic bool
}

// basicPlan is prepareBasicPlan: two reservations shaping the load over
// the first 12 s.
var basicPlan = []yarnBlocker{
	{0, []int64{10, 10, 20, 20, 20, 10, 10}, false},
	{5 * yarnStep, []int64{5, 5, 5, 5, 5, 5, 5}, false},
}

// fullAt30 fills the cluster on [30 s, 32 s) (testOrder and friends).
var fullAt30 = yarnBlocker{30 * yarnStep, []int64{100, 100}, true}

func yarnPlan(t *testing.T, blockers []yarnBlocker, period int64) *plan.Plan {
	return yarnPlanStep(t, yarnStep, blockers, period)
}

func yarnPlanStep(t *testing.T, step int64, blockers []yarnBlocker, period int64) *plan.Plan {
	t.Helper()
	cfg := plan.DefaultConfig("dedicated", berth.New(100*1024, 100), berth.NewManualClock(0))
	cfg.Step = step
	cfg.MaxAllocation = berth.New(8*1024, 8)
	cfg.Policy = policy.NoOverCommit{}
	p, err := plan.New(cfg)
	require.NoError(t, err)
	for i, b := range blockers {
		var ivs []plan.IntervalResource
		for k, n := range b.counts {
			s := b.start + int64(k)*step
			ivs = append(ivs, ir(s, s+step, n))
		}
		end := b.start + int64(len(b.counts))*step
		var def plan.Definition
		if b.periodic {
			def.Period = period
		}
		a, err := plan.NewAllocation(plan.ReservationID{ClusterTimestamp: 1, Sequence: int64(i + 1)}, "u1",
			def, berth.Interval{Start: b.start, End: end}, ivs)
		require.NoError(t, err)
		require.NoError(t, p.AddReservation(a))
	}
	return p
}

// sec converts seconds (YARN's "n * step") to ms.
func sec(n int64) int64 { return n * yarnStep }

type yarnCase struct {
	method   string // YARN test method
	left     bool   // favour early allocation (the test's parameter)
	blockers []yarnBlocker
	def      plan.Definition
	// aperiodic: YARN leaves this request without a recurrence whatever
	// the parameterisation (testOrderNoGapImpossible).
	aperiodic bool
	// recurrence: the parameterisation (also the periodic blockers' period).
	recurrence int64
	// want: the placement, in containers of <1024, 1>; nil means the agent
	// must fail and leave the plan unchanged.
	want []plan.IntervalResource
}

// Four stages alternating a non-gang and a gang request (testOrder*).
func chainOf4(dur1, dur2 int64) []plan.Stage {
	r, r2 := yarnStage(2, 10, 1, dur1), yarnStage(1, 10, 10, dur2)
	return []plan.Stage{r, r2, r, r2}
}

// yarnRecurrences are the recurrence expressions of YARN 3's
// parameterisations: none, 2 hours, 1 day (all much longer than the
// windows, so the placements are the same).
var yarnRecurrences = []int64{0, 7_200_000, 86_400_000}

// withRecurrence sets the period of every case's request (YARN's
// setRecurrenceExpression on the definition under test).
func withRecurrence(cases []yarnCase, period int64) []yarnCase {
	out := make([]yarnCase, len(cases))
	for i, c := range cases {
		c.recurrence = period
		if !c.aperiodic {
			c.def.Period = period
		}
		c.def.Stages = append([]plan.Stage(nil), c.def.Stages...)
		out[i] = c
	}
	return out
}

func greedyCases() []yarnCase {
	var cs []yarnCase
	for _, left := range []bool{true, false} {
		pick := func(l, r []plan.IntervalResource) []plan.IntervalResource {
			if left {
				return l
			}
			return r
		}
		cs = append(cs,
			yarnCase{method: "testSimple", left: left, blockers: basicPlan,
				def: plan.Definition{Arrival: sec(5), Deadline: sec(20), Interpreter: plan.RAll,
					Stages: []plan.Stage{yarnStage(2, 10, 5, sec(10))}},
				want: pick([]plan.IntervalResource{ir(sec(5), sec(15), 20)},
					[]plan.IntervalResource{ir(sec(10), sec(20), 20)})},
			yarnCase{method: "testOrder", left: left, blockers: append([]yarnBlocker{fullAt30}, basicPlan...),
				def: plan.Definition{Arrival: 0, Deadline: sec(70), Interpreter: plan.ROrder,
					Stages: chainOf4(sec(10), sec(20))},
				want: pick(
					[]plan.IntervalResource{ir(0, sec(10), 20), ir(sec(10), sec(30), 10), ir(sec(32), sec(42), 20), ir(sec(42), sec(62), 10)},
					[]plan.IntervalResource{ir(0, sec(10), 20), ir(sec(10), sec(30), 10), ir(sec(40), sec(50), 20), ir(sec(50), sec(70), 10)})},
			// The window (70 ms) is shorter than one step: nothing fits.
			yarnCase{method: "testOrderNoGapImpossible", left: left, aperiodic: true, blockers: append([]yarnBlocker{fullAt30}, basicPlan...),
				def: plan.Definition{Arrival: 0, Deadline: 70, Interpreter: plan.ROrderNoGap,
					Stages: chainOf4(10, 20)}},
			yarnCase{method: "testOrderNoGap", left: left, blockers: basicPlan,
				def: plan.Definition{Arrival: 0, Deadline: sec(60), Interpreter: plan.ROrderNoGap,
					Stages: chainOf4(sec(10), sec(20))},
				want: []plan.IntervalResource{ir(0, sec(10), 20), ir(sec(10), sec(30), 10), ir(sec(30), sec(40), 20), ir(sec(40), sec(60), 10)}},
			yarnCase{method: "testSingleSliding", left: left, blockers: basicPlan,
				def: plan.Definition{Arrival: sec(100), Deadline: sec(120), Interpreter: plan.RAll,
					Stages: []plan.Stage{yarnStage(1, 200, 10, sec(10))}},
				want: []plan.IntervalResource{ir(sec(100), sec(120), 100)}},
			// The last alternative is too big; left takes the first, right
			// (last to first) the second.
			yarnCase{method: "testAny", left: left, blockers: basicPlan,
				def: plan.Definition{Arrival: sec(100), Deadline: sec(120), Interpreter: plan.RAny,
					Stages: []plan.Stage{yarnStage(1, 5, 5, sec(10)), yarnStage(2, 10, 5, sec(10)), yarnStage(1, 110, 110, sec(10))}},
				want: pick([]plan.IntervalResource{ir(sec(100), sec(110), 5)},
					[]plan.IntervalResource{ir(sec(110), sec(120), 20)})},
			// One alternative longer than the window, one above the cluster.
			yarnCase{method: "testAnyImpossible", left: left, blockers: basicPlan,
				def: plan.Definition{Arrival: 100, Deadline: 120, Interpreter: plan.RAny,
					Stages: []plan.Stage{yarnStage(1, 35, 5, 30), yarnStage(1, 110, 110, 10)}}},
			yarnCase{method: "testAll", left: left, blockers: basicPlan,
				def: plan.Definition{Arrival: sec(100), Deadline: sec(120), Interpreter: plan.RAll,
					Stages: []plan.Stage{yarnStage(1, 5, 5, sec(10)), yarnStage(2, 10, 10, sec(20))}},
				want: pick([]plan.IntervalResource{ir(sec(100), sec(110), 25), ir(sec(110), sec(120), 20)},
					[]plan.IntervalResource{ir(sec(100), sec(110), 20), ir(sec(110), sec(120), 25)})},
			yarnCase{method: "testAllImpossible", left: left, blockers: basicPlan,
				def: plan.Definition{Arrival: 100, Deadline: 120, Interpreter: plan.RAll,
					Stages: []plan.Stage{yarnStage(1, 55, 5, 10), yarnStage(2, 55, 5, 20)}}},
		)
	}
	return cs
}

func runYarnCases(t *testing.T, cases []yarnCase, mk func(agent.Config) (plan.Agent, error)) {
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s/allocateLeft=%v/recurrence=%d", c.method, c.left, c.recurrence), func(t *testing.T) {
			p := yarnPlan(t, c.blockers, c.recurrence)
			o := agent.DefaultConfig()
			o.FavorEarlyAllocation = c.left
			ag, err := mk(o)
			require.NoError(t, err)
			before := p.Snapshot()
			rid := plan.ReservationID{ClusterTimestamp: 2, Sequence: 1}
			err = ag.CreateReservation(p, rid, "u1", c.def)
			if c.want == nil {
				assert.ErrorIs(t, err, berth.ErrNoPlacement)
				assert.True(t, p.Equal(before), "a failed search leaves no trace")
				assert.Equal(t, len(c.blockers), p.Len())
				return
			}
			require.NoError(t, err)
			assert.Equal(t, len(c.blockers)+1, p.Len())
			assert.Equal(t, c.want, blocks(t, p, rid))
		})
	}
}

func TestYARNParityGreedyReservationAgent(t *testing.T) {
	var cases []yarnCase
	for _, period := range yarnRecurrences {
		cases = append(cases, withRecurrence(greedyCases(), period)...)
	}
	runYarnCases(t, cases, func(o agent.Config) (plan.Agent, error) { return agent.NewGreedy(o) })
}

// TestAlignedPlanner runs with a one-minute step.
const apStep = 60_000

func mins(n int64) int64 { return n * apStep }

// The AlignedPlanner scenarios (initializeScenario1..3 in YARN).
var (
	apScenario1 = []yarnBlocker{{0, []int64{10, 10, 20, 20, 20, 10, 10}, false}}
	apScenario2 = []yarnBlocker{{mins(11), []int64{90, 90, 90}, false}}
	apScenario3 = []yarnBlocker{{mins(10), []int64{70, 80, 60}, false}}
)

// apRecurrences: TestAlignedPlanner's parameterisation (none, 3 h, 1 day).
var apRecurrences = []int64{0, 10_800_000, 86_400_000}

// yarnOp is one call of a scripted YARN test on AlignedPlannerWithGreedy.
type yarnOp struct {
	op   string // "create", "update" or "delete"
	seq  int64  // reservation id
	left bool   // agentLeft (true) or agentRight
	def  plan.Definition
	fail bool                    // the call must fail with ErrNoPlacement
	want []plan.IntervalResource // if not nil: the reservation's exact placement
}

type yarnScript struct {
	method   string
	blockers []yarnBlocker
	ops      []yarnOp
	// reservations in the plan at the end (blockers included)
	wantLen int
}

func apDef(arrival, deadline int64, in plan.Interpreter, stages ...plan.Stage) plan.Definition {
	return plan.Definition{Arrival: arrival, Deadline: deadline, Interpreter: in, Stages: stages}
}

// apOne is the common shape: one create with agentRight (or agentLeft).
func apOne(method string, blockers []yarnBlocker, left bool, def plan.Definition, want []plan.IntervalResource) yarnScript {
	n := len(blockers)
	if want != nil {
		n++
	}
	return yarnScript{method: method, blockers: blockers, wantLen: n,
		ops: []yarnOp{{op: "create", seq: 1, left: left, def: def, fail: want == nil, want: want}}}
}

func alignedScripts() []yarnScript {
	one := func(c, g, d int64) plan.Stage { return yarnStage(1, c, g, d) }
	return []yarnScript{
		apOne("testSingleReservationAccept", apScenario1, false,
			apDef(mins(5), mins(20), plan.ROrder, yarnStage(2, 10, 5, mins(10))),
			[]plan.IntervalResource{ir(mins(10), mins(20), 20)}),
		apOne("testOrderNoGapImpossible", apScenario2, false,
			apDef(mins(10), mins(15), plan.ROrderNoGap, one(20, 20, mins(1)), one(20, 20, mins(1))), nil),
		apOne("testOrderNoGapImpossible2", apScenario2, false,
			apDef(mins(10), mins(13), plan.ROrderNoGap, one(20, 20, mins(1)), one(10, 10, mins(1))), nil),
		apOne("testOrderImpossible", apScenario2, false,
			apDef(mins(10), mins(15), plan.ROrder, one(20, 20, mins(2)), one(20, 20, mins(1))), nil),
		apOne("testAnyImpossible", apScenario2, false,
			apDef(mins(10), mins(15), plan.RAny, one(20, 20, mins(3)), one(20, 20, mins(2))), nil),
		apOne("testAnyAccept", apScenario2, false,
			apDef(mins(10), mins(15), plan.RAny, one(20, 20, mins(1)), one(20, 20, mins(2))),
			[]plan.IntervalResource{ir(mins(14), mins(15), 20)}),
		apOne("testAllAccept", apScenario2, false,
			apDef(mins(10), mins(15), plan.RAll, one(20, 20, mins(1)), one(20, 20, mins(1))),
			[]plan.IntervalResource{ir(mins(10), mins(11), 20), ir(mins(14), mins(15), 20)}),
		apOne("testAllImpossible", apScenario2, false,
			apDef(mins(10), mins(15), plan.RAll, one(20, 20, mins(1)), one(20, 20, mins(2))), nil),
		apOne("testImpossibleDuration", nil, false,
			apDef(mins(10), mins(15), plan.RAll, one(20, 20, mins(10))), nil),
		apOne("testLoadedDurationIntervals", apScenario3, false,
			apDef(mins(10), mins(13), plan.RAll, one(80, 10, mins(1))),
			[]plan.IntervalResource{ir(mins(10), mins(12), 20), ir(mins(12), mins(13), 40)}),
		apOne("testSingleReservationAcceptAllocateLeft", nil, true,
			apDef(mins(10), mins(35), plan.ROrder, one(20, 20, mins(10)), one(20, 20, mins(10))),
			[]plan.IntervalResource{ir(mins(10), mins(30), 20)}),
		{method: "testUpdate", wantLen: 1, ops: []yarnOp{
			{op: "create", seq: 2, def: apDef(mins(10), mins(11), plan.RAll, one(100, 100, mins(1)))},
			{op: "create", seq: 1, def: apDef(mins(10), mins(14), plan.RAll, one(100, 1, mins(2)))},
			{op: "delete", seq: 2},
			{op: "update", seq: 1, def: apDef(mins(10), mins(14), plan.RAll, one(100, 1, mins(2))),
				want: []plan.IntervalResource{ir(mins(10), mins(14), 50)}},
		}},
		// Memory-heavy first reservation: the cost function (memory share)
		// sends the third one to the second minute.
		{method: "testCostFunction", wantLen: 3, ops: []yarnOp{
			{op: "create", seq: 1, def: apDef(mins(10), mins(11), plan.RAll,
				plan.Stage{Capability: berth.New(7*1024, 1), Containers: 1, Concurrency: 1, Duration: mins(1)})},
			{op: "create", seq: 2, def: apDef(mins(10), mins(11), plan.RAll,
				plan.Stage{Capability: berth.New(6*1024, 6), Containers: 1, Concurrency: 1, Duration: mins(1)})},
			{op: "create", seq: 3, def: apDef(mins(10), mins(12), plan.RAll, one(1, 1, mins(1))),
				want: []plan.IntervalResource{ir(mins(11), mins(12), 1)}},
		}},
		{method: "testLeftSucceedsRightFails", blockers: apScenario2, wantLen: 2, ops: []yarnOp{
			{op: "create", seq: 1, left: true, def: apDef(mins(7), mins(16), plan.ROrder, one(20, 20, mins(2)), one(20, 20, mins(2))),
				want: []plan.IntervalResource{ir(mins(7), mins(11), 20)}},
			{op: "create", seq: 2, left: true, def: apDef(mins(14), mins(16), plan.ROrder, one(100, 100, mins(2))),
				want: []plan.IntervalResource{ir(mins(14), mins(16), 100)}},
			{op: "delete", seq: 1},
			{op: "delete", seq: 2},
			{op: "create", seq: 3, def: apDef(mins(7), mins(16), plan.ROrder, one(20, 20, mins(2)), one(20, 20, mins(2)))},
			{op: "create", seq: 4, def: apDef(mins(14), mins(16), plan.ROrder, one(100, 100, mins(2))), fail: true},
		}},
		fromClusterScript(),
	}
}

// fromClusterScript is testFromCluster: ten single-stage jobs taken from a
// real cluster trace, all accepted by agentRight.
func fromClusterScript() yarnScript {
	jobs := []struct{ arrival, deadline, containers, dur int64 }{
		{1425716392178, 1425722262791, 7, 587000},
		{1425716406178, 1425721255841, 6, 485000},
		{1425716399178, 1425723780138, 6, 738000},
		{1425716437178, 1425722968378, 7, 653000},
		{1425716406178, 1425721926090, 6, 552000},
		{1425716379178, 1425722238553, 6, 586000},
		{1425716407178, 1425722908317, 7, 650000},
		{1425716452178, 1425722841562, 6, 639000},
		{1425716384178, 1425721766129, 7, 538000},
		{1425716437178, 1425722507886, 5, 607000},
	}
	sc := yarnScript{method: "testFromCluster", wantLen: len(jobs)}
	for i, j := range jobs {
		sc.ops = append(sc.ops, yarnOp{op: "create", seq: int64(i + 1),
			def: apDef(j.arrival, j.deadline, plan.RAll, yarnStage(1, j.containers, 1, j.dur))})
	}
	return sc
}

func TestYARNParityAlignedPlanner(t *testing.T) {
	for _, period := range apRecurrences {
		for _, sc := range alignedScripts() {
			t.Run(fmt.Sprintf("%s/recurrence=%d", sc.method, period), func(t *testing.T) {
				p := yarnPlanStep(t, apStep, sc.blockers, period)
				agents := map[bool]*agent.TryMany{}
				for _, left := range []bool{true, false} {
					o := agent.DefaultConfig()
					o.FavorEarlyAllocation = left
					ag, err := agent.NewAlignedPlannerWithGreedy(o)
					require.NoError(t, err)
					agents[left] = ag
				}
				for k, op := range sc.ops {
					rid := plan.ReservationID{ClusterTimestamp: 2, Sequence: op.seq}
					ag := agents[op.left]
					def := op.def
					def.Period = period
					before := p.Snapshot()
					var err error
					switch op.op {
					case "create":
						err = ag.CreateReservation(p, rid, "u1", def)
					case "update":
						err = ag.UpdateReservation(p, rid, "u1", def)
					case "delete":
						err = ag.DeleteReservation(p, rid, "u1")
					}
					if op.fail {
						require.ErrorIs(t, err, berth.ErrNoPlacement, "op %d", k)
						assert.True(t, p.Equal(before), "op %d: a failed search leaves no trace", k)
						continue
					}
					require.NoError(t, err, "op %d", k)
					if op.want != nil {
						assert.Equal(t, op.want, blocks(t, p, rid), "op %d", k)
					}
				}
				assert.Equal(t, sc.wantLen, p.Len())
			})
		}
	}
}

// testSharingPolicyFeedback (TestGreedyReservationAgent): a
// CapacityOverTime policy at 40 % instantaneous and 40 % average over
// 100 s. Two 40-container jobs go side by side in time (the second pushed
// past the first); a 90-container job is refused.
func TestYARNParityGreedySharingPolicyFeedback(t *testing.T) {
	for _, period := range yarnRecurrences {
		for _, left := range []bool{true, false} {
			t.Run(fmt.Sprintf("allocateLeft=%v/recurrence=%d", left, period), func(t *testing.T) {
				cfg := plan.DefaultConfig("dedicated", berth.New(100*1024, 100), berth.NewManualClock(0))
				cfg.MaxAllocation = berth.New(8*1024, 8)
				pol, err := policy.NewCapacityOverTime(policy.CapacityOverTimeConfig{
					Window: 100_000, InstantaneousMaxPercent: 40, AveragePercent: 40})
				require.NoError(t, err)
				cfg.Policy = pol
				p, err := plan.New(cfg)
				require.NoError(t, err)
				for i, b := range basicPlan {
					var ivs []plan.IntervalResource
					for k, n := range b.counts {
						s := b.start + int64(k)*yarnStep
						ivs = append(ivs, ir(s, s+yarnStep, n))
					}
					a, err := plan.NewAllocation(plan.ReservationID{ClusterTimestamp: 1, Sequence: int64(i + 1)}, "u1",
						plan.Definition{}, berth.Interval{Start: b.start, End: b.start + int64(len(b.counts))*yarnStep}, ivs)
					require.NoError(t, err)
					require.NoError(t, p.AddReservation(a))
				}
				o := agent.DefaultConfig()
				o.FavorEarlyAllocation = left
				ag, err := agent.NewGreedy(o)
				require.NoError(t, err)
				def := plan.Definition{Arrival: sec(5), Deadline: sec(100), Period: period, Interpreter: plan.RAll,
					Stages: []plan.Stage{yarnStage(2, 20, 20, sec(10))}}
				r1, r2 := plan.ReservationID{ClusterTimestamp: 2, Sequence: 1}, plan.ReservationID{ClusterTimestamp: 2, Sequence: 2}
				require.NoError(t, ag.CreateReservation(p, r1, "u3", def))
				require.NoError(t, ag.CreateReservation(p, r2, "u3", def))
				// YARN leaves this request without a recurrence.
				big := plan.Definition{Arrival: sec(5), Deadline: sec(100), Interpreter: plan.RAll,
					Stages: []plan.Stage{yarnStage(2, 45, 45, sec(10))}}
				before := p.Snapshot()
				err = ag.CreateReservation(p, plan.ReservationID{ClusterTimestamp: 2, Sequence: 3}, "u3", big)
				require.Error(t, err)
				assert.True(t, errorsIsAny(err, berth.ErrNoPlacement, berth.ErrCapacityExceeded), "%v", err)
				assert.True(t, p.Equal(before))
				assert.Equal(t, 4, p.Len())
				if left {
					assert.Equal(t, []plan.IntervalResource{ir(sec(5), sec(15), 40)}, blocks(t, p, r1))
					assert.Equal(t, []plan.IntervalResource{ir(sec(15), sec(25), 40)}, blocks(t, p, r2))
				} else {
					assert.Equal(t, []plan.IntervalResource{ir(sec(90), sec(100), 40)}, blocks(t, p, r1))
					assert.Equal(t, []plan.IntervalResource{ir(sec(80), sec(90), 40)}, blocks(t, p, r2))
				}
			})
		}
	}
}

func errorsIsAny(err error, targets ...error) bool {
	for _, t := range targets {
		if errors.Is(err, t) {
			return true
		}
	}
	return false
}

// TestReservationAgents (YARN) submits random R_ORDER requests shaped on
// the plan's availability (for each segment of it, a stage asking for half
// of what is free there) to both agents × allocateLeft × recurrence and
// asserts only that planning failures are the only failures. This is the
// same generator with Go's seeded PRNG (YARN's java.util.Random draws are
// not reproduced), fewer requests to stay fast, and a stronger check: the
// plan never exceeds its capacity. With recurrence "0" YARN's generator
// bounds duration and window by the period, giving empty windows; here a
// non-periodic request is bounded by the 2-day horizon instead.
func TestYARNParityReservationAgents(t *testing.T) {
	const horizon = 2 * 24 * 3600 * 1000
	requests := 100
	if testing.Short() || raceEnabled {
		requests = 25
	}
	type mk func(agent.Config) (plan.Agent, error)
	agents := []struct {
		name string
		mk   mk
	}{
		{"GreedyReservationAgent", func(o agent.Config) (plan.Agent, error) { return agent.NewGreedy(o) }},
		{"AlignedPlannerWithGreedy", func(o agent.Config) (plan.Agent, error) { return agent.NewAlignedPlannerWithGreedy(o) }},
	}
	for _, a := range agents {
		for _, period := range []int64{0, 7_200_000, 86_400_000} {
			for _, left := range []bool{true, false} {
				t.Run(fmt.Sprintf("%s/allocateLeft=%v/recurrence=%d", a.name, left, period), func(t *testing.T) {
					cfg := plan.DefaultConfig("dedicated", berth.New(100*1024, 100), berth.NewManualClock(0))
					cfg.MaxAllocation = berth.New(32*1023, 32)
					cfg.Policy = policy.NoOverCommit{}
					p, err := plan.New(cfg)
					require.NoError(t, err)
					o := agent.DefaultConfig()
					o.FavorEarlyAllocation = left
					ag, err := a.mk(o)
					require.NoError(t, err)
					rng := rand.New(rand.NewPCG(2, uint64(period)))
					bound := int64(horizon)
					if period > 0 {
						bound = period
					}
					accepted := 0
					for i := 0; i < requests; i++ {
						arrival := int64(rng.Float64() * horizon)
						dur := min(int64(math.Round(rng.Float64()*3600*1000)), bound)
						deadline := int64(math.Ceil(float64(arrival) + math.Min(float64(dur)*rng.Float64()*10, float64(bound))))
						if deadline <= arrival {
							continue
						}
						w := berth.Interval{Start: arrival, End: deadline}
						avail, err := p.AvailableResources("u1", plan.ReservationID{}, w, period)
						require.NoError(t, err)
						var stages []plan.Stage
						for st := range avail.StepsIn(w) {
							if rng.Float64() <= 0.001 {
								continue
							}
							n := (st.Value.Memory/1024 + 1) / 2
							stages = append(stages, plan.Stage{Capability: berth.New(1024, 1), Containers: n,
								Concurrency: 1, Duration: min(dur, st.Interval.Len())})
						}
						if len(stages) == 0 {
							continue
						}
						def := plan.Definition{Arrival: arrival, Deadline: deadline, Period: period,
							Interpreter: plan.ROrder, Stages: stages}
						err = ag.CreateReservation(p, plan.ReservationID{ClusterTimestamp: 3, Sequence: int64(i + 1)}, "u1", def)
						if err == nil {
							accepted++
							continue
						}
						// YARN's PlanningException family: no placement, a
						// refusing policy, or an invalid stage (zero containers
						// where nothing is free, a zero duration).
						assert.True(t, errorsIsAny(err, berth.ErrNoPlacement, berth.ErrCapacityExceeded, berth.ErrInvalidArgument),
							"request %d: %v", i, err)
					}
					assert.Equal(t, accepted, p.Len())
					assert.Positive(t, accepted)
					for _, r := range p.All() {
						for _, e := range r.Intervals {
							at := e.Interval.Start
							assert.True(t, p.TotalCommitted(at).FitsIn(p.Capacity()), "over capacity at %d", at)
						}
					}
				})
			}
		}
	}
}
