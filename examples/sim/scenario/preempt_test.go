package scenario

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/examples/sim/metrics"
	"github.com/berthsched/berth/examples/sim/trace"
	"github.com/berthsched/berth/queue"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The default scenario's preemption story: research's burst fills the idle
// cluster from 15:00 with long tasks; at 16:30 analytics' dashboard
// refreshes ask for far more than analytics' guarantee.
const dashboardsStart = berth.Time(16*3_600_000 + 1_800_000)

// preemptionScenario is the default scenario shortened to the jobs that
// arrive from 15:00 and a run that stops half an hour after the
// dashboards start: the story needs nothing else (analytics recovers in
// minutes with preemption), and six runs of the whole day would take
// minutes under the race detector.
func preemptionScenario(t *testing.T, scheduler string) *Scenario {
	t.Helper()
	sc, err := Load(Default(scheduler))
	require.NoError(t, err)
	require.True(t, sc.Preemption, "the default scenario turns preemption on")
	var keep []trace.Job
	for _, j := range sc.Jobs {
		if j.Start >= 15*3_600_000 {
			keep = append(keep, j)
		}
	}
	sc.Jobs = keep
	sc.in.End = dashboardsStart + 1_800_000
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
	daySimulation(t)
	t.Parallel()
	for _, sched := range []string{"capacity", "fair"} {
		t.Run(sched, func(t *testing.T) {
			t.Parallel()
			testDefaultPreemption(t, sched)
		})
	}
}

func testDefaultPreemption(t *testing.T, scheduler string) {
	const deadZone = 0.1
	sc := preemptionScenario(t, scheduler)
	with, err := sc.Run(Options{})
	require.NoError(t, err)
	without, err := sc.Run(Options{NoPreemption: true})
	require.NoError(t, err)
	// Preemption keeps the run deterministic: a second run gives the same
	// bytes in every output.
	again, err := sc.Run(Options{})
	require.NoError(t, err)
	assert.True(t, bytes.Equal(render(t, with), render(t, again)), "two runs with preemption differ")

	ana, res := queueIndex(t, with, "root.analytics"), queueIndex(t, with, "root.research")
	s0, r0, at := recovery(t, with, "root.analytics", dashboardsStart, deadZone)
	require.Positive(t, s0, "analytics is never starved below its guarantee")
	require.Positive(t, r0, "analytics never recovers its guarantee with preemption")
	// Research was over its guarantee when analytics was starved, and
	// preemption killed research's containers before analytics recovered.
	// before is half an hour before the dashboards: analytics' interactive
	// queries may already have been starved a little (under the fair
	// scheduler each application has its own share) and preempted for.
	var atStarve, before metrics.Sample
	for _, s := range with.Samples {
		if s.Time == s0 {
			atStarve = s
		}
		if s.Time == dashboardsStart-1_800_000 {
			before = s
		}
	}
	require.NotZero(t, before.Time)
	assert.Greater(t, atStarve.Queues[res].Used.Memory, atStarve.Queues[res].Guaranteed.Memory, "research over-uses")
	rec := with.Samples[at]
	assert.Greater(t, rec.Queues[res].Preempted, before.Queues[res].Preempted, "research's containers were preempted")
	assert.Greater(t, rec.Queues[res].Marked, before.Queues[res].Marked, "research's containers were marked first")
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
	t.Logf("analytics starved at %d ms; recovered %d ms later with preemption, %d ms later without (0: not by the run's end at %d ms)", s0, r0-s0, max(r1-s1, 0), last.Time)
	// Without preemption analytics waits for research's tasks to end: it
	// recovers more than twice as late, or not before the run ends (which
	// must then be that long after it starved).
	if r1 > 0 {
		assert.Greater(t, r1-s1, 2*(r0-s0), "preemption should recover the guarantee much sooner")
	} else {
		assert.Greater(t, last.Time-s1, 2*(r0-s0), "the run ends too soon to compare the recoveries")
	}
}

