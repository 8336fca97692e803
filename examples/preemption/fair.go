package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/fair"
	"github.com/berthsched/berth/preempt"
)

// fairAlloc is the fair scheduler's allocation file: two queues, and
// fair-share preemption after 2 s below the whole fair share.
const fairAlloc = `<?xml version="1.0"?>
<allocations>
  <defaultFairSharePreemptionTimeout>2</defaultFairSharePreemptionTimeout>
  <defaultFairSharePreemptionThreshold>1.0</defaultFairSharePreemptionThreshold>
  <queue name="etl"/>
  <queue name="analytics"/>
</allocations>`

// fairSite is the preemptor's part of yarn-site.xml.
var fairSite = map[string]string{
	preempt.FairKeyPreemption:         "true",
	preempt.FairKeyWaitTimeBeforeKill: "3000",
}

// runFair is the same story on the fair scheduler: etl fills the cluster,
// analytics submits and starves below its fair share; each round of
// preempt.FairPreemptor (one a second, after the heartbeats) marks etl's
// newest tasks for it, kills them after the 3 s wait, and the freed room
// goes to analytics first.
func runFair(w io.Writer) error {
	af, err := fair.ParseAllocationFile([]byte(fairAlloc), fair.ParseOptions{})
	if err != nil {
		return err
	}
	pcfg, err := preempt.ParseFairConfig(fairSite)
	if err != nil {
		return err
	}
	cfg := fair.DefaultConfig()
	pcfg.ApplyTo(&cfg)
	clock := berth.NewManualClock(0)
	cfg.Allocation = af
	cfg.Clock = clock
	s, err := fair.New(cfg)
	if err != nil {
		return err
	}
	c, err := newCluster(s, 4) // 4 × 8 GB
	if err != nil {
		return err
	}
	// etl's two jobs take the whole cluster (with their AMs, 32 GB).
	if err := submitFair(s, "etl-1", "root.etl", 15); err != nil {
		return err
	}
	if err := submitFair(s, "etl-2", "root.etl", 15); err != nil {
		return err
	}
	for { // heartbeats until they allocate nothing
		n, err := c.beat()
		if err != nil {
			return err
		}
		if n == 0 {
			break
		}
	}
	clock.Advance(1000)
	fmt.Fprintf(w, "t=%ds etl holds %d GB, analytics %d GB; analytics asks for 16 GB\n",
		clock.Now()/1000, fairUsed(s, "root.etl")/gb, fairUsed(s, "root.analytics")/gb)
	if err := submitFair(s, "report", "root.analytics", 15); err != nil {
		return err
	}
	p, err := preempt.NewFairPreemptor(preempt.FairPreemptorSetup{State: s, Actor: s, Config: pcfg})
	if err != nil {
		return err
	}
	for round := 1; round <= 30; round++ {
		clock.Advance(1000)
		if _, err := c.beat(); err != nil {
			return err
		}
		r, err := p.Round(clock.Now())
		if err != nil {
			return err
		}
		printFairRound(w, round, clock.Now(), r, s)
		if used := fairUsed(s, "root.analytics"); used >= 16*gb {
			fmt.Fprintf(w, "analytics holds its fair share (16 GB) after %d rounds\n", round)
			return nil
		}
	}
	return fmt.Errorf("analytics did not reach its fair share")
}

// submitFair submits an application that asks for n containers of 1 GB, and
// updates the fair shares.
func submitFair(s *fair.Scheduler, id, q string, n int) error {
	one := berth.New(gb, 1)
	if _, err := s.SubmitApp(fair.AppSpec{ID: id, Queue: q, User: "u", AMResource: one}); err != nil {
		return err
	}
	if _, err := s.Allocate(id, []fair.Ask{{Priority: 1, ResourceName: fair.AnyResource, Capability: one, Count: n}}, nil); err != nil {
		return err
	}
	s.Update()
	return nil
}

// printFairRound prints what a fair preemption round found and decided:
// the queues' usage, the starved applications, then the containers
// marked, killed, released and forgotten.
func printFairRound(w io.Writer, round int, now berth.Time, r *preempt.FairRound, s *fair.Scheduler) {
	fmt.Fprintf(w, "round %2d t=%2ds etl %2d GB, analytics %2d GB:", round, now/1000,
		fairUsed(s, "root.etl")/gb, fairUsed(s, "root.analytics")/gb)
	for _, a := range r.Starved {
		fmt.Fprintf(w, " %s starved for %d GB;", a.App, (a.FairShareStarvation.Memory+a.MinShareStarvation.Memory)/gb)
	}
	byAction := map[preempt.FairAction][]string{}
	for _, d := range r.Decisions {
		byAction[d.Action] = append(byAction[d.Action], fmt.Sprintf("%s/%d", d.Container.App, d.Container.ID))
	}
	for _, a := range []preempt.FairAction{preempt.FairMarked, preempt.FairKilled, preempt.FairReleased, preempt.FairForgotten} {
		if len(byAction[a]) > 0 {
			fmt.Fprintf(w, " %s %s", a, strings.Join(byAction[a], " "))
		}
	}
	if r.Skipped != "" {
		fmt.Fprintf(w, " (%s)", r.Skipped)
	}
	fmt.Fprintln(w)
}

func fairUsed(s *fair.Scheduler, path string) int64 {
	if q := s.SnapshotOf(fair.SnapshotQueues).Queue(path); q != nil {
		return q.Usage.Memory
	}
	return 0
}
