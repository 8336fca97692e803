package plan

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/berthsched/berth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The REST example of YARN's ResourceManagerRest docs decodes as expected.
func TestDefinitionJSON(t *testing.T) {
	in := `{
	  "arrival": 1765541532000, "deadline": 1765542252000,
	  "reservation-name": "res_1", "priority": 2, "recurrence-expression": "86400000",
	  "reservation-requests": {
	    "reservation-request-interpreter": 0,
	    "reservation-request": [
	      {"duration": 60000, "num-containers": 220, "min-concurrency": 220, "capability": {"memory": 1024, "vCores": 1}},
	      {"duration": 120000, "num-containers": 110, "min-concurrency": 110, "capability": {"memory": 1024, "vCores": 1,
	        "resourceInformations": [{"name": "yarn.io/gpu", "value": 2}]}}
	    ]}}`
	var d Definition
	require.NoError(t, json.Unmarshal([]byte(in), &d))
	want := Definition{Arrival: 1765541532000, Deadline: 1765542252000, Name: "res_1", Priority: 2, Period: 86_400_000,
		Interpreter: RAny, Stages: []Stage{
			{Capability: berth.New(1024, 1), Containers: 220, Concurrency: 220, Duration: 60000},
			{Capability: berth.NewWithExtras(1024, 1, berth.Quantity{Name: berth.ResourceGPU, Value: 2}), Containers: 110, Concurrency: 110, Duration: 120000},
		}}
	assert.True(t, want.Equal(d), "%v", d)
	b, err := json.Marshal(d)
	require.NoError(t, err)
	var back Definition
	require.NoError(t, json.Unmarshal(b, &back))
	assert.True(t, d.Equal(back))
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	assert.Equal(t, "86400000", m["recurrence-expression"])
	assert.Contains(t, m, "reservation-requests")

	var bad Definition
	err = json.Unmarshal([]byte(`{"arrival": "x"}`), &bad)
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)
}

func TestInterpreter(t *testing.T) {
	assert.Equal(t, "R_ANY", RAny.String())
	assert.Equal(t, "R_ALL", RAll.String())
	assert.Equal(t, "R_ORDER", ROrder.String())
	assert.Equal(t, "R_ORDER_NO_GAP", ROrderNoGap.String())
	assert.Equal(t, "Interpreter(9)", Interpreter(9).String())
	assert.False(t, Interpreter(4).Valid())
	assert.False(t, Interpreter(-1).Valid())
	var zero Interpreter
	assert.Equal(t, RAll, zero, "no interpreter means R_ALL, the protocol's default")
	for code, want := range []Interpreter{RAny, RAll, ROrder, ROrderNoGap} {
		got, err := InterpreterOf(int64(code))
		require.NoError(t, err)
		assert.Equal(t, want, got, "code %d", code)
		assert.Equal(t, code, want.Code())
		assert.NoError(t, CheckInterpreter(want))
	}
	for _, code := range []int64{-1, 4, 9, math.MaxInt64} {
		_, err := InterpreterOf(code)
		assertInterpreterRefused(t, err, code)
	}
	for _, i := range []Interpreter{-1, 4, 9} {
		assertInterpreterRefused(t, CheckInterpreter(i), i)
		assert.Equal(t, int(i), i.Code(), "a value outside the enum is no code")
	}
}

// assertInterpreterRefused: err is the typed refusal of an interpreter
// outside the enum, naming the REST field and the value.
func assertInterpreterRefused(t *testing.T, err error, value any) {
	t.Helper()
	assert.ErrorIs(t, err, berth.ErrInvalidArgument, "%v", value)
	var fe *berth.FieldError
	if assert.ErrorAs(t, err, &fe, "%v", value) {
		assert.Equal(t, "reservation-definition.reservation-requests.reservation-request-interpreter", fe.Field)
		assert.Equal(t, value, fe.Value)
	}
}

// The REST field: absent or null is R_ALL (YARN's protocol default), a
// code is read as YARN's, and a code outside 0–3 is refused; encoding
// writes codes and refuses a value outside the enum.
func TestDefinitionJSONInterpreter(t *testing.T) {
	const stage = `"reservation-request":[{"capability":{"memory":1024,"vCores":1},"num-containers":2,"min-concurrency":1,"duration":1000}]`
	for _, c := range []struct {
		field string
		want  Interpreter
	}{
		{``, RAll}, {`"reservation-request-interpreter":null,`, RAll},
		{`"reservation-request-interpreter":0,`, RAny}, {`"reservation-request-interpreter":"0",`, RAny},
		{`"reservation-request-interpreter":1,`, RAll}, {`"reservation-request-interpreter":2,`, ROrder},
		{`"reservation-request-interpreter":"3",`, ROrderNoGap},
	} {
		var d Definition
		require.NoError(t, json.Unmarshal([]byte(`{"arrival":0,"deadline":5000,"reservation-requests":{`+c.field+stage+`}}`), &d), c.field)
		assert.Equal(t, c.want, d.Interpreter, c.field)
		require.Len(t, d.Stages, 1)
		b, err := json.Marshal(d)
		require.NoError(t, err)
		var back Definition
		require.NoError(t, json.Unmarshal(b, &back))
		assert.True(t, back.Equal(d), "%s", b)
		assert.Contains(t, string(b), fmt.Sprintf(`"reservation-request-interpreter":%d`, c.want.Code()))
	}
	for _, code := range []int64{-1, 4, 9} {
		var d Definition
		err := json.Unmarshal([]byte(fmt.Sprintf(`{"arrival":0,"deadline":5000,"reservation-requests":{"reservation-request-interpreter":%d,%s}}`, code, stage)), &d)
		assertInterpreterRefused(t, err, code)
		assert.Empty(t, d.Stages, "nothing decoded")
	}
	_, err := json.Marshal(Definition{Interpreter: 9})
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)
}

