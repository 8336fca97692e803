package journal

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/berthsched/berth"
)

// TestSnapshotDamage flips every bit of a snapshot file, and cuts it:
// reading it to its end reports corruption naming the file, whatever the
// host's format would have made of the bytes; the intact file reads back
// what the host wrote.
func TestSnapshotDamage(t *testing.T) {
	dir := t.TempDir()
	j, err := Open(dir, fast(Options{SegmentBytes: 4 << 10}))
	require.NoError(t, err)
	appendN(t, j, 5)
	body := bytes.Repeat([]byte("host state "), 30)
	require.NoError(t, j.WriteSnapshot(5, func(w io.Writer) error { _, err := w.Write(body); return err }))
	name := snapName(5)
	path := filepath.Join(dir, name)
	read := func() ([]byte, error) {
		rc, _, ok, err := j.OpenSnapshot()
		if err != nil {
			return nil, err
		}
		require.True(t, ok)
		defer rc.Close()
		return io.ReadAll(rc)
	}
	got, err := read()
	require.NoError(t, err)
	assert.Equal(t, body, got)

	size := int64(len(readFile(t, dir, name)))
	for pos := range size {
		for _, bit := range []int{0, 5} {
			flipBit(t, path, pos, bit)
			_, err := read()
			flipBit(t, path, pos, bit)
			require.Error(t, err, "bit %d of byte %d", bit, pos)
			assert.ErrorIs(t, err, berth.ErrCorruptState, "bit %d of byte %d", bit, pos)
			assert.Contains(t, err.Error(), name)
		}
	}
	full := readFile(t, dir, name)
	for _, cut := range []int{0, 5, snapHeaderSize, len(full) / 2, len(full) - 1} {
		require.NoError(t, os.WriteFile(path, full[:cut], 0o644))
		_, err := read()
		assert.ErrorIs(t, err, berth.ErrCorruptState, "cut at %d", cut)
	}
	require.NoError(t, j.Close())
}
