package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/hashicorp/raft"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/examples/durable"
)

// FSM is one replica's state machine for raft: each committed log entry
// is a client's request, applied to the replica's own durable.Cluster;
// raft snapshots are the client sessions followed by the Cluster's
// snapshot stream. Every replica applies the same entries in the same
// order to a Cluster built from the same Config, so every replica is in
// the same state.
//
// # Sessions
//
// A client first opens a session (an entry of its own; the session's id is
// that entry's log index, the same on every replica), then numbers its
// requests 1, 2, 3… and has one in flight at a time. A request is applied
// once whichever way a failover went (the client-session rule of section
// 6.3 of the Raft paper, Ongaro and Ousterhout, 2014): the FSM keeps, per session, the number and the answer of
// the last request applied, so
//   - a higher number is applied, and its answer cached;
//   - the same number is a retry: answered with the cached answer, marked
//     Duplicate, not applied again;
//   - a lower number is a request the client gave up on, overtaken by a
//     later one: refused with ErrStaleRequest, not applied.
//
// Sessions and their answers are replicated state: they are in the
// snapshot, so a retry is answered the same after a snapshot was installed
// or a replica restarted. At most MaxSessions are kept; opening one more
// expires the one used least recently (by log index, so every replica
// expires the same), and its requests are refused with ErrSessionExpired.
type FSM struct {
	cfg      durable.Config
	restores atomic.Int64

	// MaxSessions bounds the sessions kept; it must be the same on every
	// replica (it decides which session expires) and is set before the
	// FSM is handed to raft. NewFSM sets DefaultMaxSessions.
	MaxSessions int

	mu       sync.Mutex
	cluster  *durable.Cluster
	sessions map[uint64]*session
	ledger   Ledger
}

// DefaultMaxSessions is the number of client sessions an FSM keeps by
// default.
const DefaultMaxSessions = 4096

type session struct {
	seq  uint64 // the last request number applied (0: none yet)
	used uint64 // the log index of the session's last entry: expiry order
	resp Response
}

// Ledger identifies the requests a replica has applied, in order: their
// count and a SHA-256 chain over each one's (session, number). Two
// replicas with the same Ledger applied the same requests in the same
// order; a reader that sees a Ledger knows exactly which acknowledged
// requests it includes. It is replicated state, in the snapshot.
type Ledger struct {
	Applied uint64
	Digest  [sha256.Size]byte
}

// Next is the ledger after one more request, number seq of session.
func (l Ledger) Next(session, seq uint64) Ledger {
	var b [sha256.Size + 16]byte
	copy(b[:], l.Digest[:])
	binary.LittleEndian.PutUint64(b[sha256.Size:], session)
	binary.LittleEndian.PutUint64(b[sha256.Size+8:], seq)
	return Ledger{Applied: l.Applied + 1, Digest: sha256.Sum256(b[:])}
}

// Response is what [FSM.Apply] returns for an entry, handed to the caller
// of raft.Apply on the leader by ApplyFuture.Response.
type Response struct {
	Result durable.Result
	Err    error // the call's own error (a refused submission); the command still counts
	// Duplicate marks the answer to a request applied before: the first
	// answer, from the session's cache.
	Duplicate bool
	// Rejected says why the entry was not applied at all: an expired
	// session (ErrSessionExpired), a request overtaken by a later one
	// (ErrStaleRequest), an entry that does not decode.
	Rejected error
	// Session is the id of the session an open entry opened.
	Session uint64
}

var (
	// ErrSessionExpired: the request's session is not (or no longer)
	// known: it expired, was closed, or was never opened. The request was
	// not applied; the client opens a new session.
	ErrSessionExpired = errors.New("ha: session expired")
	// ErrStaleRequest: a later request of the same session was applied
	// first, so this one never will be (its client gave up on it).
	ErrStaleRequest = errors.New("ha: stale request")
)

// NewFSM builds a replica's state machine at genesis.
func NewFSM(cfg durable.Config) (*FSM, error) {
	c, err := durable.New(cfg)
	if err != nil {
		return nil, err
	}
	return &FSM{cfg: cfg, cluster: c, sessions: map[uint64]*session{}, MaxSessions: DefaultMaxSessions}, nil
}

// Cluster returns the replica's current Cluster, for reading.
func (f *FSM) Cluster() *durable.Cluster {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.cluster
}

// Ledger returns the replica's ledger.
func (f *FSM) Ledger() Ledger {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.ledger
}

