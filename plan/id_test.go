package plan

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/berthsched/berth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReservationIDString(t *testing.T) {
	tests := []struct {
		id   ReservationID
		want string
	}{
		{ReservationID{1404198295326, 3}, "reservation_1404198295326_0003"},
		{ReservationID{1, 12345}, "reservation_1_12345"},
		{ReservationID{0, 0}, "reservation_0_0000"},
		{ReservationID{-5, -7}, "reservation_-5_-007"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.id.String())
		back, err := ParseReservationID(tt.want)
		require.NoError(t, err)
		assert.Equal(t, tt.id, back)
	}
}

func TestParseReservationIDErrors(t *testing.T) {
	tests := []struct {
		in    string
		cause error
	}{
		{"", ErrIDPrefix},
		{"application_1_0001", ErrIDPrefix},
		{"reservation_1", ErrIDFields},
		{"reservation_1_2_3", ErrIDFields},
		{"reservation_x_0001", ErrIDNumber},
		{"reservation_1_", ErrIDNumber},
		{"reservation_1_99999999999999999999", ErrIDNumber},
	}
	for _, tt := range tests {
		_, err := ParseReservationID(tt.in)
		require.Error(t, err, tt.in)
		assert.ErrorIs(t, err, tt.cause, tt.in)
		assert.ErrorIs(t, err, berth.ErrInvalidArgument, tt.in)
		var fe *berth.FieldError
		require.ErrorAs(t, err, &fe)
		assert.Equal(t, "reservation-id", fe.Field)
		assert.Equal(t, tt.in, fe.Value)
	}
	_, err := ParseReservationID("nope")
	assert.Contains(t, err.Error(), "The specified reservation id is invalid: nope")
	_, err = ParseReservationID("reservation_1")
	assert.Contains(t, err.Error(), "The specified reservation id is not parseable: reservation_1")
}

// YARN's compareTo compares the sequence with itself (§18 item 9); Berth
// orders by (timestamp, sequence).
func TestReservationIDCompare(t *testing.T) {
	a, b, c := ReservationID{1, 1}, ReservationID{1, 2}, ReservationID{2, 0}
	assert.Equal(t, -1, a.Compare(b))
	assert.Equal(t, 1, b.Compare(a))
	assert.Equal(t, -1, b.Compare(c))
	assert.Equal(t, 0, a.Compare(ReservationID{1, 1}))
	assert.Equal(t, -1, ReservationID{math.MinInt64, 0}.Compare(ReservationID{math.MaxInt64, 0}))
}

func TestReservationIDJSON(t *testing.T) {
	b, err := json.Marshal(NewReservationResponse{ID: ReservationID{1404198295326, 3}})
	require.NoError(t, err)
	assert.JSONEq(t, `{"reservation-id":"reservation_1404198295326_0003"}`, string(b))
	var r NewReservationResponse
	require.NoError(t, json.Unmarshal(b, &r))
	assert.Equal(t, ReservationID{1404198295326, 3}, r.ID)
	var l ListRequest
	require.NoError(t, json.Unmarshal([]byte(`{"queue":"q","reservation-id":"","start-time":5,"end-time":-1,"include-resource-allocations":true}`), &l))
	assert.True(t, l.ID.IsZero())
	assert.Equal(t, ListRequest{Queue: "q", Start: 5, End: -1, IncludeAllocations: true}, l)
	err = json.Unmarshal([]byte(`{"reservation-id":"bogus"}`), &l)
	assert.ErrorIs(t, err, ErrIDPrefix)
}

// FuzzReservationID: parse never panics, errors are typed and name the
// field, and parse∘print is the identity on parsed ids.
func FuzzReservationID(f *testing.F) {
	for _, s := range []string{"reservation_1404198295326_0003", "reservation_0_0000", "reservation_-1_-001",
		"reservation_1_2_3", "reservation__", "", "reservation_9223372036854775807_9223372036854775807", "reservation_+1_0001"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, err := ParseReservationID(s)
		if err != nil {
			var fe *berth.FieldError
			if !errors.As(err, &fe) || fe.Field != "reservation-id" || !errors.Is(err, berth.ErrInvalidArgument) {
				t.Fatalf("untyped error %v", err)
			}
			if !errors.Is(err, ErrIDPrefix) && !errors.Is(err, ErrIDFields) && !errors.Is(err, ErrIDNumber) {
				t.Fatalf("no cause in %v", err)
			}
			return
		}
		if !strings.HasPrefix(s, "reservation_") {
			t.Fatalf("accepted %q", s)
		}
		back, err := ParseReservationID(id.String())
		if err != nil || back != id {
			t.Fatalf("roundtrip %q → %v → %v (%v)", s, id, back, err)
		}
	})
}

// TestReservationIDStringMatchesFormat: the appending String is fmt's
// "reservation_%d_%04d" on every id, edges and random ones.
func TestReservationIDStringMatchesFormat(t *testing.T) {
	edges := []int64{0, 1, 9, 10, 99, 100, 999, 1000, 9999, 10000, -1, -999, -1000, math.MaxInt64, math.MinInt64}
	r := rand.New(rand.NewPCG(5, 8))
	for i := 0; i < 2000; i++ {
		id := ReservationID{ClusterTimestamp: edges[r.IntN(len(edges))], Sequence: edges[r.IntN(len(edges))]}
		if i%2 == 1 {
			id = ReservationID{ClusterTimestamp: r.Int64() >> r.IntN(63), Sequence: r.Int64N(20000) - 100}
		}
		require.Equal(t, fmt.Sprintf("reservation_%d_%04d", id.ClusterTimestamp, id.Sequence), id.String())
	}
}
