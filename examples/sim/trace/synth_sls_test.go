package trace

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/berthsched/berth/examples/internal/realinputs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// slsJobLine formats a generated job as the expected lines below are
// written: submission, duration and deadline (−1 for none) in ms, then per
// task type its count, size, priority and each task's time in ms.
func slsJobLine(j Job) string {
	dl := j.Deadline
	if dl == 0 {
		dl = -1
	}
	var b strings.Builder
	fmt.Fprintf(&b, "job %s queue=%s submit=%d duration=%d deadline=%d", j.ID, j.Queue, j.Start, j.End-j.Start, dl)
	for i := 0; i < len(j.Tasks); {
		k := i
		for k < len(j.Tasks) && j.Tasks[k].Type == j.Tasks[i].Type {
			k++
		}
		t := j.Tasks[i]
		times := make([]string, 0, k-i)
		for _, u := range j.Tasks[i:k] {
			times = append(times, fmt.Sprint(u.Duration))
		}
		fmt.Fprintf(&b, " | %s n=%d mem=%d vc=%d prio=%d times=%s", t.Type, k-i, t.Resource.Memory, t.Resource.VCores, t.Priority, strings.Join(times, ","))
		i = k
	}
	return b.String()
}

// The expected jobs are SLS's: SynthTraceJobProducer and SynthJob's draw
// order replayed in Java on OpenJDK 17's java.util.Random and commons-math
// 3.6.1's JDKRandomGenerator, Well19937c, LogNormalDistribution and
// NormalDistribution (the classes SLS runs), printed per job.

// syn.json, seed 2 (the old flat format): 3 of the 10 jobs win the
// reservation draw (chance 0.5).
const slsSyn = `job class_1_000000 queue=sls_queue_1 submit=3000 duration=53000 deadline=533131 | map n=4 mem=1024 vc=1 prio=20 times=10,10,12,10 | reduce n=3 mem=2048 vc=2 prio=10 times=22,19,19
job class_1_000001 queue=sls_queue_1 submit=3000 duration=55000 deadline=-1 | map n=4 mem=1024 vc=1 prio=20 times=7,12,13,9 | reduce n=4 mem=2048 vc=2 prio=10 times=25,16,17,27
job class_1_000002 queue=sls_queue_1 submit=35000 duration=56000 deadline=594970 | map n=3 mem=1024 vc=1 prio=20 times=10,8,7 | reduce n=4 mem=2048 vc=2 prio=10 times=15,21,17,21
job class_1_000003 queue=sls_queue_1 submit=38000 duration=62000 deadline=658076 | map n=5 mem=1024 vc=1 prio=20 times=6,8,10,8,11 | reduce n=7 mem=2048 vc=2 prio=10 times=27,17,26,18,24,19,19
job class_1_000004 queue=sls_queue_1 submit=39000 duration=57000 deadline=-1 | map n=4 mem=1024 vc=1 prio=20 times=6,8,9,8 | reduce n=3 mem=2048 vc=2 prio=10 times=18,27,24
job class_1_000005 queue=sls_queue_1 submit=39000 duration=56000 deadline=-1 | map n=5 mem=1024 vc=1 prio=20 times=8,10,9,11,6 | reduce n=4 mem=2048 vc=2 prio=10 times=23,21,19,23
job class_1_000006 queue=sls_queue_1 submit=42000 duration=62000 deadline=-1 | map n=5 mem=1024 vc=1 prio=20 times=8,13,9,8,11 | reduce n=5 mem=2048 vc=2 prio=10 times=18,20,22,18,12
job class_1_000007 queue=sls_queue_1 submit=45000 duration=63000 deadline=-1 | map n=5 mem=1024 vc=1 prio=20 times=10,8,13,7,11 | reduce n=4 mem=2048 vc=2 prio=10 times=12,29,22,21
job class_1_000008 queue=sls_queue_1 submit=48000 duration=61000 deadline=-1 | map n=3 mem=1024 vc=1 prio=20 times=13,9,8 | reduce n=4 mem=2048 vc=2 prio=10 times=20,22,21,17
job class_1_000009 queue=sls_queue_1 submit=57000 duration=57000 deadline=-1 | map n=4 mem=1024 vc=1 prio=20 times=8,9,10,11 | reduce n=6 mem=2048 vc=2 prio=10 times=20,18,18,23,20,23`