// Minimum duration: max for R_ALL, sum for R_ORDER; R_ANY skips the check.
func TestValidateDefinitionInterpreters(t *testing.T) {
	stages := []Stage{{Capability: berth.New(1024, 1), Containers: 1, Concurrency: 1, Duration: 3},
		{Capability: berth.New(1024, 1), Containers: 1, Concurrency: 1, Duration: 4}}
	lim := Limits{Now: 0, Capacity: berth.New(10240, 10), MaxPeriodicity: DefaultMaxPeriodicity}
	for _, tt := range []struct {
		in       Interpreter
		deadline berth.Time
		ok       bool
	}{
		{RAll, 5, true}, {RAll, 4, false}, {RAll, 3, false},
		{ROrder, 8, true}, {ROrder, 7, false}, {ROrderNoGap, 7, false},
		{RAny, 2, true},
	} {
		d := &Definition{Arrival: 1, Deadline: tt.deadline, Interpreter: tt.in, Stages: stages}
		err := ValidateDefinition(d, lim)
		assert.Equal(t, tt.ok, err == nil, "%v deadline %d: %v", tt.in, tt.deadline, err)
	}
	// Gang larger than the capacity; R_ANY skips it.
	big := []Stage{{Capability: berth.New(2048, 1), Containers: 8, Concurrency: 8, Duration: 1}}
	err := ValidateDefinition(&Definition{Arrival: 0, Deadline: 5, Interpreter: RAll, Stages: big}, lim)
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)
	assert.NoError(t, ValidateDefinition(&Definition{Arrival: 0, Deadline: 5, Interpreter: RAny, Stages: big}, lim))
	// Strict stages.
	strict := lim
	strict.StrictStages = true
	for _, s := range []Stage{
		{Capability: berth.New(1, 1), Containers: 1, Concurrency: 0, Duration: 1},
		{Capability: berth.New(1, 1), Containers: 0, Concurrency: 1, Duration: 1},
		{Capability: berth.New(1, 1), Containers: 3, Concurrency: 2, Duration: 1},
		{Capability: berth.New(1, 1), Containers: 1, Concurrency: 1, Duration: 0},
		{Capability: berth.New(-1, 1), Containers: 1, Concurrency: 1, Duration: 1},
	} {
		d := &Definition{Arrival: 0, Deadline: 5, Interpreter: RAll, Stages: []Stage{s}}
		assert.NoError(t, ValidateDefinition(d, lim), "YARN accepts %+v", s)
		assert.ErrorIs(t, ValidateDefinition(d, strict), berth.ErrInvalidArgument, "strict rejects %+v", s)
	}
	assert.Error(t, ValidateDefinition(&Definition{Deadline: 5, Interpreter: 7, Stages: stages}, strict))
	// Overflowing arithmetic saturates.
	huge := &Definition{Arrival: math.MinInt64, Deadline: math.MaxInt64, Interpreter: ROrder,
		Stages: []Stage{{Duration: math.MaxInt64}, {Duration: math.MaxInt64}}}
	assert.NoError(t, ValidateDefinition(huge, lim))
}

// FuzzValidateDefinition: the validator never panics and every error is a
// typed *berth.FieldError naming a field.
func FuzzValidateDefinition(f *testing.F) {
	f.Add(int64(1), int64(5), int64(3), int64(1), int64(1), int64(1024), int64(1), uint8(1), int64(0), int64(10240), int64(10))
	f.Add(int64(1), int64(0), int64(3), int64(1), int64(1), int64(1024), int64(1), uint8(2), int64(10), int64(10240), int64(10))
	f.Add(int64(math.MinInt64), int64(math.MaxInt64), int64(math.MaxInt64), int64(-1), int64(0), int64(-5), int64(0), uint8(9), int64(-3), int64(0), int64(0))
	f.Add(int64(0), int64(100), int64(50), int64(4), int64(2), int64(1<<62), int64(1<<62), uint8(3), int64(43200001), int64(1), int64(1))
	f.Fuzz(func(t *testing.T, arrival, deadline, duration, containers, concurrency, mem, vc int64, interp uint8, period, capMem, capVC int64) {
		d := &Definition{Arrival: arrival, Deadline: deadline, Period: period, Interpreter: Interpreter(interp % 6),
			Stages: []Stage{{Capability: berth.New(mem, vc), Containers: containers, Concurrency: concurrency, Duration: duration}}}
		for _, strict := range []bool{false, true} {
			for _, calc := range []berth.Calculator{berth.MemoryCalculator{}, berth.DominantCalculator{}} {
				err := ValidateDefinition(d, Limits{Now: 1, Capacity: berth.New(capMem, capVC), Calculator: calc,
					MaxPeriodicity: DefaultMaxPeriodicity, StrictStages: strict})
				if err == nil {
					if d.Deadline <= 1 || d.Deadline <= d.Arrival || !d.Interpreter.Valid() {
						t.Fatalf("accepted %v", d)
					}
					continue
				}
				var fe *berth.FieldError
				if !errors.As(err, &fe) || fe.Field == "" || fe.Reason == "" || !errors.Is(err, berth.ErrInvalidArgument) {
					t.Fatalf("untyped error %v", err)
				}
			}
		}
		// The JSON edge never panics either.
		b, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		var back Definition
		err = json.Unmarshal(b, &back)
		if period < 0 {
			if !errors.Is(err, berth.ErrInvalidArgument) {
				t.Fatalf("negative period decoded: %v", err)
			}
			return
		}
		if err != nil || !back.Equal(*d) {
			t.Fatalf("JSON roundtrip: %v", err)
		}
	})
}
