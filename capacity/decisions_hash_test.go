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
	cfg.Clock = clock
	s, err := New(cfg)
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

// asyncHashes runs 200 steps of the property world drawn from seed with
// allocation in mode (propWorld.mode: 1 asynchronous rounds, 2 multi-node
// heartbeats, 3 both) and hashes the decisions and the final snapshot.
func asyncHashes(t *testing.T, mode int, seed uint64) (decisions, snapshot string, allocated int) {
	w := asyncPropWorld(t, mode, seed)
	d := &decisionHasher{h: sha256.New()}
	w.s.SetObserver(d)
	for range 200 {
		w.step()
	}
	snap := sha256.Sum256(saveBytes(t, w.s))
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
		{"random/1", "bfec5ea0cb0f46df", "429a80cbf7a34047"},
		{"random/2", "a49799d0da331675", "d3c78b92e36ec48b"},
		{"random/3", "061588b464068ac6", "90336d1ae503fd4c"},
		{"random/4", "921f3fc697ed65e9", "d56d6b57dce8988d"},
		{"random/5", "d3e8d9f90ecedee9", "36f7fea5495bbd94"},
		{"manyapps/utilization/1", "39cbe8924dd804c8", "345efa0fdcf9e314"},
		{"manyapps/priority/fill", "63df6a0b9d489794", "84fee43d032a7cfd"},
		// node partitions (labelConfig): the decisions of the walk per
		// partition before it joined the phases
		{"labels/1", "c6cee542151f9218", "f44bef3c01e160f4"},
		{"labels/2", "68c21e63ab56ba17", "4e49d89480eedcb5"},
		{"labels/3", "300374e574fbbfb0", "d4ddabc729086adb"},
		// YARN's global scheduler (asynchronous rounds, multi-node
		// placement, both): the decisions before the walk of rounds and of
		// candidate sets joined the phases
		{"async/1/2", "c70df44f8dcd0806", "aaa231aa2b319dfe"},
		{"async/2/3", "6cc4827dbf11ed16", "82ba726856b36c9b"},
		{"async/3/4", "c494ab07da0fb000", "d175ff0031353efb"},
		{"async/3/5", "e7a79745cf995623", "75e514a265fbbcc5"},
		{"labels/4", "f40b6d87f07c8a11", "95d51dd94056f92f"},
	}
	for _, w := range want {
		t.Run(w.world, func(t *testing.T) {
			var dec, snap string
			var n int
			var seed uint64
			var mode int
			if _, err := fmt.Sscanf(w.world, "random/%d", &seed); err == nil {
				dec, snap, n = hashWorld(t, seed, 1000, nil)
			} else if _, err := fmt.Sscanf(w.world, "async/%d/%d", &mode, &seed); err == nil {
				dec, snap, n = asyncHashes(t, mode, seed)
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
