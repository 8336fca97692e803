package scenario_test

import (
	"fmt"

	"github.com/berthsched/berth/examples/sim/scenario"
)

// Loading the embedded default scenario: the inputs are parsed and
// validated before anything runs.
func ExampleLoad() {
	sc, err := scenario.Load(scenario.Default("capacity"))
	if err != nil {
		panic(err)
	}
	deadline := 0
	for _, j := range sc.Jobs {
		if j.Deadline > 0 {
			deadline++
		}
	}
	fmt.Println(len(sc.Nodes), "nodes,", len(sc.Jobs), "jobs,", deadline, "with a deadline,", len(sc.NodeEvents), "node events")
	fmt.Println("preemption:", sc.Preemption, "every", sc.PreemptInterval, "ms; configuration clean:", sc.ConfigReport.Clean())
	// Output:
	// 300 nodes, 2070 jobs, 194 with a deadline, 120 node events
	// preemption: true every 3000 ms; configuration clean: true
}
