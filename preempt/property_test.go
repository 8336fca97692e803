package preempt_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/capacity"
	"github.com/berthsched/berth/preempt"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// randomCapWorld draws a cluster of one or two levels of queues with absolute
// guarantees summing to the cluster, usage in containers of each leaf's
// size, and pending demand. balanced keeps every leaf within its guarantee.
func randomCapWorld(rng *rand.Rand, balanced bool) (*capWorld, []string) {
	w := &capWorld{rc: berth.MemoryCalculator{}}
	nLeaves := 2 + rng.IntN(4)
	gran := make([]int64, nLeaves)
	guar := make([]int64, nLeaves)
	var cluster int64
	for i := range guar {
		gran[i] = 1 + rng.Int64N(3)
		guar[i] = gran[i] * (3 + rng.Int64N(12))
		cluster += guar[i]
	}
	w.root = &capQueue{path: "root", guar: capRes(cluster), max: capRes(cluster)}
	parent := w.root
	var leaves []string
	nested := rng.IntN(2) == 0 && nLeaves > 2
	for i := 0; i < nLeaves; i++ {
		if nested && i == 1 { // leaves 1.. go under a parent p
			var sum int64
			for _, g := range guar[1:] {
				sum += g
			}
			p := &capQueue{path: "root.p", guar: capRes(sum), max: capRes(cluster)}
			w.root.children = append(w.root.children, p)
			parent = p
		}
		q := &capQueue{path: fmt.Sprintf("%s.q%d", parent.path, i), guar: capRes(guar[i]), max: capRes(cluster)}
		parent.children = append(parent.children, q)
		leaves = append(leaves, q.path)
	}
	free := cluster
	for i, path := range leaves {
		limit := free
		if balanced {
			limit = min(free, guar[i])
		}
		n := rng.Int64N(limit/gran[i] + 1)
		if i == len(leaves)-1 && !balanced && rng.IntN(2) == 0 {
			n = free / gran[i] // often fill the cluster
		}
		free -= n * gran[i]
		apps := 1 + rng.IntN(3)
		for a := 0; a < apps && n > 0; a++ {
			k := n / int64(apps-a)
			if a == apps-1 {
				k = n
			}
			if k == 0 {
				continue
			}
			w.apps = append(w.apps, capApp{id: fmt.Sprintf("q%d-app%d", i, a), queue: path, am: rng.IntN(2) == 0,
				groups: []capGroup{{node: "n1", size: capRes(gran[i]), count: int(k)}}})
			n -= k
		}
		if p := rng.Int64N(guar[i]/gran[i] + 1); p > 0 {
			w.carriers = append(w.carriers, capCarrier{queue: path, total: capRes(p * gran[i]), unit: capRes(gran[i])})
		}
	}
	w.nodes = []capacity.NodeSpec{{ID: "n1", Rack: "/r", Capability: capRes(cluster)}}
	return w, leaves
}

func randomProportionalConfig(rng *rand.Rand) preempt.ProportionalConfig {
	cfg := preempt.DefaultProportionalConfig()
	cfg.TotalPreemptionPerRound = []float64{0.05, 0.1, 0.3, 1}[rng.IntN(4)]
	cfg.NaturalTerminationFactor = []float64{0.2, 0.5, 1}[rng.IntN(3)]
	cfg.MaxIgnoredOverCapacity = []float64{0, 0.1, 0.3}[rng.IntN(3)]
	cfg.MaxWaitBeforeKill = []berth.Duration{0, 3000, 15000}[rng.IntN(3)]
	cfg.SelectBasedOnReservedContainers = rng.IntN(3) == 0
	return cfg
}

// checkProportionalRound asserts the per-round invariants of a report.
func checkProportionalRound(t *testing.T, rep *preempt.ProportionalReport, cfg preempt.ProportionalConfig) {
	t.Helper()
	seen := map[preempt.ContainerID]bool{}
	var total berth.Resource
	for _, d := range rep.Decisions {
		assert.False(t, seen[d.ID], "container %d selected twice", d.ID)
		seen[d.ID] = true
		total = total.Add(d.Resource)
		q := rep.Queue(d.Container.Queue)
		require.NotNil(t, q)
		over := q.Guaranteed.Mul(1 + cfg.MaxIgnoredOverCapacity)
		assert.Greater(t, q.Used.Memory, over.Memory, "%s selected from %s at or below guarantee plus dead zone", d.Selector, q.Path)
		if d.Action == preempt.Killed {
			assert.GreaterOrEqual(t, rep.Time-d.FirstMarked, cfg.MaxWaitBeforeKill, "killed before the wait")
		}
	}
	assert.LessOrEqual(t, total.Memory, rep.Budget.Memory, "selected more than the per-round cap")
}

