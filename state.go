package berth

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"math"
)

// Durable state: every stateful object of Berth (the reservation system,
// both schedulers, the plan follower, the preemption policies) writes itself
// out and reads itself back in one shared format, defined here so that the
// packages agree on framing, versioning and integrity while each owns its
// own body.
//
// The format of one snapshot, all integers little-endian or varint:
//
//	magic        8 bytes  "BERTHSS\x00"
//	format       uvarint  StateFormatVersion (the framing; 1)
//	kind         string   what the body holds, e.g. "capacity.Scheduler"
//	kind version uvarint  the body's own version, owned by its package
//	body                  primitives written by the owner (see StateEncoder)
//	end magic    4 bytes  "BEND"
//	length       8 bytes  bytes from the magic up to the end magic, exclusive
//	checksum     4 bytes  CRC-32C (Castagnoli) of every byte before it
//
// A string is a uvarint length and its bytes; a resource is memory and
// vcores as varints, then the count of extended types and, per type, its
// name and value. The trailer makes a truncated or corrupted snapshot
// detectable: a reader only hands out restored objects after
// [StateDecoder.Finish] has verified it, so nothing is ever half-loaded.
// Encoding streams through a small buffer; nothing is copied whole.

// StateFormatVersion is the version of the framing written by
// [NewStateEncoder]. Readers refuse any other.
const StateFormatVersion = 1

const (
	stateMagic    = "BERTHSS\x00"
	stateEndMagic = "BEND"
	stateBufSize  = 32 << 10
	// maxStateString bounds a decoded string or byte slice so that a corrupt
	// length cannot make a reader allocate without limit.
	maxStateString = 64 << 20
)

// ErrCorruptState: a snapshot or journal record is truncated, its checksum
// does not match, or its contents are malformed.
var ErrCorruptState = errors.New("corrupt state")

// ErrUnsupportedVersion: a snapshot or journal was written in a format or
// body version this build does not read.
var ErrUnsupportedVersion = errors.New("unsupported version")

// StateError reports why a snapshot could not be read or written: the kind
// of body, the byte offset where decoding stopped, the field being read, and
// the cause. It unwraps to the cause, which wraps [ErrCorruptState],
// [ErrUnsupportedVersion], [ErrInvalidArgument] or an I/O error.
type StateError struct {
	Kind   string // the body kind, e.g. "plan.System"; empty before the header is read
	Offset int64  // bytes consumed when the error was detected
	Field  string // what was being read or checked, when known
	Err    error
}

func (e *StateError) Error() string {
	where := "state"
	if e.Kind != "" {
		where = e.Kind + " state"
	}
	if e.Field != "" {
		return fmt.Sprintf("%s at byte %d, %s: %v", where, e.Offset, e.Field, e.Err)
	}
	return fmt.Sprintf("%s at byte %d: %v", where, e.Offset, e.Err)
}

// Unwrap returns the cause.
func (e *StateError) Unwrap() error { return e.Err }

func castagnoli() hash.Hash32 { return crc32.New(crc32.MakeTable(crc32.Castagnoli)) }

// StateEncoder writes one snapshot. Its methods record the first error and
// become no-ops after it, so an owner writes its whole body and checks
// [StateEncoder.Finish] once. It is not safe for concurrent use. Only
// [NewStateEncoder] makes a usable StateEncoder: the zero value has no
// writer and is not one (finishing it panics).
type StateEncoder struct {
	w    io.Writer
	buf  []byte
	crc  hash.Hash32
	n    int64
	kind string
	err  error
	done bool
}

// NewStateEncoder starts a snapshot of the given kind and body version on
// w and writes its header. A nil w, typed nil included ([CheckNotNil]),
// is an error that Finish reports (a *FieldError naming "writer", kind
// ErrInvalidArgument); nothing is written.
func NewStateEncoder(w io.Writer, kind string, version uint64) *StateEncoder {
	e := &StateEncoder{w: w, buf: make([]byte, 0, stateBufSize), crc: castagnoli(), kind: kind}
	if err := CheckNotNil("writer", w); err != nil {
		e.err = err
	}
	e.buf = append(e.buf, stateMagic...)
	e.Uvarint(StateFormatVersion)
	e.String(kind)
	e.Uvarint(version)
	return e
}