// syn_generic.json, seed 2 (the same class in the current format, with
// constant sizes and deadline factor).
const slsSynGeneric = `job class_1_000000 queue=sls_queue_1 submit=2000 duration=73000 deadline=732000 | map n=4 mem=1024 vc=1 prio=20 times=8,7,7,10 | reduce n=5 mem=2048 vc=2 prio=10 times=19,22,19,16,23
job class_1_000001 queue=sls_queue_1 submit=6000 duration=66000 deadline=-1 | map n=4 mem=1024 vc=1 prio=20 times=9,11,10,9 | reduce n=5 mem=2048 vc=2 prio=10 times=20,21,19,31,13
job class_1_000002 queue=sls_queue_1 submit=13000 duration=57000 deadline=583000 | map n=4 mem=1024 vc=1 prio=20 times=7,8,11,11 | reduce n=6 mem=2048 vc=2 prio=10 times=17,23,26,22,17,23
job class_1_000003 queue=sls_queue_1 submit=13000 duration=66000 deadline=673000 | map n=5 mem=1024 vc=1 prio=20 times=8,9,7,9,11 | reduce n=5 mem=2048 vc=2 prio=10 times=23,20,13,30,24
job class_1_000004 queue=sls_queue_1 submit=20000 duration=51000 deadline=-1 | map n=4 mem=1024 vc=1 prio=20 times=10,10,9,13 | reduce n=3 mem=2048 vc=2 prio=10 times=22,23,22
job class_1_000005 queue=sls_queue_1 submit=22000 duration=66000 deadline=-1 | map n=4 mem=1024 vc=1 prio=20 times=12,11,8,15 | reduce n=6 mem=2048 vc=2 prio=10 times=21,17,15,31,25,20
job class_1_000006 queue=sls_queue_1 submit=24000 duration=59000 deadline=-1 | map n=5 mem=1024 vc=1 prio=20 times=9,7,7,9,8 | reduce n=6 mem=2048 vc=2 prio=10 times=21,19,16,20,28,23
job class_1_000007 queue=sls_queue_1 submit=29000 duration=62000 deadline=-1 | map n=5 mem=1024 vc=1 prio=20 times=11,11,8,9,9 | reduce n=5 mem=2048 vc=2 prio=10 times=17,21,16,26,20
job class_1_000008 queue=sls_queue_1 submit=42000 duration=60000 deadline=-1 | map n=5 mem=1024 vc=1 prio=20 times=11,9,9,9,9 | reduce n=5 mem=2048 vc=2 prio=10 times=21,24,15,16,23
job class_1_000009 queue=sls_queue_1 submit=50000 duration=53000 deadline=580000 | map n=4 mem=1024 vc=1 prio=20 times=11,11,14,10 | reduce n=4 mem=2048 vc=2 prio=10 times=21,17,15,17`

// syn_stream.json, seed 2: stream jobs draw a reservation too (jobs 1 and
// 2 win it) but SLS's stream AM makes none, so no deadline is kept.
const slsSynStream = `job class_1_000000 queue=sls_queue_1 submit=1000 duration=44000 deadline=-1 | stream n=2 mem=4096 vc=4 prio=20 times=60000,60000
job class_1_000001 queue=sls_queue_1 submit=1000 duration=36000 deadline=-1 | stream n=2 mem=4096 vc=4 prio=20 times=60000,60000
job class_1_000002 queue=sls_queue_1 submit=1000 duration=27000 deadline=-1 | stream n=2 mem=4096 vc=4 prio=20 times=60000,60000
job class_1_000003 queue=sls_queue_1 submit=1000 duration=36000 deadline=-1 | stream n=2 mem=4096 vc=4 prio=20 times=60000,60000
job class_1_000004 queue=sls_queue_1 submit=1000 duration=22000 deadline=-1 | stream n=2 mem=4096 vc=4 prio=20 times=60000,60000`

