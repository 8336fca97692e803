package policy

import (
	"errors"
	"fmt"

	"github.com/berthsched/berth"
)

// Causes of a rejection, for errors.Is. Every rejection also wraps
// berth.ErrCapacityExceeded.
var (
	// ErrOverCommitted: the plan would hold more than its capacity at some
	// time (YARN's ResourceOverCommitException).
	ErrOverCommitted = errors.New("plan capacity would be over-committed")
	// ErrQuotaExceeded: a per-user limit of [CapacityOverTime] would be
	// passed (YARN's PlanningQuotaException). As in YARN, every rejection by
	// CapacityOverTime is a quota error, a physical over-commit included
	// (it then wraps ErrOverCommitted too).
	ErrQuotaExceeded = errors.New("sharing policy quota would be exceeded")
)

// Check names the test of a sharing policy that failed.
type Check int

const (
	// CheckCapacity: the plan's capacity (NoOverCommit, and the first part
	// of CapacityOverTime).
	CheckCapacity Check = iota
	// CheckInstantaneous: the user's instantaneous maximum.
	CheckInstantaneous
	// CheckAverage: the user's average over the window.
	CheckAverage
)

// String names the check.
func (c Check) String() string {
	switch c {
	case CheckCapacity:
		return "capacity"
	case CheckInstantaneous:
		return "instantaneous maximum"
	case CheckAverage:
		return "average over window"
	}
	return fmt.Sprintf("Check(%d)", int(c))
}

// RejectionError reports why a sharing policy refused a reservation.
type RejectionError struct {
	// Policy is the policy's name ("NoOverCommit", "CapacityOverTime").
	Policy string
	// Check is the test that failed.
	Check Check
	// Reservation is the printed id of the reservation.
	Reservation string
	// User owns the reservation.
	User string
	// At is a time at which the limit is passed.
	At berth.Time
	// Limit is what was available (or allowed) at At, when known. For the
	// average check it is AveragePercent of the capacity truncated to whole
	// units, YARN's limit; the exact check compares with the untruncated
	// value (CapacityOverTimeConfig.ExactAverage).
	Limit berth.Resource
	// Quota marks errors YARN reports as PlanningQuotaException.
	Quota bool
	// OverCommit marks errors caused by physical over-commitment.
	OverCommit bool
	// Err is an underlying cause (e.g. the plan's own error when it could
	// not compute the availability), if any.
	Err error
}

// Error describes the rejection.
func (e *RejectionError) Error() string {
	msg := fmt.Sprintf("%s: reservation %s of user %q rejected: %s limit %v passed at time %d",
		e.Policy, e.Reservation, e.User, e.Check, e.Limit, e.At)
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap exposes berth.ErrCapacityExceeded, and ErrQuotaExceeded and/or
// ErrOverCommitted as they apply.
func (e *RejectionError) Unwrap() []error {
	out := []error{berth.ErrCapacityExceeded}
	if e.Quota {
		out = append(out, ErrQuotaExceeded)
	}
	if e.OverCommit {
		out = append(out, ErrOverCommitted)
	}
	if e.Err != nil {
		out = append(out, e.Err)
	}
	return out
}
