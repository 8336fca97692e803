package agent_test

import (
	"errors"
	"sync"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/agent"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/policy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func emptyPlan(t testing.TB, containers int64, pol plan.SharingPolicy) *plan.Plan {
	cfg := plan.DefaultConfig("q", berth.New(1024*containers, containers), berth.NewManualClock(0))
	cfg.MaxAllocation = berth.New(8192, 8)
	cfg.Policy = pol
	p, err := plan.New(cfg)
	require.NoError(t, err)
	return p
}

func stage(containers, conc, dur int64) plan.Stage {
	return plan.Stage{Capability: berth.New(1024, 1), Containers: containers, Concurrency: conc, Duration: dur}
}

func blocks(t testing.TB, p *plan.Plan, id plan.ReservationID) []plan.IntervalResource {
	a, ok := p.Reservation(id)
	require.True(t, ok)
	var out []plan.IntervalResource
	for _, e := range a.Intervals {
		if !e.Resource.IsZero() {
			out = append(out, e)
		}
	}
	return out
}

func ir(s, e, n int64) plan.IntervalResource {
	return plan.IntervalResource{Interval: berth.Interval{Start: s, End: e}, Resource: berth.New(1024*n, n)}
}

func id(n int64) plan.ReservationID { return plan.ReservationID{ClusterTimestamp: 9, Sequence: n} }

func TestGreedyInterpreters(t *testing.T) {
	left, err := agent.NewGreedy(agent.DefaultConfig())
	require.NoError(t, err)
	ro := agent.DefaultConfig()
	ro.FavorEarlyAllocation = false
	right, err := agent.NewGreedy(ro)
	require.NoError(t, err)
	cases := []struct {
		name string
		ag   plan.Agent
		def  plan.Definition
		want []plan.IntervalResource
	}{
		{"all left", left, plan.Definition{Arrival: 0, Deadline: 10_000, Interpreter: plan.RAll,
			Stages: []plan.Stage{stage(4, 2, 2000), stage(2, 1, 1000)}},
			[]plan.IntervalResource{ir(0, 1000, 6), ir(1000, 2000, 4)}},
		{"all right", right, plan.Definition{Arrival: 0, Deadline: 10_000, Interpreter: plan.RAll,
			Stages: []plan.Stage{stage(4, 2, 2000), stage(2, 1, 1000)}},
			[]plan.IntervalResource{ir(8000, 9000, 4), ir(9000, 10_000, 6)}},
		{"order left", left, plan.Definition{Arrival: 0, Deadline: 10_000, Interpreter: plan.ROrder,
			Stages: []plan.Stage{stage(4, 2, 2000), stage(2, 1, 1000)}},
			[]plan.IntervalResource{ir(0, 2000, 4), ir(2000, 3000, 2)}},
		{"order right", right, plan.Definition{Arrival: 0, Deadline: 10_000, Interpreter: plan.ROrder,
			Stages: []plan.Stage{stage(4, 2, 2000), stage(2, 1, 1000)}},
			[]plan.IntervalResource{ir(7000, 9000, 4), ir(9000, 10_000, 2)}},
		{"any takes the first that fits", left, plan.Definition{Arrival: 0, Deadline: 10_000, Interpreter: plan.RAny,
			Stages: []plan.Stage{stage(20, 20, 1000), stage(3, 1, 1000)}},
			[]plan.IntervalResource{ir(0, 1000, 3)}},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := emptyPlan(t, 8, policy.NoOverCommit{})
			require.NoError(t, c.ag.CreateReservation(p, id(int64(i+1)), "u", c.def))
			assert.Equal(t, c.want, blocks(t, p, id(int64(i+1))))
		})
	}
}

func TestOrderNoGapRejectsAGap(t *testing.T) {
	p := emptyPlan(t, 4, policy.NoOverCommit{})
	// [2000, 3000) is full, so stage 1 cannot start when stage 0 ends.
	blocker, err := plan.NewAllocation(id(1), "x", plan.Definition{}, berth.Interval{Start: 2000, End: 3000},
		[]plan.IntervalResource{ir(2000, 3000, 4)})
	require.NoError(t, err)
	require.NoError(t, p.AddReservation(blocker))
	ag, err := agent.NewGreedy(agent.DefaultConfig())
	require.NoError(t, err)
	def := plan.Definition{Arrival: 0, Deadline: 10_000, Interpreter: plan.ROrderNoGap,
		Stages: []plan.Stage{stage(2, 1, 2000), stage(2, 1, 1000)}}
	before := p.Snapshot()
	err = ag.CreateReservation(p, id(2), "u", def)
	var np *agent.NoPlacementError
	require.ErrorAs(t, err, &np)
	assert.ErrorIs(t, err, berth.ErrNoPlacement)
	assert.Contains(t, np.Reason, "ORDER_NO_GAP")
	assert.True(t, p.Equal(before))
	// Plain R_ORDER accepts the gap.
	def.Interpreter = plan.ROrder
	require.NoError(t, ag.CreateReservation(p, id(3), "u", def))
	assert.Equal(t, []plan.IntervalResource{ir(0, 2000, 2), ir(3000, 4000, 2)}, blocks(t, p, id(3)))
}

