package fair

import (
	"errors"
	"testing"

	"github.com/berthsched/berth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPendingAsksListsOutstandingAsks(t *testing.T) {
	h := newHarness(t, DefaultConfig(), "")
	h.addNode(8192, 8)
	id := h.request(1024, "root.q", "u", 3)
	_, err := h.s.Allocate(id, []Ask{{Priority: 0, ResourceName: "node1", Capability: berth.New(2000, 1), Count: 1},
		{Priority: 0, ResourceName: AnyResource, Capability: berth.New(2000, 1), Count: 1}}, nil)
	require.NoError(t, err)
	asks, err := h.s.PendingAsks(id)
	require.NoError(t, err)
	require.Len(t, asks, 3)
	assert.Equal(t, int32(0), asks[0].Priority, "most important priority first")
	assert.Equal(t, AnyResource, asks[0].ResourceName)
	assert.Equal(t, int64(2048), asks[0].Capability.Memory, "normalized to the increment")
	assert.Equal(t, "node1", asks[1].ResourceName)
	assert.Equal(t, 3, asks[2].Count)
	_, err = h.s.PendingAsks("nope")
	assert.True(t, errors.Is(err, berth.ErrNotFound))
}

// An application in its post-preemption back-off keeps its starvation and
// no longer counts in its queue's computation; afterwards it is recomputed.
func TestPreemptionTriggeredBacksOffStarvation(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Preemption = true
	cfg.PreemptionUtilizationThreshold = 0.5
	h := newHarness(t, cfg, allocXML(`<queue name="big"/><queue name="needy"><fairSharePreemptionTimeout>1</fairSharePreemptionTimeout></queue>`))
	n := h.addNode(8192, 8)
	big := h.request(1024, "root.big", "u", 8)
	h.s.Update()
	for range 8 {
		h.beat(n)
	}
	id := h.request(1024, "root.needy", "u", 4)
	h.s.Update()
	h.clock.Advance(1000)
	h.s.Update()
	st := h.s.Snapshot().App(id).FairShareStarvation
	require.Equal(t, int64(2048), st.Memory, "half of a 4096 share")
	require.NoError(t, h.s.PreemptionTriggered(id, h.clock.Now()+5000))
	// Free two containers of big: needy's usage is still 0, but big gives
	// them back so its share is unchanged; the frozen value stays.
	h.clock.Advance(1000)
	h.s.Update()
	assert.Equal(t, st, h.s.Snapshot().App(id).FairShareStarvation, "frozen during the back-off")
	sn := h.s.Snapshot()
	var victim ContainerID
	for _, c := range sn.Containers {
		if c.App == big && !c.AM {
			victim = c.ID
		}
	}
	_, err := h.s.PreemptContainer(victim)
	require.NoError(t, err)
	h.beat(n)
	h.clock.Advance(4000)
	h.s.Update()
	assert.Equal(t, int64(1024), h.s.Snapshot().App(id).FairShareStarvation.Memory, "recomputed after the back-off: 2048 − 1024")
	assert.True(t, errors.Is(h.s.PreemptionTriggered("nope", 0), berth.ErrNotFound))
}

func TestUnmarkForPreemptionClearsTheFlag(t *testing.T) {
	h := newHarness(t, DefaultConfig(), "")
	n := h.addNode(8192, 8)
	h.request(1024, "root.q", "u", 1)
	h.beat(n)
	id := h.s.Snapshot().Containers[0].ID
	require.NoError(t, h.s.MarkForPreemption(id))
	require.True(t, h.s.Snapshot().Containers[0].MarkedForPreemption)
	require.NoError(t, h.s.UnmarkForPreemption(id))
	assert.False(t, h.s.Snapshot().Containers[0].MarkedForPreemption)
	assert.True(t, errors.Is(h.s.UnmarkForPreemption(id+100), berth.ErrNotFound))
}

func TestSnapshotOfAndNodeContainersAgreeWithSnapshot(t *testing.T) {
	h := newHarness(t, DefaultConfig(), "")
	n1, n2 := h.addNode(4096, 4), h.addNode(4096, 4)
	h.request(1024, "root.q", "u", 5)
	for range 3 {
		h.beat(n1)
		h.beat(n2)
	}
	full := h.s.Snapshot()
	require.Len(t, full.Containers, 5)
	part := h.s.SnapshotOf(SnapshotApps | SnapshotNodes)
	assert.Empty(t, part.Containers)
	assert.Empty(t, part.Queues)
	assert.Nil(t, part.Tree)
	assert.Equal(t, full.Apps, part.Apps)
	assert.Equal(t, full.Nodes, part.Nodes)
	var joined []ContainerInfo
	for _, n := range []string{n1, n2} {
		cs, err := h.s.NodeContainers(n)
		require.NoError(t, err)
		for _, c := range cs {
			assert.Equal(t, n, c.Node)
		}
		joined = append(joined, cs...)
	}
	assert.ElementsMatch(t, full.Containers, joined)
	_, err := h.s.NodeContainers("nope")
	assert.True(t, errors.Is(err, berth.ErrNotFound))
}

// Room preempted for a starved application goes to it first, several
// containers in one heartbeat (YARN's assignPreemptedContainers), even
// when the ordinary walk would offer it to another queue.
func TestReservePreemptedHandsFreedRoomToTheStarvedApp(t *testing.T) {
	for _, earmark := range []bool{false, true} {
		cfg := DefaultConfig()
		cfg.Preemption = true
		cfg.PreemptionUtilizationThreshold = 0
		h := newHarness(t, cfg, allocXML(`<queue name="a"/><queue name="b"/><queue name="c"/>`))
		n := h.addNode(4096, 4)
		x := h.request(1024, "root.a", "u", 4)
		h.s.Update()
		for range 4 {
			h.beat(n)
		}
		other := h.request(1024, "root.b", "u", 2)
		starved := h.request(1024, "root.c", "u", 2)
		h.s.Update()
		var victims []ContainerID
		for _, c := range h.s.Snapshot().Containers {
			if c.App == x && len(victims) < 2 {
				victims = append(victims, c.ID)
			}
		}
		if earmark {
			require.NoError(t, h.s.ReservePreempted(n, starved, berth.New(2048, 2)))
		}
		for _, id := range victims {
			_, err := h.s.PreemptContainer(id)
			require.NoError(t, err)
		}
		als := h.beat(n)
		got := map[string]int{}
		for _, al := range als {
			got[al.App]++
		}
		if earmark {
			assert.Equal(t, map[string]int{starved: 2}, got, "both freed containers, in one heartbeat")
		} else {
			assert.Equal(t, map[string]int{other: 1}, got, "the walk's order: root.b before root.c")
		}
	}
	h := newHarness(t, DefaultConfig(), "")
	n := h.addNode(1024, 1)
	id := h.request(1024, "root.q", "u", 1)
	assert.True(t, errors.Is(h.s.ReservePreempted("nope", id, berth.New(1, 1)), berth.ErrNotFound))
	assert.True(t, errors.Is(h.s.ReservePreempted(n, "nope", berth.New(1, 1)), berth.ErrNotFound))
	assert.True(t, errors.Is(h.s.ReservePreempted(n, id, berth.New(-1, 0)), berth.ErrInvalidArgument))
}
