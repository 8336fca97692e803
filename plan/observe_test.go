package plan

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/berthsched/berth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type lineObserver struct {
	lines  []string
	events []ReservationEvent
}

func (o *lineObserver) ObserveReservation(e ReservationEvent) {
	l := fmt.Sprintf("%s %s r%d %s", e.Kind, e.Plan, e.ID.Sequence, e.User)
	if e.Allocation != nil {
		l += fmt.Sprintf(" [%d,%d)", e.Allocation.Start, e.Allocation.End)
	}
	if e.Err != nil {
		l += " err"
	}
	o.lines = append(o.lines, l)
	o.events = append(o.events, e)
}

func TestObserverSequence(t *testing.T) {
	const now, d = berth.Time(1_000_000), berth.Duration(60_000)
	clock := berth.NewManualClock(now)
	s := crmSystem(t, clock)
	p, _ := s.Plan("dedicated")
	o := &lineObserver{}
	p.SetObserver(o)
	r1 := crmRequest(rid(1), 4, now, now+2*d, d)
	require.NoError(t, s.Submit(r1))
	require.NoError(t, s.Submit(r1), "idempotent: nothing to report")
	require.Error(t, s.Submit(crmRequest(rid(2), 1000, now, now+2*d, d)), "too big")
	require.Error(t, s.Submit(crmRequest(rid(1), 4, now+d, now+3*d, d)), "same id, other definition")
	require.NoError(t, s.Update(UpdateRequest{ID: rid(1), User: "bob", Definition: crmRequest(rid(1), 5, now+d, now+3*d, d).Definition}))
	require.Error(t, s.Update(UpdateRequest{ID: rid(1), User: "bob", Definition: crmRequest(rid(1), 1000, now, now+2*d, d).Definition}))
	// A snapshot (an agent planning speculatively) reports nothing.
	snap := p.Snapshot()
	require.NoError(t, snap.DeleteReservation(rid(1)))
	require.NoError(t, s.Delete(DeleteRequest{ID: rid(1), User: "alice"}))
	require.NoError(t, s.Submit(crmRequest(rid(3), 1, now, now+d, d)))
	clock.Set(now + 2*d)
	ids, err := s.ArchiveCompleted(now + 2*d)
	require.NoError(t, err)
	assert.Equal(t, []ReservationID{rid(3)}, ids)
	assert.Equal(t, []string{
		// (the test agent's allocations span the whole window)
		"accepted dedicated r1 alice [1000000,1120000)",
		"rejected dedicated r2 alice err",
		"rejected dedicated r1 alice err",
		"updated dedicated r1 bob [1060000,1180000)",
		"update-rejected dedicated r1 bob err",
		"deleted dedicated r1 bob [1060000,1180000)",
		"accepted dedicated r3 alice [1000000,1060000)",
		"expired dedicated r3 alice [1000000,1060000)",
	}, o.lines)
	for _, e := range o.events {
		assert.Equal(t, "dedicated", e.Plan)
		if e.Kind == ReservationAccepted || e.Kind == ReservationUpdated {
			assert.Equal(t, e.Time, e.Allocation.AcceptedAt, "stamped when accepted")
		}
	}
	var fe *berth.FieldError
	assert.ErrorAs(t, o.events[2].Err, &fe, "the error Submit returned")
}