// mixedSynth exercises what the samples do not: two workloads, two
// classes in one, NORM, a discrete choice (drawn from the shared
// generator), std 0 (SLS takes mean/6), the old format beside the new.
const mixedSynth = `{"num_jobs": 12, "rand_seed": 7, "workloads": [
 {"workload_weight": 0.7, "queue_name": "etl", "job_classes": [
   {"class_name": "deadline", "user_name": "ann", "class_weight": 1, "type": "mapreduce",
    "duration": {"val": 600, "std": 60}, "reservation": {"val": 1.0}, "deadline_factor": {"val": 3},
    "tasks": [
     {"type": "map", "priority": 20, "count": {"val": 4}, "time": {"val": 120, "std": 10, "dist": "NORM"},
      "max_memory": {"val": 2048}, "max_vcores": {"discrete": [1, 2], "weights": [3, 1]}},
     {"type": "reduce", "priority": 10, "count": {"val": 2}, "time": {"val": 60}, "max_memory": {"val": 512}, "max_vcores": {"val": 1}}]},
   {"class_name": "zerostd", "user_name": "bob", "class_weight": 2,
    "duration": {"val": 50, "std": 0}, "reservation": {"val": 0.3}, "deadline_factor": {"val": 2, "std": 0},
    "tasks": [{"type": "map", "priority": 20, "count": {"val": 3, "std": 0}, "time": {"val": 7000, "std": 0, "dist": "NORM"},
      "max_memory": {"val": 1024}, "max_vcores": {"val": 1}}]}],
  "time_distribution": [{"time": 0, "weight": 2}, {"time": 600, "weight": 1}, {"time": 1200, "weight": 0}]},
 {"workload_weight": 0.3, "queue_name": "adhoc", "job_classes": [
   {"class_name": "legacy", "class_weight": 1,
    "mtasks_avg": 3, "mtasks_stddev": 0.001, "rtasks_avg": 1, "rtasks_stddev": 0.001,
    "dur_avg": 100, "dur_stddev": 1, "mtime_avg": 30, "mtime_stddev": 3, "rtime_avg": 40, "rtime_stddev": 4,
    "map_max_memory_avg": 1024, "map_max_memory_stddev": 0.001, "reduce_max_memory_avg": 4096, "reduce_max_memory_stddev": 0.001,
    "map_max_vcores_avg": 1, "map_max_vcores_stddev": 0.001, "reduce_max_vcores_avg": 2, "reduce_max_vcores_stddev": 0.001,
    "chance_of_reservation": 0.0, "deadline_factor_avg": 2.0, "deadline_factor_stddev": 0.001}],
  "time_distribution": [{"time": 60, "weight": 1}, {"time": 120, "weight": 0}]}]}`

