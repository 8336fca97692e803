package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRun runs the example and checks where each request landed.
func TestRun(t *testing.T) {
	var b strings.Builder
	require.NoError(t, run(&b))
	out := b.String()
	assert.Contains(t, out, "gang         reservation_1700000000000_0001: accepted for alice")
	assert.Contains(t, out, "alternatives reservation_1700000000000_0003: accepted for carol")
	assert.Contains(t, out, "(errors.Is ErrNoPlacement: true)")
	assert.Contains(t, out, "  180 min |################| 16")
	// The comparison: the portfolio takes etl's larger alternative.
	assert.Contains(t, out, "  AlignedPlannerWithGreedy 4 of 5 accepted, 2040 / 3720 ( 55 %): report, etl, train, backfill")
	assert.Contains(t, out, "  Portfolio                3 of 5 accepted, 2520 / 3720 ( 68 %): report, etl, train")
}
