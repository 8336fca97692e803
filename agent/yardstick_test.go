package agent_test

import (
	"flag"
	"fmt"
	"runtime"
	"slices"
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
	early, err := agent.NewGreedy(agent.DefaultConfig())
	require.NoError(t, err)
	lateOpts := agent.DefaultConfig()
	lateOpts.FavorEarlyAllocation = false
	late, err := agent.NewGreedy(lateOpts)
	require.NoError(t, err)
	aligned, err := agent.NewAlignedPlannerWithGreedy(agent.DefaultConfig())
	require.NoError(t, err)
	pf, err := agent.NewPortfolio(agent.DefaultConfig())
	require.NoError(t, err)
	lw, err := agent.NewLeastWaste(agent.LeastWasteConfig{Config: agent.DefaultConfig()})
	require.NoError(t, err)
	return []namedAgent{{"greedy-early", early}, {"greedy-late", late}, {"aligned-with-greedy", aligned}, {"portfolio", pf}, {"least-waste", lw}}
}

func stopwatch() func() time.Duration {
	start := time.Now()
	return func() time.Duration { return time.Since(start) }
}

// decisionClock is the clock the yardstick table times decisions with:
// the thread's CPU clock where it can be read (the caller locks its OS
// thread), so that a shared machine's waits do not count, else the wall
// clock.
func decisionClock() (clock func() time.Duration, cpu bool) {
	if threadClock() > 0 {
		return func() time.Duration { return time.Duration(threadClock()) }, true
	}
	return stopwatch(), false
}

// formatRow is a row of the table; the times also as multiples of the
// early greedy agent's (YARN's GreedyReservationAgent with its defaults).
func formatRow(stream, name string, r, greedy agent.Report) string {
	f := r.Reserved.Ratio(r.Offered)
	times := func(d, g time.Duration) string {
		if g <= 0 {
			return fmt.Sprintf("%9v       ", d.Round(100*time.Nanosecond))
		}
		return fmt.Sprintf("%9v %4.1f×", d.Round(100*time.Nanosecond), float64(d)/float64(g))
	}
	return fmt.Sprintf("| %-6s | %-19s | %5d / %5d | %6.2f %% | %6.2f %% | %s | %s | %.3f |", stream, name, r.Accepted, r.Requests,
		100*f.Memory, 100*f.VCores, times(r.MeanDecision, greedy.MeanDecision), times(r.P99Decision, greedy.P99Decision), r.Fragmentation)
}

var (
	yardstickRuns   = flag.Int("yardstick", 0, "TestYardstickTable: runs per agent (0: one run, no table)")
	yardstickStream = flag.String("yardstick.stream", "", "TestYardstickTable: run only the stream of this name (W2-hot or W4)")
	yardstickAgent  = flag.String("yardstick.agent", "", "TestYardstickTable: run only greedy-early (the unit of the times) and the agent of this name")
)

// TestYardstickTable prints the table of the package documentation:
//
//	go test ./agent -run TestYardstickTable -v -count=1 -args -yardstick=5
//
// -yardstick.stream=W2-hot and -yardstick.agent=least-waste narrow the
// table to one stream and one agent (beside greedy-early, whose times are
// the unit), for a quicker measurement of one row.
//
// Times are thread CPU time on Linux (wall clock elsewhere), the best of
// the runs of each agent (the machine may be shared); every run must
// decide the same. Without the flag it runs the
// first W4 episodes once and checks only that the report is consistent
// (TestAgentGain checks the figures).
func TestYardstickTable(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	runs := *yardstickRuns
	w2n, w4n := 10000, w4Episodes
	if runs <= 0 {
		runs, w2n, w4n = 1, 500, 5
	}
	type namedStream struct {
		name   string
		stream []agent.Episode
	}
	var streams []namedStream
	if *yardstickStream == "" || *yardstickStream == "W2-hot" {
		streams = append(streams, namedStream{"W2-hot", w2HotStream(t, w2n)})
	}
	if *yardstickStream == "" || *yardstickStream == "W4" {
		streams = append(streams, namedStream{"W4", w4Stream(w4n)})
	}
	require.NotEmpty(t, streams, "-yardstick.stream names no stream")
	agents := slices.DeleteFunc(yardstickAgents(t), func(a namedAgent) bool {
		return *yardstickAgent != "" && a.name != "greedy-early" && a.name != *yardstickAgent
	})
	require.Greater(t, len(agents), 1, "-yardstick.agent names no agent other than greedy-early")
	var b strings.Builder
	b.WriteString("| stream | agent               | accepted      | memory   | vcores   | mean            | p99             | frag  |\n")
	for _, s := range streams {
		var last, greedy agent.Report
		for _, a := range agents {
			var best agent.Report
			for run := 0; run < runs; run++ {
				clock, _ := decisionClock()
				r, err := agent.Measure(a.agent, s.stream, clock)
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
			if a.name == "greedy-early" {
				greedy = best
			}
			b.WriteString(formatRow(s.name, a.name, best, greedy) + "\n")
			last = best
		}
		bf := last.Bound.Ratio(last.Offered)
		fmt.Fprintf(&b, "| %-6s | %-19s |               | %6.2f %% | %6.2f %% |                 |                 |       |\n", s.name, "upper bound", 100*bf.Memory, 100*bf.VCores)
	}
	if _, cpu := decisionClock(); cpu {
		b.WriteString("(mean and p99: thread CPU time per decision)\n")
	}
	t.Log("\n" + b.String())
}
