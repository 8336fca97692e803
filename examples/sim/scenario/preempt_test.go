package scenario

import (
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/examples/sim/metrics"
	"github.com/berthsched/berth/examples/sim/trace"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The default scenario's preemption story: research's burst fills the idle
// cluster from 10:00 with long tasks; at 11:00 analytics' dashboard
// refreshes ask for far more than analytics' guarantee.
const (
	dashboardsStart = berth.Time(11 * 3_600_000)
	dashboardsEnd   = berth.Time(13 * 3_600_000)
)

// preemptionScenario is the default scenario, shortened under the race
// detector to the jobs that arrive from 9:00 and a run that stops at 13:00
// (the story needs nothing else).
func preemptionScenario(t *testing.T, scheduler string) *Scenario {
	t.Helper()
	sc, err := Load(Default(scheduler))
	require.NoError(t, err)
	require.True(t, sc.Preemption, "the default scenario turns preemption on")
	if raceEnabled {
		var keep []trace.Job
		for _, j := range sc.Jobs {
			if j.Start >= 9*3_600_000 {
				keep = append(keep, j)
			}
		}
		sc.Jobs = keep
		sc.in.End = dashboardsEnd
	}
	return sc
}

// recovery follows one queue through a run: from the first sample at or
// after from where its demand (used + pending) reaches its guarantee while
// its usage is below it (starved), to the first sample where its usage
// reaches the guarantee less slack. It returns the two times (recovered 0
// when it never does) and the samples' index of the recovery.
func recovery(t *testing.T, r *metrics.Run, q string, from berth.Time, slack float64) (starved, recovered berth.Time, at int) {
	t.Helper()
	qi := -1
	for i, name := range r.Queues {
		if name == q {
			qi = i
		}
	}
	require.GreaterOrEqual(t, qi, 0, q)
	for i, s := range r.Samples {
		if s.Time < from {
			continue
		}
		qs := s.Queues[qi]
		g := float64(qs.Guaranteed.Memory)
		switch {
		case starved == 0 && qs.Used.Memory < qs.Guaranteed.Memory && qs.Used.Add(qs.Pending).Memory >= qs.Guaranteed.Memory:
			starved = s.Time
		case starved > 0 && float64(qs.Used.Memory) >= g*(1-slack):
			return starved, s.Time, i
		}
	}
	return starved, 0, -1
}

func queueIndex(t *testing.T, r *metrics.Run, q string) int {
	t.Helper()
	for i, name := range r.Queues {
		if name == q {
			return i
		}
	}
	require.Failf(t, "no queue", q)
	return -1
}

// TestDefaultPreemption is issue 10's end-to-end check of preemption: in
// the default scenario analytics is starved below its guarantee by
// research's over-use, and recovers its guarantee (within YARN's dead
// zone, max_ignored_over_capacity = 0.1) after preemption rounds killed
// research's containers; without preemption it takes much longer. Under
// the fair scheduler the guarantee is the queue's instantaneous fair
// share (its minimum share guarded by minSharePreemptionTimeout).
func TestDefaultPreemption(t *testing.T) {
	for _, sched := range []string{"capacity", "fair"} {
		t.Run(sched, func(t *testing.T) { testDefaultPreemption(t, sched) })
	}
}

func testDefaultPreemption(t *testing.T, scheduler string) {
	const deadZone = 0.1
	sc := preemptionScenario(t, scheduler)
	with, err := sc.Run(Options{})
	require.NoError(t, err)
	without, err := sc.Run(Options{NoPreemption: true})
	require.NoError(t, err)

	ana, res := queueIndex(t, with, "root.analytics"), queueIndex(t, with, "root.research")
	s0, r0, at := recovery(t, with, "root.analytics", dashboardsStart, deadZone)
	require.Positive(t, s0, "analytics is never starved below its guarantee")
	require.Positive(t, r0, "analytics never recovers its guarantee with preemption")
	// Research was over its guarantee when analytics was starved, and
	// preemption killed research's containers before analytics recovered.
	var atStarve metrics.Sample
	for _, s := range with.Samples {
		if s.Time == s0 {
			atStarve = s
		}
	}
	assert.Greater(t, atStarve.Queues[res].Used.Memory, atStarve.Queues[res].Guaranteed.Memory, "research over-uses")
	rec := with.Samples[at]
	assert.Greater(t, rec.Queues[res].Preempted, atStarve.Queues[res].Preempted, "research's containers were preempted")
	assert.Greater(t, rec.Queues[res].Marked, atStarve.Queues[res].Marked, "research's containers were marked first")
	if scheduler == "capacity" {
		// The proportional policy takes only from queues over their
		// guarantee (intra-queue preemption is off). Fair preemption
		// serves applications and may take from an analytics application
		// above its own fair share for a starved one, as YARN's does.
		assert.Equal(t, rec.Queues[ana].Preempted, atStarve.Queues[ana].Preempted, "nothing taken from analytics while it recovered")
	}

	s1, r1, _ := recovery(t, without, "root.analytics", dashboardsStart, deadZone)
	require.Positive(t, s1)
	last := without.Samples[len(without.Samples)-1]
	assert.Zero(t, last.Preempted, "no preemption without the policy")
	assert.Zero(t, last.Queues[res].Marked)
	t.Logf("analytics starved at %d ms; recovered %d ms later with preemption, %d ms later without (0: never)", s0, r0-s0, max(r1-s1, 0))
	if r1 > 0 {
		assert.Greater(t, r1-s1, 2*(r0-s0), "preemption should recover the guarantee much sooner")
	}
}
