package preempt

import (
	"fmt"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type fairLines struct {
	queue.NopObserver
	lines []string
}

func (o *fairLines) ObservePreemption(e PreemptionEvent) {
	o.lines = append(o.lines, fmt.Sprintf("policy %s %d %s for %s", e.Kind, e.Container.ID, e.Container.App, e.ForApp))
}

func (o *fairLines) ObserveContainer(e queue.ContainerEvent) {
	if e.Kind == queue.ContainerEnded {
		o.lines = append(o.lines, fmt.Sprintf("scheduler %s %d %s", e.Status, e.Container.ID, e.Container.App))
	}
}

// TestFairObserver: on the end-to-end scenario the preemptor reports its
// rounds' decisions in order (16 marks for b1, then 16 kills, each after
// the scheduler's report of the container preempted).
func TestFairObserver(t *testing.T) {
	cfg := DefaultFairConfig()
	cfg.WaitTimeBeforeKill = 3000
	w := newFairWorld(t, fairAlloc(`<defaultFairSharePreemptionTimeout>2</defaultFairSharePreemptionTimeout>
<defaultFairSharePreemptionThreshold>1.0</defaultFairSharePreemptionThreshold>
<queue name="a"/><queue name="b"/>`), cfg, 4, berth.New(8192, 8))
	one := berth.New(1024, 1)
	w.submit("a1", "root.a", one, one, 15)
	w.submit("a2", "root.a", one, one, 15)
	w.fill()
	w.clock.Advance(1000)
	w.submit("b1", "root.b", one, one, 16)
	o := &fairLines{}
	w.p.SetObserver(o)
	w.s.SetObserver(o)
	var want []string
	count := map[FairAction]int{}
	for range 8 {
		w.clock.Advance(1000)
		w.beatAll()
		r, err := w.p.Round(w.clock.Now())
		require.NoError(t, err)
		for _, d := range r.Decisions {
			count[d.Action]++
			switch d.Action {
			case FairMarked:
				want = append(want, fmt.Sprintf("policy marked %d %s for %s", d.Container.ID, d.Container.App, d.ForApp))
			case FairKilled:
				want = append(want, fmt.Sprintf("scheduler PREEMPTED %d %s", d.Container.ID, d.Container.App),
					fmt.Sprintf("policy killed %d %s for %s", d.Container.ID, d.Container.App, d.ForApp))
			case FairReleased, FairForgotten:
				want = append(want, fmt.Sprintf("policy unmarked %d %s for %s", d.Container.ID, d.Container.App, d.ForApp))
			}
		}
	}
	assert.Equal(t, want, o.lines)
	assert.Equal(t, 16, count[FairMarked])
	assert.Equal(t, 16, count[FairKilled])
}
