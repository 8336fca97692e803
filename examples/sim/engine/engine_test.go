package engine

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/capacity"
	"github.com/berthsched/berth/examples/sim/metrics"
	"github.com/berthsched/berth/examples/sim/trace"
	"github.com/berthsched/berth/fair"
	"github.com/berthsched/berth/queue"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func smallJobs() []trace.Job {
	c := berth.New(1024, 1)
	mk := func(id, q string, start berth.Time, maps, reds int, d berth.Duration) trace.Job {
		j := trace.Job{ID: id, AMType: trace.AMMapReduce, User: "u", Queue: q, Start: start, AMResource: c}
		for range maps {
			j.Tasks = append(j.Tasks, trace.Task{Duration: d, Resource: c, Priority: 20, Type: trace.TypeMap})
		}
		for range reds {
			j.Tasks = append(j.Tasks, trace.Task{Duration: d, Resource: c, Priority: 10, Type: trace.TypeReduce})
		}
		return j
	}
	return []trace.Job{mk("a", "a", 0, 4, 2, 10_000), mk("b", "b", 5_000, 3, 1, 20_000)}
}

func nodes(n int) []trace.Node {
	return trace.GenerateNodes(trace.Topology{Nodes: n, Racks: 1}, trace.Defaults{Node: berth.New(4096, 4)})
}

// TestMapReduceOrder runs two small jobs and checks SLS's MapReduce model:
// the AM first, maps, then reduces, and the job ends after its last
// reduce.
func TestMapReduceOrder(t *testing.T) {
	for _, sched := range []string{"capacity", "fair"} {
		t.Run(sched, func(t *testing.T) {
			clock := berth.NewManualClock(0)
			var s Scheduler
			var st Stats
			if sched == "capacity" {
				cfg := capacity.DefaultConfig()
				cfg.Root.Children = []capacity.QueueConfig{capacity.Queue("a", 50), capacity.Queue("b", 50)}
				cfg.Clock = clock
				cs, err := capacity.New(cfg)
				require.NoError(t, err)
				s, st = cs, NewCapacityStats(cs)
			} else {
				af := fair.DefaultAllocationFile()
				conf := fair.DefaultConfig()
				conf.Allocation = af
				conf.Clock = clock
				fs, err := fair.New(conf)
				require.NoError(t, err)
				s, st = fs, NewFairStats(fs)
			}
			e, err := New(Config{Clock: clock, Scheduler: s, Stats: st, Nodes: nodes(2), Jobs: smallJobs()})
			require.NoError(t, err)
			run, err := e.Run()
			require.NoError(t, err)
			require.Len(t, run.Jobs, 2)
			for _, j := range run.Jobs {
				assert.Positive(t, j.Finished, j.ID)
				assert.GreaterOrEqual(t, j.AMStarted, j.Submitted)
				assert.GreaterOrEqual(t, j.FirstTask, j.AMStarted)
			}
			a := run.Jobs[0]
			// Maps take 10 s, then reduces 10 s more: at least 20 s.
			assert.GreaterOrEqual(t, a.Finished-a.AMStarted, berth.Duration(20_000))
			assert.Equal(t, 7, a.Containers)
			assert.Zero(t, run.Unfinished)
		})
	}
}

func capacitySched(t *testing.T, clock *berth.ManualClock) *capacity.Scheduler {
	cfg := capacity.DefaultConfig()
	cfg.Root.Children = []capacity.QueueConfig{capacity.Queue("a", 50), capacity.Queue("b", 50)}
	cfg.Clock = clock
	s, err := capacity.New(cfg)
	require.NoError(t, err)
	return s
}