func (e *StateEncoder) flush() {
	if e.err != nil {
		e.buf = e.buf[:0] // keep memory bounded; Finish reports the error
		return
	}
	if len(e.buf) == 0 {
		return
	}
	e.crc.Write(e.buf)
	if _, err := e.w.Write(e.buf); err != nil {
		e.err = &StateError{Kind: e.kind, Offset: e.n, Err: err}
	}
	e.n += int64(len(e.buf))
	e.buf = e.buf[:0]
}

func (e *StateEncoder) room() {
	if len(e.buf) >= stateBufSize-64 {
		e.flush()
	}
}

// Uvarint writes an unsigned integer.
func (e *StateEncoder) Uvarint(v uint64) {
	e.buf = binary.AppendUvarint(e.buf, v)
	e.room()
}

// Varint writes a signed integer.
func (e *StateEncoder) Varint(v int64) {
	e.buf = binary.AppendVarint(e.buf, v)
	e.room()
}

// Int writes an int.
func (e *StateEncoder) Int(v int) { e.Varint(int64(v)) }

// Len writes a count of the records that follow (read back with
// [StateDecoder.Len]).
func (e *StateEncoder) Len(n int) { e.Uvarint(uint64(n)) }

// Bool writes a boolean as one byte.
func (e *StateEncoder) Bool(v bool) {
	b := byte(0)
	if v {
		b = 1
	}
	e.buf = append(e.buf, b)
	e.room()
}

// Float64 writes a float exactly (its IEEE-754 bits).
func (e *StateEncoder) Float64(v float64) {
	e.buf = binary.LittleEndian.AppendUint64(e.buf, math.Float64bits(v))
	e.room()
}

// Float32 writes a single-precision float, as the float64 it converts to
// exactly (read back with [StateDecoder.Float32]).
func (e *StateEncoder) Float32(v float32) { e.Float64(float64(v)) }

// String writes a string.
func (e *StateEncoder) String(s string) {
	e.Uvarint(uint64(len(s)))
	e.raw(s)
}

// Bytes writes a byte slice.
func (e *StateEncoder) Bytes(b []byte) {
	e.Uvarint(uint64(len(b)))
	e.raw(string(b))
}

func (e *StateEncoder) raw(s string) {
	for len(s) > 0 {
		k := min(len(s), stateBufSize-len(e.buf))
		e.buf = append(e.buf, s[:k]...)
		s = s[k:]
		if len(e.buf) >= stateBufSize {
			e.flush()
		}
	}
	e.room()
}

// Resource writes a resource with its extended types.
func (e *StateEncoder) Resource(r Resource) {
	e.Varint(r.Memory)
	e.Varint(r.VCores)
	e.Uvarint(uint64(len(r.ext)))
	for _, q := range r.ext {
		e.String(q.Name)
		e.Varint(q.Value)
	}
}

// Interval writes a half-open interval.
func (e *StateEncoder) Interval(iv Interval) {
	e.Varint(iv.Start)
	e.Varint(iv.End)
}

// Fail records err (unless an error is recorded already) so that Finish
// reports it; owners use it for a value they cannot encode.
func (e *StateEncoder) Fail(err error) {
	if e.err == nil {
		e.err = &StateError{Kind: e.kind, Offset: e.n + int64(len(e.buf)), Err: err}
	}
}

// Err returns the first error recorded so far.
func (e *StateEncoder) Err() error { return e.err }

