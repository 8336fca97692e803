package preempt

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/fair"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// plainFair hides *fair.Scheduler's AppendNodeContainers: the preemptor
// then reads nodes with NodeContainers, as it does for any host scheduler.
type plainFair struct{ FairScheduler }

// fairScratchWorld is a busy cluster where several queues starve in turn,
// so that rounds mark, kill and forget across many nodes.
func fairScratchWorld(t *testing.T, seed uint64, wrap bool) (*fairWorld, []string) {
	cfg := DefaultFairConfig()
	cfg.WaitTimeBeforeKill = 2000
	cfg.Enabled = true
	w := newFairWorld(t, fairAlloc(`<defaultFairSharePreemptionTimeout>1</defaultFairSharePreemptionTimeout>
<defaultFairSharePreemptionThreshold>0.8</defaultFairSharePreemptionThreshold>
<queue name="a"/><queue name="b"/><queue name="c"/><queue name="d"/>`), cfg, 12, berth.New(8192, 8))
	if wrap {
		p, err := NewFairPreemptor(FairPreemptorSetup{State: plainFair{w.s}, Actor: plainFair{w.s}, Config: cfg})
		require.NoError(t, err)
		w.p = p
	}
	rng := rand.New(rand.NewPCG(seed, 7))
	one := berth.New(1024, 1)
	for i := range 4 {
		size := berth.New(int64(1024*(1+rng.IntN(2))), 1)
		w.submit(fmt.Sprintf("a%d", i), "root.a", one, size, 30)
	}
	w.fill()
	var late []string
	for i, q := range []string{"root.b", "root.c", "root.d"} {
		id := fmt.Sprintf("late%d", i)
		size := berth.New(int64(1024*(1+rng.IntN(2))), int64(1+rng.IntN(2)))
		w.submit(id, q, berth.Resource{}, size, 10+rng.IntN(20))
		late = append(late, id)
	}
	return w, late
}

// TestFairReusedBuffersDecideAsFresh runs the same rounds three ways: the
// preemptor's buffers reused from round to round with the scheduler's
// AppendNodeContainers, the same with NodeContainers, and with buffers
// thrown away before every round. Every round's report must be the same.
func TestFairReusedBuffersDecideAsFresh(t *testing.T) {
	for seed := range uint64(4) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			reused, _ := fairScratchWorld(t, seed, false)
			plain, _ := fairScratchWorld(t, seed, true)
			fresh, _ := fairScratchWorld(t, seed, false)
			_, ok := reused.p.state.(nodeAppender)
			require.True(t, ok, "the real scheduler takes the appending path")
			_, ok = plain.p.state.(nodeAppender)
			require.False(t, ok)
			acted := 0
			for round := 1; round <= 25; round++ {
				var reports []*FairRound
				for _, w := range []*fairWorld{reused, plain, fresh} {
					w.clock.Advance(1000)
					w.beatAll()
					if w == fresh {
						w.p.scratch = fairScratch{}
						w.p.sel = &FairYARNSelector{}
					}
					r, err := w.p.Round(w.clock.Now())
					require.NoError(t, err)
					reports = append(reports, r)
				}
				acted += len(reports[0].Decisions)
				assert.Equal(t, reports[2], reports[0], "round %d: reused buffers", round)
				assert.Equal(t, reports[2], reports[1], "round %d: NodeContainers path", round)
				assert.Equal(t, fresh.p.Pending(), reused.p.Pending(), "round %d", round)
			}
			assert.NotZero(t, acted, "the rounds must act for the comparison to mean something")
		})
	}
}

// TestFairPendingBooks checks the marks' slice and index against a map
// model under random adds and drops.
func TestFairPendingBooks(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	p := &FairPreemptor{pending: map[fair.ContainerID]int32{}}
	model := map[fair.ContainerID]string{}
	n := 5000
	if testing.Short() || raceEnabled {
		n = 1500
	}
	for range n {
		id := fair.ContainerID(rng.IntN(300))
		if _, ok := model[id]; ok || rng.IntN(3) == 0 {
			p.dropPending(id)
			delete(model, id)
		} else {
			app := fmt.Sprint("app", rng.IntN(9))
			p.addPending(fairPending{c: fair.Container{ID: id, App: app}, forApp: app})
			model[id] = app
		}
		require.Len(t, p.marks, len(model))
		p.indexMarks()
		require.Len(t, p.pending, len(model))
		for id, i := range p.pending {
			require.Equal(t, id, p.marks[i].c.ID)
			require.Equal(t, model[id], p.marks[i].forApp)
		}
	}
	ids := make([]fair.ContainerID, 0, len(model))
	for id := range model {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	got := p.Pending()
	require.Len(t, got, len(ids))
	for i, c := range got {
		assert.Equal(t, ids[i], c.ID)
	}
}

// TestChunksStableAndReused: slices handed out in a round never move or
// overlap, and a reset round reuses the same blocks.
func TestChunksStableAndReused(t *testing.T) {
	var c chunks[int]
	type span struct {
		s    []int
		base int
	}
	for round := range 3 {
		c.reset()
		var spans []span
		next := 0
		for k := range 500 {
			n := k % 70
			if k%97 == 0 {
				n = chunkLen + 3 // larger than a block
			}
			room := c.room(n)
			require.GreaterOrEqual(t, cap(room), n)
			for j := range n {
				room = append(room, next+j)
			}
			s := c.commit(n)
			require.Len(t, s, n)
			spans = append(spans, span{s, next})
			next += n
		}
		for _, sp := range spans { // later rooms did not overwrite earlier slices
			for j, x := range sp.s {
				require.Equal(t, sp.base+j, x, "round %d", round)
			}
		}
		if round > 0 {
			assert.LessOrEqual(t, len(c.blocks), 20, "blocks are reused, not added every round")
		}
	}
}

// TestAppendNodeContainersReusesBuffer: the appending read adds the same
// containers NodeContainers lists, after what dst holds.
func TestAppendNodeContainersReusesBuffer(t *testing.T) {
	w, _ := fairScratchWorld(t, 1, false)
	buf := make([]fair.ContainerInfo, 1, 64)
	buf[0].ID = 999999
	for _, n := range w.nodes {
		want, err := w.s.NodeContainers(n)
		require.NoError(t, err)
		got, err := w.s.AppendNodeContainers(buf[:1], n)
		require.NoError(t, err)
		assert.Equal(t, fair.ContainerID(999999), got[0].ID)
		assert.Equal(t, want, got[1:], n)
		assert.Same(t, &buf[0], &got[0], "fits: no new array")
	}
	_, err := w.s.AppendNodeContainers(nil, "nowhere")
	assert.ErrorIs(t, err, berth.ErrNotFound)
}
