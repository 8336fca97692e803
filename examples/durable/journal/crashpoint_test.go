package journal_test

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	. "github.com/berthsched/berth/examples/durable/journal"
	"github.com/berthsched/berth/examples/durable/journal/journaltest"
)

// crashModel is what a host knows of its journal while an operation
// runs: the records it appended (some perhaps only buffered), those it
// may acknowledge (Synced after the last call that returned), and the
// latest snapshot a call reported written.
type crashModel struct {
	dir      string
	fsys     *journaltest.FaultFS
	opts     Options
	j        *Journal
	appended uint64
	acked    uint64
	snap     uint64 // a snapshot WriteSnapshot returned nil for
	minSnap  uint64 // recovery may not start before it
}

// open opens the journal; a failure is the operation's error.
func (m *crashModel) open() error {
	j, err := Open(m.dir, m.opts)
	if err != nil {
		return err
	}
	m.j = j
	m.appended = max(m.appended, j.Next()-1)
	m.acked = max(m.acked, j.Synced())
	return nil
}

// append appends n records, stopping at the first error.
func (m *crashModel) append(n int) error {
	for range n {
		seq, err := m.j.Append(Payload(m.j.Next()), 0)
		m.appended = max(m.appended, m.j.Next()-1)
		if err != nil {
			return err
		}
		if seq != m.appended {
			return fmt.Errorf("append returned %d, want %d", seq, m.appended)
		}
		m.acked = m.j.Synced()
	}
	return nil
}

func (m *crashModel) sync() error {
	if err := m.j.Sync(); err != nil {
		return err
	}
	m.acked = m.j.Synced()
	return nil
}

func (m *crashModel) snapshot() error {
	seq := m.j.Next() - 1
	err := m.j.WriteSnapshot(seq, func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "state@%d", seq)
		return err
	})
	if err != nil {
		return err
	}
	m.acked = m.j.Synced()
	m.snap, m.minSnap = seq, seq
	return nil
}

func (m *crashModel) close() error {
	err := m.j.Close()
	if err == nil {
		m.acked = m.appended
	}
	return err
}

// check opens the journal after a crash and holds it to the model:
// Open does not refuse; every acknowledged record is replayed, in order,
// with its payload, and nothing that was never appended; the snapshot is
// one that was written, not older than the last acknowledged one; and
// the journal takes appends that a clean reopening keeps.
func (m *crashModel) check() error {
	j, err := Open(m.dir, m.opts)
	if err != nil {
		return fmt.Errorf("reopening: %w", err)
	}
	defer j.Close()
	r := j.Recovery()
	switch {
	case r.Lost != nil && !m.opts.AcceptTruncation:
		return fmt.Errorf("a loss reported: %v", r.Lost)
	case r.ReadOnly != nil:
		return fmt.Errorf("read-only: %v", r.ReadOnly)
	case r.Last < m.acked:
		return fmt.Errorf("recovered up to %d, %d were acknowledged", r.Last, m.acked)
	case r.Last > m.appended:
		return fmt.Errorf("recovered up to %d, only %d were appended", r.Last, m.appended)
	case j.SnapshotSeq() < m.minSnap:
		return fmt.Errorf("snapshot %d, %d was written", j.SnapshotSeq(), m.minSnap)
	}
	if s := j.SnapshotSeq(); s > 0 {
		rc, _, _, err := j.OpenSnapshot()
		if err != nil {
			return err
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			return fmt.Errorf("snapshot %d: %w", s, err)
		}
		if want := fmt.Sprintf("state@%d", s); string(b) != want {
			return fmt.Errorf("snapshot %d holds %q", s, b)
		}
	}
	next := j.SnapshotSeq() + 1
	err = j.Replay(func(seq uint64, p []byte) error {
		if seq != next || !bytes.Equal(p, Payload(seq)) {
			return fmt.Errorf("record %d replayed, want %d with its payload", seq, next)
		}
		next++
		return nil
	})
	if err != nil {
		return err
	}
	if next-1 != r.Last {
		return fmt.Errorf("replay ended at %d, Recovery says %d", next-1, r.Last)
	}
	if _, err := j.Append(Payload(j.Next()), 0); err != nil {
		return fmt.Errorf("appending after recovery: %w", err)
	}
	if err := j.Close(); err != nil {
		return err
	}
	j2, err := Open(m.dir, m.opts)
	if err != nil {
		return fmt.Errorf("reopening after an append: %w", err)
	}
	defer j2.Close()
	if j2.Recovery().Last != r.Last+1 {
		return fmt.Errorf("after an append and a clean reopening: %d records, want %d", j2.Recovery().Last, r.Last+1)
	}
	return nil
}

