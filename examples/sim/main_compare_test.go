package main

import (
	"bytes"
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/berthsched/berth/examples/sim/metrics"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tree reads every file under dir by its path relative to dir.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(b)
		return err
	}))
	return out
}

// TestCompareShardMerge: --compare writes the comparison and one
// directory per configuration; the same comparison run as two --shard
// parts and merged with --merge gives the same files, byte for byte.
func TestCompareShardMerge(t *testing.T) {
	dir := t.TempDir()
	sweep := filepath.Join(dir, "whatif.json")
	require.NoError(t, os.WriteFile(sweep, []byte(`{"description": "What if b had more?", "variants": [
	  {"name": "today"},
	  {"name": "b-70", "scheduler-keys": {"yarn.scheduler.capacity.root.a.capacity": "30", "yarn.scheduler.capacity.root.b.capacity": "70"}}],
	  "sweep": [{"names": ["hb1", "hb3"], "site-keys": {"yarn.sls.nm.heartbeat.interval.ms": ["1000", "3000"]}}]}`), 0o644))
	trace := []string{"--tracetype=SLS", "--tracelocation=testdata/sls-jobs.json", "--nodes=testdata/nodes.json",
		"--scheduler-conf=testdata/capacity-scheduler.xml", "--compare=" + sweep}
	var stdout, stderr bytes.Buffer
	whole := filepath.Join(dir, "whole")
	require.NoError(t, run(append(trace, "--output-dir="+whole, "--workers=3"), &stdout, &stderr), stderr.String())
	assert.Contains(t, stdout.String(), "4 configurations on 3 workers")
	assert.Contains(t, stderr.String(), "running 4 of 4 configurations on 3 workers")
	files := tree(t, whole)
	assert.Contains(t, files["compare.html"], "What if b had more?")
	for _, v := range []string{"today+hb1", "today+hb3", "b-70+hb1", "b-70+hb3"} {
		for _, f := range []string{"report.html", "jobruntime.csv", "jobs.csv", "timeline.csv", "run.json"} {
			assert.NotEmpty(t, files[v+"/"+f], "%s/%s", v, f)
		}
	}

	var parts []string
	for _, s := range []string{"0/2", "1/2"} {
		p := filepath.Join(dir, "part"+s[:1])
		parts = append(parts, p)
		stdout.Reset()
		require.NoError(t, run(append(trace, "--output-dir="+p, "--shard="+s), &stdout, &stderr))
		assert.Contains(t, stdout.String(), "part "+s+" written")
		_, err := os.Stat(filepath.Join(p, "compare.html"))
		assert.True(t, os.IsNotExist(err), "a part writes no comparison")
	}
	merged := filepath.Join(dir, "merged")
	stdout.Reset()
	require.NoError(t, run(append([]string{"--merge", "--output-dir=" + merged}, parts...), &stdout, &stderr))
	assert.Contains(t, stdout.String(), "merged 4 configurations from 2 directories")
	assert.Equal(t, files, tree(t, merged), "merged parts are the whole comparison")

	// One part alone does not merge, and writes nothing.
	lone := filepath.Join(dir, "lone")
	err := run([]string{"--merge", "--output-dir=" + lone, parts[0]}, &stdout, &stderr)
	assert.ErrorContains(t, err, "2 of 4 variants found")
	_, serr := os.Stat(lone)
	assert.True(t, os.IsNotExist(serr))

	// Rerunning into an existing directory replaces its entries.
	require.NoError(t, run(append(trace, "--output-dir="+whole), &stdout, &stderr))
	assert.Equal(t, files, tree(t, whole))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		assert.False(t, strings.HasPrefix(e.Name(), ".sim-"), "temporary %s left behind", e.Name())
	}
}

// TestCompareSchedulers: the quick form runs the default scenario's files
// under each scheduler named (here on a trace, with a scheduler file
// each).
func TestCompareSchedulers(t *testing.T) {
	dir := t.TempDir()
	fairConf := filepath.Join(dir, "fair-scheduler.xml")
	require.NoError(t, os.WriteFile(fairConf, []byte(`<allocations><queue name="a"><weight>3</weight></queue><queue name="b"><weight>2</weight></queue></allocations>`), 0o644))
	var stdout, stderr bytes.Buffer
	out := filepath.Join(dir, "out")
	require.NoError(t, run([]string{"--tracetype=SLS", "--tracelocation=testdata/sls-jobs.json", "--nodes=testdata/nodes.json",
		"--scheduler-conf=testdata/capacity-scheduler.xml", "--compare=capacity," + fairConf, "--output-dir=" + out}, &stdout, &stderr), stderr.String())
	page, err := os.ReadFile(filepath.Join(out, "compare.html"))
	require.NoError(t, err)
	assert.Contains(t, string(page), "<td>run</td><td>scheduler</td><td>capacity</td><td>fair</td>")
	for _, bad := range [][]string{
		{"--compare=fair"}, // the default scenario has both files, but a trace needs the fair one
		{"--compare=fifo"},
		{"--compare=capacity,capacity"},
		{"--compare=capacity", "--shard=2/2"},
	} {
		args := append([]string{"--tracetype=SLS", "--tracelocation=testdata/sls-jobs.json", "--nodes=testdata/nodes.json",
			"--scheduler-conf=testdata/capacity-scheduler.xml", "--output-dir=" + filepath.Join(dir, "bad")}, bad...)
		assert.Error(t, run(args, &stdout, &stderr), "%v", bad)
		_, err := os.Stat(filepath.Join(dir, "bad"))
		assert.True(t, os.IsNotExist(err), "%v wrote output", bad)
	}
	assert.ErrorContains(t, run([]string{"--shard=0/2"}, &stdout, &stderr), "--shard and --workers go with --compare")
	assert.ErrorContains(t, run([]string{"--merge"}, &stdout, &stderr), "--merge needs the output directories")
	assert.Error(t, run([]string{"stray"}, &stdout, &stderr), "arguments only with --merge")
}

// TestHelp: --help says what the simulator is, shows a command per kind
// of trace, lists the files it writes and the differences from SLS, then
// the flags.
func TestHelp(t *testing.T) {
	var stdout, stderr bytes.Buffer
	err := run([]string{"--help"}, &stdout, &stderr)
	require.True(t, errors.Is(err, flag.ErrHelp))
	h := stderr.String()
	assert.True(t, strings.HasPrefix(h, "sim replays a YARN workload"))
	for _, want := range []string{
		"--tracetype=SLS --tracelocation=", "--tracetype=RUMEN --tracelocation=", "--tracetype=SYNTH --tracelocation=",
		"--compare=capacity,fair", "--shard=$JOB_COMPLETION_INDEX/8", "sim --merge",
		"report.html", "jobruntime.csv", "jobs.csv", "cluster.csv", "queues.csv", "reservations.csv", "timeline.csv", "run.json",
		"Differences from SLS:", "Flags:", "-tracelocation string", "-compare string",
	} {
		assert.Contains(t, h, want)
	}
	// Every file the command writes is in the help.
	files, err := outputs(&metrics.Run{}, "t")
	require.NoError(t, err)
	for name := range files {
		assert.Contains(t, h, name)
	}
}
