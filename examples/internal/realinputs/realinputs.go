package realinputs

import (
	"os"
	"path/filepath"
	"testing"
)

// Env overrides where the real inputs are (the directory holding sls/ and
// configs/).
const Env = "BERTH_REAL_INPUTS"

// Path returns the real input at rel (path elements under the real inputs'
// directory): $BERTH_REAL_INPUTS/rel when set, else
// <module root>/../shared/real-inputs/rel, the module root being the
// nearest directory above the working directory with Berth's go.mod. It
// skips the test, saying where it looked, when the file is absent.
func Path(t testing.TB, rel ...string) string {
	t.Helper()
	var tried []string
	if dir := os.Getenv(Env); dir != "" {
		p := filepath.Join(append([]string{dir}, rel...)...)
		if _, err := os.Stat(p); err == nil {
			return p
		}
		tried = append(tried, p)
	}
	if root, ok := moduleRoot(); ok {
		p := filepath.Join(append([]string{root, "..", "shared", "real-inputs"}, rel...)...)
		if _, err := os.Stat(p); err == nil {
			return p
		}
		tried = append(tried, p)
	}
	t.Skipf("real input %s not found (looked at %v; set %s to the real-inputs directory)", filepath.Join(rel...), tried, Env)
	return ""
}

// moduleRoot walks up from the working directory to Berth's go.mod.
func moduleRoot() (string, bool) {
	dir, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && isBerth(b) {
			return dir, true
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", false
		}
		dir = up
	}
}

func isBerth(gomod []byte) bool {
	const module = "module github.com/berthsched/berth\n"
	return len(gomod) >= len(module) && string(gomod[:len(module)]) == module
}
