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
	assert.Contains(t, out, "prod(MB) dev(MB) batch(MB)")
	assert.Contains(t, out, " 10s         0   30720     14336          37")
	assert.Contains(t, out, " 30s     51200       0     14336          28")
}
