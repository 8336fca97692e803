package preempt_test

import (
	"errors"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/preempt"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func actionCounts(rep *preempt.ProportionalReport) map[preempt.Action]int {
	out := map[preempt.Action]int{}
	for _, d := range rep.Decisions {
		out[d.Action]++
	}
	return out
}

func protocolProportional(t *testing.T, forget bool) (*preempt.Proportional, func() int) {
	s, _, _ := starvingCapacityCluster(t)
	cfg := preempt.DefaultProportionalConfig()
	cfg.TotalPreemptionPerRound = 0.5
	cfg.ForgetUnselected = forget
	p, err := preempt.NewProportional(preempt.ProportionalSetup{State: s, Actor: s, Config: cfg})
	require.NoError(t, err)
	marked := func() int {
		n := 0
		for _, c := range s.Snapshot().Containers {
			if c.MarkedForPreemption {
				n++
			}
		}
		return n
	}
	return p, marked
}

func TestKillProtocol(t *testing.T) {
	p, marked := protocolProportional(t, false)
	rep, err := p.Round(0)
	require.NoError(t, err)
	assert.Equal(t, map[preempt.Action]int{preempt.Marked: 4}, actionCounts(rep))
	assert.Equal(t, 4, marked(), "the scheduler was told")
	rep, err = p.Round(14999)
	require.NoError(t, err)
	assert.Equal(t, map[preempt.Action]int{preempt.Waiting: 4}, actionCounts(rep), "still within the wait")
	assert.Empty(t, rep.Ended)
	rep, err = p.Round(15000)
	require.NoError(t, err)
	assert.Equal(t, map[preempt.Action]int{preempt.Killed: 4}, actionCounts(rep), "killed exactly at the wait")
	require.Len(t, rep.Ended, 4)
	for _, e := range rep.Ended {
		assert.Equal(t, berth.Time(0), rep.Decisions[0].FirstMarked)
		assert.Equal(t, "a3", e.Container.App)
	}
	assert.Empty(t, p.Marked(), "killed containers are no longer tracked")
}

// Rounds come every monitoring interval, and a container is killed at
// the first round at least the wait after its mark (YARN's
// firstSeen + wait <= now): a wait is rounded up to whole intervals. With
// the 3 s default, every wait in (12 s, 15 s] kills at the fifth round
// after the mark and every wait in (15 s, 18 s] at the sixth, so
// max_wait_before_kill 15000 and 15001 kill 3 s apart (in the simulator's
// default scenario, 754 and 709 containers preempted).
func TestKillWaitRoundsUpToIntervals(t *testing.T) {
	for _, tc := range []struct {
		wait, killedAt berth.Duration
	}{{12001, 15000}, {14999, 15000}, {15000, 15000}, {15001, 18000}, {18000, 18000}, {18001, 21000}} {
		s, _, _ := starvingCapacityCluster(t)
		cfg := preempt.DefaultProportionalConfig()
		cfg.TotalPreemptionPerRound = 0.5
		cfg.MaxWaitBeforeKill = tc.wait
		p, err := preempt.NewProportional(preempt.ProportionalSetup{State: s, Actor: s, Config: cfg})
		require.NoError(t, err)
		killedAt := berth.Time(-1)
		for now := berth.Time(0); now <= 30_000 && killedAt < 0; now += cfg.MonitoringInterval {
			rep, err := p.Round(now)
			require.NoError(t, err)
			if len(rep.Ended) > 0 {
				killedAt = now
			}
		}
		assert.Equal(t, tc.killedAt, killedAt, "wait %d ms", tc.wait)
	}
}

// A mark not renewed is kept for twice the wait (YARN), or dropped at
// once with ForgetUnselected.
func TestKillProtocolForgets(t *testing.T) {
	for _, forget := range []bool{false, true} {
		s, _, _ := starvingCapacityCluster(t)
		cfg := preempt.DefaultProportionalConfig()
		cfg.TotalPreemptionPerRound = 0.5
		cfg.ForgetUnselected = forget
		p, err := preempt.NewProportional(preempt.ProportionalSetup{State: s, Actor: s, Config: cfg})
		require.NoError(t, err)
		_, err = p.Round(0)
		require.NoError(t, err)
		require.Len(t, p.Marked(), 4)
		_, err = s.FinishApp("b1") // the demand goes away: nothing is selected any more
		require.NoError(t, err)
		rep, err := p.Round(3000)
		require.NoError(t, err)
		assert.Empty(t, rep.Decisions)
		if forget {
			assert.Len(t, rep.Forgotten, 4)
			assert.Empty(t, p.Marked())
			continue
		}
		assert.Empty(t, rep.Forgotten)
		rep, err = p.Round(30000)
		require.NoError(t, err)
		assert.Empty(t, rep.Forgotten, "2 × wait not yet exceeded")
		rep, err = p.Round(30001)
		require.NoError(t, err)
		assert.Len(t, rep.Forgotten, 4)
		assert.Empty(t, p.Marked())
	}
}

