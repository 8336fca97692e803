package fair

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/berthsched/berth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// queueSettled is what applySettings and the steady shares leave on a
// queue, for comparing the two ways a cluster change can be applied.
func queueSettled(s *Scheduler) []string {
	var out []string
	for _, path := range sortedKeys(s.queues) {
		q := s.queues[path]
		out = append(out, fmt.Sprintf("%s max %v min %v w %v maxc %v steady %v timeouts %v/%v/%v pre %v plan %v",
			path, q.MaxShare, q.MinShare, q.Weight, q.maxContainer, q.SteadyFairShare,
			q.minShareTimeout, q.fairShareTimeout, q.fairShareThreshold, q.preemptable, q.plan))
	}
	return out
}

// TestClusterChangeMatchesReinit: a node added or removed re-resolves the
// maximum shares and the steady shares only; the queues must end exactly
// as if every setting had been applied afresh (what a node event did
// before), under absolute, percentage and per-type percentage maxima,
// maxChildResources, dynamic queues and reservation queues.
func TestClusterChangeMatchesReinit(t *testing.T) {
	xml := allocXML(`
<queue name="a"><maxResources>50%</maxResources><minResources>2048mb,2vcores</minResources>
  <queue name="a1"><maxResources>memory-mb=30%, vcores=60%</maxResources></queue>
  <queue name="a2"/>
</queue>
<queue name="b"><schedulingPolicy>drf</schedulingPolicy><maxChildResources>25%</maxChildResources>
  <queue name="b1"/>
</queue>
<queue name="c" type="parent"><maxResources>8192mb,8vcores</maxResources><weight>3</weight><maxChildResources>memory-mb=40%, vcores=20%</maxChildResources></queue>
<queue name="plan"><reservation/></queue>`)
	for seed := uint64(1); seed <= 20; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 7))
			af, err := ParseAllocationFile([]byte(xml), ParseOptions{})
			require.NoError(t, err)
			cfg := DefaultConfig()
			cfg.Allocation = af
			cfg.Clock = berth.NewManualClock(0)
			s, err := New(cfg)
			require.NoError(t, err)
			_, err = s.SubmitApp(AppSpec{ID: "dyn", Queue: "root.c.dynamic", User: "u"})
			require.NoError(t, err)
			require.NoError(t, s.AddReservationQueue("root.plan", "r1"))
			var live []string
			for step := 0; step < 60; step++ {
				live = nodeEventMatchesReinit(t, s, rng, live, step, fmt.Sprintf("step %d", step))
			}
			assert.NotEmpty(t, live)
		})
	}
}

// BenchmarkNodeEvent is the cost of adding then removing one node in the
// many-applications tree (110 queues, 5,000 nodes, 10,000 applications):
// a node event re-resolves the maximum and steady shares, O(queues), as
// YARN's recomputation of steady shares is.
func BenchmarkNodeEvent(b *testing.B) {
	s, _, _ := manyAppsWorld(b, "fair", 5000, 10000, 10)
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		if err := s.AddNode(NodeSpec{ID: "extra", Capability: berth.New(64*1024, 64)}); err != nil {
			b.Fatal(err)
		}
		if _, err := s.RemoveNode("extra"); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N)/2, "cpu-ns/event")
}

// nodeEventMatchesReinit adds a random node (named for step) or removes
// one of live, then checks every queue's cluster-dependent settings are
// what a full re-application of the file gives (failing with where); it
// returns the live nodes.
func nodeEventMatchesReinit(t *testing.T, s *Scheduler, rng *rand.Rand, live []string, step int, where string) []string {
	t.Helper()
	if len(live) == 0 || rng.IntN(3) > 0 {
		id := fmt.Sprintf("n%d", step)
		mem, vc := int64(1+rng.IntN(64))*1024, int64(1+rng.IntN(32))
		require.NoError(t, s.AddNode(NodeSpec{ID: id, Capability: berth.New(mem, vc)}))
		live = append(live, id)
	} else {
		i := rng.IntN(len(live))
		_, err := s.RemoveNode(live[i])
		require.NoError(t, err)
		live = slices.Delete(live, i, i+1)
	}
	got := queueSettled(s)
	s.reinit(s.root)
	s.recomputeSteady()
	require.Equal(t, queueSettled(s), got, where)
	return live
}
