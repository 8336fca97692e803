package plan

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/berthsched/berth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// §10: ReservationSystemUtil.convertAllocationsToReservationInfo.
func TestVectorsReservationInfo(t *testing.T) {
	now := berth.Time(1_000_000)
	var ivs []IntervalResource
	for i := berth.Time(0); i < 3; i++ {
		ivs = append(ivs, IntervalResource{Interval: berth.Interval{Start: now + i*10000, End: now + (i+1)*10000}, Resource: c(10)})
	}
	def := simpleDef(now, now+30000, 10000, 0)
	a, err := NewAllocation(rid(1), "user", def, berth.Interval{Start: now, End: now + 30000}, ivs)
	require.NoError(t, err)
	empty, err := NewAllocation(rid(2), "user", def, berth.Interval{Start: now, End: now + 10000}, nil)
	require.NoError(t, err)

	info := InfoOf(a, true) // RSU-01
	assert.Equal(t, a.ID.String(), info.ID.String())
	assert.Len(t, info.Allocations, 3)
	assert.Equal(t, "user", info.User)
	info = InfoOf(a, false) // RSU-02
	assert.Equal(t, rid(1), info.ID)
	assert.Empty(t, info.Allocations)
	assert.Empty(t, InfoOf(empty, false).Allocations) // RSU-03

	// JSON uses YARN's REST names.
	b, err := json.Marshal(InfoOf(a, true))
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	for _, k := range []string{"acceptance-time", "user", "resource-allocations", "reservation-id", "reservation-definition"} {
		assert.Contains(t, m, k)
	}
	assert.Equal(t, "reservation_1404198295326_0001", m["reservation-id"])
	ra := m["resource-allocations"].([]any)[0].(map[string]any)
	assert.Equal(t, map[string]any{"memory": float64(10240), "vCores": float64(10)}, ra["resource"])
	assert.Equal(t, float64(now), ra["startTime"])
	var back ReservationInfo
	require.NoError(t, json.Unmarshal(b, &back))
	assert.True(t, back.Definition.Equal(a.Definition))
	assert.True(t, back.Allocations[2].Resource.Equal(c(10)))
}

// crmSystem is the TestClientRMService setup: plan "dedicated" of
// <102400,100> × 80%, NoOverCommit, test agent. The capacity is the one the
// plan follower sets (cluster × 80%, vcores kept): the creation capacity of
// PlanCapacity has one vcore under the memory calculator, as in YARN, and
// the test waits for the follower.
func crmSystem(t *testing.T, clock *berth.ManualClock) *System {
	t.Helper()
	s, err := NewSystem(SystemConfig{ClusterTimestamp: 1404198295326, Clock: clock})
	require.NoError(t, err)
	cfg := DefaultConfig("dedicated", berth.New(102400, 100).Mul(0.8), clock)
	cfg.Policy = testNoOverCommit{}
	cfg.Agent = testAgent{}
	added, err := s.Reinitialize(cfg)
	require.NoError(t, err)
	assert.Equal(t, []string{"dedicated"}, added)
	return s
}

func crmRequest(id ReservationID, n int64, arrival, deadline berth.Time, duration berth.Duration) SubmissionRequest {
	return SubmissionRequest{Queue: "dedicated", ID: id, User: "alice", Definition: &Definition{
		Arrival: arrival, Deadline: deadline, Name: "testClientRMService#reservation", Interpreter: RAll,
		Stages: []Stage{{Capability: berth.New(1024, 1), Containers: n, Concurrency: 1, Duration: duration}}}}
}

