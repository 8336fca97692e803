package journal

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
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
			j, err := Open(dir, Options{Sync: mode, SyncEvery: 10, SegmentBytes: 2048})
			require.NoError(t, err)
			appendN(t, j, 500)
			require.NoError(t, j.Close())
			assert.Greater(t, len(segFiles(t, dir)), 5, "small segments rotate")

			j, err = Open(dir, Options{Sync: mode, SegmentBytes: 2048})
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
	j, err := Open(dir, Options{Sync: SyncBatch, SyncEvery: 3, SyncInterval: 1000})
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

	always, err := Open(t.TempDir(), Options{})
	require.NoError(t, err)
	defer always.Close()
	_, err = always.Append([]byte("x"), 0)
	require.NoError(t, err)
	assert.Equal(t, uint64(1), always.Synced())

	never, err := Open(t.TempDir(), Options{Sync: SyncNever})
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

// TestTornTail cuts the last segment at every offset inside its last
// records: recovery keeps every whole record, cuts the rest, and appends
// after it.
func TestTornTail(t *testing.T) {
	src := t.TempDir()
	j, err := Open(src, Options{})
	require.NoError(t, err)
	appendN(t, j, 20)
	require.NoError(t, j.Close())
	seg := segFiles(t, src)[0]
	full, err := os.ReadFile(seg)
	require.NoError(t, err)
	// record boundaries
	var ends []int64
	_, err = ReadSegment(bytes.NewReader(full), int64(len(full)), nil)
	require.NoError(t, err)
	off := int64(segHeaderSize)
	for s := uint64(1); s <= 20; s++ {
		off += recHeaderSize + int64(len(payload(s)))
		ends = append(ends, off)
	}
	for cut := ends[16]; cut < int64(len(full)); cut++ {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, filepath.Base(seg)), full[:cut], 0o644))
		whole := uint64(sort.Search(len(ends), func(i int) bool { return ends[i] > cut }))
		j, err := Open(dir, Options{})
		require.NoError(t, err, "cut at %d", cut)
		assert.Equal(t, seqs(1, whole), replayAll(t, j), "cut at %d", cut)
		good := ends[whole-1]
		torn, err := os.ReadFile(filepath.Join(dir, filepath.Base(seg)) + ".torn")
		if good == cut {
			assert.ErrorIs(t, err, fs.ErrNotExist, "nothing torn at %d", cut)
		} else {
			require.NoError(t, err)
			assert.Equal(t, full[good:cut], torn, "the torn bytes are kept, cut at %d", cut)
		}
		appendN(t, j, 3)
		require.NoError(t, j.Close())
		j, err = Open(dir, Options{})
		require.NoError(t, err)
		assert.Equal(t, seqs(1, whole+3), replayAll(t, j), "appends continue after the cut %d", cut)
		require.NoError(t, j.Close())
	}
	// A zero-filled tail (size grew, data never written) is torn too.
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, filepath.Base(seg)), append(bytes.Clone(full), make([]byte, 300)...), 0o644))
	j, err = Open(dir, Options{})
	require.NoError(t, err)
	assert.Equal(t, seqs(1, 20), replayAll(t, j))
	torn, err := os.ReadFile(filepath.Join(dir, filepath.Base(seg)) + ".torn")
	require.NoError(t, err)
	assert.Equal(t, make([]byte, 300), torn)
	require.NoError(t, j.Close())
}

// TestCorruptMiddle flips bits in records that are not last: recovery
// refuses the journal rather than drop acknowledged records.
func TestCorruptMiddle(t *testing.T) {
	src := t.TempDir()
	j, err := Open(src, Options{SegmentBytes: 1 << 20})
	require.NoError(t, err)
	appendN(t, j, 50)
	require.NoError(t, j.Close())
	seg := segFiles(t, src)[0]
	full, err := os.ReadFile(seg)
	require.NoError(t, err)
	last := int64(len(full)) - recHeaderSize - int64(len(payload(50)))
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		pos := int64(segHeaderSize) + rng.Int64N(last-segHeaderSize)
		bad := bytes.Clone(full)
		bad[pos] ^= 1 << rng.IntN(8)
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, filepath.Base(seg)), bad, 0o644))
		_, err := Open(dir, Options{})
		require.Error(t, err, "flip at %d", pos)
		assert.ErrorIs(t, err, berth.ErrCorruptState, "flip at %d", pos)
		assert.NotErrorIs(t, err, ErrTornTail)
	}
	// A flipped header is corruption too.
	bad := bytes.Clone(full)
	bad[10] ^= 1
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, filepath.Base(seg)), bad, 0o644))
	_, err = Open(dir, Options{})
	assert.ErrorIs(t, err, berth.ErrCorruptState)
}

