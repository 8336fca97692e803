package preempt_test

import (
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/capacity"
	"github.com/berthsched/berth/preempt"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Compile-time check: the capacity scheduler is what the policy reads.
var _ preempt.CapacityScheduler = (*capacity.Scheduler)(nil)

const cGB = 1024

// starvingCapacityCluster is the end-to-end scenario: queues a and b share 4
// nodes of 8 GB half and half; a's three applications (each with a 1 GB
// AM) fill the cluster, then b submits one asking for 16 containers.
func starvingCapacityCluster(t testing.TB) (*capacity.Scheduler, *berth.ManualClock, []string) {
	cfg := capacity.DefaultConfig()
	a := capacity.Queue("a", 50)
	a.Settings.UserLimitFactor = 2
	cfg.Root.Children = []capacity.QueueConfig{a, capacity.Queue("b", 50)}
	cfg.MaximumAMResourcePercent = 0.5
	clock := berth.NewManualClock(0)
	cfg.Clock = clock
	s, err := capacity.New(cfg)
	require.NoError(t, err)
	var nodes []string
	for _, n := range []string{"n1", "n2", "n3", "n4"} {
		require.NoError(t, s.AddNode(capacity.NodeSpec{ID: n, Rack: "/r", Capability: berth.New(8*cGB, 8)}))
		nodes = append(nodes, n)
	}
	beat := func() {
		for _, n := range nodes {
			_, err := s.Heartbeat(n, nil)
			require.NoError(t, err)
		}
	}
	one := berth.New(cGB, 1)
	for i, n := range []int{9, 9, 11} { // with their AMs: 10 + 10 + 12 = 32 GB
		id := []string{"a1", "a2", "a3"}[i]
		_, err := s.SubmitApp(capacity.AppSpec{ID: id, Queue: "a", User: "alice", AMResource: one})
		require.NoError(t, err)
		clock.Advance(1000)
		beat()
		_, err = s.Allocate(id, []capacity.Ask{{Priority: 1, ResourceName: capacity.AnyResource, Capability: one, Count: n}}, nil)
		require.NoError(t, err)
		for k := 0; k < 12; k++ { // one off-switch container per node and heartbeat
			clock.Advance(100)
			beat()
		}
	}
	_, err = s.SubmitApp(capacity.AppSpec{ID: "b1", Queue: "b", User: "bob", AMResource: one})
	require.NoError(t, err)
	_, err = s.Allocate("b1", []capacity.Ask{{Priority: 1, ResourceName: capacity.AnyResource, Capability: one, Count: 16}}, nil)
	require.NoError(t, err)
	return s, clock, nodes
}

func capQueueUsed(s *capacity.Scheduler, path string) int64 {
	for _, q := range s.Snapshot().Queues.Queues {
		if q.Path.String() == path {
			return q.Extra.Used.Memory
		}
	}
	return -1
}

// TestEndToEndStarvingQueue: the host loop heartbeats every second and
// runs a round every monitoring interval (3 s) with YARN's defaults (but
// half the cluster selectable per round and a dead zone narrower than one
// container) until b holds its guarantee. The natural termination factor
// (0.2) makes each round ask for a fifth of a's excess, so b's share
// arrives in decreasing steps, one kill wait (15 s) apart. Victims come from a's latest application first,
// newest containers first; no AM is killed; each container is killed only
// after 15 s marked.
func TestEndToEndStarvingQueue(t *testing.T) {
	s, clock, nodes := starvingCapacityCluster(t)
	require.Equal(t, int64(32*cGB), capQueueUsed(s, "root.a"))
	require.Equal(t, int64(0), capQueueUsed(s, "root.b"))
	cfg := preempt.DefaultProportionalConfig()
	cfg.TotalPreemptionPerRound = 0.5 // 16 GB a round: the scenario is small
	cfg.MaxIgnoredOverCapacity = 0.05 // a dead zone below one container of a's 16 GB
	p, err := preempt.NewProportional(preempt.ProportionalSetup{State: s, Actor: s, Config: cfg})
	require.NoError(t, err)
	var killed []preempt.Decision
	reached := -1
	for round := 1; round <= 300 && reached < 0; round++ {
		rep, err := p.Round(clock.Now())
		require.NoError(t, err)
		for _, d := range rep.Decisions {
			assert.Equal(t, "root.a", d.Container.Queue, "only a is over its guarantee")
			if d.Action == preempt.Killed {
				assert.GreaterOrEqual(t, rep.Time-d.FirstMarked, cfg.MaxWaitBeforeKill, "killed after the wait")
				killed = append(killed, d)
			}
		}
		for i := 0; i < 3; i++ { // heartbeats until the next round
			clock.Advance(1000)
			for _, n := range nodes {
				_, err := s.Heartbeat(n, nil)
				require.NoError(t, err)
			}
		}
		require.NoError(t, s.Check())
		if capQueueUsed(s, "root.b") >= 16*cGB {
			reached = round
		}
	}
	require.Positive(t, reached, "b never reached its guarantee")
	assert.Equal(t, 16, len(killed), "exactly b's guarantee was preempted")
	assert.Equal(t, int64(16*cGB), capQueueUsed(s, "root.b"))
	assert.Equal(t, int64(16*cGB), capQueueUsed(s, "root.a"))
	// a3 (latest) loses all its 11 non-AM containers before a2 loses any;
	// AMs are never taken.
	seen := map[string]int{}
	for i, d := range killed {
		assert.False(t, d.AM, "AM %d killed", d.ID)
		seen[d.App]++
		if i < 11 {
			assert.Equal(t, "a3", d.App, "victim %d", i)
		} else {
			assert.Equal(t, "a2", d.App, "victim %d", i)
		}
	}
	assert.Equal(t, map[string]int{"a3": 11, "a2": 5}, seen)
	// Within an application, newer containers go first.
	for i := 1; i < len(killed); i++ {
		if killed[i].App == killed[i-1].App {
			assert.Greater(t, killed[i-1].ID, killed[i].ID, "newest first")
		}
	}
	// Each cycle marks ceil(0.2 × a's excess) and kills it one wait (six
	// rounds) later: 4, 3, 2, 2, 1, 1, 1, 1, 1 GB, so b holds 16 GB after
	// the ninth kill, in round 9 × 6.
	assert.Equal(t, 54, reached, "round in which b holds its guarantee")
}
