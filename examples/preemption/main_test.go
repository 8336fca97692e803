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

// TestRunFair runs the fair-scheduler story: report is starved for its
// 16 GB fair share once the 2 s timeout passes (round 2), 16 of etl's
// tasks are marked at once, newest first on each node and never an AM,
// killed after the 3 s wait (round 5), and the freed room goes to report
// first: analytics holds its share in round 6.
func TestRunFair(t *testing.T) {
	var b strings.Builder
	require.NoError(t, runFair(&b))
	out := b.String()
	assert.Contains(t, out, "t=1s etl holds 32 GB, analytics 0 GB")
	assert.Contains(t, out, "round  1 t= 2s etl 32 GB, analytics  0 GB: (no starved application)\n")
	assert.Contains(t, out, "round  2 t= 3s etl 32 GB, analytics  0 GB: report starved for 16 GB; marked etl-1/29 etl-1/25 etl-1/21 etl-1/17 etl-1/13 etl-1/9 etl-1/5 etl-2/30 etl-2/26 etl-2/22 etl-2/18 etl-2/14 etl-2/10 etl-2/6 etl-1/31 etl-2/32\n")
	assert.Contains(t, out, "round  5 t= 6s etl 16 GB, analytics  0 GB: killed etl-1/5 ")
	assert.Contains(t, out, "analytics holds its fair share (16 GB) after 6 rounds")
	assert.NotContains(t, out, "etl-1/1 ", "AM containers (the first of each job) are kept")
	assert.NotContains(t, out, "etl-2/2 ")
}
