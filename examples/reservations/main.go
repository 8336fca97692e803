// Command reservations tours Berth's reservation system on a reservable
// queue: a plan with YARN's default agent (AlignedPlannerWithGreedy) and
// sharing policy (CapacityOverTimePolicy) receives a gang, a pipeline
// (R_ORDER) and a pair of alternatives (R_ANY); it prints where each
// landed and the plan's timeline, then a request that cannot be placed and
// its typed error. Last it compares YARN's default agent with Berth's
// Portfolio agent on the same requests: how many each accepts and how much
// of the area asked for it reserves.
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
	ag, err := agent.NewAlignedPlannerWithGreedy(agent.DefaultOptions())
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
	return compare(w)
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
	type request struct {
		name string
		def  plan.Definition
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
	yarn, err := agent.NewAlignedPlannerWithGreedy(agent.DefaultOptions())
	if err != nil {
		return err
	}
	portfolio, err := agent.NewPortfolio(agent.DefaultOptions())
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "same requests, YARN's default agent vs Portfolio (container·minutes reserved / asked):")
	for _, c := range []struct {
		name string
		ag   plan.Agent
	}{{"AlignedPlannerWithGreedy", yarn}, {"Portfolio", portfolio}} {
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
