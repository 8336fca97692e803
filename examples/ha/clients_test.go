package main

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

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

	require.NoError(t, g.WaitApplied(1))
	restartFromSnapshots(t, g)
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

// restartFromSnapshots has every replica snapshot, then stops them all
// and restarts them: whichever leads afterwards has the sessions'
// answers from its snapshot, not from replaying its log.
func restartFromSnapshots(t *testing.T, g *Group) {
	t.Helper()
	for _, r := range g.Running() {
		require.NoError(t, r.Raft.Snapshot().Error())
	}
	for _, r := range g.Running() {
		require.NoError(t, g.Stop(r))
	}
	for _, r := range g.Replicas {
		require.NoError(t, g.Restart(r))
	}
}

// lossy is a backend whose answers are lost while drop is set: the entry
// reaches the replicas and is applied, the client hears nothing; while
// down is set, no replica takes anything.
type lossy struct {
	backend
	drop, down atomic.Bool
}

func (l *lossy) submit(entry []byte, timeout time.Duration) (Response, bool, error) {
	if l.down.Load() {
		return Response{}, false, errNoLeader
	}
	resp, sent, err := l.backend.submit(entry, timeout)
	if err == nil && l.drop.Load() {
		return Response{}, true, errFutureTimeout
	}
	return resp, sent, err
}

// TestClientRetryAfterUnknownOutcome: a host whose Apply ended in
// ErrOutcomeUnknown sends the same command again, as hosts do. The retry
// is the same request: applied once, answered with its first answer,
// also when every replica restarted from a snapshot in between, and
// after a retry no replica took (ErrUnavailable). A
// different command gives the unknown one up: it is applied at most once
// (here it was, before the next one). A retry used to be a new request,
// so the command was applied twice (a second AddNode of the node, refused
// as a duplicate, and two commands counted).
func TestClientRetryAfterUnknownOutcome(t *testing.T) {
	g, _ := newGroup(t, durable.Capacity)
	_, err := g.Leader()
	require.NoError(t, err)
	lb := &lossy{backend: groupBackend{g: g}}
	c, err := newClient(lb, 300*time.Millisecond, 5*time.Millisecond)
	require.NoError(t, err)
	_, callErr, err := c.Apply(addNode("n1"))
	require.NoError(t, err)
	require.NoError(t, callErr)

	lb.drop.Store(true)
	_, _, err = c.Apply(addNode("n2"))
	require.ErrorIs(t, err, ErrOutcomeUnknown)
	lb.drop.Store(false)
	require.NoError(t, g.WaitApplied(2))
	restartFromSnapshots(t, g)
	// A retry that no replica takes leaves the outcome unknown: the next
	// retry is still the same request.
	lb.down.Store(true)
	_, _, err = c.Apply(addNode("n2"))
	require.ErrorIs(t, err, ErrUnavailable)
	lb.down.Store(false)
	res, callErr, err := c.Apply(addNode("n2"))
	require.NoError(t, err)
	assert.NoError(t, callErr, "the retry gets the first answer, not a refusal of a second AddNode")
	assert.Equal(t, uint64(2), res.Seq)
	readSeq := func() uint64 {
		var seq uint64
		require.NoError(t, g.Read(func(c *durable.Cluster, l Ledger) error {
			seq = c.Seq()
			assert.Equal(t, seq, l.Applied)
			return nil
		}))
		return seq
	}
	assert.Equal(t, uint64(2), readSeq(), "applied once")

	// Another command after an unknown outcome gives the unknown one up.
	lb.drop.Store(true)
	_, _, err = c.Apply(addNode("n3"))
	require.ErrorIs(t, err, ErrOutcomeUnknown)
	lb.drop.Store(false)
	res, callErr, err = c.Apply(addNode("n4"))
	require.NoError(t, err)
	require.NoError(t, callErr)
	assert.Equal(t, uint64(4), res.Seq, "n3 got through before it")
	assert.Equal(t, uint64(4), readSeq())
	// Given up, the command sent again is a new request (and the Cluster
	// refuses a second n3).
	res, callErr, err = c.Apply(addNode("n3"))
	require.NoError(t, err)
	assert.Error(t, callErr)
	assert.Equal(t, uint64(5), res.Seq)
}
