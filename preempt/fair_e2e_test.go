package preempt

import (
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/fair"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Queue A fills the cluster with two applications; queue B submits one.
// The host loop heartbeats every node and runs a preemption round each
// second until B holds its fair share.
func TestFairEndToEndStarvedQueueRecovers(t *testing.T) {
	cfg := DefaultFairConfig()
	cfg.WaitTimeBeforeKill = 3000
	w := newFairWorld(t, fairAlloc(`<defaultFairSharePreemptionTimeout>2</defaultFairSharePreemptionTimeout>
<defaultFairSharePreemptionThreshold>1.0</defaultFairSharePreemptionThreshold>
<queue name="a"/><queue name="b"/>`), cfg, 4, berth.New(8192, 8))
	one := berth.New(1024, 1)
	w.submit("a1", "root.a", one, one, 15)
	w.submit("a2", "root.a", one, one, 15)
	w.fill()
	require.Equal(t, int64(32768), w.s.Snapshot().Queue("root.a").Usage.Memory, "A holds the whole cluster")

	w.clock.Advance(1000)
	submitted := w.clock.Now()
	w.submit("b1", "root.b", one, one, 16)

	var victims []fair.Container
	var ended []fair.Ended
	marks, reached := map[int]int{}, 0
	for round := 1; round <= 60; round++ {
		w.clock.Advance(1000)
		w.beatAll()
		r, err := w.p.Round(w.clock.Now())
		require.NoError(t, err)
		// Every kill of the round is in its Ended list, in kill order,
		// for the host to stop.
		var killed []fair.ContainerID
		for _, d := range r.Decisions {
			if d.Action == FairKilled {
				killed = append(killed, d.Container.ID)
			}
		}
		var endedIDs []fair.ContainerID
		for _, e := range r.Ended {
			endedIDs = append(endedIDs, e.ID)
		}
		assert.Equal(t, killed, endedIDs, "round %d", round)
		ended = append(ended, r.Ended...)
		for _, d := range r.Decisions {
			switch d.Action {
			case FairMarked:
				marks[round]++
				assert.Equal(t, "b1", d.ForApp)
			case FairKilled:
				victims = append(victims, d.Container)
				assert.GreaterOrEqual(t, r.Time-submitted, cfg.WaitTimeBeforeKill)
			}
		}
		if w.app("b1").Usage.Memory >= w.app("b1").FairShare.Memory && w.app("b1").FairShare.Memory > 0 {
			reached = round
			break
		}
	}
	// Round k runs at t = 1 s + k s. B's application came at t = 1 s
	// (its last time at fair share), so the update of round 2 (t = 3 s)
	// finds it starved for the 2 s timeout: round 2 marks 16 containers,
	// its AM ask and 15 tasks, the whole 16 GB starvation. They are killed
	// after the 3 s wait, in round 5 (t = 6 s). Node n00 holds a1's AM and
	// 7 tasks, n01 a2's: the search takes the 7 tasks of each and then,
	// rather than an AM, one task on n02 and one on n03. Each node's room
	// was earmarked for b1, so round 6's heartbeats give it all 16
	// containers at once (YARN's assignPreemptedContainers): B holds its
	// share at round 6.
	assert.Equal(t, map[int]int{2: 16}, marks, "one marking round, for the whole starvation")
	assert.Equal(t, 6, reached, "B holds its share")
	perNode := map[string]int{}
	for _, c := range victims {
		perNode[c.Node]++
	}
	assert.Equal(t, map[string]int{"n00": 7, "n01": 7, "n02": 1, "n03": 1}, perNode, "AM containers are left for other nodes' tasks")
	require.Len(t, victims, 16)
	require.Len(t, ended, 16, "the host is told of every kill")
	for i, e := range ended {
		assert.Equal(t, victims[i].Node, e.Node, "ended %d", i)
		assert.Equal(t, victims[i].App, e.App, "ended %d", i)
	}
	perApp := map[string]int{}
	for _, c := range victims {
		assert.False(t, c.AM, "no AM container preempted: %+v", c)
		assert.Equal(t, "root.a", c.Queue)
		perApp[c.App]++
	}
	assert.Equal(t, map[string]int{"a1": 8, "a2": 8}, perApp, "both A apps come down to their 8 GB share")
	sn := w.s.Snapshot()
	for _, id := range []string{"a1", "a2"} {
		a := sn.App(id)
		assert.True(t, a.AMRunning)
		assert.GreaterOrEqual(t, a.Usage.Memory, a.FairShare.Memory, "never below the fair share")
	}
	assert.Empty(t, w.p.Pending())
}