// TestStrictConfig: both schedulers' configuration reports reach the
// scenario; strict mode refuses a file with an unknown key, naming the
// file, and the report is kept in the error.
func TestStrictConfig(t *testing.T) {
	cases := []struct {
		scheduler, from, to, key string
	}{
		{"capacity", "</configuration>", `<property><name>yarn.scheduler.capacity.root.prod.maximum-capacityy</name><value>50</value></property></configuration>`,
			"yarn.scheduler.capacity.root.prod.maximum-capacityy"},
		{"fair", "<weight>25</weight>", "<weight>25</weight><wieght>3</wieght>", "wieght"},
	}
	for _, c := range cases {
		t.Run(c.scheduler, func(t *testing.T) {
			in := Default(c.scheduler)
			in.SchedulerConf.Data = []byte(strings.Replace(string(in.SchedulerConf.Data), c.from, c.to, 1))
			sc, err := Load(in)
			require.NoError(t, err)
			require.False(t, sc.ConfigReport.Clean())
			notes := sc.ConfigReport.Of(queue.NoteUnknown)
			require.Len(t, notes, 1)
			assert.Contains(t, notes[0].Key, c.key)
			assert.NotEmpty(t, notes[0].Suggestion)
			require.NotEmpty(t, sc.ConfigNotes())
			assert.Equal(t, "unknown", sc.ConfigNotes()[0].Kind)

			in.StrictConfig = true
			_, err = Load(in)
			require.Error(t, err)
			assert.ErrorIs(t, err, berth.ErrInvalidArgument)
			var ie *InputError
			require.ErrorAs(t, err, &ie)
			assert.Equal(t, in.SchedulerConf.Name, ie.File)
			var re *queue.ConfigReportError
			require.ErrorAs(t, err, &re)
			assert.Len(t, re.Report.Of(queue.NoteUnknown), 1)
		})
	}
}

// TestPreemptionSwitch: preemption follows the configuration as in YARN —
// the monitor switch for the capacity scheduler, yarn.scheduler.fair.preemption
// for the fair scheduler — and the policy's keys are read from the site and
// capacity-scheduler.xml, the latter winning.
func TestPreemptionSwitch(t *testing.T) {
	site := func(props string) []File {
		return []File{{Name: "site.xml", Data: []byte("<configuration>" + props + "</configuration>")}}
	}
	prop := func(k, v string) string { return "<property><name>" + k + "</name><value>" + v + "</value></property>" }
	t.Run("capacity off", func(t *testing.T) {
		in := Default("capacity")
		in.Sites = site(prop(KeyMonitorEnable, "false"))
		sc, err := Load(in)
		require.NoError(t, err)
		assert.False(t, sc.Preemption)
	})
	t.Run("capacity keys", func(t *testing.T) {
		in := Default("capacity")
		in.Sites = site(prop(KeyMonitorEnable, "true") + prop(KeyPreemptInterval, "5000") +
			prop("yarn.resourcemanager.monitor.capacity.preemption.max_wait_before_kill", "1000"))
		in.SchedulerConf.Data = []byte(strings.Replace(string(in.SchedulerConf.Data), "</configuration>",
			prop("yarn.resourcemanager.monitor.capacity.preemption.max_wait_before_kill", "2000")+"</configuration>", 1))
		sc, err := Load(in)
		require.NoError(t, err)
		assert.True(t, sc.Preemption)
		assert.Equal(t, berth.Duration(5000), sc.PreemptInterval)
		assert.Equal(t, berth.Duration(2000), sc.capPreempt.MaxWaitBeforeKill, "capacity-scheduler.xml overrides the site")
	})
	t.Run("capacity other policy", func(t *testing.T) {
		in := Default("capacity")
		in.Sites = site(prop(KeyMonitorEnable, "true") + prop(KeyMonitorPolicies, "org.example.MyPolicy"))
		_, err := Load(in)
		var ie *InputError
		require.ErrorAs(t, err, &ie)
		assert.Equal(t, KeyMonitorPolicies, ie.Field)
	})
	t.Run("capacity bad value", func(t *testing.T) {
		in := Default("capacity")
		in.Sites = site(prop(KeyMonitorEnable, "true") + prop("yarn.resourcemanager.monitor.capacity.preemption.natural_termination_factor", "-1"))
		_, err := Load(in)
		require.Error(t, err)
		assert.ErrorIs(t, err, berth.ErrInvalidArgument)
		assert.Contains(t, err.Error(), "natural_termination_factor")
	})
	t.Run("fair", func(t *testing.T) {
		for _, on := range []bool{false, true} {
			in := Default("fair")
			in.Sites = site(prop(KeyMonitorEnable, "true") + prop("yarn.scheduler.fair.preemption", strconv.FormatBool(on)))
			sc, err := Load(in)
			require.NoError(t, err)
			assert.Equal(t, on, sc.Preemption, "the monitor switch plays no part under the fair scheduler")
			assert.Equal(t, berth.Duration(500), sc.PreemptInterval, "rounds at the fair update interval")
			e, err := sc.Engine(Options{})
			require.NoError(t, err)
			require.NotNil(t, e)
		}
	})
}
