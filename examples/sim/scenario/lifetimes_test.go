package scenario

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/capacity"
)

// With a default-application-lifetime on every queue, the jobs that ran
// longer than it without one are killed at the first lifetime check past
// their deadline (every 3 s, as YARN's RMAppLifetimeMonitor), and no job
// runs past it.
func TestLifetimesExpireJobs(t *testing.T) {
	base, err := reduced(t, "capacity", 40).Run(Options{NoPreemption: true})
	require.NoError(t, err)
	var took []berth.Duration
	for _, j := range base.Jobs {
		if j.Finished > 0 {
			took = append(took, j.Finished-j.Submitted)
		}
	}
	require.NotEmpty(t, took)
	slices.Sort(took)
	lifetime := max(took[len(took)/2]/1000, 1) // seconds: half the jobs took longer

	sc := reduced(t, "capacity", 40)
	setLifetime(&sc.capCfg.Root, lifetime)
	got, err := sc.Run(Options{NoPreemption: true})
	require.NoError(t, err)
	expired := 0
	for i, j := range got.Jobs {
		if j.Attempts != 1 || j.Reservation != "" {
			// A new attempt is a new application, with its own lifetime;
			// a reservation's job enters the scheduler after its
			// submission, at the reservation's start.
			continue
		}
		deadline := j.Submitted + lifetime*1000
		if j.Expired > 0 {
			expired++
			assert.Zero(t, j.Finished, j.ID)
			assert.Greater(t, j.Expired, deadline, j.ID)
			assert.LessOrEqual(t, j.Expired, deadline+lifetimeMonitorInterval, j.ID)
			assert.True(t, base.Jobs[i].Finished == 0 || base.Jobs[i].Finished > deadline, "%s expired but ran within its lifetime before", j.ID)
			continue
		}
		if j.Finished > 0 {
			assert.LessOrEqual(t, j.Finished, deadline+lifetimeMonitorInterval, j.ID)
		}
	}
	assert.Positive(t, expired)
	t.Logf("lifetime %d s: %d of %d jobs expired", lifetime, expired, len(got.Jobs))
}

func setLifetime(q *capacity.QueueConfig, seconds int64) {
	q.Settings.DefaultAppLifetime = seconds
	for i := range q.Children {
		setLifetime(&q.Children[i], seconds)
	}
}
