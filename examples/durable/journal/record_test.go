package journal

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/berthsched/berth"
)

// maxFuzzSegment caps the fuzzed segments: a header and a few sectors of
// records are enough to reach every branch of the reader (a torn tail is told by its
// 512-byte sectors), and larger inputs only make each run, and the
// minimisation of what they find, slower.
const maxFuzzSegment = segDataStart + 2<<10

// FuzzReadSegment feeds arbitrary bytes to the record reader: it never
// panics, the prefix it reports good is within the input and re-encodes
// to the same bytes, a torn or clean read's good prefix reads cleanly,
// and every other refusal is typed.
func FuzzReadSegment(f *testing.F) {
	const capacity = segDataStart + 768
	seg := appendSegmentHeader(nil, 7, capacity)
	for s := uint64(7); s < 12; s++ {
		seg = AppendRecord(seg, s, payload(s))
	}
	seg = AppendRecord(seg, 12, bytes.Repeat([]byte{0xa5}, 300)) // crosses the first sector
	full := append(bytes.Clone(seg), make([]byte, capacity-len(seg))...)
	marked := bytes.Clone(full)
	copy(marked[markA:], appendMark(nil, 7, 10))
	f.Add(marked)
	f.Add(full)
	f.Add(seg)
	f.Add(seg[:len(seg)-3])
	f.Add(seg[:segDataStart+5])
	torn := bytes.Clone(full)
	clear(torn[segDataStart+512:])
	f.Add(torn)
	v1 := formatV1(7, payload(7), payload(8))
	f.Add(v1)
	f.Add(append(bytes.Clone(v1), 0, 0, 0, 0, 0, 0, 0, 0, 0))
	f.Add([]byte("BERTHJNL"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > maxFuzzSegment {
			return
		}
		var recs [][]byte
		var first uint64
		seg, err := ReadSegment(bytes.NewReader(data), int64(len(data)), func(seq uint64, p []byte) error {
			if len(recs) == 0 {
				first = seq
			}
			recs = append(recs, bytes.Clone(p))
			return nil
		})
		if seg.Good > seg.Data && seg.Data != 0 || seg.Data > int64(len(data)) || uint64(len(recs)) != seg.Count {
			t.Fatalf("good %d, data %d of %d, %d records for count %d", seg.Good, seg.Data, len(data), len(recs), seg.Count)
		}
		if err != nil && !errors.Is(err, ErrTornTail) {
			if !errors.Is(err, berth.ErrCorruptState) && !errors.Is(err, berth.ErrUnsupportedVersion) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		if seg.Version == 0 {
			return // a header cut short
		}
		again := bytes.Clone(data[:headerSize(byte(seg.Version))])
		for i, p := range recs {
			again = AppendRecord(again, first+uint64(i), p)
		}
		if !bytes.Equal(again, data[:seg.Good]) {
			t.Fatalf("re-encoding the good prefix differs")
		}
		if _, err := ReadSegment(bytes.NewReader(data[:seg.Good]), seg.Good, nil); err != nil {
			t.Fatalf("good prefix does not read cleanly: %v", err)
		}
	})
}

// formatV2 is a format 2 segment of the given capacity, as the build
// before the synced marks wrote it.
func formatV2(first uint64, capacity int, payloads ...[]byte) []byte {
	b := append([]byte(segMagic), 2)
	b = binary.LittleEndian.AppendUint64(b, first)
	b = binary.LittleEndian.AppendUint64(b, uint64(capacity))
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
	for i, p := range payloads {
		b = AppendRecord(b, first+uint64(i), p)
	}
	return append(b, make([]byte, capacity-len(b))...)
}

// TestFormat2: a journal the build before the synced marks wrote (format
// 2 segments and its manifest, its last record torn) is read as it is,
// and continues in a format 3 segment: the torn tail of the format 2 one
// is cut (zeroed, its size kept), and the next Open checks all of them.
func TestFormat2(t *testing.T) {
	dir := t.TempDir()
	var recs [][]byte
	for seq := uint64(1); seq <= 8; seq++ {
		recs = append(recs, payload(seq))
	}
	recs = append(recs, bytes.Repeat([]byte("torn"), 400))
	require.NoError(t, os.WriteFile(filepath.Join(dir, segName(1)), formatV2(1, 4096, recs[:5]...), 0o644))
	last := formatV2(6, 4096, recs[5:]...)
	ends := recordEnds(t, last)
	sector := (ends[3]/sectorSize + 1) * sectorSize
	clear(last[sector : sector+sectorSize]) // record 9 torn: a sector never written
	require.NoError(t, os.WriteFile(filepath.Join(dir, segName(6)), last, 0o644))
	rewriteManifest(t, dir, manifest{framed: true, segment: 6, synced: 8})

	j, err := Open(dir, fast(Options{}))
	require.NoError(t, err)
	r := j.Recovery()
	assert.Equal(t, 2, r.Format)
	assert.Equal(t, uint64(8), r.Last)
	assert.Positive(t, r.TornBytes)
	assert.Equal(t, seqs(1, 8), replayAll(t, j))
	appendN(t, j, 3)
	require.NoError(t, j.Close())
	st, err := os.Stat(filepath.Join(dir, segName(6)))
	require.NoError(t, err)
	assert.Equal(t, int64(4096), st.Size(), "the format 2 segment keeps its size")

	j, err = Open(dir, fast(Options{}))
	require.NoError(t, err)
	assert.Equal(t, []string{segName(1), segName(6), segName(9)}, j.Recovery().Segments)
	assert.Equal(t, seqs(1, 11), replayAll(t, j))
	require.NoError(t, j.Close())
	seg := readFile(t, dir, segName(9))
	assert.Equal(t, byte(FormatVersion), seg[8])
}

// formatV1 is a format 1 segment, as an older build wrote it.
func formatV1(first uint64, payloads ...[]byte) []byte {
	b := append([]byte(segMagic), 1)
	b = binary.LittleEndian.AppendUint64(b, first)
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
	for i, p := range payloads {
		b = AppendRecord(b, first+uint64(i), p)
	}
	return b
}

// TestZeroTails: zeros after the records are a format 2 segment's free
// space and a format 1 segment's torn tail. Garbage after a whole sector
// of zeros is a torn write (the sectors of one write reached the disk out
// of order) when nothing good follows; garbage after zeros that fill no
// sector, or after more zeros than one write leaves, is damage, and so is
// a good record after zeros, however long the run.
func TestZeroTails(t *testing.T) {
	v2 := AppendRecord(appendSegmentHeader(nil, 1, 1<<20), 1, []byte("hello"))
	v1 := formatV1(1, []byte("hello"))
	garbage := bytes.Repeat([]byte{0xab}, 100)
	for _, tc := range []struct {
		name  string
		seg   []byte
		zeros int
		after []byte
		want  error // nil: a clean end
	}{
		{"v2 zeros only", v2, 300 << 10, nil, nil},
		{"v2 a zero sector, garbage", v2, 1000, garbage, ErrTornTail},
		{"v2 short zeros, garbage", v2, 100, garbage, berth.ErrCorruptState},
		{"v2 zeros past the scan, garbage", v2, maxTornScan + 1, garbage, berth.ErrCorruptState},
		{"v2 short zeros, a good record", v2, 100, AppendRecord(nil, 2, []byte("lost")), berth.ErrCorruptState},
		{"v2 long zeros, a good record", v2, 300 << 10, AppendRecord(nil, 2, []byte("lost")), berth.ErrCorruptState},
		{"v1 zeros only", v1, 300 << 10, nil, ErrTornTail},
		{"v1 a zero sector, garbage", v1, 1000, garbage, ErrTornTail},
		{"v1 short zeros, garbage", v1, 100, garbage, berth.ErrCorruptState},
		{"v1 zeros, a good record", v1, 300 << 10, AppendRecord(nil, 2, []byte("lost")), berth.ErrCorruptState},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := append(append(bytes.Clone(tc.seg), make([]byte, tc.zeros)...), tc.after...)
			got, err := ReadSegment(bytes.NewReader(b), int64(len(b)), nil)
			assert.Equal(t, uint64(1), got.Count)
			assert.Equal(t, int64(len(tc.seg)), got.Good)
			if tc.want == nil {
				assert.NoError(t, err)
				assert.Equal(t, got.Good, got.Data)
				return
			}
			assert.ErrorIs(t, err, tc.want)
			if tc.want != ErrTornTail {
				assert.NotErrorIs(t, err, ErrTornTail)
			}
		})
	}
}

