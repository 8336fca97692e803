// Package realinputs locates the real inputs (Hadoop's SLS samples, real
// scheduler configurations) that the examples' tests read in place, never
// copied into the repository: <repo root>/../shared/real-inputs, or the
// directory BERTH_REAL_INPUTS names.
package realinputs

import (
	"os"
	"path/filepath"
	"testing"
)

// Env overrides where the real inputs are.
const Env = "BERTH_REAL_INPUTS"

// Path returns the real input at rel (joined path elements below
// real-inputs, e.g. "sls", "nodes.json"), or skips the test with a message
// saying where it looked when the file is absent.
func Path(t testing.TB, rel ...string) string {
	t.Helper()
	root, tried := Root()
	if root == "" {
		t.Skipf("real inputs not found (looked in %s; set %s)", tried, Env)
	}
	p := filepath.Join(append([]string{root}, rel...)...)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("real input %s absent: %v", p, err)
	}
	return p
}

// Root returns the real-inputs directory, or "" and the place it looked:
// $BERTH_REAL_INPUTS, else ../shared/real-inputs beside the module root
// (the first directory up from the working directory with a go.mod).
func Root() (dir, tried string) {
	if d := os.Getenv(Env); d != "" {
		return existing(d), d
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", "the working directory"
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			p := filepath.Join(d, "..", "shared", "real-inputs")
			return existing(p), p
		}
		if filepath.Dir(d) == d {
			return "", "above " + wd + " (no go.mod)"
		}
	}
}

func existing(d string) string {
	if st, err := os.Stat(d); err == nil && st.IsDir() {
		return d
	}
	return ""
}
