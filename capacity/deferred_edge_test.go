package capacity

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/berthsched/berth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// reservationWorld is orderConfig's tree with one node and a reservation
// queue r1 of plan c entitled to half the plan, holding app1 with
// containers allocated by heartbeats (so their accounting is deferred).
func reservationWorld(t *testing.T) (*Scheduler, *berth.ManualClock) {
	t.Helper()
	clock := berth.NewManualClock(0)
	cfg := orderConfig(0, false)
	cfg.Clock = clock
	s, err := New(cfg)
	require.NoError(t, err)
	require.NoError(t, s.AddNode(NodeSpec{ID: "n1", Rack: "/r", Capability: berth.New(64*1024, 64)}))
	require.NoError(t, s.AddReservationQueue("c", "r1"))
	require.NoError(t, s.SetEntitlement("c-default", Entitlement{Capacity: 0.5, MaxCapacity: 1}))
	require.NoError(t, s.SetEntitlement("r1", Entitlement{Capacity: 0.5, MaxCapacity: 1}))
	_, err = s.SubmitApp(AppSpec{ID: "app1", Queue: "r1", User: "u1"})
	require.NoError(t, err)
	_, err = s.Allocate("app1", []Ask{{Priority: 1, ResourceName: AnyResource, Capability: berth.New(1024, 1), Count: 4}}, nil)
	require.NoError(t, err)
	als, err := s.Heartbeat("n1", nil)
	require.NoError(t, err)
	require.NotEmpty(t, als)
	require.NotEmpty(t, s.acctDirty, "the allocations' accounting is deferred")
	return s, clock
}

// TestDeferredAccountingReservationQueueLifecycle: an application of a
// reservation queue leaves it (killed, finished, moved) right after
// allocations whose tree accounting is still deferred; the queue must
// then be removable, as it is with eager accounting.
func TestDeferredAccountingReservationQueueLifecycle(t *testing.T) {
	for _, how := range []string{"kill", "kill-in-queue", "finish", "move"} {
		t.Run(how, func(t *testing.T) {
			s, _ := reservationWorld(t)
			var err error
			switch how {
			case "kill":
				_, err = s.KillApp("app1")
			case "kill-in-queue":
				_, err = s.KillAppsInQueue("r1")
			case "finish":
				_, err = s.FinishApp("app1")
			case "move":
				_, err = s.MoveApp("app1", "b")
			}
			require.NoError(t, err)
			require.NoError(t, s.SetEntitlement("r1", Entitlement{Capacity: 0, MaxCapacity: 1}))
			assert.NoError(t, s.RemoveReservationQueue("r1"))
			assert.NoError(t, s.Check())
		})
	}
}

// TestDeferredAccountingSurvivesSaveRestore: a snapshot taken while the
// accounting is deferred restores to the same state.
func TestDeferredAccountingSurvivesSaveRestore(t *testing.T) {
	s, clock := reservationWorld(t)
	var buf bytes.Buffer
	require.NoError(t, s.SaveState(&buf))
	require.NotEmpty(t, s.acctDirty, "SaveState reads the mirror only")
	r, err := RestoreScheduler(&buf, RestoreEnv{Clock: clock})
	require.NoError(t, err)
	require.NoError(t, r.Check())
	assert.Equal(t, s.Snapshot(), r.Snapshot())
	for i := range 3 {
		a1, e1 := s.Heartbeat("n1", nil)
		a2, e2 := r.Heartbeat("n1", nil)
		assert.Equal(t, fmt.Sprint(a1, e1), fmt.Sprint(a2, e2), "heartbeat %d", i)
	}
}
