package agent_test

import (
	"fmt"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/agent"
	"github.com/berthsched/berth/plan"
)

// BestFit is a user's stage allocator: it places the whole stage as one
// block on the step-aligned window of its duration where it fits most
// tightly (the least room left over), the earliest on ties. It sees the
// plan only through the read-only view.
type BestFit struct{}

func (BestFit) Name() string { return "best-fit" }

func (BestFit) Allocate(v *agent.StageView, _ int, s plan.Stage, w berth.Interval) ([]agent.Placement, bool, error) {
	step := v.Step()
	dur := (s.Duration + step - 1) / step * step
	gangs := s.Containers / s.Concurrency
	avail, err := v.Available(w)
	if err != nil {
		return nil, false, err
	}
	defer v.Release(avail)
	best, bestLeft, found := berth.Interval{}, int64(0), false
	for t := w.Start; t+dur <= w.End; t += step {
		cand := berth.Interval{Start: t, End: t + dur}
		least := avail.At(t)
		for i := 0; i < avail.Len(); i++ {
			iv, r := avail.Step(i)
			if iv.Start < cand.End && iv.End > cand.Start && r.Memory < least.Memory {
				least = r
			}
		}
		fit := v.Gangs(s, least, gangs+1<<20)
		if left := fit - gangs; fit >= gangs && (!found || left < bestLeft) {
			best, bestLeft, found = cand, left, true
		}
	}
	if !found {
		return nil, false, nil
	}
	return []agent.Placement{{Interval: best, Resource: s.Capability.MulInt(s.Containers)}}, true, nil
}

// A best-fit allocator plugged into YARN's iterative planner: where the
// greedy one takes the empty start of the window, best fit fills the gap
// that leaves no room over.
func ExampleStageAllocator() {
	def := plan.Definition{Arrival: 0, Deadline: 5000, Interpreter: plan.RAll,
		Stages: []plan.Stage{{Capability: berth.New(1024, 1), Containers: 1, Concurrency: 1, Duration: 1000}}}
	for _, a := range []agent.StageAllocator{agent.GreedyRLE{}, BestFit{}} {
		ip := &agent.IterativePlanner{Allocator: a, Config: agent.DefaultConfig()}
		got, err := ip.Place(seedPlan(), plan.ReservationID{ClusterTimestamp: 1, Sequence: 10}, "alice", def)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(a.Name(), got.Intervals[0].Interval)
	}
	// Output:
	// greedy-RLE [0, 1000)
	// best-fit [1000, 2000)
}
