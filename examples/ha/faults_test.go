package main

import (
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/berthsched/berth/examples/durable"
)

// newGroupWith starts n replicas of the capacity demo configured by opts.
func newGroupWith(t *testing.T, n int, opts GroupOptions) (*Group, durable.Config) {
	t.Helper()
	cfg, err := durable.DemoConfig(durable.Capacity)
	require.NoError(t, err)
	g, err := NewGroupWith(n, cfg, opts)
	require.NoError(t, err)
	t.Cleanup(g.Shutdown)
	return g, cfg
}

// pinned is a client that sends everything to r, whether it leads or not,
// under an existing session: how a client that still believes in a
// deposed leader behaves.
func pinned(g *Group, c *Client, r *Replica, timeout time.Duration) *Client {
	return &Client{b: groupBackend{g: g, on: r}, id: c.id, seq: c.seq, Timeout: timeout, Backoff: 5 * time.Millisecond}
}

// otherThan returns a running replica that is none of not.
func otherThan(t *testing.T, g *Group, not ...*Replica) *Replica {
	t.Helper()
	for _, r := range g.Running() {
		if !slices.Contains(not, r) {
			return r
		}
	}
	require.Fail(t, "no other replica running")
	return nil
}

// sessionSeq is the last request of a session a replica applied (0: none,
// or the session is unknown there).
func sessionSeq(r *Replica, session uint64) uint64 {
	r.FSM.mu.Lock()
	defer r.FSM.mu.Unlock()
	if s := r.FSM.sessions[session]; s != nil {
		return s.seq
	}
	return 0
}

// driver applies a workload through one client and records what was
// acknowledged.
type driver struct {
	t   *testing.T
	c   *Client
	w   *durable.Workload
	log *ackLog
}

func newDriver(t *testing.T, g *Group, seed uint64, log *ackLog) *driver {
	c, err := g.NewClient()
	require.NoError(t, err)
	return &driver{t: t, c: c, w: smallWorkload(seed, durable.Capacity), log: log}
}

func (d *driver) run(n int) {
	for range n {
		cmd := d.w.Next()
		r, callErr, err := d.c.Apply(cmd)
		require.NoError(d.t, err)
		d.w.Observe(r, callErr)
		d.log.add(acked{cmd, r, callErr})
	}
}

// TestMinorityLeaderCannotAcknowledge: five replicas; the leader and one
// follower are cut off from the other three. A write sent to the old
// leader is never acknowledged (it fails once the leader's lease runs out)
// while the majority elects a leader and goes on; after the partition
// heals, the old leader's unacknowledged entry is gone from every replica
// and every replica holds exactly the acknowledged writes.
func TestMinorityLeaderCannotAcknowledge(t *testing.T) {
	g, cfg := newGroupWith(t, 5, GroupOptions{Timeout: 5 * time.Second})
	var log ackLog
	d := newDriver(t, g, 61, &log)
	d.run(50)
	old, err := g.Leader()
	require.NoError(t, err)
	buddy := otherThan(t, g, old)
	stray, err := g.NewClient()
	require.NoError(t, err)
	g.Partition(old, buddy)

	// The old leader takes the write into its log but cannot commit it.
	p := pinned(g, stray, old, 600*time.Millisecond)
	_, _, err = p.Apply(addNode("stray"))
	require.Error(t, err, "a leader without its majority acknowledged a write")
	assert.ErrorIs(t, err, ErrOutcomeUnknown, "the client cannot know: the entry is in the old leader's log")

	// The majority goes on, its leader among the three.
	d.run(50)
	nl, err := g.Leader()
	require.NoError(t, err)
	assert.NotContains(t, []*Replica{old, buddy}, nl)

	g.Heal()
	d.run(20)
	checkExactlyOnce(t, g, cfg, log.all)
	for _, r := range g.Running() {
		assert.Zero(t, sessionSeq(r, stray.id), "%s applied the stray write", r.ID)
	}
}

