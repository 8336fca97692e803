package main

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/berthsched/berth/examples/durable"
)

// acked is one acknowledged command: what was sent and what came back.
type acked struct {
	cmd     durable.Command
	r       durable.Result
	callErr error
}

// ackLog collects the acknowledged commands of concurrent clients.
type ackLog struct {
	mu  sync.Mutex
	all []acked
}

func (l *ackLog) add(a acked) {
	l.mu.Lock()
	l.all = append(l.all, a)
	l.mu.Unlock()
}

// checkExactlyOnce asserts that the replicas applied exactly the
// acknowledged commands, each once, in the order of the sequence numbers
// their answers carry (see replayAcked), and are all in the state that
// gives.
func checkExactlyOnce(t *testing.T, g *Group, cfg durable.Config, log []acked) {
	t.Helper()
	want, seq := replayAcked(t, cfg, log)
	agree(t, g, seq, want, "after the concurrent clients")
}

// replayAcked applies the acknowledged commands alone, in the order of
// their answers' sequence numbers, to a reference Cluster, and asserts
// that they hold every position once (a lost or doubled command breaks
// the run) and that the reference answers each as the replicas did (by
// encoding: a remote or replayed answer names a preemption decision's
// queue by path only). It returns the reference's digest and sequence
// number.
func replayAcked(t *testing.T, cfg durable.Config, log []acked) (string, uint64) {
	t.Helper()
	log = slices.Clone(log)
	slices.SortFunc(log, func(a, b acked) int { return cmp.Compare(a.r.Seq, b.r.Seq) })
	ref, err := durable.New(cfg)
	require.NoError(t, err)
	for i, a := range log {
		require.Equal(t, uint64(i+1), a.r.Seq, "acknowledged commands hold every position once")
		r, callErr := ref.Apply(a.cmd)
		require.Equal(t, encodeAnswerBytes(t, Response{Result: r, Err: callErr}), encodeAnswerBytes(t, Response{Result: a.r, Err: a.callErr}),
			"command %d: answered differently from the reference", a.r.Seq)
	}
	want, err := Digest(ref)
	require.NoError(t, err)
	return want, ref.Seq()
}

// TestConcurrentClients: commands from many goroutines at once are each
// applied exactly once and answered with their own result. With one
// request counter for the whole Group, a request numbered below one
// already applied was answered as a duplicate with an empty result and
// never applied: 4 goroutines × 150 commands lost 1–3 acknowledged ones.
func TestConcurrentClients(t *testing.T) {
	for _, tc := range []struct {
		name            string
		clients, each   int
		ownSessionPerGo bool
	}{
		{"Group.Apply/4x150", 4, 150, false},
		{"Group.Apply/16x30", 16, 30, false},
		{"Client/24x20", 24, 20, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, cfg := newGroup(t, durable.Capacity)
			var log ackLog
			var wg sync.WaitGroup
			for i := range tc.clients {
				apply := g.Apply
				if tc.ownSessionPerGo {
					c, err := g.NewClient()
					require.NoError(t, err)
					apply = c.Apply
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					w := smallWorkload(uint64(100+i), durable.Capacity)
					for range tc.each {
						cmd := w.Next()
						r, callErr, err := apply(cmd)
						if !assert.NoError(t, err) {
							return
						}
						w.Observe(r, callErr)
						log.add(acked{cmd, r, callErr})
					}
				}()
			}
			wg.Wait()
			require.Len(t, log.all, tc.clients*tc.each)
			checkExactlyOnce(t, g, cfg, log.all)
		})
	}
}

// TestClientRetryIsAnsweredOnce: a client whose request got through but
// whose answer was lost sends it again; the retry is answered with the
// first answer and applied once, also after the replicas restarted from a
// snapshot taken in between (the sessions' answers are in it).
func TestClientRetryIsAnsweredOnce(t *testing.T) {
	g, _ := newGroup(t, durable.Capacity)
	c, err := g.NewClient()
	require.NoError(t, err)
	first, callErr, err := c.Apply(addNode("n1"))
	require.NoError(t, err)
	require.NoError(t, callErr)

	// Every replica snapshots, so whichever leads after the restart has
	// the answer from its snapshot, not from replaying its log.
	require.NoError(t, g.WaitApplied(1))
	for _, r := range g.Running() {
		require.NoError(t, r.Raft.Snapshot().Error())
	}
	for _, r := range g.Running() {
		require.NoError(t, g.Stop(r))
	}
	for _, r := range g.Replicas {
		require.NoError(t, g.Restart(r))
	}
	// The same request again, as a client does after a lost answer.
	b, err := CommandEntry(c.Session(), 1, addNode("n1"))
	require.NoError(t, err)
	resp, err := c.submit(b)
	require.NoError(t, err)
	assert.True(t, resp.Duplicate)
	assert.True(t, reflect.DeepEqual(first, resp.Result), fmt.Sprintf("%+v vs %+v", first, resp.Result))
	require.NoError(t, g.Read(func(c *durable.Cluster, l Ledger) error {
		assert.Equal(t, uint64(1), c.Seq(), "applied once")
		assert.Equal(t, uint64(1), l.Applied)
		return nil
	}))

	// Closed, the session takes no more requests.
	require.NoError(t, c.Close())
	_, _, err = c.Apply(addNode("n2"))
	assert.ErrorIs(t, err, ErrSessionExpired)
}
