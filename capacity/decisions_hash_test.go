package capacity

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
	"math/rand/v2"
	"testing"

	"github.com/berthsched/berth"
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

// hashWorld runs steps random operations (the state test's vocabulary) on
// a scheduler drawn from seed (mutate: its configuration) and returns the
// hash of its decisions and of its snapshot bytes taken every 50 steps.
func hashWorld(t *testing.T, seed uint64, steps int, mutate func(*Config)) (decisions, snapshots string, allocated int) {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	clock := berth.NewManualClock(0)
	cfg := stateConfig(r)
	if mutate != nil {
		mutate(&cfg)
	}
	s, err := New(cfg, clock)
	require.NoError(t, err)
	require.NoError(t, s.AddReservationQueue("c", "res_1"))
	require.NoError(t, s.SetEntitlement("c-default", Entitlement{Capacity: 0.5, MaxCapacity: 1}))
	require.NoError(t, s.SetEntitlement("res_1", Entitlement{Capacity: 0.5, MaxCapacity: 1}))
	d := &decisionHasher{h: sha256.New()}
	s.SetObserver(d)
	snaps := sha256.New()
	tw := &twin{r: r, labels: mutate != nil}
	for i := range steps {
		clock.Advance(int64(r.IntN(700)))
		tw.next(s, clock)(s)
		if i%50 == 49 {
			snaps.Write(saveBytes(t, s))
		}
	}
	require.NoError(t, s.Check())
	return hex.EncodeToString(d.h.Sum(nil))[:16], hex.EncodeToString(snaps.Sum(nil))[:16], d.n
}

// manyAppsHashes places every container of a small manyAppsWorld and
// hashes the decisions and the final snapshot.
func manyAppsHashes(t *testing.T, child ChildOrdering, perBeat int) (decisions, snapshot string, allocated int) {
	s, ids, total := manyAppsWorld(t, child, 200, 1000, 3, perBeat)
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
// made before its walk was written as phases and learnt to record its
// reasons: a refactoring of the walk must keep both hashes. A change of
// the snapshot format or of the decisions on purpose updates the table
// with the hashes the failure prints.
func TestDecisionAndSnapshotHashes(t *testing.T) {
	want := []struct {
		world     string
		decisions string
		snapshots string
	}{
		{"random/1", "4a95330f51bd27ea", "2381aac13959b5d9"},
		{"random/2", "cef923e3aba9ebae", "e6b39149e9d1ba70"},
		{"random/3", "b0b7f897eba73429", "b3b4ec0cc4b9f32e"},
		{"random/4", "e64f759c038c2ac1", "06c050ea208da823"},
		{"random/5", "b3e2f3c017f1a88f", "0931819589634b74"},
		{"manyapps/utilization/1", "39cbe8924dd804c8", "1c15c2523f5d72ae"},
		{"manyapps/priority/fill", "63df6a0b9d489794", "081acc8d0ea5e948"},
		// node partitions (labelConfig): the decisions of the walk per
		// partition before it joined the phases
		{"labels/1", "66311427e33f4836", "3503a946c488f137"},
		{"labels/2", "687c348194dd4078", "66c36e83abb87647"},
		{"labels/3", "2593700668c15f11", "613c49f508e95880"},
		{"labels/4", "74560fc230f6c72b", "9f46bac34dbc0471"},
	}
	for _, w := range want {
		t.Run(w.world, func(t *testing.T) {
			var dec, snap string
			var n int
			var seed uint64
			if _, err := fmt.Sscanf(w.world, "random/%d", &seed); err == nil {
				dec, snap, n = hashWorld(t, seed, 1000, nil)
			} else if _, err := fmt.Sscanf(w.world, "labels/%d", &seed); err == nil {
				dec, snap, n = hashWorld(t, seed, 1000, labelConfig)
			} else {
				child, perBeat := OrderUtilization, 1
				if w.world == "manyapps/priority/fill" {
					child, perBeat = OrderPriorityUtilization, -1
				}
				dec, snap, n = manyAppsHashes(t, child, perBeat)
			}
			require.Positive(t, n, "the world allocates")
			if dec != w.decisions || snap != w.snapshots {
				t.Errorf("decisions (%d containers) and snapshot bytes changed: now {%q, %q, %q}",
					n, w.world, dec, snap)
			}
		})
	}
}
