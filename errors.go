package berth

import (
	"errors"
	"fmt"
)

// Error kinds shared by the whole library. Every error Berth returns wraps
// one of them, so callers can branch with errors.Is without parsing text:
//
//	if errors.Is(err, berth.ErrInvalidArgument) { ... }
//
// Richer detail is available with errors.As on the concrete types
// ([*FieldError] and the types of each package).
var (
	// ErrInvalidArgument: the input is malformed or out of range.
	ErrInvalidArgument = errors.New("invalid argument")
	// ErrNotFound: the named object (reservation, queue, node, application…)
	// does not exist.
	ErrNotFound = errors.New("not found")
	// ErrAlreadyExists: an object with that identity exists already.
	ErrAlreadyExists = errors.New("already exists")
	// ErrConflict: the request contradicts current state (e.g. the same
	// reservation id submitted with a different definition).
	ErrConflict = errors.New("conflict")
	// ErrCapacityExceeded: accepting the request would exceed a capacity
	// limit (over-commit, a sharing-policy limit, a queue maximum).
	ErrCapacityExceeded = errors.New("capacity exceeded")
	// ErrNoPlacement: no placement satisfying the request could be found.
	ErrNoPlacement = errors.New("no placement found")
	// ErrPermissionDenied: an ACL forbids the operation.
	ErrPermissionDenied = errors.New("permission denied")
	// ErrInvalidState: the object is not in a state that allows the
	// operation (e.g. submitting to a stopped queue).
	ErrInvalidState = errors.New("invalid state")
)

// FieldError reports a bad value of a named field. Field is a path that
// locates it for the user, e.g. "reservation-definition.deadline" or
// "yarn.scheduler.capacity.root.a.capacity". It unwraps to Kind (one of the
// Err* kinds, ErrInvalidArgument when nil) and to Err when set.
type FieldError struct {
	Field  string // the offending field, as the user spelled or sees it
	Value  any    // the offending value
	Reason string // why it is rejected, short
	Kind   error  // the error kind; ErrInvalidArgument when nil
	Err    error  // an underlying cause, if any
}

// Error formats the error as "field: reason (value: v)".
func (e *FieldError) Error() string {
	msg := fmt.Sprintf("%s: %s (value: %v)", e.Field, e.Reason, e.Value)
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap exposes the kind and the cause to errors.Is and errors.As.
func (e *FieldError) Unwrap() []error {
	kind := e.Kind
	if kind == nil {
		kind = ErrInvalidArgument
	}
	if e.Err != nil {
		return []error{kind, e.Err}
	}
	return []error{kind}
}

// InvalidField returns a *FieldError of kind ErrInvalidArgument.
func InvalidField(field string, value any, reason string) error {
	return &FieldError{Field: field, Value: value, Reason: reason}
}
