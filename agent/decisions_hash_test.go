package agent_test

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"hash"
	"testing"

	"github.com/berthsched/berth/agent"
	"github.com/berthsched/berth/plan"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hashedAgents are the agents whose every placement TestDecisionHashes
// fingerprints: the yardstick's agents, and the allocators and options
// they do not reach on their own (the step greedy, the low-cost allocator
// alone, YARN 2.x's agent, the exact scan, the componentwise fit).
func hashedAgents(t testing.TB) []namedAgent {
	agents := yardstickAgents(t)
	for _, left := range []bool{true, false} {
		o := agent.DefaultConfig()
		o.FavorEarlyAllocation = left
		side := map[bool]string{true: "early", false: "late"}[left]
		agents = append(agents,
			namedAgent{"steps-" + side, &agent.IterativePlanner{Allocator: agent.Greedy{}, Config: o}},
			namedAgent{"low-cost-" + side, &agent.IterativePlanner{Interval: agent.ByDemand{},
				Allocator: agent.LowCostAligned{SmoothnessFactor: agent.DefaultSmoothnessFactor}, Config: o}})
		exact := o
		exact.ExactScan, exact.ComponentwiseFit = true, true
		g, err := agent.NewGreedy(exact)
		require.NoError(t, err)
		agents = append(agents, namedAgent{"greedy-exact-" + side, g})
	}
	// LeastWaste weighing waste everywhere, declining or never.
	for _, slack := range []float64{0.2, -1} {
		lw, err := agent.NewLeastWaste(agent.LeastWasteConfig{Config: agent.DefaultConfig(), Waste: agent.WasteConfig{Gap: 30 * 60 * 1000, Slack: slack, Contested: 1.5}})
		require.NoError(t, err)
		agents = append(agents, namedAgent{fmt.Sprintf("least-waste-contested-%v", slack), lw})
	}
	return append(agents, namedAgent{"legacy", &agent.LegacyGreedy{}}, namedAgent{"legacy-componentwise", &agent.LegacyGreedy{ComponentwiseFit: true}})
}

var decisionsFull = flag.Bool("decisions.full", false,
	"TestDecisionHashes: hash all of W2, W2-hot and W4 (a minute or more) instead of their prefixes")

// hashPlacements submits every request of the stream with ag and writes
// each decision to h: the error's text, or the allocation's window,
// intervals and stages.
func hashPlacements(t testing.TB, h hash.Hash, ag plan.Agent, stream []agent.Episode) {
	for _, ep := range stream {
		p, err := plan.New(ep.Config)
		require.NoError(t, err)
		for _, q := range ep.Requests {
			fmt.Fprintf(h, "%v:", q.ID)
			if err := ag.CreateReservation(p, q.ID, q.User, q.Definition); err != nil {
				fmt.Fprintf(h, "%v\n", err)
				continue
			}
			a, ok := p.Reservation(q.ID)
			require.True(t, ok)
			fmt.Fprintf(h, "[%d,%d) gang=%v %v %v\n", a.Start, a.End, a.Gang, a.Intervals, a.Stages)
		}
	}
}

// TestDecisionHashes fingerprints every placement every agent makes on
// prefixes of W2, W2-hot and W4 (WORKLOADS.md), or with -decisions.full on
// all of them. The hashes were taken before the allocators were split
// into named steps: a refactoring of an agent must leave each of them as
// it is.
func TestDecisionHashes(t *testing.T) {
	if raceEnabled {
		t.Skip("decisions do not depend on the race detector; without it the test takes a few seconds")
	}
	want, w2n, w2hot, w4n := decisionHashes, 300, 600, 15
	if *decisionsFull {
		want, w2n, w2hot, w4n = decisionHashesFull, 10000, 10000, w4Episodes
	}
	streams := []struct {
		name   string
		stream []agent.Episode
	}{
		{"W2", w2Stream(t, w2n)},
		{"W2-hot", w2HotStream(t, w2hot)},
		{"W4", w4Stream(w4n)},
	}
	for _, a := range hashedAgents(t) {
		t.Run(a.name, func(t *testing.T) {
			h := sha256.New()
			for _, s := range streams {
				fmt.Fprintf(h, "stream %s\n", s.name)
				hashPlacements(t, h, a.agent, s.stream)
			}
			got := hex.EncodeToString(h.Sum(nil))[:16]
			if !assert.Equal(t, want[a.name], got, "the placements of %s changed", a.name) {
				t.Logf("hash: %q: %q,", a.name, got)
			}
		})
	}
}

// w2Stream is workload W2 as one episode: the first n requests on the full
// plan with the capacity-over-time policy.
func w2Stream(t testing.TB, n int) []agent.Episode {
	s := w2HotStream(t, n)
	s[0].Config.Capacity = s[0].Config.Capacity.MulInt(20)
	return s
}

// decisionHashes and decisionHashesFull are the fingerprints of each
// agent's placements on the prefixes and on the whole workloads.
var (
	decisionHashes = map[string]string{
		"greedy-early":              "e72cce7355726497",
		"greedy-late":               "37fc14c023698070",
		"aligned-with-greedy":       "e467f3bf62e340f3",
		"portfolio":                 "5bfda1622c3920f9",
		"least-waste":               "8f3d12c4c38ab81c",
		"steps-early":               "a84a74c35e1d60a1",
		"low-cost-early":            "6a1d19fa33d380e5",
		"greedy-exact-early":        "adbd8ffb9274672f",
		"steps-late":                "adc62fc7e3ab3603",
		"low-cost-late":             "074e1516aeef2694",
		"greedy-exact-late":         "cf3f048c6bc13142",
		"least-waste-contested-0.2": "efe3a30b4841fb25",
		"least-waste-contested--1":  "49d745a7d5b5cd0f",
		"legacy":                    "4b588e9e79bae559",
		"legacy-componentwise":      "e4e8628e5c703a3e",
	}
	decisionHashesFull = map[string]string{
		"greedy-early":              "386fbe38e888817c",
		"greedy-late":               "6eaf58ec1cd081f5",
		"aligned-with-greedy":       "8419d30833e44c1b",
		"portfolio":                 "42291f438b298c43",
		"least-waste":               "3a3d5813da777dfb",
		"steps-early":               "296b04f67100738c",
		"low-cost-early":            "2642481ec2004dea",
		"greedy-exact-early":        "0c0c30eeacb75d3a",
		"steps-late":                "11583becc076fa06",
		"low-cost-late":             "d916635e68ead6e2",
		"greedy-exact-late":         "8fb59bb33cc857df",
		"least-waste-contested-0.2": "5ebbd919efb5d4d6",
		"least-waste-contested--1":  "0164c23271b436c2",
		"legacy":                    "389577d43416c337",
		"legacy-componentwise":      "608b31167aff5272",
	}
)
