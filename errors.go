package berth

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
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

// Error formats the error as "field: reason (value: v): cause", read once
// from the outside in. The value is left out when it is nil or when another
// part already names it (the field, the reason or the cause spells it as a
// whole word, as YARN's sentences "…queue root.a is not a leaf" do); an
// empty string is printed as "". The cause is left out when it is the
// error's own kind (its text would only restate the reason) or when the
// reason already ends with its text.
func (e *FieldError) Error() string {
	cause := causeText(e.Reason, e.Kind, e.Err)
	msg := e.Field + ": " + e.Reason
	switch {
	case e.Value == "":
		msg += ` (value: "")` // empty, said so rather than left blank
	case e.Value != nil && !mentions(e.Field, e.Value) && !mentions(e.Reason, e.Value) && !mentions(cause, e.Value):
		msg += fmt.Sprintf(" (value: %v)", e.Value)
	}
	return msg + cause
}

// causeText returns ": " and the text of err for appending to a message
// whose reason is given, or "" when err adds nothing: nil, the message's own
// kind, or a text the reason already ends with.
func causeText(reason string, kind, err error) string {
	if err == nil || reflect.TypeOf(err).Comparable() && err == kind {
		return ""
	}
	text := err.Error()
	if text == "" || strings.HasSuffix(reason, text) {
		return ""
	}
	return ": " + text
}

// mentions reports whether text spells v as a whole word, or as the last
// segments of a dotted path: bounded by the ends of text or by characters
// that cannot be part of a name. v is a name (a string without spaces) or
// a fmt.Stringer such as an id or a resource; a string with spaces is a
// fragment of some longer input, which the message should still quote on
// its own.
func mentions(text string, v any) bool {
	var s string
	switch x := v.(type) {
	case string:
		if strings.ContainsAny(x, " \t\n") {
			return false
		}
		s = x
	case fmt.Stringer:
		s = fmt.Sprint(x) // fmt survives a String method that panics
	case int, int32, int64, uint, uint32, uint64:
		return mentionsNumber(text, fmt.Sprint(x))
	default:
		return false
	}
	if s == "" {
		return false
	}
	for from := 0; ; {
		i := strings.Index(text[from:], s)
		if i < 0 {
			return false
		}
		i += from
		end := i + len(s)
		// A name may end a dotted path: "root.a.b" names the queue "b".
		if (i == 0 || text[i-1] == '.' || !nameByte(text[i-1])) && (end == len(text) || !nameByte(text[end]) || sentenceEnd(text[end:])) {
			return true
		}
		from = i + 1
	}
}

// sentenceEnd reports whether rest starts with a full stop that ends a
// sentence (not one inside a dotted name).
func sentenceEnd(rest string) bool {
	return rest[0] == '.' && (len(rest) == 1 || rest[1] == ' ')
}

// nameByte reports whether c can be part of a queue, user or id name.
func nameByte(c byte) bool {
	return c == '_' || c == '-' || c == '.' || c == '/' ||
		'0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c >= 0x80
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

// CheckNotNil returns a *FieldError of kind ErrInvalidArgument naming
// field when v is nil: an untyped nil, or an interface holding a nil
// pointer or function — a "typed nil", such as a nil *bytes.Reader passed
// as an io.Reader, which compares unequal to nil and panics at its first
// use. The standard library lets such a value panic; Berth's functions
// check the readers, writers and clocks they are given with it, once per
// call, and answer with an error naming the argument instead. A type whose nil
// pointer is a usable value is refused too.
func CheckNotNil(field string, v any) error {
	if v == nil {
		return InvalidField(field, nil, "must not be nil")
	}
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.Pointer, reflect.Func, reflect.UnsafePointer:
		if rv.IsNil() {
			return InvalidField(field, nil, fmt.Sprintf("must not be nil (a nil %T)", v))
		}
	}
	return nil
}

// Wrap adds to err what the caller was doing, e.g. Wrap(err, "moving
// application", "app_1") reads "moving application app_1: <err>". The
// subject is left out when err already names it (as a FieldError's value
// or in its reason), so a message reads once from the outside in. The
// result unwraps to err, so errors.Is and errors.As see through it. Wrap
// returns nil when err is nil; subject may be nil.
func Wrap(err error, op string, subject any) error {
	if err == nil {
		return nil
	}
	return &opError{op: op, subject: subject, err: err}
}

// opError is the error Wrap returns.
type opError struct {
	op      string
	subject any
	err     error
}

func (e *opError) Error() string {
	inner := e.err.Error()
	if e.subject == nil || mentions(inner, e.subject) {
		return e.op + ": " + inner
	}
	return fmt.Sprintf("%s %v: %s", e.op, e.subject, inner)
}

func (e *opError) Unwrap() error { return e.err }

// mentionsNumber reports whether text states the number n as the value it
// is about: right after a colon or an opening parenthesis, as YARN's
// sentences put it ("The specified deadline: 500 is the past",
// "arrival (5)"). A number elsewhere ("should be > 0") is a bound, not the
// value, so the value is still printed.
func mentionsNumber(text, n string) bool {
	for from := 0; ; {
		i := strings.Index(text[from:], n)
		if i < 0 {
			return false
		}
		i += from
		end := i + len(n)
		before := strings.TrimRight(text[:i], " ")
		rest := text[end:]
		more := len(rest) > 0 && (isDigit(rest[0]) || rest[0] == '.' && len(rest) > 1 && isDigit(rest[1]))
		if (strings.HasSuffix(before, ":") || strings.HasSuffix(before, "(")) && !more {
			return true
		}
		from = i + 1
	}
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }
