package capacity

import (
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An absolute guarantee keeps its extended resource types (the preemption
// policy normalizes guarantees per type), scaled like memory and vcores
// when the siblings ask for more than the parent has.
func TestAbsoluteGuaranteeKeepsExtendedTypes(t *testing.T) {
	gpu := func(m, v, g int64) berth.Resource {
		return berth.NewWithExtras(m, v, berth.Quantity{Name: berth.ResourceGPU, Value: g})
	}
	cfg := DefaultConfig()
	cfg.Calculator = berth.DominantCalculator{}
	a := Queue("a", 0)
	a.Capacity = queue.Absolute(gpu(40, 40, 6))
	b := Queue("b", 0)
	b.Capacity = queue.Absolute(gpu(40, 40, 6))
	cfg.Root.Children = []QueueConfig{a, b}
	s, err := New(cfg, berth.NewManualClock(0))
	require.NoError(t, err)
	require.NoError(t, s.AddNode(NodeSpec{ID: "n", Rack: "/r", Capability: gpu(100, 100, 8)}))
	snap := s.Snapshot()
	got := snap.Queues.Get(mustPath("root.a")).Extra.Guaranteed
	assert.Equal(t, int64(40), got.Memory)
	assert.Equal(t, int64(4), got.Extra(berth.ResourceGPU), "6 of 12 asked, 8 available")
}