// TestOneBitOff checks the single-bit detector against flipping every
// bit by brute force, on records of assorted sizes: it finds each flip
// of the payload or the checksum, and no damage that is not one flip.
func TestOneBitOff(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	for _, n := range []int{1, 2, 9, 64, 300} {
		p := make([]byte, n)
		for i := range p {
			p[i] = byte(rng.Uint32())
		}
		rec := AppendRecord(nil, 42, p)
		view := func(b []byte) tornView { return tornView{data: b, pos: 0, end: int64(len(b)), seq: 42} }
		for bit := recHeaderSize * 8 / 2; bit < len(rec)*8; bit++ {
			b := bytes.Clone(rec)
			b[bit/8] ^= 1 << (bit % 8)
			assert.True(t, view(b).oneBitOff(int64(n)), "size %d, bit %d", n, bit)
		}
		for range 50 {
			b := bytes.Clone(rec)
			for _, bit := range rng.Perm(n * 8)[:3] {
				b[recHeaderSize+bit/8] ^= 1 << (bit % 8)
			}
			assert.False(t, view(b).oneBitOff(int64(n)), "size %d: three bits", n)
		}
		for bit := range 32 {
			b := bytes.Clone(rec)
			b[bit/8] ^= 1 << (bit % 8)
			if m := binary.LittleEndian.Uint32(b); m >= 1 && int(m) <= n {
				assert.True(t, view(b).lengthBitOff(), "size %d, length bit %d", n, bit)
			}
		}
	}
}

