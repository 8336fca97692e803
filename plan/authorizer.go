package plan

import (
	"errors"
	"fmt"

	"github.com/berthsched/berth"
)

// ReservationOp names a reservation call checked by an [Authorizer]. It is
// an alias of string, not a defined type, so that an implementation in a
// package that must not import plan (queue.ReservationACLs) satisfies
// Authorizer with a plain string parameter. The values are the constants
// below.
type ReservationOp = string

// The reservation calls an [Authorizer] is asked about.
const (
	// OpSubmitReservation is [System.Submit] (YARN's SUBMIT_RESERVATIONS ACL).
	OpSubmitReservation ReservationOp = "submit"
	// OpUpdateReservation is [System.Update] (ADMINISTER_RESERVATIONS in YARN).
	OpUpdateReservation ReservationOp = "update"
	// OpDeleteReservation is [System.Delete] (ADMINISTER_RESERVATIONS in YARN).
	OpDeleteReservation ReservationOp = "delete"
	// OpListReservations is [System.List] (YARN's LIST_RESERVATIONS ACL).
	OpListReservations ReservationOp = "list"
)

// Authorizer decides whether a caller may perform a reservation call on a
// plan queue: YARN's ReservationsACLsManager together with the owner rule of
// ClientRMService.checkReservationACLs. queue.ReservationACLs implements it
// with YARN's ACL syntax and rules.
//
// user is the caller (the request's User), op one of the Op constants,
// planQueue the plan's queue name and owner the user of the reservation the
// request names when the plan holds it, else "" (always "" for a new
// submission). YARN lets the owner update, delete and list their own
// reservation whatever the ACLs say; implementations should too.
//
// It returns nil to allow the call. Any error refuses it: the [System]
// wraps it in a *berth.FieldError on "user" of kind
// berth.ErrPermissionDenied, whose reason is YARN's sentence ("User u
// cannot perform operation op on queue q") unless the error is of that kind
// already and so says why itself. It is called
// concurrently when the System is, so it must be safe for concurrent use.
type Authorizer interface {
	AuthorizeReservation(user string, op ReservationOp, planQueue string, owner string) error
}

// AuthorizerFunc adapts a function to [Authorizer]. A nil AuthorizerFunc is
// not usable: AuthorizeReservation panics, as calling a nil func does (a
// nil [Authorizer] is the way to check nothing).
type AuthorizerFunc func(user string, op ReservationOp, planQueue string, owner string) error

// AuthorizeReservation calls f.
func (f AuthorizerFunc) AuthorizeReservation(user string, op ReservationOp, planQueue string, owner string) error {
	return f(user, op, planQueue, owner)
}

// authorize runs the configured Authorizer, if any (nil = YARN's default
// yarn.acl.reservation-enable=false: no checks). id, when set, names the
// reservation whose owner the authorizer may let through.
func (s *System) authorize(user string, op ReservationOp, p *Plan, id ReservationID) error {
	if s.cfg.Authorizer == nil {
		return nil
	}
	owner := ""
	if !id.IsZero() {
		if a, ok := p.Reservation(id); ok {
			owner = a.User
		}
	}
	if err := s.cfg.Authorizer.AuthorizeReservation(user, op, p.QueueName(), owner); err != nil {
		reason := fmt.Sprintf("User %s cannot perform operation %s on queue %s", user, op, p.QueueName())
		if errors.Is(err, berth.ErrPermissionDenied) {
			reason = "refused by the authorizer" // which said why: no need to say it twice
		}
		return &berth.FieldError{Field: "user", Value: user, Kind: berth.ErrPermissionDenied, Reason: reason, Err: err}
	}
	return nil
}