// §12: ClientRMService reservation API.
func TestVectorsClientRMService(t *testing.T) {
	const now, duration = berth.Time(1_700_000_000_000), berth.Duration(60_000)
	arrival, deadline := now, now+berth.Time(1.05*float64(duration))
	submit := func(t *testing.T, s *System) SubmissionRequest {
		id := s.NewReservation().ID
		req := crmRequest(id, 4, arrival, deadline, duration)
		require.NoError(t, s.Submit(req))
		return req
	}
	t.Run("CRM-01 create, idempotent, conflict", func(t *testing.T) {
		s := crmSystem(t, berth.NewManualClock(now))
		req := submit(t, s)
		p, _ := s.Plan("dedicated")
		require.NoError(t, s.Submit(req))
		assert.Equal(t, 1, p.Len(), "no second reservation")
		changed := crmRequest(req.ID, 4, now+duration, deadline+duration, duration)
		err := s.Submit(changed)
		require.Error(t, err)
		assert.ErrorIs(t, err, berth.ErrConflict)
		assert.Contains(t, err.Error(), "Reservation allocation already exists with the reservation id "+req.ID.String())
		q, ok := s.QueueOf(req.ID)
		assert.True(t, ok)
		assert.Equal(t, "dedicated", q)
	})
	t.Run("CRM-02 update", func(t *testing.T) {
		s := crmSystem(t, berth.NewManualClock(now))
		req := submit(t, s)
		upd := crmRequest(req.ID, 5, now, now+31_500, 30_000)
		require.NoError(t, s.Update(UpdateRequest{ID: req.ID, Definition: upd.Definition, User: "alice"}))
		p, _ := s.Plan("dedicated")
		a, ok := p.Reservation(req.ID)
		require.True(t, ok)
		assert.Equal(t, int64(5), a.Definition.Stages[0].Containers)
		assert.True(t, c(5).Equal(p.TotalCommitted(now)))
	})
	t.Run("CRM-03 list by id", func(t *testing.T) {
		s := crmSystem(t, berth.NewManualClock(now))
		req := submit(t, s)
		resp, err := s.List(ListRequest{Queue: "dedicated", ID: req.ID, Start: -1, End: -1})
		require.NoError(t, err)
		require.Len(t, resp.Reservations, 1)
		assert.Equal(t, req.ID, resp.Reservations[0].ID)
		assert.Empty(t, resp.Reservations[0].Allocations)
	})
	t.Run("CRM-04 list by window", func(t *testing.T) {
		s := crmSystem(t, berth.NewManualClock(now))
		req := submit(t, s)
		resp, err := s.List(ListRequest{Queue: "dedicated", Start: arrival + 30_000, End: arrival + 30_000, IncludeAllocations: true})
		require.NoError(t, err)
		require.Len(t, resp.Reservations, 1)
		resp, err = s.List(ListRequest{Queue: "dedicated", Start: 1, End: berth.MaxTime, IncludeAllocations: true})
		require.NoError(t, err)
		require.Len(t, resp.Reservations, 1)
		r := resp.Reservations[0]
		assert.Equal(t, req.ID, r.ID)
		assert.NotEmpty(t, r.Allocations)
		assert.Equal(t, "R_ALL", r.Definition.Interpreter.String())
		assert.Equal(t, duration, r.Definition.Stages[0].Duration)
	})
	t.Run("CRM-05 negative end means no end", func(t *testing.T) {
		s := crmSystem(t, berth.NewManualClock(now))
		submit(t, s)
		for _, end := range []berth.Time{-1, -10} {
			resp, err := s.List(ListRequest{Queue: "dedicated", Start: 1, End: end, IncludeAllocations: true})
			require.NoError(t, err)
			assert.Len(t, resp.Reservations, 1)
		}
	})
	t.Run("CRM-06 windows without reservations", func(t *testing.T) {
		s := crmSystem(t, berth.NewManualClock(now))
		submit(t, s)
		for _, w := range [][2]berth.Time{{berth.MaxTime, -1}, {deadline + 30_000, deadline + 60_000}, {0, arrival - 30_000}, {0, 1}} {
			resp, err := s.List(ListRequest{Queue: "dedicated", Start: w[0], End: w[1]})
			require.NoError(t, err)
			assert.Empty(t, resp.Reservations, "window %v", w)
		}
	})
	t.Run("CRM-07 delete", func(t *testing.T) {
		s := crmSystem(t, berth.NewManualClock(now))
		req := submit(t, s)
		require.NoError(t, s.Delete(DeleteRequest{ID: req.ID, User: "alice"}))
		resp, err := s.List(ListRequest{Queue: "dedicated", ID: req.ID, Start: -1, End: -1})
		require.NoError(t, err)
		assert.Empty(t, resp.Reservations)
		// Berth: a second delete fails in validation (YARN: in the plan).
		err = s.Delete(DeleteRequest{ID: req.ID})
		assert.ErrorIs(t, err, berth.ErrNotFound)
	})
	t.Run("failed placement is an error (YARN: success)", func(t *testing.T) {
		s := crmSystem(t, berth.NewManualClock(now))
		id := s.NewReservationID()
		req := crmRequest(id, 81, arrival, deadline, duration) // 81 > 80 containers
		err := s.Submit(req)
		require.Error(t, err)
		assert.ErrorIs(t, err, berth.ErrCapacityExceeded)
		_, ok := s.QueueOf(id)
		assert.False(t, ok)
	})
	t.Run("update failure keeps the old reservation", func(t *testing.T) {
		s := crmSystem(t, berth.NewManualClock(now))
		req := submit(t, s)
		p, _ := s.Plan("dedicated")
		before := p.Snapshot()
		upd := crmRequest(req.ID, 200, now, now+31_500, 30_000)
		err := s.Update(UpdateRequest{ID: req.ID, Definition: upd.Definition, User: "alice"})
		require.Error(t, err)
		assert.ErrorIs(t, err, berth.ErrCapacityExceeded)
		assert.True(t, before.Equal(p))
	})
	t.Run("same id in another queue", func(t *testing.T) {
		s := crmSystem(t, berth.NewManualClock(now))
		cfg := DefaultConfig("other", berth.New(10240, 10), berth.NewManualClock(now))
		cfg.Agent = testAgent{}
		_, err := s.Reinitialize(cfg)
		require.NoError(t, err)
		req := submit(t, s)
		req.Queue = "other"
		err = s.Submit(req)
		assert.ErrorIs(t, err, berth.ErrConflict)
		o, _ := s.Plan("other")
		assert.Equal(t, 0, o.Len())
		q, _ := s.QueueOf(req.ID)
		assert.Equal(t, "dedicated", q)
	})
	t.Run("no agent", func(t *testing.T) {
		s, err := NewSystem(SystemConfig{Clock: berth.NewManualClock(now)})
		require.NoError(t, err)
		_, err = s.Reinitialize(DefaultConfig("q", berth.New(10240, 10), berth.NewManualClock(now)))
		require.NoError(t, err)
		req := crmRequest(s.NewReservationID(), 1, arrival, deadline, duration)
		req.Queue = "q"
		err = s.Submit(req)
		assert.ErrorIs(t, err, berth.ErrInvalidState)
		assert.ErrorIs(t, err, ErrNoAgent)
	})
}

