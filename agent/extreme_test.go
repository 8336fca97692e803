package agent

import (
	"math"
	"testing"
	"time"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/policy"
)

// Extreme times and sizes must not panic or hang.
func TestExtremeDefinitions(t *testing.T) {
	huge := []plan.Definition{
		{Arrival: math.MaxInt64 - 10, Deadline: math.MaxInt64, Interpreter: plan.RAll,
			Stages: []plan.Stage{{Capability: berth.New(1024, 1), Containers: 1, Concurrency: 1, Duration: 5}}},
		{Arrival: math.MinInt64, Deadline: math.MinInt64 + 10_000, Interpreter: plan.ROrder,
			Stages: []plan.Stage{{Capability: berth.New(1024, 1), Containers: 1, Concurrency: 1, Duration: 5}, {Capability: berth.New(1024, 1), Containers: 1, Concurrency: 1, Duration: 5}}},
		{Arrival: 0, Deadline: 10_000, Interpreter: plan.RAll,
			Stages: []plan.Stage{{Capability: berth.New(1024, 1), Containers: 1, Concurrency: 1, Duration: math.MaxInt64}}},
		{Arrival: -5000, Deadline: math.MaxInt64, Interpreter: plan.ROrderNoGap,
			Stages: []plan.Stage{{Capability: berth.New(1024, 1), Containers: 2, Concurrency: 1, Duration: 1}, {Capability: berth.New(1024, 1), Containers: 1, Concurrency: 1, Duration: 3000}}},
		{Arrival: 0, Deadline: 3_000_000_000_000, Interpreter: plan.RAny,
			Stages: []plan.Stage{{Capability: berth.New(1024, 1), Containers: math.MaxInt32, Concurrency: 1, Duration: 1000}}},
		{Arrival: 10_000, Deadline: 0, Interpreter: plan.RAll,
			Stages: []plan.Stage{{Capability: berth.New(0, 0), Containers: 1, Concurrency: 1, Duration: 1000}}},
	}
	for _, s := range subjects(t) {
		for i, def := range huge {
			p := testPlan(t, policy.NoOverCommit{})
			done := make(chan struct{})
			go func() {
				defer close(done)
				_ = checkSubmit(t, s, p, plan.ReservationID{ClusterTimestamp: 1, Sequence: int64(i + 1)}, def)
			}()
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				t.Fatalf("%s: definition %d hangs", s.name, i)
			}
		}
	}
}
