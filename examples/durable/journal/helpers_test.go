package journal

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// copyDir copies the files of journal directory src into a new one.
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	ents, err := os.ReadDir(src)
	require.NoError(t, err)
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644))
	}
	return dst
}

// withFile copies src and replaces file name in the copy by what change
// makes of its bytes.
func withFile(t *testing.T, src, name string, change func([]byte) []byte) string {
	t.Helper()
	dir := copyDir(t, src)
	path := filepath.Join(dir, name)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, change(b), 0o644))
	return dir
}

func readFile(t *testing.T, dir, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	require.NoError(t, err)
	return b
}

// recordEnds lists where each good record of a segment's bytes ends,
// after the header's end.
func recordEnds(t *testing.T, data []byte) []int64 {
	t.Helper()
	seg, _ := parseSegment(data, nil)
	ends := []int64{int64(headerSize(data[8]))}
	_, err := parseSegment(data, func(_ uint64, off int64, p []byte) error {
		ends = append(ends, off+recHeaderSize+int64(len(p)))
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, seg.Good, ends[len(ends)-1])
	return ends
}

// crash drops j as a killed process would: nothing buffered reaches the
// file, and the kernel releases the descriptors (and the lock).
func crash(j *Journal) {
	if j.f != nil {
		j.f.Close()
	}
	for _, f := range []File{j.lock, j.dirLock} {
		if f != nil {
			f.Close()
		}
	}
}

// noSync is OSFS without fsync: tests that crash only the process (or
// not at all) need not wait for the disk, which on a busy machine takes
// milliseconds a call.
type noSync struct{ OSFS }

func (noSync) SyncDir(string) error { return nil }

func (n noSync) OpenFile(name string, flag int, perm fs.FileMode) (File, error) {
	f, err := n.OSFS.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	return noSyncFile{f}, nil
}

type noSyncFile struct{ File }

func (noSyncFile) Sync() error { return nil }

// fast is o on the file system without fsync, in 64 KiB segments unless
// o says otherwise (a default 64 MiB segment takes a while to allocate
// and to read back on a busy machine).
func fast(o Options) Options {
	o.FS = noSync{}
	if o.SegmentBytes == 0 {
		o.SegmentBytes = 64 << 10
	}
	return o
}
