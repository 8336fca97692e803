package queue

import (
	"strings"

	"github.com/berthsched/berth"
)

// Error reports a problem with one queue: the queue path, the offending field
// (named as YARN's configuration key suffix, e.g. "capacity",
// "maximum-capacity", "state", "acl_submit_applications", "queues"), the
// value and the reason. It unwraps to Kind (berth.ErrInvalidArgument when
// nil) and to Err when set, so callers branch with errors.Is and read the
// details with errors.As.
type Error struct {
	QueuePath string // full path of the queue, e.g. "root.a.b" (as spelled when it did not parse)
	Field     string // the offending field, "" when the queue as a whole is at fault
	Value     any    // the offending value, nil when not meaningful
	Reason    string // why, short
	Kind      error  // one of the berth.Err* kinds; ErrInvalidArgument when nil
	Err       error  // an underlying cause, if any
}

// Error formats the error as "queue <path>: <field>: <reason> (value: v)"
// (leaving out an empty path or field) and the cause, by the rules of [berth.FieldError.Error]: each part once.
func (e *Error) Error() string {
	var parts []string
	if e.QueuePath != "" {
		parts = append(parts, "queue "+e.QueuePath)
	}
	if e.Field != "" {
		parts = append(parts, e.Field)
	}
	field := strings.Join(parts, ": ")
	fe := berth.FieldError{Field: field, Value: e.Value, Reason: e.Reason, Kind: e.Kind, Err: e.Err}
	return fe.Error()
}

// Unwrap exposes the kind and the cause to errors.Is and errors.As.
func (e *Error) Unwrap() []error {
	kind := e.Kind
	if kind == nil {
		kind = berth.ErrInvalidArgument
	}
	if e.Err != nil {
		return []error{kind, e.Err}
	}
	return []error{kind}
}

// invalid builds an ErrInvalidArgument error.
func invalid(path, field string, value any, reason string) *Error {
	return &Error{QueuePath: path, Field: field, Value: value, Reason: reason, Kind: berth.ErrInvalidArgument}
}

// stateErr builds an ErrInvalidState error.
func stateErr(path, field string, value any, reason string) *Error {
	return &Error{QueuePath: path, Field: field, Value: value, Reason: reason, Kind: berth.ErrInvalidState}
}
