package fair

import (
	"testing"

	"github.com/berthsched/berth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// MarkForPreemptionOn is MarkForPreemption of each id then
// ReservePreempted: two schedulers driven the same way, one with the
// single calls and one with the batch, must agree on every mark and hand
// the freed room to the same application.
func TestMarkForPreemptionOnIsMarkThenReserve(t *testing.T) {
	build := func() (*harness, string, string, []ContainerID) {
		cfg := DefaultConfig()
		cfg.Preemption = true
		cfg.PreemptionUtilizationThreshold = 0
		h := newHarness(t, cfg, allocXML(`<queue name="a"/><queue name="b"/><queue name="c"/>`))
		n := h.addNode(4096, 4)
		h.addNode(4096, 4)
		x := h.request(1024, "root.a", "u", 4)
		h.s.Update()
		for range 4 {
			h.beat(n)
		}
		h.request(1024, "root.b", "u", 2)
		starved := h.request(1024, "root.c", "u", 2)
		h.s.Update()
		cs, err := h.s.NodeContainers(n)
		require.NoError(t, err)
		var victims []ContainerID
		for _, c := range cs {
			if c.App == x && len(victims) < 2 {
				victims = append(victims, c.ID)
			}
		}
		require.Len(t, victims, 2)
		return h, n, starved, victims
	}
	single, n, starved, victims := build()
	batch, _, _, _ := build()
	for _, id := range victims {
		require.NoError(t, single.s.MarkForPreemption(id))
	}
	require.NoError(t, single.s.ReservePreempted(n, starved, berth.New(2048, 2)))
	gone := ContainerID(1 << 40) // no longer live: skipped, as MarkForPreemption's not-found
	require.NoError(t, batch.s.MarkForPreemptionOn(n, starved, append(victims, gone), berth.New(2048, 2)))

	marked := func(h *harness) []ContainerID {
		var out []ContainerID
		for _, c := range h.s.Snapshot().Containers {
			if c.MarkedForPreemption {
				out = append(out, c.ID)
			}
		}
		return out
	}
	assert.Equal(t, victims, marked(batch))
	assert.Equal(t, marked(single), marked(batch))
	for _, h := range []*harness{single, batch} {
		for _, id := range victims {
			_, err := h.s.PreemptContainer(id)
			require.NoError(t, err)
		}
		got := map[string]int{}
		for _, al := range h.beat(n) {
			got[al.App]++
		}
		assert.Equal(t, map[string]int{starved: 2}, got, "the earmark hands the freed room to the starved app")
		require.NoError(t, h.s.Check())
	}
	assert.ErrorIs(t, batch.s.MarkForPreemptionOn("nope", starved, nil, berth.New(1, 1)), berth.ErrNotFound)
	assert.ErrorIs(t, batch.s.MarkForPreemptionOn(n, "nope", nil, berth.New(1, 1)), berth.ErrNotFound)
	assert.ErrorIs(t, batch.s.MarkForPreemptionOn(n, starved, nil, berth.New(-1, 0)), berth.ErrInvalidArgument)
}
