package plan

import (
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/rle"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A periodic request must also fit where its earlier occurrences meet
// non-periodic reservations (YARN checks one MaxPeriodicity from the window
// on and can over-commit there).
func TestPeriodicRequestMeetsEarlierReservations(t *testing.T) {
	p := newTestPlan(t, func(cfg *Config) { cfg.MaxPeriodicity = 100; cfg.Capacity = c(10) })
	early, err := NewAllocation(rid(1), "u", simpleDef(5, 15, 10, 0), berth.Interval{Start: 5, End: 15},
		[]IntervalResource{{Interval: berth.Interval{Start: 5, End: 15}, Resource: c(8)}})
	require.NoError(t, err)
	require.NoError(t, p.AddReservation(early))
	// Recurs every 50 from 305: its occurrence at [5, 15) collides.
	per, err := NewAllocation(rid(2), "u", simpleDef(305, 315, 10, 50), berth.Interval{Start: 305, End: 315},
		[]IntervalResource{{Interval: berth.Interval{Start: 305, End: 315}, Resource: c(5)}})
	require.NoError(t, err)
	err = p.AddReservation(per)
	assert.ErrorIs(t, err, berth.ErrCapacityExceeded)
	av, err := p.AvailableResources("u", ReservationID{}, berth.Interval{Start: 305, End: 315}, 50)
	require.NoError(t, err)
	assert.True(t, c(2).Equal(av.At(305)), "%v", av.At(305))
	// A smaller one fits, and the plan stays within capacity everywhere.
	small, err := NewAllocation(rid(3), "u", simpleDef(305, 315, 10, 50), berth.Interval{Start: 305, End: 315},
		[]IntervalResource{{Interval: berth.Interval{Start: 305, End: 315}, Resource: c(2)}})
	require.NoError(t, err)
	require.NoError(t, p.AddReservation(small))
	for tt := berth.Time(0); tt < 400; tt++ {
		assert.True(t, p.TotalCommitted(tt).FitsIn(p.Capacity()), "at %d", tt)
	}
	// Later than one MaxPeriodicity from the window: caught as well.
	late, err := NewAllocation(rid(4), "u", simpleDef(1005, 1015, 10, 0), berth.Interval{Start: 1005, End: 1015},
		[]IntervalResource{{Interval: berth.Interval{Start: 1005, End: 1015}, Resource: c(7)}})
	require.NoError(t, err)
	require.NoError(t, p.AddReservation(late))
	av, err = p.AvailableResources("u", ReservationID{}, berth.Interval{Start: 305, End: 315}, 50)
	require.NoError(t, err)
	assert.True(t, av.At(305).IsZero(), "%v", av.At(305))
	instances, err := periodicInstances(p.st.total, berth.Interval{Start: 305, End: 315}, 50, 100)
	require.NoError(t, err)
	assert.Equal(t, []int64{-6, 0, 1, 14}, instances)
}

func TestRecoverKeepsAcceptance(t *testing.T) {
	p := newTestPlan(t, func(c *Config) { c.Policy = refuseAll{} })
	a := resAlloc(t, rid(1), "u", 100, repeat(10, 6), false, 0)
	assert.ErrorIs(t, p.AddReservation(a), berth.ErrCapacityExceeded)
	a.AcceptedAt = 42
	require.NoError(t, p.RecoverReservation(a))
	got, ok := p.Reservation(rid(1))
	require.True(t, ok)
	assert.Equal(t, berth.Time(42), got.AcceptedAt)
	assert.Equal(t, "test-reservation", got.Queue)
	assert.ErrorIs(t, p.RecoverReservation(a), berth.ErrAlreadyExists)
}

type refuseAll struct{ acceptAll }

func (refuseAll) Validate(*Plan, *Allocation) error { return berth.ErrCapacityExceeded }

// The view handed to a policy is read-only.
type mutatingPolicy struct {
	acceptAll
	err *error
}

func (m mutatingPolicy) Validate(view *Plan, a *Allocation) error {
	*m.err = view.DeleteReservation(a.ID)
	return nil
}

func TestPolicyViewReadOnly(t *testing.T) {
	var got error
	p := newTestPlan(t, func(c *Config) { c.Policy = mutatingPolicy{err: &got} })
	require.NoError(t, p.AddReservation(resAlloc(t, rid(1), "u", 100, repeat(1, 2), false, 0)))
	assert.ErrorIs(t, got, ErrReadOnlyView)
	assert.ErrorIs(t, got, berth.ErrInvalidState)
}

func TestNewAllocationErrors(t *testing.T) {
	def := simpleDef(0, 100, 10, 0)
	w := berth.Interval{Start: 0, End: 100}
	tests := []struct {
		name  string
		def   Definition
		w     berth.Interval
		ivs   []IntervalResource
		field string
	}{
		{"inverted window", def, berth.Interval{Start: 5, End: 1}, nil, "allocation.end"},
		{"inverted interval", def, w, []IntervalResource{{Interval: berth.Interval{Start: 5, End: 1}, Resource: c(1)}}, "allocation.intervals[0].interval"},
		{"negative", def, w, []IntervalResource{{Interval: berth.Interval{Start: 1, End: 5}, Resource: berth.New(-1, 0)}}, "allocation.intervals[0].resource"},
		{"outside", def, w, []IntervalResource{{Interval: berth.Interval{Start: 90, End: 110}, Resource: c(1)}}, "allocation.intervals[0].interval"},
		{"longer than period", simpleDef(0, 100, 10, 20), w, []IntervalResource{{Interval: berth.Interval{Start: 0, End: 30}, Resource: c(1)}}, "allocation.intervals[0].interval"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewAllocation(rid(1), "u", tt.def, tt.w, tt.ivs)
			var fe *berth.FieldError
			require.ErrorAs(t, err, &fe)
			assert.Equal(t, tt.field, fe.Field)
			assert.ErrorIs(t, err, berth.ErrInvalidArgument)
		})
	}
	// Empty intervals are dropped, equal ones summed, order sorted.
	a, err := NewAllocation(rid(1), "u", def, w, []IntervalResource{
		{Interval: berth.Interval{Start: 7, End: 9}, Resource: c(1)},
		{Interval: berth.Interval{Start: 3, End: 3}, Resource: c(5)},
		{Interval: berth.Interval{Start: 1, End: 4}, Resource: c(2)},
		{Interval: berth.Interval{Start: 7, End: 9}, Resource: c(3)},
	})
	require.NoError(t, err)
	require.Len(t, a.Intervals, 2)
	assert.Equal(t, berth.Interval{Start: 1, End: 4}, a.Intervals[0].Interval)
	assert.True(t, c(4).Equal(a.Intervals[1].Resource))
	// A periodic interval wrapping the period end is folded, not lost
	// (YARN drops it, §18 item 6).
	per, err := NewAllocation(rid(2), "u", simpleDef(8, 13, 5, 10), berth.Interval{Start: 8, End: 13},
		[]IntervalResource{{Interval: berth.Interval{Start: 8, End: 13}, Resource: c(4)}})
	require.NoError(t, err)
	pat := per.Series()
	want, err := rle.FromBreakpoints(rle.Breakpoint{Time: berth.MinTime}, rle.Breakpoint{Time: 0, Value: c(4)},
		rle.Breakpoint{Time: 3}, rle.Breakpoint{Time: 8, Value: c(4)}, rle.Breakpoint{Time: 10})
	require.NoError(t, err)
	assert.True(t, want.Equal(pat), "%v", pat)
	over, err := per.ResourcesOver(berth.Interval{Start: 0, End: 30})
	require.NoError(t, err)
	for _, tt := range []berth.Time{8, 9, 10, 12, 18, 22} {
		assert.True(t, c(4).Equal(over.At(tt)), "at %d", tt)
	}
	for _, tt := range []berth.Time{3, 7, 13, 17, 23} {
		assert.True(t, over.At(tt).IsZero(), "at %d", tt)
	}
	_, err = per.ResourcesOver(berth.Interval{Start: 0, End: berth.MaxTime})
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)
}

