package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/examples/internal/realinputs"
	"github.com/berthsched/berth/examples/sim/scenario"
	"github.com/berthsched/berth/queue"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSLSTraceRun(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	var stdout, stderr bytes.Buffer
	err := run([]string{"--tracetype=SLS", "--tracelocation=testdata/sls-jobs.json", "--nodes=testdata/nodes.json",
		"--scheduler-conf=testdata/capacity-scheduler.xml", "--output-dir=" + out, "--track-jobs=etl_1,nope", "--print-simulation"}, &stdout, &stderr)
	require.NoError(t, err, stderr.String())
	for _, f := range []string{"report.html", "jobruntime.csv", "jobs.csv", "cluster.csv", "queues.csv", "reservations.csv"} {
		st, err := os.Stat(filepath.Join(out, f))
		require.NoError(t, err, f)
		assert.Positive(t, st.Size(), f)
	}
	jr, err := os.ReadFile(filepath.Join(out, "jobruntime.csv"))
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(jr)), "\n")
	require.Len(t, lines, 3)
	assert.Equal(t, "JobID,real_start_time,real_end_time,simulate_start_time,simulate_end_time", lines[0])
	// The trace's times, then the simulated submission (within one
	// heartbeat of the trace's start) and finish.
	f := strings.Split(lines[1], ",")
	require.Len(t, f, 5)
	assert.Equal(t, []string{"etl_1", "0", "60000"}, f[:3])
	sub, err := strconv.Atoi(f[3])
	require.NoError(t, err)
	assert.Less(t, sub, 1000)
	assert.NotContains(t, lines[1], ",-1")
	s := stdout.String()
	assert.Contains(t, s, "nodes 2, applications 2, tasks 12")
	assert.Contains(t, s, "etl_1 queue a ran in root.a")
	assert.Contains(t, s, "nope: no such job")
	assert.NotContains(t, stderr.String(), "\r", "no progress when not a terminal")
	assert.Contains(t, stderr.String(), "preemption monitor runs", "SLS's monitor is said to be on")
	entries, err := os.ReadDir(filepath.Dir(out))
	require.NoError(t, err)
	assert.Len(t, entries, 1, "no temporary directory left behind")
}

// TestBadInputWritesNothing: a bad trace stops the run before anything is
// written, with the file, record and field in the message.
func TestBadInputWritesNothing(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"job.queue.name": "a", "job.tasks": [{"duration.ms": 0}]}`), 0o644))
	out := filepath.Join(dir, "out")
	var stdout, stderr bytes.Buffer
	err := run([]string{"--tracetype=SLS", "--tracelocation=" + bad, "--nodes=testdata/nodes.json",
		"--scheduler-conf=testdata/capacity-scheduler.xml", "--output-dir=" + out}, &stdout, &stderr)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "bad.json: record 1: job.tasks[0].duration.ms")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "only the input file")
	for _, args := range [][]string{
		{"--tracelocation=x.json"},
		{"--tracetype=SLS", "--tracelocation=testdata/sls-jobs.json"},
		{"--scheduler=fifo", "--output-dir=" + out},
		{"--scheduler-conf=testdata/capacity-scheduler.xml"},
		{"stray"},
	} {
		require.Error(t, run(args, &stdout, &stderr), "%v", args)
		_, err := os.Stat(out)
		assert.True(t, os.IsNotExist(err), "%v wrote %s", args, out)
	}
}

func TestWriteDefaultScenario(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "scenario")
	var stdout, stderr bytes.Buffer
	require.NoError(t, run([]string{"--write-default-scenario=" + dir}, &stdout, &stderr))
	for _, f := range []string{"capacity-scheduler.xml", "fair-scheduler.xml", "sls-runner.xml", "node-events.json", "synth.json"} {
		_, err := os.Stat(filepath.Join(dir, f))
		assert.NoError(t, err, f)
	}
}

// TestConfigReport: a capacity-scheduler.xml with a misspelt key and a
// key Berth does not model runs with the report on stderr and in report.html; with
// --strict-config it does not run and writes nothing.
func TestConfigReport(t *testing.T) {
	dir := t.TempDir()
	base, err := os.ReadFile("testdata/capacity-scheduler.xml")
	require.NoError(t, err)
	extra := `<property><name>yarn.scheduler.capacity.root.a.typo-capacity</name><value>10</value></property>