// TestStreaming checks SLS's streaming model: streams are asked for again
// when they end, until the job's lifetime has passed.
func TestStreaming(t *testing.T) {
	clock := berth.NewManualClock(0)
	s := capacitySched(t, clock)
	c := berth.New(1024, 1)
	job := trace.Job{ID: "s", AMType: trace.AMStream, User: "u", Queue: "a", Start: 0, End: 60_000, AMResource: c,
		Tasks: []trace.Task{{Duration: 20_000, Resource: c, Priority: 20, Type: trace.TypeMap}, {Duration: 20_000, Resource: c, Priority: 20, Type: trace.TypeMap}}}
	e, err := New(Config{Clock: clock, Scheduler: s, Stats: NewCapacityStats(s), Nodes: nodes(2), Jobs: []trace.Job{job}})
	require.NoError(t, err)
	run, err := e.Run()
	require.NoError(t, err)
	j := run.Jobs[0]
	assert.Equal(t, j.AMStarted+60_000, j.Finished, "the lifetime runs from the AM's start")
	// Each stream runs about three times in 60 s (a little less with the
	// heartbeat reporting delays), plus the AM.
	assert.GreaterOrEqual(t, j.Containers, 1+2*2)
	assert.LessOrEqual(t, j.Containers, 1+2*3)
	assert.Zero(t, run.Released, "no container beyond the asks")
}

// TestNodeLoss: a node lost mid-run takes its containers; their tasks are
// asked for again and the job still finishes, later; the node comes back.
func TestNodeLoss(t *testing.T) {
	clock := berth.NewManualClock(0)
	s := capacitySched(t, clock)
	jobs := smallJobs()[:1]
	e, err := New(Config{Clock: clock, Scheduler: s, Stats: NewCapacityStats(s), Nodes: nodes(2), Jobs: jobs, SampleInterval: 1000,
		NodeEvents: []NodeEvent{{At: 5_000, Node: "node0", Down: true}, {At: 8_000, Node: "node0"}}})
	require.NoError(t, err)
	run, err := e.Run()
	require.NoError(t, err)
	j := run.Jobs[0]
	assert.Positive(t, j.Lost)
	assert.Positive(t, j.Finished)
	assert.Greater(t, j.Containers, 7, "lost containers were replaced")
	var down, up bool
	for _, sm := range run.Samples {
		if sm.Time > 5_000 && sm.Time < 8_000 {
			down = down || sm.Nodes == 1
		}
		if sm.Time > 8_000 {
			up = up || sm.Nodes == 2
		}
	}
	assert.True(t, down)
	assert.True(t, up)
}

func TestConfigErrors(t *testing.T) {
	clock := berth.NewManualClock(0)
	s := capacitySched(t, clock)
	st := NewCapacityStats(s)
	dup := smallJobs()
	dup[1].ID = dup[0].ID
	for name, cfg := range map[string]Config{
		"no clock":        {Scheduler: s, Stats: st, Nodes: nodes(1)},
		"no nodes":        {Clock: clock, Scheduler: s, Stats: st},
		"negative":        {Clock: clock, Scheduler: s, Stats: st, Nodes: nodes(1), NodeHeartbeat: -1},
		"duplicate job":   {Clock: clock, Scheduler: s, Stats: st, Nodes: nodes(1), Jobs: dup},
		"unknown node":    {Clock: clock, Scheduler: s, Stats: st, Nodes: nodes(1), NodeEvents: []NodeEvent{{Node: "x"}}},
		"follower alone":  {Clock: clock, Scheduler: s, Stats: st, Nodes: nodes(1), FollowerInterval: 5, Reservations: nil, Follower: nil, IdleBackoff: -1},
		"no tasks":        {Clock: clock, Scheduler: s, Stats: st, Nodes: nodes(1), Jobs: []trace.Job{{ID: "x"}}},
		"duplicate nodes": {Clock: clock, Scheduler: s, Stats: st, Nodes: append(nodes(1), nodes(1)...)},
	} {
		_, err := New(cfg)
		var ce *ConfigError
		assert.True(t, errors.As(err, &ce), "%s: %v", name, err)
		assert.ErrorIs(t, err, berth.ErrInvalidArgument, name)
	}
}