const slsMixed = `job deadline_000000 queue=etl submit=12000 duration=570000 deadline=1722000 | map n=4 mem=2048 vc=2 prio=20 times=118,119,131,110 | reduce n=2 mem=1024 vc=1 prio=10 times=60,60
job zerostd_000001 queue=etl submit=31000 duration=40000 deadline=121625 | map n=4 mem=1024 vc=1 prio=20 times=7114,7025,6551,8147
job zerostd_000002 queue=etl submit=56000 duration=56000 deadline=-1 | map n=4 mem=1024 vc=1 prio=20 times=7512,6727,7330,5279
job legacy_000003 queue=adhoc submit=72000 duration=101000 deadline=-1 | map n=3 mem=1024 vc=1 prio=20 times=30,31,28 | reduce n=1 mem=4096 vc=2 prio=10 times=32
job legacy_000004 queue=adhoc submit=92000 duration=101000 deadline=-1 | map n=3 mem=1024 vc=1 prio=20 times=33,27,32 | reduce n=1 mem=4096 vc=2 prio=10 times=42
job legacy_000005 queue=adhoc submit=95000 duration=101000 deadline=-1 | map n=3 mem=1024 vc=1 prio=20 times=25,29,27 | reduce n=1 mem=4096 vc=2 prio=10 times=47
job legacy_000006 queue=adhoc submit=105000 duration=99000 deadline=-1 | map n=3 mem=1024 vc=1 prio=20 times=34,31,32 | reduce n=1 mem=4096 vc=2 prio=10 times=38
job legacy_000007 queue=adhoc submit=118000 duration=101000 deadline=-1 | map n=3 mem=1024 vc=1 prio=20 times=30,32,30 | reduce n=1 mem=4096 vc=2 prio=10 times=40
job deadline_000008 queue=etl submit=187000 duration=535000 deadline=1792000 | map n=4 mem=2048 vc=2 prio=20 times=110,118,113,118 | reduce n=2 mem=1024 vc=1 prio=10 times=60,60
job zerostd_000009 queue=etl submit=655000 duration=58000 deadline=-1 | map n=4 mem=1024 vc=1 prio=20 times=6252,8992,7605,8915
job zerostd_000010 queue=etl submit=954000 duration=41000 deadline=1034999 | map n=2 mem=1024 vc=1 prio=20 times=7064,6437
job zerostd_000011 queue=etl submit=1047000 duration=56000 deadline=-1 | map n=4 mem=1024 vc=1 prio=20 times=7780,7226,4935,6209`

func TestSynthMatchesSLS(t *testing.T) {
	gen := func(t *testing.T, data, name string) string {
		s, err := ReadSynth(strings.NewReader(data), name)
		require.NoError(t, err)
		tr := s.Generate(DefaultDefaults(), nil)
		require.Empty(t, tr.Dropped)
		lines := make([]string, len(tr.Jobs))
		for i, j := range tr.Jobs {
			lines[i] = slsJobLine(j)
		}
		return strings.Join(lines, "\n")
	}
	real := func(t *testing.T, name string) string {
		b, err := os.ReadFile(realinputs.Path(t, "sls", name))
		require.NoError(t, err)
		return string(b)
	}
	t.Run("syn.json", func(t *testing.T) { assert.Equal(t, slsSyn, gen(t, real(t, "syn.json"), "syn.json")) })
	t.Run("syn_generic.json", func(t *testing.T) {
		assert.Equal(t, slsSynGeneric, gen(t, real(t, "syn_generic.json"), "syn_generic.json"))
	})
	t.Run("syn_stream.json", func(t *testing.T) {
		assert.Equal(t, slsSynStream, gen(t, real(t, "syn_stream.json"), "syn_stream.json"))
	})
	t.Run("mixed", func(t *testing.T) { assert.Equal(t, slsMixed, gen(t, mixedSynth, "mixed.json")) })
}

// BenchmarkGenerate draws 10,000 jobs of the mixed file.
func BenchmarkGenerate(b *testing.B) {
	s, err := ReadSynth(strings.NewReader(strings.Replace(mixedSynth, `"num_jobs": 12`, `"num_jobs": 10000`, 1)), "mixed.json")
	require.NoError(b, err)
	b.ReportAllocs()
	tasks := 0
	for b.Loop() {
		tasks = s.Generate(DefaultDefaults(), nil).Containers()
	}
	b.ReportMetric(float64(tasks)*float64(b.N)/b.Elapsed().Seconds(), "tasks/s")
}

// A Synth built by hand with NodesPerRack below 1 counts it as 1, as
// ReadSynth does, instead of dividing by zero.
func TestSynthNodesPerRackBelowOne(t *testing.T) {
	tr := (&Synth{NumNodes: 4}).Generate(DefaultDefaults(), nil)
	require.NotNil(t, tr.Topology)
	assert.Equal(t, Topology{Nodes: 4, Racks: 4}, *tr.Topology)
}
