package agent_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/agent"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/policy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// maxFlowBound is the reference for UpperBound on slot-aligned episodes
// (jobs are {arrival slot, deadline slot, work, rate}): the fluid
// relaxation as a max flow from the requests (capacity: their work) to the
// 1000 ms slots of their windows, by augmenting paths. A slot carries
// 1000 × min(capacity, the rates of the requests whose window holds it);
// with perJob, each request also sends a slot at most 1000 × its rate (a
// stronger relaxation that UpperBound does not solve, only bounds).
func maxFlowBound(capacity int64, jobs [][4]int64, perJob bool) int64 {
	nSlots := int64(0)
	for _, j := range jobs {
		nSlots = max(nSlots, j[1])
	}
	// Nodes: 0 source, 1..len(jobs) jobs, then slots, then sink.
	n := 2 + len(jobs) + int(nSlots)
	sink := n - 1
	c := make([][]int64, n)
	for i := range c {
		c[i] = make([]int64, n)
	}
	for i, j := range jobs {
		c[0][1+i] = j[2]
		for s := j[0]; s < j[1]; s++ {
			c[1+i][1+len(jobs)+int(s)] = 1 << 62
			if perJob {
				c[1+i][1+len(jobs)+int(s)] = j[3] * 1000
			}
		}
	}
	for s := 0; s < int(nSlots); s++ {
		var active int64
		for _, j := range jobs {
			if j[0] <= int64(s) && int64(s) < j[1] {
				active += j[3]
			}
		}
		c[1+len(jobs)+s][sink] = min(capacity, active) * 1000
	}
	var flow int64
	for {
		prev := make([]int, n)
		for i := range prev {
			prev[i] = -1
		}
		prev[0] = 0
		queue := []int{0}
		for len(queue) > 0 && prev[sink] < 0 {
			u := queue[0]
			queue = queue[1:]
			for v := 0; v < n; v++ {
				if prev[v] < 0 && c[u][v] > 0 {
					prev[v] = u
					queue = append(queue, v)
				}
			}
		}
		if prev[sink] < 0 {
			return flow
		}
		aug := int64(1 << 62)
		for v := sink; v != 0; v = prev[v] {
			aug = min(aug, c[prev[v]][v])
		}
		for v := sink; v != 0; v = prev[v] {
			c[prev[v]][v] -= aug
			c[v][prev[v]] += aug
		}
		flow += aug
	}
}

// Property: on random slot-aligned episodes UpperBound equals the max flow
// of its relaxation with a rate limit per request, computed here slot by
// slot (UpperBound cuts time only at window ends), and is at most the
// looser relaxation with one rate limit for all the open requests.
func TestUpperBoundMatchesMaxFlow(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	for round := 0; round < 300; round++ {
		capMem := 1024 * (1 + r.Int64N(4))
		cfg := plan.DefaultConfig("q", berth.New(capMem, capMem/1024), berth.NewManualClock(0))
		ep := agent.Episode{Config: cfg}
		var jobs [][4]int64
		for i := 0; i < 1+r.IntN(7); i++ {
			a := r.Int64N(12)
			d := a + 1 + r.Int64N(8)
			n := 1 + r.Int64N(3)
			dur := 1 + r.Int64N(d-a)
			def := plan.Definition{Arrival: a * 1000, Deadline: d * 1000, Interpreter: plan.RAll,
				Stages: []plan.Stage{{Capability: berth.New(1024, 1), Containers: n, Concurrency: 1, Duration: dur * 1000}}}
			ep.Requests = append(ep.Requests, agent.Request{Definition: def})
			jobs = append(jobs, [4]int64{a, d, 1024 * n * dur * 1000, 1024 * n})
		}
		got := agent.UpperBound(ep)
		want := float64(maxFlowBound(capMem, jobs, true))
		require.InDelta(t, want, got.Memory, 1e-6*want+1e-6, "round %d: %v", round, jobs)
		require.InDelta(t, want/1024, got.VCores, 1e-6*want+1e-6, "round %d", round)
		looser := float64(maxFlowBound(capMem, jobs, false))
		require.LessOrEqual(t, got.Memory, looser*(1+1e-9), "round %d", round)
	}
}

// fragmentationReference computes 1 − largest free rectangle / free area
// over unit slots by brute force.
func fragmentationReference(free []int64) float64 {
	var total, best int64
	for i := range free {
		total += free[i]
		h := free[i]
		for j := i; j < len(free); j++ {
			h = min(h, free[j])
			best = max(best, h*int64(j-i+1))
		}
	}
	if total == 0 {
		return 0
	}
	return 1 - float64(best)/float64(total)
}

