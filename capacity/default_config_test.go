package capacity_test

import (
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/capacity"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDefaultConfigSchedules is a newcomer's first try: the default
// configuration, untouched, is YARN's shipped tree (root with one "default"
// leaf at 100 %) and schedules an application submitted to "default".
func TestDefaultConfigSchedules(t *testing.T) {
	cfg := capacity.DefaultConfig()
	require.Len(t, cfg.Root.Children, 1)
	assert.Equal(t, "default", cfg.Root.Children[0].Name)

	clock := berth.NewManualClock(0)
	cfg.Clock = clock
	s, err := capacity.New(cfg)
	require.NoError(t, err)
	require.NoError(t, s.AddNode(capacity.NodeSpec{ID: "n1", Rack: "/r1", Capability: berth.New(8192, 8)}))

	q, err := s.SubmitApp(capacity.AppSpec{ID: "app_1", Queue: "default", User: "alice"})
	require.NoError(t, err)
	assert.Equal(t, "root.default", q)
	ask := capacity.Ask{Priority: 1, ResourceName: capacity.AnyResource, Capability: berth.New(1024, 1), Count: 2}
	_, err = s.Allocate("app_1", []capacity.Ask{ask}, nil)
	require.NoError(t, err)

	clock.Advance(1000)
	got, err := s.Heartbeat("n1", nil)
	require.NoError(t, err)
	require.NotEmpty(t, got, "the default tree must hand out containers")
	for _, a := range got {
		assert.Equal(t, "root.default", a.Queue)
		assert.Equal(t, berth.New(1024, 1), a.Resource)
	}
}
