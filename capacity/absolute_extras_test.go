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
	cfg.Clock = berth.NewManualClock(0)
	s, err := New(cfg)
	require.NoError(t, err)
	require.NoError(t, s.AddNode(NodeSpec{ID: "n", Rack: "/r", Capability: gpu(100, 100, 8)}))
	snap := s.Snapshot()
	got := snap.Queues.Get(mustPath("root.a")).Extra.Guaranteed
	assert.Equal(t, int64(40), got.Memory)
	assert.Equal(t, int64(4), got.Extra(berth.ResourceGPU), "6 of 12 asked, 8 available")
}

// Snapshot lists containers by id whether their ids are dense (slots) or
// sparse (sorted).
func TestSnapshotContainersByID(t *testing.T) {
	for _, keepEvery := range []int{1, 7} { // 7: most containers released, sparse ids
		cfg := DefaultConfig()
		cfg.Root.Children = []QueueConfig{Queue("a", 100)}
		cfg.MaxOffSwitchAssignments = 1000
		cfg.Clock = berth.NewManualClock(0)
		s, err := New(cfg)
		require.NoError(t, err)
		require.NoError(t, s.AddNode(NodeSpec{ID: "n", Rack: "/r", Capability: berth.New(1<<20, 1<<20)}))
		_, err = s.SubmitApp(AppSpec{ID: "x", Queue: "a", User: "u"})
		require.NoError(t, err)
		_, err = s.Allocate("x", []Ask{{Priority: 1, ResourceName: AnyResource, Capability: berth.New(1024, 1), Count: 700}}, nil)
		require.NoError(t, err)
		var al []Allocation
		for i := 0; i < 50 && len(al) < 700; i++ {
			got, err := s.Heartbeat("n", nil)
			require.NoError(t, err)
			al = append(al, got...)
		}
		require.Len(t, al, 700)
		var release []ContainerID
		for i, a := range al {
			if i%keepEvery != 0 {
				release = append(release, a.ID)
			}
		}
		_, err = s.Allocate("x", nil, release)
		require.NoError(t, err)
		snap := s.Snapshot()
		require.Len(t, snap.Containers, 700-len(release))
		for i := 1; i < len(snap.Containers); i++ {
			assert.Less(t, snap.Containers[i-1].ID, snap.Containers[i].ID)
		}
	}
}
