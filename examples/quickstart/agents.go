package main

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/agent"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/policy"
)

// agentStream is the request stream of step 9, shaped like the
// yardstick's mixed stream W4 (package agent): 120 requests arriving over
// 12 hours at a plan of 32 containers, each of one to three stages of 1
// to 8 containers (gangs of 2 to 4 or independent) lasting 5 to 90
// minutes, under any of the four interpreters, with a tight or a loose
// window, drawn from a fixed seed so the tour replays exactly.
func agentStream() agent.Episode {
	const minute = 60_000 // ms
	rng := rand.New(rand.NewPCG(9, 9))
	cfg := plan.DefaultConfig("dedicated", container.MulInt(32), berth.NewManualClock(0))
	cfg.Policy = policy.NoOverCommit{}
	ep := agent.Episode{Config: cfg}
	interpreters := []plan.Interpreter{plan.RAny, plan.RAll, plan.ROrder, plan.ROrderNoGap}
	for i := range 120 {
		def := plan.Definition{Interpreter: interpreters[rng.IntN(4)], Arrival: berth.Time(rng.Int64N(12 * 60 * minute))}
		var total berth.Duration
		for range 1 + rng.IntN(3) {
			gang := int64(1)
			if rng.IntN(2) == 1 {
				gang = 2 + rng.Int64N(3)
			}
			d := berth.Duration(5+rng.Int64N(86)) * minute
			total += d
			def.Stages = append(def.Stages, plan.Stage{Capability: container, Containers: gang * (1 + rng.Int64N(4)), Concurrency: gang, Duration: d})
		}
		slack := 200 + rng.Int64N(801) // percent
		if rng.IntN(2) == 1 {
			slack = 100 + rng.Int64N(51)
		}
		def.Deadline = def.Arrival + total*slack/100 + minute
		ep.Requests = append(ep.Requests, agent.Request{
			ID:         plan.ReservationID{ClusterTimestamp: 1700000000000, Sequence: int64(i + 1)},
			User:       fmt.Sprint("u", rng.IntN(4)),
			Definition: def,
		})
	}
	return ep
}

// stepAgents serves one stream with YARN's agents and with LeastWaste,
// Berth's agent that weighs the free capacity a placement strands, and
// prints what each reserved of the area asked, beside the upper bound no
// agent can beat (agent.Measure, agent.UpperBound).
func stepAgents(w io.Writer) error {
	ep := agentStream()
	late := agent.DefaultConfig()
	late.FavorEarlyAllocation = false
	type named struct {
		name string
		yarn bool
		make func() (plan.Agent, error)
	}
	agents := []named{
		{"GreedyReservationAgent", true, func() (plan.Agent, error) { return agent.NewGreedy(agent.DefaultConfig()) }},
		{"  allocating late", true, func() (plan.Agent, error) { return agent.NewGreedy(late) }},
		{"AlignedPlannerWithGreedy", true, func() (plan.Agent, error) { return agent.NewAlignedPlannerWithGreedy(agent.DefaultConfig()) }},
		{"LeastWaste (Berth)", false, func() (plan.Agent, error) {
			return agent.NewLeastWaste(agent.LeastWasteConfig{Config: agent.DefaultConfig()})
		}},
	}
	fmt.Fprintf(w, "%d requests over 12 h to a plan of 32 containers; area reserved of the area asked:\n", len(ep.Requests))
	var yarnBest, ours, bound float64
	for _, a := range agents {
		ag, err := a.make()
		if err != nil {
			return err
		}
		r, err := agent.Measure(ag, []agent.Episode{ep}, nil)
		if err != nil {
			return err
		}
		f := r.Reserved.Ratio(r.Offered).Memory
		bound = r.Bound.Ratio(r.Offered).Memory
		fmt.Fprintf(w, "  %-26s %3d accepted  %5.1f %%\n", a.name, r.Accepted, 100*f)
		if a.yarn {
			yarnBest = max(yarnBest, f)
		} else {
			ours = f
		}
	}
	fmt.Fprintf(w, "  %-26s               %5.1f %%\n", "upper bound (no agent beats)", 100*bound)
	if yarnBest <= 0 {
		return errors.New("YARN's agents reserved nothing")
	}
	fmt.Fprintf(w, "LeastWaste reserves %.1f %% more area than the best of YARN's agents, %.1f %% of the bound\n",
		100*(ours/yarnBest-1), 100*ours/bound)
	return nil
}
