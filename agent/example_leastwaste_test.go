package agent_test

import (
	"errors"
	"fmt"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/agent"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/policy"
)

// LeastWaste declines a request whose every placement would cut the free
// capacity of a contested plan into slivers too short to use, so that a
// later request that fits the room whole is accepted. The plan holds 14
// of 16 containers in the first and the last minute of three; a gang of
// 16 for 20 s fits only in the middle minute, and would leave 40 s of it,
// shorter than the 60 s gap.
func ExampleNewLeastWaste() {
	cfg := plan.DefaultConfig("dedicated", berth.New(16*1024, 16), berth.NewManualClock(0))
	cfg.Policy = policy.NoOverCommit{}
	p, err := plan.New(cfg)
	if err != nil {
		panic(err)
	}
	opts := agent.DefaultWasteConfig()
	opts.Gap = 60_000 // ms
	lw, err := agent.NewLeastWaste(agent.LeastWasteConfig{Config: agent.DefaultConfig(), Waste: opts})
	if err != nil {
		panic(err)
	}
	gang := func(n, from, to, d int64) plan.Definition {
		return plan.Definition{Arrival: from, Deadline: to, Interpreter: plan.RAll,
			Stages: []plan.Stage{{Capability: berth.New(1024, 1), Containers: n, Concurrency: n, Duration: d}}}
	}
	for i, def := range []plan.Definition{
		gang(14, 0, 60_000, 60_000),
		gang(14, 120_000, 180_000, 60_000),
		gang(16, 0, 180_000, 20_000),
		gang(14, 60_000, 120_000, 60_000),
	} {
		id := plan.ReservationID{ClusterTimestamp: 1, Sequence: int64(i + 1)}
		err := lw.CreateReservation(p, id, "alice", def)
		var np *agent.NoPlacementError
		if errors.As(err, &np) {
			fmt.Printf("request %d declined: %s\n", i+1, np.Reason)
			continue
		}
		if err != nil {
			panic(err)
		}
		a, _ := p.Reservation(id)
		fmt.Printf("request %d at %v\n", i+1, a.Intervals[0].Interval)
	}
	// Output:
	// request 1 at [0, 60000)
	// request 2 at [120000, 180000)
	// request 3 declined: every placement strands too much free capacity in a contested window
	// request 4 at [60000, 120000)
}
