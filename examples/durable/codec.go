package durable

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/queue"
)

// The binary form of a command (version 1), all integers varint unless
// said otherwise:
//
//	version  1 byte   CommandVersion
//	kind     1 byte   the command's Kind
//	fields            the command's fields in declaration order
//
// A string or byte slice is a uvarint length and its bytes; a slice of
// records is a uvarint count and the records; a resource is memory and
// vcores as varints, the count of extended types and, per type, its name
// and value; a bool is one byte. The encoding has no checksum of its own:
// the journal and the raft log frame and check it.

// CommandVersion is the version of the command encoding written by
// [Command.AppendBinary]. [DecodeCommand] refuses any other.
const CommandVersion = 1

// maxDecodeLen bounds a decoded count or length so that a corrupt record
// cannot make the decoder allocate without limit.
const maxDecodeLen = 1 << 24

// CommandError reports a command that could not be decoded: the kind (when
// known), the field being read, and the cause, which wraps
// [berth.ErrCorruptState] or [berth.ErrUnsupportedVersion].
type CommandError struct {
	Kind  Kind
	Field string
	Err   error
}

// Error says which command and field could not be decoded, and why.
func (e *CommandError) Error() string {
	return fmt.Sprintf("command %s, field %s: %v", e.Kind, e.Field, e.Err)
}

// Unwrap returns the cause.
func (e *CommandError) Unwrap() error { return e.Err }

var errShort = fmt.Errorf("%w: truncated", berth.ErrCorruptState)

// enc helpers append to a byte slice; they never fail.

func putUvarint(b []byte, v uint64) []byte { return binary.AppendUvarint(b, v) }
func putVarint(b []byte, v int64) []byte   { return binary.AppendVarint(b, v) }
func putString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}
func putBool(b []byte, v bool) []byte {
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}
func putResource(b []byte, r berth.Resource) []byte {
	b = binary.AppendVarint(b, r.Memory)
	b = binary.AppendVarint(b, r.VCores)
	if !r.HasExtras() {
		return append(b, 0)
	}
	ext := r.Extras()
	b = binary.AppendUvarint(b, uint64(len(ext)))
	for _, q := range ext {
		b = putString(b, q.Name)
		b = binary.AppendVarint(b, q.Value)
	}
	return b
}
func putStrings(b []byte, ss []string) []byte {
	b = binary.AppendUvarint(b, uint64(len(ss)))
	for _, s := range ss {
		b = putString(b, s)
	}
	return b
}
func putReservationID(b []byte, id plan.ReservationID) []byte {
	b = binary.AppendVarint(b, id.ClusterTimestamp)
	return binary.AppendVarint(b, id.Sequence)
}
func putContainerIDs(b []byte, ids []queue.ContainerID) []byte {
	b = binary.AppendUvarint(b, uint64(len(ids)))
	for _, id := range ids {
		b = binary.AppendUvarint(b, uint64(id))
	}
	return b
}

// dec reads the fields of one command; the first error sticks and later
// reads return zero values, so a decoder reads a whole command and checks
// err once.
type dec struct {
	b     []byte
	kind  Kind
	field string
	err   error
}

func (d *dec) fail(err error) {
	if d.err == nil {
		d.err = &CommandError{Kind: d.kind, Field: d.field, Err: err}
	}
}

func (d *dec) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail(errShort)
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *dec) varint() int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail(errShort)
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *dec) int32() int32 {
	v := d.varint()
	if v < math.MinInt32 || v > math.MaxInt32 {
		d.fail(fmt.Errorf("%w: %d out of int32 range", berth.ErrCorruptState, v))
		return 0
	}
	return int32(v)
}

func (d *dec) length() int {
	n := d.uvarint()
	if n > maxDecodeLen || n > uint64(len(d.b)) {
		// Every element takes at least one byte, so a count larger than
		// what is left is corrupt.
		d.fail(fmt.Errorf("%w: length %d with %d bytes left", berth.ErrCorruptState, n, len(d.b)))
		return 0
	}
	return int(n)
}

