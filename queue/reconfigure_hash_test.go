package queue

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
)

// reconfigureHash is the fingerprint of TestReconfigureHashes' builds and
// reconfigurations, taken before New and Reconfigure were split into
// named steps.
const reconfigureHash = "2d54956dfa8c625a6d7937e60f6c9942e60d2b71089c6ef63b4151b2c91fcd56"

// hashTree writes the tree's snapshot to h, queue by queue.
func hashTree(h hash.Hash, tr *Tree[int]) {
	for _, q := range tr.Snapshot().Queues {
		fmt.Fprintf(h, "%+v\n", q)
	}
}

// TestReconfigureHashes fingerprints, on seeded random configurations
// (fuzzConfig's, valid and not), every build's error or tree and every
// reconfiguration's diff or error and the tree after it. A refactoring of
// the tree's construction must leave the hash as it is.
func TestReconfigureHashes(t *testing.T) {
	h := sha256.New()
	built, applied := 0, 0
	for seed := range uint64(400) {
		rng := rand.New(rand.NewPCG(seed, 41))
		data := make([]byte, 600)
		for i := range data { // mostly the valid choices, now and then any
			data[i] = byte(rng.UintN(4))
			if rng.IntN(5) == 0 {
				data[i] = byte(rng.UintN(256))
			}
		}
		src := &byteSource{b: data}
		opts := TreeConfig[int]{CheckCapacitySums: rng.IntN(2) == 0}
		tr, err := New(rooted(fuzzConfig(src, 0, "root"), opts))
		fmt.Fprintf(h, "seed %d: %v\n", seed, err)
		if err != nil {
			continue
		}
		built++
		hashTree(h, tr)
		for range 6 {
			if ls := tr.Leaves(); len(ls) > 0 && rng.IntN(2) == 0 {
				fmt.Fprintf(h, "submit: %v\n", ls[rng.IntN(len(ls))].SubmitApp("u"))
			}
			diff, err := tr.Reconfigure(fuzzConfig(src, 0, "root"))
			fmt.Fprintf(h, "reconfigure: %v %v\n", diff, err)
			if err == nil {
				applied++
			}
			hashTree(h, tr)
		}
	}
	t.Logf("%d trees built, %d reconfigurations applied", built, applied)
	assert.Equal(t, reconfigureHash, hex.EncodeToString(h.Sum(nil)))
}
