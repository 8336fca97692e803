package agent_test

import (
	"errors"
	"testing"
	"time"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/agent"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/policy"
	"github.com/stretchr/testify/require"
)

// w2Plan returns a fresh plan of workload W2 (capacity divided by div) with
// YARN's greedy agent and the capacity-over-time policy at 100 %/100 %.
func w2Plan(t testing.TB, div int64) (*plan.Plan, plan.Agent) {
	pol, err := policy.NewCapacityOverTime(policy.DefaultCapacityOverTimeConfig())
	require.NoError(t, err)
	ag, err := agent.NewGreedy(agent.DefaultConfig())
	require.NoError(t, err)
	cfg := plan.DefaultConfig("dedicated", berth.New(8_192_000/div, 8000/div), berth.NewManualClock(0))
	cfg.MaxAllocation = berth.New(8192, 8)
	cfg.Policy = pol
	cfg.Agent = ag
	p, err := plan.New(cfg)
	require.NoError(t, err)
	return p, ag
}

func (r w2Request) definition() plan.Definition {
	return plan.Definition{
		Arrival: r.arrival, Deadline: r.deadline, Interpreter: plan.RAll,
		Stages: []plan.Stage{{Capability: berth.New(1024, 1), Containers: r.containers,
			Concurrency: r.concurrency, Duration: r.duration}},
	}
}

// runW2 submits the first n requests; it returns the accepted count and
// the first error that is not a "no placement".
func runW2(t testing.TB, reqs []w2Request, div int64) (int, []int, error) {
	p, ag := w2Plan(t, div)
	accepted := 0
	var rejected []int
	for i, r := range reqs {
		id := plan.ReservationID{ClusterTimestamp: 1, Sequence: int64(i + 1)}
		err := ag.CreateReservation(p, id, r.user, r.definition())
		if err == nil {
			accepted++
			continue
		}
		rejected = append(rejected, i)
		if !errors.Is(err, berth.ErrNoPlacement) {
			return accepted, rejected, err
		}
	}
	return accepted, rejected, nil
}

// w2HotPrefixAccepted is how many of the first 2,500 W2-hot requests the
// full run accepts (decisions never depend on later requests).
const w2HotPrefixAccepted = 1393

func TestW2Decisions(t *testing.T) {
	reqs := w2Requests()
	if testing.Short() || raceEnabled {
		reqs = reqs[:1500] // a prefix: every one of them is accepted too
	}
	start := time.Now()
	acc, _, err := runW2(t, reqs, 1)
	require.NoError(t, err)
	require.Equal(t, len(reqs), acc, "W2 accepts everything once YARN's bugs are fixed")
	t.Logf("W2: %d accepted in %v", acc, time.Since(start))
}

func TestW2HotDecisions(t *testing.T) {
	reqs := w2Requests()
	want := 2047
	if testing.Short() || raceEnabled {
		// A prefix, with the decisions of the full run on it.
		reqs, want = reqs[:2500], w2HotPrefixAccepted
	}
	start := time.Now()
	acc, rej, err := runW2(t, reqs, 20)
	require.NoError(t, err, "every W2-hot rejection is 'no placement found'")
	require.Equal(t, want, acc)
	require.Len(t, rej, len(reqs)-want)
	t.Logf("W2-hot: %d accepted in %v", acc, time.Since(start))
}
