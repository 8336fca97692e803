package fair

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

// realConfigs locates ../shared/real-inputs/configs beside the module
// root (or below $BERTH_REAL_INPUTS) and skips the test when absent.
func realConfigs(t *testing.T) string {
	t.Helper()
	root := os.Getenv("BERTH_REAL_INPUTS")
	if root == "" {
		wd, err := os.Getwd()
		require.NoError(t, err)
		for d := wd; ; d = filepath.Dir(d) {
			if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
				root = filepath.Join(d, "..", "shared", "real-inputs")
				break
			}
			if filepath.Dir(d) == d {
				t.Skipf("real inputs not found: no go.mod above %s", wd)
			}
		}
	}
	dir := filepath.Join(root, "configs")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("real inputs not found at %s (set BERTH_REAL_INPUTS)", dir)
	}
	return dir
}

// Every fair-scheduler allocation file of the real inputs loads and
// builds a scheduler, reporting no key it does not model, except those
// YARN refuses too, which are refused naming the element YARN names.
func TestRealFairConfigs(t *testing.T) {
	dir := realConfigs(t)
	files, err := filepath.Glob(filepath.Join(dir, "*.xml"))
	require.NoError(t, err)
	refused := map[string]string{
		// YARN's QueuePlacementPolicy: a terminal rule before others.
		"cdh-cm-orig.xml":   "queuePlacementPolicy",
		"cdh-cm-users2.xml": "queuePlacementPolicy",
		// YARN's AllocationFileQueueParser: maxAMShare on a parent.
		"fairscheduler-doc-example.xml": "queue[root.sample_queue].maxAMShare",
	}
	seen := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		if !strings.Contains(string(data), "<allocations") {
			continue // a capacity-scheduler or yarn-site file
		}
		seen++
		name := filepath.Base(f)
		t.Run(name, func(t *testing.T) {
			af, rep, err := ParseAllocationFileReport(data, ParseOptions{})
			if field, ok := refused[name]; ok {
				var fe *berth.FieldError
				require.ErrorAs(t, err, &fe)
				assert.Equal(t, field, fe.Field)
				return
			}
			require.NoError(t, err)
			assert.Empty(t, rep.Of(queue.NoteNotModelled), rep.String())
			cfg := DefaultConfig()
			cfg.Allocation = af
			cfg.Clock = berth.NewManualClock(0)
			_, err = New(cfg)
			require.NoError(t, err)
		})
	}
	assert.Equal(t, 9, seen, "the README's 9 fair-scheduler files")
}
