package plan

import (
	"math"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/rle"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The archival time saturates: a negative valid window near the end of
// time archives everything that ended, a huge one near the start nothing
// (now − window used to wrap around int64).
func TestArchiveSaturates(t *testing.T) {
	for _, tc := range []struct {
		name   string
		window berth.Duration
		now    berth.Time
		want   int
	}{
		{"negative window near the end of time", -100, berth.MaxTime - 5, 2},
		{"huge window near the start of time", math.MaxInt64, berth.MinTime + 5, 0},
		{"most negative window", math.MinInt64, 0, 2},
		{"ordinary", 10, 300, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newTestPlan(t, func(c *Config) { c.Policy = acceptAll{window: tc.window} })
			require.NoError(t, p.AddReservation(resAlloc(t, rid(1), "u", 100, repeat(1, 6), false, 0)))
			require.NoError(t, p.AddReservation(resAlloc(t, rid(2), "u", 500, repeat(1, 6), false, 0)))
			done, err := p.ArchiveCompleted(tc.now)
			require.NoError(t, err)
			assert.Len(t, done, tc.want)
			assert.Equal(t, 2-tc.want, p.Len())
		})
	}
}

// An allocation filled in directly (not by NewAllocation) is checked when
// the plan books it: typed errors, nothing booked.
func TestDirectAllocationChecked(t *testing.T) {
	def := simpleDef(0, 100, 10, 0)
	ok := func() *Allocation {
		return &Allocation{ID: rid(1), User: "u", Definition: def, Start: 0, End: 100,
			Intervals: []IntervalResource{{Interval: berth.Interval{Start: 0, End: 10}, Resource: c(1)}}}
	}
	for _, tc := range []struct {
		name  string
		edit  func(a *Allocation)
		field string
	}{
		{"inverted window", func(a *Allocation) { a.Start, a.End = 50, 40 }, "allocation.end"},
		{"inverted interval", func(a *Allocation) { a.Intervals[0].Interval = berth.Interval{Start: 9, End: 2} }, "allocation.intervals[0].interval"},
		{"negative resource", func(a *Allocation) { a.Intervals[0].Resource = berth.New(-1, 0) }, "allocation.intervals[0].resource"},
		{"outside the window", func(a *Allocation) { a.Intervals[0].Interval = berth.Interval{Start: 90, End: 110} }, "allocation.intervals[0].interval"},
		{"sum overflows", func(a *Allocation) {
			a.Intervals = []IntervalResource{
				{Interval: berth.Interval{Start: 0, End: 10}, Resource: berth.New(math.MaxInt64, 1)},
				{Interval: berth.Interval{Start: 5, End: 15}, Resource: berth.New(1, 1)}}
		}, "allocation.intervals"},
		{"longer than the period", func(a *Allocation) {
			a.Definition.Period = 5
			a.Intervals[0].Interval = berth.Interval{Start: 0, End: 6}
		}, "allocation.intervals[0].interval"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newTestPlan(t, func(c *Config) { c.Policy = acceptAll{}; c.MaxPeriodicity = 100 })
			a := ok()
			tc.edit(a)
			err := p.AddReservation(a)
			require.ErrorIs(t, err, berth.ErrInvalidArgument)
			var fe *berth.FieldError
			require.ErrorAs(t, err, &fe)
			assert.Equal(t, tc.field, fe.Field)
			assert.Zero(t, p.Len())
			assert.True(t, p.TotalCommitted(5).IsZero())
			require.NoError(t, checkState(p))
		})
	}
	p := newTestPlan(t)
	require.NoError(t, p.AddReservation(ok()), "the unedited allocation is fine")
	assert.True(t, c(1).Equal(p.TotalCommitted(5)))
}

// A periodic reservation holding its whole period is active at every time
// and listed as such (YARN's modulo test would list it only for windows
// wrapping over its start, so a plan follower would miss it).
func TestWholePeriodReservationListed(t *testing.T) {
	p := newTestPlan(t, func(c *Config) { c.MaxPeriodicity = 100; c.Policy = acceptAll{} })
	w := berth.Interval{Start: 10, End: 110}
	a, err := NewAllocation(rid(1), "u", simpleDef(10, 110, 100, 100), w, []IntervalResource{{Interval: w, Resource: c(2)}})
	require.NoError(t, err)
	require.NoError(t, p.AddReservation(a))
	for _, tt := range []berth.Time{10, 30, 60, 109, 110, 555} {
		assert.True(t, c(2).Equal(p.TotalCommitted(tt)), "held at %d", tt)
		assert.Len(t, p.ReservationsAt(tt), 1, "listed at %d", tt)
		assert.Len(t, p.UserReservationsAt("u", tt), 1, "listed for its user at %d", tt)
	}
	assert.Empty(t, p.ReservationsAt(5), "not before it starts")
}

