package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"reflect"
	"testing"

	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/examples/durable"
	"github.com/berthsched/berth/queue"
)

// fsmLog feeds entries to an FSM at increasing log indexes, as raft does.
type fsmLog struct {
	t     *testing.T
	f     *FSM
	index uint64
}

func newFSMLog(t *testing.T, k durable.SchedulerKind) *fsmLog {
	t.Helper()
	cfg, err := durable.DemoConfig(k)
	require.NoError(t, err)
	f, err := NewFSM(cfg)
	require.NoError(t, err)
	return &fsmLog{t: t, f: f}
}

func (l *fsmLog) apply(data []byte) Response {
	l.index++
	return l.f.Apply(&raft.Log{Index: l.index, Type: raft.LogCommand, Data: data}).(Response)
}

func (l *fsmLog) open() uint64 {
	r := l.apply(OpenEntry())
	require.NoError(l.t, r.Rejected)
	return r.Session
}

func (l *fsmLog) cmd(session, seq uint64, cmd durable.Command) Response {
	b, err := CommandEntry(session, seq, cmd)
	require.NoError(l.t, err)
	return l.apply(b)
}

func addNode(id string) durable.Command {
	return durable.AddNode{Node: queue.NodeSpec{ID: id, Rack: "/r", Capability: berth.New(8192, 8)}}
}

// TestFSMSessions: each session has its own request numbers; a request
// arriving after a later one of another session is applied (the single
// request counter answered it as a duplicate, with an empty result, and
// never applied it); a retry is answered with the first answer and not
// applied again; an overtaken request and an unknown session are
// refused and change nothing.
func TestFSMSessions(t *testing.T) {
	l := newFSMLog(t, durable.Capacity)
	a, b := l.open(), l.open()
	require.NotEqual(t, a, b)

	ra := l.cmd(a, 1, addNode("n1"))
	require.NoError(t, ra.Rejected)
	require.NoError(t, ra.Err)
	assert.Equal(t, uint64(1), ra.Result.Seq)
	// b's first request comes after a's: it is applied, not a duplicate.
	rb := l.cmd(b, 1, addNode("n2"))
	require.NoError(t, rb.Rejected)
	assert.False(t, rb.Duplicate)
	assert.Equal(t, uint64(2), rb.Result.Seq)

	steps := []struct {
		name      string
		session   uint64
		seq       uint64
		rejected  error
		duplicate bool
		applied   uint64 // the Cluster's Seq after the step
	}{
		{"retry of a's request 1", a, 1, nil, true, 2},
		{"a's request 2", a, 2, nil, false, 3},
		{"a skips 3 (given up): 4 is applied", a, 4, nil, false, 4},
		{"a's overtaken request 3", a, 3, ErrStaleRequest, false, 4},
		{"retry of b's request 1 after others", b, 1, nil, true, 4},
		{"unknown session", 999, 1, ErrSessionExpired, false, 4},
	}
	for i, s := range steps {
		before := l.f.Ledger()
		r := l.cmd(s.session, s.seq, durable.AdvanceClock{To: berth.Time(1000 * (i + 1))})
		if s.rejected != nil {
			assert.ErrorIs(t, r.Rejected, s.rejected, s.name)
		} else {
			assert.NoError(t, r.Rejected, s.name)
		}
		assert.Equal(t, s.duplicate, r.Duplicate, s.name)
		assert.Equal(t, s.applied, l.f.Cluster().Seq(), s.name)
		if s.duplicate || s.rejected != nil {
			assert.Equal(t, before, l.f.Ledger(), "%s: the ledger does not move", s.name)
		} else {
			assert.Equal(t, before.Next(s.session, s.seq), l.f.Ledger(), s.name)
		}
	}
	dup := l.cmd(b, 1, addNode("n2"))
	assert.True(t, reflect.DeepEqual(rb.Result, dup.Result), "the retry's answer is the first answer")

	// A closed session is gone: its requests are refused.
	require.NoError(t, l.apply(CloseEntry(b)).Rejected)
	assert.ErrorIs(t, l.cmd(b, 2, addNode("n3")).Rejected, ErrSessionExpired)
}

// TestFSMSessionExpiry: beyond MaxSessions, opening a session expires the
// one used least recently, on every replica alike.
func TestFSMSessionExpiry(t *testing.T) {
	l := newFSMLog(t, durable.Capacity)
	l.f.MaxSessions = 2
	a, b := l.open(), l.open()
	require.NoError(t, l.cmd(a, 1, addNode("n1")).Rejected) // b is now the least recently used
	c := l.open()
	assert.Equal(t, []uint64{a, c}, l.f.sessionIDs())
	assert.ErrorIs(t, l.cmd(b, 1, addNode("n2")).Rejected, ErrSessionExpired)
	assert.NoError(t, l.cmd(c, 1, addNode("n2")).Rejected)
	assert.Equal(t, uint64(2), l.f.Cluster().Seq())
}

