package plan

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/berthsched/berth"
)

// Each reservation call's payload is written twice: as YARN's REST tables
// document it (numbers, arrays) and as YARN's JSON writer actually prints
// it (every number and boolean a string, a one-element list a bare
// object). Both must decode to the same value, and encoding gives the
// documented form back.

const (
	newIDDocumented = `{"reservation-id": "reservation_1404198295326_0001"}`
	newIDWriter     = `{"reservation-id": "reservation_1404198295326_0001"}`

	submitDocumented = `{
	  "queue": "dedicated",
	  "reservation-id": "reservation_1404198295326_0001",
	  "reservation-definition": {
	    "arrival": 1765541532000, "deadline": 1765542252000,
	    "reservation-name": "res_1", "priority": 0, "recurrence-expression": "0",
	    "reservation-requests": {
	      "reservation-request-interpreter": 1,
	      "reservation-request": [
	        {"capability": {"memory": 1024, "vCores": 1}, "num-containers": 20, "min-concurrency": 4, "duration": 60000}]}}}`
	submitWriter = `{
	  "queue": "dedicated",
	  "reservation-id": "reservation_1404198295326_0001",
	  "reservation-definition": {
	    "arrival": "1765541532000", "deadline": "1765542252000",
	    "reservation-name": "res_1", "priority": "0", "recurrence-expression": 0,
	    "reservation-requests": {
	      "reservation-request-interpreter": "1",
	      "reservation-request":
	        {"capability": {"memory": "1024", "vCores": "1"}, "num-containers": "20", "min-concurrency": "4", "duration": "60000"}}}}`

	updateDocumented = `{
	  "reservation-id": "reservation_1404198295326_0001",
	  "reservation-definition": {
	    "arrival": 1765541532000, "deadline": 1765542252000, "reservation-name": "res_1",
	    "reservation-requests": {
	      "reservation-request-interpreter": 2,
	      "reservation-request": [
	        {"capability": {"memory": 1024, "vCores": 1}, "num-containers": 10, "min-concurrency": 1, "duration": 30000},
	        {"capability": {"memory": 2048, "vCores": 2}, "num-containers": 5, "min-concurrency": 5, "duration": 60000}]}}}`
	updateWriter = `{
	  "reservation-id": "reservation_1404198295326_0001",
	  "reservation-definition": {
	    "arrival": "1765541532000", "deadline": "1765542252000", "reservation-name": "res_1",
	    "reservation-requests": {
	      "reservation-request-interpreter": "2",
	      "reservation-request": [
	        {"capability": {"memory": "1024", "vCores": "1"}, "num-containers": "10", "min-concurrency": "1", "duration": "30000"},
	        {"capability": {"memory": "2048", "vCores": "2"}, "num-containers": "5", "min-concurrency": "5", "duration": "60000"}]}}}`

	deleteDocumented = `{"reservation-id": "reservation_1404198295326_0001"}`
	deleteWriter     = `{"reservation-id": "reservation_1404198295326_0001"}`

	listQueryDocumented = `{"queue": "dedicated", "start-time": 1765541000000, "end-time": 1765543000000, "include-resource-allocations": true}`
	listQueryWriter     = `{"queue": "dedicated", "start-time": "1765541000000", "end-time": "1765543000000", "include-resource-allocations": "true"}`

	// The list response in the shape of the example of YARN's REST
	// documentation ("Cluster Reservation API List"): one reservation, so
	// "reservations" is an object; three allocations, so an array; one
	// stage, so "reservation-request" is an object.
	listWriter = `{
	  "reservations": {
	    "acceptance-time": "1765541531000",
	    "user": "alice",
	    "resource-allocations": [
	      {"resource": {"memory": "0", "vCores": "0"}, "startTime": "1765541532000", "endTime": "1765541600000"},
	      {"resource": {"memory": "4096", "vCores": "4"}, "startTime": "1765541600000", "endTime": "1765541660000"},
	      {"resource": {"memory": "0", "vCores": "0"}, "startTime": "1765541660000", "endTime": "1765541700000"}],
	    "reservation-id": "reservation_1404198295326_0001",
	    "reservation-definition": {
	      "arrival": "1765541532000", "deadline": "1765542252000",
	      "reservation-requests": {
	        "reservation-request-interpreter": "0",
	        "reservation-request": {"capability": {"memory": "1024", "vCores": "1"}, "min-concurrency": "1", "num-containers": "4", "duration": "60000"}},
	      "reservation-name": "res_1"}}}`
	listDocumented = `{
	  "reservations": [{
	    "acceptance-time": 1765541531000,
	    "user": "alice",
	    "resource-allocations": [
	      {"resource": {"memory": 0, "vCores": 0}, "startTime": 1765541532000, "endTime": 1765541600000},
	      {"resource": {"memory": 4096, "vCores": 4}, "startTime": 1765541600000, "endTime": 1765541660000},
	      {"resource": {"memory": 0, "vCores": 0}, "startTime": 1765541660000, "endTime": 1765541700000}],
	    "reservation-id": "reservation_1404198295326_0001",
	    "reservation-definition": {
	      "arrival": 1765541532000, "deadline": 1765542252000, "priority": 0, "recurrence-expression": "0",
	      "reservation-requests": {
	        "reservation-request-interpreter": 0,
	        "reservation-request": [{"capability": {"memory": 1024, "vCores": 1}, "min-concurrency": 1, "num-containers": 4, "duration": 60000}]},
	      "reservation-name": "res_1"}}]}`
	// A single allocation is an object too.
	listWriterOneAllocation = `{"reservations": {"acceptance-time": "7", "user": "bob",
	  "resource-allocations": {"resource": {"memory": "1024", "vCores": "1"}, "startTime": "10", "endTime": "20"},
	  "reservation-id": "reservation_1_0002", "reservation-definition": {"arrival": "10", "deadline": "20"}}}`
)

