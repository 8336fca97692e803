package preempt

import (
	"math/rand/v2"
	"testing"
)

// FuzzFairRound runs rounds over random clusters (the fake scheduler,
// from the fuzzer's seed) and checks the round invariants: no panic,
// nothing selected twice, victims only from preemptable queues and above
// their fair share, kills only after the wait.
func FuzzFairRound(f *testing.F) {
	for _, s := range []uint64{0, 1, 2, 42, 1 << 40} {
		f.Add(s, uint8(3), uint16(1000), uint16(2500), false)
	}
	f.Add(uint64(7), uint8(9), uint16(0), uint16(0), true)
	f.Fuzz(func(t *testing.T, seed uint64, rounds uint8, step, wait uint16, killUnneeded bool) {
		world := randomFakeFair(rand.New(rand.NewPCG(seed, seed>>7)), seed%5 != 0)
		cfg := DefaultFairConfig()
		cfg.Enabled, cfg.UtilizationThreshold = true, float64(seed%3)/4
		cfg.WaitTimeBeforeKill, cfg.KillUnneeded = int64(wait), killUnneeded
		cfg.WaitBeforeNextStarvationCheck, cfg.NMHeartbeatInterval = int64(step), 0
		checkFairRounds(t, world, cfg, 1+int(rounds%16), int64(step))
	})
}
