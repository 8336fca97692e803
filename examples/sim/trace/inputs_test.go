package trace

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/examples/internal/realinputs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func openReal(t *testing.T, name string) *os.File {
	t.Helper()
	f, err := os.Open(realinputs.Path(t, "sls", name))
	require.NoError(t, err)
	t.Cleanup(func() { f.Close() })
	return f
}

// TestNodeFileAsSLS reads Hadoop's node samples as SLSUtils does.
func TestNodeFileAsSLS(t *testing.T) {
	d := DefaultDefaults()
	t.Run("nodes.json", func(t *testing.T) {
		// 5 racks of 4 records; the last record {} is host "null" on
		// rack5 (TestSLSUtils expects 20 nodes).
		ns, notes, err := ReadNodes(openReal(t, "nodes.json"), "nodes.json", d)
		require.NoError(t, err)
		require.Len(t, ns, 20)
		last := ns[19]
		assert.Equal(t, Node{ID: "null", Rack: "/rack5", Resource: d.Node}, last)
		require.Len(t, notes, 1)
		assert.Equal(t, Note{File: "nodes.json", Record: 5, Field: "nodes[3].node", Text: `missing: read as host "/rack5/null", as SLS reads it`}, notes[0])
		assert.Contains(t, notes[0].String(), "nodes.json: record 5: nodes[3].node: missing")
	})
	t.Run("nodes-with-resources.json", func(t *testing.T) {
		ns, notes, err := ReadNodes(openReal(t, "nodes-with-resources.json"), "nodes-with-resources.json", d)
		require.NoError(t, err)
		assert.Empty(t, notes)
		require.Len(t, ns, 4)
		total := berth.None()
		for _, n := range ns {
			total = total.Add(n.Resource)
		}
		// node1 2048/6 and node4 6144/12 written on the node, node2 and
		// node3 the default 10240/10.
		assert.Equal(t, berth.New(28672, 38), total)
		assert.Equal(t, berth.New(2048, 6), ns[0].Resource)
		assert.Equal(t, berth.New(6144, 12), ns[3].Resource)
		want := []Label{{Name: "label1", Exclusive: true}, {Name: "label2", Exclusive: false}}
		assert.Nil(t, ns[1].Labels)
		assert.Equal(t, want, ns[2].Labels)
		assert.Equal(t, want, ns[3].Labels)
	})
	t.Run("duplicates and unknown keys", func(t *testing.T) {
		ns, notes, err := ReadNodes(strings.NewReader(`{"rack": "r", "nodes": [{"node": "a", "gpu": 1}]} {"nodes": [{"node": "a"}, {"node": "b"}]}`), "n.json", d)
		require.NoError(t, err)
		assert.Equal(t, []Node{{ID: "a", Rack: "/r", Resource: d.Node}, {ID: "b", Rack: "/null", Resource: d.Node}}, ns)
		fields := []string{}
		for _, n := range notes {
			fields = append(fields, n.Field)
		}
		assert.Equal(t, []string{"nodes[0].gpu", "rack", "nodes[0].node"}, fields)
	})
}

func TestParseLabels(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []Label
		bad  bool
	}{
		{in: "label1, label2(exclusive=false)", want: []Label{{"label1", true}, {"label2", false}}},
		{in: "x(exclusive=true),y( exclusive = false ), z()", want: []Label{{"x", true}, {"y", false}, {"z", true}}},
		{in: "a,,b", want: []Label{{"a", true}, {"b", true}}},
		{in: "", bad: true},
		{in: "a(exclusive=false", bad: true},
		{in: "a)", bad: true},
		{in: "a(shared=true)", bad: true},
		{in: "a(exclusive=yes)", bad: true},
		{in: "a(x)", bad: true},
		{in: "-a", bad: true},
		{in: "a b", bad: true},
		{in: "a(exclusive=false)b", bad: true},
	} {
		got, err := ParseLabels(c.in)
		if c.bad {
			assert.Error(t, err, c.in)
			continue
		}
		require.NoError(t, err, c.in)
		assert.Equal(t, c.want, got, c.in)
	}
	assert.Equal(t, "a", Label{"a", true}.String())
	assert.Equal(t, "b(exclusive=false)", Label{"b", false}.String())
}