// TestIsolatedLeader: a leader cut off from every other replica can
// neither write nor read: a write sent to it fails, and a read on it
// fails rather than answer from its stale state (its own FSM lacks what
// the new leader has committed meanwhile, so a read served locally would
// have been stale). Reads through the majority see every acknowledged
// write. Healed, the old leader catches up.
func TestIsolatedLeader(t *testing.T) {
	g, cfg := newGroupWith(t, 3, GroupOptions{Timeout: 5 * time.Second})
	var log ackLog
	d := newDriver(t, g, 62, &log)
	d.run(40)
	old, err := g.Leader()
	require.NoError(t, err)
	stray, err := g.NewClient()
	require.NoError(t, err)
	g.Partition(old)

	p := pinned(g, stray, old, 600*time.Millisecond)
	_, _, err = p.Apply(addNode("stray"))
	require.Error(t, err, "an isolated leader acknowledged a write")
	assert.ErrorIs(t, err, ErrOutcomeUnknown)

	d.run(40) // committed by the new leader
	acked := uint64(len(log.all))
	require.NoError(t, g.Read(func(c *durable.Cluster, l Ledger) error {
		assert.GreaterOrEqual(t, c.Seq(), acked, "a read through the majority sees every acknowledged write")
		return nil
	}))
	assert.Less(t, old.FSM.Cluster().Seq(), acked, "the old leader's own state is stale")
	err = groupBackend{g: g, on: old}.readWithin(600*time.Millisecond, func(c *durable.Cluster, l Ledger) error {
		t.Errorf("the isolated leader served a read at command %d (acknowledged: %d)", c.Seq(), acked)
		return nil
	})
	require.Error(t, err)

	g.Heal()
	d.run(10)
	checkExactlyOnce(t, g, cfg, log.all)
	assert.Zero(t, sessionSeq(old, stray.id))
}

// TestRestartFromDisk: with the raft log, stable store and snapshots on
// disk, a replica stopped and restarted rejoins from its own files (its
// snapshot, then its log, then what the leader sends); and when every
// replica stops at once, all come back from disk with every acknowledged
// command, and go on.
func TestRestartFromDisk(t *testing.T) {
	g, cfg := newGroupWith(t, 3, GroupOptions{Dir: t.TempDir(), Timeout: 10 * time.Second})
	var log ackLog
	d := newDriver(t, g, 63, &log)
	d.run(80)
	l, err := g.Leader()
	require.NoError(t, err)
	for _, r := range g.Running() {
		require.NoError(t, r.Raft.Snapshot().Error(), "snapshot on %s", r.ID)
	}
	d.run(40)
	down := otherThan(t, g, l)
	require.NoError(t, g.Stop(down))
	d.run(40)
	require.NoError(t, g.Restart(down))
	checkExactlyOnce(t, g, cfg, log.all)
	assert.GreaterOrEqual(t, down.FSM.Restores(), int64(1), "restored from its own snapshot file")

	// Every replica stops; every one comes back from disk.
	for _, r := range g.Replicas {
		require.NoError(t, g.Stop(r))
	}
	for _, r := range g.Replicas {
		require.NoError(t, g.Restart(r))
	}
	d.run(20)
	checkExactlyOnce(t, g, cfg, log.all)
}