// TestObserverProperty: on random submissions, updates, deletions and
// archivals, the reservations the events describe are the plan's after
// every step, with the same allocations.
func TestObserverProperty(t *testing.T) {
	const d = berth.Duration(60_000)
	for seed := uint64(1); seed <= 20; seed++ {
		r := rand.New(rand.NewPCG(seed, 3))
		clock := berth.NewManualClock(0)
		s := crmSystem(t, clock)
		p, _ := s.Plan("dedicated")
		live := map[ReservationID]*Allocation{}
		p.SetObserver(observerFunc(func(e ReservationEvent) {
			switch e.Kind {
			case ReservationAccepted:
				require.NotContains(t, live, e.ID)
				live[e.ID] = e.Allocation
			case ReservationUpdated:
				require.Contains(t, live, e.ID)
				live[e.ID] = e.Allocation
			case ReservationDeleted, ReservationExpired:
				require.Equal(t, live[e.ID], e.Allocation)
				delete(live, e.ID)
			case ReservationRejected, ReservationUpdateRejected:
				require.Error(t, e.Err)
				require.Nil(t, e.Allocation)
			}
		}))
		for step := range 200 {
			now := clock.Now()
			id := rid(int64(1 + r.IntN(12)))
			n := int64(1 + r.IntN(40))
			start := now + berth.Time(r.IntN(5))*d
			switch r.IntN(5) {
			case 0, 1:
				_ = s.Submit(crmRequest(id, n, start, start+2*d, d))
			case 2:
				_ = s.Update(UpdateRequest{ID: id, User: "alice", Definition: crmRequest(id, n, start, start+2*d, d).Definition})
			case 3:
				_ = s.Delete(DeleteRequest{ID: id, User: "alice"})
			case 4:
				clock.Advance(int64(r.IntN(3)) * d)
				_, err := s.ArchiveCompleted(clock.Now())
				require.NoError(t, err)
			}
			var got, want []ReservationID
			for _, a := range p.All() {
				want = append(want, a.ID)
				require.Same(t, a, live[a.ID], "seed %d step %d", seed, step)
			}
			for id := range live {
				got = append(got, id)
			}
			slices.SortFunc(got, func(a, b ReservationID) int { return int(a.Sequence - b.Sequence) })
			slices.SortFunc(want, func(a, b ReservationID) int { return int(a.Sequence - b.Sequence) })
			require.Equal(t, want, got, "seed %d step %d", seed, step)
		}
	}
}

type observerFunc func(ReservationEvent)

func (f observerFunc) ObserveReservation(e ReservationEvent) { f(e) }

// TestObserverConcurrentSubmissions: parallel submissions to one plan, one
// observer without a lock (the plan's write lock serializes it); its
// acceptances are the plan's reservations.
func TestObserverConcurrentSubmissions(t *testing.T) {
	const d = berth.Duration(60_000)
	s := crmSystem(t, berth.NewManualClock(0))
	p, _ := s.Plan("dedicated")
	accepted, rejected := 0, 0
	p.SetObserver(observerFunc(func(e ReservationEvent) {
		switch e.Kind {
		case ReservationAccepted:
			accepted++
		case ReservationRejected:
			rejected++
		}
	}))
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 25 {
				id := rid(int64(1 + g*100 + i))
				_ = s.Submit(crmRequest(id, int64(1+i%7), berth.Time(i)*d, berth.Time(i+3)*d, d))
			}
		}()
	}
	wg.Wait()
	p.SetObserver(nil)
	assert.Equal(t, p.Len(), accepted)
	assert.Equal(t, 100, accepted+rejected)
}

// TestSystemObserverReachesEveryPlan: one System.SetObserver covers the
// plans there are and the plans added later, by AddPlan and Reinitialize;
// nil turns it off everywhere.
func TestSystemObserverReachesEveryPlan(t *testing.T) {
	const now, d = berth.Time(1_000_000), berth.Duration(60_000)
	clock := berth.NewManualClock(now)
	s := crmSystem(t, clock)
	o := &lineObserver{}
	s.SetObserver(o)

	second := DefaultConfig("batch", berth.New(102400, 100), clock)
	second.Policy, second.Agent = testNoOverCommit{}, testAgent{}
	_, err := s.Reinitialize(second)
	require.NoError(t, err)
	third := DefaultConfig("adhoc", berth.New(102400, 100), clock)
	third.Policy, third.Agent = testNoOverCommit{}, testAgent{}
	p3, err := New(third)
	require.NoError(t, err)
	require.NoError(t, s.AddPlan(p3))

	for i, q := range []string{"dedicated", "batch", "adhoc"} {
		req := crmRequest(rid(int64(i+1)), 2, now, now+d, d)
		req.Queue = q
		require.NoError(t, s.Submit(req))
	}
	assert.Equal(t, []string{
		"accepted dedicated r1 alice [1000000,1060000)",
		"accepted batch r2 alice [1000000,1060000)",
		"accepted adhoc r3 alice [1000000,1060000)",
	}, o.lines)

	s.SetObserver(nil)
	req := crmRequest(rid(4), 2, now, now+d, d)
	require.NoError(t, s.Submit(req))
	assert.Len(t, o.lines, 3, "no observer after SetObserver(nil)")
}
