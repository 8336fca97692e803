package plan

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/berthsched/berth"
)

// Interpreter says how the stages of a [Definition] combine: YARN's
// ReservationRequestInterpreter. The zero value is RAll, what YARN's
// protocol means by a definition that names no interpreter (the default of
// ReservationRequestsProto's interpreter field). The Go values are not
// YARN's numeric codes (R_ANY 0, R_ALL 1, R_ORDER 2, R_ORDER_NO_GAP 3):
// [Interpreter.Code] and [InterpreterOf] convert, and the REST field and
// snapshots carry the codes.
type Interpreter int

// The four interpreters of YARN.
const (
	// RAll: every stage is placed, with no order between them. The zero
	// value.
	RAll Interpreter = iota
	// RAny: placing any one stage satisfies the reservation.
	RAny
	// ROrder: every stage, stage k entirely before stage k+1 (gaps allowed).
	ROrder
	// ROrderNoGap: as ROrder, and each stage starts when the previous ends.
	ROrderNoGap
)

// String returns YARN's enum name (R_ANY, R_ALL, R_ORDER, R_ORDER_NO_GAP).
func (i Interpreter) String() string {
	switch i {
	case RAny:
		return "R_ANY"
	case RAll:
		return "R_ALL"
	case ROrder:
		return "R_ORDER"
	case ROrderNoGap:
		return "R_ORDER_NO_GAP"
	}
	return "Interpreter(" + strconv.Itoa(int(i)) + ")"
}

// Valid reports whether i is one of the four interpreters.
func (i Interpreter) Valid() bool { return i >= RAll && i <= ROrderNoGap }

// Code returns YARN's numeric code of i (ReservationRequestInterpreter's
// ordinal, the REST field "reservation-request-interpreter"). A value
// outside the enum is returned as it is: it lies outside 0–3 as no code
// does, so a record that must keep a refused request can store it.
func (i Interpreter) Code() int {
	switch i {
	case RAny:
		return 0
	case RAll:
		return 1
	}
	return int(i)
}

// InterpreterOf returns the interpreter of YARN's numeric code (0 R_ANY,
// 1 R_ALL, 2 R_ORDER, 3 R_ORDER_NO_GAP). Any other code is a
// *berth.FieldError of kind berth.ErrInvalidArgument naming the field.
func InterpreterOf(code int64) (Interpreter, error) {
	switch code {
	case 0:
		return RAny, nil
	case 1:
		return RAll, nil
	case 2, 3:
		return Interpreter(code), nil
	}
	return 0, badInterpreter(code)
}

// CheckInterpreter returns nil for one of the four interpreters and for
// any other value the *berth.FieldError (kind berth.ErrInvalidArgument)
// that [ValidateDefinition], agents and [NewAllocation] refuse it with.
func CheckInterpreter(i Interpreter) error {
	if i.Valid() {
		return nil
	}
	return badInterpreter(i)
}

func badInterpreter(v any) error {
	return berth.InvalidField(fieldInterpreter, v, "must be one of R_ANY (0), R_ALL (1), R_ORDER (2) and R_ORDER_NO_GAP (3)")
}

// Stage is one request of a reservation: Containers containers of
// Capability each, running for Duration, placed in gangs of Concurrency
// containers that must start together. It is YARN's ReservationRequest.
type Stage struct {
	// Capability is the size of one container (REST "capability").
	Capability berth.Resource
	// Containers is the number of containers (REST "num-containers").
	Containers int64
	// Concurrency is the gang size (REST "min-concurrency"); YARN's default 1.
	Concurrency int64
	// Duration is how long each container runs, in ms (REST "duration").
	Duration berth.Duration
}

// Total returns Capability × Containers (YARN's ReservationSystemUtil.toResource).
func (s Stage) Total() berth.Resource { return s.Capability.MulInt(s.Containers) }

// Gang returns Capability × Concurrency, the resources one gang needs at once.
func (s Stage) Gang() berth.Resource { return s.Capability.MulInt(s.Concurrency) }

// Equal compares every field (Capability with berth.Resource.Equal).
func (s Stage) Equal(o Stage) bool {
	return s.Capability.Equal(o.Capability) && s.Containers == o.Containers &&
		s.Concurrency == o.Concurrency && s.Duration == o.Duration
}

