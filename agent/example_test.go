package agent_test

import (
	"fmt"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/agent"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/policy"
)

// seedPlan is the seed article's queue: room for two containers of
// <1 GB, 1 vcore>, holding r2 on [t1, t2) (one container), r1 on [t2, t3)
// (two) and r0 on [t3, t4) (one), with t_i = i seconds.
func seedPlan() *plan.Plan {
	cfg := plan.DefaultConfig("dedicated", berth.New(2048, 2), berth.NewManualClock(0))
	cfg.Policy = policy.NoOverCommit{}
	p, err := plan.New(cfg)
	if err != nil {
		panic(err)
	}
	for i, r := range []struct{ start, end, n int64 }{{3000, 4000, 1}, {2000, 3000, 2}, {1000, 2000, 1}} {
		iv := berth.Interval{Start: r.start, End: r.end}
		a, err := plan.NewAllocation(plan.ReservationID{ClusterTimestamp: 1, Sequence: int64(i + 1)}, "other",
			plan.Definition{}, iv, []plan.IntervalResource{{Interval: iv, Resource: berth.New(1024, 1).MulInt(r.n)}})
		if err != nil {
			panic(err)
		}
		if err := p.AddReservation(a); err != nil {
			panic(err)
		}
	}
	return p
}

// The seed article's worked example: two containers for two steps between
// t0 and t5 land one on [t3, t5) and one on [t0, t2).
func ExampleLegacyGreedy() {
	p := seedPlan()
	def := plan.Definition{Arrival: 0, Deadline: 5000, Interpreter: plan.RAll,
		Stages: []plan.Stage{{Capability: berth.New(1024, 1), Containers: 2, Concurrency: 1, Duration: 2000}}}
	id := plan.ReservationID{ClusterTimestamp: 1, Sequence: 10}
	if err := (&agent.LegacyGreedy{}).CreateReservation(p, id, "alice", def); err != nil {
		fmt.Println(err)
		return
	}
	a, _ := p.Reservation(id)
	for _, e := range a.Intervals {
		fmt.Println(e.Interval, e.Resource)
	}
	// Output:
	// [0, 2000) <memory:1024, vCores:1>
	// [3000, 5000) <memory:1024, vCores:1>
}

// YARN's GreedyReservationAgent favours early allocation: batch after
// batch from the arrival on, each batch as large as fits everywhere in its
// window.
func ExampleNewGreedy() {
	p := seedPlan()
	ag, err := agent.NewGreedy(agent.DefaultConfig())
	if err != nil {
		panic(err)
	}
	def := plan.Definition{Arrival: 0, Deadline: 5000, Interpreter: plan.RAll,
		Stages: []plan.Stage{{Capability: berth.New(1024, 1), Containers: 2, Concurrency: 1, Duration: 2000}}}
	id := plan.ReservationID{ClusterTimestamp: 1, Sequence: 10}
	if err := ag.CreateReservation(p, id, "alice", def); err != nil {
		fmt.Println(err)
		return
	}
	a, _ := p.Reservation(id)
	for _, e := range a.Intervals {
		fmt.Println(e.Interval, e.Resource)
	}
	// A gang of two containers cannot fit anywhere.
	gang := def
	gang.Stages = []plan.Stage{{Capability: berth.New(1024, 1), Containers: 2, Concurrency: 2, Duration: 2000}}
	err = ag.CreateReservation(p, plan.ReservationID{ClusterTimestamp: 1, Sequence: 11}, "bob", gang)
	fmt.Println(err)
	// Output:
	// [0, 2000) <memory:1024, vCores:1>
	// [3000, 5000) <memory:1024, vCores:1>
	// IterativePlanner(unconstrained, greedy-RLE): stage 0: The request cannot be satisfied
}
