package agent_test

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/agent"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/policy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tinyEpisode draws a few requests of every interpreter on a plan of a
// few containers, every time a multiple of the 1000 ms step inside
// [0, horizon steps): small enough to enumerate every placement.
func tinyEpisode(r *rand.Rand, horizon int64) agent.Episode {
	units := 1 + r.Int64N(3)
	cfg := plan.DefaultConfig("q", berth.New(1024*units, 2*units), berth.NewManualClock(0))
	cfg.MaxAllocation = berth.New(4096, 4)
	cfg.Policy = policy.NoOverCommit{}
	ep := agent.Episode{Config: cfg}
	for i := int64(0); i < 2+r.Int64N(2); i++ {
		a := r.Int64N(horizon - 1)
		d := a + 1 + r.Int64N(horizon-a)
		def := plan.Definition{Arrival: a * 1000, Deadline: d * 1000, Interpreter: interpreterOf(int64(r.IntN(4)))}
		gangs := int64(0)
		for k := 0; k < 1+r.IntN(2) && gangs < 3; k++ {
			conc := 1 + r.Int64N(2)
			m := 1 + r.Int64N(min(2, 3-gangs))
			gangs += m
			def.Stages = append(def.Stages, plan.Stage{Capability: berth.New(1024*(1+r.Int64N(2)), 1+r.Int64N(2)),
				Concurrency: conc, Containers: conc * m, Duration: (1 + r.Int64N(3)) * 1000})
		}
		ep.Requests = append(ep.Requests, agent.Request{ID: plan.ReservationID{ClusterTimestamp: 1, Sequence: i + 1},
			User: "u", Definition: def})
	}
	return ep
}

// bruteForceBest is the most memory and the most vcore area any choice of
// requests and placements reserves on a step-aligned episode, by
// enumeration: every gang starts at a step and runs its duration inside
// the window; R_ANY places one stage, R_ALL every stage, R_ORDER each
// stage after the previous one ends, R_ORDER_NO_GAP each stage as one
// block starting where the previous one ends; at every step the load
// stays within the capacity.
func bruteForceBest(ep agent.Episode, horizon int64) agent.Area {
	c := ep.Config.Capacity
	loadM := make([]int64, horizon)
	loadV := make([]int64, horizon)
	var best agent.Area
	var cur agent.Area
	// place tries to put r on [s, s+d) steps; it reports success.
	place := func(r berth.Resource, s, d int64, sign int64) bool {
		if sign > 0 {
			for t := s; t < s+d; t++ {
				if loadM[t]+r.Memory > c.Memory || loadV[t]+r.VCores > c.VCores {
					return false
				}
			}
		}
		for t := s; t < s+d; t++ {
			loadM[t] += sign * r.Memory
			loadV[t] += sign * r.VCores
		}
		cur.Memory += float64(sign * r.Memory * d * 1000)
		cur.VCores += float64(sign * r.VCores * d * 1000)
		return true
	}
	var request func(i int)
	// gangsOf enumerates the placements of the gangs of stage k of def
	// (gang g onwards) starting no earlier than from, and calls next with
	// the latest end of the stage's gangs.
	var gangsOf func(def plan.Definition, k int, g int64, from, end, latest int64, sameStart int64, next func(end int64))
	gangsOf = func(def plan.Definition, k int, g int64, from, end, latest int64, sameStart int64, next func(end int64)) {
		st := def.Stages[k]
		if g == st.Containers/st.Concurrency {
			next(latest)
			return
		}
		d := st.Duration / 1000
		gang := st.Capability.MulInt(st.Concurrency)
		for s := from; s+d <= end; s++ {
			if sameStart >= 0 && s != sameStart {
				continue
			}
			if !place(gang, s, d, 1) {
				continue
			}
			gangsOf(def, k, g+1, from, end, max(latest, s+d), sameStart, next)
			place(gang, s, d, -1)
		}
	}
	request = func(i int) {
		if i == len(ep.Requests) {
			best.Memory = max(best.Memory, cur.Memory)
			best.VCores = max(best.VCores, cur.VCores)
			return
		}
		request(i + 1) // rejected
		def := ep.Requests[i].Definition
		a, e := def.Arrival/1000, def.Deadline/1000
		var stage func(k int, from int64)
		stage = func(k int, from int64) {
			if k == len(def.Stages) {
				request(i + 1)
				return
			}
			switch def.Interpreter {
			case plan.RAll:
				gangsOf(def, k, 0, a, e, a, -1, func(int64) { stage(k+1, a) })
			case plan.ROrder:
				gangsOf(def, k, 0, from, e, from, -1, func(end int64) { stage(k+1, end) })
			case plan.ROrderNoGap:
				starts := []int64{from}
				if k == 0 {
					starts = starts[:0]
					for s := a; s < e; s++ {
						starts = append(starts, s)
					}
				}
				for _, s := range starts {
					gangsOf(def, k, 0, s, e, s, s, func(end int64) { stage(k+1, end) })
				}
			}
		}
		if def.Interpreter == plan.RAny {
			for k := range def.Stages {
				one := def
				one.Stages = def.Stages[k : k+1]
				gangsOf(one, 0, 0, a, e, a, -1, func(int64) { request(i + 1) })
			}
			return
		}
		stage(0, a)
	}
	request(0)
	return best
}

