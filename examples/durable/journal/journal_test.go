package journal

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/berthsched/berth"
)

func payload(seq uint64) []byte {
	n := 1 + int(seq*7919%97)
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(seq) + byte(i)
	}
	return b
}

func replayAll(t *testing.T, j *Journal) []uint64 {
	t.Helper()
	var got []uint64
	require.NoError(t, j.Replay(func(seq uint64, p []byte) error {
		if !bytes.Equal(p, payload(seq)) {
			return fmt.Errorf("record %d: payload differs", seq)
		}
		got = append(got, seq)
		return nil
	}))
	return got
}

func seqs(from, to uint64) []uint64 {
	var s []uint64
	for i := from; i <= to; i++ {
		s = append(s, i)
	}
	return s
}

func appendN(t *testing.T, j *Journal, n int) {
	t.Helper()
	for range n {
		seq := j.Next()
		got, err := j.Append(payload(seq), 0)
		require.NoError(t, err)
		require.Equal(t, seq, got)
	}
}

func segFiles(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "seg-*.wal"))
	require.NoError(t, err)
	sort.Strings(m)
	return m
}

func TestAppendReopenReplay(t *testing.T) {
	for _, mode := range []SyncMode{SyncAlways, SyncBatch, SyncNever} {
		t.Run(fmt.Sprint(mode), func(t *testing.T) {
			dir := t.TempDir()
			// No crash here: fsync (of ~250 segments) would only wait for the disk.
			j, err := Open(dir, fast(Options{Sync: mode, SyncEvery: 10, SegmentBytes: 2048}))
			require.NoError(t, err)
			appendN(t, j, 500)
			require.NoError(t, j.Close())
			assert.Greater(t, len(segFiles(t, dir)), 5, "small segments rotate")

			j, err = Open(dir, fast(Options{Sync: mode, SegmentBytes: 2048}))
			require.NoError(t, err)
			assert.Equal(t, seqs(1, 500), replayAll(t, j))
			assert.Equal(t, uint64(501), j.Next())
			appendN(t, j, 10)
			require.NoError(t, j.Close())
			j, err = Open(dir, Options{})
			require.NoError(t, err)
			assert.Equal(t, seqs(1, 510), replayAll(t, j))
			require.NoError(t, j.Close())
		})
	}
}

func TestSyncPolicy(t *testing.T) {
	dir := t.TempDir()
	j, err := Open(dir, Options{Sync: SyncBatch, SyncEvery: 3, SyncInterval: 1000, SegmentBytes: 64 << 10})
	require.NoError(t, err)
	defer j.Close()
	_, err = j.Append([]byte("a"), 0)
	require.NoError(t, err)
	_, err = j.Append([]byte("b"), 10)
	require.NoError(t, err)
	assert.Equal(t, uint64(0), j.Synced(), "two records wait")
	_, err = j.Append([]byte("c"), 20)
	require.NoError(t, err)
	assert.Equal(t, uint64(3), j.Synced(), "the third triggers a sync")
	_, err = j.Append([]byte("d"), 500)
	require.NoError(t, err)
	assert.Equal(t, uint64(3), j.Synced())
	require.NoError(t, j.Tick(999))
	assert.Equal(t, uint64(3), j.Synced(), "interval not reached (last sync at 20)")
	require.NoError(t, j.Tick(1020))
	assert.Equal(t, uint64(4), j.Synced(), "the host's clock drives the interval")

	always, err := Open(t.TempDir(), Options{SegmentBytes: 64 << 10})
	require.NoError(t, err)
	defer always.Close()
	_, err = always.Append([]byte("x"), 0)
	require.NoError(t, err)
	assert.Equal(t, uint64(1), always.Synced())

	never, err := Open(t.TempDir(), Options{Sync: SyncNever, SegmentBytes: 64 << 10})
	require.NoError(t, err)
	defer never.Close()
	_, err = never.Append([]byte("x"), 0)
	require.NoError(t, err)
	assert.Equal(t, uint64(0), never.Synced())
	require.NoError(t, never.Sync())
	assert.Equal(t, uint64(1), never.Synced())
}

