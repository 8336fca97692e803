package preempt_test

import (
	"fmt"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/fair"
	"github.com/berthsched/berth/preempt"
)

// A queue fills a two-node cluster; another queue's application starves
// and the host's loop — heartbeats, then a preemption round, every
// second of its own clock — takes its fair share back.
func ExampleFairPreemptor() {
	pcfg, err := preempt.ParseFairConfig(map[string]string{
		"yarn.scheduler.fair.preemption":         "true",
		"yarn.scheduler.fair.waitTimeBeforeKill": "2000",
	})
	if err != nil {
		panic(err)
	}
	af, err := fair.ParseAllocationFile([]byte(`<allocations>
  <defaultFairSharePreemptionTimeout>1</defaultFairSharePreemptionTimeout>
  <defaultFairSharePreemptionThreshold>1.0</defaultFairSharePreemptionThreshold>
  <queue name="batch"/><queue name="adhoc"/>
</allocations>`), fair.ParseOptions{})
	if err != nil {
		panic(err)
	}
	cfg := fair.DefaultConfig()
	pcfg.ApplyTo(&cfg) // the scheduler computes starvation only with preemption on
	clock := berth.NewManualClock(0)
	cfg.Allocation = af
	cfg.Clock = clock
	s, _ := fair.New(cfg)
	p, _ := preempt.NewFairPreemptor(preempt.FairPreemptorSetup{State: s, Actor: s, Config: pcfg})
	for _, n := range []string{"n1", "n2"} {
		_ = s.AddNode(fair.NodeSpec{ID: n, Capability: berth.New(4096, 4)})
	}
	one := berth.New(1024, 1)
	submit := func(id, q string, n int) {
		_, _ = s.SubmitApp(fair.AppSpec{ID: id, Queue: q, User: "u"})
		_, _ = s.Allocate(id, []fair.Ask{{Priority: 1, ResourceName: fair.AnyResource, Capability: one, Count: n}}, nil)
		s.Update()
	}
	beat := func() {
		for _, n := range []string{"n1", "n2"} {
			_, _ = s.Heartbeat(n, nil)
		}
	}
	submit("etl", "root.batch", 8)
	for range 4 {
		beat()
	}
	submit("report", "root.adhoc", 4)
	for sec := 1; sec <= 8; sec++ {
		clock.Advance(1000)
		beat()
		r, _ := p.Round(clock.Now())
		for _, d := range r.Decisions {
			fmt.Printf("t=%ds %s container %d of %s on %s (for %s)\n", sec, d.Action, d.Container.ID, d.Container.App, d.Container.Node, d.ForApp)
		}
	}
	a := s.SnapshotOf(fair.SnapshotApps).App("report")
	fmt.Println("report holds", a.Usage, "of its share", a.FairShare)
	// Output:
	// t=1s marked container 7 of etl on n1 (for report)
	// t=1s marked container 5 of etl on n1 (for report)
	// t=1s marked container 3 of etl on n1 (for report)
	// t=1s marked container 1 of etl on n1 (for report)
	// t=3s killed container 1 of etl on n1 (for report)
	// t=3s killed container 3 of etl on n1 (for report)
	// t=3s killed container 5 of etl on n1 (for report)
	// t=3s killed container 7 of etl on n1 (for report)
	// report holds <memory:4096, vCores:4> of its share <memory:4096, vCores:0>
}