// Property: on tiny episodes of every interpreter, no choice of requests
// and placements (enumerated exhaustively) reserves more than UpperBound,
// in memory or in vcores, and neither does any agent.
func TestUpperBoundAboveBruteForce(t *testing.T) {
	rounds := 150
	if testing.Short() || raceEnabled {
		rounds = 40
	}
	const horizon = 6
	r := rand.New(rand.NewPCG(59, 61))
	var tight, total int
	for round := 0; round < rounds; round++ {
		ep := tinyEpisode(r, horizon)
		bound := agent.UpperBound(ep)
		best := bruteForceBest(ep, horizon)
		require.LessOrEqual(t, best.Memory, bound.Memory*(1+1e-9), "round %d: %+v", round, ep.Requests)
		require.LessOrEqual(t, best.VCores, bound.VCores*(1+1e-9), "round %d: %+v", round, ep.Requests)
		total++
		if best.Memory >= bound.Memory*(1-1e-9) {
			tight++
		}
		for _, a := range yardstickAgents(t) {
			rep, err := agent.Measure(a.agent, []agent.Episode{ep}, nil)
			require.NoError(t, err)
			require.LessOrEqual(t, rep.Reserved.Memory, bound.Memory*(1+1e-9), "%s round %d", a.name, round)
			require.LessOrEqual(t, rep.Reserved.VCores, bound.VCores*(1+1e-9), "%s round %d", a.name, round)
		}
	}
	// The bound is a relaxation, yet on most tiny episodes it is exact.
	assert.Greater(t, tight, total/3, "the bound is tight on %d of %d episodes", tight, total)
	t.Logf("bound equal to the brute-force optimum on %d of %d episodes", tight, total)
}

// Property: on random small streams of the W4 kind (every interpreter,
// gangs, times off the step), no agent reserves more than the bound, and
// the bound never exceeds the area offered (in vcores, the area of the
// stage with the most vcore area for R_ANY: OfferedArea counts the stage
// with the most memory, and an agent may place another).
func TestUpperBoundAboveAgents(t *testing.T) {
	rounds := 30
	if testing.Short() || raceEnabled {
		rounds = 8
	}
	r := rand.New(rand.NewPCG(67, 71))
	next := func(max int64) int64 { return r.Int64N(max + 1) }
	for round := 0; round < rounds; round++ {
		cfg := plan.DefaultConfig("q", berth.New(1024*(2+next(10)), 2+next(10)), berth.NewManualClock(0))
		cfg.MaxAllocation = berth.New(4096, 4)
		cfg.Policy = policy.NoOverCommit{}
		ep := agent.Episode{Config: cfg}
		for i := int64(0); i < 20; i++ {
			ep.Requests = append(ep.Requests, agent.Request{ID: plan.ReservationID{ClusterTimestamp: 1, Sequence: i + 1},
				User: "u", Definition: smallDefinition(next)})
		}
		bound := agent.UpperBound(ep)
		for _, a := range yardstickAgents(t) {
			rep, err := agent.Measure(a.agent, []agent.Episode{ep}, nil)
			require.NoError(t, err)
			require.LessOrEqual(t, rep.Reserved.Memory, bound.Memory*(1+1e-9), "%s round %d", a.name, round)
			require.LessOrEqual(t, rep.Reserved.VCores, bound.VCores*(1+1e-9), "%s round %d", a.name, round)
			require.LessOrEqual(t, bound.Memory, rep.Offered.Memory*(1+1e-9))
			require.LessOrEqual(t, bound.VCores, mostVCores(ep)*(1+1e-9))
		}
	}
}

