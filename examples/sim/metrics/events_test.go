package metrics_test

import (
	"testing"

	"github.com/berthsched/berth/examples/sim/metrics"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEventKindText: kinds are written and read by name; unknown names
// and values are refused.
func TestEventKindText(t *testing.T) {
	for k := metrics.NodeLost; k <= metrics.Stalled; k++ {
		b, err := k.MarshalText()
		require.NoError(t, err)
		var back metrics.EventKind
		require.NoError(t, back.UnmarshalText(b))
		assert.Equal(t, k, back)
		assert.Equal(t, string(b), k.String())
	}
	var k metrics.EventKind
	assert.Error(t, k.UnmarshalText([]byte("exploded")))
	_, err := metrics.EventKind(0).MarshalText()
	assert.Error(t, err)
	assert.Equal(t, "EventKind(200)", metrics.EventKind(200).String())
}