// Changes between snapshots allocate only the nodes they add; a change
// after a snapshot copies paths and leaves the snapshot as it was.
func TestInPlaceThenCopyOnWrite(t *testing.T) {
	p := newTestPlan(t, func(c *Config) { c.Policy = acceptAll{} })
	for i := int64(1); i <= 50; i++ {
		require.NoError(t, p.AddReservation(resAlloc(t, rid(i), "u", berth.Time(i*10), repeat(1, 5), false, 0)))
	}
	s := p.Snapshot()
	for i := int64(1); i <= 50; i += 2 {
		require.NoError(t, p.DeleteReservation(rid(i)))
	}
	require.NoError(t, s.DeleteReservation(rid(2)))
	assert.Equal(t, 25, p.Len())
	assert.Equal(t, 49, s.Len())
	require.NoError(t, checkState(p))
	require.NoError(t, checkState(s))
	assert.Len(t, s.ReservationsAt(12), 1)
	assert.Empty(t, s.ReservationsAt(22))
	assert.Empty(t, p.ReservationsAt(12))
	assert.Len(t, p.ReservationsAt(22), 1)
	a := resAlloc(t, rid(1000), "u", 5, repeat(1, 5), false, 0)
	allocs := testing.AllocsPerRun(20, func() {
		if err := p.AddReservation(a); err != nil {
			t.Fatal(err)
		}
		if err := p.DeleteReservation(a.ID); err != nil {
			t.Fatal(err)
		}
	})
	assert.LessOrEqual(t, allocs, 8.0, "an add and a delete between snapshots")
}

// A periodic request sees a reservation however far away its occurrence
// meets it, and times near the ends of int64 give an answer or a typed
// error, never a wrapped-around instance.
func TestPeriodicAvailabilityFarAway(t *testing.T) {
	p := newTestPlan(t, func(c *Config) { c.MaxPeriodicity = 1000; c.Policy = acceptAll{} })
	k := berth.Time(math.MaxInt64/100 - 10)
	far := berth.Interval{Start: k * 100, End: k*100 + 50}
	a, err := NewAllocation(rid(1), "u", simpleDef(far.Start, far.End, 50, 0), far, []IntervalResource{{Interval: far, Resource: c(5)}})
	require.NoError(t, err)
	require.NoError(t, p.AddReservation(a))
	av, err := p.AvailableResources("u", ReservationID{}, berth.Interval{Start: 0, End: 10}, 100)
	require.NoError(t, err)
	assert.True(t, p.Capacity().Sub(c(5)).Equal(av.At(5)), "the far occurrence counts: %v", av.At(5))
	// A window near the start of time: the occurrence meeting the
	// reservation is further than int64 can offset; refused, not skipped.
	_, err = p.AvailableResources("u", ReservationID{}, berth.Interval{Start: berth.MinTime + 5, End: berth.MinTime + 15}, 100)
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)
}

// AppendLoadSteps appends what LoadSteps returns, keeps dst's prefix, and
// with a large enough buffer allocates nothing.
func TestAppendLoadSteps(t *testing.T) {
	p := newTestPlan(t, func(c *Config) { c.Policy = acceptAll{} })
	for i := int64(1); i <= 30; i++ {
		require.NoError(t, p.AddReservation(resAlloc(t, rid(i), []string{"a", "b"}[i%2], berth.Time(i*7), []int64{1, 2, 3}, false, 0)))
	}
	w := berth.Interval{Start: 0, End: 300}
	for _, u := range []string{"", "a", "nobody"} {
		want, err := p.LoadSteps(w, u)
		require.NoError(t, err)
		prefix := []rle.Step{{Interval: berth.Interval{Start: -9, End: -8}}}
		got, err := p.AppendLoadSteps(prefix, w, u)
		require.NoError(t, err)
		assert.Equal(t, prefix[0], got[0])
		assert.Equal(t, want, got[1:], "user %q", u)
	}
	buf := make([]rle.Step, 0, 256)
	allocs := testing.AllocsPerRun(10, func() {
		var err error
		if buf, err = p.AppendLoadSteps(buf[:0], w, ""); err != nil {
			t.Fatal(err)
		}
	})
	assert.Zero(t, allocs)
	empty, err := p.AppendLoadSteps(buf[:0], berth.Interval{Start: 5, End: 5}, "")
	require.NoError(t, err)
	assert.Empty(t, empty)
}