// TestFSMUndecodableEntry: an entry that does not decode is rejected with
// a typed error and changes nothing.
func TestFSMUndecodableEntry(t *testing.T) {
	l := newFSMLog(t, durable.Capacity)
	s := l.open()
	good, err := CommandEntry(s, 1, addNode("n1"))
	require.NoError(t, err)
	cases := map[string][]byte{
		"empty":           nil,
		"version":         {9, entryOpen},
		"kind":            {entryVersion, 77},
		"no session":      {entryVersion, entryCommand},
		"request 0":       {entryVersion, entryCommand, byte(s), 0},
		"command":         {entryVersion, entryCommand, byte(s), 1, 2, 99},
		"trailing bytes":  append(CloseEntry(s), 0),
		"truncated entry": good[:len(good)-1],
	}
	for name, b := range cases {
		t.Run(name, func(t *testing.T) {
			before := l.f.Ledger()
			r := l.apply(b)
			var ee *EntryError
			require.ErrorAs(t, r.Rejected, &ee)
			assert.True(t, errors.Is(r.Rejected, berth.ErrCorruptState) || errors.Is(r.Rejected, berth.ErrUnsupportedVersion), "%v", r.Rejected)
			assert.Equal(t, before, l.f.Ledger())
			assert.Equal(t, uint64(0), l.f.Cluster().Seq())
			assert.Equal(t, []uint64{s}, l.f.sessionIDs())
		})
	}
}

// TestFSMSnapshotKeepsSessions: a replica restored from a snapshot knows
// every session, its last request and its cached answer: a retry after
// the restore is answered with the first answer, field for field, and not
// applied again; the ledger is the same. Run over a workload of both
// schedulers, so the cached answers include allocations, follower runs,
// preemption rounds and refused calls.
func TestFSMSnapshotKeepsSessions(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.String(), func(t *testing.T) {
			l := newFSMLog(t, k)
			w := smallWorkload(5, k)
			sessions := []uint64{l.open(), l.open(), l.open()}
			type sent struct {
				cmd  durable.Command
				resp Response
			}
			last := map[uint64]sent{}
			kindsSeen := map[durable.Kind]bool{}
			for i := range 600 {
				s := sessions[i%len(sessions)]
				cmd := w.Next()
				r := l.cmd(s, uint64(i/len(sessions)+1), cmd)
				require.NoError(t, r.Rejected)
				w.Observe(r.Result, r.Err)
				last[s] = sent{cmd, r}
				kindsSeen[cmd.Kind()] = true
			}
			assert.True(t, kindsSeen[durable.KindPreemptionRound] && kindsSeen[durable.KindRunFollower], "the workload covers the reports")

			restored := restoreCopy(t, l.f)
			assert.Equal(t, l.f.Ledger(), restored.Ledger())
			assert.Equal(t, l.f.sessionIDs(), restored.sessionIDs())
			rl := &fsmLog{t: t, f: restored, index: l.index}
			for _, s := range sessions {
				seq := uint64(600 / len(sessions))
				r := rl.cmd(s, seq, last[s].cmd)
				require.NoError(t, r.Rejected)
				assert.True(t, r.Duplicate)
				assert.Equal(t, encodeAnswerBytes(t, last[s].resp), encodeAnswerBytes(t, r), "session %d's cached answer", s)
				assert.Equal(t, last[s].resp.Err == nil, r.Err == nil)
			}
			assert.Equal(t, l.f.Cluster().Seq(), restored.Cluster().Seq(), "retries applied nothing")
			d1, err := Digest(l.f.Cluster())
			require.NoError(t, err)
			d2, err := Digest(restored.Cluster())
			require.NoError(t, err)
			assert.Equal(t, d1, d2)
		})
	}
}

func restoreCopy(t *testing.T, f *FSM) *FSM {
	t.Helper()
	snap, err := f.Snapshot()
	require.NoError(t, err)
	sink := &memSink{}
	require.NoError(t, snap.Persist(sink))
	g, err := NewFSM(f.cfg)
	require.NoError(t, err)
	require.NoError(t, g.Restore(io.NopCloser(bytes.NewReader(sink.Bytes()))))
	assert.Equal(t, int64(1), g.Restores())
	return g
}

func encodeAnswerBytes(t *testing.T, r Response) []byte {
	t.Helper()
	var buf bytes.Buffer
	e := berth.NewStateEncoder(&buf, "test", 1)
	encodeAnswer(e, r.Result, r.Err)
	require.NoError(t, e.Finish())
	return buf.Bytes()
}

