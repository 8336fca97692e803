package realinputs

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPath: the environment override is looked at first, then the
// directory beside the module root; a file in neither skips the test.
func TestPath(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "sls"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "sls", "x.json"), []byte("{}"), 0o644))
	t.Setenv(Env, dir)
	assert.Equal(t, filepath.Join(dir, "sls", "x.json"), Path(t, "sls", "x.json"))

	skipped := false
	t.Run("absent", func(t *testing.T) {
		defer func() { skipped = t.Skipped() }()
		Path(t, "sls", "no-such-file.json")
		t.Error("Path returned for a missing file")
	})
	assert.True(t, skipped)

	t.Setenv(Env, filepath.Join(dir, "none"))
	root, tried := Root()
	assert.Empty(t, root)
	assert.Equal(t, filepath.Join(dir, "none"), tried)
}
