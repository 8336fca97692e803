package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/berthsched/berth/examples/internal/realinputs"
)

func write(t *testing.T, path, content string) string {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	return path
}

func conf(props ...string) string {
	var b strings.Builder
	b.WriteString("<configuration>")
	for i := 0; i+1 < len(props); i += 2 {
		b.WriteString("<property><name>" + props[i] + "</name><value>" + props[i+1] + "</value></property>")
	}
	return b.String() + "</configuration>"
}

// TestConfFlags: --conf repeats and takes lists, in order; the scheduler
// comes from yarn.resourcemanager.scheduler.class and the fair
// scheduler's allocation file from yarn.scheduler.fair.allocation.file,
// a relative name found beside the site file that names it (not in the
// working directory); -D overrides every file.
func TestConfFlags(t *testing.T) {
	dir := t.TempDir()
	site := write(t, filepath.Join(dir, "etc", "yarn-site.xml"), conf(
		"yarn.resourcemanager.scheduler.class", "org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.FairScheduler",
		"yarn.scheduler.fair.allocation.file", "alloc.xml", "yarn.sls.nm.memory.mb", "4096"))
	write(t, filepath.Join(dir, "etc", "alloc.xml"), `<allocations><queue name="a"><weight>3</weight></queue><queue name="b"/></allocations>`)
	one := write(t, filepath.Join(dir, "one.xml"), conf("yarn.sls.nm.memory.mb", "8192", "yarn.sls.nm.vcores", "4"))
	two := write(t, filepath.Join(dir, "two.xml"), conf("yarn.sls.nm.vcores", "6"))
	out := filepath.Join(dir, "out")
	var stdout, stderr bytes.Buffer
	err := run([]string{"--tracetype=SLS", "--tracelocation=testdata/sls-jobs.json", "--nodes=testdata/nodes.json",
		"--conf=" + site, "--conf", one + "," + two, "-D", "yarn.sls.nm.vcores=8", "--output-dir=" + out, "--print-simulation"}, &stdout, &stderr)
	require.NoError(t, err, stderr.String())
	s := stdout.String()
	assert.Contains(t, s, "fair scheduler:", "the scheduler the site file names")
	assert.Contains(t, stderr.String(), "the fair scheduler's file is "+filepath.Join(dir, "etc", "alloc.xml"))
	assert.NotContains(t, stderr.String(), "preemption monitor", "SLS's monitor is the capacity scheduler's")
	jobs, err := os.ReadFile(filepath.Join(out, "jobs.csv"))
	require.NoError(t, err)
	assert.Contains(t, string(jobs), ",root.a,")
	cluster, err := os.ReadFile(filepath.Join(out, "cluster.csv"))
	require.NoError(t, err)
	row := strings.Split(strings.Split(string(cluster), "\n")[1], ",")
	assert.Equal(t, []string{"2", "16384", "16"}, row[1:4], "nodes of 8192 MB (one.xml over yarn-site.xml) and 8 vcores (-D over two.xml over one.xml)")

	// The allocation file is not looked for in the working directory
	// first: without the site file's directory it is not found, and the
	// fair scheduler runs on YARN's defaults, saying so.
	moved := write(t, filepath.Join(dir, "elsewhere", "yarn-site.xml"), conf(
		"yarn.resourcemanager.scheduler.class", "org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.FairScheduler",
		"yarn.scheduler.fair.allocation.file", "alloc.xml"))
	stdout.Reset()
	stderr.Reset()
	require.NoError(t, run([]string{"--tracetype=SLS", "--tracelocation=testdata/sls-jobs.json", "--nodes=testdata/nodes.json",
		"--conf=" + moved, "--output-dir=" + out}, &stdout, &stderr))
	assert.Contains(t, stderr.String(), "no fair scheduler allocation file (looked for "+filepath.Join(dir, "elsewhere", "alloc.xml")+", alloc.xml)")
	assert.Contains(t, stderr.String(), "YARN's defaults")

	// A capacity scheduler with no file cannot run, as YARN cannot.
	stderr.Reset()
	err = run([]string{"--tracetype=SLS", "--tracelocation=testdata/sls-jobs.json", "--nodes=testdata/nodes.json",
		"--conf=" + two, "--output-dir=" + out}, &stdout, &stderr)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no capacity scheduler configuration: looked for "+filepath.Join(dir, "capacity-scheduler.xml"))
	assert.Equal(t, exitUsage, exitStatus(err))

	// FIFO is refused naming the key and the file.
	fifo := write(t, filepath.Join(dir, "fifo.xml"), conf("yarn.resourcemanager.scheduler.class",
		"org.apache.hadoop.yarn.server.resourcemanager.scheduler.fifo.FifoScheduler"))
	err = run([]string{"--tracetype=SLS", "--tracelocation=testdata/sls-jobs.json", "--conf=" + fifo}, &stdout, &stderr)
	require.Error(t, err)
	assert.Contains(t, err.Error(), fifo+": yarn.resourcemanager.scheduler.class: the FIFO scheduler is not supported")
	assert.Equal(t, exitError, exitStatus(err))
}