// §13: ReservationSystem initialise / reinitialise.
func TestVectorsReservationSystem(t *testing.T) {
	clock := berth.NewManualClock(0)
	s, err := NewSystem(SystemConfig{ClusterTimestamp: 5, Clock: clock})
	require.NoError(t, err)
	cluster, minAlloc := berth.New(10240, 10), berth.New(1024, 1)
	calc := berth.MemoryCalculator{}
	mk := func(q string, abs float64) Config {
		cfg := DefaultConfig(q, PlanCapacity(calc, cluster, abs, minAlloc), clock)
		cfg.Agent, cfg.Policy = testAgent{}, testNoOverCommit{}
		return cfg
	}
	// SYS-01.
	added, err := s.Reinitialize(mk("dedicated", 0.8))
	require.NoError(t, err)
	assert.Equal(t, []string{"dedicated"}, added)
	p, ok := s.Plan("dedicated")
	require.True(t, ok)
	assert.Equal(t, "dedicated", p.QueueName())
	assert.Equal(t, int64(8192), p.Capacity().Memory)
	// SYS-02: a new reservable queue gets a plan, the old one is kept.
	_, ok = s.Plan("reservation")
	assert.False(t, ok)
	added, err = s.Reinitialize(mk("dedicated", 0.1), mk("reservation", 0.8))
	require.NoError(t, err)
	assert.Equal(t, []string{"reservation"}, added)
	r, ok := s.Plan("reservation")
	require.True(t, ok)
	assert.Equal(t, int64(8192), r.Capacity().Memory)
	again, _ := s.Plan("dedicated")
	assert.Same(t, p, again)
	assert.Equal(t, int64(8192), again.Capacity().Memory)
	assert.Len(t, s.Plans(), 2)
	// Ids: cluster timestamp and a counter from 1.
	assert.Equal(t, ReservationID{ClusterTimestamp: 5, Sequence: 1}, s.NewReservationID())
	assert.Equal(t, ReservationID{ClusterTimestamp: 5, Sequence: 2}, s.NewReservationID())
	// AddPlan refuses a second plan for a queue.
	err = s.AddPlan(again)
	assert.ErrorIs(t, err, berth.ErrAlreadyExists)
	// Invalid config: nothing added.
	bad := mk("bad", 0.5)
	bad.Clock = nil
	_, err = s.Reinitialize(mk("fine", 0.1), bad)
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)
	_, ok = s.Plan("fine")
	assert.False(t, ok)
}

