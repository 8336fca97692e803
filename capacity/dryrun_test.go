package capacity

import (
	"fmt"
	"testing"

	"github.com/berthsched/berth"
	"github.com/stretchr/testify/require"
)

// A dry run changes nothing (the snapshot bytes stay the same) and
// answers what the real heartbeat then does, activities included, with the host's ordering
// policies and calculator (which the copy resolves from the scheduler).
func TestDryRunIsTheHeartbeat(t *testing.T) {
	hosts := func(c *Config) {
		c.Root.Children[1].Settings.AppOrderingPolicy = byUserThenID{}
		c.Root.Settings.ChildOrderingPolicy = mostUsedFirst{}
		c.Calculator = hostCalc{}
	}
	for seed := uint64(1); seed <= 6; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			var mutate func(*Config)
			if seed%2 == 0 {
				mutate = hosts
			}
			s, clock, tw := buildRandomWith(t, seed, 40, mutate)
			allocated, acts := 0, 0
			for range 150 {
				clock.Advance(int64(tw.r.IntN(700)))
				tw.next(s, clock)(s)
				nodes := s.Snapshot().Nodes
				if len(nodes) == 0 || tw.r.IntN(3) > 0 {
					continue
				}
				node := nodes[tw.r.IntN(len(nodes))].ID
				saved := saveBytes(t, s)
				d, err := s.DryRun(node)
				require.NoError(t, err)
				require.Equal(t, saved, saveBytes(t, s), "a dry run changes nothing")
				require.NoError(t, s.RecordHeartbeat(node))
				als, err := s.Heartbeat(node, nil)
				require.NoError(t, err)
				require.Equal(t, als, d.Allocations)
				require.Equal(t, s.HeartbeatRecord(node), d.Activities)
				acts += len(d.Activities)
				allocated += len(als)
			}
			require.NoError(t, s.Check())
			require.Positive(t, allocated, "the dry runs allocated")
			require.Positive(t, acts, "the dry runs' walks said what they did")
		})
	}
	s, _, _ := buildRandom(t, 1, 10)
	_, err := s.DryRun("ghost")
	require.ErrorIs(t, err, berth.ErrNotFound)
}
