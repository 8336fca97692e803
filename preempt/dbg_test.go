package preempt_test

import (
	"testing"

	"github.com/berthsched/berth/preempt"
)

func TestDbg(t *testing.T) {
	s, clock, nodes := starvingCluster(t)
	cfg := preempt.DefaultProportionalConfig()
	cfg.TotalPreemptionPerRound = 0.5
	p, _ := preempt.NewProportional(s, cfg)
	for round := 1; round <= 20; round++ {
		rep, err := p.Round(clock.Now())
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("round %d t=%d b=%d a=%d", round, clock.Now(), queueUsed(s, "root.b"), queueUsed(s, "root.a"))
		for _, q := range rep.Queues {
			t.Logf("  %s used %v pend %v ideal %v tbp %v obtain %v", q.Path, q.Used.Memory, q.Pending.Memory, q.Ideal.Memory, q.ToBePreempted.Memory, q.ToObtain.Memory)
		}
		for _, d := range rep.Decisions {
			t.Logf("  %d %s %s %v", d.ID, d.App, d.Selector, d.Action)
		}
		for i := 0; i < 3; i++ {
			clock.Advance(1000)
			for _, n := range nodes {
				s.Heartbeat(n, nil)
			}
		}
	}
}