func TestObserveOnlyActsNever(t *testing.T) {
	s, _, _ := starvingCapacityCluster(t)
	cfg := preempt.DefaultProportionalConfig()
	cfg.ObserveOnly = true
	cfg.MaxWaitBeforeKill = 0
	p, err := preempt.NewProportional(preempt.ProportionalSetup{State: s, Actor: s, Config: cfg})
	require.NoError(t, err)
	for now := berth.Time(0); now < 10; now++ {
		rep, err := p.Round(now)
		require.NoError(t, err)
		require.NotEmpty(t, rep.Decisions)
		assert.Equal(t, map[preempt.Action]int{preempt.Observed: len(rep.Decisions)}, actionCounts(rep))
	}
	assert.Equal(t, int64(32*cGB), capQueueUsed(s, "root.a"))
	for _, c := range s.Snapshot().Containers {
		assert.False(t, c.MarkedForPreemption)
	}
}

// firstNonAMSelector is a host's own selector: it takes one non-AM container from
// the leaf asked to give the most, through the same Round methods as the
// built-ins.
type firstNonAMSelector struct{ calls *int }

func (firstNonAMSelector) Name() string             { return "mine" }
func (firstNonAMSelector) KillWait() berth.Duration { return 1 }
func (s firstNonAMSelector) Select(r *preempt.ProportionalRound) error {
	*s.calls++
	r.ComputeIdeal(preempt.IdealOptions{})
	for _, q := range r.Cluster.Leaves {
		if r.ToObtain(q).IsZero() {
			continue
		}
		for _, a := range q.Apps {
			cs, err := r.Cluster.AppContainers(a)
			if err != nil {
				return err
			}
			for _, c := range cs {
				if !c.AM && r.TryPreempt(c, false) {
					return nil
				}
			}
		}
	}
	return nil
}

type failingSelector struct{}

func (failingSelector) Name() string                            { return "failing" }
func (failingSelector) KillWait() berth.Duration                { return 0 }
func (failingSelector) Select(*preempt.ProportionalRound) error { return errors.New("boom") }

func TestCustomSelector(t *testing.T) {
	s, _, _ := starvingCapacityCluster(t)
	calls := 0
	p, err := preempt.NewProportional(preempt.ProportionalSetup{State: s, Actor: s, Config: preempt.DefaultProportionalConfig(), Selectors: []preempt.Selector{firstNonAMSelector{&calls}}})
	require.NoError(t, err)
	rep, err := p.Round(0)
	require.NoError(t, err)
	require.Len(t, rep.Decisions, 1)
	d := rep.Decisions[0]
	assert.Equal(t, "mine", d.Selector)
	assert.Equal(t, "a1", d.App, "its own order: the first application")
	rep, err = p.Round(1)
	require.NoError(t, err)
	assert.Equal(t, preempt.Killed, rep.Decisions[0].Action, "its own kill wait")
	assert.Equal(t, 2, calls)

	p, err = preempt.NewProportional(preempt.ProportionalSetup{State: s, Actor: s, Config: preempt.DefaultProportionalConfig(), Selectors: []preempt.Selector{failingSelector{}}})
	require.NoError(t, err)
	before := s.Snapshot()
	_, err = p.Round(2)
	require.Error(t, err)
	assert.ErrorContains(t, err, "boom")
	assert.Equal(t, before.Containers, s.Snapshot().Containers, "a failed round acts on nothing")

	_, err = preempt.NewProportional(preempt.ProportionalSetup{State: s, Actor: s, Config: preempt.DefaultProportionalConfig(), Selectors: []preempt.Selector{nil}})
	var fe *berth.FieldError
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, "ProportionalSetup.Selectors[0]", fe.Field)
}

// A huge kill wait neither overflows into an immediate kill nor forgets
// the marks.
func TestKillProtocolHugeWait(t *testing.T) {
	s, _, _ := starvingCapacityCluster(t)
	cfg := preempt.DefaultProportionalConfig()
	cfg.TotalPreemptionPerRound = 0.5
	cfg.MaxWaitBeforeKill = 1<<63 - 1
	p, err := preempt.NewProportional(preempt.ProportionalSetup{State: s, Actor: s, Config: cfg})
	require.NoError(t, err)
	for _, now := range []berth.Time{0, 1 << 40, 1 << 61} {
		rep, err := p.Round(now)
		require.NoError(t, err)
		assert.Zero(t, actionCounts(rep)[preempt.Killed], "t=%d", now)
		assert.Empty(t, rep.Forgotten)
	}
	assert.Len(t, p.Marked(), 4)
}