func TestNewPlanConfig(t *testing.T) {
	_, err := New(Config{Queue: "q"})
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)
	p, err := New(Config{Queue: "q", Clock: berth.NewManualClock(0), Step: -5})
	require.NoError(t, err)
	assert.Equal(t, DefaultStep, p.Step())
	assert.Equal(t, DefaultMaxPeriodicity, p.MaxPeriodicity())
	assert.Equal(t, berth.MemoryCalculator{}, p.Calculator())
	d := DefaultConfig("q", berth.New(1, 1), berth.NewManualClock(0))
	assert.True(t, d.MoveOnExpiry)
	assert.True(t, berth.New(8192, 4).Equal(d.MaxAllocation))
	_, err = New(Config{Queue: "q", Clock: berth.NewManualClock(0), Capacity: berth.New(-1, 0)})
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)
	// No policy: archival keeps no history.
	require.NoError(t, p.AddReservation(resAlloc(t, rid(1), "u", 100, repeat(1, 3), false, 0)))
	ids, err := p.ArchiveCompleted(103)
	require.NoError(t, err)
	assert.Equal(t, []ReservationID{rid(1)}, ids)
	assert.ErrorIs(t, p.SetCapacity(berth.New(-1, 1)), berth.ErrInvalidArgument)
	assert.Equal(t, "In-memory Plan: Parent Queue: q Total Capacity: <memory:0, vCores:0> Step: 1000 Reservations: 0", p.String())
}

