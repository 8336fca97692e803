package main

import (
	"errors"
	"fmt"
	"reflect"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/examples/durable"
	"github.com/berthsched/berth/preempt"
)

// The answers a session caches are replicated state: they go into the
// FSM's snapshot, so that a request retried after a failover or a
// restart is answered with its first answer, and they go over the wire to
// a client of a replica process. This file encodes them.
//
// A durable.Result is a tree of the library's report types. They are
// encoded by reflection over their exported fields, in declaration order,
// so that a field added to a report is carried without a change here;
// every replica runs the same build, so the order is the same on both
// sides. Two things are not plain data: a berth.Resource keeps its
// extended types in an unexported slice (encoded through the state
// encoder's own Resource), and a preemption decision points at the
// policy's live view of its leaf queue, a graph with parent and child
// links: a decoded answer names that queue by its path only. Unexported
// fields are the library's working state, not part of an answer, and are
// skipped. A map, interface, channel or function in a report is refused
// with an error (the round-trip test walks every type reachable from
// durable.Result, so a new one is caught there).

var (
	resourceType  = reflect.TypeFor[berth.Resource]()
	queueViewType = reflect.TypeFor[*preempt.QueueView]()
)

// maxAnswerLen bounds a decoded slice's length so that a corrupt count
// cannot make a reader loop or allocate without limit; a slice grows as
// its elements decode, so only bytes that are there are ever allocated.
const maxAnswerLen = 1 << 24

// encodeAnswer writes r and the call's error.
func encodeAnswer(e *berth.StateEncoder, r durable.Result, callErr error) {
	encodeValue(e, reflect.ValueOf(r))
	encodeError(e, callErr, errorKinds)
}

// decodeAnswer reads what encodeAnswer wrote.
func decodeAnswer(d *berth.StateDecoder) (durable.Result, error) {
	var r durable.Result
	decodeValue(d, reflect.ValueOf(&r).Elem())
	return r, decodeError(d, errorKinds)
}

func encodeValue(e *berth.StateEncoder, v reflect.Value) {
	if e.Err() != nil {
		return
	}
	t := v.Type()
	switch {
	case t == resourceType:
		e.Resource(v.Interface().(berth.Resource))
		return
	case t == queueViewType:
		e.Bool(!v.IsNil())
		if !v.IsNil() {
			e.String(v.Elem().FieldByName("Path").String())
		}
		return
	}
	switch t.Kind() {
	case reflect.Bool:
		e.Bool(v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		e.Varint(v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		e.Uvarint(v.Uint())
	case reflect.Float32:
		e.Float32(float32(v.Float()))
	case reflect.Float64:
		e.Float64(v.Float())
	case reflect.String:
		e.String(v.String())
	case reflect.Pointer:
		e.Bool(!v.IsNil())
		if !v.IsNil() {
			encodeValue(e, v.Elem())
		}
	case reflect.Slice:
		// 0 is a nil slice, n+1 a slice of n: a replayed answer is the
		// first answer, down to reflect.DeepEqual.
		if v.IsNil() {
			e.Uvarint(0)
			return
		}
		e.Uvarint(uint64(v.Len()) + 1)
		for i := range v.Len() {
			encodeValue(e, v.Index(i))
		}
	case reflect.Struct:
		for i := range t.NumField() {
			if t.Field(i).IsExported() {
				encodeValue(e, v.Field(i))
			}
		}
	default:
		e.Fail(fmt.Errorf("ha: cannot encode a %s in an answer", t))
	}
}

func decodeValue(d *berth.StateDecoder, v reflect.Value) {
	if d.Err() != nil {
		return
	}
	t := v.Type()
	switch {
	case t == resourceType:
		v.Set(reflect.ValueOf(d.Resource()))
		return
	case t == queueViewType:
		if d.Bool() {
			v.Set(reflect.ValueOf(&preempt.QueueView{Path: d.String()}))
		}
		return
	}
	switch t.Kind() {
	case reflect.Bool:
		v.SetBool(d.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		x := d.Varint()
		if v.OverflowInt(x) {
			d.Fail(fmt.Errorf("%w: %d overflows a %s", berth.ErrCorruptState, x, t))
			return
		}
		v.SetInt(x)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		x := d.Uvarint()
		if v.OverflowUint(x) {
			d.Fail(fmt.Errorf("%w: %d overflows a %s", berth.ErrCorruptState, x, t))
			return
		}
		v.SetUint(x)
	case reflect.Float32:
		v.SetFloat(float64(d.Float32()))
	case reflect.Float64:
		v.SetFloat(d.Float64())
	case reflect.String:
		v.SetString(d.String())
	case reflect.Pointer:
		if d.Bool() {
			p := reflect.New(t.Elem())
			decodeValue(d, p.Elem())
			v.Set(p)
		}
	case reflect.Slice:
		n := d.Len(maxAnswerLen)
		if n == 0 {
			return
		}
		s := reflect.MakeSlice(t, 0, 0)
		for range n - 1 {
			if d.Err() != nil {
				return
			}
			s = reflect.Append(s, reflect.Zero(t.Elem()))
			decodeValue(d, s.Index(s.Len()-1))
		}
		v.Set(s)
	case reflect.Struct:
		for i := range t.NumField() {
			if t.Field(i).IsExported() {
				decodeValue(d, v.Field(i))
			}
		}
	default:
		d.Fail(fmt.Errorf("ha: cannot decode a %s in an answer", t))
	}
}

// errorKinds are the kinds a decoded call error still matches with
// errors.Is; the first that matches is recorded. The index is the
// encoding, so the list only grows at its end.
var errorKinds = []error{
	berth.ErrInvalidArgument, berth.ErrNotFound, berth.ErrAlreadyExists, berth.ErrConflict,
	berth.ErrCapacityExceeded, berth.ErrNoPlacement, berth.ErrPermissionDenied,
	berth.ErrInvalidState, berth.ErrCorruptState, berth.ErrUnsupportedVersion,
}

// CallError is an error as a replayed or remote answer carries it: its
// message, and the error kind it wrapped (one of berth's Err… kinds, or
// for a rejected request ErrSessionExpired or ErrStaleRequest), which
// errors.Is still reaches. The error's own type and fields do not travel.
type CallError struct {
	Msg  string
	Kind error // the kind, or nil
}

// Error returns the original error's message.
func (e *CallError) Error() string { return e.Msg }

// Unwrap returns the berth error kind.
func (e *CallError) Unwrap() error { return e.Kind }

// encodeError writes err's message and the index of the first of kinds
// it wraps.
func encodeError(e *berth.StateEncoder, err error, kinds []error) {
	e.Bool(err != nil)
	if err == nil {
		return
	}
	e.String(err.Error())
	kind := 0
	for i, k := range kinds {
		if errors.Is(err, k) {
			kind = i + 1
			break
		}
	}
	e.Uvarint(uint64(kind))
}

func decodeError(d *berth.StateDecoder, kinds []error) error {
	if !d.Bool() {
		return nil
	}
	ce := &CallError{Msg: d.String()}
	k := d.Len(len(kinds))
	if k > 0 {
		ce.Kind = kinds[k-1]
	}
	if d.Err() != nil {
		return nil
	}
	return ce
}