func TestMissingSegment(t *testing.T) {
	dir := t.TempDir()
	j, err := Open(dir, Options{SegmentBytes: 512})
	require.NoError(t, err)
	appendN(t, j, 100)
	require.NoError(t, j.Close())
	segs := segFiles(t, dir)
	require.Greater(t, len(segs), 3)
	require.NoError(t, os.Remove(segs[1]))
	_, err = Open(dir, Options{})
	assert.ErrorIs(t, err, berth.ErrCorruptState)
	require.NoError(t, os.Remove(segs[0]))
	_, err = Open(dir, Options{})
	assert.ErrorIs(t, err, berth.ErrCorruptState, "records 1.. missing without a snapshot")
}

func TestOptionsRefused(t *testing.T) {
	for _, o := range []Options{{Sync: 9}, {SyncEvery: -1}, {SyncInterval: -5}} {
		_, err := Open(t.TempDir(), o)
		assert.ErrorIs(t, err, berth.ErrInvalidArgument)
	}
	j, err := Open(t.TempDir(), Options{})
	require.NoError(t, err)
	_, err = j.Append(nil, 0)
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)
	require.NoError(t, j.Close())
	_, err = j.Append([]byte("x"), 0)
	assert.Error(t, err)
}

// FuzzReadSegment feeds arbitrary bytes to the record reader: it never
// panics, the good prefix it reports is within the input, a clean read
// re-encodes to the same bytes, and a torn tail's prefix reads cleanly.
func FuzzReadSegment(f *testing.F) {
	var b []byte
	b = appendSegmentHeader(b, 7)
	for s := uint64(7); s < 12; s++ {
		b = AppendRecord(b, s, payload(s))
	}
	f.Add(b)
	f.Add(b[:len(b)-3])
	f.Add(b[:segHeaderSize+5])
	f.Add(append(bytes.Clone(b), 0, 0, 0, 0, 0, 0, 0, 0, 0))
	f.Add([]byte("BERTHJNL"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var recs [][]byte
		var first uint64
		seg, err := ReadSegment(bytes.NewReader(data), int64(len(data)), func(seq uint64, p []byte) error {
			if len(recs) == 0 {
				first = seq
			}
			recs = append(recs, bytes.Clone(p))
			return nil
		})
		if seg.Good > int64(len(data)) || uint64(len(recs)) != seg.Count {
			t.Fatalf("good %d of %d, %d records for count %d", seg.Good, len(data), len(recs), seg.Count)
		}
		if err == nil || errors.Is(err, ErrTornTail) {
			if seg.Good >= segHeaderSize {
				again := appendSegmentHeader(nil, seg.First)
				for i, p := range recs {
					again = AppendRecord(again, first+uint64(i), p)
				}
				if !bytes.Equal(again, data[:seg.Good]) {
					t.Fatalf("re-encoding the good prefix differs")
				}
				if _, err := ReadSegment(bytes.NewReader(data[:seg.Good]), seg.Good, nil); err != nil {
					t.Fatalf("good prefix does not read cleanly: %v", err)
				}
			}
		} else if !errors.Is(err, berth.ErrCorruptState) && !errors.Is(err, berth.ErrUnsupportedVersion) {
			t.Fatalf("untyped error %v", err)
		}
	})
}

// TestZeroHeaderTail: a zero record header is a torn tail when nothing
// good follows and corruption when a good record does, however long the
// run of zeros (longer or shorter than the read buffer, or than what
// recovery scans).
func TestZeroHeaderTail(t *testing.T) {
	seg := AppendRecord(appendSegmentHeader(nil, 1), 1, []byte("hello"))
	garbage := bytes.Repeat([]byte{0xab}, 100)
	for _, tc := range []struct {
		name  string
		zeros int
		after []byte
		torn  bool
	}{
		{"short zeros, garbage", 100, garbage, true},
		{"zeros past the buffer, garbage", 300 << 10, garbage, true},
		{"zeros only", 300 << 10, nil, true},
		{"zeros past the scan", maxTornScan + 1, nil, true},
		{"short zeros, a good record", 100, AppendRecord(nil, 2, []byte("lost")), false},
		{"zeros past the buffer, a good record", 300 << 10, AppendRecord(nil, 2, []byte("lost")), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := append(append(bytes.Clone(seg), make([]byte, tc.zeros)...), tc.after...)
			got, err := ReadSegment(bytes.NewReader(b), int64(len(b)), nil)
			assert.Equal(t, Segment{First: 1, Count: 1, Good: int64(len(seg))}, got)
			if tc.torn {
				assert.ErrorIs(t, err, ErrTornTail)
			} else {
				assert.ErrorIs(t, err, berth.ErrCorruptState)
				assert.NotErrorIs(t, err, ErrTornTail)
			}
		})
	}
}
