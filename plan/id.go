package plan

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/berthsched/berth"
)

// reservationIDPrefix starts every printed reservation id, as in YARN.
const reservationIDPrefix = "reservation_"

// Causes of a failed [ParseReservationID], wrapped in a *berth.FieldError of
// kind berth.ErrInvalidArgument (field "reservation-id").
var (
	// ErrIDPrefix: the text does not start with "reservation_" (YARN: "The
	// specified reservation id is invalid").
	ErrIDPrefix = errors.New("reservation id must start with " + reservationIDPrefix)
	// ErrIDFields: the text does not split into exactly three "_"-separated
	// fields (YARN: "The specified reservation id is not parseable").
	ErrIDFields = errors.New("reservation id must have the form reservation_<timestamp>_<sequence>")
	// ErrIDNumber: the timestamp or the sequence is not a 64-bit integer.
	ErrIDNumber = errors.New("reservation id fields must be 64-bit integers")
)

// ReservationID names a reservation: the cluster (ResourceManager) start
// timestamp and a sequence number drawn from a counter of that cluster. It is
// YARN's ReservationId. The zero value means "no id".
//
// It prints as reservation_<clusterTimestamp>_<sequence> with the sequence
// zero-padded to at least four digits (reservation_1404198295326_0003) and
// marshals to JSON as that string, as YARN's REST API does.
type ReservationID struct {
	// ClusterTimestamp is the start time of the cluster that issued the id.
	ClusterTimestamp int64
	// Sequence is the issuing cluster's counter value (1, 2, …).
	Sequence int64
}

// IsZero reports whether id is the zero value ("no id").
func (id ReservationID) IsZero() bool { return id == ReservationID{} }

// String prints the id in YARN's form, e.g. reservation_1404198295326_0003.
func (id ReservationID) String() string {
	if id.Sequence < 0 {
		return fmt.Sprintf("%s%d_%04d", reservationIDPrefix, id.ClusterTimestamp, id.Sequence)
	}
	// The follower names a queue per reservation on every run: appending
	// beats fmt's reflection (the format is fmt's %d_%04d).
	b := make([]byte, 0, len(reservationIDPrefix)+40)
	b = append(b, reservationIDPrefix...)
	b = strconv.AppendInt(b, id.ClusterTimestamp, 10)
	b = append(b, '_')
	for pad := int64(1000); pad > 1 && id.Sequence < pad; pad /= 10 {
		b = append(b, '0')
	}
	return string(strconv.AppendInt(b, id.Sequence, 10))
}

// Compare orders ids by cluster timestamp, then by sequence. YARN's compareTo
// compares the sequence with itself, so two ids of one cluster compare equal
// there; Berth orders them (see "Differences from YARN" in the package doc).
func (id ReservationID) Compare(o ReservationID) int {
	switch {
	case id.ClusterTimestamp < o.ClusterTimestamp:
		return -1
	case id.ClusterTimestamp > o.ClusterTimestamp:
		return 1
	case id.Sequence < o.Sequence:
		return -1
	case id.Sequence > o.Sequence:
		return 1
	}
	return 0
}

// ParseReservationID parses the form printed by [ReservationID.String]. The
// sequence may carry any number of leading zeros. Errors are
// *berth.FieldError values of kind berth.ErrInvalidArgument wrapping
// [ErrIDPrefix], [ErrIDFields] or [ErrIDNumber].
func ParseReservationID(s string) (ReservationID, error) {
	bad := func(cause error, reason string) error {
		return &berth.FieldError{Field: "reservation-id", Value: s, Reason: reason, Err: cause}
	}
	if !strings.HasPrefix(s, reservationIDPrefix) {
		return ReservationID{}, bad(ErrIDPrefix, "The specified reservation id is invalid: "+s)
	}
	parts := strings.Split(s, "_")
	if len(parts) != 3 {
		return ReservationID{}, bad(ErrIDFields, "The specified reservation id is not parseable: "+s)
	}
	ts, err := strconv.ParseInt(parts[1], 10, 64)
	if err != nil {
		return ReservationID{}, bad(ErrIDNumber, "cluster timestamp is not a 64-bit integer: "+parts[1])
	}
	seq, err := strconv.ParseInt(parts[2], 10, 64)
	if err != nil {
		return ReservationID{}, bad(ErrIDNumber, "sequence is not a 64-bit integer: "+parts[2])
	}
	return ReservationID{ClusterTimestamp: ts, Sequence: seq}, nil
}

// MarshalText prints the id (the zero id prints as the empty string, so
// optional ids stay empty in JSON).
func (id ReservationID) MarshalText() ([]byte, error) {
	if id.IsZero() {
		return []byte{}, nil
	}
	return []byte(id.String()), nil
}

// UnmarshalText parses an id; the empty string gives the zero id.
func (id *ReservationID) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*id = ReservationID{}
		return nil
	}
	v, err := ParseReservationID(string(b))
	if err != nil {
		return err
	}
	*id = v
	return nil
}
