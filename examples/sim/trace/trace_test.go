package trace

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/berthsched/berth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func dumpTrace(t *Trace) string {
	var b strings.Builder
	if t.Topology != nil {
		fmt.Fprintf(&b, "topology nodes=%d racks=%d\n", t.Topology.Nodes, t.Topology.Racks)
	}
	for _, j := range t.Jobs {
		fmt.Fprintf(&b, "job %s am=%s user=%s queue=%s start=%d end=%d deadline=%d am-resource=%v tasks=%d\n",
			j.ID, j.AMType, j.User, j.Queue, j.Start, j.End, j.Deadline, j.AMResource, len(j.Tasks))
		for _, k := range j.Tasks {
			fmt.Fprintf(&b, "  task host=%q type=%s prio=%d dur=%d res=%v exec=%s alloc=%d delay=%d\n",
				k.Host, k.Type, k.Priority, k.Duration, k.Resource, k.ExecutionType, k.AllocationID, k.RequestDelay)
		}
	}
	return b.String()
}

func dumpNodes(ns []Node) string {
	var b strings.Builder
	for _, n := range ns {
		fmt.Fprintf(&b, "node %s rack=%s res=%v labels=%v\n", n.ID, n.Rack, n.Resource, n.Labels)
	}
	return b.String()
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test -update to create it")
	assert.Equal(t, string(want), got)
}

func open(t *testing.T, name string) *os.File {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	require.NoError(t, err)
	t.Cleanup(func() { f.Close() })
	return f
}

func TestGolden(t *testing.T) {
	d := DefaultDefaults()
	t.Run("sls", func(t *testing.T) {
		tr, err := ReadSLS(open(t, "sls-jobs.json"), "sls-jobs.json", d)
		require.NoError(t, err)
		golden(t, "sls-jobs", dumpTrace(tr))
		assert.Equal(t, []string{"/rack0/node0", "/rack1/node2", "/rack1/node3"}, tr.Hosts())
		assert.Equal(t, 4+3+3, tr.Containers())
	})
	t.Run("nodes", func(t *testing.T) {
		ns, notes, err := ReadNodes(open(t, "sls-nodes.json"), "sls-nodes.json", d)
		require.NoError(t, err)
		require.Len(t, notes, 1, "the nested resource object is Berth's, not SLS's")
		assert.Equal(t, "nodes[1].resource", notes[0].Field)
		golden(t, "sls-nodes", dumpNodes(ns))
	})
	t.Run("rumen", func(t *testing.T) {
		tr, err := ReadRumen(open(t, "rumen.json"), "rumen.json", d)
		require.NoError(t, err)
		golden(t, "rumen", dumpTrace(tr))
	})
	t.Run("synth", func(t *testing.T) {
		s, err := ReadSynth(open(t, "synth.json"), "synth.json")
		require.NoError(t, err)
		tr := s.Generate(d, nil)
		golden(t, "synth", dumpTrace(tr))
		// Same seed, same jobs; another seed, other jobs.
		assert.Equal(t, dumpTrace(tr), dumpTrace(s.Generate(d, nil)))
		other := int64(8)
		assert.NotEqual(t, dumpTrace(tr), dumpTrace(s.Generate(d, &other)))
	})
	t.Run("generated nodes", func(t *testing.T) {
		golden(t, "generated-nodes", dumpNodes(GenerateNodes(Topology{Nodes: 5, Racks: 2}, d)))
	})
}

// TestSynthSemantics checks the SYNTH rules that the golden file only
// shows: deadlines follow ceil(factor × duration), the old format's
// reducers get priority 10, submission times fall in their buckets.
func TestSynthSemantics(t *testing.T) {
	s, err := ReadSynth(open(t, "synth.json"), "synth.json")
	require.NoError(t, err)
	seed := int64(1)
	for i := range 20 {
		seed = int64(i)
		tr := s.Generate(DefaultDefaults(), &seed)
		require.Len(t, tr.Jobs, 6)
		for k, j := range tr.Jobs {
			if k > 0 {
				assert.LessOrEqual(t, tr.Jobs[k-1].Start, j.Start, "sorted by submission")
			}
			switch j.Queue {
			case "etl":
				assert.Less(t, j.Start, berth.Time(1_200_000))
				assert.Greater(t, j.Deadline, j.Start, "chance 1: always a deadline")
				assert.Len(t, j.Tasks, 6)
				assert.Equal(t, "ann", j.User)
			case "adhoc":
				assert.GreaterOrEqual(t, j.Start, berth.Time(60_000))
				assert.Less(t, j.Start, berth.Time(120_000))
				assert.Zero(t, j.Deadline, "chance 0: never")
				for _, k := range j.Tasks {
					if k.Type == TypeReduce {
						assert.Equal(t, int32(DefaultReducePriority), k.Priority)
						assert.Equal(t, berth.New(4096, 2), k.Resource)
					}
				}
			default:
				t.Fatalf("unexpected queue %q", j.Queue)
			}
		}
	}
	require.NotNil(t, s.Generate(DefaultDefaults(), nil).Topology)
	// SLS's racks: num_nodes / nodes_per_rack, rounded down (6 / 4).
	assert.Equal(t, Topology{Nodes: 6, Racks: 1}, *s.Generate(DefaultDefaults(), nil).Topology)
}