// roundTrip decodes documented and writer into fresh values of T, checks
// they are equal, and that encoding gives the documented form.
func roundTrip[T any](t *testing.T, documented, writer string) T {
	t.Helper()
	var a, b T
	require.NoError(t, json.Unmarshal([]byte(documented), &a), "documented form")
	require.NoError(t, json.Unmarshal([]byte(writer), &b), "YARN writer's form")
	assert.Equal(t, a, b, "both forms decode alike")
	out, err := json.Marshal(b)
	require.NoError(t, err)
	var again T
	require.NoError(t, json.Unmarshal(out, &again))
	assert.Equal(t, a, again, "encoding round-trips")
	return b
}

func TestRESTPayloadsDecodeBothForms(t *testing.T) {
	stage := func(mem, vc, n, k int64, d berth.Duration) Stage {
		return Stage{Capability: berth.New(mem, vc), Containers: n, Concurrency: k, Duration: d}
	}
	id := ReservationID{1404198295326, 1}

	t.Run("new id", func(t *testing.T) {
		r := roundTrip[NewReservationResponse](t, newIDDocumented, newIDWriter)
		assert.Equal(t, id, r.ID)
	})
	t.Run("submit", func(t *testing.T) {
		r := roundTrip[SubmissionRequest](t, submitDocumented, submitWriter)
		require.NotNil(t, r.Definition)
		assert.Equal(t, SubmissionRequest{Queue: "dedicated", ID: id, Definition: &Definition{
			Arrival: 1765541532000, Deadline: 1765542252000, Name: "res_1", Interpreter: RAll,
			Stages: []Stage{stage(1024, 1, 20, 4, 60000)}}}, r)
	})
	t.Run("update", func(t *testing.T) {
		r := roundTrip[UpdateRequest](t, updateDocumented, updateWriter)
		require.NotNil(t, r.Definition)
		assert.Equal(t, ROrder, r.Definition.Interpreter)
		assert.Equal(t, []Stage{stage(1024, 1, 10, 1, 30000), stage(2048, 2, 5, 5, 60000)}, r.Definition.Stages)
	})
	t.Run("delete", func(t *testing.T) {
		r := roundTrip[DeleteRequest](t, deleteDocumented, deleteWriter)
		assert.Equal(t, id, r.ID)
	})
	t.Run("list query", func(t *testing.T) {
		r := roundTrip[ListRequest](t, listQueryDocumented, listQueryWriter)
		assert.Equal(t, ListRequest{Queue: "dedicated", Start: 1765541000000, End: 1765543000000, IncludeAllocations: true}, r)
	})
	t.Run("list response", func(t *testing.T) {
		r := roundTrip[ListResponse](t, listDocumented, listWriter)
		require.Len(t, r.Reservations, 1)
		info := r.Reservations[0]
		assert.Equal(t, berth.Time(1765541531000), info.AcceptanceTime)
		assert.Equal(t, "alice", info.User)
		assert.Equal(t, id, info.ID)
		assert.Equal(t, []ResourceAllocationInfo{
			{Start: 1765541532000, End: 1765541600000, Resource: berth.New(0, 0)},
			{Start: 1765541600000, End: 1765541660000, Resource: berth.New(4096, 4)},
			{Start: 1765541660000, End: 1765541700000, Resource: berth.New(0, 0)},
		}, info.Allocations)
		assert.Equal(t, []Stage{stage(1024, 1, 4, 1, 60000)}, info.Definition.Stages)
		// The canonical form is what the documentation's tables describe.
		out, err := json.Marshal(r)
		require.NoError(t, err)
		assert.JSONEq(t, listDocumented, string(out))
	})
	t.Run("one allocation", func(t *testing.T) {
		var r ListResponse
		require.NoError(t, json.Unmarshal([]byte(listWriterOneAllocation), &r))
		require.Len(t, r.Reservations, 1)
		assert.Equal(t, []ResourceAllocationInfo{{Start: 10, End: 20, Resource: berth.New(1024, 1)}}, r.Reservations[0].Allocations)
		assert.Equal(t, berth.Time(7), r.Reservations[0].AcceptanceTime)
	})
	t.Run("empty list", func(t *testing.T) {
		for _, body := range []string{`{"reservations": []}`, `{"reservations": null}`, `{}`} {
			var r ListResponse
			require.NoError(t, json.Unmarshal([]byte(body), &r), body)
			assert.Equal(t, []ReservationInfo{}, r.Reservations, body)
		}
	})
}

