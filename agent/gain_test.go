package agent_test

import (
	"cmp"
	"slices"
	"testing"

	"github.com/berthsched/berth/agent"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// yarnAgents names YARN's agents among yardstickAgents: the gains are
// measured against the best of them.
var yarnAgents = map[string]bool{"greedy-early": true, "greedy-late": true, "aligned-with-greedy": true}

// TestAgentGain measures the portfolio and the least-waste agent against
// the best of YARN's agents (greedy early, greedy late, aligned with
// greedy) on both streams of the yardstick, by reserved area, with the
// streams' fixed seeds, and checks the figures of the package
// documentation. Under -race or -short it runs a prefix of each stream
// (the first 2,500 W2-hot requests, the first 10 W4 episodes), with the
// figures of those prefixes.
func TestAgentGain(t *testing.T) {
	short := testing.Short() || raceEnabled
	w2n, w4n := 10000, w4Episodes
	if short {
		w2n, w4n = 2500, 10
	}
	type want struct {
		// gain is the least gain over YARN's best, memory and vcores.
		gain agent.Area
		// ofBound is the least fraction of the upper bound reached (memory).
		ofBound float64
	}
	type figures struct{ full, short want }
	cases := []struct {
		name   string
		stream []agent.Episode
		agents map[string]figures
	}{
		{"W2-hot", w2HotStream(t, w2n), map[string]figures{
			// The portfolio decides as the late greedy agent on one-stage
			// requests.
			"portfolio": {want{agent.Area{}, 0.90}, want{agent.Area{Memory: -0.015, VCores: -0.015}, 0.83}},
			// Least waste: +4.38 % (94.95 % of the bound, short of the 97 %
			// aimed at); on the prefix +6.39 % (91.0 %).
			"least-waste": {want{agent.Area{Memory: 0.043, VCores: 0.043}, 0.949}, want{agent.Area{Memory: 0.063, VCores: 0.063}, 0.90}},
		}},
		{"W4", w4Stream(w4n), map[string]figures{
			"portfolio": {want{agent.Area{Memory: 0.10, VCores: 0.09}, 0.89}, want{agent.Area{Memory: 0.09, VCores: 0.09}, 0.85}},
			// Least waste: +11.25 % and +10.12 %; on the prefix +10.11 % and +10.76 %.
			"least-waste": {want{agent.Area{Memory: 0.11, VCores: 0.10}, 0.90}, want{agent.Area{Memory: 0.10, VCores: 0.10}, 0.86}},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var best agent.Area
			got := map[string]agent.Report{}
			for _, a := range yardstickAgents(t) {
				r, err := agent.Measure(a.agent, c.stream, nil)
				require.NoError(t, err)
				f := r.Reserved.Ratio(r.Offered)
				t.Logf("%-20s accepted %5d, memory %.3f %%, vcores %.3f %%", a.name, r.Accepted, 100*f.Memory, 100*f.VCores)
				assert.LessOrEqual(t, r.Reserved.Memory, r.Bound.Memory*(1+1e-9), "%s: nothing beats the bound", a.name)
				assert.LessOrEqual(t, r.Reserved.VCores, r.Bound.VCores*(1+1e-9), "%s: nothing beats the bound", a.name)
				if yarnAgents[a.name] {
					best.Memory, best.VCores = max(best.Memory, f.Memory), max(best.VCores, f.VCores)
					continue
				}
				got[a.name] = r
			}
			require.Len(t, got, len(c.agents))
			for name, fig := range c.agents {
				r := got[name]
				f := r.Reserved.Ratio(r.Offered)
				bound := r.Bound.Ratio(r.Offered)
				t.Logf("%s gain over YARN's best: memory %+.2f %%, vcores %+.2f %%; bound %.3f %% / %.3f %% (%+.2f %% over YARN's best); at %.1f %% of the bound",
					name, 100*(f.Memory/best.Memory-1), 100*(f.VCores/best.VCores-1), 100*bound.Memory, 100*bound.VCores,
					100*(bound.Memory/best.Memory-1), 100*f.Memory/bound.Memory)
				w := fig.full
				if short {
					w = fig.short
				}
				assert.GreaterOrEqual(t, f.Memory, best.Memory*(1+w.gain.Memory), "%s: memory", name)
				assert.GreaterOrEqual(t, f.VCores, best.VCores*(1+w.gain.VCores), "%s: vcores", name)
				assert.GreaterOrEqual(t, f.Memory, w.ofBound*bound.Memory, "%s: distance to the bound", name)
			}
			if c.name == "W2-hot" && !short {
				// The bound is less than 10 % above YARN's best: no agent
				// can gain 10 % on W2-hot.
				b := got["portfolio"].Bound.Ratio(got["portfolio"].Offered)
				assert.Less(t, b.Memory, 1.10*best.Memory)
			}
		})
	}
}

// TestBoundNearlyReachedOffline shows the W2-hot bound is not loose: the
// same least-waste agent, given W2-hot's requests sorted by arrival (which
// no online agent may ask for, requests come in the stream's order),
// reserves 98.2 % of the bound, and 97.3 % with the largest areas first.
// What LeastWaste misses of the bound in the stream's own order (95 %) is
// the cost of deciding in that order, not slack in the bound. Under -race
// or -short it runs the first 2,500 requests (95.8 % and 94.2 %).
func TestBoundNearlyReachedOffline(t *testing.T) {
	n, want := 10000, map[string]float64{"arrival": 0.98, "largest-first": 0.97}
	if testing.Short() || raceEnabled {
		n, want = 2500, map[string]float64{"arrival": 0.955, "largest-first": 0.94}
	}
	area := func(r agent.Request) int64 {
		s := r.Definition.Stages[0]
		return int64(s.Duration) * int64(s.Containers)
	}
	orders := map[string]func(a, b agent.Request) int{
		"arrival":       func(a, b agent.Request) int { return cmp.Compare(a.Definition.Arrival, b.Definition.Arrival) },
		"largest-first": func(a, b agent.Request) int { return cmp.Compare(area(b), area(a)) },
	}
	for _, name := range []string{"arrival", "largest-first"} {
		t.Run(name, func(t *testing.T) {
			stream := w2HotStream(t, n)
			slices.SortStableFunc(stream[0].Requests, orders[name])
			lw, err := agent.NewLeastWaste(agent.LeastWasteConfig{Config: agent.DefaultConfig()})
			require.NoError(t, err)
			r, err := agent.Measure(lw, stream, nil)
			require.NoError(t, err)
			got := r.Reserved.Memory / r.Bound.Memory
			t.Logf("%s order: %d accepted, %.2f %% of the bound", name, r.Accepted, 100*got)
			assert.GreaterOrEqual(t, got, want[name])
			assert.LessOrEqual(t, got, 1+1e-9)
		})
	}
}
