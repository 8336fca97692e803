package preempt_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"math/rand/v2"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/capacity"
	"github.com/berthsched/berth/preempt"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// proportionalHashes are the fingerprints of every proportional round on
// the seeded worlds of TestProportionalDecisionHashes, one per selector
// chain, taken before the round, the view and the selectors were split
// into named steps.
var proportionalHashes = map[string]string{
	"fifo":     "3b26aaf994a35af6ba08e3f8de23e1c4895e81d66d77ec9da35d7ef5fc3dcbcd",
	"priority": "4b5a839937669a22137cd333167c639949e0a44f3419fd27c7317667733ace29",
	"intra":    "fcfca9371799134c61d0736364079e6ba48514c611fe65307ee2f36f817889b2",
	"all":      "a0db303cee5386983cc7de965da4ceb18f6ddc20d1bb6e07e56c8d1a5aad9142",
}

// hashedChains are the selector chains TestProportionalDecisionHashes
// drives: YARN's FIFO alone, with the queue-priority selector, with the
// intra-queue selector, and all of them with balancing.
var hashedChains = []struct {
	name                      string
	priority, intra, balanced bool
}{
	{"fifo", false, false, false},
	{"priority", true, false, false},
	{"intra", false, true, false},
	{"all", true, true, true},
}

// randomizePriorities gives the world's leaves and applications random
// priorities and users, so the priority and intra-queue selectors have
// something to weigh.
func randomizePriorities(rng *rand.Rand, w *capWorld) {
	w.priOrder = rng.IntN(2) == 0
	var walk func(q *capQueue)
	walk = func(q *capQueue) {
		if q.path != "root" {
			q.priority = rng.IntN(3)
		}
		for _, c := range q.children {
			walk(c)
		}
	}
	walk(w.root)
	for i := range w.apps {
		w.apps[i].priority = int32(rng.IntN(3))
		w.apps[i].user = fmt.Sprintf("u%d", rng.IntN(2))
	}
}

// hashProportionalRun drives a policy over one seeded world and writes
// every decision of every round, and the policy's snapshot bytes after
// each round, to h.
func hashProportionalRun(t *testing.T, h hash.Hash, seed uint64, priority, intra, balanced bool) {
	rng := rand.New(rand.NewPCG(seed, 29))
	w, _ := randomCapWorld(rng, false)
	randomizePriorities(rng, w)
	cfg := randomProportionalConfig(rng)
	cfg.PriorityPreemption, cfg.IntraQueueEnabled, cfg.BalanceAfterSatisfied = priority, intra, balanced
	s, clock := w.build(t)
	p, err := preempt.NewProportional(preempt.ProportionalSetup{State: s, Actor: s, Config: cfg})
	require.NoError(t, err)
	for round := 0; round < 12; round++ {
		rep, err := p.Round(clock.Now())
		require.NoError(t, err)
		fmt.Fprintf(h, "seed %d round %d budget %v\n", seed, round, rep.Budget)
		for _, d := range rep.Decisions {
			fmt.Fprintf(h, "%d %s %s %v %v %v %v %d\n", d.ID, d.App, d.Queue, d.Resource, d.Reservation, d.Selector, d.Action, d.FirstMarked)
		}
		for _, l := range w.queuePaths() {
			if q := rep.Queue(l); q != nil {
				fmt.Fprintf(h, "%s %v %v\n", l, q.Ideal, q.ToObtain)
			}
		}
		var buf bytes.Buffer
		require.NoError(t, p.SaveState(&buf))
		h.Write(buf.Bytes())
		hashRestored(t, h, buf.Bytes(), s)
		clock.Advance(3000)
		_, err = s.Heartbeat("n1", nil)
		require.NoError(t, err)
	}
}

// queuePaths lists the world's queues, parents before children.
func (w *capWorld) queuePaths() []string {
	var out []string
	var walk func(q *capQueue)
	walk = func(q *capQueue) {
		out = append(out, q.path)
		for _, c := range q.children {
			walk(c)
		}
	}
	walk(w.root)
	return out
}

