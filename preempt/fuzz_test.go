package preempt_test

import (
	"math/rand/v2"
	"testing"

	"github.com/berthsched/berth/preempt"
	"github.com/stretchr/testify/require"
)

// FuzzRound builds a random cluster (queues, usage, demand, AMs,
// reservations off or on, every selector switch) on the real capacity
// scheduler and runs rounds on it: no panic, no error, and every round's
// invariants hold.
func FuzzRound(f *testing.F) {
	for _, s := range []uint64{1, 2, 3, 42, 1 << 40} {
		f.Add(s, uint8(0))
		f.Add(s, uint8(0xff))
	}
	f.Fuzz(func(t *testing.T, seed uint64, flags uint8) {
		rng := rand.New(rand.NewPCG(seed, uint64(flags)))
		w, leaves := randomCapWorld(rng, flags&1 != 0)
		if flags&2 != 0 {
			w.priOrder = true
			for i, q := range w.root.children {
				q.priority = i % 3
			}
		}
		cfg := randomProportionalConfig(rng)
		cfg.IntraQueueEnabled = flags&4 != 0
		cfg.BalanceAfterSatisfied = flags&8 != 0
		cfg.PriorityPreemption = flags&16 != 0
		cfg.PriorityReservedContainerDelay = 0
		cfg.ConservativeDRF = flags&32 != 0
		cfg.IntraQueueOrder = preempt.IntraQueueOrder(flags >> 7)
		if flags&64 != 0 {
			yes := true
			cfg.Queues = map[string]preempt.QueuePreemption{leaves[0]: {DisablePreemption: &yes}}
		}
		s, clock := w.build(t)
		p, err := preempt.NewProportional(preempt.ProportionalSetup{State: s, Actor: s, Config: cfg})
		require.NoError(t, err)
		for r := 0; r < 4; r++ {
			rep, err := p.Round(clock.Now())
			require.NoError(t, err)
			seen := map[preempt.ContainerID]bool{}
			var total int64
			for _, d := range rep.Decisions {
				require.False(t, seen[d.ID], "selected twice")
				seen[d.ID] = true
				total += d.Resource.Memory
				if d.Leaf != nil && d.Selector != "intra-queue" {
					require.False(t, d.Leaf.DisablePreemption, "taken from a disabled queue")
				}
			}
			require.LessOrEqual(t, total, rep.Budget.Memory)
			clock.Advance(cfg.MaxWaitBeforeKill/2 + 1)
			_, err = s.Heartbeat("n1", nil)
			require.NoError(t, err)
			require.NoError(t, s.Check())
		}
	})
}
