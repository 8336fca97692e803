package engine

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/capacity"
	"github.com/berthsched/berth/examples/sim/metrics"
	"github.com/berthsched/berth/examples/sim/trace"
	"github.com/berthsched/berth/fair"
)

// syntheticDay builds a day of MapReduce jobs over four queues: jobs
// arrive uniformly, each with maps and a few reduces of 2 GB running 5 to
// 60 minutes; containers counts the task containers.
func syntheticDay(jobs int, seed uint64) (out []trace.Job, containers int) {
	r := rand.New(rand.NewPCG(seed, 1))
	queues := []string{"a", "b", "c", "d"}
	c := berth.New(2048, 1)
	for i := range jobs {
		j := trace.Job{ID: fmt.Sprintf("job_%06d", i), AMType: trace.AMMapReduce, User: fmt.Sprintf("u%d", i%7),
			Queue: queues[i%len(queues)], Start: berth.Time(i) * 86_400_000 / berth.Time(jobs), AMResource: berth.New(1024, 1)}
		maps, reds := 40+r.IntN(20), 2+r.IntN(4)
		for k := range maps + reds {
			t := trace.Task{Duration: berth.Duration(300_000 + r.Int64N(3_300_000)), Resource: c, Priority: 20, Type: trace.TypeMap}
			if k >= maps {
				t.Priority, t.Type = 10, trace.TypeReduce
			}
			j.Tasks = append(j.Tasks, t)
		}
		containers += maps + reds
		out = append(out, j)
	}
	return out, containers
}

// BenchmarkSyntheticDay5000 replays a synthetic day on 5,000 nodes with
// more than 1,000,000 task containers through the capacity scheduler
// (issue 10's performance target: ≤ 60 s, ≤ 2 GB). It reports simulated
// seconds per wall second (SLS runs at 1), containers per second and the
// peak heap.
func BenchmarkSyntheticDay5000(b *testing.B) {
	jobs, containers := syntheticDay(20_000, 1)
	if containers < 1_000_000 {
		b.Fatalf("only %d containers", containers)
	}
	nodes := trace.GenerateNodes(trace.Topology{Nodes: 5000, Racks: 125}, trace.Defaults{Node: berth.New(65536, 32)})
	b.ReportAllocs()
	for b.Loop() {
		cfg := capacity.DefaultConfig()
		cfg.Root.Children = nil
		for i, name := range []string{"a", "b", "c", "d"} {
			q := capacity.Queue(name, float32(40-10*i))
			q.MaxCapacity = q.Capacity // each held to its share: queues wait
			cfg.Root.Children = append(cfg.Root.Children, q)
		}
		for i := range cfg.Root.Children {
			cfg.Root.Children[i].Settings.UserLimitFactor = 10
			cfg.Root.Children[i].MaxCapacity = cfg.Root.Capacity
		}
		cfg.MaxOffSwitchAssignments = 4
		clock := berth.NewManualClock(0)
		cfg.Clock = clock
		s, err := capacity.New(cfg)
		if err != nil {
			b.Fatal(err)
		}
		e, err := New(Config{Clock: clock, Scheduler: s, Stats: NewCapacityStats(s), Nodes: nodes, Jobs: jobs, SampleInterval: 300_000})
		if err != nil {
			b.Fatal(err)
		}
		peak := uint64(0)
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() { // sample the heap while the run goes on
			defer close(done)
			var ms runtime.MemStats
			for {
				select {
				case <-stop:
					return
				case <-time.After(500 * time.Millisecond):
					runtime.ReadMemStats(&ms)
					peak = max(peak, ms.HeapInuse)
				}
			}
		}()
		start := time.Now()
		run, err := e.Run()
		wall := time.Since(start)
		close(stop)
		<-done
		if err != nil {
			b.Fatal(err)
		}
		if run.Unfinished > 0 {
			b.Fatalf("%d jobs unfinished", run.Unfinished)
		}
		total := 0
		for _, j := range run.Jobs {
			total += j.Containers
		}
		b.ReportMetric(float64(run.End)/1000/wall.Seconds(), "sim-s/wall-s")
		b.ReportMetric(float64(total)/wall.Seconds(), "containers/s")
		b.ReportMetric(float64(total), "containers")
		b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
		b.ReportMetric(float64(run.Events), "events")
	}
}

// oneJob is one MapReduce job of n maps of 1 GB, 10 to 16 s each; with
// hosts, every map prefers a node of the cluster (as an SLS trace's
// container.host does), so the AM asks per host and rack too.
func oneJob(n int, hosts []trace.Node) trace.Job {
	c := berth.New(1024, 1)
	j := trace.Job{ID: "big", AMType: trace.AMMapReduce, User: "u", Queue: "a", AMResource: c, Tasks: make([]trace.Task, n)}
	for k := range j.Tasks {
		j.Tasks[k] = trace.Task{Duration: berth.Duration(10_000 + k%7*1000), Resource: c, Priority: 20, Type: trace.TypeMap}
		if len(hosts) > 0 {
			h := hosts[k%len(hosts)]
			j.Tasks[k].Host = h.Rack + "/" + h.ID
		}
	}
	return j
}

