package capacity

import (
	"os"
	"path/filepath"
	"testing"
)

// realInput locates a file of the shared real inputs (next to the
// repository: <module root>/../shared/real-inputs, or $BERTH_REAL_INPUTS)
// and skips the test when they are absent.
func realInput(t *testing.T, rel ...string) string {
	t.Helper()
	root := os.Getenv("BERTH_REAL_INPUTS")
	if root == "" {
		dir, err := filepath.Abs(".")
		if err != nil {
			t.Fatal(err)
		}
		for ; ; dir = filepath.Dir(dir) {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				break
			}
			if dir == filepath.Dir(dir) {
				t.Skip("real inputs: no go.mod above the package")
			}
		}
		root = filepath.Join(dir, "..", "shared", "real-inputs")
	}
	p := filepath.Join(append([]string{root}, rel...)...)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("real inputs: %s not found (set BERTH_REAL_INPUTS)", p)
	}
	return p
}
