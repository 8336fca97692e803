package berth_test

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/berthsched/berth"
)

func TestInterval(t *testing.T) {
	iv := berth.Interval{Start: 10, End: 20}
	assert.True(t, iv.Valid())
	assert.False(t, berth.Interval{Start: 5, End: 5}.Valid(), "empty")
	assert.False(t, berth.Interval{Start: 6, End: 5}.Valid(), "reversed")
	assert.Equal(t, berth.Duration(10), iv.Len())
	assert.Equal(t, "[10, 20)", iv.String())

	for tm, want := range map[berth.Time]bool{9: false, 10: true, 15: true, 19: true, 20: false} {
		assert.Equal(t, want, iv.Contains(tm), "Contains(%d)", tm)
	}

	cases := []struct {
		o        berth.Interval
		overlaps bool
		inter    berth.Interval
	}{
		{berth.Interval{Start: 0, End: 10}, false, berth.Interval{Start: 10, End: 10}}, // touching at 10: half-open
		{berth.Interval{Start: 20, End: 30}, false, berth.Interval{Start: 20, End: 20}},
		{berth.Interval{Start: 0, End: 11}, true, berth.Interval{Start: 10, End: 11}},
		{berth.Interval{Start: 12, End: 15}, true, berth.Interval{Start: 12, End: 15}},
		{berth.Interval{Start: 19, End: 99}, true, berth.Interval{Start: 19, End: 20}},
		{berth.Interval{Start: berth.MinTime, End: berth.MaxTime}, true, iv},
		{berth.Interval{Start: 40, End: 30}, false, berth.Interval{Start: 40, End: 20}},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.overlaps, iv.Overlaps(tc.o), "%v overlaps %v", iv, tc.o)
		assert.Equal(t, tc.overlaps, tc.o.Overlaps(iv), "symmetry %v %v", tc.o, iv)
		got, ok := iv.Intersect(tc.o)
		assert.Equal(t, tc.overlaps, ok, "intersect ok %v %v", iv, tc.o)
		assert.Equal(t, tc.inter, got)
	}

	// Compare: start, then end.
	assert.Equal(t, 0, iv.Compare(berth.Interval{Start: 10, End: 20}))
	assert.Equal(t, -1, iv.Compare(berth.Interval{Start: 11, End: 12}))
	assert.Equal(t, 1, iv.Compare(berth.Interval{Start: 10, End: 19}))
	assert.Equal(t, -1, berth.Interval{Start: berth.MinTime, End: 0}.Compare(iv))
	assert.Equal(t, int64(math.MinInt64), berth.MinTime)
	assert.Equal(t, int64(math.MaxInt64), berth.MaxTime)
}

func TestClocks(t *testing.T) {
	c := berth.NewManualClock(100)
	var clk berth.Clock = c
	assert.Equal(t, berth.Time(100), clk.Now())
	assert.Equal(t, berth.Time(150), c.Advance(50))
	assert.Equal(t, berth.Time(150), c.Now())
	c.Set(7) // rewinding is allowed
	assert.Equal(t, berth.Time(7), c.Now())

	n := berth.Time(0)
	clk = berth.ClockFunc(func() berth.Time { n++; return n })
	assert.Equal(t, berth.Time(1), clk.Now())
	assert.Equal(t, berth.Time(2), clk.Now())
}

func TestManualClockParallel(t *testing.T) {
	c := berth.NewManualClock(0)
	const workers, steps = 8, 500
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			last := berth.Time(-1)
			for i := 0; i < steps; i++ {
				now := c.Advance(1)
				// Only Advance runs concurrently here, so time never goes back.
				if now <= last || c.Now() < now {
					t.Errorf("clock went backwards: %d after %d", now, last)
					return
				}
				last = now
			}
		}()
	}
	wg.Wait()
	require.Equal(t, berth.Time(workers*steps), c.Now(), "every Advance counted exactly once")

	// Set and Now from many goroutines: no data race, value is one of those set.
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(v berth.Time) {
			defer wg.Done()
			for i := 0; i < steps; i++ {
				c.Set(v)
				_ = c.Now()
			}
		}(berth.Time(w))
	}
	wg.Wait()
	assert.GreaterOrEqual(t, c.Now(), berth.Time(0))
	assert.Less(t, c.Now(), berth.Time(workers))
}

func TestFieldError(t *testing.T) {
	cause := errors.New("strconv: bad digit")
	cases := []struct {
		name    string
		err     error
		kind    error
		notKind error
		msg     string
	}{
		{"InvalidField", berth.InvalidField("queue.capacity", -3, "must be ≥ 0"),
			berth.ErrInvalidArgument, berth.ErrNotFound, "queue.capacity: must be ≥ 0 (value: -3)"},
		{"explicit kind", &berth.FieldError{Field: "reservation-id", Value: "r_1", Reason: "unknown", Kind: berth.ErrNotFound},
			berth.ErrNotFound, berth.ErrInvalidArgument, "reservation-id: unknown (value: r_1)"},
		{"with cause", &berth.FieldError{Field: "maxResources", Value: "x mb", Reason: "not a number", Err: cause},
			berth.ErrInvalidArgument, berth.ErrConflict, "maxResources: not a number (value: x mb): strconv: bad digit"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wrapped := fmt.Errorf("loading config: %w", tc.err)
			assert.ErrorIs(t, wrapped, tc.kind)
			assert.NotErrorIs(t, wrapped, tc.notKind)
			var fe *berth.FieldError
			require.ErrorAs(t, wrapped, &fe)
			assert.Equal(t, tc.msg, fe.Error())
			assert.Equal(t, "loading config: "+tc.msg, wrapped.Error())
		})
	}
	// the cause stays reachable
	err := fmt.Errorf("x: %w", cases[2].err)
	assert.ErrorIs(t, err, cause)

	// every kind is distinct
	kinds := []error{berth.ErrInvalidArgument, berth.ErrNotFound, berth.ErrAlreadyExists, berth.ErrConflict,
		berth.ErrCapacityExceeded, berth.ErrNoPlacement, berth.ErrPermissionDenied, berth.ErrInvalidState}
	for i, a := range kinds {
		for j, b := range kinds {
			assert.Equal(t, i == j, errors.Is(a, b), "%v vs %v", a, b)
		}
	}
}