// TestObservedCountsAgree: the running containers and applications the
// engine counts from the scheduler's events are the scheduler's own, at
// whatever time the run stops; containers lost with a node are counted
// per job and in total alike.
func TestObservedCountsAgree(t *testing.T) {
	sawLost := false
	for _, end := range []berth.Time{3_000, 12_000, 31_000, 0} {
		clock := berth.NewManualClock(0)
		s := capacitySched(t, clock)
		e, err := New(Config{Clock: clock, Scheduler: s, Stats: NewCapacityStats(s), Nodes: nodes(2), Jobs: smallJobs(),
			SampleInterval: 1000, End: end, NodeEvents: []NodeEvent{{At: 7_000, Node: "node1", Down: true}, {At: 9_000, Node: "node1"}}})
		require.NoError(t, err)
		run, err := e.Run()
		require.NoError(t, err)
		last := run.Samples[len(run.Samples)-1]
		snap := s.Snapshot()
		assert.Equal(t, len(snap.Containers), last.RunningContainers, "end %d", end)
		var held berth.Resource
		for _, c := range snap.Containers {
			held = held.Add(c.Resource)
		}
		assert.Equal(t, held, last.Allocated, "end %d: allocated is what the live containers hold", end)
		assert.Equal(t, len(snap.Apps), last.RunningApps, "end %d", end)
		lost := 0
		for _, j := range run.Jobs {
			lost += j.Lost
		}
		assert.Equal(t, last.Lost, lost, "per job and in total")
		sawLost = sawLost || lost > 0
	}
	assert.True(t, sawLost, "the node loss took containers")
}

// TestLostCountsEveryEndedContainer: losing the node of a job's AM ends
// the attempt, and with it the tasks running on other nodes; every one of
// them counts as lost (the node loss ended them), not only the AM.
func TestLostCountsEveryEndedContainer(t *testing.T) {
	clock := berth.NewManualClock(0)
	s := capacitySched(t, clock)
	c := berth.New(1024, 1)
	job := trace.Job{ID: "j", AMType: trace.AMMapReduce, User: "u", Queue: "a", Start: 1000, AMResource: c}
	for range 4 {
		job.Tasks = append(job.Tasks, trace.Task{Duration: 60_000, Resource: c, Priority: 20, Type: trace.TypeMap})
	}
	// The AM can only land on "small" (1 GB, alone until 5 s); the tasks
	// then run on "big".
	ns := []trace.Node{{ID: "small", Rack: "/r0", Resource: c}, {ID: "big", Rack: "/r1", Resource: berth.New(8192, 8)}}
	e, err := New(Config{Clock: clock, Scheduler: s, Stats: NewCapacityStats(s), Nodes: ns, Jobs: []trace.Job{job},
		NodeEvents: []NodeEvent{{At: 0, Node: "big", Down: true}, {At: 5000, Node: "big"}, {At: 30_000, Node: "small", Down: true}}})
	require.NoError(t, err)
	run, err := e.Run()
	require.NoError(t, err)
	j := run.Jobs[0]
	assert.Equal(t, 5, j.Lost, "the AM and its four running tasks")
	assert.Equal(t, 4, run.LostWithAM)
	assert.Equal(t, 5, run.Samples[len(run.Samples)-1].Lost)
	assert.Equal(t, 2, j.Attempts)
	assert.Equal(t, "big", j.AMNode, "the second attempt's AM")
	assert.Positive(t, j.Finished)
}

// spreadRun replays 150 jobs arriving on whole seconds (as SYNTH's do),
// each an AM and six 1 GB tasks of 120 s, on 100 nodes of 8 GB in ten
// racks (node i in rack i/10), and fails racks 7 to 9 at 240 s with the
// cluster about half full. It returns the run stopped just after the
// failure, with a sample just before it.
func spreadRun(t *testing.T, exact bool) *metrics.Run {
	t.Helper()
	const fail = 240_000
	clock := berth.NewManualClock(0)
	cfg := capacity.DefaultConfig()
	cfg.Root.Children = []capacity.QueueConfig{capacity.Queue("a", 100)}
	cfg.Root.Children[0].Settings.UserLimitFactor = 10
	cfg.Clock = clock
	s, err := capacity.New(cfg)
	require.NoError(t, err)
	ns := trace.GenerateNodes(trace.Topology{Nodes: 100, Racks: 10}, trace.Defaults{Node: berth.New(8192, 8)})
	c := berth.New(1024, 1)
	var jobs []trace.Job
	for i := range 150 {
		j := trace.Job{ID: fmt.Sprintf("j%03d", i), AMType: trace.AMMapReduce, User: "u", Queue: "a", Start: berth.Time(i) * 2000, AMResource: c}
		for range 6 {
			j.Tasks = append(j.Tasks, trace.Task{Duration: 120_000, Resource: c, Priority: 20, Type: trace.TypeMap})
		}
		jobs = append(jobs, j)
	}
	var events []NodeEvent
	for _, n := range ns[70:] {
		events = append(events, NodeEvent{At: fail, Node: n.ID, Down: true})
	}
	e, err := New(Config{Clock: clock, Scheduler: s, Stats: NewCapacityStats(s), Nodes: ns, Jobs: jobs, Seed: 7,
		ExactSubmissions: exact, NodeEvents: events, SampleInterval: fail - 1, End: fail})
	require.NoError(t, err)
	run, err := e.Run()
	require.NoError(t, err)
	return run
}