func TestBadInput(t *testing.T) {
	d := DefaultDefaults()
	const task = `{"duration.ms": 1000}`
	job := func(fields string) string {
		return `{"job.queue.name": "q", "job.id": "j1", "job.tasks": [` + task + `]` + fields + `}`
	}
	readSLS := func(s string) error { _, err := ReadSLS(strings.NewReader(s), "jobs.json", d); return err }
	readNodes := func(s string) error { _, _, err := ReadNodes(strings.NewReader(s), "nodes.json", d); return err }
	readRumen := func(s string) error { _, err := ReadRumen(strings.NewReader(s), "rumen.json", d); return err }
	readSynth := func(s string) error { _, err := ReadSynth(strings.NewReader(s), "synth.json"); return err }
	synth := func(class, times string) string {
		return `{"num_jobs": 2, "workloads": [{"workload_weight": 1, "queue_name": "q", "job_classes": [` + class +
			`], "time_distribution": [` + times + `]}]}`
	}
	const okClass = `{"class_name": "c", "class_weight": 1, "tasks": [{"time": {"val": 1}}]}`
	const okTimes = `{"time": 0, "weight": 1}`
	cases := []struct {
		name   string
		read   func(string) error
		in     string
		record int
		field  string
	}{
		{"sls empty", readSLS, ``, 0, ""},
		{"sls malformed", readSLS, `{"job.id": `, 1, ""},
		{"sls not an object", readSLS, `[1]`, 1, ""},
		{"sls no queue", readSLS, `{"job.tasks": [` + task + `]}`, 1, "job.queue.name"},
		{"sls empty am type", readSLS, job(`, "am.type": ""`), 1, "am.type"},
		{"sls absurd start", readSLS, job(`, "job.start.ms": 9000000000000000000`), 1, "job.start.ms"},
		{"sls absurd end", readSLS, job(`, "job.end.ms": 9000000000000000000`), 1, "job.end.ms"},
		{"sls duration past int", readSLS, `{"job.queue.name": "q", "job.tasks": [{"container.duration.ms": 2147483648}]}`, 1, "job.tasks[0].container.duration.ms"},
		{"sls legacy duration past int", readSLS, `{"job.queue.name": "q", "job.tasks": [{"duration.ms": 3000000000}]}`, 1, "job.tasks[0].duration.ms"},
		{"sls span past ten years", readSLS, `{"job.queue.name": "q", "job.tasks": [{"container.start.ms": 0, "container.end.ms": 400000000000}]}`, 1, "job.tasks[0].container.end.ms"},
		{"sls absurd delay", readSLS, `{"job.queue.name": "q", "job.tasks": [{"duration.ms": 1, "container.request.delay": 9000000000000000000}]}`, 1, "job.tasks[0].container.request.delay"},
		{"sls bad start", readSLS, job(`, "job.start.ms": "soon"`), 1, "job.start.ms"},
		{"sls fractional start", readSLS, job(`, "job.start.ms": 1.5`), 1, "job.start.ms"},
		{"sls negative start", readSLS, job(`, "job.start.ms": -1`), 1, "job.start.ms"},
		{"sls end before start", readSLS, job(`, "job.start.ms": 10, "job.end.ms": 5`), 1, "job.end.ms"},
		{"sls stream without end", readSLS, job(`, "am.type": "stream"`), 1, "job.end.ms"},
		{"sls no tasks", readSLS, `{"job.queue.name": "q", "job.tasks": []}`, 1, "job.tasks"},
		{"sls tasks not array", readSLS, `{"job.queue.name": "q", "job.tasks": 3}`, 1, "job.tasks"},
		{"sls no duration", readSLS, `{"job.queue.name": "q", "job.tasks": [{"count": 1}]}`, 1, "job.tasks[0].container.duration.ms"},
		{"sls zero duration", readSLS, `{"job.queue.name": "q", "job.tasks": [{"container.start.ms": 5, "container.end.ms": 5}]}`, 1, "job.tasks[0].container.end.ms"},
		{"sls bad host", readSLS, `{"job.queue.name": "q", "job.tasks": [{"duration.ms": 1, "container.host": "node1"}]}`, 1, "job.tasks[0].container.host"},
		{"sls bad priority", readSLS, `{"job.queue.name": "q", "job.tasks": [{"duration.ms": 1, "container.priority": 3000000000}]}`, 1, "job.tasks[0].container.priority"},
		{"sls bad memory", readSLS, `{"job.queue.name": "q", "job.tasks": [{"duration.ms": 1, "container.memory-mb": 0}]}`, 1, "job.tasks[0].container.memory-mb"},
		{"sls bad exec type", readSLS, `{"job.queue.name": "q", "job.tasks": [{"duration.ms": 1, "container.execution.type": "X"}]}`, 1, "job.tasks[0].container.execution.type"},
		{"sls second record bad", readSLS, job(``) + job(`, "job.user": {}`), 2, "job.user"},
		{"sls topology twice", readSLS, `{"num.nodes": 3}` + job(``) + `{"num.nodes": 3}`, 3, "num.nodes"},
		{"sls topology only", readSLS, `{"num.nodes": 3}`, 0, ""},
		{"nodes empty", readNodes, ``, 0, ""},
		{"nodes empty rack", readNodes, `{"rack": "/", "nodes": [{"node": "a"}]}`, 1, "rack"},
		{"nodes no nodes", readNodes, `{"rack": "r"}`, 1, "nodes"},
		{"nodes none at all", readNodes, `{"rack": "r", "nodes": []}`, 0, ""},
		{"nodes empty name", readNodes, `{"rack": "r", "nodes": [{"node": ""}]}`, 1, "nodes[0].node"},
		{"nodes bad memory", readNodes, `{"rack": "r", "nodes": [{"node": "a", "resource": {"memory-mb": -1}}]}`, 1, "nodes[0].resource.memory-mb"},
		{"nodes bad flat memory", readNodes, `{"rack": "r", "nodes": [{"node": "a", "memory-mb": 0}]}`, 1, "nodes[0].memory-mb"},
		{"nodes memory past int", readNodes, `{"rack": "r", "nodes": [{"node": "a", "memory-mb": 2147483648}]}`, 1, "nodes[0].memory-mb"},
		{"nodes bad labels", readNodes, `{"rack": "r", "nodes": [{"node": "a", "labels": "x(exclusive=maybe)"}]}`, 1, "nodes[0].labels"},
		{"nodes no labels", readNodes, `{"rack": "r", "nodes": [{"node": "a", "labels": " , "}]}`, 1, "nodes[0].labels"},
		{"nodes unknown type", readNodes, `{"rack": "r", "nodes": [{"node": "a", "resource": {"gpu": 1}}]}`, 1, "nodes[0].resource.gpu"},
		{"rumen no id", readRumen, `{"submitTime": 1}`, 1, "jobID"},
		{"rumen no submit", readRumen, `{"jobID": "j"}`, 1, "submitTime"},
		{"rumen only job dropped", readRumen, `{"jobID": "j", "submitTime": 1, "mapTasks": [{"attempts": []}]}`, 0, ""},
		{"rumen absurd submit", readRumen, `{"jobID": "a", "submitTime": 10, "mapTasks": [{"attempts": [{"startTime": 1, "finishTime": 2}]}]} {"jobID": "b", "submitTime": 9000000000000000000}`, 2, "submitTime"},
		{"rumen bad attempt", readRumen, `{"jobID": "j", "submitTime": 1, "reduceTasks": [{"attempts": [{"startTime": 5, "finishTime": 4}]}]}`, 1, "reduceTasks[0].attempts[0].finishTime"},
		{"rumen bad host", readRumen, `{"jobID": "j", "submitTime": 1, "mapTasks": [{"attempts": [{"hostName": "h", "startTime": 1, "finishTime": 4}]}]}`, 1, "mapTasks[0].attempts[0].hostName"},
		{"rumen no tasks", readRumen, `{"jobID": "j", "submitTime": 1}`, 1, "mapTasks"},
		{"synth two objects", readSynth, synth(okClass, okTimes) + `{}`, 2, ""},
		{"synth no jobs", readSynth, `{"workloads": []}`, 1, "num_jobs"},
		{"synth no workloads", readSynth, `{"num_jobs": 1}`, 1, "workloads"},
		{"synth no queue", readSynth, `{"num_jobs": 1, "workloads": [{"workload_weight": 1}]}`, 1, "workloads[0].queue_name"},
		{"synth zero weights", readSynth, `{"num_jobs": 1, "workloads": [{"queue_name": "q", "job_classes": [` + okClass + `], "time_distribution": [` + okTimes + `]}]}`, 1, "workloads"},
		{"synth negative class weight", readSynth, synth(`{"class_weight": -1}`, okTimes), 1, "workloads[0].job_classes[0].class_weight"},
		{"synth empty type", readSynth, synth(`{"class_weight": 1, "type": "", "tasks": []}`, okTimes), 1, "workloads[0].job_classes[0].type"},
		{"synth task without time", readSynth, synth(`{"class_weight": 1, "tasks": [{"count": {"val": 1}}]}`, okTimes), 1, "workloads[0].job_classes[0].tasks[0].time"},
		{"synth std without val", readSynth, synth(`{"class_weight": 1, "tasks": [{"time": {"std": 1}}]}`, okTimes), 1, "workloads[0].job_classes[0].tasks[0].time.val"},
		{"synth bad dist", readSynth, synth(`{"class_weight": 1, "tasks": [{"time": {"val": 1, "std": 1, "dist": "GAMMA"}}]}`, okTimes), 1, "workloads[0].job_classes[0].tasks[0].time.dist"},
		{"synth const with dist", readSynth, synth(`{"class_weight": 1, "tasks": [{"time": {"val": 1, "dist": "NORM"}}]}`, okTimes), 1, "workloads[0].job_classes[0].tasks[0].time.val"},
		{"synth weights mismatch", readSynth, synth(`{"class_weight": 1, "tasks": [{"time": {"discrete": [1, 2], "weights": [1]}}]}`, okTimes), 1, "workloads[0].job_classes[0].tasks[0].time.weights"},
		{"synth bad discrete", readSynth, synth(`{"class_weight": 1, "tasks": [{"time": {"discrete": ["x"]}}]}`, okTimes), 1, "workloads[0].job_classes[0].tasks[0].time.discrete[0]"},
		{"synth empty sample", readSynth, synth(`{"class_weight": 1, "tasks": [{"time": {}}]}`, okTimes), 1, "workloads[0].job_classes[0].tasks[0].time"},
		{"synth old negative", readSynth, synth(`{"class_weight": 1, "mtasks_avg": -3}`, okTimes), 1, "workloads[0].job_classes[0].mtasks_avg"},
		{"synth old chance", readSynth, synth(`{"class_weight": 1, "chance_of_reservation": 2}`, okTimes), 1, "workloads[0].job_classes[0].chance_of_reservation"},
		{"synth times decreasing", readSynth, synth(okClass, `{"time": 10, "weight": 1}, {"time": 5, "weight": 1}`), 1, "workloads[0].time_distribution[1].time"},
		{"synth no times", readSynth, synth(okClass, ``), 1, "workloads[0].time_distribution"},
		{"synth zero time weights", readSynth, synth(okClass, `{"time": 0, "weight": 0}`), 1, "workloads[0].time_distribution"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.read(c.in)
			require.Error(t, err)
			var te *Error
			require.True(t, errors.As(err, &te), "%T %v", err, err)
			assert.ErrorIs(t, err, berth.ErrInvalidArgument)
			assert.NotEmpty(t, te.File)
			assert.Contains(t, err.Error(), te.File)
			assert.Equal(t, c.record, te.Record, "record: %v", err)
			assert.Equal(t, c.field, te.Field, "field: %v", err)
		})
	}
}