// Finish writes the trailer and flushes. It returns the first error met
// while encoding; a snapshot whose Finish failed must be discarded.
func (e *StateEncoder) Finish() error {
	if e.done {
		return e.err
	}
	e.done = true
	e.buf = append(e.buf, stateEndMagic...)
	total := e.n + int64(len(e.buf)) - int64(len(stateEndMagic))
	e.buf = binary.LittleEndian.AppendUint64(e.buf, uint64(total))
	e.crc.Write(e.buf)
	sum := e.crc.Sum32()
	e.buf = binary.LittleEndian.AppendUint32(e.buf, sum)
	if e.err == nil {
		if _, err := e.w.Write(e.buf); err != nil {
			e.err = &StateError{Kind: e.kind, Offset: e.n, Err: err}
		}
	}
	e.n += int64(len(e.buf))
	e.buf = e.buf[:0]
	return e.err
}

// Written returns the number of bytes handed to the writer so far.
func (e *StateEncoder) Written() int64 { return e.n }

// StateDecoder reads one snapshot written by a [StateEncoder]. Like the
// encoder its methods record the first error and then return zero values,
// so an owner reads its whole body, builds its objects on the side, and
// hands them out only if [StateDecoder.Finish] returns nil. Given a
// [*bufio.Reader] it reads no byte past the trailer, so several snapshots
// can follow one another in one stream (a host's composite snapshot).
type StateDecoder struct {
	br      *bufio.Reader
	crc     hash.Hash32
	off     int64 // bytes consumed
	kind    string
	version uint64
	field   string
	err     error
	later   error // see Defer
	done    bool
}

// NewStateDecoder reads the header of a snapshot from r and checks that it
// holds kind with a body version no newer than maxVersion (a nil r, typed
// nil included ([CheckNotNil]), is a *FieldError naming "reader", kind
// ErrInvalidArgument). The body
// version found is available from [StateDecoder.Version] so the owner can
// read older versions it still supports.
func NewStateDecoder(r io.Reader, kind string, maxVersion uint64) (*StateDecoder, error) {
	if err := CheckNotNil("reader", r); err != nil {
		return nil, err
	}
	br, ok := r.(*bufio.Reader)
	if !ok || br.Size() < 64 {
		br = bufio.NewReaderSize(r, stateBufSize)
	}
	d := &StateDecoder{br: br, crc: castagnoli()}
	d.field = "magic"
	if b := d.peek(len(stateMagic)); b == nil || string(b) != stateMagic {
		d.err = nil
		return nil, d.fail(fmt.Errorf("%w: not a Berth snapshot (bad magic)", ErrCorruptState))
	}
	d.consume(len(stateMagic))
	d.field = "format version"
	if f := d.Uvarint(); d.err == nil && f != StateFormatVersion {
		return nil, d.fail(fmt.Errorf("%w: format %d (this build reads %d)", ErrUnsupportedVersion, f, StateFormatVersion))
	}
	d.field = "kind"
	got := d.String()
	if d.err == nil && got != kind {
		return nil, d.fail(fmt.Errorf("%w: holds %q, want %q", ErrInvalidArgument, got, kind))
	}
	d.kind = kind
	d.field = "kind version"
	d.version = d.Uvarint()
	if d.err == nil && d.version > maxVersion {
		return nil, d.fail(fmt.Errorf("%w: %s version %d (this build reads up to %d)", ErrUnsupportedVersion, kind, d.version, maxVersion))
	}
	if d.err != nil {
		return nil, d.err
	}
	d.field = ""
	return d, nil
}

// Version returns the body version the snapshot was written with.
func (d *StateDecoder) Version() uint64 { return d.version }

// Field names what is being read, for the error message if reading fails;
// owners set it at each section ("nodes", "applications[3].asks").
func (d *StateDecoder) Field(name string) { d.field = name }

func (d *StateDecoder) fail(err error) error {
	if d.err == nil {
		d.err = &StateError{Kind: d.kind, Offset: d.off, Field: d.field, Err: err}
	}
	return d.err
}

