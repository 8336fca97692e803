package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRun runs the example and checks the allocations it prints over time.
func TestRun(t *testing.T) {
	var b strings.Builder
	require.NoError(t, run(&b))
	out := b.String()
	assert.Contains(t, out, "not modelled: yarn.scheduler.capacity.application.fail-fast")
	assert.Contains(t, out, "did you mean yarn.scheduler.capacity.root.batch.maximum-capacity?")
	assert.Contains(t, out, "alice's applications to \"default\" run in root.prod")
	assert.Contains(t, out, "bob's applications to \"default\" run in root.dev")
	assert.Contains(t, out, "prod(MB) dev(MB) batch(MB)")
	assert.Contains(t, out, " 10s         0   30720     14336          37")
	assert.Contains(t, out, " 30s     51200       0     14336          28")
}