func (d *dec) string() string {
	n := d.length()
	if d.err != nil || n == 0 {
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

func (d *dec) bytes() []byte {
	n := d.length()
	if d.err != nil || n == 0 {
		return nil
	}
	out := append([]byte(nil), d.b[:n]...)
	d.b = d.b[n:]
	return out
}

func (d *dec) bool() bool {
	if d.err != nil {
		return false
	}
	if len(d.b) == 0 {
		d.fail(errShort)
		return false
	}
	v := d.b[0]
	d.b = d.b[1:]
	if v > 1 {
		d.fail(fmt.Errorf("%w: bool byte %d", berth.ErrCorruptState, v))
	}
	return v == 1
}

func (d *dec) resource() berth.Resource {
	mem, vc := d.varint(), d.varint()
	n := d.length()
	if n == 0 || d.err != nil {
		return berth.New(mem, vc)
	}
	ext := make([]berth.Quantity, 0, min(n, 64)) // grown as types decode, as in list
	for i := 0; i < n && d.err == nil; i++ {
		name := d.string()
		v := d.varint()
		if name == "" || v == 0 || i > 0 && ext[i-1].Name >= name {
			d.fail(fmt.Errorf("%w: resource type %q unnamed, zero or out of order", berth.ErrCorruptState, name))
			break
		}
		ext = append(ext, berth.Quantity{Name: name, Value: v})
	}
	return berth.NewWithExtras(mem, vc, ext...)
}

// list reads a count and then that many elements with read (nil for
// none). It grows the slice as the elements decode instead of allocating
// the count up front: a corrupt count then costs no more memory than the
// bytes that follow it, whatever the size of an element.
func list[T any](d *dec, read func() T) []T {
	n := d.length()
	if n == 0 || d.err != nil {
		return nil
	}
	out := make([]T, 0, min(n, 64))
	for i := 0; i < n && d.err == nil; i++ {
		out = append(out, read())
	}
	return out
}

func (d *dec) strings() []string { return list(d, d.string) }

func (d *dec) reservationID() plan.ReservationID {
	return plan.ReservationID{ClusterTimestamp: d.varint(), Sequence: d.varint()}
}

func (d *dec) containerIDs() []queue.ContainerID {
	return list(d, func() queue.ContainerID { return queue.ContainerID(d.uvarint()) })
}

// DecodeCommand reads one command written by [Command.AppendBinary]. The
// whole of b must be the command: trailing bytes are refused, so a record
// that was damaged in a way its checksum did not catch is not half-read.
// It never panics; errors wrap [berth.ErrCorruptState] or, for a newer
// encoding, [berth.ErrUnsupportedVersion].
func DecodeCommand(b []byte) (Command, error) {
	if len(b) < 2 {
		return nil, &CommandError{Field: "header", Err: errShort}
	}
	if b[0] != CommandVersion {
		return nil, &CommandError{Field: "version", Err: fmt.Errorf("%w: command encoding %d (this build reads %d)", berth.ErrUnsupportedVersion, b[0], CommandVersion)}
	}
	k := Kind(b[1])
	d := &dec{b: b[2:], kind: k}
	var c Command
	switch k {
	case KindAdvanceClock:
		c = decodeAdvanceClock(d)
	case KindAddNode:
		c = decodeAddNode(d)
	case KindRemoveNode:
		c = decodeRemoveNode(d)
	case KindHeartbeat:
		c = decodeHeartbeat(d)
	case KindSubmitApp:
		c = decodeSubmitApp(d)
	case KindAllocate:
		c = decodeAllocate(d)
	case KindFinishApp:
		c = decodeFinishApp(d)
	case KindKillApp:
		c = decodeKillApp(d)
	case KindKillContainer:
		c = decodeKillContainer(d)
	case KindNewReservationID:
		c = NewReservationID{}
	case KindSubmitReservation:
		c = decodeSubmitReservation(d)
	case KindUpdateReservation:
		c = decodeUpdateReservation(d)
	case KindDeleteReservation:
		c = decodeDeleteReservation(d)
	case KindRunFollower:
		c = RunFollower{}
	case KindPreemptionRound:
		c = PreemptionRound{}
	case KindReloadConfig:
		c = decodeReloadConfig(d)
	case KindMoveApp:
		c = decodeMoveApp(d)
	default:
		return nil, &CommandError{Kind: k, Field: "kind", Err: fmt.Errorf("%w: unknown command kind %d", berth.ErrCorruptState, k)}
	}
	if d.err != nil {
		return nil, d.err
	}
	if len(d.b) != 0 {
		d.field = "end"
		d.fail(fmt.Errorf("%w: %d bytes after the command", berth.ErrCorruptState, len(d.b)))
		return nil, d.err
	}
	return c, nil
}

// errInvalid marks a command that cannot be encoded or applied as given.
func errInvalid(k Kind, field string, format string, args ...any) error {
	return &CommandError{Kind: k, Field: field, Err: fmt.Errorf("%w: "+format, append([]any{berth.ErrInvalidArgument}, args...)...)}
}