// TestAMsSpreadOverNodes: with heartbeat phases drawn per node and each
// submission at its own point of the heartbeat cycle, the AMs of jobs
// that arrive on whole seconds land all over the cluster; submitted
// exactly on the second, they pile up on the few nodes that heartbeat
// first after it (as many as their room takes).
func TestAMsSpreadOverNodes(t *testing.T) {
	amNodes := func(r *metrics.Run) (distinct, most int) {
		per := map[string]int{}
		for _, j := range r.Jobs {
			if j.AMNode != "" {
				per[j.AMNode]++
				most = max(most, per[j.AMNode])
			}
		}
		return len(per), most
	}
	distinct, most := amNodes(spreadRun(t, false))
	assert.GreaterOrEqual(t, distinct, 50, "AMs of 120 launched jobs over at least half the nodes")
	assert.LessOrEqual(t, most, 10, "no node hosts more than a few AMs")
	distinct, _ = amNodes(spreadRun(t, true))
	assert.LessOrEqual(t, distinct, 15, "exact whole-second submissions meet the same few nodes first")
}

// TestRackFailureLosesItsShare: racks 7 to 9 hold 30 % of the cluster;
// their failure takes about 30 % of the running containers (within 10
// points), wherever the scheduler placed them, because the heartbeat
// order that decides placement is drawn per node, not by index.
func TestRackFailureLosesItsShare(t *testing.T) {
	run := spreadRun(t, false)
	var before *metrics.Sample
	for i := range run.Samples {
		if run.Samples[i].Time == 239_999 {
			before = &run.Samples[i]
		}
	}
	require.NotNil(t, before)
	require.Greater(t, before.RunningContainers, 300, "the cluster is loaded")
	require.Less(t, before.RunningContainers, 700, "and not full (a full cluster loses its share anyway)")
	after := run.Samples[len(run.Samples)-1]
	onRacks := after.Lost - run.LostWithAM
	share := float64(onRacks) / float64(before.RunningContainers)
	assert.InDelta(t, 0.30, share, 0.10, "lost %d of %d running", onRacks, before.RunningContainers)
	assert.Equal(t, 70, after.Nodes)
}