// Read calls fn with the Cluster and the ledger as of one point in the
// log: no entry is applied while fn runs, so fn must be quick.
func (f *FSM) Read(fn func(*durable.Cluster, Ledger) error) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return fn(f.cluster, f.ledger)
}

// Restores counts the snapshots installed by [FSM.Restore].
func (f *FSM) Restores() int64 { return f.restores.Load() }

// The log entry format: a version byte, a kind byte, then the kind's
// fields (uvarints, then the command's own encoding).
const (
	entryVersion byte = 1

	entryOpen    byte = 1 // opens a session
	entryCommand byte = 2 // session, request number, command
	entryClose   byte = 3 // session
)

// OpenEntry encodes the entry that opens a session; the FSM answers it
// with the session's id in Response.Session.
func OpenEntry() []byte { return []byte{entryVersion, entryOpen} }

// CloseEntry encodes the entry that closes a session, freeing its cached
// answer.
func CloseEntry(session uint64) []byte {
	return binary.AppendUvarint([]byte{entryVersion, entryClose}, session)
}

// CommandEntry encodes request seq of a session: the command.
func CommandEntry(session, seq uint64, cmd durable.Command) ([]byte, error) {
	b := binary.AppendUvarint([]byte{entryVersion, entryCommand}, session)
	return cmd.AppendBinary(binary.AppendUvarint(b, seq))
}

type entry struct {
	kind         byte
	session, seq uint64
	cmd          durable.Command
}

// EntryError reports a log entry that does not decode; it wraps
// berth.ErrCorruptState or berth.ErrUnsupportedVersion.
type EntryError struct {
	Field string
	Err   error
}

// Error names the field and the cause.
func (e *EntryError) Error() string { return fmt.Sprintf("ha: log entry, %s: %v", e.Field, e.Err) }

// Unwrap returns the cause.
func (e *EntryError) Unwrap() error { return e.Err }

func decodeEntry(b []byte) (entry, error) {
	if len(b) < 2 {
		return entry{}, &EntryError{"header", fmt.Errorf("%w: %d bytes", berth.ErrCorruptState, len(b))}
	}
	if b[0] != entryVersion {
		return entry{}, &EntryError{"version", fmt.Errorf("%w: %d", berth.ErrUnsupportedVersion, b[0])}
	}
	e := entry{kind: b[1]}
	b = b[2:]
	uvarint := func(field string) (uint64, error) {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			return 0, &EntryError{field, fmt.Errorf("%w: bad uvarint", berth.ErrCorruptState)}
		}
		b = b[n:]
		return v, nil
	}
	var err error
	switch e.kind {
	case entryOpen:
	case entryClose:
		e.session, err = uvarint("session")
	case entryCommand:
		if e.session, err = uvarint("session"); err != nil {
			return entry{}, err
		}
		if e.seq, err = uvarint("request"); err != nil {
			return entry{}, err
		}
		if e.seq == 0 {
			return entry{}, &EntryError{"request", fmt.Errorf("%w: request number 0", berth.ErrCorruptState)}
		}
		if e.cmd, err = durable.DecodeCommand(b); err != nil {
			return entry{}, &EntryError{"command", err}
		}
		return e, nil
	default:
		return entry{}, &EntryError{"kind", fmt.Errorf("%w: entry kind %d", berth.ErrCorruptState, e.kind)}
	}
	if err == nil && len(b) != 0 {
		err = &EntryError{"end", fmt.Errorf("%w: %d trailing bytes", berth.ErrCorruptState, len(b))}
	}
	return e, err
}

