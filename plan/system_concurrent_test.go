package plan

import (
	"bytes"
	"sync"
	"testing"
	"time"

	"github.com/berthsched/berth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Concurrent submissions, deletions (through the system and the plan),
// updates, archivals, queue look-ups and snapshots on one system: no
// deadlock (s.mu then plan locks only), no race, every snapshot restores,
// no claim left behind, and an id is held by one plan at most.
func TestSystemConcurrentCalls(t *testing.T) {
	s := testSystem(t)
	ids := make([]ReservationID, 8)
	for i := range ids {
		ids[i] = s.NewReservationID()
	}
	def := simpleDef(10, 100, 5, 0)
	done := make(chan struct{})
	var wg sync.WaitGroup
	for g := 0; g < 6; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for k := 0; k < 200; k++ {
				id := ids[(g+k)%len(ids)]
				q := []string{"a", "b"}[(g+k/3)%2]
				switch (g + k) % 6 {
				case 0, 1:
					_ = s.Submit(SubmissionRequest{Queue: q, ID: id, Definition: &def, User: "u0"})
				case 2:
					_ = s.Delete(DeleteRequest{ID: id, User: "u0"})
				case 3:
					if p, ok := s.Plan(q); ok {
						_ = p.DeleteReservation(id)
					}
				case 4:
					_ = s.Update(UpdateRequest{ID: id, Definition: &def, User: "u0"})
					_, _ = s.QueueOf(id)
				case 5:
					var buf bytes.Buffer
					if assert.NoError(t, s.SaveState(&buf)) {
						_, err := RestoreSystem(&buf, RestoreEnv{Clock: berth.NewManualClock(1), Resolver: testResolver})
						assert.NoError(t, err)
					}
					_, _ = s.ArchiveCompleted(0)
				}
			}
		}(g)
	}
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("deadlock: concurrent system calls did not finish")
	}
	assertQueuesMatchPlans(t, s)
	for _, id := range ids {
		held := 0
		for _, p := range s.Plans() {
			if _, ok := p.Reservation(id); ok {
				held++
			}
		}
		assert.LessOrEqual(t, held, 1, "id %v", id)
	}
}

// A second submission of an id its queue holds succeeds unchanged with an
// equal definition and is ErrConflict with another; both leave the
// reservation and its queue as they were.
func TestSystemResubmitSameQueue(t *testing.T) {
	s := testSystem(t)
	id := s.NewReservationID()
	def := simpleDef(10, 100, 5, 0)
	require.NoError(t, s.Submit(SubmissionRequest{Queue: "a", ID: id, Definition: &def, User: "u0"}))
	a, _ := s.Plan("a")
	before, _ := a.Reservation(id)
	require.NoError(t, s.Submit(SubmissionRequest{Queue: "a", ID: id, Definition: &def, User: "u0"}))
	other := simpleDef(10, 100, 6, 0)
	err := s.Submit(SubmissionRequest{Queue: "a", ID: id, Definition: &other, User: "u0"})
	require.ErrorIs(t, err, berth.ErrConflict)
	err = s.Submit(SubmissionRequest{Queue: "b", ID: id, Definition: &def, User: "u0"})
	require.ErrorIs(t, err, berth.ErrConflict)
	after, ok := a.Reservation(id)
	require.True(t, ok)
	assert.Same(t, before, after)
	q, ok := s.QueueOf(id)
	assert.True(t, ok)
	assert.Equal(t, "a", q)
	assertQueuesMatchPlans(t, s)
}

// assertQueuesMatchPlans: once the system has forgotten what its plans
// removed, it maps exactly the ids its plans hold, each to its plan.
func assertQueuesMatchPlans(t *testing.T, s *System) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.forgetGoneLocked()
	held := 0
	for q, p := range s.plans {
		for _, a := range p.All() {
			held++
			assert.Equal(t, q, s.queues[a.ID], "id %v", a.ID)
		}
	}
	assert.Len(t, s.queues, held)
}
