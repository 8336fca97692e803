package preempt_test

import (
	"fmt"
	"testing"

	"github.com/berthsched/berth/preempt"
	"github.com/berthsched/berth/queue"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// both records the policy's and the scheduler's events in one stream.
type both struct {
	queue.NopObserver
	lines []string
}

func (o *both) ObservePreemption(e preempt.PreemptionEvent) {
	o.lines = append(o.lines, fmt.Sprintf("policy %s %d %s", e.Kind, e.Container.ID, e.Container.App))
}

func (o *both) ObserveContainer(e queue.ContainerEvent) {
	if e.Kind == queue.ContainerEnded {
		o.lines = append(o.lines, fmt.Sprintf("scheduler %s %d %s", e.Status, e.Container.ID, e.Container.App))
	}
}

// TestProportionalObserver: on the end-to-end scenario, the policy's
// events are its rounds' decisions, in order, and each kill is followed
// by the scheduler's report of the container preempted.
func TestProportionalObserver(t *testing.T) {
	s, clock, nodes := starvingCapacityCluster(t)
	cfg := preempt.DefaultProportionalConfig()
	cfg.TotalPreemptionPerRound = 0.5
	cfg.MaxIgnoredOverCapacity = 0.05
	p, err := preempt.NewProportional(preempt.ProportionalSetup{State: s, Actor: s, Config: cfg})
	require.NoError(t, err)
	o := &both{}
	p.SetObserver(o)
	s.SetObserver(o)
	var want []string
	marked, killed := 0, 0
	for round := 1; round <= 60; round++ {
		rep, err := p.Round(clock.Now())
		require.NoError(t, err)
		for _, d := range rep.Decisions {
			switch d.Action {
			case preempt.Marked:
				marked++
				want = append(want, fmt.Sprintf("policy marked %d %s", d.ID, d.App))
			case preempt.Killed:
				killed++
				want = append(want, fmt.Sprintf("scheduler PREEMPTED %d %s", d.ID, d.App),
					fmt.Sprintf("policy killed %d %s", d.ID, d.App))
			}
		}
		for _, id := range rep.Forgotten {
			want = append(want, fmt.Sprintf("policy unmarked %d ", id))
		}
		for range 3 {
			clock.Advance(1000)
			for _, n := range nodes {
				_, err := s.Heartbeat(n, nil)
				require.NoError(t, err)
			}
		}
	}
	assert.Equal(t, want, o.lines)
	assert.Equal(t, 16, killed, "b's guarantee preempted")
	assert.Equal(t, 16, marked)
}

// TestProportionalObserveOnly: observe_only decides nothing, so nothing is
// reported.
func TestProportionalObserveOnly(t *testing.T) {
	s, clock, _ := starvingCapacityCluster(t)
	cfg := preempt.DefaultProportionalConfig()
	cfg.ObserveOnly = true
	p, err := preempt.NewProportional(preempt.ProportionalSetup{State: s, Actor: s, Config: cfg})
	require.NoError(t, err)
	o := &both{}
	p.SetObserver(o)
	rep, err := p.Round(clock.Now())
	require.NoError(t, err)
	require.NotEmpty(t, rep.Decisions)
	assert.Empty(t, o.lines)
}
