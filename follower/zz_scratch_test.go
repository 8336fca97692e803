package follower

import (
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/agent"
	"github.com/berthsched/berth/fair"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/policy"
	"github.com/stretchr/testify/require"
)

func TestZZScratch(t *testing.T) {
	for _, pol := range []string{"fair", "drf"} {
		af, err := fair.ParseAllocationFile([]byte(`<allocations>
  <queue name="default"><weight>1</weight></queue>
  <queue name="dedicated"><weight>4</weight><reservation/></queue>
  <defaultQueueSchedulingPolicy>`+pol+`</defaultQueueSchedulingPolicy>
</allocations>`), fair.ParseOptions{})
		require.NoError(t, err)
		clock := berth.NewManualClock(0)
		s, err := fair.New(fair.DefaultConfig(), af, clock)
		require.NoError(t, err)
		require.NoError(t, s.AddNode(fair.NodeSpec{ID: "n1", Capability: berth.New(10*1024, 10)}))
		pr, err := s.PlanResources("root.dedicated")
		require.NoError(t, err)
		t.Log(pol, pr)
		cfg := plan.DefaultConfig("root.dedicated", pr, clock)
		ag, _ := agent.NewAlignedPlannerWithGreedy(agent.DefaultOptions())
		po, _ := policy.NewCapacityOverTime(policy.DefaultCapacityOverTimeConfig())
		cfg.Agent, cfg.Policy = ag, po
		p, err := plan.New(cfg)
		require.NoError(t, err)
		def := plan.Definition{Arrival: 0, Deadline: 3_600_000, Interpreter: plan.RAll,
			Stages: []plan.Stage{{Capability: berth.New(1024, 1), Containers: 2, Concurrency: 2, Duration: 60_000}}}
		err = ag.CreateReservation(p, plan.ReservationID{ClusterTimestamp: 1, Sequence: 1}, "alice", def)
		t.Log(err)
	}
}
