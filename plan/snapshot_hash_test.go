package plan_test

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

// TestSnapshotHashes fingerprints what a reservation system decides and
// saves over seeded random host calls (those of
// TestPropertySnapshotContinues): every call's record, the system's
// snapshot every 25 calls and at the end, and each plan's own snapshot.
// The hashes were taken before plan.go and system.go were split into
// files: a refactoring must leave each of them as it is.
func TestSnapshotHashes(t *testing.T) {
	want := []string{"7dc7c4bec88c0fbc", "0a86c86f36aaab23", "952fb78e3ba3650b", "ac31f545d3301265", "b81e9da5f1684197", "82589e073353bac5"}
	var got []string
	for seed := 1; seed <= 6; seed++ {
		rng := rand.New(rand.NewPCG(uint64(seed), 25))
		w := newWorld(t)
		h := sha256.New()
		for i, o := range randomOps(rng, 300) {
			fmt.Fprintln(h, w.apply(o))
			if i%25 == 24 {
				h.Write(w.save(t))
			}
		}
		h.Write(w.save(t))
		for _, p := range w.s.Plans() {
			var buf bytes.Buffer
			require.NoError(t, p.SaveState(&buf))
			h.Write(buf.Bytes())
		}
		got = append(got, hex.EncodeToString(h.Sum(nil))[:16])
	}
	if !assert.Equal(t, want, got, "decisions or snapshot bytes changed") {
		t.Logf("hashes: %q", got)
	}
}
