package fair

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/berthsched/berth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Property: adding and removing reservation queues one at a time in the
// shared tree (AddReservationQueue, RemoveReservationQueue) leaves it as a
// full re-sync from the scheduler's queues would, with applications using
// and leaving the queues between the edits and the books read (and so
// charged) only now and then.
func TestReservationQueueEditsMatchFullSync(t *testing.T) {
	removed := 0
	for seed := uint64(1); seed <= 20; seed++ {
		rng := rand.New(rand.NewPCG(seed, 11))
		h := newHarness(t, DefaultConfig(), allocXML(`<queue name="a"/><queue name="p"><reservation/></queue><queue name="q"><reservation/></queue>`))
		node := h.addNode(64*1024, 64)
		var apps []string
		for step := range 80 {
			plan := []string{"p", "q"}[rng.IntN(2)]
			r := fmt.Sprintf("r%d", rng.IntN(6))
			switch rng.IntN(6) {
			case 0, 1:
				_ = h.s.AddReservationQueue(plan, r)
			case 2:
				_ = h.s.SetEntitlement("root."+plan+"."+r, Entitlement{Capacity: float32(rng.IntN(11)) / 10, MaxCapacity: 1})
			case 3:
				if h.s.RemoveReservationQueue("root."+plan+"."+r) == nil {
					removed++
				}
			case 4:
				id := fmt.Sprintf("app%d", step)
				if _, err := h.s.SubmitApp(AppSpec{ID: id, Queue: plan, ReservationID: r, User: "u"}); err == nil {
					apps = append(apps, id)
					_, err := h.s.Allocate(id, []Ask{{Priority: 1, ResourceName: AnyResource, Capability: berth.New(1024, 1), Count: 2}}, nil)
					require.NoError(t, err)
					h.s.Update()
					_, err = h.s.Heartbeat(node, nil)
					require.NoError(t, err)
				}
			case 5:
				if len(apps) > 0 {
					i := rng.IntN(len(apps))
					_, err := h.s.FinishApp(apps[i])
					require.NoError(t, err)
					apps = append(apps[:i], apps[i+1:]...)
				}
			}
			if rng.IntN(4) > 0 {
				continue // reading the books charges them: let deferred charges meet removals
			}
			require.NoError(t, h.s.Check(), "seed %d step %d", seed, step)
			got := h.s.tree.Snapshot()
			h.s.syncTree()
			assert.Equal(t, h.s.tree.Snapshot(), got, "seed %d step %d", seed, step)
		}
	}
	require.Positive(t, removed, "reservation queues removed")
}