// Concurrent submitters and readers on one system (run with -race).
func TestSystemConcurrent(t *testing.T) {
	const now = berth.Time(1_000_000)
	s := crmSystem(t, berth.NewManualClock(now))
	p, _ := s.Plan("dedicated")
	var wg sync.WaitGroup
	const workers, each = 4, 15
	ids := make([][]ReservationID, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				id := s.NewReservationID()
				arr := now + berth.Time(i*1000)
				req := crmRequest(id, 1, arr, arr+5000, 2000)
				err := s.Submit(req)
				if err != nil && !errors.Is(err, berth.ErrCapacityExceeded) {
					t.Errorf("submit: %v", err)
				}
				if err == nil {
					ids[w] = append(ids[w], id)
					// Same id again, concurrently with others: idempotent.
					if err := s.Submit(req); err != nil {
						t.Errorf("resubmit: %v", err)
					}
				}
			}
		}(w)
	}
	for r := 0; r < 2; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 40; i++ {
				_ = p.TotalCommitted(now + berth.Time(i*500))
				_, _ = p.AvailableResources("alice", ReservationID{}, berth.Interval{Start: now, End: now + 20000}, 0)
				_ = p.ReservationsAt(now + berth.Time(i*500))
				_, _ = s.List(ListRequest{Queue: "dedicated", Start: -1, End: -1})
				snap := p.Snapshot()
				_ = snap.Len()
			}
		}()
	}
	wg.Wait()
	total := 0
	for _, l := range ids {
		total += len(l)
	}
	assert.Equal(t, total, p.Len())
	// Never over-committed: the policy ran on every add.
	for tt := now; tt < now+20000; tt += 250 {
		assert.True(t, p.TotalCommitted(tt).FitsIn(p.Capacity()), "at %d", tt)
	}
}