// An agent can compute a placement the plan then rejects: the memory
// calculator fits gangs by memory while the policy checks vcores too
// (reference §10.9); the policy's error comes out of CreateReservation.
func TestPolicyRejectionPropagates(t *testing.T) {
	p := emptyPlan(t, 4, policy.NoOverCommit{})
	ag, err := agent.NewGreedy(agent.DefaultConfig())
	require.NoError(t, err)
	heavy := plan.Stage{Capability: berth.New(1024, 8), Containers: 1, Concurrency: 1, Duration: 1000}
	err = ag.CreateReservation(p, id(1), "u", plan.Definition{Arrival: 0, Deadline: 5000, Interpreter: plan.RAll,
		Stages: []plan.Stage{heavy}})
	assert.ErrorIs(t, err, berth.ErrCapacityExceeded)
	assert.ErrorIs(t, err, policy.ErrOverCommitted)
	assert.Equal(t, 0, p.Len())
	// Counting every resource type finds that nothing fits.
	o := agent.DefaultConfig()
	o.ComponentwiseFit = true
	exact, err := agent.NewGreedy(o)
	require.NoError(t, err)
	err = exact.CreateReservation(p, id(2), "u", plan.Definition{Arrival: 0, Deadline: 5000, Interpreter: plan.RAll,
		Stages: []plan.Stage{heavy}})
	assert.ErrorIs(t, err, berth.ErrNoPlacement)
}

func TestUpdateSeesTheOldVersionAsFree(t *testing.T) {
	p := emptyPlan(t, 4, policy.NoOverCommit{})
	ag, err := agent.NewGreedy(agent.DefaultConfig())
	require.NoError(t, err)
	def := plan.Definition{Arrival: 0, Deadline: 4000, Interpreter: plan.RAll, Stages: []plan.Stage{stage(4, 4, 2000)}}
	require.NoError(t, ag.CreateReservation(p, id(1), "u", def))
	// Growing the duration only fits by reusing the old version's room.
	def.Stages[0].Duration = 4000
	require.NoError(t, ag.UpdateReservation(p, id(1), "u", def))
	assert.Equal(t, []plan.IntervalResource{ir(0, 4000, 4)}, blocks(t, p, id(1)))
	// A new reservation cannot use it.
	err = ag.CreateReservation(p, id(2), "u", def)
	assert.ErrorIs(t, err, berth.ErrNoPlacement)
	require.NoError(t, ag.DeleteReservation(p, id(1), "u"))
	assert.Equal(t, 0, p.Len())
	assert.ErrorIs(t, ag.DeleteReservation(p, id(1), "u"), berth.ErrNotFound)
}

func TestTryManyFallsBackAndReportsTheLastError(t *testing.T) {
	p := emptyPlan(t, 4, policy.NoOverCommit{})
	aligned, err := agent.NewAlignedPlannerWithGreedy(agent.DefaultConfig())
	require.NoError(t, err)
	require.Len(t, aligned.Agents, 2)
	def := plan.Definition{Arrival: 0, Deadline: 10_000, Interpreter: plan.RAll, Stages: []plan.Stage{stage(4, 4, 3000)}}
	require.NoError(t, aligned.CreateReservation(p, id(1), "u", def))
	// Too big for the window: both fail, the greedy one's error comes out.
	big := plan.Definition{Arrival: 0, Deadline: 10_000, Interpreter: plan.RAll, Stages: []plan.Stage{stage(4, 4, 9000)}}
	err = aligned.CreateReservation(p, id(2), "u", big)
	var np *agent.NoPlacementError
	require.ErrorAs(t, err, &np)
	assert.Contains(t, np.Agent, "greedy-RLE")
	// A duplicate id stops at once.
	err = aligned.CreateReservation(p, id(1), "u", def)
	assert.ErrorIs(t, err, berth.ErrAlreadyExists)
	empty := &agent.TryMany{}
	assert.ErrorIs(t, empty.CreateReservation(p, id(3), "u", def), berth.ErrNoPlacement)
}