// TestAdaptiveSampling: without a fixed period a short run keeps a
// sample a second (SLS's default), and a long one about SampleBudget
// samples, evenly spaced; a fixed period is kept as given.
func TestAdaptiveSampling(t *testing.T) {
	c := berth.New(1024, 1)
	long := func(d berth.Duration) []trace.Job {
		return []trace.Job{{ID: "j", AMType: trace.AMMapReduce, User: "u", Queue: "a", AMResource: c,
			Tasks: []trace.Task{{Duration: d, Resource: c, Priority: 20, Type: trace.TypeMap}}}}
	}
	run := func(d, every berth.Duration, budget int) *metrics.Run {
		clock := berth.NewManualClock(0)
		s := capacitySched(t, clock)
		e, err := New(Config{Clock: clock, Scheduler: s, Stats: NewCapacityStats(s), Nodes: nodes(1), Jobs: long(d),
			SampleInterval: every, SampleBudget: budget})
		require.NoError(t, err)
		r, err := e.Run()
		require.NoError(t, err)
		return r
	}
	spacing := func(r *metrics.Run) berth.Duration {
		grid := r.Samples[:len(r.Samples)-1] // the last is the run's end
		step := grid[1].Time - grid[0].Time
		for i := 1; i < len(grid); i++ {
			require.Equal(t, step, grid[i].Time-grid[i-1].Time, "evenly spaced at %d", i)
		}
		return step
	}
	four := run(240_000, 0, 0)
	assert.Equal(t, berth.Duration(1000), spacing(four))
	assert.GreaterOrEqual(t, len(four.Samples), 240)
	used := 0
	for _, sm := range four.Samples {
		if sm.Queues[0].Used.Memory > 0 {
			used++
		}
	}
	assert.Greater(t, used, 200, "the queue's use shows in nearly every sample")

	day := run(86_400_000, 0, 500)
	assert.Equal(t, berth.Duration(128_000), spacing(day), "1 s doubled until under 1,000 samples")
	assert.GreaterOrEqual(t, len(day.Samples), 500)
	assert.LessOrEqual(t, len(day.Samples), 1000)

	fixed := run(240_000, 60_000, 0)
	assert.Equal(t, berth.Duration(60_000), spacing(fixed))
	assert.Len(t, fixed.Samples, 6, "0, 60, 120, 180, 240 s and the end")
}

// TestStall: a run whose only unfinished job asks for more than any node
// holds stops an hour after the last change, marked stalled; a task that
// runs for hours is progress to come, not a stall.
func TestStall(t *testing.T) {
	c := berth.New(1024, 1)
	job := func(id, q string, task berth.Resource, d berth.Duration) trace.Job {
		return trace.Job{ID: id, AMType: trace.AMMapReduce, User: id, Queue: q, AMResource: c,
			Tasks: []trace.Task{{Duration: d, Resource: task, Priority: 20, Type: trace.TypeMap}}}
	}
	run := func(jobs ...trace.Job) *metrics.Run {
		clock := berth.NewManualClock(0)
		s := capacitySched(t, clock)
		e, err := New(Config{Clock: clock, Scheduler: s, Stats: NewCapacityStats(s), Nodes: nodes(2), Jobs: jobs})
		require.NoError(t, err)
		r, err := e.Run()
		require.NoError(t, err)
		return r
	}
	long := run(job("long", "a", c, 2*3_600_000))
	assert.False(t, long.Stalled, "a two-hour task is not a stall")
	assert.Zero(t, long.Unfinished)

	stuck := run(job("long", "a", c, 2*3_600_000), job("huge", "b", berth.New(6144, 1), 1000))
	assert.True(t, stuck.Stalled)
	assert.Equal(t, 1, stuck.Unfinished)
	assert.Positive(t, stuck.Jobs[0].Finished)
	assert.Zero(t, stuck.Jobs[1].Finished)
	assert.GreaterOrEqual(t, stuck.StalledSince, stuck.Jobs[0].Finished, "the last change was the long job's end")
	assert.LessOrEqual(t, stuck.End, stuck.StalledSince+3_600_000, "stopped an hour later")
	assert.Greater(t, stuck.End, stuck.StalledSince+3_500_000, "stopped an hour later")
}

// countingStats counts the samples read.
type countingStats struct {
	Stats
	reads int
}

func (c *countingStats) Read(dst []metrics.QueueSample) { c.reads++; c.Stats.Read(dst) }

// TestSamplingStartsFromTheInputs: when the trace says the run spans a
// day, adaptive sampling starts at the period that suits a day instead
// of reading a sample a second only to thin them out.
func TestSamplingStartsFromTheInputs(t *testing.T) {
	c := berth.New(1024, 1)
	clock := berth.NewManualClock(0)
	s := capacitySched(t, clock)
	st := &countingStats{Stats: NewCapacityStats(s)}
	job := trace.Job{ID: "j", AMType: trace.AMMapReduce, User: "u", Queue: "a", AMResource: c, End: 86_400_000,
		Tasks: []trace.Task{{Duration: 86_400_000, Resource: c, Priority: 20, Type: trace.TypeMap}}}
	e, err := New(Config{Clock: clock, Scheduler: s, Stats: st, Nodes: nodes(1), Jobs: []trace.Job{job}, SampleBudget: 500})
	require.NoError(t, err)
	run, err := e.Run()
	require.NoError(t, err)
	assert.Equal(t, berth.Time(128_000), run.Samples[1].Time, "86,400 s / 128 s < 1,000 samples")
	assert.Equal(t, len(run.Samples), st.reads, "every sample read was kept")
}

