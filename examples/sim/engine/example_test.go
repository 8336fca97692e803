package engine_test

import (
	"fmt"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/capacity"
	"github.com/berthsched/berth/examples/sim/engine"
	"github.com/berthsched/berth/examples/sim/trace"
)

// A unit test of a scheduling idea in a few lines: two jobs on two nodes
// under the capacity scheduler, and when each finished.
func Example() {
	cfg := capacity.DefaultConfig()
	cfg.Root.Children = []capacity.QueueConfig{capacity.Queue("prod", 70), capacity.Queue("dev", 30)}
	clock := berth.NewManualClock(0)
	cfg.Clock = clock
	s, err := capacity.New(cfg)
	if err != nil {
		panic(err)
	}
	task := func(d berth.Duration) trace.Task {
		return trace.Task{Duration: d, Resource: berth.New(1024, 1), Priority: 20, Type: trace.TypeMap}
	}
	jobs := []trace.Job{
		{ID: "etl", AMType: trace.AMMapReduce, User: "ann", Queue: "prod", AMResource: berth.New(1024, 1),
			Tasks: []trace.Task{task(30_000), task(30_000), task(30_000)}},
		{ID: "adhoc", AMType: trace.AMMapReduce, User: "bo", Queue: "dev", Start: 2000, AMResource: berth.New(1024, 1),
			Tasks: []trace.Task{task(10_000)}},
	}
	nodes := trace.GenerateNodes(trace.Topology{Nodes: 2, Racks: 1}, trace.Defaults{Node: berth.New(4096, 4)})
	e, err := engine.New(engine.Config{Clock: clock, Scheduler: s, Stats: engine.NewCapacityStats(s), Nodes: nodes, Jobs: jobs})
	if err != nil {
		panic(err)
	}
	run, err := e.Run()
	if err != nil {
		panic(err)
	}
	for _, j := range run.Jobs {
		fmt.Printf("%s in %s: submitted %d ms, first task %d ms, finished %d ms\n", j.ID, j.RanIn, j.Submitted, j.FirstTask, j.Finished)
	}
	// Output:
	// etl in root.prod: submitted 911 ms, first task 1440 ms, finished 32440 ms
	// adhoc in root.dev: submitted 2612 ms, first task 3440 ms, finished 13440 ms
}
