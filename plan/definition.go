package plan

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/berthsched/berth"
)

// Interpreter says how the stages of a [Definition] combine. Its numeric
// values are YARN's ReservationRequestInterpreter codes, used as they are in
// the REST field "reservation-request-interpreter". The zero value is RAny,
// as an absent REST field decodes in YARN.
type Interpreter int

// The four interpreters of YARN, with their codes.
const (
	// RAny: placing any one stage satisfies the reservation.
	RAny Interpreter = 0
	// RAll: every stage is placed, with no order between them.
	RAll Interpreter = 1
	// ROrder: every stage, stage k entirely before stage k+1 (gaps allowed).
	ROrder Interpreter = 2
	// ROrderNoGap: as ROrder, and each stage starts when the previous ends.
	ROrderNoGap Interpreter = 3
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
func (i Interpreter) Valid() bool { return i >= RAny && i <= ROrderNoGap }

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
	Interpreter number[Interpreter] `json:"reservation-request-interpreter"`
	Requests    list[stageJSON]     `json:"reservation-request"`
}

type definitionJSON struct {
	Arrival    number[berth.Time] `json:"arrival"`
	Deadline   number[berth.Time] `json:"deadline"`
	Requests   *requestsJSON      `json:"reservation-requests,omitempty"`
	Name       string             `json:"reservation-name"`
	Priority   number[int32]      `json:"priority"`
	Recurrence text               `json:"recurrence-expression"`
}

// MarshalJSON writes YARN's REST ReservationDefinitionInfo:
//
//	{"arrival":…, "deadline":…, "reservation-name":…, "priority":…,
//	 "recurrence-expression":"0",
//	 "reservation-requests":{"reservation-request-interpreter":1,
//	   "reservation-request":[{"capability":{"memory":1024,"vCores":1},
//	     "num-containers":4, "min-concurrency":1, "duration":60000}]}}
func (d Definition) MarshalJSON() ([]byte, error) {
	w := definitionJSON{Arrival: num(d.Arrival), Deadline: num(d.Deadline), Name: d.Name, Priority: num(d.Priority),
		Recurrence: text(strconv.FormatInt(d.Period, 10)),
		Requests:   &requestsJSON{Interpreter: num(d.Interpreter), Requests: list[stageJSON]{}}}
	for _, s := range d.Stages {
		w.Requests.Requests = append(w.Requests.Requests, stageJSON{Capability: toResourceJSON(s.Capability),
			Containers: num(s.Containers), Concurrency: num(s.Concurrency), Duration: num(s.Duration)})
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads YARN's REST ReservationDefinitionInfo, in the
// documented form or as YARN's JSON writer prints it (numbers as strings,
// a single stage as an object instead of an array). A bad recurrence
// expression gives the *berth.FieldError of [ParseRecurrence].
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
		out.Interpreter = w.Requests.Interpreter.v
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
