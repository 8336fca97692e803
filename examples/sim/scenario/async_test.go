package scenario

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// With schedule-asynchronously.enable the simulator allocates in
// scheduling rounds at the configured interval (heartbeats only report
// completions): the reduced default scenario runs to the same jobs
// finished as with heartbeats, every container in a round.
func TestAsyncSchedulingRuns(t *testing.T) {
	sync := reduced(t, "capacity", 40)
	want, err := sync.Run(Options{NoPreemption: true})
	require.NoError(t, err)

	async := reduced(t, "capacity", 40)
	async.capCfg.Async.Enabled = true
	async.capCfg.Async.Interval = 50
	got, err := async.Run(Options{NoPreemption: true})
	require.NoError(t, err)
	require.Equal(t, len(want.Jobs), len(got.Jobs))
	var fw, fg int
	for i := range want.Jobs {
		if want.Jobs[i].Finished > 0 {
			fw++
		}
		if got.Jobs[i].Finished > 0 {
			fg++
		}
	}
	assert.Positive(t, fg)
	assert.Equal(t, fw, fg, "the same jobs finish")
	assert.NotEqual(t, want.Events, got.Events, "the rounds are events of their own")
}
