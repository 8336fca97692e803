package plan_test

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/agent"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/policy"
)

// A reservation system is saved, restored on another "machine" with the
// built-in agent and policy rebuilt from the snapshot, and carries on: the
// restored system knows the reservation, continues the id sequence and
// decides the next submission as the original would.
func ExampleRestoreSystem() {
	clock := berth.NewManualClock(0)
	sys, _ := plan.NewSystem(plan.SystemConfig{ClusterTimestamp: 1700000000000, Clock: clock})
	cfg := plan.DefaultConfig("dedicated", berth.New(8*1024, 8), clock)
	cfg.Agent, _ = agent.NewGreedy(agent.DefaultConfig())
	cfg.Policy = policy.NoOverCommit{}
	p, _ := plan.New(cfg)
	_ = sys.AddPlan(p)

	// Six 1 GB containers for an hour, within the next two.
	def := plan.Definition{Arrival: 0, Deadline: 7_200_000, Interpreter: plan.RAll,
		Stages: []plan.Stage{{Capability: berth.New(1024, 1), Containers: 6, Concurrency: 1, Duration: 3_600_000}}}
	id := sys.NewReservationID()
	fmt.Println("submit", id, sys.Submit(plan.SubmissionRequest{Queue: "dedicated", ID: id, Definition: &def, User: "alice"}))

	var snap bytes.Buffer
	if err := sys.SaveState(&snap); err != nil {
		fmt.Println(err)
		return
	}

	// The host rebuilds the built-ins from what the snapshot recorded.
	resolve := plan.ResolverFunc(func(s plan.PlanSpec) (plan.PlanParts, error) {
		ag, err := agent.Resolve(s.Agent)
		if err != nil {
			return plan.PlanParts{}, err
		}
		pol, err := policy.Resolve(s.Policy)
		return plan.PlanParts{Agent: ag, Policy: pol}, err
	})
	restored, err := plan.RestoreSystem(&snap, plan.RestoreEnv{Clock: berth.NewManualClock(clock.Now()), Resolver: resolve})
	if err != nil {
		fmt.Println(err)
		return
	}
	q, _ := restored.QueueOf(id)
	rp, _ := restored.Plan(q)
	a, _ := rp.Reservation(id)
	fmt.Println("restored", a.ID, "in", q, "accepted at", a.AcceptedAt, a.Intervals)

	// Both continue identically: the next id, and the next decisions.
	for _, s := range []*plan.System{sys, restored} {
		p, _ := s.Plan("dedicated")
		for _, n := range []int64{4, 6, 2} {
			next := s.NewReservationID()
			more := def.Clone()
			more.Stages[0].Containers = n
			err := s.Submit(plan.SubmissionRequest{Queue: "dedicated", ID: next, Definition: &more, User: "bob"})
			if a, ok := p.Reservation(next); ok {
				fmt.Println(next, "placed", a.Intervals)
				continue
			}
			fmt.Println(next, "refused:", errors.Is(err, berth.ErrNoPlacement))
		}
	}
	// Output:
	// submit reservation_1700000000000_0001 <nil>
	// restored reservation_1700000000000_0001 in dedicated accepted at 0 [{[0, 3600000) <memory:6144, vCores:6>}]
	// reservation_1700000000000_0002 placed [{[0, 7200000) <memory:2048, vCores:2>}]
	// reservation_1700000000000_0003 placed [{[3600000, 7200000) <memory:6144, vCores:6>}]
	// reservation_1700000000000_0004 refused: true
	// reservation_1700000000000_0002 placed [{[0, 7200000) <memory:2048, vCores:2>}]
	// reservation_1700000000000_0003 placed [{[3600000, 7200000) <memory:6144, vCores:6>}]
	// reservation_1700000000000_0004 refused: true
}