<property><name>yarn.scheduler.capacity.lazy-preemption-enabled</name><value>true</value></property>
</configuration>`
	conf := filepath.Join(dir, "capacity-scheduler.xml")
	require.NoError(t, os.WriteFile(conf, []byte(strings.Replace(string(base), "</configuration>", extra, 1)), 0o644))
	args := func(out string, more ...string) []string {
		return append([]string{"--tracetype=SLS", "--tracelocation=testdata/sls-jobs.json", "--nodes=testdata/nodes.json",
			"--scheduler-conf=" + conf, "--output-dir=" + out}, more...)
	}

	out := filepath.Join(dir, "out")
	var stdout, stderr bytes.Buffer
	require.NoError(t, run(args(out), &stdout, &stderr))
	e := stderr.String()
	assert.Contains(t, e, "configuration report for "+conf)
	assert.Contains(t, e, "unknown key yarn.scheduler.capacity.root.a.typo-capacity (did you mean yarn.scheduler.capacity.root.a.capacity?)")
	assert.Contains(t, e, "not modelled: yarn.scheduler.capacity.lazy-preemption-enabled")
	html, err := os.ReadFile(filepath.Join(out, "report.html"))
	require.NoError(t, err)
	assert.Contains(t, string(html), `<table id="config">`)
	assert.Contains(t, string(html), "<td>yarn.scheduler.capacity.root.a.typo-capacity</td>")
	assert.Contains(t, string(html), "did you mean yarn.scheduler.capacity.root.a.capacity?")

	strictOut := filepath.Join(dir, "strict")
	stdout.Reset()
	stderr.Reset()
	err = run(args(strictOut, "--strict-config"), &stdout, &stderr)
	require.Error(t, err)
	var re *queue.ConfigReportError
	require.ErrorAs(t, err, &re)
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)
	assert.Contains(t, err.Error(), conf)
	assert.Contains(t, stderr.String(), "typo-capacity", "the refusal shows the report")
	_, serr := os.Stat(strictOut)
	assert.True(t, os.IsNotExist(serr), "a refused run writes nothing")

	// The shipped default scenario's configuration is clean: strict mode
	// accepts it (checked on the configuration alone, without a run).
	for _, sched := range []string{"capacity", "fair"} {
		in := scenario.Default(sched)
		in.StrictConfig = true
		sc, err := scenario.Load(in)
		require.NoError(t, err, sched)
		assert.True(t, sc.ConfigReport.Clean(), "%s: %s", sched, sc.ConfigReport)
	}
}

// TestSiteConfigReport: a site file with a misspelt yarn.sls key and a
// key SLS knows that the simulator does not model runs with both reported
// on stderr and in report.html beside the scheduler file's notes; with
// --strict-config it does not run, the error names the site file and the
// key, and nothing is written.
func TestSiteConfigReport(t *testing.T) {
	dir := t.TempDir()
	site := filepath.Join(dir, "sls-runner.xml")
	require.NoError(t, os.WriteFile(site, []byte(`<configuration>