// Fail records a semantic error found by the owner (a value out of range, a
// dangling reference); it wraps [ErrCorruptState] unless err already
// carries a Berth error kind.
func (d *StateDecoder) Fail(err error) {
	if !errors.Is(err, ErrCorruptState) && !errors.Is(err, ErrUnsupportedVersion) && !errors.Is(err, ErrInvalidArgument) {
		err = fmt.Errorf("%w: %w", ErrCorruptState, err)
	}
	d.fail(err)
}

// Err returns the first error recorded so far.
func (d *StateDecoder) Err() error { return d.err }

// Defer records err (the first one only) to be returned by Finish if, and
// only if, the snapshot itself verifies. Owners use it for a sound snapshot
// that cannot be restored here, typically because the host did not supply
// a value the snapshot names (a policy, a groups provider): the owner reads
// on to the trailer, so that a damaged snapshot is still reported as
// damaged rather than as a missing host value.
func (d *StateDecoder) Defer(err error) {
	if d.later == nil {
		d.later = err
	}
}

// Deferred returns the error recorded by Defer, if any; an owner checks it
// to stop building objects it cannot complete.
func (d *StateDecoder) Deferred() error { return d.later }

func truncated(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return fmt.Errorf("%w: truncated (%w)", ErrCorruptState, io.ErrUnexpectedEOF)
	}
	return err
}

// peek returns the next n bytes without consuming them (valid until the
// next read), or nil after recording a truncation or read error.
func (d *StateDecoder) peek(n int) []byte {
	if d.err != nil {
		return nil
	}
	b, err := d.br.Peek(n)
	if err != nil {
		d.fail(truncated(err))
		return nil
	}
	return b
}

// consume hashes and drops the next n bytes, which peek has returned.
func (d *StateDecoder) consume(n int) {
	b, _ := d.br.Peek(n)
	d.crc.Write(b)
	d.br.Discard(n)
	d.off += int64(n)
}

// Uvarint reads an unsigned integer.
func (d *StateDecoder) Uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	// Peek as much as a varint may take; near the end of the stream fewer
	// bytes are fine as long as the varint ends within them.
	b, err := d.br.Peek(binary.MaxVarintLen64)
	v, k := binary.Uvarint(b)
	if k <= 0 {
		if k == 0 && err != nil {
			d.fail(truncated(err))
		} else {
			d.fail(fmt.Errorf("%w: bad varint", ErrCorruptState))
		}
		return 0
	}
	d.consume(k)
	return v
}

// Varint reads a signed integer.
func (d *StateDecoder) Varint() int64 {
	u := d.Uvarint()
	x := int64(u >> 1)
	if u&1 != 0 {
		x = ^x
	}
	return x
}

// Int reads an int written with [StateEncoder.Int].
func (d *StateDecoder) Int() int {
	v := d.Varint()
	if int64(int(v)) != v {
		d.fail(fmt.Errorf("%w: %d overflows int", ErrCorruptState, v))
		return 0
	}
	return int(v)
}

// Len reads a record count and checks it is at most limit, so a corrupt
// count is caught before the owner loops on it. Owners should not
// preallocate more than a modest number of records from it either: a
// count is only trusted once the records have been read.
func (d *StateDecoder) Len(limit int) int {
	v := d.Uvarint()
	if v > uint64(limit) {
		d.fail(fmt.Errorf("%w: count %d exceeds %d", ErrCorruptState, v, limit))
		return 0
	}
	return int(v)
}

// Bool reads a boolean.
func (d *StateDecoder) Bool() bool {
	b := d.peek(1)
	if b == nil {
		return false
	}
	if b[0] > 1 {
		d.fail(fmt.Errorf("%w: bad boolean %d", ErrCorruptState, b[0]))
		return false
	}
	v := b[0] == 1
	d.consume(1)
	return v
}

// Float64 reads a float.
func (d *StateDecoder) Float64() float64 {
	b := d.peek(8)
	if b == nil {
		return 0
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64(b))
	d.consume(8)
	return v
}