func TestErrorFormat(t *testing.T) {
	err := &Error{File: "jobs.json", Record: 3, ID: "job_7", Field: "job.tasks[1].duration.ms", Value: -5, Reason: "must be positive"}
	assert.Equal(t, "jobs.json: record 3 (job_7): job.tasks[1].duration.ms: must be positive (value: -5)", err.Error())
}

// FuzzReaders checks that no input makes a reader panic and that every
// failure is a *Error.
func FuzzReaders(f *testing.F) {
	for _, name := range []string{"sls-jobs.json", "sls-nodes.json", "rumen.json", "synth.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		require.NoError(f, err)
		f.Add(b)
	}
	f.Add([]byte(`{"job.queue.name": "q", "job.count": 3, "job.tasks": [{"count": 2, "duration.ms": 1}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		d := DefaultDefaults()
		check := func(err error) {
			var te *Error
			if err != nil && !errors.As(err, &te) {
				t.Fatalf("untyped error %T: %v", err, err)
			}
		}
		_, err := ReadSLS(strings.NewReader(string(b)), "f", d)
		check(err)
		_, _, err = ReadNodes(strings.NewReader(string(b)), "f", d)
		check(err)
		_, err = ReadRumen(strings.NewReader(string(b)), "f", d)
		check(err)
		s, err := ReadSynth(strings.NewReader(string(b)), "f")
		check(err)
		if err == nil && s.NumJobs <= 1000 {
			s.Generate(d, nil)
		}
	})
}