// TestAnswerCodec: every result of a long workload of both schedulers
// decodes to itself. Results without a preemption report are equal to the
// original down to reflect.DeepEqual; a preemption report's decisions
// name their leaf queue by path only, so those are compared by their
// re-encoding (which covers every exported field). Call errors keep their
// message and berth error kind.
func TestAnswerCodec(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.String(), func(t *testing.T) {
			cfg, err := durable.DemoConfig(k)
			require.NoError(t, err)
			c, err := durable.New(cfg)
			require.NoError(t, err)
			w := smallWorkload(8, k)
			deep, reports, errs := 0, 0, 0
			for i := range 1200 {
				var cmd durable.Command = durable.RemoveNode{ID: "no-such-node"} // refused
				if i%50 != 0 {
					cmd = w.Next()
				}
				r, callErr := c.Apply(cmd)
				if i%50 != 0 {
					w.Observe(r, callErr)
				}
				b := encodeAnswerBytes(t, Response{Result: r, Err: callErr})
				d, err := berth.NewStateDecoder(bufio.NewReader(bytes.NewReader(b)), "test", 1)
				require.NoError(t, err)
				got, gotErr := decodeAnswer(d)
				require.NoError(t, d.Finish())
				if r.Proportional == nil {
					require.True(t, reflect.DeepEqual(r, got), "command %d: %+v\n!=\n%+v", r.Seq, r, got)
					deep++
				} else {
					reports++
				}
				require.Equal(t, b, encodeAnswerBytes(t, Response{Result: got, Err: gotErr}), "command %d re-encodes the same", r.Seq)
				require.Equal(t, callErr == nil, gotErr == nil)
				if callErr != nil {
					errs++
					assert.Equal(t, callErr.Error(), gotErr.Error())
					for _, kind := range errorKinds {
						assert.Equal(t, errors.Is(callErr, kind), errors.Is(gotErr, kind), "command %d: %v is %v", r.Seq, callErr, kind)
					}
				}
			}
			assert.Positive(t, errs, "refused calls covered")
			if k == durable.Capacity {
				assert.Positive(t, reports, "proportional reports covered")
			}
			assert.Positive(t, deep)
		})
	}
}

// TestAnswerCodecRefusesWhatItCannotCarry: a type the codec has no
// encoding for is an error, not a silent loss.
func TestAnswerCodecRefusesWhatItCannotCarry(t *testing.T) {
	e := berth.NewStateEncoder(io.Discard, "test", 1)
	encodeValue(e, reflect.ValueOf(struct{ M map[string]int }{M: map[string]int{"a": 1}}))
	assert.Error(t, e.Finish())
}

// FuzzDecodeEntry: any bytes either decode to an entry that re-encodes to
// themselves or are refused with a typed error; never a panic.
func FuzzDecodeEntry(f *testing.F) {
	good, _ := CommandEntry(3, 7, addNode("n1"))
	for _, b := range [][]byte{OpenEntry(), CloseEntry(5), good, {1, 2, 3, 1, 2, 99}} {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := decodeEntry(b)
		if err != nil {
			var ee *EntryError
			require.ErrorAs(t, err, &ee)
			return
		}
		var again []byte
		switch e.kind {
		case entryOpen:
			again = OpenEntry()
		case entryClose:
			again = CloseEntry(e.session)
		case entryCommand:
			again, err = CommandEntry(e.session, e.seq, e.cmd)
			require.NoError(t, err)
		}
		// Varints have more than one encoding; the decoded entry must at
		// least decode from its canonical encoding to itself.
		e2, err := decodeEntry(again)
		require.NoError(t, err)
		require.Equal(t, e, e2)
	})
}

// FuzzRestoreSessions: a damaged session section is refused with an
// error, never a panic or an unbounded allocation.
func FuzzRestoreSessions(f *testing.F) {
	cfg, _ := durable.DemoConfig(durable.Capacity)
	fsm, _ := NewFSM(cfg)
	s := fsm.Apply(&raft.Log{Index: 1, Type: raft.LogCommand, Data: OpenEntry()}).(Response).Session
	b, _ := CommandEntry(s, 1, addNode("n1"))
	fsm.Apply(&raft.Log{Index: 2, Type: raft.LogCommand, Data: b})
	var buf bytes.Buffer
	if err := fsm.writeSessions(&buf); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Fuzz(func(t *testing.T, b []byte) {
		_, sessions, err := readSessions(bufio.NewReader(bytes.NewReader(b)))
		if err == nil {
			require.NotNil(t, sessions)
		}
	})
}

type memSink struct{ bytes.Buffer }

func (s *memSink) ID() string    { return "mem" }
func (s *memSink) Cancel() error { return nil }
func (s *memSink) Close() error  { return nil }
