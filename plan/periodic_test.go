package plan

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/berthsched/berth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The periodic index against YARN's test applied to every reservation:
// random arcs (wrapping, empty, whole-period, negative and extreme starts)
// and windows shorter than, equal to and longer than the period, inverted
// and overflowing ones included.
func TestPeriodicIndexAgainstScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	periods := []berth.Duration{7, 10, 100}
	var x periodicIndex
	o := new(owner)
	var live []*Allocation
	starts := func() berth.Time {
		switch rng.IntN(10) {
		case 0:
			return berth.MinTime + berth.Time(rng.IntN(300))
		case 1:
			return berth.MaxTime - berth.Time(rng.IntN(300))
		}
		return berth.Time(rng.IntN(600)) - 300
	}
	for step := 0; step < 600; step++ {
		if rng.IntN(4) > 0 || len(live) == 0 {
			p := periods[rng.IntN(len(periods))]
			s := starts()
			l := berth.Duration(rng.IntN(int(p) + 1)) // up to a whole period
			e := s + l
			if e < s {
				e = berth.MaxTime
			}
			a := &Allocation{ID: rid(int64(step + 1)), Start: s, End: e, Definition: Definition{Period: p}}
			x.insert(a, o)
			live = append(live, a)
		} else {
			i := rng.IntN(len(live))
			require.True(t, x.delete(live[i], o))
			live = slices.Delete(live, i, i+1)
		}
		if step%50 == 0 {
			o = new(owner) // as a snapshot would
		}
		for q := 0; q < 5; q++ {
			s := starts()
			var e berth.Time
			switch rng.IntN(6) {
			case 0:
				e = s
			case 1:
				e = s + periods[rng.IntN(len(periods))] // exactly a period
			case 2:
				e = s - berth.Time(rng.IntN(20)) // inverted
			case 3:
				e = berth.MaxTime
			default:
				e = s + berth.Time(rng.IntN(150))
			}
			got := x.appendMeeting(nil, s, e)
			slices.SortFunc(got, func(a, b *Allocation) int { return a.ID.Compare(b.ID) })
			got = slices.Compact(got)
			var want []*Allocation
			for _, a := range live {
				if a.Start <= e && periodicOverlaps(a, s, e) {
					want = append(want, a)
				}
			}
			slices.SortFunc(want, func(a, b *Allocation) int { return a.ID.Compare(b.ID) })
			require.Equal(t, ids(want), ids(got), "window [%d, %d]", s, e)
		}
	}
	assert.False(t, x.delete(&Allocation{ID: rid(1_000_000), Definition: Definition{Period: 7}}, o))
	assert.False(t, x.delete(&Allocation{ID: rid(1_000_000), Definition: Definition{Period: 3}}, o))
}

// YARN's periodic test on known cases (§8.7: the phase test of
// getReservations), reservation [10, 30) every 100; a reservation spanning
// the whole period meets every window (Berth's fix: YARN's modulo gives it
// length 0).
func TestPeriodicOverlapsCases(t *testing.T) {
	a := &Allocation{ID: rid(1), Start: 10, End: 30, Definition: Definition{Period: 100}}
	whole := &Allocation{ID: rid(2), Start: 10, End: 110, Definition: Definition{Period: 100}}
	for _, tc := range []struct {
		s, e berth.Time
		want bool
	}{
		{s: 10, e: 10, want: true},    // start phase
		{s: 29, e: 29, want: true},    // last instant
		{s: 30, e: 30, want: false},   // end is open
		{s: 0, e: 10, want: true},     // window ends at the start
		{s: 30, e: 109, want: false},  // the gap
		{s: 30, e: 110, want: true},   // reaches the next start
		{s: 230, e: 250, want: false}, // later instance, gap
		{s: 215, e: 216, want: true},  // later instance
		{s: 40, e: 140, want: false},  // exactly a period from the gap: YARN reads one point
		{s: 20, e: 120, want: true},   // exactly a period from inside
		{s: 40, e: 141, want: true},   // longer than a period
		{s: 5, e: 12, want: true},     // wraps over the start
		{s: 95, e: 105, want: false},  // wraps over the period only
	} {
		assert.Equal(t, tc.want, periodicOverlaps(a, tc.s, tc.e), "[%d, %d]", tc.s, tc.e)
		assert.True(t, periodicOverlaps(whole, tc.s, tc.e), "whole [%d, %d]", tc.s, tc.e)
		var x periodicIndex
		x.insert(a, new(owner))
		x.insert(whole, new(owner))
		got := x.appendMeeting(nil, tc.s, tc.e)
		slices.SortFunc(got, func(a, b *Allocation) int { return a.ID.Compare(b.ID) })
		var want []ReservationID
		if tc.want {
			want = append(want, a.ID)
		}
		want = append(want, whole.ID)
		assert.Equal(t, want, ids(slices.Compact(got)), "index [%d, %d]", tc.s, tc.e)
	}
}

// FuzzPeriodicIndex inserts, deletes and queries periodic arcs decoded
// from the input and compares every answer with YARN's test on each.
func FuzzPeriodicIndex(f *testing.F) {
	f.Add([]byte{0, 10, 20, 1, 0, 5, 12, 3, 2, 0, 0, 0})
	f.Add([]byte{0, 250, 9, 0, 0, 3, 3, 0, 1, 0, 0, 0, 2, 7, 7, 2})
	f.Add([]byte{0, 0, 100, 2, 2, 95, 105, 2, 2, 5, 12, 0, 1, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		periods := []berth.Duration{7, 10, 100}
		var x periodicIndex
		o := new(owner)
		var live []*Allocation
		for i := 0; len(data) >= 4; i++ {
			op, a, b, k := data[0]%4, berth.Time(int8(data[1]))*3, berth.Time(int8(data[2]))*3, data[3]
			data = data[4:]
			switch op {
			case 0: // insert [a, a + |b|) of a period
				p := periods[int(k)%len(periods)]
				e := a + min(max(b, -b), p)
				al := &Allocation{ID: rid(int64(i + 1)), Start: a, End: e, Definition: Definition{Period: p}}
				x.insert(al, o)
				live = append(live, al)
			case 1: // delete one
				if len(live) > 0 {
					j := int(k) % len(live)
					if !x.delete(live[j], o) {
						t.Fatalf("%v not found", live[j].ID)
					}
					live = slices.Delete(live, j, j+1)
				}
			case 2: // a snapshot: shared nodes are no longer ours
				o = new(owner)
			}
			s, e := a, b
			if k%5 == 0 {
				e = berth.MaxTime
			}
			got := x.appendMeeting(nil, s, e)
			slices.SortFunc(got, func(a, b *Allocation) int { return a.ID.Compare(b.ID) })
			got = slices.Compact(got)
			var want []ReservationID
			for _, al := range live {
				if al.Start <= e && periodicOverlaps(al, s, e) {
					want = append(want, al.ID)
				}
			}
			slices.SortFunc(want, ReservationID.Compare)
			if !slices.Equal(want, ids(got)) {
				t.Fatalf("window [%d, %d]: want %v got %v", s, e, want, ids(got))
			}
			if n, err := checkPeriodic(x); err != nil || n != len(live) {
				t.Fatalf("index: %d of %d, %v", n, len(live), err)
			}
		}
	})
}