// TestSLSRunnerSpellings: SLSRunner's single-dash options work as
// slsrun.sh's double-dash ones do; two trace options are refused.
func TestSLSRunnerSpellings(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	var stdout, stderr bytes.Buffer
	err := run([]string{"-inputsls", "testdata/sls-jobs.json", "-nodes", "testdata/nodes.json", "-output", out,
		"-trackjobs", "etl_1", "-printsimulation", "--scheduler-conf=testdata/capacity-scheduler.xml"}, &stdout, &stderr)
	require.NoError(t, err, stderr.String())
	s := stdout.String()
	assert.Contains(t, s, "nodes 2, applications 2, tasks 12", "-printsimulation")
	assert.Contains(t, s, "etl_1 queue a ran in root.a", "-trackjobs")
	_, err = os.Stat(filepath.Join(out, "jobruntime.csv"))
	assert.NoError(t, err, "-output")

	err = run([]string{"-inputsls", "testdata/sls-jobs.json", "-inputrumen", "x.json"}, &stdout, &stderr)
	require.Error(t, err)
	assert.Equal(t, exitUsage, exitStatus(err))
	err = run([]string{"--end-ms=-5"}, &stdout, &stderr)
	require.Error(t, err)
	assert.Equal(t, exitUsage, exitStatus(err))
	err = run([]string{"--no-such-flag"}, &stdout, &stderr)
	require.Error(t, err)
	assert.Equal(t, exitUsage, exitStatus(err))
}

// TestStalledRun: a job whose AM fits no node never launches; the run
// says it stalled on stdout and in the report, exits with the stalled
// status, and jobruntime.csv has rows only for the jobs that launched.
func TestStalledRun(t *testing.T) {
	dir := t.TempDir()
	trace := write(t, filepath.Join(dir, "trace.json"), `{"job.id": "ok", "job.queue.name": "a", "job.start.ms": 0, "job.tasks": [{"count": 2, "duration.ms": 5000}]}
{"job.id": "huge_am", "job.queue.name": "b", "job.start.ms": 1000, "am.memory-mb": 6144, "job.tasks": [{"duration.ms": 5000}]}`)
	site := write(t, filepath.Join(dir, "site.xml"), conf("yarn.sls.nm.memory.mb", "4096", "yarn.sls.nm.vcores", "4"))
	out := filepath.Join(dir, "out")
	var stdout, stderr bytes.Buffer
	err := run([]string{"--input-sls=" + trace, "--nodes=testdata/nodes.json", "--scheduler-conf=testdata/capacity-scheduler.xml",
		"--conf=" + site, "--output-dir=" + out}, &stdout, &stderr)
	require.Error(t, err)
	assert.Equal(t, exitStalled, exitStatus(err))
	s := stdout.String()
	assert.Contains(t, s, "STALLED: nothing could progress after")
	assert.Contains(t, s, "jobs whose AM never launched (not in jobruntime.csv): huge_am")
	jr, err := os.ReadFile(filepath.Join(out, "jobruntime.csv"))
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(jr)), "\n")
	require.Len(t, lines, 2)
	assert.True(t, strings.HasPrefix(lines[1], "ok,"), lines[1])
	html, err := os.ReadFile(filepath.Join(out, "report.html"))
	require.NoError(t, err)
	assert.True(t, strings.Contains(string(html), "The run stalled"), "the report says the run stalled")
	assert.True(t, strings.Contains(string(html), "never launched (no row in jobruntime.csv, as in SLS): huge_am."), "the report lists the job")
}

// TestShortTraceSampling runs SLS's own two-job trace (about three
// minutes) with SLS's configuration: sampled a second apart, as SLS
// samples, both queues that ran show their use in the summary.
func TestShortTraceSampling(t *testing.T) {
	var stdout, stderr bytes.Buffer
	out := filepath.Join(t.TempDir(), "out")
	require.NoError(t, run([]string{"--input-sls=" + realinputs.Path(t, "sls", "inputsls.json"),
		"--conf=" + realinputs.Path(t, "sls", "sls-runner.xml"), "--scheduler-conf=" + realinputs.Path(t, "sls", "capacity-scheduler.xml"),
		"--output-dir=" + out}, &stdout, &stderr), stderr.String())
	used := map[string]float64{}
	for _, line := range strings.Split(stdout.String(), "\n") {
		f := strings.Fields(line)
		if len(f) > 8 && strings.HasPrefix(f[0], "sls_queue_") {
			v, err := strconv.ParseFloat(f[7], 64)
			require.NoError(t, err, line)
			used[f[0]] = v
		}
	}
	assert.Positive(t, used["sls_queue_1"], stdout.String())
	assert.Positive(t, used["sls_queue_2"], stdout.String())
	cluster, err := os.ReadFile(filepath.Join(out, "cluster.csv"))
	require.NoError(t, err)
	assert.Greater(t, strings.Count(string(cluster), "\n"), 120, "a sample a second over more than two minutes")
}
