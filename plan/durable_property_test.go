package plan_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/agent"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/policy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// builtinResolver rebuilds the built-in agents, policies and replanners
// from what a snapshot recorded of them.
var builtinResolver = plan.ResolverFunc(func(s plan.PlanSpec) (plan.PlanParts, error) {
	ag, err := agent.Resolve(s.Agent)
	if err != nil {
		return plan.PlanParts{}, err
	}
	pol, err := policy.Resolve(s.Policy)
	if err != nil {
		return plan.PlanParts{}, err
	}
	rp, err := policy.ResolveReplanner(s.Replanner)
	if err != nil {
		return plan.PlanParts{}, err
	}
	return plan.PlanParts{Agent: ag, Policy: pol, Replanner: rp}, nil
})

const (
	hour   = 3_600_000
	minute = 60_000
)

var snapQueues = []string{"alpha", "beta", "gamma"}

// world is a reservation system driven by the host's calls.
type world struct {
	s     *plan.System
	clock *berth.ManualClock
	ids   []plan.ReservationID // issued, in order
	stats map[string]int       // what the calls did, for coverage
}

// newWorld builds three plans with different built-ins: YARN's default
// agent, CapacityOverTime and the replanner; the greedy agent,
// NoOverCommit, DRF and the replanner; the portfolio agent, the exact
// average check and no replanner.
func newWorld(t testing.TB) *world {
	clock := berth.NewManualClock(0)
	s, err := plan.NewSystem(plan.SystemConfig{ClusterTimestamp: 1700000000000, Clock: clock})
	require.NoError(t, err)
	must := func(v any, err error) any { require.NoError(t, err); return v }
	cot := policy.DefaultCapacityOverTimeConfig()
	cot.Window, cot.InstantaneousMaxPercent, cot.AveragePercent = 4*hour, 70, 45
	exact := cot
	exact.ExactAverage = true
	late := agent.DefaultConfig()
	late.FavorEarlyAllocation = false
	rp := must(policy.NewSimpleCapacityReplanner(policy.ReplannerConfig{EnforcementWindow: 2 * hour})).(*policy.SimpleCapacityReplanner)
	for i, q := range snapQueues {
		cfg := plan.DefaultConfig(q, berth.New(64*1024, 64), clock)
		cfg.Step, cfg.MaxPeriodicity = minute, 24*hour
		switch i {
		case 0:
			cfg.Agent = must(agent.NewAlignedPlannerWithGreedy(agent.DefaultConfig())).(plan.Agent)
			cfg.Policy = must(policy.NewCapacityOverTime(cot)).(plan.SharingPolicy)
			cfg.Replanner = rp
		case 1:
			cfg.Agent = must(agent.NewGreedy(late)).(plan.Agent)
			cfg.Policy = policy.NoOverCommit{}
			cfg.Calculator = berth.DominantCalculator{}
			cfg.Replanner = rp
			cfg.MoveOnExpiry = false
		case 2:
			cfg.Agent = must(agent.NewPortfolio(agent.DefaultConfig())).(plan.Agent)
			cfg.Policy = must(policy.NewCapacityOverTime(exact)).(plan.SharingPolicy)
			cfg.ExactPeriodicMin = true
		}
		p, err := plan.New(cfg)
		require.NoError(t, err)
		require.NoError(t, s.AddPlan(p))
	}
	return &world{s: s, clock: clock, stats: map[string]int{}}
}

func (w *world) save(t testing.TB) []byte {
	var buf bytes.Buffer
	require.NoError(t, w.s.SaveState(&buf))
	return buf.Bytes()
}

func restoreWorld(t testing.TB, snap []byte, now berth.Time, ids []plan.ReservationID) *world {
	clock := berth.NewManualClock(now)
	s, err := plan.RestoreSystem(bytes.NewReader(snap), plan.RestoreEnv{Clock: clock, Resolver: builtinResolver})
	require.NoError(t, err)
	return &world{s: s, clock: clock, ids: append([]plan.ReservationID(nil), ids...), stats: map[string]int{}}
}

// op is one host call, generated as data so that two worlds can be fed
// the same calls.
type op struct {
	kind     int
	queue    int
	pick     int
	user     string
	def      plan.Definition
	dt       berth.Duration
	capacity berth.Resource
}

func randomDef(rng *rand.Rand) plan.Definition {
	arrival := berth.Time(rng.IntN(6*60)) * minute // relative to now
	var stages []plan.Stage
	var total berth.Duration
	for k := 1 + rng.IntN(3); k > 0; k-- {
		gang := int64(1 + rng.IntN(3))
		cpu := int64(1 + rng.IntN(4))
		d := berth.Duration(1+rng.IntN(90)) * minute
		total += d
		stages = append(stages, plan.Stage{Capability: berth.New(1024*int64(1+rng.IntN(4)), cpu),
			Containers: gang * int64(1+rng.IntN(8)), Concurrency: gang, Duration: d})
	}
	def := plan.Definition{Arrival: arrival, Deadline: arrival + total + berth.Duration(rng.IntN(4*60))*minute,
		Interpreter: []plan.Interpreter{plan.RAny, plan.RAll, plan.ROrder, plan.ROrderNoGap}[rng.IntN(4)], Stages: stages, Priority: int32(rng.IntN(3)),
		Name: fmt.Sprint("job", rng.IntN(100))}
	if rng.IntN(8) == 0 && def.Deadline-def.Arrival <= 6*hour {
		def.Period = 6 * hour
	}
	return def
}

