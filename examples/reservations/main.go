// Command reservations tours Berth's reservation system on a reservable queue.
//
// A plan with YARN's default agent (AlignedPlannerWithGreedy) and
// sharing policy (CapacityOverTimePolicy) receives a gang, a pipeline
// (R_ORDER) and a pair of alternatives (R_ANY); it prints where each
// landed and the plan's timeline, then a request that cannot be placed and
// its typed error. Last it compares YARN's default agent with Berth's
// Portfolio and LeastWaste agents on the same requests: how many each
// accepts and how much of the area asked for it reserves; and, on a
// contested plan, how LeastWaste declines a request that would cut the
// free capacity into slivers, so that a later one fits.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/agent"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/policy"
)

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "reservations:", err)
		os.Exit(1)
	}
}

const minute = 60_000 // ms

// run builds the plan, submits the requests and prints what happened.
func run(w io.Writer) error {
	// A reservable queue of 16 containers of <1 GB, 1 vcore>.
	pol, err := policy.NewCapacityOverTime(policy.DefaultCapacityOverTimeConfig())
	if err != nil {
		return err
	}
	ag, err := agent.NewAlignedPlannerWithGreedy(agent.DefaultConfig())
	if err != nil {
		return err
	}
	clock := berth.NewManualClock(0)
	cfg := plan.DefaultConfig("dedicated", berth.New(16*1024, 16), clock)
	cfg.Policy, cfg.Agent = pol, ag
	p, err := plan.New(cfg)
	if err != nil {
		return err
	}
	container := berth.New(1024, 1)
	requests := []struct {
		name, user string
		def        plan.Definition
	}{
		{"gang", "alice", plan.Definition{Arrival: 0, Deadline: 120 * minute, Interpreter: plan.RAll,
			Stages: []plan.Stage{{Capability: container, Containers: 8, Concurrency: 8, Duration: 30 * minute}}}},
		{"pipeline", "bob", plan.Definition{Arrival: 0, Deadline: 180 * minute, Interpreter: plan.ROrder,
			Stages: []plan.Stage{
				{Capability: container, Containers: 4, Concurrency: 1, Duration: 20 * minute},
				{Capability: container, Containers: 12, Concurrency: 4, Duration: 30 * minute},
				{Capability: container, Containers: 2, Concurrency: 1, Duration: 10 * minute},
			}}},
		{"alternatives", "carol", plan.Definition{Arrival: 60 * minute, Deadline: 300 * minute, Interpreter: plan.RAny,
			Stages: []plan.Stage{
				{Capability: container, Containers: 16, Concurrency: 16, Duration: 60 * minute},
				{Capability: container, Containers: 4, Concurrency: 4, Duration: 180 * minute},
			}}},
		{"too big", "dave", plan.Definition{Arrival: 0, Deadline: 90 * minute, Interpreter: plan.RAll,
			Stages: []plan.Stage{{Capability: container, Containers: 16, Concurrency: 16, Duration: 60 * minute}}}},
	}
	for i, r := range requests {
		id := plan.ReservationID{ClusterTimestamp: 1700000000000, Sequence: int64(i + 1)}
		if err := plan.ValidateDefinition(&r.def, p.Limits(clock.Now())); err != nil {
			fmt.Fprintf(w, "%-12s %v: invalid: %v\n", r.name, id, err)
			continue
		}
		err := ag.CreateReservation(p, id, r.user, r.def)
		var np *agent.NoPlacementError
		switch {
		case errors.As(err, &np):
			fmt.Fprintf(w, "%-12s %v: rejected, no placement (errors.Is ErrNoPlacement: %t): %v\n",
				r.name, id, errors.Is(err, berth.ErrNoPlacement), err)
			continue
		case err != nil:
			fmt.Fprintf(w, "%-12s %v: rejected: %v\n", r.name, id, err)
			continue
		}
		a, _ := p.Reservation(id)
		fmt.Fprintf(w, "%-12s %v: accepted for %s\n", r.name, id, r.user)
		for _, e := range a.Intervals {
			if e.Resource.IsZero() {
				continue
			}
			fmt.Fprintf(w, "    [%3d min, %3d min) %2d × %v\n",
				e.Interval.Start/minute, e.Interval.End/minute, e.Resource.Memory/1024, container)
		}
	}
	// The plan's timeline: containers held per 10 minutes.
	fmt.Fprintln(w, "timeline (containers held, one column per 10 min):")
	for t := berth.Time(0); t < 300*minute; t += 10 * minute {
		n := p.TotalCommitted(t).Memory / 1024
		fmt.Fprintf(w, "  %3d min |%-16s| %2d\n", t/minute, strings.Repeat("#", int(n)), n)
	}
	if err := compare(w); err != nil {
		return err
	}
	return compareWaste(w)
}

