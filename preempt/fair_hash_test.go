package preempt

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fairDecisionHash is the fingerprint of every fair round on the seeded
// clusters of TestFairDecisionHashes, taken before the fair preemptor was
// split into named steps.
const fairDecisionHash = "cb97eba6f20253d86fd1bc325c99c74ce9cfebb8a8075b78f9b5a4e3df5754a5"

// TestFairDecisionHashes fingerprints every decision, starved application
// and snapshot of a dozen fair rounds on each of 150 seeded clusters. A
// refactoring of the fair preemptor must leave the hash as it is.
func TestFairDecisionHashes(t *testing.T) {
	if raceEnabled {
		t.Skip("decisions do not depend on the race detector")
	}
	h := sha256.New()
	for seed := range uint64(150) {
		r := rand.New(rand.NewPCG(seed, 31))
		f := randomFakeFair(r, true)
		cfg := DefaultFairConfig()
		cfg.Enabled, cfg.WaitTimeBeforeKill = true, 3000
		if r.IntN(2) == 0 {
			cfg.UtilizationThreshold = 0
		}
		p, err := NewFairPreemptor(FairPreemptorSetup{State: f, Actor: f, Config: cfg})
		require.NoError(t, err)
		for round := range 12 {
			f.now += 1000
			rd, err := p.Round(f.now)
			require.NoError(t, err)
			fmt.Fprintf(h, "seed %d round %d\n", seed, round)
			for _, d := range rd.Decisions {
				fmt.Fprintf(h, "%+v %s %v %v\n", d.Container, d.ForApp, d.Action, d.Reason)
			}
			for _, s := range rd.Starved {
				fmt.Fprintf(h, "starved %s %s %v %v %v\n", s.App, s.Queue, s.FairShareStarvation, s.MinShareStarvation, s.Requests)
			}
			var buf bytes.Buffer
			require.NoError(t, p.SaveState(&buf))
			h.Write(buf.Bytes())
		}
	}
	assert.Equal(t, fairDecisionHash, hex.EncodeToString(h.Sum(nil)))
}