// Property: Fragmentation agrees with the brute-force reference on random
// plans, and is 0 on an empty plan.
func TestFragmentationMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 9))
	for round := 0; round < 200; round++ {
		capN := 1 + r.Int64N(6)
		cfg := plan.DefaultConfig("q", berth.New(1024*capN, capN), berth.NewManualClock(0))
		p, err := plan.New(cfg)
		require.NoError(t, err)
		const slots = 16
		load := make([]int64, slots)
		for k := int64(1); k <= int64(r.IntN(8)); k++ {
			s := r.Int64N(slots)
			e := s + 1 + r.Int64N(slots-s)
			n := 1 + r.Int64N(capN)
			ok := true
			for i := s; i < e; i++ {
				ok = ok && load[i]+n <= capN
			}
			if !ok {
				continue
			}
			iv := berth.Interval{Start: s * 1000, End: e * 1000}
			a, err := plan.NewAllocation(plan.ReservationID{ClusterTimestamp: 1, Sequence: k}, "u", plan.Definition{}, iv,
				[]plan.IntervalResource{{Interval: iv, Resource: berth.New(1024*n, n)}})
			require.NoError(t, err)
			require.NoError(t, p.AddReservation(a))
			for i := s; i < e; i++ {
				load[i] += n
			}
		}
		free := make([]int64, slots)
		for i := range free {
			free[i] = capN - load[i]
		}
		got, err := agent.Fragmentation(p, berth.Interval{Start: 0, End: slots * 1000})
		require.NoError(t, err)
		require.InDelta(t, fragmentationReference(free), got, 1e-12, "free %v", free)
	}
	p, err := plan.New(plan.DefaultConfig("q", berth.New(4096, 4), berth.NewManualClock(0)))
	require.NoError(t, err)
	f, err := agent.Fragmentation(p, berth.Interval{Start: 0, End: 10_000})
	require.NoError(t, err)
	assert.Zero(t, f)
}

func TestMeasure(t *testing.T) {
	cfg := plan.DefaultConfig("q", berth.New(2048, 2), berth.NewManualClock(0))
	cfg.Policy = policy.NoOverCommit{}
	one := func(seq, containers int64) agent.Request {
		return agent.Request{ID: plan.ReservationID{ClusterTimestamp: 1, Sequence: seq}, User: "u",
			Definition: plan.Definition{Arrival: 0, Deadline: 4000, Interpreter: plan.RAll,
				Stages: []plan.Stage{{Capability: berth.New(1024, 1), Containers: containers, Concurrency: containers, Duration: 2000}}}}
	}
	stream := []agent.Episode{{Config: cfg, Requests: []agent.Request{one(1, 2), one(2, 2), one(3, 2), one(4, 1)}}}
	ag, err := agent.NewGreedy(agent.DefaultConfig())
	require.NoError(t, err)
	var tick time.Duration
	clock := func() time.Duration { tick += time.Microsecond; return tick }
	r, err := agent.Measure(ag, stream, clock)
	require.NoError(t, err)
	assert.Equal(t, 4, r.Requests)
	assert.Equal(t, 2, r.Accepted, "two gangs of two fill the plan")
	assert.Equal(t, agent.Area{Memory: 2 * 2048 * 2000, VCores: 2 * 2 * 2000}, r.Reserved)
	assert.Equal(t, agent.Area{Memory: 7 * 1024 * 2000, VCores: 7 * 2000}, r.Offered)
	assert.InDelta(t, 2048*4000, r.Bound.Memory, 1e-3, "the plan's capacity over the window")
	assert.InDelta(t, 2*4000, r.Bound.VCores, 1e-6)
	assert.Equal(t, time.Microsecond, r.MeanDecision)
	assert.Equal(t, time.Microsecond, r.P99Decision)
	assert.Zero(t, r.Fragmentation, "the plan is full")

	// Without a clock nothing is timed; the decisions are the same.
	r2, err := agent.Measure(ag, stream, nil)
	require.NoError(t, err)
	assert.Equal(t, r.Accepted, r2.Accepted)
	assert.Zero(t, r2.MeanDecision)

	// A request that is not a planning failure stops the run.
	bad := stream[0]
	bad.Requests = append([]agent.Request{{ID: plan.ReservationID{ClusterTimestamp: 1, Sequence: 9}, User: "u",
		Definition: plan.Definition{Arrival: 0, Deadline: 10}}}, bad.Requests...)
	_, err = agent.Measure(ag, []agent.Episode{bad}, nil)
	require.ErrorIs(t, err, berth.ErrInvalidArgument)
	assert.Contains(t, err.Error(), "episode 0 request 0")
}

func TestOfferedArea(t *testing.T) {
	st := func(mem, vc, n, dur int64) plan.Stage {
		return plan.Stage{Capability: berth.New(mem, vc), Containers: n, Concurrency: 1, Duration: dur}
	}
	def := plan.Definition{Interpreter: plan.RAll, Stages: []plan.Stage{st(1024, 1, 2, 1500), st(2048, 4, 1, 1000)}}
	assert.Equal(t, agent.Area{Memory: 1024*2*2000 + 2048*1000, VCores: 2*2000 + 4*1000}, agent.OfferedArea(def, 1000),
		"durations round up to the step")
	def.Interpreter = plan.RAny
	assert.Equal(t, agent.Area{Memory: 1024 * 2 * 2000, VCores: 2 * 2000}, agent.OfferedArea(def, 1000), "R_ANY: the largest stage")
	assert.Equal(t, agent.Area{Memory: 0.5, VCores: 0}, agent.Area{Memory: 1, VCores: 1}.Ratio(agent.Area{Memory: 2}))
}
