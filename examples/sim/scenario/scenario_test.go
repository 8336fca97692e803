package scenario

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestDefaultSmoke(t *testing.T) {
	sc, err := Load(Default("capacity"))
	require.NoError(t, err)
	start := time.Now()
	run, err := sc.Run(Options{})
	require.NoError(t, err)
	t.Logf("wall %v events %d end %d unfinished %d replans %d jobs %d", time.Since(start), run.Events, run.End, run.Unfinished, run.Replans, len(run.Jobs))
	acc := 0
	for _, r := range run.Reservations {
		if r.Accepted {
			acc++
		}
	}
	t.Logf("hb %d idle %d skipped %d", run.Heartbeats, run.IdleHeartbeats, run.SkippedHeartbeats)
	t.Logf("reservations %d accepted %d", len(run.Reservations), acc)
}