// crashCase is an operation crashed at each of its changes to the disk.
type crashCase struct {
	name string
	opts Options
	// setup brings the directory to where the operation starts (a model
	// with the journal open, or closed for an operation that opens it);
	// it runs without faults.
	setup func(m *crashModel) error
	run   func(m *crashModel) error
	// crosses names a change the operation must make (a rotation's
	// segment, a removal), so that its crash points are enumerated.
	crosses string
}

// TestCrashPoints crashes the journal at every change it makes to the
// disk (each write, fsync, allocation, file created, renamed or removed,
// directory fsync) while it creates a directory, appends across a
// rotation in each sync mode, checkpoints, closes, repairs a torn tail,
// keeps an accepted loss and upgrades a format 1 journal: for each point
// a crash of the process and two crashes of the machine (which also
// undo directory changes not yet fsynced), each followed by a recovery
// held to what the host was told (crashModel.check). Between them the
// cases cross every write, fsync, rename and removal of rotation,
// checkpoint and snapshot.
func TestCrashPoints(t *testing.T) {
	opts := func(mode SyncMode) Options {
		return Options{Sync: mode, SyncEvery: 3, SegmentBytes: 2048, BufferBytes: 256}
	}
	// fill appends records until the current segment has room for about
	// two more, so that the operation crosses a rotation.
	fill := func(m *crashModel) error {
		if err := m.open(); err != nil {
			return err
		}
		return m.append(14)
	}
	cases := []crashCase{
		{name: "create", opts: opts(SyncAlways),
			setup: func(m *crashModel) error { return nil },
			run:   func(m *crashModel) error { return m.open() }},
		{name: "rotate/always", opts: opts(SyncAlways), setup: fill, crosses: "create seg-",
			run: func(m *crashModel) error { return m.append(4) }},
		{name: "rotate/batch", opts: opts(SyncBatch), setup: fill, crosses: "create seg-",
			run: func(m *crashModel) error { return m.append(6) }},
		{name: "rotate/never+sync", opts: opts(SyncNever), setup: fill, crosses: "create seg-",
			run: func(m *crashModel) error {
				if err := m.append(5); err != nil {
					return err
				}
				return m.sync()
			}},
		{name: "checkpoint", opts: opts(SyncBatch), crosses: "remove seg-",
			setup: func(m *crashModel) error {
				if err := fill(m); err != nil {
					return err
				}
				if err := m.snapshot(); err != nil {
					return err
				}
				return m.append(30) // two more segments for the next snapshot to drop
			},
			run: func(m *crashModel) error {
				if err := m.snapshot(); err != nil {
					return err
				}
				return m.append(2)
			}},
		{name: "checkpoint after rotation", opts: opts(SyncAlways),
			setup: func(m *crashModel) error {
				if err := fill(m); err != nil {
					return err
				}
				if err := m.snapshot(); err != nil { // the current segment is empty
					return err
				}
				return m.append(1)
			},
			run: func(m *crashModel) error {
				if err := m.snapshot(); err != nil {
					return err
				}
				return m.snapshot() // nothing appended in between
			}},
		{name: "close", opts: opts(SyncNever), setup: fill,
			run: func(m *crashModel) error { return m.close() }},
		{name: "repair torn tail", opts: opts(SyncBatch),
			setup: func(m *crashModel) error {
				if err := fill(m); err != nil {
					return err
				}
				if err := m.sync(); err != nil {
					return err
				}
				if _, err := m.j.Append(bytes.Repeat([]byte("torn write "), 120), 0); err != nil {
					return err
				}
				if err := m.j.Flush(); err != nil {
					return err
				}
				m.appended = m.j.Next() - 1
				m.fsys.CrashProcess()
				m.j = nil
				// The crash left the big record's second sector unwritten.
				seg := lastSegment(m.dir)
				data, err := os.ReadFile(seg)
				if err != nil {
					return err
				}
				at := bytes.Index(data, []byte("torn write "))
				from := (at/512 + 1) * 512
				clear(data[from : from+512])
				return os.WriteFile(seg, data, 0o644)
			},
			run: func(m *crashModel) error { return m.open() }},
		{name: "accept loss", opts: Options{SegmentBytes: 2048, AcceptTruncation: true},
			setup: func(m *crashModel) error {
				if err := m.open(); err != nil {
					return err
				}
				if err := m.append(60); err != nil {
					return err
				}
				if err := m.close(); err != nil {
					return err
				}
				segs, _ := filepath.Glob(filepath.Join(m.dir, "seg-*.wal"))
				if len(segs) < 3 {
					return fmt.Errorf("%d segments", len(segs))
				}
				// A middle segment deleted: what follows the gap is lost,
				// and the host accepts it.
				m.acked = Segfirst(segs[1]) - 1
				m.appended = m.acked
				return os.Remove(segs[1])
			},
			run: func(m *crashModel) error { return m.open() }},
		{name: "upgrade format 1", opts: opts(SyncAlways),
			setup: func(m *crashModel) error {
				var recs [][]byte
				for seq := uint64(1); seq <= 8; seq++ {
					recs = append(recs, Payload(seq))
				}
				// The last record torn: format 1 cuts it by truncation.
				seg := FormatV1(1, recs...)
				m.acked, m.appended = 7, 8
				return os.WriteFile(filepath.Join(m.dir, SegName(1)), seg[:len(seg)-3], 0o644)
			},
			run: func(m *crashModel) error { return m.open() }},
		{name: "upgrade format 2", opts: opts(SyncAlways),
			setup: func(m *crashModel) error {
				var recs [][]byte
				for seq := uint64(1); seq <= 8; seq++ {
					recs = append(recs, Payload(seq))
				}
				// A manifest as the format 2 build wrote it at its Close.
				src := filepath.Join(m.dir, "src")
				j, err := Open(src, Options{})
				if err != nil {
					return err
				}
				if err := j.Close(); err != nil {
					return err
				}
				man, err := os.ReadFile(filepath.Join(src, "MANIFEST"))
				if err != nil {
					return err
				}
				os.RemoveAll(src)
				m.acked, m.appended = 8, 8
				if err := os.WriteFile(filepath.Join(m.dir, "MANIFEST"), man, 0o644); err != nil {
					return err
				}
				return os.WriteFile(filepath.Join(m.dir, SegName(1)), FormatV2(1, 4096, recs...), 0o644)
			},
			run: func(m *crashModel) error { return m.open() }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			fresh := func(i int) *crashModel {
				fsys := &journaltest.FaultFS{}
				fsys.NoDiskSync(true)
				o := tc.opts
				o.FS = fsys
				dir := filepath.Join(root, fmt.Sprint(i))
				require.NoError(t, os.MkdirAll(dir, 0o755))
				m := &crashModel{dir: dir, fsys: fsys, opts: o}
				require.NoError(t, tc.setup(m), "setup")
				return m
			}
			// Count the operation's changes.
			m := fresh(0)
			before := m.fsys.Ops()
			require.NoError(t, tc.run(m))
			changes := m.fsys.Trace()[before:]
			require.NotEmpty(t, changes)
			if tc.crosses != "" {
				require.True(t, slices.ContainsFunc(changes, func(c string) bool { return strings.HasPrefix(c, tc.crosses) }),
					"the operation makes no %q: %q", tc.crosses, changes)
			}
			if m.j != nil {
				require.NoError(t, m.j.Close())
			}
			runs := 0
			for k := range len(changes) + 1 {
				for crash := range 3 { // 0: the process; 1, 2: the machine
					runs++
					m := fresh(runs)
					m.fsys.CrashAfter(k)
					err := tc.run(m)
					dead, _ := m.fsys.Crashed()
					if k < len(changes) {
						require.True(t, dead, "crash point %d not reached", k)
					} else {
						require.NoError(t, err)
					}
					where := "after every change"
					if k < len(changes) {
						where = "before " + changes[k]
					}
					if crash == 0 {
						m.fsys.CrashProcess()
					} else {
						m.fsys.CrashMachine(rand.New(rand.NewPCG(uint64(k), uint64(crash))))
					}
					if err := m.check(); err != nil {
						t.Errorf("crash of the %s %s (change %d of %d): %v", []string{"process", "machine"}[min(crash, 1)], where, k, len(changes), err)
					}
				}
			}
		})
	}
}

func lastSegment(dir string) string {
	segs, _ := filepath.Glob(filepath.Join(dir, "seg-*.wal"))
	return segs[len(segs)-1]
}

// Segfirst is the first record of a segment file, from its name.
func Segfirst(path string) uint64 {
	var first uint64
	fmt.Sscanf(strings.TrimPrefix(filepath.Base(path), "seg-"), "%d", &first)
	return first
}
