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
	assert.Contains(t, out, "  LeastWaste               3 of 5 accepted, 2520 / 3720 ( 68 %): report, etl, train")
	// The contested plan: YARN's agent takes the spike that strands the
	// middle hour; LeastWaste declines it and takes the hour-long gang.
	assert.Contains(t, out, "  AlignedPlannerWithGreedy 3 of 4 accepted, 2000 / 2840 ( 70 %): morning, evening, spike")
	assert.Contains(t, out, "  LeastWaste               3 of 4 accepted, 2520 / 2840 ( 89 %): morning, evening, hour")
}
