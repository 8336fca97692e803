package yarnplan_test

import (
	"fmt"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/examples/internal/yarnplan"
	"github.com/berthsched/berth/plan"
)

// A plan of 16 containers with YARN's default wiring accepts a gang of
// eight for half an hour.
func ExampleConfig() {
	cfg, err := yarnplan.Config("dedicated", berth.New(16*1024, 16), berth.NewManualClock(0))
	if err != nil {
		fmt.Println(err)
		return
	}
	p, err := plan.New(cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	def := plan.Definition{Arrival: 0, Deadline: 3_600_000, Interpreter: plan.RAll,
		Stages: []plan.Stage{{Capability: berth.New(1024, 1), Containers: 8, Concurrency: 8, Duration: 1_800_000}}}
	err = cfg.Agent.CreateReservation(p, plan.ReservationID{ClusterTimestamp: 1, Sequence: 1}, "alice", def)
	fmt.Println(err, p.Len())
	// Output: <nil> 1
}