// compare submits the same requests, in order, to two fresh plans, one
// served by YARN's default agent and one by the Portfolio agent, and
// prints what each accepted. The portfolio tries the larger alternative of
// an R_ANY first (YARN keeps the first that fits, in the order written),
// places single stages late, and searches R_ORDER_NO_GAP chains whole.
func compare(w io.Writer) error {
	container := berth.New(1024, 1)
	stage := func(n, gang, minutes int64) plan.Stage {
		return plan.Stage{Capability: container, Containers: n, Concurrency: gang, Duration: minutes * minute}
	}
	window := func(from, to int64, k plan.Interpreter, stages ...plan.Stage) plan.Definition {
		return plan.Definition{Arrival: from * minute, Deadline: to * minute, Interpreter: k, Stages: stages}
	}
	requests := []request{
		{"report", window(0, 120, plan.RAll, stage(8, 8, 60))},
		{"etl", window(0, 240, plan.RAny, stage(4, 4, 30), stage(12, 12, 90))},
		{"train", window(30, 240, plan.ROrderNoGap, stage(16, 16, 30), stage(8, 8, 60))},
		{"backfill", window(0, 180, plan.RAll, stage(8, 1, 60))},
		{"nightly", window(0, 120, plan.RAll, stage(12, 12, 60))},
	}
	yarn, err := agent.NewAlignedPlannerWithGreedy(agent.DefaultConfig())
	if err != nil {
		return err
	}
	portfolio, err := agent.NewPortfolio(agent.DefaultConfig())
	if err != nil {
		return err
	}
	leastWaste, err := agent.NewLeastWaste(agent.LeastWasteConfig{Config: agent.DefaultConfig()})
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "same requests, YARN's default agent vs Berth's (container·minutes reserved / asked):")
	return serve(w, requests, []named{{"AlignedPlannerWithGreedy", yarn}, {"Portfolio", portfolio}, {"LeastWaste", leastWaste}})
}

// named is an agent and the name printed for it.
type named struct {
	name string
	ag   plan.Agent
}

// request is a definition and the name printed for it.
type request struct {
	name string
	def  plan.Definition
}

// serve submits the requests, in order, to a fresh plan of 16 containers
// per agent and prints what each accepted.
func serve(w io.Writer, requests []request, agents []named) error {
	container := berth.New(1024, 1)
	for _, c := range agents {
		cfg := plan.DefaultConfig("dedicated", berth.New(16*1024, 16), berth.NewManualClock(0))
		cfg.Policy = policy.NoOverCommit{}
		p, err := plan.New(cfg)
		if err != nil {
			return err
		}
		var asked, reserved float64
		var accepted []string
		for i, r := range requests {
			id := plan.ReservationID{ClusterTimestamp: 1700000000000, Sequence: int64(100 + i)}
			asked += agent.OfferedArea(r.def, p.Step()).Memory
			err := c.ag.CreateReservation(p, id, "erin", r.def)
			switch {
			case errors.Is(err, berth.ErrNoPlacement):
				continue
			case err != nil:
				return err
			}
			a, _ := p.Reservation(id)
			reserved += agent.ReservedArea(a).Memory
			accepted = append(accepted, r.name)
		}
		perContainerMinute := float64(container.Memory * minute)
		fmt.Fprintf(w, "  %-24s %d of %d accepted, %4.0f / %4.0f (%3.0f %%): %s\n", c.name, len(accepted), len(requests),
			reserved/perContainerMinute, asked/perContainerMinute, 100*reserved/asked, strings.Join(accepted, ", "))
	}
	return nil
}

// compareWaste is a contested plan: 14 of 16 containers are held on the
// first and the last hour of three, so the middle hour is the only room
// for anything wide. A gang of 16 for 20 minutes fits there, but wherever
// it goes it leaves the other 40 minutes of the middle hour too short for
// an hour-long job; with a gap of an hour, LeastWaste sees the sliver and
// declines it (the window is contested: less than half of it is free).
// The hour-long gang of 14 that comes next then fits.
func compareWaste(w io.Writer) error {
	container := berth.New(1024, 1)
	gang := func(name string, n, from, to, minutes int64) request {
		return request{name, plan.Definition{Arrival: from * minute, Deadline: to * minute, Interpreter: plan.RAll,
			Stages: []plan.Stage{{Capability: container, Containers: n, Concurrency: n, Duration: minutes * minute}}}}
	}
	requests := []request{
		gang("morning", 14, 0, 60, 60),
		gang("evening", 14, 120, 180, 60),
		gang("spike", 16, 0, 180, 20),
		gang("hour", 14, 60, 120, 60),
	}
	yarn, err := agent.NewAlignedPlannerWithGreedy(agent.DefaultConfig())
	if err != nil {
		return err
	}
	opts := agent.DefaultWasteConfig()
	opts.Gap = 60 * minute
	leastWaste, err := agent.NewLeastWaste(agent.LeastWasteConfig{Config: agent.DefaultConfig(), Waste: opts})
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "a contested plan, YARN's default agent vs LeastWaste (gap 60 min):")
	return serve(w, requests, []named{{"AlignedPlannerWithGreedy", yarn}, {"LeastWaste", leastWaste}})
}
