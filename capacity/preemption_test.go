package capacity

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/berthsched/berth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// checkPreemptionState compares the preemption state and the on-demand
// container reads with the full snapshot and the single-queue reads (the
// reference model).
func checkPreemptionState(t *testing.T, s *Scheduler, r *rand.Rand) {
	snap := s.Snapshot()
	st := s.PreemptionState()
	require.Equal(t, snap.Time, st.Time)
	require.Equal(t, snap.Cluster, st.Cluster)
	require.Len(t, st.Queues, len(snap.Queues.Queues))
	for i, q := range snap.Queues.Queues {
		pq := st.Queues[i]
		require.Equal(t, q.Path.String(), pq.Path)
		assert.Equal(t, q.Extra, pq.QueueInfo, "queue %s", pq.Path)
		if q.Parent.IsZero() {
			assert.Equal(t, -1, pq.Parent)
		} else {
			require.GreaterOrEqual(t, pq.Parent, 0)
			assert.Equal(t, q.Parent.String(), st.Queues[pq.Parent].Path)
		}
		if !pq.Leaf {
			assert.True(t, pq.PendingWithinLimits.IsZero() && pq.PendingWithinLimitsDeductReserved.IsZero())
			continue
		}
		p0, err := s.PendingWithinUserLimits(pq.Path, false)
		require.NoError(t, err)
		p1, err := s.PendingWithinUserLimits(pq.Path, true)
		require.NoError(t, err)
		assert.Equal(t, p0, pq.PendingWithinLimits, "pending of %s", pq.Path)
		assert.Equal(t, p1, pq.PendingWithinLimitsDeductReserved, "pending (deduct reserved) of %s", pq.Path)
	}
	require.Len(t, st.Apps, len(snap.Apps))
	byApp := map[string][]Container{}
	for _, c := range snap.Containers {
		byApp[c.App] = append(byApp[c.App], c.Container)
	}
	for i, a := range snap.Apps {
		pa := st.Apps[i]
		assert.Equal(t, a, pa.AppInfo)
		var am berth.Resource
		prios := map[int32]bool{}
		for _, c := range byApp[a.ID] {
			if c.AM {
				am = am.Add(c.Resource)
			}
			prios[c.Priority] = true
		}
		assert.Equal(t, am, pa.AMUsed, "AM used of %s", a.ID)
		assert.Equal(t, len(prios), pa.ContainerPriorities, "priorities of %s", a.ID)
		ul, err := s.UserLimit(a.Queue, a.User)
		require.NoError(t, err)
		assert.Equal(t, ul, pa.UserLimit, "user limit of %s", a.ID)

		got, err := s.AppendAppContainers(nil, a.ID)
		require.NoError(t, err)
		assert.Equal(t, byApp[a.ID], got, "containers of %s", a.ID)
		// Paging newest first, in random page sizes, gives the same list reversed.
		var paged []Container
		var before ContainerID
		for {
			n := 1 + r.IntN(4)
			page, err := s.AppendAppContainersBefore(nil, a.ID, before, n)
			require.NoError(t, err)
			require.LessOrEqual(t, len(page), n)
			paged = append(paged, page...)
			if len(page) < n {
				break
			}
			before = page[len(page)-1].ID
		}
		want := slices.Clone(byApp[a.ID])
		slices.Reverse(want)
		assert.Equal(t, want, paged, "paged containers of %s", a.ID)
	}
	assert.Equal(t, snap.Reservations, append([]ReservationInfo(nil), st.Reservations...))
	var reservedNodes []NodeInfo
	byNode := map[string][]Container{}
	for _, c := range snap.Containers {
		byNode[c.Node] = append(byNode[c.Node], c.Container)
	}
	for _, n := range snap.Nodes {
		if n.Reserved != 0 {
			reservedNodes = append(reservedNodes, n)
		}
		got, err := s.AppendNodeContainers(nil, n.ID)
		require.NoError(t, err)
		assert.Equal(t, byNode[n.ID], got, "containers on %s", n.ID)
	}
	assert.Equal(t, reservedNodes, append([]NodeInfo(nil), st.Nodes...))
	for _, c := range snap.Containers {
		assert.True(t, s.HasContainer(c.ID))
	}
	assert.False(t, s.HasContainer(0))
}