<property><name>yarn.sls.nm.memroy.mb</name><value>65536</value></property>
<property><name>yarn.sls.runner.pool.size</name><value>100</value></property>
<property><name>fs.defaultFS</name><value>hdfs://nn:8020</value></property>
</configuration>`), 0o644))
	args := func(out string, more ...string) []string {
		return append([]string{"--tracetype=SLS", "--tracelocation=testdata/sls-jobs.json", "--nodes=testdata/nodes.json",
			"--scheduler-conf=testdata/capacity-scheduler.xml", "--conf=" + site, "--output-dir=" + out}, more...)
	}

	out := filepath.Join(dir, "out")
	var stdout, stderr bytes.Buffer
	require.NoError(t, run(args(out), &stdout, &stderr))
	e := stderr.String()
	assert.Contains(t, e, "configuration report for "+site)
	assert.Contains(t, e, "unknown key yarn.sls.nm.memroy.mb (did you mean yarn.sls.nm.memory.mb?)")
	assert.Contains(t, e, "not modelled: yarn.sls.runner.pool.size: no threads")
	assert.NotContains(t, e, "fs.defaultFS", "keys outside the simulator's namespaces are not reported")
	html, err := os.ReadFile(filepath.Join(out, "report.html"))
	require.NoError(t, err)
	assert.Contains(t, string(html), "<tr><td>"+site+"</td><td>unknown</td><td>yarn.sls.nm.memroy.mb</td><td>65536</td><td>did you mean yarn.sls.nm.memory.mb?</td></tr>")
	assert.Contains(t, string(html), "<td>"+site+"</td><td>not modelled</td><td>yarn.sls.runner.pool.size</td>")

	strictOut := filepath.Join(dir, "strict")
	stdout.Reset()
	stderr.Reset()
	err = run(args(strictOut, "--strict-config"), &stdout, &stderr)
	require.Error(t, err)
	var re *queue.ConfigReportError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, site, re.File)
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)
	assert.Contains(t, err.Error(), site)
	assert.Contains(t, err.Error(), "yarn.sls.nm.memroy.mb")
	assert.Contains(t, stderr.String(), "configuration report for "+site, "the refusal shows the site's report")
	_, serr := os.Stat(strictOut)
	assert.True(t, os.IsNotExist(serr), "a refused run writes nothing")
}

// TestInputNotesAndDrops: Hadoop's current Rumen sample runs its two jobs;
// the third, which SLS cannot build, is named on stderr and counted in the
// summary; a node file's {} record is noted.
func TestInputNotesAndDrops(t *testing.T) {
	sls := func(name string) string { return realinputs.Path(t, "sls", name) }
	out := filepath.Join(t.TempDir(), "out")
	var stdout, stderr bytes.Buffer
	err := run([]string{"--tracetype=RUMEN", "--tracelocation=" + sls("2jobs2min-rumen-jh.yarn-4612.json"),
		"--nodes=" + sls("nodes.json"), "--scheduler-conf=" + sls("capacity-scheduler.xml"), "--conf=" + sls("sls-runner.xml"),
		"--output-dir=" + out, "--quiet"}, &stdout, &stderr)
	require.NoError(t, err, stderr.String())
	assert.Contains(t, stderr.String(), "dropped job job_1369942127770_1207 (queue sls_queue_1):")
	assert.Contains(t, stderr.String(), `nodes.json: record 5: nodes[3].node: missing: read as host "/rack5/null"`)
	assert.Contains(t, stdout.String(), "jobs 2 (finished 2)")
	assert.Contains(t, stdout.String(), "dropped jobs 1")
	report, err := os.ReadFile(filepath.Join(out, "report.html"))
	require.NoError(t, err)
	assert.Contains(t, string(report), "job_1369942127770_1207")
}

func TestNegativeEnd(t *testing.T) {
	var stdout, stderr bytes.Buffer
	err := run([]string{"--end-ms=-5", "--output-dir=" + t.TempDir()}, &stdout, &stderr)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "end-ms")
}

func TestHelpExamples(t *testing.T) {
	var stdout, stderr bytes.Buffer
	err := run([]string{"--help"}, &stdout, &stderr)
	require.ErrorIs(t, err, flag.ErrHelp)
	for _, typ := range []string{"SLS", "RUMEN", "SYNTH"} {
		assert.Contains(t, stderr.String(), "sim --tracetype="+typ+" ")
	}
}

// TestWhyWaitedReport: a capacity run whose queue a may use 10 % of the
// cluster (its AM and one task at a time) reports why a's applications
// waited: the queue at its maximum capacity.
func TestWhyWaitedReport(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "capacity-scheduler.xml")
	require.NoError(t, os.WriteFile(conf, []byte(`<configuration>
  <property><name>yarn.scheduler.capacity.root.queues</name><value>a,b</value></property>
  <property><name>yarn.scheduler.capacity.root.a.capacity</name><value>10</value></property>
  <property><name>yarn.scheduler.capacity.root.a.maximum-capacity</name><value>10</value></property>
  <property><name>yarn.scheduler.capacity.root.b.capacity</name><value>90</value></property>
</configuration>`), 0o644))
	out := filepath.Join(dir, "out")
	var stdout, stderr bytes.Buffer
	err := run([]string{"--tracetype=SLS", "--tracelocation=testdata/sls-jobs.json", "--nodes=testdata/nodes.json",
		"--scheduler-conf=" + conf, "--output-dir=" + out}, &stdout, &stderr)
	require.NoError(t, err, stderr.String())
	html, err := os.ReadFile(filepath.Join(out, "report.html"))
	require.NoError(t, err)
	assert.Contains(t, string(html), "<h2>Why applications waited</h2>")
	assert.Regexp(t, `in root\.a, the queue is at its maximum \(100 % of [0-9,]+ attempts\)`, string(html))
	assert.Contains(t, string(html), "<td>root.a</td>")
}
