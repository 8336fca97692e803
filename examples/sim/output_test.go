package main

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tree reads a directory tree: path → content ("<dir>" for directories,
// "-> target" for symbolic links).
func readTree(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		switch {
		case d.IsDir():
			out[rel] = "<dir>"
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			out[rel] = "-> " + target
			return err
		default:
			b, err := os.ReadFile(p)
			out[rel] = string(b)
			return err
		}
		return nil
	}))
	return out
}

// failing returns file operations whose n-th call (counting every call of
// every kind from 1) fails, and the count of calls; 0 fails none.
func failing(n int) (fileOps, *int) {
	calls := 0
	boom := errors.New("injected failure")
	fail := func() bool { calls++; return calls == n }
	return fileOps{
		writeFile: func(name string, data []byte) error {
			if fail() {
				return boom
			}
			return osOps.writeFile(name, data)
		},
		link: func(a, b string) error {
			if fail() {
				return boom
			}
			return osOps.link(a, b)
		},
		rename: func(a, b string) error {
			if fail() {
				return boom
			}
			return osOps.rename(a, b)
		},
	}, &calls
}

// TestReplaceDirAllOrNothing: whichever file operation fails while the
// outputs are written, the output directory is left exactly as it was
// (the old run's files, the user's own files and directories) and no
// temporary directory remains; when none fails, the new run's files
// replace the old ones and the user's files are kept.
func TestReplaceDirAllOrNothing(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "out")
	old := map[string][]byte{"jobruntime.csv": []byte("old runtime"), "jobs.csv": []byte("old jobs"), "report.html": []byte("old report")}
	require.NoError(t, osOps.replaceDir(dir, old, io.Discard))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "metrics", "sub"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "metrics", "sub", "realtimetrack.json"), []byte("sls"), 0o644))
	require.NoError(t, os.Symlink("notes.txt", filepath.Join(dir, "link")))
	before := readTree(t, dir)

	next := map[string][]byte{"jobruntime.csv": []byte("new runtime"), "jobs.csv": []byte("new jobs"),
		"report.html": []byte("new report"), "cluster.csv": []byte("new cluster")}
	// Count the operations of a replacement of dir, on a copy.
	cp := filepath.Join(parent, "copy")
	require.NoError(t, os.CopyFS(cp, os.DirFS(dir)))
	ops, calls := failing(0)
	require.NoError(t, ops.replaceDir(cp, next, io.Discard))
	total := *calls
	require.NoError(t, os.RemoveAll(cp))
	require.Greater(t, total, len(next)+2, "writes, links and two renames")

	for n := 1; n <= total; n++ {
		ops, _ := failing(n)
		err := ops.replaceDir(dir, next, io.Discard)
		require.Error(t, err, "failure at step %d", n)
		assert.Equal(t, before, readTree(t, dir), "failure at step %d changed the directory", n)
		entries, err := os.ReadDir(parent)
		require.NoError(t, err)
		require.Len(t, entries, 1, "failure at step %d left %v", n, entries)
	}

	require.NoError(t, osOps.replaceDir(dir, next, io.Discard))
	after := readTree(t, dir)
	for name, data := range next {
		assert.Equal(t, string(data), after[name], name)
	}
	for _, kept := range []string{"notes.txt", "metrics", filepath.Join("metrics", "sub", "realtimetrack.json"), "link"} {
		assert.Equal(t, before[kept], after[kept], kept)
	}
	entries, err := os.ReadDir(parent)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "no temporary or old directory left")
}

// TestReplaceDirNotADirectory: an output path that is a file is refused
// and left alone.
func TestReplaceDirNotADirectory(t *testing.T) {
	p := filepath.Join(t.TempDir(), "out")
	require.NoError(t, os.WriteFile(p, []byte("x"), 0o644))
	err := osOps.replaceDir(p, map[string][]byte{"a": []byte("b")}, io.Discard)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not a directory")
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	assert.Equal(t, "x", string(b))
}
