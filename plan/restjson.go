package plan

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/berthsched/berth"
)

// YARN's REST server writes JSON through Jersey's JAXB mapping, which
// prints every number and boolean as a string ("memory": "1024") and a
// list of one element as that element alone ("reservations": {…}). The
// helper types below read both forms, and write the canonical one (plain
// numbers, booleans and arrays), so a payload read from a real
// ResourceManager decodes and what Berth writes is what YARN's documented
// tables describe.

// integer is the set of integer types a REST number decodes into.
type integer interface {
	~int | ~int32 | ~int64
}

// number is an integer that decodes from a JSON number or from a string
// holding one; it encodes as a number.
type number[T integer] struct{ v T }

func num[T integer](v T) number[T] { return number[T]{v} }

// MarshalJSON writes the plain number.
func (n number[T]) MarshalJSON() ([]byte, error) {
	return strconv.AppendInt(nil, int64(n.v), 10), nil
}

// UnmarshalJSON reads 42 or "42"; null leaves the zero value.
func (n *number[T]) UnmarshalJSON(b []byte) error {
	s, err := scalar(b)
	if err != nil || s == "" {
		return err
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || int64(T(v)) != v {
		return fmt.Errorf("%s is not an integer in range", b)
	}
	n.v = T(v)
	return nil
}

// flag is a boolean that decodes from true/false or "true"/"false".
type flag bool

// UnmarshalJSON reads true or "true"; null leaves false.
func (f *flag) UnmarshalJSON(b []byte) error {
	s, err := scalar(b)
	if err != nil || s == "" {
		return err
	}
	v, err := strconv.ParseBool(s)
	if err != nil {
		return fmt.Errorf("%s is not a boolean", b)
	}
	*f = flag(v)
	return nil
}

// text is a string that also decodes from a bare number (a recurrence
// expression written as 0 rather than "0").
type text string

// UnmarshalJSON reads "s" or a number's literal text; null leaves "".
func (t *text) UnmarshalJSON(b []byte) error {
	s, err := scalar(b)
	if err != nil {
		return err
	}
	*t = text(s)
	return nil
}

// scalar returns the text of a JSON string, number or boolean literal, ""
// for null, and an error for an object or an array.
func scalar(b []byte) (string, error) {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) == 0 || bytes.Equal(b, []byte("null")):
		return "", nil
	case b[0] == '"':
		var s string
		err := json.Unmarshal(b, &s)
		return s, err
	case b[0] == '{' || b[0] == '[':
		return "", fmt.Errorf("want a number, string or boolean, got %.40s", b)
	}
	return string(b), nil
}

// list is a slice that decodes from a JSON array or from a single element
// (Jersey's one-element list); it encodes as an array, [] when empty.
type list[T any] []T

// MarshalJSON writes an array, never null.
func (l list[T]) MarshalJSON() ([]byte, error) {
	if l == nil {
		return []byte("[]"), nil
	}
	return json.Marshal([]T(l))
}

// UnmarshalJSON reads [a, b], a alone, or null (an empty list).
func (l *list[T]) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) == 0 || bytes.Equal(b, []byte("null")):
		*l = nil
		return nil
	case b[0] == '[':
		var s []T
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*l = s
		return nil
	}
	var one T
	if err := json.Unmarshal(b, &one); err != nil {
		return err
	}
	*l = list[T]{one}
	return nil
}

// decode unmarshals b into v. An error already naming its field (a
// *berth.FieldError from a nested type) is returned as it is; any other is
// a *berth.FieldError on field, "malformed JSON", carrying the payload.
func decode(b []byte, v any, field string) error {
	err := json.Unmarshal(b, v)
	if err == nil {
		return nil
	}
	var fe *berth.FieldError
	if errors.As(err, &fe) {
		return err
	}
	return &berth.FieldError{Field: field, Value: string(b), Reason: "malformed JSON", Err: err}
}
