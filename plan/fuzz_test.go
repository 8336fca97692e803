package plan

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/rle"
)

// fuzzCheck compares a plan with its model: size, indexes, the committed
// resources, their integrals and peaks, the selection of reservations over a few
// windows.
func fuzzCheck(t *testing.T, p *Plan, m *model, what string) {
	t.Helper()
	if err := checkState(p); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if p.Len() != len(m.allocs) {
		t.Fatalf("%s holds %d, model %d", what, p.Len(), len(m.allocs))
	}
	for _, a := range m.allocs {
		steps, err := a.AppendSteps(nil, berth.Interval{Start: 20, End: 230})
		if err != nil {
			t.Fatalf("%s: steps of %v: %v", what, a.ID, err)
		}
		for _, st := range steps {
			for _, tt := range []berth.Time{st.Interval.Start, st.Interval.End - 1} {
				if got := contribution(a, tt); !got.Equal(st.Value) || st.Value.IsZero() {
					t.Fatalf("%s: step %v of %v: holds %v at %d", what, st, a.ID, got, tt)
				}
			}
		}
	}
	for tt := berth.Time(0); tt < 300; tt += 3 {
		want := m.sum(tt, func(*Allocation) bool { return true })
		if got := p.TotalCommitted(tt); !want.Equal(got) {
			t.Fatalf("%s: committed at %d: want %v got %v", what, tt, want, got)
		}
		if !want.FitsIn(p.Capacity()) {
			t.Fatalf("%s: over-committed at %d: %v", what, tt, want)
		}
	}
	for _, w := range [][2]berth.Time{{0, 0}, {17, 60}, {95, 195}, {140, 260}, {-5, 400}, {50, 40}} {
		for _, u := range []string{"", "x"} {
			if err := checkIntegral(p, m, berth.Interval{Start: w[0], End: w[1]}, u); err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			if u == "" {
				if err := checkPeak(p, m, berth.Interval{Start: w[0], End: w[1]}); err != nil {
					t.Fatalf("%s: %v", what, err)
				}
			}
			got := ids(p.Reservations(Filter{Window: &berth.Interval{Start: w[0], End: w[1]}, User: u}))
			want := m.sorted(func(a *Allocation) bool { return (u == "" || a.User == u) && bruteOverlap(a, w[0], w[1]) })
			if !slices.Equal(got, want) {
				t.Fatalf("%s: reservations of %q over %v: want %v got %v", what, u, w, want, got)
			}
		}
	}
}

// FuzzPlanOps drives a plan, and snapshots of it, with operations decoded
// from the input and checks, after each, that nothing panics, errors are
// typed, rejected changes leave the plan identical, the indexes are sound,
// and the aggregates and selections equal those of a model of the accepted
// reservations; snapshots keep their contents while the plan and they
// change independently.
func FuzzPlanOps(f *testing.F) {
	f.Add([]byte{0, 10, 20, 5, 1, 0, 30, 10, 9, 2, 2, 0, 0, 0, 0})
	f.Add([]byte{0, 1, 1, 255, 0, 0, 1, 1, 255, 0, 3, 0, 0, 0, 0, 4, 200, 0, 0, 0})
	f.Add([]byte{5, 0, 90, 40, 3, 1, 50, 60, 12, 2, 1, 0, 0, 0, 0})
	f.Add([]byte{0, 10, 50, 5, 1, 6, 0, 0, 0, 0, 0, 20, 70, 9, 2, 7, 30, 90, 3, 3, 3, 0, 0, 0, 1, 1, 40, 60, 2, 1})
	f.Add([]byte{2, 190, 10, 7, 0, 2, 5, 99, 3, 1, 6, 0, 0, 0, 0, 3, 0, 0, 0, 0, 7, 0, 100, 4, 4, 2, 150, 250, 2, 2})
	f.Fuzz(fuzzBody)
}

func fuzzBody(t *testing.T, data []byte) {
	{
		clock := berth.NewManualClock(0)
		p, err := New(Config{Queue: "q", Capacity: c(40), Clock: clock, MaxPeriodicity: 200,
			Policy: testNoOverCommit{window: 10}, Step: 1})
		if err != nil {
			t.Fatal(err)
		}
		m := &model{allocs: map[ReservationID]*Allocation{}}
		type saved struct {
			p *Plan
			m *model
		}
		var snaps []saved
		for len(data) >= 5 {
			op, a, b, n, u := data[0]%8, berth.Time(data[1]), berth.Time(data[2]), int64(data[3]%50), data[4]
			data = data[5:]
			id := rid(int64(u%8) + 1)
			target, tm := p, m
			if op == 7 && len(snaps) > 0 { // change the latest snapshot instead
				target, tm = snaps[len(snaps)-1].p, snaps[len(snaps)-1].m
				op = data0(a)
			}
			beforeAll, beforeCap := target.All(), target.Capacity()
			var err error
			switch op {
			case 0, 1, 2, 7: // add or update an allocation [min, max) of n containers
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
				if _, exists := tm.allocs[id]; exists {
					err = target.UpdateReservation(al)
				} else {
					err = target.AddReservation(al)
				}
				if err == nil {
					tm.allocs[id], _ = target.Reservation(id)
				}
			case 3:
				err = target.DeleteReservation(id)
				if err == nil {
					delete(tm.allocs, id)
				}
			case 4:
				clock.Advance(berth.Duration(a))
				var done []ReservationID
				done, err = target.ArchiveCompleted(clock.Now())
				for _, d := range done {
					delete(tm.allocs, d)
				}
			case 5:
				_, err = target.AvailableResources("x", id, berth.Interval{Start: a, End: b}, berth.Duration(n))
				if err == nil || errors.Is(err, berth.ErrInvalidArgument) {
					err = nil
				}
			case 6:
				if len(snaps) < 4 {
					snaps = append(snaps, saved{p: p.Snapshot(), m: &model{allocs: maps.Clone(m.allocs)}})
				}
			}
			if err != nil {
				var fe *berth.FieldError
				if !errors.As(err, &fe) && !errors.Is(err, berth.ErrCapacityExceeded) && !errors.Is(err, berth.ErrNotFound) {
					t.Fatalf("untyped error: %v", err)
				}
				if !slices.Equal(beforeAll, target.All()) || !beforeCap.Equal(target.Capacity()) {
					t.Fatalf("rejected op %d changed the plan: %v", op, err)
				}
			}
			fuzzCheck(t, p, m, "plan")
			for i, s := range snaps {
				fuzzCheck(t, s.p, s.m, "snapshot "+string(rune('0'+i)))
			}
		}
	}
}

// data0 maps an input byte to an operation on a snapshot: add/update,
// periodic add/update or delete.
func data0(b berth.Time) byte { return []byte{0, 2, 3}[b%3] }

// checkIntegral compares LoadIntegral over w with the model's load summed
// millisecond by millisecond (the simplest reference).
func checkIntegral(p *Plan, m *model, w berth.Interval, user string) error {
	got, err := p.LoadIntegral(w, user)
	if w.Start > w.End {
		if !errors.Is(err, berth.ErrInvalidArgument) {
			return fmt.Errorf("integral over %v: want an invalid-argument error, got %v", w, err)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("integral over %v: %w", w, err)
	}
	var want rle.Area
	for tt := w.Start; tt < w.End; tt++ {
		r := m.sum(tt, func(a *Allocation) bool { return user == "" || a.User == user })
		want = want.Add(rle.Area{Memory: rle.Int128Of(r.Memory), VCores: rle.Int128Of(r.VCores)})
	}
	if !got.Equal(want) {
		return fmt.Errorf("integral of %q over %v: got %v, want %v", user, w, got, want)
	}
	return nil
}

// checkPeak compares PeakLoad over w with the model's load maximised
// millisecond by millisecond.
func checkPeak(p *Plan, m *model, w berth.Interval) error {
	got, err := p.PeakLoad(w)
	if w.Start > w.End {
		if !errors.Is(err, berth.ErrInvalidArgument) {
			return fmt.Errorf("peak over %v: want an invalid-argument error, got %v", w, err)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("peak over %v: %w", w, err)
	}
	var want berth.Resource
	for tt := w.Start; tt < w.End; tt++ {
		want = berth.ComponentwiseMax(want, m.sum(tt, func(*Allocation) bool { return true }))
	}
	if !got.Equal(want) {
		return fmt.Errorf("peak over %v: got %v, want %v", w, got, want)
	}
	return nil
}
