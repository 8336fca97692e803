package plan

import (
	"errors"
	"testing"

	"github.com/berthsched/berth"
)

// FuzzPlanOps drives a plan with operations decoded from the input and
// checks, after each, that nothing panics, errors are typed, rejected
// changes leave the plan identical, and the aggregates equal the dense sum
// of the accepted reservations.
func FuzzPlanOps(f *testing.F) {
	f.Add([]byte{0, 10, 20, 5, 1, 0, 30, 10, 9, 2, 2, 0, 0, 0, 0})
	f.Add([]byte{0, 1, 1, 255, 0, 0, 1, 1, 255, 0, 3, 0, 0, 0, 0, 4, 200, 0, 0, 0})
	f.Add([]byte{5, 0, 90, 40, 3, 1, 50, 60, 12, 2, 1, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		clock := berth.NewManualClock(0)
		p, err := New(Config{Queue: "q", Capacity: c(40), Clock: clock, MaxPeriodicity: 200,
			Policy: testNoOverCommit{window: 10}, Step: 1})
		if err != nil {
			t.Fatal(err)
		}
		m := &model{allocs: map[ReservationID]*Allocation{}}
		for len(data) >= 5 {
			op, a, b, n, u := data[0]%6, berth.Time(data[1]), berth.Time(data[2]), int64(data[3]%50), data[4]
			data = data[5:]
			id := rid(int64(u%8) + 1)
			before := p.Snapshot()
			var err error
			switch op {
			case 0, 1, 2: // add or update an allocation [min, max) of n containers
				s, e := min(a, b), max(a, b)
				per := berth.Duration(0)
				if op == 2 {
					per = 100
					if e-s > per {
						e = s + per
					}
				}
				var al *Allocation
				al, err = NewAllocation(id, []string{"x", "y"}[u%2], simpleDef(s, e+1, 1, per), berth.Interval{Start: s, End: e + 1},
					[]IntervalResource{{Interval: berth.Interval{Start: s, End: e}, Resource: c(n)}})
				if err != nil {
					break
				}
				if _, exists := m.allocs[id]; exists {
					err = p.UpdateReservation(al)
				} else {
					err = p.AddReservation(al)
				}
				if err == nil {
					m.allocs[id], _ = p.Reservation(id)
				}
			case 3:
				err = p.DeleteReservation(id)
				if err == nil {
					delete(m.allocs, id)
				}
			case 4:
				clock.Advance(berth.Duration(a))
				var done []ReservationID
				done, err = p.ArchiveCompleted(clock.Now())
				for _, d := range done {
					delete(m.allocs, d)
				}
			case 5:
				_, err = p.AvailableResources("x", id, berth.Interval{Start: a, End: b}, berth.Duration(n))
				if err == nil || errors.Is(err, berth.ErrInvalidArgument) {
					err = nil
				}
			}
			if err != nil {
				var fe *berth.FieldError
				if !errors.As(err, &fe) && !errors.Is(err, berth.ErrCapacityExceeded) && !errors.Is(err, berth.ErrNotFound) {
					t.Fatalf("untyped error: %v", err)
				}
				if !before.Equal(p) {
					t.Fatalf("rejected op %d changed the plan: %v", op, err)
				}
			}
			if p.Len() != len(m.allocs) {
				t.Fatalf("plan holds %d, model %d", p.Len(), len(m.allocs))
			}
			for tt := berth.Time(0); tt < 300; tt += 3 {
				want := m.sum(tt, func(*Allocation) bool { return true })
				if got := p.TotalCommitted(tt); !want.Equal(got) {
					t.Fatalf("committed at %d: want %v got %v", tt, want, got)
				}
				if !want.FitsIn(p.Capacity()) {
					t.Fatalf("over-committed at %d: %v", tt, want)
				}
			}
		}
	})
}