// A REST submit body (YARN's documented example) decodes into a request
// the system accepts.
func TestSubmissionRequestJSON(t *testing.T) {
	body := `{
	  "queue": "dedicated",
	  "reservation-id": "reservation_1404198295326_0001",
	  "reservation-definition": {
	    "arrival": 1765541532000, "deadline": 1765542252000,
	    "reservation-name": "res_1",
	    "reservation-requests": {
	      "reservation-request-interpreter": 0,
	      "reservation-request": [{"duration": 60000, "num-containers": 20, "min-concurrency": 20,
	        "capability": {"memory": 1024, "vCores": 1}}]}}}`
	var req SubmissionRequest
	require.NoError(t, json.Unmarshal([]byte(body), &req))
	req.User = "alice"
	assert.Equal(t, ReservationID{1404198295326, 1}, req.ID)
	require.NotNil(t, req.Definition)
	assert.Equal(t, RAny, req.Definition.Interpreter)
	s := crmSystem(t, berth.NewManualClock(1765541531000))
	require.NoError(t, s.Submit(req))
	p, _ := s.Plan("dedicated")
	assert.True(t, c(20).Equal(p.TotalCommitted(1765541532000)))
	var upd UpdateRequest
	require.NoError(t, json.Unmarshal([]byte(`{"reservation-id":"reservation_1404198295326_0001","reservation-definition":{"deadline":5}}`), &upd))
	assert.Equal(t, berth.Time(5), upd.Definition.Deadline)
	var del DeleteRequest
	require.NoError(t, json.Unmarshal([]byte(`{"reservation-id":"reservation_1404198295326_0001"}`), &del))
	assert.Equal(t, req.ID, del.ID)
	b, err := json.Marshal(ListResponse{Reservations: []ReservationInfo{}})
	require.NoError(t, err)
	assert.JSONEq(t, `{"reservations":[]}`, string(b))
}

// TestSystemForgetsWhatItsPlansRemove: an id removed by its plan directly
// (the plan follower archives, a replanner deletes) has no queue any more
// and can be used again in another queue; the system keeps nothing per
// removed id (YARN's map from id to queue keeps every id ever submitted).
func TestSystemForgetsWhatItsPlansRemove(t *testing.T) {
	s := testSystem(t)
	a, _ := s.Plan("a")
	ids := a.All()
	require.GreaterOrEqual(t, len(ids), 3)
	for _, al := range ids {
		q, ok := s.QueueOf(al.ID)
		require.True(t, ok)
		require.Equal(t, "a", q)
	}

	deleted := ids[0].ID
	require.NoError(t, a.DeleteReservation(deleted))
	_, ok := s.QueueOf(deleted)
	assert.False(t, ok, "deleted through the plan")
	_, err := s.ValidateDelete(DeleteRequest{ID: deleted})
	assert.ErrorIs(t, err, berth.ErrNotFound)

	archived, err := a.ArchiveCompleted(berth.MaxTime)
	require.NoError(t, err)
	require.NotEmpty(t, archived)
	for _, id := range archived {
		_, ok := s.QueueOf(id)
		assert.False(t, ok, "archived through the plan: %v", id)
	}
	held := 0
	for _, p := range s.Plans() {
		held += p.Len()
	}
	s.mu.Lock()
	assert.Len(t, s.queues, held, "the system keeps one entry per id its plans hold")
	s.mu.Unlock()

	// The removed id may now go to the other queue; one still held may not.
	def := simpleDef(10, 100, 5, 0)
	require.NoError(t, s.Submit(SubmissionRequest{Queue: "b", ID: deleted, Definition: &def, User: "u0"}))
	q, ok := s.QueueOf(deleted)
	assert.True(t, ok)
	assert.Equal(t, "b", q)
	err = s.Submit(SubmissionRequest{Queue: "a", ID: deleted, Definition: &def, User: "u0"})
	assert.ErrorIs(t, err, berth.ErrConflict)
}

