package preempt

import (
	"math/rand/v2"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/fair"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// checkFairRounds drives p over f for rounds rounds, the clock moving by
// step ms each, and checks the invariants every round keeps. It returns
// the number of containers marked.
func checkFairRounds(t testing.TB, f *fakeFair, cfg FairConfig, rounds int, step berth.Duration) int {
	t.Helper()
	p, err := NewFairPreemptor(FairPreemptorSetup{State: f, Actor: f, Config: cfg})
	require.NoError(t, err)
	markedAt := map[fair.ContainerID]berth.Time{} // live marks
	ever := 0
	for range rounds {
		f.now += step
		before := map[fair.ContainerID]fair.ContainerInfo{}
		for id, c := range f.containers {
			before[id] = *c
		}
		r, err := p.Round(f.now)
		require.NoError(t, err)
		for _, d := range r.Decisions {
			id := d.Container.ID
			switch d.Action {
			case FairMarked:
				_, again := markedAt[id]
				require.False(t, again, "container %d selected twice", id)
				c, ok := before[id]
				require.True(t, ok, "marked container %d is live", id)
				assert.True(t, c.Preemptable, "container %d of a queue that allows no preemption", id)
				assert.False(t, c.MarkedForPreemption, "container %d was already marked", id)
				markedAt[id] = f.now
				ever++
			case FairKilled:
				at, ok := markedAt[id]
				require.True(t, ok, "killed container %d was marked", id)
				assert.GreaterOrEqual(t, f.now-at, cfg.WaitTimeBeforeKill, "killed before the wait")
				delete(markedAt, id)
			case FairReleased, FairForgotten:
				_, ok := markedAt[id]
				require.True(t, ok)
				delete(markedAt, id)
			}
		}
		// Pending victims never take an application below its fair share.
		pendingBy := map[string]berth.Resource{}
		for id := range markedAt {
			c := f.containers[id]
			require.NotNil(t, c, "pending container %d is live", id)
			assert.True(t, c.MarkedForPreemption)
			pendingBy[c.App] = pendingBy[c.App].Add(c.Resource)
		}
		for app, res := range pendingBy {
			a := f.app(app)
			require.NotNil(t, a)
			rc := fair.PolicyFair.Calculator()
			for _, q := range f.queues {
				if q.Path == a.Queue {
					rc = q.Policy.Calculator()
				}
			}
			assert.GreaterOrEqual(t, rc.Compare(f.cluster, a.Usage.Sub(res), a.FairShare), 0,
				"%s would fall below its fair share %v: usage %v, pending %v", app, a.FairShare, a.Usage, res)
		}
		assert.Len(t, p.Pending(), len(markedAt))
	}
	return ever
}

func TestFairPropertiesRandomClusters(t *testing.T) {
	cfg := DefaultFairConfig()
	cfg.Enabled, cfg.UtilizationThreshold, cfg.WaitTimeBeforeKill = true, 0, 3000
	marked := 0
	for seed := range uint64(300) {
		f := randomFakeFair(rand.New(rand.NewPCG(seed, 7)), true)
		marked += checkFairRounds(t, f, cfg, 12, 1000)
	}
	assert.Positive(t, marked, "the generator exercises preemption")
}

func TestFairNoStarvationSelectsNothing(t *testing.T) {
	cfg := DefaultFairConfig()
	cfg.Enabled, cfg.UtilizationThreshold = true, 0
	for seed := range uint64(100) {
		f := randomFakeFair(rand.New(rand.NewPCG(seed, 9)), false)
		assert.Zero(t, checkFairRounds(t, f, cfg, 5, 1000), "seed %d", seed)
	}
}

// Killing unneeded containers (YARN's timer) versus releasing them.
func TestFairKillOnlyWhenStillNeeded(t *testing.T) {
	for _, killUnneeded := range []bool{false, true} {
		cfg := DefaultFairConfig()
		cfg.Enabled, cfg.UtilizationThreshold, cfg.WaitTimeBeforeKill, cfg.KillUnneeded = true, 0, 2000, killUnneeded
		f := &fakeFair{containers: map[fair.ContainerID]*fair.ContainerInfo{}, asks: map[string][]fair.Ask{}, backoff: map[string]berth.Time{},
			cluster: berth.New(4096, 4), queues: []fair.QueueInfo{{Path: "root", Usage: berth.New(4096, 4)}, {Path: "root.a", Leaf: true, Preemptable: true}},
			nodes: []fair.NodeInfo{{ID: "n0", Capability: berth.New(4096, 4), Allocated: berth.New(4096, 4)}},
			apps: []fair.AppInfo{
				{ID: "greedy", Queue: "root.a", Usage: berth.New(4096, 4), Demand: berth.New(4096, 4)},
				{ID: "starved", Queue: "root.a", FairShare: berth.New(2048, 2), FairShareStarvation: berth.New(1024, 1), Demand: berth.New(2048, 2)},
			}}
		for i := range 4 {
			id := fair.ContainerID(i + 1)
			f.containers[id] = &fair.ContainerInfo{Container: fair.Container{ID: id, App: "greedy", Node: "n0", Resource: berth.New(1024, 1), Time: berth.Time(i)}, Preemptable: true}
		}
		f.asks["starved"] = []fair.Ask{{Priority: 1, ResourceName: fair.AnyResource, Capability: berth.New(1024, 1), Count: 1}}
		p, err := NewFairPreemptor(FairPreemptorSetup{State: f, Actor: f, Config: cfg})
		require.NoError(t, err)
		r, err := p.Round(0)
		require.NoError(t, err)
		require.Equal(t, 1, r.Count(FairMarked))
		assert.Equal(t, fair.ContainerID(4), r.Decisions[0].Container.ID, "the newest container first")
		r, err = p.Round(1999)
		require.NoError(t, err)
		assert.Empty(t, r.Decisions, "nothing before the wait")
		f.apps[1].Demand = berth.None() // the starved application got what it wanted elsewhere
		r, err = p.Round(2000)
		require.NoError(t, err)
		require.Len(t, r.Decisions, 1)
		if killUnneeded {
			assert.Equal(t, FairKilled, r.Decisions[0].Action)
			assert.Equal(t, FairWaitedKillUnneeded, r.Decisions[0].Reason)
			assert.Len(t, f.containers, 3)
		} else {
			assert.Equal(t, FairReleased, r.Decisions[0].Action)
			assert.Len(t, f.containers, 4)
			assert.False(t, f.containers[4].MarkedForPreemption, "unmarked in the scheduler")
		}
		assert.Empty(t, p.Pending())
	}
}

// Repeated rounds on the real scheduler converge: once the starved
// applications hold what they are owed, rounds stop acting.
func TestFairRepeatedRoundsConverge(t *testing.T) {
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 11))
		cfg := DefaultFairConfig()
		cfg.WaitTimeBeforeKill = 1000 * (1 + r.Int64N(3))
		w := newFairWorld(t, fairAlloc(`<defaultFairSharePreemptionTimeout>1</defaultFairSharePreemptionTimeout>
<defaultFairSharePreemptionThreshold>1.0</defaultFairSharePreemptionThreshold><queueMaxAMShareDefault>-1</queueMaxAMShareDefault>
<queue name="a"><weight>`+[]string{"1", "2", "3"}[r.IntN(3)]+`</weight></queue><queue name="b"/><queue name="c"/>`), cfg, 2+r.IntN(3), berth.New(8192, 8))
		one := berth.New(1024, 1)
		for i := range 1 + r.IntN(3) {
			w.submit("a"+string(rune('0'+i)), "root.a", one, one, 40)
		}
		w.fill()
		w.clock.Advance(1000)
		for i, q := range []string{"root.b", "root.c"}[:1+r.IntN(2)] {
			w.submit("s"+string(rune('0'+i)), q, one, one, 6+r.IntN(10))
		}
		last := 0
		for round := 1; round <= 120; round++ {
			w.clock.Advance(1000)
			w.beatAll()
			rr, err := w.p.Round(w.clock.Now())
			require.NoError(t, err)
			if len(rr.Decisions) > 0 {
				last = round
			}
		}
		assert.Less(t, last, 90, "seed %d: still acting at round %d", seed, last)
		assert.Empty(t, w.p.Pending(), "seed %d", seed)
		// The fixed point: a starved application still short of a whole
		// container has no one left to take it from (every other
		// application would drop below its fair share).
		sn := w.s.SnapshotOf(fair.SnapshotApps)
		for _, a := range sn.Apps {
			if a.ID[0] != 's' || a.Demand.Sub(a.Usage).IsZero() || a.FairShare.Memory-a.Usage.Memory < 1024 {
				continue
			}
			for _, o := range sn.Apps {
				if o.ID != a.ID {
					assert.Less(t, o.Usage.Memory-1024, o.FairShare.Memory,
						"seed %d: %s is short %v of its share %v while %s could give a container (%v of %v)", seed, a.ID, a.Usage, a.FairShare, o.ID, o.Usage, o.FairShare)
				}
			}
		}
	}
}