func randomOps(rng *rand.Rand, n int) []op {
	out := make([]op, n)
	for i := range out {
		o := op{kind: rng.IntN(15), queue: rng.IntN(len(snapQueues)), pick: rng.IntN(1 << 20),
			user: fmt.Sprint("u", rng.IntN(4)), def: randomDef(rng),
			dt:       berth.Duration(rng.IntN(60)) * minute,
			capacity: berth.New(int64(1024*(8+rng.IntN(72))), int64(8+rng.IntN(72)))}
		if rng.IntN(2) == 0 { // back to the full plan queue
			o.capacity = berth.New(64*1024, 64)
		}
		out[i] = o
	}
	return out
}

// apply makes the call o and returns a record of every decision it
// produced: errors, ids, placements with their acceptance times,
// archived and replanned-away reservations.
func (w *world) apply(o op) string {
	now := w.clock.Now()
	def := o.def.Clone()
	def.Arrival += now
	def.Deadline += now
	q := snapQueues[o.queue]
	pick := func() plan.ReservationID {
		if len(w.ids) == 0 {
			return plan.ReservationID{ClusterTimestamp: 1, Sequence: 1}
		}
		return w.ids[o.pick%len(w.ids)]
	}
	placed := func(id plan.ReservationID) string {
		qq, ok := w.s.QueueOf(id)
		if !ok {
			return "no queue"
		}
		p, _ := w.s.Plan(qq)
		a, ok := p.Reservation(id)
		if !ok {
			return "not placed"
		}
		return fmt.Sprintf("%s %d [%d,%d) %v", qq, a.AcceptedAt, a.Start, a.End, a.Intervals)
	}
	switch o.kind {
	case 0, 1, 2, 3, 4, 5:
		id := w.s.NewReservationID()
		w.ids = append(w.ids, id)
		err := w.s.Submit(plan.SubmissionRequest{Queue: q, ID: id, Definition: &def, User: o.user})
		w.count("submit", err)
		return fmt.Sprintf("submit %v: %v; %s", id, err, placed(id))
	case 6: // resubmission: idempotent, a conflict, or another queue
		id := pick()
		err := w.s.Submit(plan.SubmissionRequest{Queue: q, ID: id, Definition: &def, User: o.user})
		return fmt.Sprintf("resubmit %v: %v; %s", id, err, placed(id))
	case 7, 8:
		id := pick()
		err := w.s.Update(plan.UpdateRequest{ID: id, Definition: &def, User: o.user})
		w.count("update", err)
		return fmt.Sprintf("update %v: %v; %s", id, err, placed(id))
	case 9:
		id := pick()
		return fmt.Sprintf("delete %v: %v", id, w.s.Delete(plan.DeleteRequest{ID: id, User: o.user}))
	case 10, 11: // the clock advances; completed reservations expire
		w.clock.Advance(o.dt)
		ids, err := w.s.ArchiveCompleted(w.clock.Now())
		w.stats["archived"] += len(ids)
		return fmt.Sprintf("archive at %d: %v %v", w.clock.Now(), ids, err)
	case 12: // the plan queue's capacity changes; the replanner repairs
		p, _ := w.s.Plan(q)
		if err := p.SetCapacity(o.capacity); err != nil {
			return err.Error()
		}
		var err error
		before := p.Len()
		if rp := p.Replanner(); rp != nil {
			err = rp.Plan(p, nil, now)
		}
		w.stats["replanned away"] += before - p.Len()
		return fmt.Sprintf("capacity %s %v: %v; %d left", q, o.capacity, err, p.Len())
	default:
		res, err := w.s.List(plan.ListRequest{Queue: q, Start: now, End: now + 8*hour, IncludeAllocations: true})
		return fmt.Sprintf("list %s: %v %v", q, res, err)
	}
}

func (w *world) count(what string, err error) {
	if err != nil {
		what += " refused"
	}
	w.stats[what]++
}

// TestPropertySnapshotContinues is the durable-state contract: after
// random calls, a system restored from a snapshot makes the same decisions
// as the original on the same further calls, and their later snapshots are
// byte-identical. The restored plans' indexes equal the original's
// exactly right after the restore.
func TestPropertySnapshotContinues(t *testing.T) {
	seeds := 6
	if testing.Short() || raceEnabled {
		seeds = 2
	}
	for seed := 1; seed <= seeds; seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(seed), 11))
			orig := newWorld(t)
			for _, o := range randomOps(rng, 150+rng.IntN(100)) {
				orig.apply(o)
			}
			worlds := []*world{orig}
			for round := 0; round < 3; round++ {
				// Restore the latest world and check its plans.
				last := worlds[len(worlds)-1]
				snap := last.save(t)
				w := restoreWorld(t, snap, last.clock.Now(), last.ids)
				for _, p := range last.s.Plans() {
					q, ok := w.s.Plan(p.QueueName())
					require.True(t, ok)
					require.NoError(t, plan.CheckState(q))
					require.NoError(t, plan.StatesEqual(p, q), "round %d plan %s", round, p.QueueName())
				}
				require.Equal(t, snap, w.save(t), "round %d: a restored system saves the same bytes", round)
				worlds = append(worlds, w)
				for i, o := range randomOps(rng, 60+rng.IntN(60)) {
					want := worlds[0].apply(o)
					for k, w := range worlds[1:] {
						require.Equal(t, want, w.apply(o), "round %d, call %d, restored world %d", round, i, k+1)
					}
				}
				want := worlds[0].save(t)
				for k, w := range worlds[1:] {
					assert.Equal(t, want, w.save(t), "round %d: snapshot of restored world %d", round, k+1)
				}
			}
			// The scenario exercised every kind of decision.
			for _, k := range []string{"submit", "submit refused", "update", "update refused", "archived", "replanned away"} {
				assert.NotZero(t, orig.stats[k], "%s: %v", k, orig.stats)
			}
		})
	}
}
