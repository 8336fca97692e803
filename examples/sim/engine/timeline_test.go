package engine

import (
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/capacity"
	"github.com/berthsched/berth/examples/sim/metrics"
	"github.com/berthsched/berth/follower"
	"github.com/berthsched/berth/queue"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// killTwo preempts the two newest task containers of queue root.a at its
// round at time at, as a preemption policy would.
type killTwo struct {
	s  *capacity.Scheduler
	at berth.Time
}

func (k *killTwo) Round(now berth.Time) ([]queue.Ended, error) {
	if now != k.at {
		return nil, nil
	}
	var out []queue.Ended
	cs := k.s.Snapshot().Containers
	for i := len(cs) - 1; i >= 0 && len(out) < 2; i-- {
		if c := cs[i]; c.Queue == "root.a" && !c.AM {
			en, err := k.s.PreemptContainer(c.ID)
			if err != nil {
				return out, err
			}
			out = append(out, en)
		}
	}
	return out, nil
}

// TestTimeline: the run's timeline records the node lost with what its
// loss ended and its return, and one preemption round's kills per queue,
// in time order.
func TestTimeline(t *testing.T) {
	clock := berth.NewManualClock(0)
	s := capacitySched(t, clock)
	e, err := New(Config{Clock: clock, Scheduler: s, Stats: NewCapacityStats(s), Nodes: nodes(2), Jobs: smallJobs(),
		SampleInterval: 1000, PreemptionInterval: 1000, Preemptor: &killTwo{s: s, at: 12_000},
		NodeEvents: []NodeEvent{{At: 5_000, Node: "node0", Down: true}, {At: 8_000, Node: "node0"}}})
	require.NoError(t, err)
	run, err := e.Run()
	require.NoError(t, err)

	var kinds []metrics.EventKind
	for i, ev := range run.Timeline {
		kinds = append(kinds, ev.Kind)
		if i > 0 {
			assert.GreaterOrEqual(t, ev.Time, run.Timeline[i-1].Time, "time order")
		}
	}
	require.Equal(t, []metrics.EventKind{metrics.NodeLost, metrics.NodeReturned, metrics.Preempted}, kinds)
	lost, back, killed := run.Timeline[0], run.Timeline[1], run.Timeline[2]
	assert.Equal(t, metrics.Event{Time: 5_000, Kind: metrics.NodeLost, Node: "node0", Rack: lost.Rack, Containers: lost.Containers, AMs: lost.AMs, Resource: berth.New(4096, 4)}, lost)
	assert.NotEmpty(t, lost.Rack)
	sumLost, restarts := 0, 0
	for _, j := range run.Jobs {
		sumLost += j.Lost
		restarts += j.Attempts - 1
	}
	assert.Positive(t, lost.Containers)
	assert.Equal(t, sumLost, lost.Containers, "every container the loss ended")
	assert.Equal(t, restarts, lost.AMs, "each AM lost restarted its application")
	assert.Equal(t, metrics.Event{Time: 8_000, Kind: metrics.NodeReturned, Node: "node0", Rack: lost.Rack, Resource: berth.New(4096, 4)}, back)
	assert.Equal(t, metrics.Event{Time: 12_000, Kind: metrics.Preempted, Queue: "root.a", Containers: 2, Resource: berth.New(2048, 2)}, killed)
	assert.Equal(t, 2, run.Samples[len(run.Samples)-1].Preempted)
}

// TestReplanningOnTheTimeline: a plan over-committed at every follower
// step goes on the timeline when that starts and when its resources
// change, not at every step; every step is counted.
func TestReplanningOnTheTimeline(t *testing.T) {
	clock := berth.NewManualClock(0)
	s := capacitySched(t, clock)
	e, err := New(Config{Clock: clock, Scheduler: s, Stats: NewCapacityStats(s), Nodes: nodes(1)})
	require.NoError(t, err)
	big, small := berth.New(8192, 8), berth.New(4096, 4)
	steps := []follower.Result{
		{PlanQueue: "p", Replanned: true, PlanResources: big},   // starts: recorded
		{PlanQueue: "p", Replanned: true, PlanResources: big},   // the same: not
		{PlanQueue: "p", Resized: true, PlanResources: big},     // the same stretch: not
		{PlanQueue: "p", Replanned: true, PlanResources: small}, // resources changed: recorded
		{PlanQueue: "p", PlanResources: small},                  // fits again
		{PlanQueue: "p", Resized: true, PlanResources: small},   // a new stretch: recorded
	}
	for i := range steps {
		e.replanned(&steps[i], berth.Time(i*1000))
	}
	assert.Equal(t, []metrics.Event{
		{Time: 0, Kind: metrics.PlanReplanned, Queue: "p", Resource: big, Detail: "replanned"},
		{Time: 3000, Kind: metrics.PlanReplanned, Queue: "p", Resource: small, Detail: "replanned"},
		{Time: 5000, Kind: metrics.PlanReplanned, Queue: "p", Resource: small, Detail: "resized"},
	}, e.run.Timeline)
	assert.Equal(t, 5, e.run.Replans, "every step that replanned or resized counts")
}
