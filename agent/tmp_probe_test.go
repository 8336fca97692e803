package agent_test

import (
	"slices"
	"testing"
	"time"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/plan"
)

func TestProbeCosts(t *testing.T) {
	reqs := w2Requests()[:5000]
	p, ag := w2Plan(t, 1)
	for i, r := range reqs {
		id := plan.ReservationID{ClusterTimestamp: 1, Sequence: int64(i + 1)}
		_ = ag.CreateReservation(p, id, r.user, r.definition())
	}
	const n = 300
	w := berth.Interval{Start: 200_000_000, End: 200_000_000 + 2*86_400_000}
	st := time.Now()
	for i := 0; i < n; i++ {
		s, _ := p.UserConsumption("u3", w)
		_ = s
	}
	t.Logf("UserConsumption 2d: %v", time.Since(st)/n)
	st = time.Now()
	for i := 0; i < n; i++ {
		_ = p.Reservations(plan.Filter{Window: &w, User: "u3"})
	}
	t.Logf("Reservations(user) 2d: %v", time.Since(st)/n)
	st = time.Now()
	var ev int
	for i := 0; i < n; i++ {
		as := p.Reservations(plan.Filter{Window: &w, User: "u3"})
		type e struct {
			t berth.Time
			r berth.Resource
		}
		evs := make([]e, 0, 4*len(as))
		for _, a := range as {
			for _, x := range a.Intervals {
				evs = append(evs, e{x.Interval.Start, x.Resource}, e{x.Interval.End, x.Resource.Neg()})
			}
		}
		slices.SortFunc(evs, func(a, b e) int { return int(a.t - b.t) })
		ev = len(evs)
	}
	t.Logf("Reservations+events 2d: %v (%d events)", time.Since(st)/n, ev)
	w2 := berth.Interval{Start: 200_000_000, End: 200_000_000 + 9_000_000}
	st = time.Now()
	for i := 0; i < n; i++ {
		s, _ := p.AvailableResources("u3", plan.ReservationID{}, w2, 0)
		_ = s
	}
	t.Logf("AvailableResources 2.5h: %v", time.Since(st)/n)
	st = time.Now()
	for i := 0; i < n; i++ {
		as := p.Reservations(plan.Filter{Window: &w2})
		ev = 0
		for _, a := range as {
			ev += len(a.Intervals)
		}
	}
	t.Logf("Reservations 2.5h: %v (%d intervals)", time.Since(st)/n, ev)
	st = time.Now()
	for i := 0; i < n; i++ {
		_ = p.TotalCommitted(w2.Start + int64(i))
	}
	t.Logf("TotalCommitted: %v", time.Since(st)/n)
}
