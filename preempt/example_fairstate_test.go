package preempt_test

import (
	"bufio"
	"bytes"
	"fmt"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/fair"
	"github.com/berthsched/berth/preempt"
)

// The host snapshots the scheduler and the preemptor between two rounds,
// into one stream, while containers are marked and waiting to be killed;
// a standby restores both and its next round kills them as the original
// would have.
func ExampleRestoreFairPreemptor() {
	pcfg := preempt.DefaultFairConfig()
	pcfg.Enabled, pcfg.WaitTimeBeforeKill = true, 2000
	af, _ := fair.ParseAllocationFile([]byte(`<allocations>
  <defaultFairSharePreemptionTimeout>1</defaultFairSharePreemptionTimeout>
  <defaultFairSharePreemptionThreshold>1.0</defaultFairSharePreemptionThreshold>
  <queue name="batch"/><queue name="adhoc"/>
</allocations>`), fair.ParseOptions{})
	cfg := fair.DefaultConfig()
	pcfg.ApplyTo(&cfg)
	clock := berth.NewManualClock(0)
	cfg.Allocation = af
	cfg.Clock = clock
	s, _ := fair.New(cfg)
	p, _ := preempt.NewFairPreemptor(preempt.FairPreemptorSetup{State: s, Actor: s, Config: pcfg})
	_ = s.AddNode(fair.NodeSpec{ID: "n1", Capability: berth.New(4096, 4)})
	one := berth.New(1024, 1)
	for _, app := range []struct{ id, queue string }{{"etl", "root.batch"}, {"report", "root.adhoc"}} {
		_, _ = s.SubmitApp(fair.AppSpec{ID: app.id, Queue: app.queue, User: "u"})
		_, _ = s.Allocate(app.id, []fair.Ask{{Priority: 1, ResourceName: fair.AnyResource, Capability: one, Count: 4}}, nil)
		s.Update()
		for range 4 {
			_, _ = s.Heartbeat("n1", nil)
		}
	}
	clock.Advance(1000)
	_, _ = s.Heartbeat("n1", nil)
	r, _ := p.Round(clock.Now())
	fmt.Println("marked:", r.Count(preempt.FairMarked))

	var stream bytes.Buffer
	_ = s.SaveState(&stream)
	_ = p.SaveState(&stream)

	standby := berth.NewManualClock(clock.Now())
	in := bufio.NewReader(&stream)
	s2, err := fair.RestoreScheduler(in, fair.RestoreEnv{Clock: standby})
	if err != nil {
		fmt.Println(err)
		return
	}
	p2, err := preempt.RestoreFairPreemptor(in, preempt.FairPreemptorSetup{State: s2, Actor: s2})
	if err != nil {
		fmt.Println(err)
		return
	}
	standby.Advance(2000)
	r, _ = p2.Round(standby.Now())
	fmt.Println("killed after the restore:", r.Count(preempt.FairKilled))
	for range 2 {
		als, _ := s2.Heartbeat("n1", nil)
		for _, al := range als {
			fmt.Println("allocated", al.ID, "to", al.App)
		}
	}
	// Output:
	// marked: 2
	// killed after the restore: 2
	// allocated 5 to report
	// allocated 6 to report
}