// TestRumenDropsWhatSLSCannotBuild: the current Hadoop sample's third job
// has a map without attempts; SLS logs it and runs the other two.
func TestRumenDropsWhatSLSCannotBuild(t *testing.T) {
	tr, err := ReadRumen(openReal(t, "2jobs2min-rumen-jh.yarn-4612.json"), "rumen.json", DefaultDefaults())
	require.NoError(t, err)
	require.Len(t, tr.Jobs, 2)
	assert.Equal(t, 96+96, tr.Containers())
	require.Len(t, tr.Dropped, 1)
	dr := tr.Dropped[0]
	assert.Equal(t, "job_1369942127770_1207", dr.Job)
	assert.Equal(t, "sls_queue_1", dr.Queue)
	var te *Error
	require.True(t, errors.As(dr.Reason, &te))
	assert.Equal(t, 3, te.Record)
	assert.Equal(t, "mapTasks[0].attempts", te.Field)
	assert.Contains(t, dr.Reason.Error(), "job_1369942127770_1207")

	// A job submitted before the first is moved to 0, keeping its
	// length, as SLS does.
	tr, err = ReadRumen(strings.NewReader(`{"jobID": "a", "submitTime": 10, "finishTime": 30, "mapTasks": [{"attempts": [{"startTime": 1, "finishTime": 2}]}]}
		{"jobID": "b", "submitTime": 5, "finishTime": 25, "mapTasks": [{"attempts": [{"startTime": 1, "finishTime": 2}]}]}`), "r.json", DefaultDefaults())
	require.NoError(t, err)
	assert.Equal(t, berth.Time(0), tr.Jobs[1].Start)
	assert.Equal(t, berth.Time(20), tr.Jobs[1].End)
	require.Len(t, tr.Notes, 1)
	assert.Contains(t, tr.Notes[0].Text, "job b")
}

// TestClusterNodes: without a node file the cluster is the topology
// record's generated nodes (racks round-robin) plus the tasks' hosts, as
// SLS's addNodes builds it.
func TestClusterNodes(t *testing.T) {
	d := DefaultDefaults()
	tr, err := ReadSLS(strings.NewReader(`{"num.nodes": 5, "num.racks": 2}
		{"job.queue.name": "q", "job.tasks": [{"duration.ms": 1, "container.host": "/rack0/node0"}, {"duration.ms": 1, "container.host": "/r9/h9"}]}
		{"job.queue.name": "q", "job.tasks": [{"duration.ms": 1, "container.host": "/other/node1"}]}`), "t.json", d)
	require.NoError(t, err)
	ns, notes := ClusterNodes([]*Trace{tr}, d)
	var names []string
	for _, n := range ns {
		names = append(names, n.Rack+"/"+n.ID)
	}
	assert.Equal(t, []string{"/rack0/node0", "/rack1/node1", "/rack0/node2", "/rack1/node3", "/rack0/node4", "/r9/h9"}, names)
	require.Len(t, notes, 1, "node1 named on two racks")
	assert.Contains(t, notes[0].Text, "node1")

	// num.racks is clamped to [1, num.nodes] as generateNodes does.
	tr, err = ReadSLS(strings.NewReader(`{"num.nodes": 2, "num.racks": 9} {"job.queue.name": "q", "job.tasks": [{"duration.ms": 1}]}`), "t.json", d)
	require.NoError(t, err)
	assert.Equal(t, Topology{Nodes: 2, Racks: 2}, *tr.Topology)
	assert.Len(t, GenerateNodes(Topology{Nodes: 3, Racks: 0}, d), 3)
}

// TestSynthDropsWhatSLSCannotRun: a task time of 0 ms fails SLS's
// TaskContainerDefinition; the job is dropped with the reason.
func TestSynthDropsWhatSLSCannotRun(t *testing.T) {
	s, err := ReadSynth(strings.NewReader(`{"num_jobs": 3, "workloads": [{"workload_weight": 1, "queue_name": "q",
		"job_classes": [{"class_name": "c", "class_weight": 1, "tasks": [{"count": {"val": 2}, "time": {"val": 0}}]}],
		"time_distribution": [{"time": 0, "weight": 1}]}]}`), "s.json")
	require.NoError(t, err)
	tr := s.Generate(DefaultDefaults(), nil)
	assert.Empty(t, tr.Jobs)
	require.Len(t, tr.Dropped, 3)
	assert.Equal(t, "c_000000", tr.Dropped[0].Job)
	assert.Contains(t, tr.Dropped[0].Reason.Error(), "time 0 ms")
}