// TestFormat1: a journal an older build wrote (format 1 segments, no
// manifest, an unframed snapshot) is read as it is: its torn tail is cut
// at any byte, the snapshot reads raw, and new records continue in a
// format 2 segment; the next Open finds a manifest.
func TestFormat1(t *testing.T) {
	src := t.TempDir()
	recs := make([][]byte, 12)
	for i := range recs {
		recs[i] = payload(uint64(i + 1))
	}
	require.NoError(t, os.WriteFile(filepath.Join(src, segName(1)), formatV1(1, recs[:6]...), 0o644))
	last := formatV1(7, recs[6:]...)
	require.NoError(t, os.WriteFile(filepath.Join(src, segName(7)), last, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(src, snapName(3)), []byte("old state@3"), 0o644))
	ends := recordEnds(t, last)
	for _, cut := range []int64{int64(len(last)), ends[len(ends)-1] - 1, ends[3] + 3, ends[1] + 9} {
		dir := withFile(t, src, segName(7), func(b []byte) []byte { return b[:cut] })
		j, err := Open(dir, fast(Options{SegmentBytes: 64 << 10}))
		require.NoError(t, err, "cut at %d", cut)
		r := j.Recovery()
		whole := 0
		for i, e := range ends[1:] {
			if e <= cut {
				whole = i + 1
			}
		}
		assert.Equal(t, 1, r.Format)
		assert.Equal(t, uint64(6+whole), r.Last)
		assert.Equal(t, seqs(4, uint64(6+whole)), replayAll(t, j))
		rc, seq, ok, err := j.OpenSnapshot()
		require.NoError(t, err)
		require.True(t, ok)
		state, err := io.ReadAll(rc)
		rc.Close()
		require.NoError(t, err)
		assert.Equal(t, uint64(3), seq)
		assert.Equal(t, "old state@3", string(state))
		appendN(t, j, 2)
		require.NoError(t, j.Close())

		j, err = Open(dir, fast(Options{}))
		require.NoError(t, err)
		assert.Equal(t, seqs(4, uint64(8+whole)), replayAll(t, j))
		assert.Len(t, j.Recovery().Segments, 3, "two format 1 segments and a format 2 one")
		require.NoError(t, j.Close())
		_, err = os.Stat(filepath.Join(dir, manifestName))
		assert.NoError(t, err)
	}
}
