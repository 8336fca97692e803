package journal_test

import (
	"bytes"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	. "github.com/berthsched/berth/examples/durable/journal"
	"github.com/berthsched/berth/examples/durable/journal/journaltest"
)

// noTmp asserts that an error names no temporary file: those are renamed
// or removed, and a message must name files the host can find.
func noTmp(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		assert.NotContains(t, err.Error(), ".tmp", "the message names a temporary file")
	}
}

// TestFullDiskAppends: with the disk full, a journal whose segment has
// room goes on appending (its space was allocated when the segment was
// created); the rotation that needs a new segment fails cleanly, with
// ENOSPC, and the journal stays usable: once space is back the same
// append succeeds and nothing is lost.
func TestFullDiskAppends(t *testing.T) {
	dir := t.TempDir()
	fsys := &journaltest.FaultFS{}
	fsys.NoDiskSync(true)
	opts := Options{SegmentBytes: 4 << 10, FS: fsys}
	j, err := Open(dir, opts)
	require.NoError(t, err)
	AppendN(t, j, 10)
	require.NoError(t, j.Close())

	fsys.SetFull(true)
	j, err = Open(dir, opts)
	require.NoError(t, err)
	assert.NoError(t, j.Recovery().ReadOnly, "nothing to repair: nothing to write")
	var appended uint64 = 10
	for {
		seq, err := j.Append(Payload(j.Next()), 0)
		if err != nil {
			assert.ErrorIs(t, err, syscall.ENOSPC)
			assert.NotErrorIs(t, err, ErrSyncFailed, "nothing was written: the outcome is known")
			assert.Contains(t, err.Error(), "creating segment seg-")
			noTmp(t, err)
			break
		}
		appended = seq
	}
	assert.Greater(t, appended, uint64(20), "the allocated segment filled up")
	assert.Equal(t, appended, j.Synced())
	fsys.SetFull(false)
	seq, err := j.Append(Payload(j.Next()), 0)
	require.NoError(t, err, "the journal survives a full disk")
	assert.Equal(t, appended+1, seq)
	require.NoError(t, j.Close())
	j, err = Open(dir, opts)
	require.NoError(t, err)
	assert.Equal(t, Seqs(1, appended+1), ReplayAll(t, j))
	require.NoError(t, j.Close())
}

// TestFullDiskRecovery: a recovery that has to write on a full disk
// (keep a torn tail, start the first segment, continue a format 1
// journal) recovers read-only and says why; reads work, writes refuse
// with ErrReadOnly wrapping ENOSPC, nothing on disk changed, and once
// space is back a reopening repairs.
func TestFullDiskRecovery(t *testing.T) {
	t.Run("torn tail", func(t *testing.T) {
		dir := t.TempDir()
		fsys := &journaltest.FaultFS{}
		fsys.NoDiskSync(true)
		opts := Options{SegmentBytes: 16 << 10, FS: fsys, Sync: SyncNever}
		j, err := Open(dir, opts)
		require.NoError(t, err)
		AppendN(t, j, 5)
		require.NoError(t, j.Sync())
		big := bytes.Repeat([]byte("torn write "), 200)
		_, err = j.Append(big, 0)
		require.NoError(t, err)
		require.NoError(t, j.Flush()) // written, never synced
		fsys.CrashProcess()           // no Close: the manifest does not know record 6
		seg := filepath.Join(dir, "seg-00000000000000000001.wal")
		data, err := os.ReadFile(seg)
		require.NoError(t, err)
		start := bytes.Index(data, []byte("torn write "))
		end := bytes.LastIndex(data, []byte("torn write ")) + len("torn write ")
		clear(data[(start/512+1)*512 : end]) // the crash left sectors of the last record unwritten
		require.NoError(t, os.WriteFile(seg, data, 0o644))

		fsys.SetFull(true)
		j, err = Open(dir, opts)
		require.NoError(t, err, "a full disk does not stop recovery")
		ro := j.Recovery().ReadOnly
		require.Error(t, ro)
		assert.ErrorIs(t, ro, syscall.ENOSPC)
		assert.Contains(t, ro.Error(), "torn tail of seg-00000000000000000001.wal")
		noTmp(t, ro)
		assert.Equal(t, Seqs(1, 5), replayAnyPayload(t, j), "the records before the torn one")
		_, err = j.Append([]byte("x"), 0)
		assert.ErrorIs(t, err, ErrReadOnly)
		assert.ErrorIs(t, err, syscall.ENOSPC)
		require.NoError(t, j.Close())
		after, err := os.ReadFile(seg)
		require.NoError(t, err)
		assert.Equal(t, data, after, "a read-only recovery changes nothing")

		fsys.SetFull(false)
		j, err = Open(dir, opts)
		require.NoError(t, err)
		assert.NoError(t, j.Recovery().ReadOnly)
		assert.Positive(t, j.Recovery().TornBytes)
		AppendN(t, j, 1)
		require.NoError(t, j.Close())
	})
	t.Run("new journal", func(t *testing.T) {
		dir := t.TempDir()
		fsys := &journaltest.FaultFS{}
		fsys.SetFull(true)
		j, err := Open(dir, Options{FS: fsys})
		require.NoError(t, err)
		ro := j.Recovery().ReadOnly
		assert.ErrorIs(t, ro, syscall.ENOSPC)
		assert.Contains(t, ro.Error(), "creating segment seg-00000000000000000001.wal in "+dir)
		noTmp(t, ro)
		_, err = j.Append([]byte("x"), 0)
		assert.ErrorIs(t, err, ErrReadOnly)
		require.NoError(t, j.Close())
		left, _ := filepath.Glob(filepath.Join(dir, "*"))
		assert.Equal(t, []string{filepath.Join(dir, "LOCK")}, left, "no temporary file left behind")
	})
}

