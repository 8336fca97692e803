package agent_test

import (
	"flag"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/agent"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/policy"
	"github.com/stretchr/testify/require"
)

// w2HotStream is workload W2-hot as one episode: the first n requests of
// W2 on a plan of capacity (409,600 MB, 400 vcores) with the
// capacity-over-time policy, as TestW2HotDecisions runs them.
func w2HotStream(t testing.TB, n int) []agent.Episode {
	pol, err := policy.NewCapacityOverTime(policy.DefaultCapacityOverTimeConfig())
	require.NoError(t, err)
	cfg := plan.DefaultConfig("dedicated", berth.New(8_192_000/20, 8000/20), berth.NewManualClock(0))
	cfg.MaxAllocation = berth.New(8192, 8)
	cfg.Policy = pol
	reqs := w2Requests()[:n]
	ep := agent.Episode{Config: cfg, Requests: make([]agent.Request, len(reqs))}
	for i, r := range reqs {
		ep.Requests[i] = agent.Request{ID: plan.ReservationID{ClusterTimestamp: 1, Sequence: int64(i + 1)},
			User: r.user, Definition: r.definition()}
	}
	return []agent.Episode{ep}
}

type namedAgent struct {
	name  string
	agent plan.Agent
}

// yardstickAgents are YARN's agents, the portfolio and the least-waste
// agent, side by side.
func yardstickAgents(t testing.TB) []namedAgent {
	early, err := agent.NewGreedy(agent.DefaultOptions())
	require.NoError(t, err)
	lateOpts := agent.DefaultOptions()
	lateOpts.FavorEarlyAllocation = false
	late, err := agent.NewGreedy(lateOpts)
	require.NoError(t, err)
	aligned, err := agent.NewAlignedPlannerWithGreedy(agent.DefaultOptions())
	require.NoError(t, err)
	pf, err := agent.NewPortfolio(agent.DefaultOptions())
	require.NoError(t, err)
	lw, err := agent.NewLeastWaste(agent.DefaultOptions(), agent.DefaultWasteOptions())
	require.NoError(t, err)
	return []namedAgent{{"greedy-early", early}, {"greedy-late", late}, {"aligned-with-greedy", aligned}, {"portfolio", pf}, {"least-waste", lw}}
}

func stopwatch() func() time.Duration {
	start := time.Now()
	return func() time.Duration { return time.Since(start) }
}

func formatRow(stream, name string, r agent.Report) string {
	f := r.Reserved.Ratio(r.Offered)
	return fmt.Sprintf("| %-6s | %-19s | %5d / %5d | %6.2f %% | %6.2f %% | %9v | %9v | %.3f |", stream, name, r.Accepted, r.Requests,
		100*f.Memory, 100*f.VCores, r.MeanDecision.Round(100*time.Nanosecond), r.P99Decision.Round(100*time.Nanosecond), r.Fragmentation)
}

var yardstickRuns = flag.Int("yardstick", 0, "TestYardstickTable: runs per agent (0: one run, no table)")

// TestYardstickTable prints the table of the package documentation:
//
//	go test ./agent -run TestYardstickTable -v -count=1 -args -yardstick=5
//
// Times are the best of the runs of each agent (the machine may be
// shared); every run must decide the same. Without the flag it runs the
// first W4 episodes once and checks only that the report is consistent
// (TestPortfolioGain checks the figures).
func TestYardstickTable(t *testing.T) {
	runs := *yardstickRuns
	w2n, w4n := 10000, w4Episodes
	if runs <= 0 {
		runs, w2n, w4n = 1, 500, 5
	}
	streams := []struct {
		name   string
		stream []agent.Episode
	}{{"W2-hot", w2HotStream(t, w2n)}, {"W4", w4Stream(w4n)}}
	var b strings.Builder
	b.WriteString("| stream | agent               | accepted      | memory   | vcores   | mean      | p99       | frag  |\n")
	for _, s := range streams {
		var last agent.Report
		for _, a := range yardstickAgents(t) {
			var best agent.Report
			for run := 0; run < runs; run++ {
				r, err := agent.Measure(a.agent, s.stream, stopwatch())
				require.NoError(t, err)
				require.LessOrEqual(t, r.Reserved.Memory, r.Offered.Memory)
				require.LessOrEqual(t, r.Reserved.Memory, r.Bound.Memory)
				if run > 0 {
					require.Equal(t, best.Accepted, r.Accepted, "deterministic")
					r.MeanDecision = min(r.MeanDecision, best.MeanDecision)
					r.P99Decision = min(r.P99Decision, best.P99Decision)
				}
				best = r
			}
			b.WriteString(formatRow(s.name, a.name, best) + "\n")
			last = best
		}
		bf := last.Bound.Ratio(last.Offered)
		fmt.Fprintf(&b, "| %-6s | %-19s |               | %6.2f %% | %6.2f %% |           |           |       |\n", s.name, "upper bound", 100*bf.Memory, 100*bf.VCores)
	}
	t.Log("\n" + b.String())
}