func TestOptionsValidation(t *testing.T) {
	o := agent.DefaultConfig()
	assert.True(t, o.FavorEarlyAllocation)
	assert.Equal(t, 10, o.SmoothnessFactor)
	o.SmoothnessFactor = -1
	_, err := agent.NewGreedy(o)
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)
	_, err = agent.NewAlignedPlannerWithGreedy(o)
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)
}

// Agents hold no mutable state: many goroutines may place reservations in
// one plan at once; the plan's policy keeps it within capacity.
func TestAgentsConcurrentUse(t *testing.T) {
	p := emptyPlan(t, 8, policy.NoOverCommit{})
	ag, err := agent.NewAlignedPlannerWithGreedy(agent.DefaultConfig())
	require.NoError(t, err)
	var wg sync.WaitGroup
	var mu sync.Mutex
	accepted := 0
	for g := int64(0); g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := int64(0); k < 10; k++ {
				def := plan.Definition{Arrival: k * 1000, Deadline: k*1000 + 8000, Interpreter: plan.RAll,
					Stages: []plan.Stage{stage(2+g, 1, 3000)}}
				err := ag.CreateReservation(p, id(g*100+k+1), "u", def)
				if err == nil {
					mu.Lock()
					accepted++
					mu.Unlock()
				} else if !errors.Is(err, berth.ErrNoPlacement) && !errors.Is(err, berth.ErrCapacityExceeded) {
					t.Errorf("unexpected error: %v", err)
				}
			}
		}()
	}
	wg.Wait()
	assert.Equal(t, accepted, p.Len())
	w := berth.Interval{Start: 0, End: 30_000}
	load, err := p.CumulativeLoad(w)
	require.NoError(t, err)
	for st := range load.StepsIn(w) {
		assert.True(t, st.Value.FitsIn(p.Capacity()), "over capacity on %v", st.Interval)
	}
}

// Derived vector GR-X1: allocating right to left, YARN's greedy-RLE scan
// also looks at the stretch ending where the candidate window starts, so a
// full stretch just before a free window blocks it. ExactScan places it.
func TestRightToLeftScanGRX1(t *testing.T) {
	def := plan.Definition{Arrival: 0, Deadline: 4000, Interpreter: plan.RAll, Stages: []plan.Stage{stage(1, 1, 2000)}}
	for _, exact := range []bool{false, true} {
		p := emptyPlan(t, 1, policy.NoOverCommit{})
		full, err := plan.NewAllocation(id(1), "x", plan.Definition{}, berth.Interval{Start: 0, End: 2000},
			[]plan.IntervalResource{ir(0, 2000, 1)})
		require.NoError(t, err)
		require.NoError(t, p.AddReservation(full))
		o := agent.DefaultConfig()
		o.FavorEarlyAllocation, o.ExactScan = false, exact
		ag, err := agent.NewGreedy(o)
		require.NoError(t, err)
		err = ag.CreateReservation(p, id(2), "u", def)
		if !exact {
			assert.ErrorIs(t, err, berth.ErrNoPlacement, "YARN's answer")
			continue
		}
		require.NoError(t, err)
		assert.Equal(t, []plan.IntervalResource{ir(2000, 4000, 1)}, blocks(t, p, id(2)))
	}
}

// Periodic requests: availability is the minimum over every instance of
// the period within the plan's maximum periodicity.
func TestPeriodicRequests(t *testing.T) {
	p := emptyPlan(t, 2, policy.NoOverCommit{})
	ag, err := agent.NewGreedy(agent.DefaultConfig())
	require.NoError(t, err)
	const hour = 3_600_000
	def := plan.Definition{Arrival: 0, Deadline: hour, Period: hour, Interpreter: plan.RAll,
		Stages: []plan.Stage{stage(2, 2, hour/2)}}
	require.NoError(t, ag.CreateReservation(p, id(1), "u", def))
	require.NoError(t, ag.CreateReservation(p, id(2), "u", def))
	assert.Equal(t, []plan.IntervalResource{ir(hour/2, hour, 2)}, blocks(t, p, id(2)))
	// Every instance of every hour is now full.
	for _, at := range []int64{0, hour / 2, 5*hour + 10, 23*hour + hour/2} {
		assert.Equal(t, int64(2), p.TotalCommitted(at).VCores, "at %d", at)
	}
	assert.ErrorIs(t, ag.CreateReservation(p, id(3), "u", def), berth.ErrNoPlacement)
}