// Definition is what a user asks to reserve: stages combined by an
// interpreter, to run between Arrival and Deadline, optionally repeating
// every Period ms. It is YARN's ReservationDefinition; its JSON form uses
// the field names of YARN's REST API (see [Definition.MarshalJSON]).
type Definition struct {
	// Arrival is the earliest start, ms (REST "arrival").
	Arrival berth.Time
	// Deadline is the latest end, ms, exclusive (REST "deadline").
	Deadline berth.Time
	// Name is a free label (REST "reservation-name").
	Name string
	// Priority is carried for the scheduler (REST "priority").
	Priority int32
	// Period is the recurrence in ms; 0 means not periodic (REST
	// "recurrence-expression", a decimal string there).
	Period berth.Duration
	// Stages are the requests (REST "reservation-requests"."reservation-request").
	Stages []Stage
	// Interpreter combines the stages (REST
	// "reservation-requests"."reservation-request-interpreter").
	Interpreter Interpreter
}

// PlacedArrival is the earliest time a placement of d may start when it
// is submitted at now: the arrival, or now if that is later, for a
// definition that does not repeat (the past cannot be reserved). A
// periodic definition keeps its arrival, which sets the phase of every
// occurrence. [System.Submit] and [System.Update] place d from there.
func (d Definition) PlacedArrival(now berth.Time) berth.Time {
	if d.Period != 0 {
		return d.Arrival
	}
	return max(d.Arrival, now)
}

// Equal compares every field. The service facade uses it for the
// idempotence of submissions (YARN compares the protobuf records).
func (d Definition) Equal(o Definition) bool {
	return d.Arrival == o.Arrival && d.Deadline == o.Deadline && d.Name == o.Name &&
		d.Priority == o.Priority && d.Period == o.Period && d.Interpreter == o.Interpreter &&
		slices.EqualFunc(d.Stages, o.Stages, Stage.Equal)
}

// Clone returns a copy that shares no slice with d.
func (d Definition) Clone() Definition {
	d.Stages = slices.Clone(d.Stages)
	return d
}

// ParseRecurrence parses a YARN recurrence expression: a decimal long, 0
// meaning "not periodic". The empty string reads as 0, as an unset
// protobuf field does. Errors are *berth.FieldError on field
// "reservation-definition.recurrence-expression" with YARN's messages.
func ParseRecurrence(expr string) (berth.Duration, error) {
	if expr == "" {
		return 0, nil
	}
	p, err := strconv.ParseInt(expr, 10, 64)
	if err != nil {
		return 0, &berth.FieldError{Field: fieldRecurrence, Value: expr,
			Reason: "Invalid period " + expr + ". Please try again with a non-negative long value as period.", Err: err}
	}
	if p < 0 {
		return 0, berth.InvalidField(fieldRecurrence, expr,
			"Negative Period : "+expr+". Please try again with a non-negative long value as period.")
	}
	return p, nil
}

// resourceJSON is YARN's REST ResourceInfo: {"memory": …, "vCores": …}.
// Extended types travel in "resourceInformations" as name/value pairs.
type resourceJSON struct {
	Memory number[int64]      `json:"memory"`
	VCores number[int64]      `json:"vCores"`
	Extras list[quantityJSON] `json:"resourceInformations,omitempty"`
}

type quantityJSON struct {
	Name  string        `json:"name"`
	Value number[int64] `json:"value"`
}

func toResourceJSON(r berth.Resource) resourceJSON {
	out := resourceJSON{Memory: num(r.Memory), VCores: num(r.VCores)}
	for _, q := range r.Extras() {
		out.Extras = append(out.Extras, quantityJSON{Name: q.Name, Value: num(q.Value)})
	}
	return out
}

func (j resourceJSON) resource() berth.Resource {
	qs := make([]berth.Quantity, len(j.Extras))
	for i, q := range j.Extras {
		qs[i] = berth.Quantity{Name: q.Name, Value: q.Value.v}
	}
	return berth.NewWithExtras(j.Memory.v, j.VCores.v, qs...)
}