// mostVCores is the vcore area the episode's requests could hold at most:
// OfferedArea, except that R_ANY counts its stage of most vcore area.
func mostVCores(ep agent.Episode) float64 {
	var sum float64
	for _, q := range ep.Requests {
		d := q.Definition
		if d.Interpreter != plan.RAny {
			sum += agent.OfferedArea(d, ep.Config.Step).VCores
			continue
		}
		var most float64
		for _, s := range d.Stages {
			one := d
			one.Stages = []plan.Stage{s}
			most = max(most, agent.OfferedArea(one, ep.Config.Step).VCores)
		}
		sum += most
	}
	return sum
}

// smallDefinition draws a definition of 1–3 stages on a horizon of about
// 60 s, times not always on the 1000 ms step.
func smallDefinition(next func(int64) int64) plan.Definition {
	arrival := next(40)*1000 + next(1)*next(999)
	def := plan.Definition{Arrival: arrival, Interpreter: interpreterOf(next(3))}
	var total int64
	for k := int64(0); k <= next(2); k++ {
		conc := 1 + next(2)
		d := 1 + next(8)*1000 + next(1)*next(999)
		def.Stages = append(def.Stages, plan.Stage{Capability: berth.New(1024*(1+next(1)), 1+next(1)),
			Concurrency: conc, Containers: conc * (1 + next(3)), Duration: d})
		total += d
	}
	def.Deadline = arrival + total*(100+next(300))/100 + next(1)*1000
	return def
}

// Fuzz: UpperBound on arbitrary small episodes never panics, is finite,
// not negative, at most the area offered (see mostVCores), and at least
// what the greedy agent reserves.
func FuzzUpperBound(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("\x05\x00\x01\x00\x10\x00\x03\x00\x02\x00\x01\x00\x03\x00\x02\x00\x01\x00\x02\x00"))
	f.Add([]byte("\xff\xff\xff\xff\x00\x00\x03\x00\x02\x00\x02\x00\x07\x00\x01\x00\x00\x00\x01\x00\x09\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		b := data
		next := func(max int64) int64 {
			if max <= 0 || len(b) < 2 {
				return 0
			}
			v := int64(b[0]) | int64(b[1])<<8
			b = b[2:]
			return v % (max + 1)
		}
		cfg := plan.DefaultConfig("q", berth.New(1024*(1+next(8)), 1+next(8)), berth.NewManualClock(0))
		cfg.MaxAllocation = berth.New(4096, 4)
		cfg.Policy = policy.NoOverCommit{}
		ep := agent.Episode{Config: cfg}
		p, err := plan.New(cfg)
		require.NoError(t, err)
		for i := int64(0); i < 6; i++ {
			def := smallDefinition(next)
			if err := plan.ValidateDefinition(&def, p.Limits(0)); err != nil {
				if !errors.Is(err, berth.ErrInvalidArgument) {
					t.Fatalf("validator: %v", err)
				}
				continue
			}
			ep.Requests = append(ep.Requests, agent.Request{ID: plan.ReservationID{ClusterTimestamp: 1, Sequence: i + 1},
				User: "u", Definition: def})
		}
		bound := agent.UpperBound(ep)
		g, err := agent.NewGreedy(agent.DefaultConfig())
		require.NoError(t, err)
		rep, err := agent.Measure(g, []agent.Episode{ep}, nil)
		require.NoError(t, err)
		if !(bound.Memory >= 0 && bound.VCores >= 0) || bound.Memory > rep.Offered.Memory*(1+1e-9) ||
			bound.VCores > mostVCores(ep)*(1+1e-9) {
			t.Fatalf("bound %+v outside [0, offered %+v]", bound, rep.Offered)
		}
		if rep.Reserved.Memory > bound.Memory*(1+1e-9) || rep.Reserved.VCores > bound.VCores*(1+1e-9) {
			t.Fatalf("greedy reserved %+v above the bound %+v", rep.Reserved, bound)
		}
	})
}
