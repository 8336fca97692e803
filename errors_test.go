package berth_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/berthsched/berth"
)

// TestFieldErrorReadsOnce pins the formatting rules of FieldError and
// Wrap: each part of a message once, the kind and cause still reachable.
func TestFieldErrorReadsOnce(t *testing.T) {
	cause := errors.New("strconv: bad digit")
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"value printed", &berth.FieldError{Field: "f", Value: 3, Reason: "must be small"}, "f: must be small (value: 3)"},
		{"empty value quoted", &berth.FieldError{Field: "app.id", Value: "", Reason: "must not be empty"}, `app.id: must not be empty (value: "")`},
		{"nil value left out", &berth.FieldError{Field: "clock", Reason: "a clock is required"}, "clock: a clock is required"},
		{"named value left out", &berth.FieldError{Field: "queue", Value: "root.a", Reason: "queue root.a is not a leaf"}, "queue: queue root.a is not a leaf"},
		{"named at a full stop", &berth.FieldError{Field: "queue", Value: "root.a", Reason: "not a leaf: root.a."}, "queue: not a leaf: root.a."},
		{"end of a path left out", &berth.FieldError{Field: "queue", Value: "a", Reason: "queue root.a is bad"}, "queue: queue root.a is bad"},
		{"part of a longer name printed", &berth.FieldError{Field: "queue", Value: "a", Reason: "queue a1.b is bad"}, "queue: queue a1.b is bad (value: a)"},
		{"named by the cause", &berth.FieldError{Field: "user", Value: "bob", Reason: "refused", Err: errors.New("user bob may not")}, "user: refused: user bob may not"},
		{"named by the field", &berth.FieldError{Field: "queue a.b: name", Value: "a.b", Reason: "no periods"}, "queue a.b: name: no periods"},
		{"number as a bound printed", &berth.FieldError{Field: "n", Value: 1, Reason: "must be in [0, 1)"}, "n: must be in [0, 1) (value: 1)"},
		{"number after a comparison printed", &berth.FieldError{Field: "n", Value: int64(0), Reason: "should be > 0"}, "n: should be > 0 (value: 0)"},
		{"number stated after a colon left out", &berth.FieldError{Field: "deadline", Value: int64(500), Reason: "The specified deadline: 500 is the past."}, "deadline: The specified deadline: 500 is the past."},
		{"number stated in parentheses left out", &berth.FieldError{Field: "arrival", Value: int64(-5), Reason: "arrival (-5) is early"}, "arrival: arrival (-5) is early"},
		{"longer number stated, value printed", &berth.FieldError{Field: "n", Value: 5, Reason: "got: 5.5 and: 50"}, "n: got: 5.5 and: 50 (value: 5)"},
		{"text fragment printed", &berth.FieldError{Field: "vcores", Value: "2 4", Reason: `bad "1, 2 4"`}, `vcores: bad "1, 2 4" (value: 2 4)`},
		{"cause printed", &berth.FieldError{Field: "f", Value: "x", Reason: "not a number", Err: cause}, "f: not a number (value: x): strconv: bad digit"},
		{"kind as cause left out", &berth.FieldError{Field: "f", Value: "x", Reason: "gone", Kind: berth.ErrNotFound, Err: berth.ErrNotFound}, "f: gone (value: x)"},
		{"wrap names its subject", berth.Wrap(cause, "moving application", "app_1"), "moving application app_1: strconv: bad digit"},
		{"wrap leaves a named subject out", berth.Wrap(&berth.FieldError{Field: "app.id", Value: "app_1", Reason: "not found"}, "moving application", "app_1"),
			"moving application: app.id: not found (value: app_1)"},
		{"wrap without subject", berth.Wrap(cause, "loading", nil), "loading: strconv: bad digit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, tc.err.Error())
		})
	}
	assert.NoError(t, berth.Wrap(nil, "op", "x"))
	w := berth.Wrap(&berth.FieldError{Field: "f", Kind: berth.ErrConflict, Err: cause}, "op", "x")
	assert.ErrorIs(t, w, berth.ErrConflict)
	assert.ErrorIs(t, w, cause)
	var fe *berth.FieldError
	assert.ErrorAs(t, w, &fe)
}

// FuzzFieldErrorText: formatting never panics, the message starts with the
// field and the reason, loses nothing (a non-empty value and the cause's
// text appear in it) and prints the value at most once.
func FuzzFieldErrorText(f *testing.F) {
	f.Add("queue", "queue root.a is not a leaf", "a", "")
	f.Add("user", "refused", "bob", "user bob may not")
	f.Add("f", "x", "", "")
	f.Add("vcores", `bad "1, 2 4"`, "2 4", "strconv: bad")
	f.Add("q", "at the end: q.", "q", "q")
	f.Fuzz(func(t *testing.T, field, reason, value, cause string) {
		fe := &berth.FieldError{Field: field, Value: value, Reason: reason}
		if cause != "" {
			fe.Err = errors.New(cause)
		}
		msg := fe.Error()
		assert.True(t, strings.HasPrefix(msg, field+": "+reason), msg)
		assert.Contains(t, msg, value)
		if cause != "" {
			assert.Contains(t, msg, cause)
		}
		w := berth.Wrap(fe, "doing", value)
		assert.Contains(t, w.Error(), msg)
		assert.ErrorIs(t, w, berth.ErrInvalidArgument)
	})
}

// sliceErr is an error of an uncomparable type.
type sliceErr []string

func (e sliceErr) Error() string { return strings.Join(e, "; ") }

type panicky struct{}

func (*panicky) String() string { panic("boom") }

// TestFieldErrorOddValues: uncomparable causes and Stringers that panic
// format without panicking.
func TestFieldErrorOddValues(t *testing.T) {
	fe := &berth.FieldError{Field: "f", Reason: "r", Kind: sliceErr{"a"}, Err: sliceErr{"b", "c"}}
	assert.Equal(t, "f: r: b; c", fe.Error())
	var p *panicky
	fe = &berth.FieldError{Field: "f", Reason: "r", Value: p}
	assert.NotPanics(t, func() { _ = fe.Error() })
}

// CheckNotNil refuses untyped and typed nils (a nil pointer or function
// behind an interface), which compare unequal to nil and panic at their
// first use, and accepts every other value; the readers and writers of
// the state format and the Hadoop configuration reader go through it.
func TestCheckNotNil(t *testing.T) {
	var nilFunc func([]byte) (int, error)
	for _, tc := range []struct {
		name string
		v    any
		ok   bool
	}{
		{"untyped nil", nil, false},
		{"nil *bytes.Reader", (*bytes.Reader)(nil), false},
		{"nil *bytes.Buffer", (*bytes.Buffer)(nil), false},
		{"nil func", nilFunc, false},
		{"reader", bytes.NewReader(nil), true},
		{"nil map (usable)", map[string]int(nil), true},
		{"nil slice (usable)", []byte(nil), true},
		{"zero struct", struct{}{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := berth.CheckNotNil("reader", tc.v)
			if tc.ok {
				assert.NoError(t, err)
				return
			}
			var fe *berth.FieldError
			require.ErrorAs(t, err, &fe)
			assert.Equal(t, "reader", fe.Field)
			assert.ErrorIs(t, err, berth.ErrInvalidArgument)
		})
	}
	var typedNil *bytes.Reader
	_, err := berth.NewStateDecoder(typedNil, "k", 1)
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)
	var nilBuf *bytes.Buffer
	e := berth.NewStateEncoder(nilBuf, "k", 1)
	assert.ErrorIs(t, e.Finish(), berth.ErrInvalidArgument)
}
