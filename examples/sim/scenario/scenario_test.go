package scenario

import (
	"bytes"
	"errors"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/examples/sim/metrics"
	"github.com/berthsched/berth/examples/sim/report"
	"github.com/berthsched/berth/examples/sim/trace"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// reduced loads the default scenario keeping one job in every, at a
// fraction of the cost (the same cluster, queues, plan and node failure).
func reduced(t testing.TB, scheduler string, every int) *Scenario {
	t.Helper()
	sc, err := Load(Default(scheduler))
	require.NoError(t, err)
	var keep []trace.Job
	for i, j := range sc.Jobs {
		if i%every == 0 {
			keep = append(keep, j)
		}
	}
	sc.Jobs = keep
	return sc
}

func render(t testing.TB, r *metrics.Run) []byte {
	t.Helper()
	var b bytes.Buffer
	for _, w := range []func(*bytes.Buffer, *metrics.Run) error{
		func(b *bytes.Buffer, r *metrics.Run) error { return metrics.WriteJobRuntime(b, r) },
		func(b *bytes.Buffer, r *metrics.Run) error { return metrics.WriteJobs(b, r) },
		func(b *bytes.Buffer, r *metrics.Run) error { return metrics.WriteCluster(b, r) },
		func(b *bytes.Buffer, r *metrics.Run) error { return metrics.WriteQueues(b, r) },
		func(b *bytes.Buffer, r *metrics.Run) error { return metrics.WriteReservations(b, r) },
		func(b *bytes.Buffer, r *metrics.Run) error { return report.Write(b, r, "t") },
	} {
		require.NoError(t, w(&b, r))
	}
	return b.Bytes()
}

// TestDeterminism runs the same scenario twice: the outputs are the same
// bytes.
func TestDeterminism(t *testing.T) {
	daySimulation(t)
	t.Parallel()
	sc := reduced(t, "capacity", 16)
	a, err := sc.Run(Options{})
	require.NoError(t, err)
	b, err := sc.Run(Options{})
	require.NoError(t, err)
	ra, rb := render(t, a), render(t, b)
	assert.Equal(t, len(ra), len(rb))
	assert.True(t, bytes.Equal(ra, rb), "two runs differ")
	assert.Equal(t, a.Events, b.Events)
}

// TestDefaultReservations is the end-to-end check of the default scenario:
// deadline jobs reserve through the plan, the rack failure at noon makes
// the replanner remove reservations, and every job whose reservation
// stands runs inside its window [arrival, deadline], unless the failure
// took its containers (a few jobs whose AM ran on the failed racks).
//
// Every deadline job runs, with one in four of the others (the load the
// reservations share the cluster with); the afternoon's jobs (research's
// burst and the dashboards, from 15:00, after every deadline job's
// window) are left out: TestDefaultPreemption covers them.
func TestDefaultReservations(t *testing.T) {
	daySimulation(t)
	t.Parallel()
	sc, err := Load(Default("capacity"))
	require.NoError(t, err)
	var keep []trace.Job
	for i, j := range sc.Jobs {
		if j.Start < 15*3_600_000 && (j.Deadline > 0 || i%4 == 0) {
			keep = append(keep, j)
		}
	}
	sc.Jobs = keep
	run, err := sc.Run(Options{})
	require.NoError(t, err)
	assert.Zero(t, run.Unfinished)
	jobs := map[string]*metrics.Job{}
	for i := range run.Jobs {
		jobs[run.Jobs[i].ID] = &run.Jobs[i]
	}
	// The planner places a job's last stage right before its deadline, and
	// each stage's containers start at the node heartbeats after it
	// begins while task times are in ms: a job may end up to a heartbeat
	// per stage (maps, reduces) after its deadline.
	slack := 2 * sc.Heartbeat
	accepted, removed, inWindow, hit := 0, 0, 0, 0
	var longest berth.Duration
	for _, v := range run.Reservations {
		if !v.Accepted {
			continue
		}
		accepted++
		assert.GreaterOrEqual(t, v.Start, v.Arrival, v.ID)
		assert.LessOrEqual(t, v.End, v.Deadline, v.ID)
		if v.Removed > 0 {
			removed++
			assert.GreaterOrEqual(t, v.Removed, berth.Time(43_200_000), "removed only after the failure")
			continue
		}
		j := jobs[v.Job]
		require.NotNil(t, j, v.Job)
		assert.Equal(t, v.ID, j.Reservation)
		assert.GreaterOrEqual(t, j.FirstTask, v.Arrival, v.Job)
		// Submitted at its trace start (within a heartbeat), with the
		// reservation's id, as SLS's AM submits: the time until the
		// reservation starts counts as the job's wait.
		assert.GreaterOrEqual(t, j.Submitted, v.Arrival, v.Job)
		assert.Less(t, j.Submitted, v.Arrival+1000, v.Job)
		assert.GreaterOrEqual(t, j.Wait(), v.Start-j.Submitted, v.Job)
		longest = max(longest, j.Wait())
		if j.Lost > 0 {
			// Its reservation stood, but the failed racks ended some of
			// its containers: they run again, possibly past the deadline.
			hit++
			continue
		}
		if assert.Positive(t, j.Finished, v.Job) && assert.LessOrEqual(t, j.Finished, v.Deadline+slack, v.Job) {
			inWindow++
		}
	}
	assert.Greater(t, accepted, 100)
	assert.Positive(t, removed, "the rack failure should make the replanner remove reservations")
	assert.Positive(t, run.Replans)
	assert.Less(t, hit, accepted/10, "few standing reservations lose containers")
	assert.Greater(t, longest, berth.Duration(60_000), "some jobs wait minutes for their reservation")
	assert.Equal(t, accepted-removed-hit, inWindow)
	// The plan never holds more than its capacity once the follower ran.
	for _, s := range run.Samples {
		for k := range run.Plans {
			assert.LessOrEqual(t, s.PlanCommitted[k].Memory, s.PlanCapacity[k].Memory, "t=%d", s.Time)
		}
	}
	// The failure took three racks of 20 nodes for two hours.
	for _, s := range run.Samples {
		switch {
		case s.Time > 43_200_000 && s.Time < 50_400_000:
			assert.Equal(t, 240, s.Nodes)
		case s.Time < 43_200_000:
			assert.Equal(t, 300, s.Nodes)
		}
	}
}

// TestFairScheduler runs the same scenario under the fair scheduler with
// its allocation file: no branch in the engine, reservations accepted.
func TestFairScheduler(t *testing.T) {
	daySimulation(t)
	t.Parallel()
	sc := reduced(t, "fair", 16)
	run, err := sc.Run(Options{})
	require.NoError(t, err)
	assert.Equal(t, "fair", run.Scheduler)
	assert.Zero(t, run.Unfinished)
	acc := 0
	for _, v := range run.Reservations {
		if v.Accepted {
			acc++
		}
	}
	assert.Positive(t, acc)
	assert.Contains(t, run.Queues, "root.dedicated")
	// The plan is sized by the scheduler (its steady fair share, vcores
	// included) and follows the cluster: while three racks are down the
	// other queues' minimum shares take the whole smaller cluster, so the
	// plan has nothing and holds nothing.
	require.Len(t, run.Plans, 1)
	var before, during []berth.Resource
	for _, s := range run.Samples {
		switch {
		case s.Time > 43_200_000+60_000 && s.Time < 50_400_000:
			during = append(during, s.PlanCapacity[0])
			assert.Zero(t, s.PlanCommitted[0].Memory, "t=%d", s.Time)
		case s.Time < 43_200_000:
			before = append(before, s.PlanCapacity[0])
		}
	}
	require.NotEmpty(t, before)
	require.NotEmpty(t, during)
	assert.Equal(t, berth.New(1872458, 914), before[len(before)-1], "20/100 of the cluster, vcores in proportion")
	assert.True(t, during[len(during)-1].IsZero(), "%v", during[len(during)-1])
}

func TestLoadErrors(t *testing.T) {
	good := Default("capacity")
	with := func(f func(in *Inputs)) Inputs {
		in := good
		f(&in)
		return in
	}
	site := func(body string) []File {
		return []File{{Name: "site.xml", Data: []byte("<configuration><property><name>" + body + "</property></configuration>")}}
	}
	cases := []struct {
		name, file, field string
		in                Inputs
	}{
		{"scheduler", "flags", "scheduler", with(func(in *Inputs) { in.Scheduler = "fifo" })},
		{"trace type", "flags", "tracetype", with(func(in *Inputs) { in.TraceType = "CSV" })},
		{"no trace", "flags", "tracelocation", with(func(in *Inputs) { in.Traces = nil })},
		{"negative end", "flags", "end-ms", with(func(in *Inputs) { in.End = -1 })},
		{"site value", "site.xml", KeyNMHeartbeat, with(func(in *Inputs) { in.Sites = site(KeyNMHeartbeat + "</name><value>-5</value>") })},
		{"site bool", "site.xml", KeyReservationEnable, with(func(in *Inputs) { in.Sites = site(KeyReservationEnable + "</name><value>yes</value>") })},
		{"site xml", "site.xml", "", with(func(in *Inputs) { in.Sites = []File{{Name: "site.xml", Data: []byte("<configuration><property>")}} })},
		{"capacity xml", "default/capacity-scheduler.xml", "", with(func(in *Inputs) {
			in.SchedulerConf.Data = []byte(`<configuration><property><name>yarn.scheduler.capacity.root.queues</name><value>a</value></property><property><name>yarn.scheduler.capacity.root.a.capacity</name><value>150</value></property></configuration>`)
		})},
		{"duplicate job id", "again.json", "job id", with(func(in *Inputs) {
			in.Traces = []File{good.Traces[0], {Name: "again.json", Data: good.Traces[0].Data}}
		})},
		{"node event node", "ev.json", "[0].node", with(func(in *Inputs) {
			in.NodeEvents = &File{Name: "ev.json", Data: []byte(`[{"time.ms": 5, "node": "nope", "state": "down"}]`)}
		})},
		{"node event state", "ev.json", "[0].state", with(func(in *Inputs) {
			in.NodeEvents = &File{Name: "ev.json", Data: []byte(`[{"time.ms": 5, "node": "node1", "state": "gone"}]`)}
		})},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Load(c.in)
			require.Error(t, err)
			assert.ErrorIs(t, err, berth.ErrInvalidArgument)
			var ie *InputError
			require.True(t, errors.As(err, &ie), "%T: %v", err, err)
			assert.Equal(t, c.file, ie.File)
			assert.Equal(t, c.field, ie.Field)
		})
	}
	t.Run("trace error passes through", func(t *testing.T) {
		_, err := Load(with(func(in *Inputs) { in.Traces = []File{{Name: "bad.json", Data: []byte(`{"num_jobs": 0}`)}} }))
		var te *trace.Error
		require.True(t, errors.As(err, &te), "%v", err)
		assert.Equal(t, "bad.json", te.File)
		assert.Equal(t, "num_jobs", te.Field)
	})
}

// BenchmarkDefaultScenario runs the embedded default scenario (issue 10's
// target: ≤ 10 s) and reports simulated seconds per wall second.
func BenchmarkDefaultScenario(b *testing.B) {
	sc, err := Load(Default("capacity"))
	require.NoError(b, err)
	b.ReportAllocs()
	for b.Loop() {
		run, err := sc.Run(Options{})
		require.NoError(b, err)
		b.ReportMetric(float64(run.End)/1000/b.Elapsed().Seconds(), "sim-s/wall-s")
		b.ReportMetric(float64(run.Events), "events")
	}
}

// daySimulation skips a test that simulates hours of the default scenario
// when the race detector is on. The engine and the schedulers run on the
// test's goroutine only, so the detector has nothing to find there and
// only multiplies the cost tenfold (these tests took minutes); .ci/run
// runs them without it, and so does a plain go test.
func daySimulation(t *testing.T) {
	t.Helper()
	if raceEnabled {
		t.Skip("a day-long single-goroutine simulation: run without -race (.ci/run does: go test ./examples/sim/...)")
	}
}
