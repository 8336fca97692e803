package fair

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/berthsched/berth/queue"
	"github.com/stretchr/testify/require"
)

// decisionHasher feeds every container allocated (id, application, node,
// size, locality) into a hash, in decision order.
type decisionHasher struct {
	queue.NopObserver
	h hash.Hash
	n int
}

func (d *decisionHasher) ObserveContainer(e queue.ContainerEvent) {
	if e.Kind != queue.ContainerAllocated {
		return
	}
	c := e.Container
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(c.ID))
	d.h.Write(b[:])
	fmt.Fprintf(d.h, "|%s|%s|%s|%d;", c.App, c.Node, c.Resource, c.Locality)
	d.n++
}

// hashWorld runs steps random operations (the state test's vocabulary)
// on a scheduler drawn from seed and returns the hash of its decisions
// and the hash of its snapshot bytes taken every 50 steps.
func hashWorld(t *testing.T, seed uint64, steps int, kept bool) (decisions, snapshots string, allocated int) {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	s, clock := stateScheduler(t, stateConfig(rng))
	if kept {
		s.sortSmall = 1 // every set of two or more in a kept order
	}
	d := &decisionHasher{h: sha256.New()}
	s.SetObserver(d)
	snaps := sha256.New()
	w := &stateWorld{}
	for i := range steps {
		op := drawOp(rng, w)
		out := op.run(s, clock)
		if op.seen != nil {
			op.seen(w, out)
		}
		w.live = liveIDs(s)
		if i%50 == 49 {
			snaps.Write(saveBytes(t, s))
		}
	}
	require.NoError(t, s.Check())
	return hex.EncodeToString(d.h.Sum(nil))[:16], hex.EncodeToString(snaps.Sum(nil))[:16], d.n
}

// manyAppsHashes places every container of a small manyAppsWorld (1,000
// applications in 100 leaves, kept orders everywhere) and hashes the
// decisions and the final snapshot.
func manyAppsHashes(t *testing.T, pol string) (decisions, snapshot string, allocated int) {
	s, ids, total := manyAppsWorld(t, pol, 200, 1000, 3)
	d := &decisionHasher{h: sha256.New()}
	s.SetObserver(d)
	for d.n < total {
		before := d.n
		for _, id := range ids {
			_, err := s.Heartbeat(id, nil)
			require.NoError(t, err)
		}
		require.Greater(t, d.n, before, "stuck")
	}
	snap := sha256.Sum256(saveBytes(t, s))
	return hex.EncodeToString(d.h.Sum(nil))[:16], hex.EncodeToString(snap[:])[:16], d.n
}

// The walk's decisions and the snapshot bytes are those the scheduler
// made before its walk was written as phases (attempt, then commit) and
// learnt to record its reasons: a refactoring of the walk must keep both
// hashes. A change of the snapshot format or of the decisions on purpose
// updates the table with the hashes the failure prints.
func TestDecisionAndSnapshotHashes(t *testing.T) {
	want := []struct {
		world     string
		decisions string
		snapshots string
	}{
		{"random/1", "89dc38a75305252a", "7697e13e1aa29fb6"},
		{"random/2", "c84ebaedebe074f2", "3638990f1fa37cef"},
		{"random/3/kept", "be9ca7cc41fdc481", "4be8c5eba8f9ecb6"},
		{"random/4/kept", "3fb7a01533c38c88", "924a16f454ac423d"},
		{"random/5", "fca363524bbc5069", "7d18bca890d542af"},
		{"manyapps/fair", "66e5acce2c09e03d", "61dde2bebd420b33"},
		{"manyapps/drf", "66e5acce2c09e03d", "e9b68e74fc994bb7"},
	}
	for _, w := range want {
		t.Run(w.world, func(t *testing.T) {
			var dec, snap string
			var n int
			var seed uint64
			var pol string
			if _, err := fmt.Sscanf(w.world, "random/%d", &seed); err == nil {
				dec, snap, n = hashWorld(t, seed, 1000, strings.HasSuffix(w.world, "/kept"))
			} else {
				pol = strings.TrimPrefix(w.world, "manyapps/")
				dec, snap, n = manyAppsHashes(t, pol)
			}
			require.Positive(t, n, "the world allocates")
			if dec != w.decisions || snap != w.snapshots {
				t.Errorf("decisions (%d containers) and snapshot bytes changed: now {%q, %q, %q}",
					n, w.world, dec, snap)
			}
		})
	}
}
