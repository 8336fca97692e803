package rle

import (
	"fmt"

	"github.com/berthsched/berth"
)

// NegativeError is returned by [Merge] with [OpSubtractNonNegative] when the
// result would be negative: Value (the difference, some component negative)
// at Time, the first such time. It wraps [berth.ErrCapacityExceeded], as
// YARN throws a PlanningException there.
type NegativeError struct {
	Time  berth.Time
	Value berth.Resource
}

// Error describes the first negative value.
func (e *NegativeError) Error() string {
	return fmt.Sprintf("rle: merge would be negative at time %d: %v", e.Time, e.Value)
}

// Unwrap returns berth.ErrCapacityExceeded.
func (e *NegativeError) Unwrap() error { return berth.ErrCapacityExceeded }

// RemoveError is returned by [Series.Remove] and [Periodic.Remove] when
// Requested exceeds what is Present at Time (the first such time). It wraps
// [berth.ErrInvalidArgument]. YARN silently lets the allocation go negative.
type RemoveError struct {
	Time      berth.Time
	Present   berth.Resource
	Requested berth.Resource
}

// Error names the time and both amounts.
func (e *RemoveError) Error() string {
	return fmt.Sprintf("rle: cannot remove %v at time %d: only %v present", e.Requested, e.Time, e.Present)
}

// Unwrap returns berth.ErrInvalidArgument.
func (e *RemoveError) Unwrap() error { return berth.ErrInvalidArgument }
