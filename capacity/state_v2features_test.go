package capacity

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/berthsched/berth"
)

// v2FeaturesWorld builds the scheduler of testdata/capacity-v2-features.snap
// (written by the scheduler before node labels, at clock 2250):
// YARN 3.x features in use (auto-created v2 queues, max-parallel-apps,
// lifetimes, priorities, asynchronous rounds).
func v2FeaturesWorld(t testing.TB) (*Scheduler, *berth.ManualClock) {
	cfg := v2Config()
	cfg.Async.Enabled = true
	cfg.MaxAppPriority = 10
	cfg.UserMaxParallelApps = 2
	pst := &cfg.Root.Children[0].Settings
	pst.DefaultAppLifetime = 600
	pst.MaxAppLifetime = 900
	clock := berth.NewManualClock(1000)
	cfg.Clock = clock
	s, err := New(cfg)
	require.NoError(t, err)
	require.NoError(t, s.AddNodes(mkNode("n1", 10*gb, 10), mkNode("n2", 10*gb, 10)))
	for i, sub := range []struct{ q, u string }{{"root.p.team.alice", "alice"}, {"root.p.team.alice", "alice"},
		{"root.p.team.alice", "alice"}, {"root.p.x", "bob"}, {"root.p.team.carol", "carol"}} {
		id := fmt.Sprint("a", i)
		_, err := s.SubmitApp(AppSpec{ID: id, Queue: sub.q, User: sub.u, Priority: int32(i % 3), LifetimeSeconds: int64(i * 200), AMResource: berth.New(gb, 1)})
		require.NoError(t, err)
		_, err = s.Allocate(id, []Ask{{Priority: 1, ResourceName: AnyResource, Capability: berth.New(gb, 1), Count: 3}}, nil)
		require.NoError(t, err)
		clock.Advance(250)
		for _, n := range []string{"n1", "n2"} {
			_, err := s.Heartbeat(n, nil)
			require.NoError(t, err)
		}
		_, err = s.ScheduleRound()
		require.NoError(t, err)
	}
	require.NoError(t, s.Check())
	return s, clock
}

// v2FeaturesSummary is what the snapshot's scheduler holds, as text.
func v2FeaturesSummary(s *Scheduler) []string {
	var out []string
	snap := s.Snapshot()
	for _, q := range snap.Queues.Queues {
		out = append(out, fmt.Sprintf("queue %s %v %v", q.Path, q.Extra.Guaranteed, q.Extra.Used))
	}
	for _, a := range snap.Apps {
		out = append(out, fmt.Sprintf("app %s %s p%d active=%v runnable=%v %v %v", a.ID, a.Queue, a.Priority, a.Active, a.Runnable, a.Used, a.Pending))
	}
	for _, c := range snap.Containers {
		out = append(out, fmt.Sprintf("container %d %s %s %v", c.ID, c.App, c.Node, c.Resource))
	}
	for _, id := range sortedKeys(s.apps) {
		out = append(out, fmt.Sprintf("deadline %s %d", id, s.apps[id].deadline))
	}
	return out
}

// The world of testdata/capacity-v2-features.snap, built by today's
// scheduler, holds what the scheduler that wrote it held: node labels
// changed none of its decisions.
func TestV2FeaturesWorldDecidesAsBefore(t *testing.T) {
	var want []string
	j, err := os.ReadFile("testdata/capacity-v2-features.json")
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(j, &want))
	s, _ := v2FeaturesWorld(t)
	assert.Equal(t, want, v2FeaturesSummary(s))
}