// TestProportionalDecisionHashes fingerprints, for each selector chain,
// every decision and snapshot of a dozen rounds on each of 25 seeded
// worlds. A refactoring of the policy must leave each hash as it is.
func TestProportionalDecisionHashes(t *testing.T) {
	if raceEnabled {
		t.Skip("decisions do not depend on the race detector")
	}
	for _, ch := range hashedChains {
		h := sha256.New()
		for seed := uint64(1); seed <= 25; seed++ {
			hashProportionalRun(t, h, seed, ch.priority, ch.intra, ch.balanced)
		}
		got := hex.EncodeToString(h.Sum(nil))
		assert.Equal(t, proportionalHashes[ch.name], got, "chain %s", ch.name)
	}
}

// seededIntraWorld is one leaf on two nodes filled by low-priority
// applications of a few users, then higher-priority applications asking
// for more: the intra-queue selector's ground, drawn from rng.
func seededIntraWorld(t *testing.T, rng *rand.Rand) (*capacity.Scheduler, *berth.ManualClock) {
	cfg := capacity.DefaultConfig()
	a, b := capacity.Queue("a", 70), capacity.Queue("b", 30)
	a.Settings.UserLimitFactor = 1 + float64(rng.IntN(3))
	a.Settings.MinUserLimitPercent = []float64{100, 50, 25}[rng.IntN(3)]
	cfg.Root.Children = []capacity.QueueConfig{a, b}
	clock := berth.NewManualClock(0)
	cfg.Clock = clock
	s, err := capacity.New(cfg)
	require.NoError(t, err)
	require.NoError(t, s.AddNodes(capacity.NodeSpec{ID: "n1", Rack: "/r", Capability: berth.New(16*cGB, 16)},
		capacity.NodeSpec{ID: "n2", Rack: "/r", Capability: berth.New(16*cGB, 16)}))
	one := berth.New(cGB, 1)
	for i := range 1 + rng.IntN(3) {
		id := fmt.Sprintf("low%d", i)
		_, err = s.SubmitApp(capacity.AppSpec{ID: id, Queue: "a", User: fmt.Sprintf("u%d", rng.IntN(2)), Priority: int32(rng.IntN(2)), AMResource: one})
		require.NoError(t, err)
		heartbeatAll(t, s, clock, "n1", "n2")
		_, err = s.Allocate(id, []capacity.Ask{{Priority: 1, ResourceName: capacity.AnyResource, Capability: berth.New(int64(1+rng.IntN(2))*cGB, 1), Count: 4 + rng.IntN(12)}}, nil)
		require.NoError(t, err)
		heartbeatAll(t, s, clock, "n1", "n2")
	}
	for i := range 1 + rng.IntN(2) {
		id := fmt.Sprintf("high%d", i)
		_, err = s.SubmitApp(capacity.AppSpec{ID: id, Queue: "a", User: fmt.Sprintf("u%d", rng.IntN(3)), Priority: int32(2 + rng.IntN(4))})
		require.NoError(t, err)
		_, err = s.Allocate(id, []capacity.Ask{{Priority: 1, ResourceName: capacity.AnyResource, Capability: one, Count: 2 + rng.IntN(8)}}, nil)
		require.NoError(t, err)
	}
	return s, clock
}

// seededPriorityWorld is two queues of different priorities under a
// priority-utilization root, the lower holding most of both nodes and the
// higher reserving a node: the queue-priority selector's ground.
func seededPriorityWorld(t *testing.T, rng *rand.Rand) (*capacity.Scheduler, *berth.ManualClock) {
	cfg := capacity.DefaultConfig()
	g := 30 + 10*rng.IntN(4)
	hi, lo := capacity.Queue("hi", float32(g)), capacity.Queue("lo", float32(100-g))
	hi.Settings.Priority, lo.Settings.Priority = 2, 1
	lo.Settings.UserLimitFactor = 3
	cfg.Root.Settings.ChildOrdering = capacity.OrderPriorityUtilization
	cfg.Root.Children = []capacity.QueueConfig{hi, lo}
	clock := berth.NewManualClock(0)
	cfg.Clock = clock
	s, err := capacity.New(cfg)
	require.NoError(t, err)
	require.NoError(t, s.AddNodes(capacity.NodeSpec{ID: "n1", Rack: "/r", Capability: berth.New(8*cGB, 8)},
		capacity.NodeSpec{ID: "n2", Rack: "/r", Capability: berth.New(8*cGB, 8)}))
	_, err = s.SubmitApp(capacity.AppSpec{ID: "l", Queue: "lo", User: "u"})
	require.NoError(t, err)
	_, err = s.Allocate("l", []capacity.Ask{{Priority: 1, ResourceName: capacity.AnyResource, Capability: berth.New(cGB, 1), Count: 8 + rng.IntN(7)}}, nil)
	require.NoError(t, err)
	heartbeatAll(t, s, clock, "n1", "n2")
	_, err = s.SubmitApp(capacity.AppSpec{ID: "h", Queue: "hi", User: "v"})
	require.NoError(t, err)
	_, err = s.Allocate("h", []capacity.Ask{{Priority: 1, ResourceName: capacity.AnyResource, Capability: berth.New(int64(3+rng.IntN(3))*cGB, 1), Count: 1 + rng.IntN(2)}}, nil)
	require.NoError(t, err)
	_, err = s.Heartbeat([]string{"n1", "n2"}[rng.IntN(2)], nil)
	require.NoError(t, err)
	return s, clock
}

