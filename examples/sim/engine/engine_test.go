package engine

import (
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/capacity"
	"github.com/berthsched/berth/examples/sim/trace"
	"github.com/berthsched/berth/fair"
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
				cs, err := capacity.New(cfg, clock)
				require.NoError(t, err)
				s, st = cs, NewCapacityStats(cs)
			} else {
				af := fair.DefaultAllocationFile()
				fs, err := fair.New(fair.DefaultConfig(), af, clock)
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
