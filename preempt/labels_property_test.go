package preempt_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/capacity"
	"github.com/berthsched/berth/preempt"
	"github.com/berthsched/berth/queue"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// borrowWorld is a random cluster with a non-exclusive partition x that
// queues without access to it have filled by borrowing: "own" may use x
// (it is guaranteed all of it); the "other" leaves may not.
type borrowWorld struct {
	s      *capacity.Scheduler
	clock  *berth.ManualClock
	xNodes []string
	size   berth.Resource // every container's
	others []string
}

func newBorrowWorld(t *testing.T, rng *rand.Rand) *borrowWorld {
	unit := int64(1 + rng.IntN(2))
	size := berth.New(unit*1024, unit)
	per := int64(4 + rng.IntN(6)) // containers per node
	nodeCap := berth.New(per*unit*1024, per*unit)
	cfg := capacity.DefaultConfig()
	cfg.MinAllocation = berth.New(1024, 1)
	cfg.MaxAllocation = nodeCap
	cfg.NodeLabels = []capacity.NodeLabel{{Name: "x", NonExclusive: true}}
	cfg.MaxOffSwitchAssignments = 100
	cfg.MaximumAMResourcePercent = 1
	nOthers := 1 + rng.IntN(3)
	share := float32(100) / float32(nOthers+1)
	own := capacity.Queue("own", share)
	own.Settings.AccessibleNodeLabels = []string{"x"}
	own.Settings.NodeLabels = map[string]capacity.LabelSettings{"x": {Capacity: queue.Percent(100)}}
	own.Settings.UserLimitFactor = 100
	cfg.Root.Children = []capacity.QueueConfig{own}
	w := &borrowWorld{size: size}
	for i := 0; i < nOthers; i++ {
		q := capacity.Queue(fmt.Sprintf("other%d", i), share)
		if i == nOthers-1 {
			q.Capacity = queue.Percent(100 - share*float32(nOthers))
		}
		q.Settings.AccessibleNodeLabels = []string{}
		q.Settings.UserLimitFactor = 100
		cfg.Root.Children = append(cfg.Root.Children, q)
		w.others = append(w.others, "root."+q.Name)
	}
	cfg.Root.Settings.NodeLabels = map[string]capacity.LabelSettings{"x": {Capacity: queue.Percent(100)}}
	w.clock = berth.NewManualClock(0)
	cfg.Clock = w.clock
	s, err := capacity.New(cfg)
	require.NoError(t, err)
	w.s = s
	nDefault, nX := 1+rng.IntN(2), 1+rng.IntN(3)
	for i := 0; i < nDefault; i++ {
		require.NoError(t, s.AddNode(capacity.NodeSpec{ID: fmt.Sprintf("d%d", i), Rack: "/r", Capability: nodeCap}))
	}
	for i := 0; i < nX; i++ {
		id := fmt.Sprintf("x%d", i)
		require.NoError(t, s.AddNode(capacity.NodeSpec{ID: id, Rack: "/r", Capability: nodeCap, Label: "x"}))
		w.xNodes = append(w.xNodes, id)
	}
	// The others ask for more than the cluster: they fill the default
	// partition, then borrow x.
	for i, q := range w.others {
		id := fmt.Sprintf("b%d", i)
		_, err := s.SubmitApp(capacity.AppSpec{ID: id, Queue: q, User: "u" + fmt.Sprint(i)})
		require.NoError(t, err)
		_, err = s.Allocate(id, []capacity.Ask{{Priority: 1, ResourceName: capacity.AnyResource, Capability: size,
			Count: int(per) * (nDefault + nX)}}, nil)
		require.NoError(t, err)
	}
	for range 10 * (nDefault + nX) {
		w.heartbeatAll(t)
	}
	return w
}

func (w *borrowWorld) heartbeatAll(t *testing.T) {
	for _, n := range w.s.Snapshot().Nodes {
		_, err := w.s.Heartbeat(n.ID, nil)
		require.NoError(t, err)
	}
}

// onX sums the containers on x: the borrowed ones and own's.
func (w *borrowWorld) onX() (borrowed, own int) {
	onX := map[string]bool{}
	for _, n := range w.xNodes {
		onX[n] = true
	}
	for _, c := range w.s.Snapshot().Containers {
		if !onX[c.Node] {
			continue
		}
		if c.Queue == "root.own" {
			own++
		} else {
			borrowed++
		}
	}
	return borrowed, own
}

// TestLabelsBorrowedResourcesGoBack: whatever the cluster, once the queue
// that may use a non-exclusive partition asks for it, preemption rounds
// take the borrowed containers back (only those) and the heartbeats give
// the partition to that queue, up to its demand.
func TestLabelsBorrowedResourcesGoBack(t *testing.T) {
	seeds := 20
	if testing.Short() {
		seeds = 5
	}
	for seed := uint64(1); seed <= uint64(seeds); seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 99))
			w := newBorrowWorld(t, rng)
			s := w.s
			borrowed, _ := w.onX()
			require.Positive(t, borrowed, "the others borrow x")
			xTotal := 0
			for _, n := range s.Snapshot().Nodes {
				if n.Label == "x" {
					xTotal += int(n.Capability.Memory / w.size.Memory)
				}
			}
			want := 1 + rng.IntN(xTotal)
			_, err := s.SubmitApp(capacity.AppSpec{ID: "own", Queue: "own", User: "o"})
			require.NoError(t, err)
			_, err = s.Allocate("own", []capacity.Ask{{Priority: 1, ResourceName: capacity.AnyResource, Capability: w.size,
				Count: want, NodeLabelExpression: "x"}}, nil)
			require.NoError(t, err)
			cfg := preempt.DefaultProportionalConfig()
			cfg.MaxWaitBeforeKill = 1000
			// Small clusters: a round's budget (10% of the cluster by
			// default) may not fit one container, and YARN then takes none.
			cfg.TotalPreemptionPerRound = 1
			p, err := preempt.NewProportional(preempt.ProportionalSetup{State: s, Actor: s, Config: cfg})
			require.NoError(t, err)
			for round := 0; round < 200; round++ {
				w.clock.Advance(1000)
				rep, err := p.Round(w.clock.Now())
				require.NoError(t, err)
				for _, d := range rep.Decisions {
					// x goes back from the borrowers; the others may even
					// out the default partition among themselves.
					assert.NotEqual(t, "root.own", d.Queue, "own gives nothing")
				}
				w.heartbeatAll(t)
				if _, own := w.onX(); own == want {
					break
				}
			}
			b, own := w.onX()
			assert.Equal(t, want, own, "own got x back")
			assert.LessOrEqual(t, b, xTotal-want, "the borrowers hold only the rest of x")
			require.NoError(t, s.Check())
		})
	}
}