// TestSelectorDecisionHashes fingerprints the queue-priority and
// intra-queue selectors' rounds on worlds drawn for them.
func TestSelectorDecisionHashes(t *testing.T) {
	if raceEnabled {
		t.Skip("decisions do not depend on the race detector")
	}
	for _, world := range []struct {
		name  string
		build func(*testing.T, *rand.Rand) (*capacity.Scheduler, *berth.ManualClock)
	}{{"intra", seededIntraWorld}, {"priority", seededPriorityWorld}} {
		h := sha256.New()
		for seed := uint64(1); seed <= 20; seed++ {
			rng := rand.New(rand.NewPCG(seed, 37))
			s, clock := world.build(t, rng)
			cfg := randomProportionalConfig(rng)
			cfg.PriorityPreemption, cfg.IntraQueueEnabled = true, true
			cfg.IntraQueueOrder = []preempt.IntraQueueOrder{preempt.PriorityFirst, preempt.UserLimitFirst}[rng.IntN(2)]
			p, err := preempt.NewProportional(preempt.ProportionalSetup{State: s, Actor: s, Config: cfg})
			require.NoError(t, err)
			for round := 0; round < 8; round++ {
				rep, err := p.Round(clock.Now())
				require.NoError(t, err)
				fmt.Fprintf(h, "seed %d round %d\n", seed, round)
				for _, d := range rep.Decisions {
					fmt.Fprintf(h, "%d %s %s %v %v %v %v %d\n", d.ID, d.App, d.Queue, d.Resource, d.Reservation, d.Selector, d.Action, d.FirstMarked)
				}
				var buf bytes.Buffer
				require.NoError(t, p.SaveState(&buf))
				h.Write(buf.Bytes())
				hashRestored(t, h, buf.Bytes(), s)
				clock.Advance(berth.Duration(1000 + rng.IntN(2)*15000))
				heartbeatAll(t, s, clock, "n1", "n2")
			}
		}
		assert.Equal(t, selectorHashes[world.name], hex.EncodeToString(h.Sum(nil)), "world %s", world.name)
	}
}

// selectorHashes are TestSelectorDecisionHashes' fingerprints, taken
// before the selectors were split into named steps.
var selectorHashes = map[string]string{
	"intra":    "f8a90631aa4b6d7b42219a428bd735694c370daff72e713a486a7110a0e37c07",
	"priority": "c80cebf5eddd3aa8a5821bf6bcf876500a4c61ee772c76c29931c539c7827fcc",
}

// hashRestored restores a policy from snapshot bytes and writes its own
// snapshot and marks to h, or the restore's error.
func hashRestored(t *testing.T, h hash.Hash, snap []byte, s preempt.CapacityScheduler) {
	q, err := preempt.RestoreProportional(bytes.NewReader(snap), preempt.ProportionalSetup{State: s, Actor: s})
	if err != nil {
		fmt.Fprintf(h, "restore: %v\n", err)
		return
	}
	var buf bytes.Buffer
	require.NoError(t, q.SaveState(&buf))
	h.Write(buf.Bytes())
	fmt.Fprintf(h, "%v\n", q.Marked())
}
