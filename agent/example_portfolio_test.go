package agent_test

import (
	"fmt"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/agent"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/policy"
)

// The portfolio takes the largest alternative of an R_ANY that fits;
// YARN's agents take the first that fits in the order written.
func ExampleNewPortfolio() {
	def := plan.Definition{Arrival: 0, Deadline: 10_000, Interpreter: plan.RAny, Stages: []plan.Stage{
		{Capability: berth.New(1024, 1), Containers: 1, Concurrency: 1, Duration: 2000},
		{Capability: berth.New(1024, 1), Containers: 2, Concurrency: 2, Duration: 5000},
	}}
	yarn, err := agent.NewGreedy(agent.DefaultConfig())
	if err != nil {
		panic(err)
	}
	pf, err := agent.NewPortfolio(agent.DefaultConfig())
	if err != nil {
		panic(err)
	}
	for _, c := range []struct {
		name string
		ag   plan.Agent
	}{{"greedy", yarn}, {"portfolio", pf}} {
		cfg := plan.DefaultConfig("dedicated", berth.New(2048, 2), berth.NewManualClock(0))
		cfg.Policy = policy.NoOverCommit{}
		p, err := plan.New(cfg)
		if err != nil {
			panic(err)
		}
		id := plan.ReservationID{ClusterTimestamp: 1, Sequence: 1}
		if err := c.ag.CreateReservation(p, id, "alice", def); err != nil {
			fmt.Println(err)
			return
		}
		a, _ := p.Reservation(id)
		for _, e := range a.Intervals {
			fmt.Println(c.name, e.Interval, e.Resource)
		}
	}
	// Output:
	// greedy [0, 2000) <memory:1024, vCores:1>
	// portfolio [5000, 10000) <memory:2048, vCores:2>
}

// Measure runs an agent over a stream of requests; here three gangs of two
// containers compete for a plan of two over four seconds: two fit.
func ExampleMeasure() {
	cfg := plan.DefaultConfig("dedicated", berth.New(2048, 2), berth.NewManualClock(0))
	cfg.Policy = policy.NoOverCommit{}
	ep := agent.Episode{Config: cfg}
	for i := int64(1); i <= 3; i++ {
		ep.Requests = append(ep.Requests, agent.Request{
			ID: plan.ReservationID{ClusterTimestamp: 1, Sequence: i}, User: "u",
			Definition: plan.Definition{Arrival: 0, Deadline: 4000, Interpreter: plan.RAll,
				Stages: []plan.Stage{{Capability: berth.New(1024, 1), Containers: 2, Concurrency: 2, Duration: 2000}}},
		})
	}
	pf, err := agent.NewPortfolio(agent.DefaultConfig())
	if err != nil {
		panic(err)
	}
	// nil: no clock, so no timing; pass a closure over time.Since to time
	// each decision.
	r, err := agent.Measure(pf, []agent.Episode{ep}, nil)
	if err != nil {
		panic(err)
	}
	fmt.Printf("accepted %d of %d\n", r.Accepted, r.Requests)
	fmt.Printf("reserved %.0f %% of the area offered, bound %.0f %%\n",
		100*r.Reserved.Ratio(r.Offered).Memory, 100*r.Bound.Ratio(r.Offered).Memory)
	fmt.Printf("fragmentation %.2f\n", r.Fragmentation)
	// Output:
	// accepted 2 of 3
	// reserved 67 % of the area offered, bound 67 %
	// fragmentation 0.00
}
