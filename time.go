package berth

import (
	"fmt"
	"math"
	"sync/atomic"
)

// Time is a point in time in milliseconds, as in YARN (epoch milliseconds in
// production, small integers in tests and simulations). It is an alias so
// that plain int64 arithmetic stays frictionless.
type Time = int64

// Duration is a span of time in milliseconds.
type Duration = int64

// Sentinels for "minus infinity" and "plus infinity" in time, YARN's
// Long.MIN_VALUE and Long.MAX_VALUE.
const (
	MinTime Time = math.MinInt64
	MaxTime Time = math.MaxInt64
)

// Interval is the half-open time interval [Start, End).
type Interval struct {
	Start Time `json:"start"`
	End   Time `json:"end"`
}

// Valid reports whether Start < End (the interval is non-empty).
func (iv Interval) Valid() bool { return iv.Start < iv.End }

// Len returns End - Start.
func (iv Interval) Len() Duration { return iv.End - iv.Start }

// Contains reports whether t lies in [Start, End).
func (iv Interval) Contains(t Time) bool { return iv.Start <= t && t < iv.End }

// Overlaps reports whether the two half-open intervals share a point.
func (iv Interval) Overlaps(o Interval) bool { return iv.Start < o.End && o.Start < iv.End }

// Intersect returns the common part of both intervals; ok is false when they
// do not overlap.
func (iv Interval) Intersect(o Interval) (out Interval, ok bool) {
	out = Interval{Start: max(iv.Start, o.Start), End: min(iv.End, o.End)}
	return out, out.Valid()
}

// Compare orders intervals by start, then end (YARN's ReservationInterval order).
func (iv Interval) Compare(o Interval) int {
	if c := cmpI(iv.Start, o.Start); c != 0 {
		return c
	}
	return cmpI(iv.End, o.End)
}

// String formats the interval as [start, end).
func (iv Interval) String() string { return fmt.Sprintf("[%d, %d)", iv.Start, iv.End) }

// Clock tells the current time. Hosts implement it; Berth never reads the
// wall clock itself, so simulations and tests control time completely.
type Clock interface {
	// Now returns the current time in milliseconds.
	Now() Time
}

// ClockFunc adapts a function to a Clock, e.g.
// ClockFunc(func() Time { return time.Now().UnixMilli() }) in a host. A
// nil ClockFunc is not usable: Now panics, as calling a nil func does.
type ClockFunc func() Time

// Now calls f.
func (f ClockFunc) Now() Time { return f() }

// ManualClock is a Clock that moves only when told to. It is safe for
// concurrent use. The zero value is ready to use and reads time 0;
// [NewManualClock] starts it elsewhere.
type ManualClock struct{ now atomic.Int64 }

// NewManualClock returns a clock that reads start.
func NewManualClock(start Time) *ManualClock {
	c := &ManualClock{}
	c.now.Store(start)
	return c
}

// Now returns the clock's current time.
func (c *ManualClock) Now() Time { return c.now.Load() }

// Set moves the clock to t (backwards too: a simulation may rewind).
func (c *ManualClock) Set(t Time) { c.now.Store(t) }

// Advance moves the clock forward by d and returns the new time.
func (c *ManualClock) Advance(d Duration) Time { return c.now.Add(d) }