// TestRESTWriterFormThroughTheSystem drives the calls end to end with
// payloads in YARN's writer form: submit, list (encoded, then read back in
// both forms), update and delete.
func TestRESTWriterFormThroughTheSystem(t *testing.T) {
	s := crmSystem(t, berth.NewManualClock(1765541531000))
	var sub SubmissionRequest
	require.NoError(t, json.Unmarshal([]byte(submitWriter), &sub))
	sub.User = "alice"
	require.NoError(t, s.Submit(sub))

	var q ListRequest
	require.NoError(t, json.Unmarshal([]byte(listQueryWriter), &q))
	got, err := s.List(q)
	require.NoError(t, err)
	require.Len(t, got.Reservations, 1)
	out, err := json.Marshal(got)
	require.NoError(t, err)
	var back ListResponse
	require.NoError(t, json.Unmarshal(out, &back))
	assert.Equal(t, got, back)

	var upd UpdateRequest
	require.NoError(t, json.Unmarshal([]byte(updateWriter), &upd))
	upd.User = "alice"
	require.NoError(t, s.Update(upd))
	var del DeleteRequest
	require.NoError(t, json.Unmarshal([]byte(deleteWriter), &del))
	del.User = "alice"
	require.NoError(t, s.Delete(del))
	got, err = s.List(q)
	require.NoError(t, err)
	assert.Empty(t, got.Reservations)
}

func TestRESTMalformedNumbers(t *testing.T) {
	for _, body := range []string{
		`{"arrival": "soon"}`,
		`{"arrival": {"at": 1}}`,
		`{"priority": "4294967296"}`,
		`{"reservation-requests": {"reservation-request": {"num-containers": "1.5"}}}`,
		`{"reservation-requests": {"reservation-request": [{"capability": {"memory": [1]}}]}}`,
	} {
		var d Definition
		err := json.Unmarshal([]byte(body), &d)
		require.Error(t, err, body)
		assert.ErrorIs(t, err, berth.ErrInvalidArgument, body)
		var fe *berth.FieldError
		require.ErrorAs(t, err, &fe, body)
		assert.Equal(t, fieldDefinition, fe.Field)
	}
	var l ListRequest
	err := json.Unmarshal([]byte(`{"include-resource-allocations": "maybe"}`), &l)
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)
	var r ListResponse
	err = json.Unmarshal([]byte(`{"reservations": {"acceptance-time": "later"}}`), &r)
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)
}

// FuzzRESTListResponse: any body decodes or fails with a typed error, never
// panics, and what decodes re-encodes to a body that decodes alike. Bodies
// over 4 KiB (the seeds are under 1 KiB) add nothing but time.
func FuzzRESTListResponse(f *testing.F) {
	for _, s := range []string{listWriter, listDocumented, listWriterOneAllocation, submitWriter, `{"reservations": null}`, `[]`, `"x"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if len(body) > 4<<10 {
			return
		}
		var r ListResponse
		if err := json.Unmarshal(body, &r); err != nil {
			if !json.Valid(body) {
				return // the decoder's own syntax error, before any of ours
			}
			assert.ErrorIs(t, err, berth.ErrInvalidArgument)
			var fe *berth.FieldError
			assert.ErrorAs(t, err, &fe)
			return
		}
		out, err := json.Marshal(r)
		require.NoError(t, err)
		var again ListResponse
		require.NoError(t, json.Unmarshal(out, &again), "%s", out)
		assert.Equal(t, r, again)
	})
}