// The plan books what the allocation says when it is added, even if the
// caller changed it after NewAllocation, and later changes to the caller's
// copy never reach the plan.
func TestAllocationChangedAfterBuild(t *testing.T) {
	p := newTestPlan(t)
	a := resAlloc(t, rid(1), "u", 100, repeat(10, 6), false, 0)
	a.Intervals[0].Resource = c(3)
	require.NoError(t, p.AddReservation(a))
	assertCommitted(t, p, 100, []int64{3, 10, 10, 10, 10, 10})
	a.Intervals[1].Resource = c(1)
	assertCommitted(t, p, 100, []int64{3, 10, 10, 10, 10, 10})
	b := resAlloc(t, rid(2), "u", 200, repeat(10, 2), false, 0)
	require.NoError(t, p.AddReservation(b))
	b.Intervals[0].Resource = c(1)
	stored, _ := p.Reservation(rid(2))
	assert.True(t, c(10).Equal(stored.Intervals[0].Resource))
	assertCommitted(t, p, 200, []int64{10, 10})
}

// HoldsPeriodic follows the periodic reservations in the plan: set by the
// first, cleared when the last is deleted, never by non-periodic ones.
func TestHoldsPeriodic(t *testing.T) {
	p := newTestPlan(t, func(cfg *Config) { cfg.MaxPeriodicity = 100; cfg.Capacity = c(10) })
	assert.False(t, p.HoldsPeriodic(), "empty plan")
	once, err := NewAllocation(rid(1), "u", simpleDef(5, 15, 10, 0), berth.Interval{Start: 5, End: 15},
		[]IntervalResource{{Interval: berth.Interval{Start: 5, End: 15}, Resource: c(3)}})
	require.NoError(t, err)
	require.NoError(t, p.AddReservation(once))
	assert.False(t, p.HoldsPeriodic(), "a non-periodic reservation")
	per, err := NewAllocation(rid(2), "u", simpleDef(305, 315, 10, 50), berth.Interval{Start: 305, End: 315},
		[]IntervalResource{{Interval: berth.Interval{Start: 305, End: 315}, Resource: c(2)}})
	require.NoError(t, err)
	require.NoError(t, p.AddReservation(per))
	assert.True(t, p.HoldsPeriodic(), "a periodic reservation")
	require.NoError(t, p.DeleteReservation(rid(2)))
	assert.False(t, p.HoldsPeriodic(), "the periodic reservation deleted")
}

// An empty window answers at once for any period (it used to count up to
// a day of instances first, 1.5 s for a period of 1 s), and a period with
// more instances than the bound is refused before they are counted.
func TestAvailableResourcesEmptyWindowAnyPeriod(t *testing.T) {
	p, err := New(DefaultConfig("q", berth.New(8192, 8), berth.NewManualClock(0)))
	require.NoError(t, err)
	for _, period := range []berth.Duration{1, 1000, DefaultMaxPeriodicity} {
		s, err := p.AvailableResources("u", ReservationID{}, berth.Interval{Start: 5000, End: 5000}, period)
		require.NoError(t, err, period)
		assert.True(t, s.Equal(rle.Undefined()), "nothing is available over an empty window")
	}
	_, err = p.AvailableResources("u", ReservationID{}, berth.Interval{Start: 5000, End: 5001}, 1)
	assert.ErrorIs(t, err, berth.ErrInvalidArgument, "86,400,000 instances of a 1 ms period")
	_, err = p.AvailableResources("u", ReservationID{}, berth.Interval{Start: 10, End: 0}, 1000)
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)
}
