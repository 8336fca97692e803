package agent_test

import (
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/agent"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/policy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Workload W4 (WORKLOADS.md, section W4): mixed reservation requests on plans of 4
// to 64 nodes, drawn from one splitmix64 stream.
const (
	w4Seed     = 4
	w4Episodes = 50
	w4Requests = 100
)

// w4Stream draws the episodes of W4 in order; the first n episodes when
// n < w4Episodes.
func w4Stream(n int) []agent.Episode {
	r := &splitmix64{x: w4Seed}
	out := make([]agent.Episode, 0, n)
	for e := 0; e < w4Episodes && e < n; e++ {
		nodes := r.uniform(4, 64)
		cfg := plan.DefaultConfig("dedicated", berth.New(8192*nodes, 8*nodes), berth.NewManualClock(0))
		cfg.MaxAllocation = berth.New(8192, 8)
		cfg.Policy = policy.NoOverCommit{}
		ep := agent.Episode{Config: cfg}
		for i := 0; i < w4Requests; i++ {
			user := "u" + string(rune('0'+r.uniform(0, 4)))
			interp := interpreterOf(r.uniform(0, 3)) // a YARN code
			nStages := r.uniform(1, 3)
			arrival := r.uniform(0, 86_399_999)
			def := plan.Definition{Arrival: arrival, Interpreter: interp}
			var total int64
			for s := int64(0); s < nStages; s++ {
				mem := r.uniform(1, 8) * 1024
				vc := r.uniform(1, 4)
				gang := int64(1)
				if r.uniform(0, 1) == 1 {
					gang = r.uniform(2, 4)
				}
				containers := gang * r.uniform(1, 6)
				dur := r.uniform(1, 7200)*1000 + r.uniform(0, 999)
				def.Stages = append(def.Stages, plan.Stage{Capability: berth.New(mem, vc),
					Containers: containers, Concurrency: gang, Duration: dur})
				total += dur
			}
			var slack int64
			if r.uniform(0, 1) == 1 {
				slack = r.uniform(100, 150) // tight
			} else {
				slack = r.uniform(200, 1000) // loose
			}
			def.Deadline = arrival + total*slack/100 + 1000
			ep.Requests = append(ep.Requests, agent.Request{
				ID:   plan.ReservationID{ClusterTimestamp: 4, Sequence: int64(e*w4Requests + i + 1)},
				User: user, Definition: def})
		}
		out = append(out, ep)
	}
	return out
}

// w4Checksum folds every drawn number of the stream, in draw order, into
// one value (see WORKLOADS.md, section W4).
func w4Checksum(stream []agent.Episode) uint64 {
	var h uint64
	mix := func(v int64) { h = h*31 + uint64(v) }
	for _, ep := range stream {
		mix(ep.Config.Capacity.Memory / 8192)
		for _, q := range ep.Requests {
			d := q.Definition
			mix(int64(q.User[1] - '0'))
			mix(int64(d.Interpreter.Code()))
			mix(int64(len(d.Stages)))
			mix(d.Arrival)
			for _, s := range d.Stages {
				mix(s.Capability.Memory)
				mix(s.Capability.VCores)
				mix(s.Concurrency)
				mix(s.Containers)
				mix(s.Duration)
			}
			mix(d.Deadline)
		}
	}
	return h
}

// TestW4Checksum pins the generator to WORKLOADS.md, section W4: the checksum of
// the draws, the number of nodes over all plans and the area offered.
func TestW4Checksum(t *testing.T) {
	s := w4Stream(w4Episodes)
	require.Len(t, s, w4Episodes)
	n, nodes := 0, int64(0)
	var offered agent.Area
	for _, ep := range s {
		n += len(ep.Requests)
		nodes += ep.Config.Capacity.Memory / 8192
		for _, q := range ep.Requests {
			o := agent.OfferedArea(q.Definition, ep.Config.Step)
			offered.Memory += o.Memory
			offered.VCores += o.VCores
		}
	}
	require.Equal(t, w4Episodes*w4Requests, n)
	assert.Equal(t, uint64(0x88c327673026dd63), w4Checksum(s))
	assert.Equal(t, int64(1777), nodes)
	assert.InDelta(t, 1.096926596096e15, offered.Memory, 1)
	assert.InDelta(t, 5.87128169e11, offered.VCores, 1)
	t.Logf("offered %.0f MB·ms, %.0f vcore·ms", offered.Memory, offered.VCores)
	// The first request, as the document spells it out.
	d := s[0].Requests[0].Definition
	t.Logf("first: nodes %d user %s %v %d stages [%d, %d) %+v", s[0].Config.Capacity.Memory/8192, s[0].Requests[0].User, d.Interpreter, len(d.Stages), d.Arrival, d.Deadline, d.Stages)
}

// interpreterOf is the interpreter of a YARN code drawn in 0–3.
func interpreterOf(code int64) plan.Interpreter {
	i, err := plan.InterpreterOf(code)
	if err != nil {
		panic(err)
	}
	return i
}