// TestSnapshotDuringHeavyApplies: snapshots are taken (every 40 entries,
// and by hand in a loop) while eight clients apply commands as fast as
// they can; a replica stopped meanwhile comes back from the leader's
// snapshot. Every acknowledged command is applied once, and all agree.
func TestSnapshotDuringHeavyApplies(t *testing.T) {
	raftConf := func(id raft.ServerID) *raft.Config {
		c := RaftConfig(id)
		c.SnapshotThreshold = 40
		c.SnapshotInterval = 20 * time.Millisecond
		c.TrailingLogs = 10
		return c
	}
	g, cfg := newGroupWith(t, 3, GroupOptions{Raft: raftConf, Timeout: 10 * time.Second})
	var log ackLog
	var drivers []*driver
	for i := range 8 {
		drivers = append(drivers, newDriver(t, g, uint64(70+i), &log))
	}
	l, err := g.Leader()
	require.NoError(t, err)
	down := otherThan(t, g, l)
	var snaps atomic.Int64
	stop := make(chan struct{})
	snapDone := make(chan struct{})
	go func() {
		defer close(snapDone)
		for {
			select {
			case <-stop:
				return
			default:
			}
			for _, r := range g.Running() {
				if err := r.Raft.Snapshot().Error(); err == nil {
					snaps.Add(1)
				}
			}
			time.Sleep(2 * time.Millisecond)
		}
	}()
	var wg sync.WaitGroup
	for i, d := range drivers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d.run(30)
			if i == 0 {
				assert.NoError(t, g.Stop(down))
			}
			d.run(30)
		}()
	}
	wg.Wait()
	close(stop)
	<-snapDone
	require.NoError(t, g.Restart(down))
	checkExactlyOnce(t, g, cfg, log.all)
	assert.GreaterOrEqual(t, snaps.Load(), int64(5), "snapshots were taken during the applies")
	assert.GreaterOrEqual(t, down.FSM.Restores(), int64(1), "the stopped replica came back from a snapshot")
}

// TestMembership: a replica added to a running group catches up (from
// the leader's snapshot: the log it would need is compacted) and votes;
// a follower and then the leader itself are removed, and the remaining
// replicas go on, while the removed ones apply nothing more.
func TestMembership(t *testing.T) {
	g, cfg := newGroupWith(t, 3, GroupOptions{Timeout: 10 * time.Second})
	var log ackLog
	d := newDriver(t, g, 64, &log)
	d.run(120)
	l, err := g.Leader()
	require.NoError(t, err)
	require.NoError(t, l.Raft.Snapshot().Error())
	d.run(80)

	added, err := g.Add()
	require.NoError(t, err)
	d.run(20)
	checkExactlyOnce(t, g, cfg, log.all)
	assert.GreaterOrEqual(t, added.FSM.Restores(), int64(1), "the new replica installed the leader's snapshot")
	requireVoters(t, g, 4)

	l, err = g.Leader()
	require.NoError(t, err)
	follower := otherThan(t, g, l, added)
	require.NoError(t, g.Remove(follower))
	d.run(20)
	requireVoters(t, g, 3)
	require.NoError(t, g.Remove(l))
	d.run(20)
	requireVoters(t, g, 2)
	checkExactlyOnce(t, g, cfg, log.all)
	for _, r := range []*Replica{follower, l} {
		assert.Less(t, r.FSM.Cluster().Seq(), uint64(len(log.all)), "%s was removed and applies nothing more", r.ID)
	}
}

func requireVoters(t *testing.T, g *Group, n int) {
	t.Helper()
	l, err := g.Leader()
	require.NoError(t, err)
	f := l.Raft.GetConfiguration()
	require.NoError(t, f.Error())
	voters := 0
	for _, s := range f.Configuration().Servers {
		if s.Suffrage == raft.Voter {
			voters++
		}
	}
	require.Equal(t, n, voters)
}

// TestClientsAcrossFailover: eight clients apply commands while the
// leader is killed and, later, restarted: every client's requests in
// flight at the kill are retried on the new leader and applied once.
func TestClientsAcrossFailover(t *testing.T) {
	g, cfg := newGroupWith(t, 3, GroupOptions{Timeout: 10 * time.Second})
	var log ackLog
	var drivers []*driver
	for i := range 8 {
		drivers = append(drivers, newDriver(t, g, uint64(80+i), &log))
	}
	var wg sync.WaitGroup
	for _, d := range drivers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d.run(60)
		}()
	}
	time.Sleep(50 * time.Millisecond)
	l, err := g.Leader()
	require.NoError(t, err)
	require.NoError(t, g.Stop(l))
	time.Sleep(200 * time.Millisecond)
	require.NoError(t, g.Restart(l))
	wg.Wait()
	checkExactlyOnce(t, g, cfg, log.all)
}