// TestFairStatsCreatedQueues: under the fair scheduler with no queues
// declared, the queues the placement policy creates for the jobs are
// reported from the start, and their use shows once they run.
func TestFairStatsCreatedQueues(t *testing.T) {
	clock := berth.NewManualClock(0)
	fcfg := fair.DefaultConfig()
	fcfg.Allocation = fair.DefaultAllocationFile()
	fcfg.Clock = clock
	s, err := fair.New(fcfg)
	require.NoError(t, err)
	jobs := smallJobs() // in queues a and b, neither declared
	st := NewFairStats(s)
	st.Expect(jobs)
	assert.Subset(t, st.Queues(), []string{"root.a", "root.b"})
	e, err := New(Config{Clock: clock, Scheduler: s, Stats: st, Nodes: nodes(2), Jobs: jobs, SampleInterval: 1000})
	require.NoError(t, err)
	run, err := e.Run()
	require.NoError(t, err)
	for _, q := range []string{"root.a", "root.b"} {
		i := slices.Index(run.Queues, q)
		require.GreaterOrEqual(t, i, 0, q)
		used := false
		for _, sm := range run.Samples {
			used = used || sm.Queues[i].Used.Memory > 0
		}
		assert.True(t, used, "%s's use is sampled", q)
	}
}

// A run counts why applications waited, per queue, under either
// scheduler; the counting changes nothing the run decides. Queue a, held
// at 2 GB (maxResources, maximum-capacity), waits most at its maximum.
func TestWaitReasons(t *testing.T) {
	for _, sched := range []string{"capacity", "fair"} {
		t.Run(sched, func(t *testing.T) {
			run := func(noReasons bool) *metrics.Run {
				clock := berth.NewManualClock(0)
				var s Scheduler
				var st Stats
				if sched == "capacity" {
					cfg := capacity.DefaultConfig()
					a := capacity.Queue("a", 25)
					a.MaxCapacity = queue.Percent(25)
					cfg.Root.Children = []capacity.QueueConfig{a, capacity.Queue("b", 75)}
					cfg.Clock = clock
					cs, err := capacity.New(cfg)
					require.NoError(t, err)
					s, st = cs, NewCapacityStats(cs)
				} else {
					af, err := fair.ParseAllocationFile([]byte(`<allocations><queue name="a"><maxResources>2048 mb, 2 vcores</maxResources></queue><queue name="b"/></allocations>`), fair.ParseOptions{})
					require.NoError(t, err)
					conf := fair.DefaultConfig()
					conf.Allocation = af
					conf.Clock = clock
					fs, err := fair.New(conf)
					require.NoError(t, err)
					s, st = fs, NewFairStats(fs)
				}
				e, err := New(Config{Clock: clock, Scheduler: s, Stats: st, Nodes: nodes(2), Jobs: smallJobs(), NoWaitReasons: noReasons})
				require.NoError(t, err)
				r, err := e.Run()
				require.NoError(t, err)
				return r
			}
			with, without := run(false), run(true)
			require.NotEmpty(t, with.Waits)
			assert.Nil(t, without.Waits)
			assert.Equal(t, without.Jobs, with.Jobs, "counting the reasons changes no decision")
			assert.Equal(t, without.Samples, with.Samples)
			var a *metrics.QueueWaits
			for i := range with.Waits {
				w := &with.Waits[i]
				sum := 0
				for _, rc := range w.Reasons {
					sum += rc.Attempts
				}
				assert.Equal(t, w.Attempts, sum, w.Queue)
				if w.Queue == "root.a" {
					a = w
				}
			}
			require.NotNil(t, a, "queue a waits at its maximum: %+v", with.Waits)
			assert.Equal(t, "queue-limit", a.Reasons[0].Reason, "%+v", a)
		})
	}
}