// TestSystemClaimsOneQueuePerID: submissions of one id to two queues at
// once place it in one queue, which is the queue the system then gives.
func TestSystemClaimsOneQueuePerID(t *testing.T) {
	for round := 0; round < 50; round++ {
		s := testSystem(t)
		id := s.NewReservationID()
		def := simpleDef(10, 100, 5, 0)
		var wg sync.WaitGroup
		errs := make([]error, 4)
		for w := range errs {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				errs[w] = s.Submit(SubmissionRequest{Queue: []string{"a", "b"}[w%2], ID: id, Definition: &def, User: "u0"})
			}(w)
		}
		wg.Wait()
		held := 0
		for _, q := range []string{"a", "b"} {
			p, _ := s.Plan(q)
			if _, ok := p.Reservation(id); ok {
				held++
			}
		}
		assert.Equal(t, 1, held, "round %d: %v", round, errs)
		for _, err := range errs {
			if err != nil {
				assert.ErrorIs(t, err, berth.ErrConflict)
			}
		}
		q, ok := s.QueueOf(id)
		require.True(t, ok)
		p, _ := s.Plan(q)
		_, inPlan := p.Reservation(id)
		assert.True(t, inPlan, "the id's queue is the plan holding it")
	}
}

// stallPolicy admits everything, but its Validate (run under the plan's
// write lock) waits for release once entered is signalled. entered has
// room for one signal, so the first Validate stalls whether or not the
// test is receiving yet (unbuffered, a Validate that came first skipped
// the stall and the test waited for entered for ever).
type stallPolicy struct {
	testNoOverCommit
	entered chan struct{}
	release chan struct{}
}

func (p stallPolicy) Validate(view *Plan, a *Allocation) error {
	select {
	case p.entered <- struct{}{}:
		<-p.release
	default:
	}
	return nil
}

// TestSystemCallsDoNotWaitOnAnotherPlan: while one plan is held by a long
// change (its policy's check, under the plan's write lock), submissions to
// another plan and lookups of its ids go through.
func TestSystemCallsDoNotWaitOnAnotherPlan(t *testing.T) {
	clock := berth.NewManualClock(1)
	s, err := NewSystem(SystemConfig{ClusterTimestamp: 1, Clock: clock})
	require.NoError(t, err)
	stall := stallPolicy{entered: make(chan struct{}, 1), release: make(chan struct{})}
	for _, q := range []string{"a", "b"} {
		cfg := testPlanConfig()
		cfg.Queue, cfg.Clock = q, clock
		if q == "a" {
			cfg.Policy = stall
		}
		p, err := New(cfg)
		require.NoError(t, err)
		require.NoError(t, s.AddPlan(p))
	}
	def := simpleDef(10, 100, 5, 0)
	held := make(chan error, 1)
	go func() {
		held <- s.Submit(SubmissionRequest{Queue: "a", ID: s.NewReservationID(), Definition: &def, User: "u"})
	}()
	<-stall.entered // plan a's write lock is held from here until release

	done := make(chan error, 1)
	other := s.NewReservationID()
	go func() {
		err := s.Submit(SubmissionRequest{Queue: "b", ID: other, Definition: &def, User: "u"})
		if err == nil {
			if q, ok := s.QueueOf(other); !ok || q != "b" {
				err = fmt.Errorf("QueueOf = %q, %v", q, ok)
			}
		}
		done <- err
	}()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		close(stall.release)
		t.Fatal("a submission to plan b waited on plan a's change")
	}
	close(stall.release)
	require.NoError(t, <-held)
}

// TestSystemSnapshotLeavesOutRemovedIDs: ids a plan removed directly and
// the system has not yet forgotten are not written, so a restored system
// does not answer for them either.
func TestSystemSnapshotLeavesOutRemovedIDs(t *testing.T) {
	s := testSystem(t)
	a, _ := s.Plan("a")
	gone := a.All()[0].ID
	require.NoError(t, a.DeleteReservation(gone)) // no system call since
	r, err := RestoreSystem(bytes.NewReader(saveSystem(t, s)), RestoreEnv{Clock: berth.NewManualClock(1), Resolver: testResolver})
	require.NoError(t, err)
	_, ok := r.QueueOf(gone)
	assert.False(t, ok)
	_, ok = s.QueueOf(gone)
	assert.False(t, ok)
	assert.Equal(t, saveSystem(t, s), saveSystem(t, r), "the same system either way")
}