func TestPropertyRounds(t *testing.T) {
	for seed := uint64(1); seed <= 60; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 7))
			w, leaves := randomCapWorld(rng, false)
			cfg := randomProportionalConfig(rng)
			s, clock := w.build(t)
			p, err := preempt.NewProportional(preempt.ProportionalSetup{State: s, Actor: s, Config: cfg})
			require.NoError(t, err)
			quiet := 0
			for round := 0; round < 400 && quiet < 8; round++ {
				rep, err := p.Round(clock.Now())
				require.NoError(t, err)
				checkProportionalRound(t, rep, cfg)
				if len(rep.Decisions) == 0 {
					quiet++
				} else {
					quiet = 0
				}
				clock.Advance(3000)
				_, err = s.Heartbeat("n1", nil)
				require.NoError(t, err)
				require.NoError(t, s.Check())
			}
			require.Equal(t, 8, quiet, "rounds did not converge")
			// Converged: a leaf still asked to give holds nothing that
			// can be taken (only AMs, kept within the AM share, or
			// containers larger than the round's budget).
			rep, err := p.Evaluate(clock.Now())
			require.NoError(t, err)
			snap := s.Snapshot()
			for _, l := range leaves {
				q := rep.Queue(l)
				if q.ToObtain.IsZero() {
					continue
				}
				for _, c := range snap.Containers {
					if c.Queue == l {
						assert.True(t, c.AM || c.Resource.Memory > rep.Budget.Memory,
							"%s asked for %v yet container %d (%v) could be taken", l, q.ToObtain, c.ID, c.Resource)
					}
				}
			}
		})
	}
}

// A cluster where every leaf is within its guarantee selects nothing.
func TestPropertyBalancedSelectsNothing(t *testing.T) {
	for seed := uint64(1); seed <= 40; seed++ {
		rng := rand.New(rand.NewPCG(seed, 11))
		w, _ := randomCapWorld(rng, true)
		cfg := randomProportionalConfig(rng)
		s, _ := w.build(t)
		p, err := preempt.NewProportional(preempt.ProportionalSetup{State: s, Actor: s, Config: cfg})
		require.NoError(t, err)
		rep, err := p.Round(0)
		require.NoError(t, err)
		assert.Empty(t, rep.Decisions, "seed %d", seed)
	}
}

// observe_only computes the same selection and changes nothing.
func TestPropertyObserveOnly(t *testing.T) {
	for seed := uint64(1); seed <= 40; seed++ {
		rng := rand.New(rand.NewPCG(seed, 13))
		w, _ := randomCapWorld(rng, false)
		cfg := randomProportionalConfig(rng)
		s, _ := w.build(t)
		obs := cfg
		obs.ObserveOnly = true
		p, err := preempt.NewProportional(preempt.ProportionalSetup{State: s, Actor: s, Config: obs})
		require.NoError(t, err)
		before := s.Snapshot()
		var first []preempt.ContainerID
		for r := 0; r < 3; r++ {
			rep, err := p.Round(berth.Time(r) * 20000)
			require.NoError(t, err)
			var ids []preempt.ContainerID
			for _, d := range rep.Decisions {
				assert.Equal(t, preempt.Observed, d.Action)
				ids = append(ids, d.ID)
			}
			if r == 0 {
				first = ids
			} else {
				assert.Equal(t, first, ids, "same state, same selection")
			}
		}
		after := s.Snapshot()
		assert.True(t, reflect.DeepEqual(before.Containers, after.Containers), "seed %d: containers changed", seed)
		assert.True(t, reflect.DeepEqual(before.Reservations, after.Reservations), "seed %d: reservations changed", seed)
		assert.Empty(t, p.Marked())
		// The acting policy selects the same containers in its first round.
		act, err := preempt.NewProportional(preempt.ProportionalSetup{State: s, Actor: s, Config: cfg})
		require.NoError(t, err)
		rep, err := act.Round(0)
		require.NoError(t, err)
		var ids []preempt.ContainerID
		for _, d := range rep.Decisions {
			ids = append(ids, d.ID)
		}
		assert.Equal(t, first, ids, "seed %d", seed)
	}
}
