package preempt_test

import (
	"fmt"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/capacity"
	"github.com/berthsched/berth/preempt"
)

// Queue a fills a node that it shares half and half with b; b then asks
// for its half. The first round marks a's newest containers, the next
// one (after the kill wait) kills them.
func Example() {
	cfg := capacity.DefaultConfig()
	a := capacity.Queue("a", 50)
	a.Settings.UserLimitFactor = 2
	cfg.Root.Children = []capacity.QueueConfig{a, capacity.Queue("b", 50)}
	clock := berth.NewManualClock(0)
	cfg.Clock = clock
	s, _ := capacity.New(cfg)
	_ = s.AddNode(capacity.NodeSpec{ID: "n1", Rack: "/r", Capability: berth.New(8192, 8)})
	one := berth.New(1024, 1)
	_, _ = s.SubmitApp(capacity.AppSpec{ID: "app-a", Queue: "a", User: "alice"})
	_, _ = s.Allocate("app-a", []capacity.Ask{{Priority: 1, ResourceName: capacity.AnyResource, Capability: one, Count: 8}}, nil)
	for i := 0; i < 8; i++ {
		_, _ = s.Heartbeat("n1", nil)
	}
	_, _ = s.SubmitApp(capacity.AppSpec{ID: "app-b", Queue: "b", User: "bob"})
	_, _ = s.Allocate("app-b", []capacity.Ask{{Priority: 1, ResourceName: capacity.AnyResource, Capability: one, Count: 4}}, nil)

	pc := preempt.DefaultProportionalConfig()
	pc.TotalPreemptionPerRound = 1
	pc.NaturalTerminationFactor = 1
	p, _ := preempt.NewProportional(preempt.ProportionalSetup{State: s, Actor: s, Config: pc})
	for _, now := range []berth.Time{0, 3000, 15000} {
		rep, _ := p.Round(now)
		q := rep.Queue("root.a")
		fmt.Printf("t=%5d a: used %d MB, ideal %d MB, to preempt %d MB\n", now, q.Used.Memory, q.Ideal.Memory, q.ToObtain.Memory)
		for _, d := range rep.Decisions {
			fmt.Printf("  container %d of %s: %s (%s)\n", d.ID, d.App, d.Action, d.Selector)
		}
	}
	// Output:
	// t=    0 a: used 8192 MB, ideal 4096 MB, to preempt 4096 MB
	//   container 8 of app-a: marked (fifo)
	//   container 7 of app-a: marked (fifo)
	//   container 6 of app-a: marked (fifo)
	//   container 5 of app-a: marked (fifo)
	// t= 3000 a: used 8192 MB, ideal 4096 MB, to preempt 4096 MB
	//   container 8 of app-a: waiting (fifo)
	//   container 7 of app-a: waiting (fifo)
	//   container 6 of app-a: waiting (fifo)
	//   container 5 of app-a: waiting (fifo)
	// t=15000 a: used 8192 MB, ideal 4096 MB, to preempt 4096 MB
	//   container 8 of app-a: killed (fifo)
	//   container 7 of app-a: killed (fifo)
	//   container 6 of app-a: killed (fifo)
	//   container 5 of app-a: killed (fifo)
}

// A selector of the host's own goes through the same Round methods as
// the built-ins: this one takes at most one container per round, from
// the leaf that must give the most.
type oneAtATimeSelector struct{}

func (oneAtATimeSelector) Name() string             { return "one-at-a-time" }
func (oneAtATimeSelector) KillWait() berth.Duration { return 0 }
func (oneAtATimeSelector) Select(r *preempt.ProportionalRound) error {
	r.ComputeIdeal(preempt.IdealOptions{})
	var worst *preempt.QueueView
	for _, q := range r.Cluster.Leaves {
		if o := r.ToObtain(q); o.Memory > 0 && (worst == nil || o.Memory > r.ToObtain(worst).Memory) {
			worst = q
		}
	}
	if worst == nil {
		return nil
	}
	for i := len(worst.Apps) - 1; i >= 0; i-- {
		cs, err := r.Cluster.AppContainers(worst.Apps[i])
		if err != nil {
			return err
		}
		for j := len(cs) - 1; j >= 0; j-- {
			if !cs[j].AM && r.TryPreempt(cs[j], false) {
				return nil
			}
		}
	}
	return nil
}

// halfAndHalf is the world of the examples: queue a holds all 8 GB of a
// node it shares half and half with b, and b asks for 4 GB.
func halfAndHalf() *capacity.Scheduler {
	cfg := capacity.DefaultConfig()
	a := capacity.Queue("a", 50)
	a.Settings.UserLimitFactor = 2
	cfg.Root.Children = []capacity.QueueConfig{a, capacity.Queue("b", 50)}
	cfg.Clock = berth.NewManualClock(0)
	s, _ := capacity.New(cfg)
	_ = s.AddNode(capacity.NodeSpec{ID: "n1", Rack: "/r", Capability: berth.New(8192, 8)})
	one := berth.New(1024, 1)
	_, _ = s.SubmitApp(capacity.AppSpec{ID: "app-a", Queue: "a", User: "alice"})
	_, _ = s.Allocate("app-a", []capacity.Ask{{Priority: 1, ResourceName: capacity.AnyResource, Capability: one, Count: 8}}, nil)
	for i := 0; i < 8; i++ {
		_, _ = s.Heartbeat("n1", nil)
	}
	_, _ = s.SubmitApp(capacity.AppSpec{ID: "app-b", Queue: "b", User: "bob"})
	_, _ = s.Allocate("app-b", []capacity.Ask{{Priority: 1, ResourceName: capacity.AnyResource, Capability: one, Count: 4}}, nil)
	return s
}

// A host's own selector chain replaces the built-in one.
func ExampleProportionalSetup() {
	s := halfAndHalf()
	pc := preempt.DefaultProportionalConfig()
	pc.TotalPreemptionPerRound = 0.5 // the default 10% of 8 GB fits no 1 GB container
	p, _ := preempt.NewProportional(preempt.ProportionalSetup{State: s, Actor: s, Config: pc,
		Selectors: []preempt.Selector{oneAtATimeSelector{}}})
	rep, _ := p.Round(0)
	for _, d := range rep.Decisions {
		fmt.Printf("container %d of %s: %s by %s\n", d.ID, d.App, d.Action, d.Selector)
	}
	// Output:
	// container 8 of app-a: marked by one-at-a-time
}

// A host decides a round, vetoes what it must keep (here the container
// with id 8), and applies the rest: only the plan's candidates are marked.
func ExampleProportional_Decide() {
	s := halfAndHalf()
	pc := preempt.DefaultProportionalConfig()
	pc.TotalPreemptionPerRound = 1
	pc.NaturalTerminationFactor = 1
	p, _ := preempt.NewProportional(preempt.ProportionalSetup{State: s, Actor: s, Config: pc})
	plan, _ := p.Decide(0)
	fmt.Printf("planned %d containers, %d MB left of the budget\n", len(plan.Candidates), plan.Left.Memory)
	kept := plan.Candidates[:0]
	for _, c := range plan.Candidates {
		if c.ID != 8 {
			kept = append(kept, c)
		}
	}
	plan.Candidates = kept
	rep, _ := p.Apply(plan)
	for _, d := range rep.Decisions {
		fmt.Printf("container %d of %s: %s\n", d.ID, d.App, d.Action)
	}
	// Output:
	// planned 4 containers, 4096 MB left of the budget
	// container 7 of app-a: marked
	// container 6 of app-a: marked
	// container 5 of app-a: marked
}
