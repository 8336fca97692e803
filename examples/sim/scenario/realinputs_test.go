package scenario

import (
	"os"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/examples/internal/realinputs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func realFile(t *testing.T, name string) File {
	t.Helper()
	p := realinputs.Path(t, "sls", name)
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	return File{Name: name, Data: b}
}

// TestSLSSamples runs every file of Hadoop's SLS samples, read in place,
// with its configuration where it has one, and checks SLS's counts: the
// nodes and their total size, the jobs that run, their containers and the
// jobs left out. Every job finishes, each with one AM container.
func TestSLSSamples(t *testing.T) {
	capConf := func(t *testing.T) (string, File) { return "capacity", realFile(t, "capacity-scheduler.xml") }
	fairConf := func(t *testing.T) (string, File) { return "fair", realFile(t, "fair-scheduler-allocation.xml") }
	// sls-runner.xml sizes every node <100240 MB, 100 vcores>.
	const runnerMB, runnerVC = 100240, 100
	cases := []struct {
		name      string
		typ       string
		trace     string
		nodeFile  string
		sched     func(*testing.T) (string, File)
		noRunner  bool // run without sls-runner.xml: SLS's default node <10240, 10>
		nodes     int
		size      berth.Resource
		jobs      int
		tasks     int
		dropped   []string
		notes     int
		withLabel bool
	}{
		// inputsls.json: two jobs, 3 + 2 tasks; the cluster is the hosts
		// they name, /default-rack/node1..3 (parseNodesFromSLSTrace).
		{name: "inputsls capacity", typ: "SLS", trace: "inputsls.json", sched: capConf,
			nodes: 3, size: berth.New(3*runnerMB, 3*runnerVC), jobs: 2, tasks: 5},
		{name: "inputsls fair", typ: "SLS", trace: "inputsls.json", sched: fairConf,
			nodes: 3, size: berth.New(3*runnerMB, 3*runnerVC), jobs: 2, tasks: 5},
		// nodes.json: 5 racks of 4 records, the last {} is /rack5/null:
		// 20 nodes (TestSLSUtils), one note.
		{name: "nodes.json", typ: "SLS", trace: "inputsls.json", nodeFile: "nodes.json", sched: capConf,
			nodes: 20, size: berth.New(20*runnerMB, 20*runnerVC), jobs: 2, tasks: 5, notes: 1},
		// nodes-with-resources.json at SLS's default node size:
		// 2048 + 10240 + 10240 + 6144 MB, 6 + 10 + 10 + 12 vcores; node3
		// and node4 list two labels each, which YARN refuses on a host:
		// they run unlabelled, with a note.
		{name: "nodes-with-resources.json", typ: "SLS", trace: "inputsls.json", nodeFile: "nodes-with-resources.json",
			sched: capConf, noRunner: true, nodes: 4, size: berth.New(28672, 38), jobs: 2, tasks: 5, notes: 1, withLabel: true},
		// Rumen: two jobs of 96 maps each on 4 hosts of /default-rack.
		{name: "rumen", typ: "RUMEN", trace: "2jobs2min-rumen-jh.json", sched: capConf,
			nodes: 4, size: berth.New(4*runnerMB, 4*runnerVC), jobs: 2, tasks: 192},
		// The current sample adds job _1207, whose only map has no
		// attempt: SLS drops it and runs the other two.
		{name: "rumen yarn-4612", typ: "RUMEN", trace: "2jobs2min-rumen-jh.yarn-4612.json", sched: capConf,
			nodes: 4, size: berth.New(4*runnerMB, 4*runnerVC), jobs: 2, tasks: 192, dropped: []string{"job_1369942127770_1207"}},
		// SYNTH: num_nodes 20 (racks 20 / nodes_per_rack 4); the jobs and
		// their task counts are SLS's for seed 2 (see trace's
		// TestSynthMatchesSLS): 7+8+7+12+7+9+10+9+7+10 tasks.
		{name: "syn.json", typ: "SYNTH", trace: "syn.json", sched: capConf,
			nodes: 20, size: berth.New(20*runnerMB, 20*runnerVC), jobs: 10, tasks: 86},
		// 9+9+10+10+7+10+11+10+10+8 tasks.
		{name: "syn_generic.json", typ: "SYNTH", trace: "syn_generic.json", sched: capConf,
			nodes: 20, size: berth.New(20*runnerMB, 20*runnerVC), jobs: 10, tasks: 94},
		// 5 stream jobs of 2 containers each.
		{name: "syn_stream.json", typ: "SYNTH", trace: "syn_stream.json", sched: fairConf,
			nodes: 20, size: berth.New(20*runnerMB, 20*runnerVC), jobs: 5, tasks: 10},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sched, conf := c.sched(t)
			in := Inputs{Scheduler: sched, SchedulerConf: conf, TraceType: c.typ, Traces: []File{realFile(t, c.trace)}}
			if !c.noRunner {
				in.Sites = []File{realFile(t, "sls-runner.xml")}
			}
			if c.nodeFile != "" {
				nf := realFile(t, c.nodeFile)
				in.Nodes = &nf
			}
			sc, err := Load(in)
			require.NoError(t, err)
			assert.Len(t, sc.Nodes, c.nodes)
			size := berth.None()
			for _, n := range sc.Nodes {
				size = size.Add(n.Resource)
			}
			assert.Equal(t, c.size, size)
			assert.Len(t, sc.Jobs, c.jobs)
			var dropped []string
			for _, d := range sc.Dropped {
				dropped = append(dropped, d.Job)
			}
			assert.Equal(t, c.dropped, dropped)
			assert.Len(t, sc.Notes, c.notes, "%v", sc.Notes)
			if c.withLabel {
				assert.Contains(t, sc.Notes[0].Text, "2 nodes list several labels (node3, node4)")
				assert.Contains(t, sc.Notes[0].Text, "run unlabelled")
			}
			run, err := sc.Run(Options{})
			require.NoError(t, err)
			assert.Zero(t, run.Unfinished)
			containers := 0
			for _, j := range run.Jobs {
				containers += j.Containers
			}
			assert.Equal(t, c.tasks+c.jobs, containers, "tasks and one AM per job")
			inputNotes := 0
			for _, n := range run.Config {
				if n.Kind == "input" || n.Kind == "dropped job" {
					inputNotes++
				}
			}
			assert.Equal(t, c.notes+len(c.dropped), inputNotes, "the report lists the notes and the dropped jobs")
		})
	}
}
