package follower

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hashScenario plays one seeded scenario (those of
// TestPropertyRandomPlansAndClocks) and writes to h every step's error and
// every run's full result, the scheduler calls the runs made, the queues'
// entitlements and applications after each run, and the follower's
// snapshot at the end.
func hashScenario(t *testing.T, h hash.Hash, seed uint64) {
	ch := randChooser{rand.New(rand.NewPCG(seed, 7))}
	sc, err := newScenario(ch)
	require.NoError(t, err)
	fmt.Fprintf(h, "scenario %d %v %s %v\n", seed, sc.fl, sc.planQ, sc.fs.noMove)
	for i := range 60 {
		res, err := sc.step(ch)
		fmt.Fprintf(h, "step %d: %v\n", i, err)
		if res == nil {
			continue
		}
		require.NoError(t, sc.check(res), "step %d", i)
		type allFields Result // every field, not Result.String's summary
		fmt.Fprintf(h, "%+v\n%q\n", allFields(*res), sc.fs.ops)
		sc.fs.ops = sc.fs.ops[:0]
		for _, q := range sc.fs.queues {
			fmt.Fprintf(h, "%s %v %v\n", q.name, q.ent, q.apps)
		}
	}
	require.NoError(t, sc.settle())
	fmt.Fprintf(h, "settled %q\n", sc.fs.ops)
	var buf bytes.Buffer
	require.NoError(t, sc.f.SaveState(&buf))
	h.Write(buf.Bytes())
}

// TestSyncHashes fingerprints what the follower decides on seeded random
// plans, clocks and schedulers. The hash was taken before Follower.sync
// was split into named steps: a refactoring must leave it as it is.
func TestSyncHashes(t *testing.T) {
	h := sha256.New()
	for seed := range uint64(120) {
		hashScenario(t, h, seed)
	}
	got := hex.EncodeToString(h.Sum(nil))[:16]
	assert.Equal(t, "29d82c373400057c", got, "the follower's decisions changed")
}