// Apply implements raft.FSM. An entry that does not decode is a bug in the
// writer; it is rejected and changes nothing, on every replica alike.
func (f *FSM) Apply(l *raft.Log) any {
	if l.Type != raft.LogCommand {
		return nil
	}
	e, err := decodeEntry(l.Data)
	if err != nil {
		return Response{Rejected: err}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	switch e.kind {
	case entryOpen:
		f.expire(f.MaxSessions - 1)
		f.sessions[l.Index] = &session{used: l.Index}
		return Response{Session: l.Index}
	case entryClose:
		delete(f.sessions, e.session)
		return Response{Session: e.session}
	}
	s := f.sessions[e.session]
	switch {
	case s == nil:
		return Response{Rejected: fmt.Errorf("%w: session %d", ErrSessionExpired, e.session)}
	case e.seq == s.seq:
		s.used = l.Index
		r := s.resp
		r.Duplicate = true
		return r
	case e.seq < s.seq:
		return Response{Rejected: fmt.Errorf("%w: request %d of session %d, after request %d", ErrStaleRequest, e.seq, e.session, s.seq)}
	}
	res, err := f.cluster.Apply(e.cmd)
	s.seq, s.used, s.resp = e.seq, l.Index, Response{Result: res, Err: err}
	f.ledger = f.ledger.Next(e.session, e.seq)
	return s.resp
}

// expire drops the least recently used sessions until at most keep are
// left.
func (f *FSM) expire(keep int) {
	for len(f.sessions) > max(keep, 0) {
		var oldest uint64
		first := true
		for id, s := range f.sessions {
			if first || s.used < f.sessions[oldest].used {
				oldest, first = id, false
			}
		}
		delete(f.sessions, oldest)
	}
}

// The FSM's snapshot: a Berth state stream of this kind (the ledger, then
// the sessions in id order: id, last request, last use, cached answer),
// followed by the Cluster's own snapshot stream.
const (
	fsmSnapshotKind    = "ha.FSM"
	fsmSnapshotVersion = 1
)

// Snapshot implements raft.FSM. raft calls it between two Applies; the
// state is written out here, so Persist can run while later entries are
// applied.
func (f *FSM) Snapshot() (raft.FSMSnapshot, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var buf bytes.Buffer
	if err := f.writeSessions(&buf); err != nil {
		return nil, err
	}
	if err := f.cluster.WriteSnapshot(&buf); err != nil {
		return nil, err
	}
	return snapshot(buf.Bytes()), nil
}

func (f *FSM) writeSessions(w io.Writer) error {
	e := berth.NewStateEncoder(w, fsmSnapshotKind, fsmSnapshotVersion)
	e.Uvarint(f.ledger.Applied)
	e.Bytes(f.ledger.Digest[:])
	ids := f.sessionIDsLocked()
	e.Len(len(ids))
	for _, id := range ids {
		s := f.sessions[id]
		e.Uvarint(id)
		e.Uvarint(s.seq)
		e.Uvarint(s.used)
		encodeAnswer(e, s.resp.Result, s.resp.Err)
	}
	return e.Finish()
}

// Restore implements raft.FSM: the replica's state is replaced by the
// snapshot's, the Cluster built from the replica's Config.
func (f *FSM) Restore(rc io.ReadCloser) error {
	defer rc.Close()
	br := bufio.NewReaderSize(rc, 256<<10)
	ledger, sessions, err := readSessions(br)
	if err != nil {
		return err
	}
	c, err := durable.Restore(br, f.cfg)
	if err != nil {
		return err
	}
	f.mu.Lock()
	f.cluster, f.ledger, f.sessions = c, ledger, sessions
	f.mu.Unlock()
	f.restores.Add(1)
	return nil
}

func readSessions(br *bufio.Reader) (Ledger, map[uint64]*session, error) {
	d, err := berth.NewStateDecoder(br, fsmSnapshotKind, fsmSnapshotVersion)
	if err != nil {
		return Ledger{}, nil, err
	}
	var l Ledger
	d.Field("ledger")
	l.Applied = d.Uvarint()
	if digest := d.Bytes(); d.Err() == nil && len(digest) != len(l.Digest) {
		d.Fail(fmt.Errorf("%w: ledger digest of %d bytes", berth.ErrCorruptState, len(digest)))
	} else {
		copy(l.Digest[:], digest)
	}
	d.Field("sessions")
	n := d.Len(1 << 24)
	sessions := map[uint64]*session{}
	for range n {
		if d.Err() != nil {
			break
		}
		id := d.Uvarint()
		s := &session{seq: d.Uvarint(), used: d.Uvarint()}
		s.resp.Result, s.resp.Err = decodeAnswer(d)
		if _, dup := sessions[id]; dup && d.Err() == nil {
			d.Fail(fmt.Errorf("%w: session %d twice", berth.ErrCorruptState, id))
		}
		sessions[id] = s
	}
	if err := d.Finish(); err != nil {
		return Ledger{}, nil, err
	}
	return l, sessions, nil
}

// sessionIDs lists the open sessions in id order.
func (f *FSM) sessionIDs() []uint64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sessionIDsLocked()
}

func (f *FSM) sessionIDsLocked() []uint64 {
	ids := make([]uint64, 0, len(f.sessions))
	for id := range f.sessions {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

type snapshot []byte

// Persist writes the snapshot taken by FSM.Snapshot to raft's sink.
func (s snapshot) Persist(sink raft.SnapshotSink) error {
	if _, err := sink.Write(s); err != nil {
		sink.Cancel()
		return err
	}
	return sink.Close()
}

// Release has nothing to free: the bytes are garbage collected.
func (s snapshot) Release() {}