type stageJSON struct {
	Capability  resourceJSON           `json:"capability"`
	Containers  number[int64]          `json:"num-containers"`
	Concurrency number[int64]          `json:"min-concurrency"`
	Duration    number[berth.Duration] `json:"duration"`
}

type requestsJSON struct {
	// Interpreter is YARN's code; absent (or null) it reads as R_ALL.
	Interpreter *number[int64]  `json:"reservation-request-interpreter"`
	Requests    list[stageJSON] `json:"reservation-request"`
}

type definitionJSON struct {
	Arrival    number[berth.Time] `json:"arrival"`
	Deadline   number[berth.Time] `json:"deadline"`
	Requests   *requestsJSON      `json:"reservation-requests,omitempty"`
	Name       string             `json:"reservation-name"`
	Priority   number[int32]      `json:"priority"`
	Recurrence text               `json:"recurrence-expression"`
}

// MarshalJSON writes YARN's REST ReservationDefinitionInfo, the
// interpreter as its code:
//
//	{"arrival":…, "deadline":…, "reservation-name":…, "priority":…,
//	 "recurrence-expression":"0",
//	 "reservation-requests":{"reservation-request-interpreter":1,
//	   "reservation-request":[{"capability":{"memory":1024,"vCores":1},
//	     "num-containers":4, "min-concurrency":1, "duration":60000}]}}
//
// An interpreter outside the enum is the error of [CheckInterpreter].
func (d Definition) MarshalJSON() ([]byte, error) {
	if err := CheckInterpreter(d.Interpreter); err != nil {
		return nil, err
	}
	code := num(int64(d.Interpreter.Code()))
	w := definitionJSON{Arrival: num(d.Arrival), Deadline: num(d.Deadline), Name: d.Name, Priority: num(d.Priority),
		Recurrence: text(strconv.FormatInt(d.Period, 10)),
		Requests:   &requestsJSON{Interpreter: &code, Requests: list[stageJSON]{}}}
	for _, s := range d.Stages {
		w.Requests.Requests = append(w.Requests.Requests, stageJSON{Capability: toResourceJSON(s.Capability),
			Containers: num(s.Containers), Concurrency: num(s.Concurrency), Duration: num(s.Duration)})
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads YARN's REST ReservationDefinitionInfo, in the
// documented form or as YARN's JSON writer prints it (numbers as strings,
// a single stage as an object instead of an array). An absent interpreter
// is R_ALL, the protocol's default (YARN's REST layer reads 0, R_ANY, and
// indexes its enum with any code, failing on −1 or 9: Berth refuses a code
// outside 0–3 with the *berth.FieldError of [InterpreterOf]). A bad
// recurrence expression gives the *berth.FieldError of [ParseRecurrence].
func (d *Definition) UnmarshalJSON(b []byte) error {
	var w definitionJSON
	if err := decode(b, &w, fieldDefinition); err != nil {
		return err
	}
	p, err := ParseRecurrence(string(w.Recurrence))
	if err != nil {
		return err
	}
	out := Definition{Arrival: w.Arrival.v, Deadline: w.Deadline.v, Name: w.Name, Priority: w.Priority.v, Period: p}
	if w.Requests != nil {
		if c := w.Requests.Interpreter; c != nil {
			if out.Interpreter, err = InterpreterOf(c.v); err != nil {
				return err
			}
		}
		for _, s := range w.Requests.Requests {
			out.Stages = append(out.Stages, Stage{Capability: s.Capability.resource(),
				Containers: s.Containers.v, Concurrency: s.Concurrency.v, Duration: s.Duration.v})
		}
	}
	*d = out
	return nil
}

// String is a short human form for logs.
func (d Definition) String() string {
	return fmt.Sprintf("{%q [%d, %d) period %d %v %d stages}", d.Name, d.Arrival, d.Deadline, d.Period, d.Interpreter, len(d.Stages))
}

// Field paths used in errors about definitions.
const (
	fieldDefinition  = "reservation-definition"
	fieldArrival     = "reservation-definition.arrival"
	fieldDeadline    = "reservation-definition.deadline"
	fieldRequests    = "reservation-definition.reservation-requests"
	fieldRecurrence  = "reservation-definition.recurrence-expression"
	fieldInterpreter = "reservation-definition.reservation-requests.reservation-request-interpreter"
)
