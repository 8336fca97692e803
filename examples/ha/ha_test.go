package main

import (
	"fmt"
	"io"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/berthsched/berth/examples/durable"
	"github.com/berthsched/berth/queue"
)

var kinds = []durable.SchedulerKind{durable.Capacity, durable.Fair}

func newGroup(t *testing.T, k durable.SchedulerKind) (*Group, durable.Config) {
	t.Helper()
	cfg, err := durable.DemoConfig(k)
	require.NoError(t, err)
	g, err := NewGroup(3, cfg)
	require.NoError(t, err)
	t.Cleanup(g.Shutdown)
	return g, cfg
}

// agree asserts that every running replica is at seq with the same state
// digest as want.
func agree(t *testing.T, g *Group, seq uint64, want string, msg string) {
	t.Helper()
	require.NoError(t, g.WaitApplied(seq), msg)
	for _, r := range g.Running() {
		require.Equal(t, seq, r.FSM.Cluster().Seq(), "%s: %s", msg, r.ID)
		d, err := Digest(r.FSM.Cluster())
		require.NoError(t, err)
		require.Equal(t, want, d, "%s: replica %s disagrees", msg, r.ID)
	}
}

// TestReplicasAgree: every 20 commands, every replica is in the state of
// a reference Cluster that applied the same commands alone, and the
// leader's answer to every command is the reference's.
func TestReplicasAgree(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.String(), func(t *testing.T) {
			g, cfg := newGroup(t, k)
			ref, err := durable.New(cfg)
			require.NoError(t, err)
			w := smallWorkload(21, k)
			for i := range 400 {
				cmd := w.Next()
				r, callErr, err := g.Apply(cmd)
				require.NoError(t, err, "command %d", i)
				rr, rerr := ref.Apply(cmd)
				assert.Equal(t, rerr == nil, callErr == nil, "command %d: %v vs %v", i, rerr, callErr)
				require.True(t, reflect.DeepEqual(rr, r), "command %d: the leader answered differently from the reference", i)
				w.Observe(rr, rerr)
				if i%20 == 19 {
					want, err := Digest(ref)
					require.NoError(t, err)
					agree(t, g, ref.Seq(), want, fmt.Sprintf("after command %d", i))
				}
			}
		})
	}
}

// TestLeaderFailover kills the leader mid-stream, once between commands
// and once with a command in flight: a new leader takes over, holds every
// acknowledged reservation and container, and decides the rest of the
// stream exactly as a reference Cluster that saw the same commands.
func TestLeaderFailover(t *testing.T) {
	for _, k := range kinds {
		for _, inFlight := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/inflight=%t", k, inFlight), func(t *testing.T) {
				g, cfg := newGroup(t, k)
				ref, err := durable.New(cfg)
				require.NoError(t, err)
				w := smallWorkload(33, k)
				live := map[queue.ContainerID]bool{}
				run := func(n int) {
					for i := range n {
						cmd := w.Next()
						r, callErr, err := g.Apply(cmd)
						require.NoError(t, err, "command %d", i)
						rr, rerr := ref.Apply(cmd)
						require.True(t, reflect.DeepEqual(rr, r), "command %d answered differently", ref.Seq())
						assert.Equal(t, rerr == nil, callErr == nil)
						for _, a := range r.Allocations {
							live[a.ID] = true
						}
						w.Observe(rr, rerr)
					}
				}
				run(400)
				old, err := g.Leader()
				require.NoError(t, err)
				if inFlight {
					// Kill the leader while a command is in flight: it may
					// or may not have been committed; the client's retry
					// is applied once either way, and answered as the
					// reference answers.
					cmd := w.Next()
					type answer struct {
						r       durable.Result
						callErr error
						err     error
					}
					done := make(chan answer, 1)
					go func() {
						r, callErr, err := g.Apply(cmd)
						done <- answer{r, callErr, err}
					}()
					time.Sleep(time.Millisecond)
					require.NoError(t, g.Stop(old))
					a := <-done
					require.NoError(t, a.err)
					rr, rerr := ref.Apply(cmd)
					require.True(t, reflect.DeepEqual(rr, a.r), "the in-flight command answered differently")
					assert.Equal(t, rerr == nil, a.callErr == nil)
					w.Observe(rr, rerr)
					for _, al := range rr.Allocations {
						live[al.ID] = true
					}
				} else {
					require.NoError(t, g.Stop(old))
				}
				nl, err := g.Leader()
				require.NoError(t, err)
				require.NotEqual(t, old.ID, nl.ID)
				want, err := Digest(ref)
				require.NoError(t, err)
				agree(t, g, ref.Seq(), want, "after the failover")

				// Every acknowledged container still running on the
				// reference is on the new leader; every reservation too.
				c := nl.FSM.Cluster()
				for id := range live {
					if k == durable.Capacity {
						assert.Equal(t, ref.Capacity().HasContainer(id), c.Capacity().HasContainer(id), "container %d", id)
					}
				}
				refPlans, gotPlans := ref.Reservations().Plans(), c.Reservations().Plans()
				require.Len(t, gotPlans, len(refPlans))
				for i := range refPlans {
					assert.Equal(t, refPlans[i].Len(), gotPlans[i].Len(), "reservations in plan %s", refPlans[i].QueueName())
				}
				run(400)
				want, err = Digest(ref)
				require.NoError(t, err)
				agree(t, g, ref.Seq(), want, "decisions continue identically")
			})
		}
	}
}

// TestCatchUpFromSnapshot: a replica that was down while the leader
// compacted its log past the replica's last entry is brought back by an
// installed snapshot, then follows the log again.
func TestCatchUpFromSnapshot(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.String(), func(t *testing.T) {
			g, cfg := newGroup(t, k)
			ref, err := durable.New(cfg)
			require.NoError(t, err)
			w := smallWorkload(44, k)
			run := func(n int) {
				for range n {
					cmd := w.Next()
					_, _, err := g.Apply(cmd)
					require.NoError(t, err)
					w.Observe(ref.Apply(cmd))
				}
			}
			run(200)
			l, err := g.Leader()
			require.NoError(t, err)
			down := otherThan(t, g, l)
			require.NoError(t, g.WaitApplied(ref.Seq()))
			require.NoError(t, g.Stop(down))
			run(600)
			// Compact: the leader's snapshot covers entries the stopped
			// replica never received, and only TrailingLogs remain.
			require.NoError(t, l.Raft.Snapshot().Error())
			run(100)
			first, err := l.logs.FirstIndex()
			require.NoError(t, err)
			last, err := down.logs.LastIndex()
			require.NoError(t, err)
			require.Greater(t, first, last+1, "the leader no longer has the entries the replica needs")

			require.NoError(t, g.Restart(down))
			want, err := Digest(ref)
			require.NoError(t, err)
			agree(t, g, ref.Seq(), want, "caught up")
			assert.GreaterOrEqual(t, down.FSM.Restores(), int64(1), "it installed the leader's snapshot")
			run(200)
			want, err = Digest(ref)
			require.NoError(t, err)
			agree(t, g, ref.Seq(), want, "and follows the log again")
		})
	}
}

func TestDemo(t *testing.T) {
	require.NoError(t, run(io.Discard, durable.Capacity))
}

// smallWorkload is a workload on a dozen nodes, so that a few hundred
// commands hold many rounds (follower runs, preemption rounds,
// reservations).
func smallWorkload(seed uint64, k durable.SchedulerKind) *durable.Workload {
	w := durable.NewWorkload(seed, k)
	w.Nodes, w.Apps = 12, 10
	return w
}
