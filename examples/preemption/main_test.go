package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRun runs the example and checks the rounds it prints: etl's newest
// containers are marked, killed one kill wait (6 s) later, and analytics
// reaches its 16 GB guarantee in round 16.
func TestRun(t *testing.T) {
	var b strings.Builder
	require.NoError(t, run(&b))
	out := b.String()
	assert.Contains(t, out, "t=10s etl holds 40 GB, analytics 0 GB")
	assert.Contains(t, out, "round  1 t= 10s etl 40 GB (ideal 24, asked 5.0 GB), analytics  0 GB: marked etl-2/40 etl-2/39 etl-2/38 etl-2/37 etl-2/36\n")
	assert.Contains(t, out, "round  3 t= 16s etl 40 GB (ideal 24, asked 5.0 GB), analytics  0 GB: killed etl-2/40 etl-2/39 etl-2/38 etl-2/37 etl-2/36\n")
	assert.Contains(t, out, "round 13 t= 46s etl 25 GB (ideal 24, asked 0.5 GB), analytics 15 GB: marked etl-2/25\n")
	assert.Contains(t, out, "analytics holds its guarantee (16 GB) after 16 rounds")
	assert.NotContains(t, out, "etl-1/", "the latest application gives first")
}