// String reads a string.
func (d *StateDecoder) String() string {
	n := d.length()
	if n == 0 {
		return ""
	}
	if n <= d.br.Size() {
		b := d.peek(n)
		if b == nil {
			return ""
		}
		s := string(b)
		d.consume(n)
		return s
	}
	return string(d.long(n))
}

// Bytes reads a byte slice (nil when empty).
func (d *StateDecoder) Bytes() []byte {
	n := d.length()
	if n == 0 {
		return nil
	}
	return d.long(n)
}

func (d *StateDecoder) length() int {
	n := d.Uvarint()
	if n > maxStateString {
		d.fail(fmt.Errorf("%w: length %d exceeds %d", ErrCorruptState, n, maxStateString))
		return 0
	}
	return int(n)
}

// long reads n bytes in chunks, so that a corrupt length makes the reader
// fail at the end of the stream rather than allocate n bytes up front.
func (d *StateDecoder) long(n int) []byte {
	var out []byte
	for n > 0 && d.err == nil {
		k := min(n, d.br.Size())
		b := d.peek(k)
		if b == nil {
			return nil
		}
		out = append(out, b...)
		d.consume(k)
		n -= k
	}
	if d.err != nil {
		return nil
	}
	return out
}

// Resource reads a resource.
func (d *StateDecoder) Resource() Resource {
	mem, vc := d.Varint(), d.Varint()
	n := d.Len(1 << 16)
	if n == 0 || d.err != nil {
		return New(mem, vc)
	}
	ext := make([]Quantity, 0, min(n, 64))
	for i := 0; i < n && d.err == nil; i++ {
		name := d.String()
		v := d.Varint()
		if i > 0 && ext[len(ext)-1].Name >= name || v == 0 || name == "" {
			d.fail(fmt.Errorf("%w: resource type %q out of order, unnamed or zero", ErrCorruptState, name))
			break
		}
		ext = append(ext, Quantity{Name: name, Value: v})
	}
	return NewWithExtras(mem, vc, ext...)
}

// Float32 reads a float written with [StateEncoder.Float32]; a value no
// float32 converts to is refused as corrupt.
func (d *StateDecoder) Float32() float32 {
	v := d.Float64()
	if f := float32(v); float64(f) == v || math.IsNaN(v) {
		return f
	}
	d.fail(fmt.Errorf("%w: %v is not a single-precision value", ErrCorruptState, v))
	return 0
}

// Interval reads an interval.
func (d *StateDecoder) Interval() Interval {
	return Interval{Start: d.Varint(), End: d.Varint()}
}

// Finish reads and verifies the trailer: the end marker, the length and the
// checksum. It returns the first error met while decoding, a
// [ErrCorruptState] error if the trailer does not match, or else the error
// recorded by [StateDecoder.Defer]. Objects restored from the snapshot may
// be used only when it returns nil.
func (d *StateDecoder) Finish() error {
	if d.err != nil {
		return d.err
	}
	if d.done {
		return d.later
	}
	d.done = true
	d.field = "trailer"
	b := d.peek(len(stateEndMagic) + 12)
	if b == nil {
		return d.err
	}
	if string(b[:len(stateEndMagic)]) != stateEndMagic {
		return d.fail(fmt.Errorf("%w: no end marker (the body was not read as written)", ErrCorruptState))
	}
	length := int64(binary.LittleEndian.Uint64(b[len(stateEndMagic):]))
	want := binary.LittleEndian.Uint32(b[len(stateEndMagic)+8:])
	if length != d.off {
		return d.fail(fmt.Errorf("%w: length %d, read %d", ErrCorruptState, length, d.off))
	}
	d.consume(len(stateEndMagic) + 8)
	if got := d.crc.Sum32(); got != want {
		return d.fail(fmt.Errorf("%w: checksum %08x, want %08x", ErrCorruptState, got, want))
	}
	d.br.Discard(4)
	d.off += 4
	return d.later
}