// runOneJob replays one job of n tasks on 100 nodes of 64 GB under the
// capacity scheduler and returns the run.
func runOneJob(tb testing.TB, n int, located bool) *metrics.Run {
	tb.Helper()
	clock := berth.NewManualClock(0)
	cfg := capacity.DefaultConfig()
	cfg.Root.Children = []capacity.QueueConfig{capacity.Queue("a", 100)}
	cfg.Clock = clock
	s, err := capacity.New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	ns := trace.GenerateNodes(trace.Topology{Nodes: 100, Racks: 5}, trace.Defaults{Node: berth.New(65536, 64)})
	var hosts []trace.Node
	if located {
		hosts = ns
	}
	e, err := New(Config{Clock: clock, Scheduler: s, Stats: NewCapacityStats(s), Nodes: ns, Jobs: []trace.Job{oneJob(n, hosts)}})
	if err != nil {
		tb.Fatal(err)
	}
	run, err := e.Run()
	if err != nil {
		tb.Fatal(err)
	}
	if run.Unfinished > 0 || run.Jobs[0].Containers != n+1 {
		tb.Fatalf("%d unfinished, %d containers", run.Unfinished, run.Jobs[0].Containers)
	}
	return run
}

// BenchmarkOneJob replays one job of 100,000 and of 1,000,000 tasks (any
// host, and each preferring a node): the cost per container must not grow
// with the job: the large job within 10× the small one's cost.
func BenchmarkOneJob(b *testing.B) {
	for _, located := range []bool{false, true} {
		for _, n := range []int{100_000, 1_000_000} {
			b.Run(fmt.Sprintf("tasks=%d/located=%t", n, located), func(b *testing.B) {
				b.ReportAllocs()
				cpu := cpuTime()
				for b.Loop() {
					runOneJob(b, n, located)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/container")
				b.ReportMetric(float64((cpuTime()-cpu).Nanoseconds())/float64(b.N)/float64(n), "cpu-ns/container")
			})
		}
	}
}

// BenchmarkDayWaitReasons replays a tenth of the synthetic day (2,000
// jobs, ~100,000 containers) on 150 nodes through each scheduler, with and
// without the run counting why applications waited (Config.NoWaitReasons),
// and reports CPU seconds per run.
func BenchmarkDayWaitReasons(b *testing.B) {
	jobs, _ := syntheticDay(2000, 1)
	nodes := trace.GenerateNodes(trace.Topology{Nodes: 150, Racks: 6}, trace.Defaults{Node: berth.New(65536, 32)})
	for _, sched := range []string{"capacity", "fair"} {
		for _, off := range []bool{true, false} {
			b.Run(fmt.Sprintf("%s/reasons=%t", sched, !off), func(b *testing.B) {
				var cpu time.Duration
				for b.Loop() {
					clock := berth.NewManualClock(0)
					s, st := dayScheduler(b, sched, clock)
					e, err := New(Config{Clock: clock, Scheduler: s, Stats: st, Nodes: nodes, Jobs: jobs, SampleInterval: 300_000, NoWaitReasons: off})
					if err != nil {
						b.Fatal(err)
					}
					cpu0 := cpuTime()
					run, err := e.Run()
					cpu += cpuTime() - cpu0
					if err != nil {
						b.Fatal(err)
					}
					if !off && len(run.Waits) == 0 {
						b.Fatal("no reasons counted")
					}
				}
				b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/run")
			})
		}
	}
}

// dayScheduler is the named scheduler over the synthetic day's four
// queues (weights, or capacities held to their maximum, 4:3:2:1).
func dayScheduler(b *testing.B, sched string, clock *berth.ManualClock) (Scheduler, Stats) {
	if sched == "capacity" {
		cfg := capacity.DefaultConfig()
		cfg.Root.Children = nil
		for i, name := range []string{"a", "b", "c", "d"} {
			q := capacity.Queue(name, float32(40-10*i))
			q.MaxCapacity = q.Capacity // each held to its share: queues wait
			cfg.Root.Children = append(cfg.Root.Children, q)
		}
		cfg.Clock = clock
		s, err := capacity.New(cfg)
		if err != nil {
			b.Fatal(err)
		}
		return s, NewCapacityStats(s)
	}
	af, err := fair.ParseAllocationFile([]byte(`<allocations><queue name="a"><weight>4</weight></queue><queue name="b"><weight>3</weight></queue><queue name="c"><weight>2</weight></queue><queue name="d"/></allocations>`), fair.ParseOptions{})
	if err != nil {
		b.Fatal(err)
	}
	conf := fair.DefaultConfig()
	conf.Allocation = af
	conf.Clock = clock
	s, err := fair.New(conf)
	if err != nil {
		b.Fatal(err)
	}
	return s, NewFairStats(s)
}