func TestSnapshotTruncates(t *testing.T) {
	dir := t.TempDir()
	j, err := Open(dir, Options{SegmentBytes: 1024})
	require.NoError(t, err)
	appendN(t, j, 200)
	before := len(segFiles(t, dir))
	require.Error(t, j.WriteSnapshot(150, func(io.Writer) error { return nil }), "only the last record can be snapshotted")
	require.NoError(t, j.WriteSnapshot(200, func(w io.Writer) error { _, err := w.Write([]byte("state@200")); return err }))
	after := segFiles(t, dir)
	assert.Len(t, after, 1, "every segment before the snapshot is gone (was %d)", before)
	appendN(t, j, 20)
	require.NoError(t, j.WriteSnapshot(220, func(w io.Writer) error { _, err := w.Write([]byte("state@220")); return err }))
	appendN(t, j, 5)
	require.NoError(t, j.Close())
	snaps, _ := filepath.Glob(filepath.Join(dir, "snap-*.snap"))
	assert.Len(t, snaps, 1, "older snapshots are removed")

	j, err = Open(dir, Options{})
	require.NoError(t, err)
	defer j.Close()
	rc, seq, ok, err := j.OpenSnapshot()
	require.NoError(t, err)
	require.True(t, ok)
	b, _ := io.ReadAll(rc)
	rc.Close()
	assert.Equal(t, uint64(220), seq)
	assert.Equal(t, "state@220", string(b))
	assert.Equal(t, seqs(221, 225), replayAll(t, j))

	// A failed snapshot writer leaves the previous snapshot in place.
	require.Error(t, j.WriteSnapshot(225, func(io.Writer) error { return errors.New("disk full") }))
	assert.Equal(t, uint64(220), j.SnapshotSeq())
}

// TestCorruptMiddle flips bits in records that are not last: recovery
// refuses the journal rather than drop acknowledged records, and calls
// it corruption, not a torn tail or a loss.
func TestCorruptMiddle(t *testing.T) {
	src := t.TempDir()
	j, err := Open(src, Options{SegmentBytes: 64 << 10})
	require.NoError(t, err)
	appendN(t, j, 50)
	require.NoError(t, j.Close())
	seg := filepath.Base(segFiles(t, src)[0])
	ends := recordEnds(t, readFile(t, src, seg))
	lastStart := ends[len(ends)-2]
	rng := rand.New(rand.NewPCG(1, 2))
	path := filepath.Join(src, seg)
	for range 200 {
		pos := int64(segDataStart) + rng.Int64N(lastStart-segDataStart)
		err := openFlipped(t, src, path, pos, rng.IntN(8))
		require.Error(t, err, "flip at %d", pos)
		assert.ErrorIs(t, err, berth.ErrCorruptState, "flip at %d", pos)
		assert.NotErrorIs(t, err, ErrTornTail)
		assert.NotErrorIs(t, err, ErrLostRecords)
	}
	// A flipped header is corruption too.
	dir := withFile(t, src, seg, func(b []byte) []byte { b[10] ^= 1; return b })
	_, err = Open(dir, Options{})
	assert.ErrorIs(t, err, berth.ErrCorruptState)
	assert.ErrorContains(t, err, seg)
}

func TestOptionsRefused(t *testing.T) {
	for _, o := range []Options{{Sync: 9}, {SyncEvery: -1}, {SyncInterval: -5}, {SegmentBytes: -1}} {
		_, err := Open(t.TempDir(), o)
		assert.ErrorIs(t, err, berth.ErrInvalidArgument)
	}
	j, err := Open(t.TempDir(), Options{SegmentBytes: 64 << 10})
	require.NoError(t, err)
	_, err = j.Append(nil, 0)
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)
	_, err = j.Append(make([]byte, MaxRecord+1), 0)
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)
	require.NoError(t, j.Close())
	_, err = j.Append([]byte("x"), 0)
	assert.ErrorIs(t, err, errClosed)
}

// TestAppendAllocs holds the append path, its fsync and the synced mark
// written after it, free of allocations once the buffer has grown: a
// host pays for the disk, not for garbage, per command.
func TestAppendAllocs(t *testing.T) {
	for _, m := range []struct {
		name string
		opts Options
	}{
		{"always", Options{Sync: SyncAlways}},
		{"batch4", Options{Sync: SyncBatch, SyncEvery: 4}},
		{"never", Options{Sync: SyncNever}},
	} {
		t.Run(m.name, func(t *testing.T) {
			opts := m.opts
			opts.SegmentBytes = 1 << 20 // no rotation during the runs
			j, err := Open(t.TempDir(), opts)
			require.NoError(t, err)
			defer j.Close()
			rec := make([]byte, 16)
			allocs := testing.AllocsPerRun(40, func() {
				if _, err := j.Append(rec, 0); err != nil {
					t.Fatal(err)
				}
			})
			assert.Zero(t, allocs)
			require.NoError(t, j.Sync())
			assert.Equal(t, j.Next()-1, j.Synced())
		})
	}
}