// TestSnapshotOnFullDisk: a snapshot that cannot be written leaves the
// previous one and the journal as they were.
func TestSnapshotOnFullDisk(t *testing.T) {
	dir := t.TempDir()
	fsys := &journaltest.FaultFS{}
	fsys.NoDiskSync(true)
	j, err := Open(dir, Options{FS: fsys, SegmentBytes: 64 << 10})
	require.NoError(t, err)
	AppendN(t, j, 5)
	require.NoError(t, j.WriteSnapshot(5, func(w io.Writer) error { _, err := w.Write([]byte("s5")); return err }))
	AppendN(t, j, 5)
	fsys.SetFull(true)
	err = j.WriteSnapshot(10, func(w io.Writer) error { _, err := w.Write(make([]byte, 100)); return err })
	assert.ErrorIs(t, err, syscall.ENOSPC)
	assert.Contains(t, err.Error(), "snap-00000000000000000010.snap")
	noTmp(t, err)
	assert.Equal(t, uint64(5), j.SnapshotSeq())
	AppendN(t, j, 2) // the segment has room
	assert.ErrorIs(t, j.Close(), syscall.ENOSPC, "Close says the manifest could not be updated")
	fsys.SetFull(false)
	j, err = Open(dir, Options{FS: fsys})
	require.NoError(t, err)
	assert.Equal(t, Seqs(6, 12), ReplayAll(t, j))
	require.NoError(t, j.Close())
}

// TestSyncFailure: a failed fsync (or write) makes the outcome of the
// unsynced records unknown: the error says which, the journal stops
// (every later call fails with ErrFailed, which is not a SyncError), and
// a reopening tells what reached the disk: after a process crash the
// written records, after a machine crash a prefix that may stop short.
func TestSyncFailure(t *testing.T) {
	for _, tc := range []struct {
		name  string
		opts  Options
		fail  func(*journaltest.FaultFS, error)
		op    string
		first uint64
	}{
		{"fsync, SyncAlways", Options{SegmentBytes: 64 << 10}, (*journaltest.FaultFS).FailSync, "fsync", 11},
		{"write, SyncAlways", Options{SegmentBytes: 64 << 10}, (*journaltest.FaultFS).FailWrite, "write", 11},
		{"fsync, SyncBatch", Options{Sync: SyncBatch, SyncEvery: 4, SegmentBytes: 64 << 10}, (*journaltest.FaultFS).FailSync, "fsync", 9},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, machine := range []bool{false, true} {
				dir := t.TempDir()
				fsys := &journaltest.FaultFS{}
				fsys.NoDiskSync(true)
				tc.opts.FS = fsys
				j, err := Open(dir, tc.opts)
				require.NoError(t, err)
				AppendN(t, j, 10)
				synced := j.Synced()
				tc.fail(fsys, syscall.EIO)
				var err2 error
				for err2 == nil {
					_, err2 = j.Append(Payload(j.Next()), 0)
				}
				var se *SyncError
				require.ErrorAs(t, err2, &se)
				assert.ErrorIs(t, err2, ErrSyncFailed)
				assert.ErrorIs(t, err2, syscall.EIO)
				assert.Equal(t, tc.op, se.Op)
				assert.Equal(t, tc.first, se.First)
				assert.Equal(t, j.Next()-1, se.Last)
				assert.Equal(t, "seg-00000000000000000001.wal", se.Segment)
				tc.fail(fsys, nil) // the disk is well again: the journal still stops
				_, err = j.Append([]byte("x"), 0)
				assert.ErrorIs(t, err, ErrFailed)
				assert.NotErrorIs(t, err, ErrSyncFailed, "later appends were certainly not written")
				assert.ErrorIs(t, j.Sync(), ErrFailed)
				assert.NoError(t, j.Close())

				if machine {
					fsys.CrashMachine(rand.New(rand.NewPCG(1, 1)))
				} else {
					fsys.CrashProcess()
				}
				j, err = Open(dir, tc.opts)
				require.NoError(t, err)
				got := j.Recovery().Last
				assert.GreaterOrEqual(t, got, synced, "the synced records are there")
				assert.LessOrEqual(t, got, se.Last)
				if !machine && tc.op == "fsync" {
					assert.Equal(t, se.Last, got, "the page cache kept what the failed fsync did not")
				}
				if tc.op == "write" {
					assert.Equal(t, se.First-1, got, "a failed write wrote nothing")
				}
				assert.Equal(t, Seqs(1, got), ReplayAll(t, j))
				require.NoError(t, j.Close())
			}
		})
	}
}

func replayAnyPayload(t *testing.T, j *Journal) []uint64 {
	t.Helper()
	var got []uint64
	require.NoError(t, j.Replay(func(seq uint64, _ []byte) error { got = append(got, seq); return nil }))
	return got
}