func TestPropertyPreemptionState(t *testing.T) {
	for seed := uint64(1); seed <= 12; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			w := newPropWorld(t, seed)
			r := rand.New(rand.NewPCG(seed, 7))
			for i := 0; i < 200; i++ {
				w.step()
				if i%20 == 19 {
					checkPreemptionState(t, w.s, r)
				}
			}
		})
	}
}

func TestPreemptionReadsRejectUnknownIDs(t *testing.T) {
	s := newPropWorld(t, 3).s
	_, err := s.AppendAppContainers(nil, "nope")
	assert.ErrorIs(t, err, berth.ErrNotFound)
	assert.ErrorContains(t, err, "nope")
	_, err = s.AppendAppContainersBefore(nil, "nope", 0, 4)
	assert.ErrorIs(t, err, berth.ErrNotFound)
	_, err = s.AppendNodeContainers(nil, "nowhere")
	assert.ErrorIs(t, err, berth.ErrNotFound)
	assert.ErrorContains(t, err, "nowhere")
}

// The preemption reads run beside submissions, heartbeats and finishes
// from other goroutines (run with -race); what they return is
// self-consistent: a listed container belongs to the application or node
// asked about.
func TestPreemptionReadsConcurrent(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Root.Children = []QueueConfig{Queue("a", 50), Queue("b", 50)}
	cfg.Clock = berth.NewManualClock(0)
	s, err := New(cfg)
	require.NoError(t, err)
	for i := 0; i < 8; i++ {
		require.NoError(t, s.AddNode(NodeSpec{ID: fmt.Sprintf("n%d", i), Rack: "/r", Capability: berth.New(8192, 8)}))
	}
	var wg sync.WaitGroup
	for g := 0; g < 3; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 40; i++ {
				id := fmt.Sprintf("g%d-%d", g, i)
				if _, err := s.SubmitApp(AppSpec{ID: id, Queue: []string{"a", "b"}[i%2], User: fmt.Sprint("u", g)}); err != nil {
					t.Error(err)
					return
				}
				if _, err := s.Allocate(id, []Ask{{Priority: int32(1 + i%2), ResourceName: AnyResource, Capability: berth.New(512, 1), Count: 3}}, nil); err != nil {
					t.Error(err)
					return
				}
				if _, err := s.Heartbeat(fmt.Sprintf("n%d", (g+i)%8), nil); err != nil {
					t.Error(err)
					return
				}
				if i%3 == 0 {
					if _, err := s.FinishApp(id); err != nil {
						t.Error(err)
						return
					}
				}
			}
		}(g)
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		var buf []Container
		var err error
		for i := 0; i < 60; i++ {
			st := s.PreemptionState()
			for _, a := range st.Apps {
				buf, err = s.AppendAppContainersBefore(buf[:0], a.ID, 0, 2)
				if err != nil && !errors.Is(err, berth.ErrNotFound) { // it may have finished since
					t.Error(err)
					return
				}
				for _, c := range buf {
					if c.App != a.ID {
						t.Errorf("container %d of %s listed for %s", c.ID, c.App, a.ID)
					}
					_ = s.HasContainer(c.ID)
				}
			}
			for n := 0; n < 8; n++ {
				buf, err = s.AppendNodeContainers(buf[:0], fmt.Sprintf("n%d", n))
				if err != nil {
					t.Error(err)
					return
				}
				for _, c := range buf {
					if c.Node != fmt.Sprintf("n%d", n) {
						t.Errorf("container %d on %s listed for n%d", c.ID, c.Node, n)
					}
				}
			}
		}
	}()
	wg.Wait()
	require.NoError(t, s.Check())
	checkPreemptionState(t, s, rand.New(rand.NewPCG(1, 2)))
}
