package main

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/examples/durable"
)

// Replica is one Berth replica of a [Group]: a raft node with its FSM, its
// log, stable and snapshot stores (in memory, or on disk under the
// group's Dir), and an in-memory transport.
type Replica struct {
	ID    raft.ServerID
	Addr  raft.ServerAddress
	FSM   *FSM
	Raft  *raft.Raft
	trans *raft.InmemTransport
	side  int           // the replica's side of a partition (0: the main one)
	stop  chan struct{} // closed when the replica stops
	stores
}

// stores are a replica's raft stores. On disk they are the ones a
// replica process uses: a bbolt file for the log and stable store and a
// directory of snapshot files.
type stores struct {
	logs   raft.LogStore
	stable raft.StableStore
	snaps  raft.SnapshotStore
	close  func() error
}

// openStores opens the stores in dir, creating it; "" keeps them in
// memory.
func openStores(dir string, noSync bool) (stores, error) {
	if dir == "" {
		m := raft.NewInmemStore()
		return stores{logs: m, stable: m, snaps: &memSnapshotStore{}, close: func() error { return nil }}, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return stores{}, err
	}
	b, err := OpenBoltStore(filepath.Join(dir, "raft.db"), noSync)
	if err != nil {
		return stores{}, err
	}
	snaps, err := raft.NewFileSnapshotStoreWithLogger(dir, 2, hclog.NewNullLogger())
	if err == nil {
		err = checkSnapshots(filepath.Join(dir, "snapshots"), b, snaps)
	}
	if err != nil {
		b.Close()
		return stores{}, err
	}
	return stores{logs: b, stable: b, snaps: snaps, close: b.Close}, nil
}

// checkSnapshots refuses a replica's stores that raft could not start
// from. raft restores the newest snapshot that reads back whole (its
// checksum), falling back to older ones, then replays its log from the
// entry after it, and panics when the log was compacted past that point:
// a damaged newest snapshot (or one deleted, or whose metadata does not
// read) with the log compacted behind it leaves the replica nothing to
// rebuild its state from. So does a log whose snapshots all fail. Each
// snapshot is read once more for this, at start.
func checkSnapshots(dir string, logs raft.LogStore, snaps raft.SnapshotStore) error {
	metas, err := snaps.List()
	if err != nil {
		return err
	}
	var damaged []string
	listed := map[string]bool{}
	for _, m := range metas {
		listed[m.ID] = true
	}
	if ents, err := os.ReadDir(dir); err == nil {
		for _, e := range ents {
			if e.IsDir() && !listed[e.Name()] && !strings.HasSuffix(e.Name(), ".tmp") {
				damaged = append(damaged, filepath.Join(dir, e.Name())+": its metadata does not read")
			}
		}
	}
	var usable *raft.SnapshotMeta
	for _, m := range metas {
		_, rc, err := snaps.Open(m.ID)
		if err != nil {
			damaged = append(damaged, fmt.Sprintf("%s: %v", filepath.Join(dir, m.ID), err))
			continue
		}
		rc.Close()
		usable = m
		break
	}
	first, err := logs.FirstIndex()
	if err != nil {
		return err
	}
	last, err := logs.LastIndex()
	if err != nil {
		return err
	}
	from := uint64(1) // the first entry raft will replay
	if usable != nil {
		from = usable.Index + 1
	}
	switch {
	case len(metas) > 0 && usable == nil:
	case last > 0 && first > from:
	default:
		return nil
	}
	why := "no snapshot"
	if usable != nil {
		why = fmt.Sprintf("the newest snapshot that reads back whole ends at index %d", usable.Index)
	}
	return fmt.Errorf("ha: %s: %w: the raft log starts at index %d and %s (%s): the replica cannot rebuild its state from its own files; "+
		"take it out of the group and add it back with an empty data directory",
		dir, berth.ErrCorruptState, first, why, strings.Join(damaged, "; "))
}

// GroupOptions configure a [Group].
type GroupOptions struct {
	// Dir, when set, keeps each replica's raft log, stable store and
	// snapshots on disk in Dir/<id>, as a replica process does: a stopped
	// replica restarts from them. Empty keeps them in memory (a restart
	// then still finds them, as if they had been on disk).
	Dir string
	// NoSync skips fsync in the on-disk log (tests: a process crash loses
	// nothing, a machine crash would).
	NoSync bool
	// Raft gives a replica's raft configuration; RaftConfig when nil.
	Raft func(id raft.ServerID) *raft.Config
	// Timeout bounds Leader, WaitApplied and each client call, retries
	// included; 10 s when zero.
	Timeout time.Duration
}

// Group is a set of replicas wired together over raft's in-memory
// transport, in one process: the test and demo harness. It can cut the
// network between replicas (Partition, Heal), stop and restart them, and
// add and remove them.
type Group struct {
	mu       sync.Mutex
	cfg      durable.Config
	opts     GroupOptions
	Replicas []*Replica
	Timeout  time.Duration
	named    int       // replicas named so far: the next is berth<named+1>
	pool     []*Client // idle sessions for Group.Apply
}

// RaftConfig is the raft configuration of a replica in a [Group]: fast
// timeouts for an in-memory transport, snapshots only when asked for (or
// every SnapshotThreshold entries), quiet logging.
func RaftConfig(id raft.ServerID) *raft.Config {
	c := raft.DefaultConfig()
	c.LocalID = id
	c.HeartbeatTimeout = 150 * time.Millisecond
	c.ElectionTimeout = 150 * time.Millisecond
	c.LeaderLeaseTimeout = 100 * time.Millisecond
	c.CommitTimeout = 5 * time.Millisecond
	c.SnapshotInterval = time.Hour
	c.SnapshotThreshold = 1 << 30
	c.TrailingLogs = 64
	c.Logger = hclog.New(&hclog.LoggerOptions{Name: string(id), Level: hclog.Off})
	return c
}

// NewGroup starts n replicas of a cluster built from cfg, with their
// stores in memory, and bootstraps them as one raft configuration.
func NewGroup(n int, cfg durable.Config) (*Group, error) {
	return NewGroupWith(n, cfg, GroupOptions{})
}

// NewGroupWith starts n replicas as NewGroup does, configured by opts.
func NewGroupWith(n int, cfg durable.Config, opts GroupOptions) (*Group, error) {
	if opts.Raft == nil {
		opts.Raft = RaftConfig
	}
	if opts.Timeout == 0 {
		opts.Timeout = 10 * time.Second
	}
	g := &Group{cfg: cfg, opts: opts, Timeout: opts.Timeout}
	var servers []raft.Server
	for range n {
		r, err := g.newReplica()
		if err != nil {
			g.Shutdown()
			return nil, err
		}
		servers = append(servers, raft.Server{ID: r.ID, Address: r.Addr})
	}
	for _, r := range g.Replicas {
		// The transport serves only to encode the peers here; start makes
		// the replica's own.
		_, t := raft.NewInmemTransport(r.Addr)
		err := raft.BootstrapCluster(g.opts.Raft(r.ID), r.logs, r.stable, r.snaps, t, raft.Configuration{Servers: servers})
		t.Close()
		if err != nil {
			g.Shutdown()
			return nil, err
		}
	}
	for _, r := range g.Replicas {
		if err := g.start(r); err != nil {
			g.Shutdown()
			return nil, err
		}
	}
	return g, nil
}

// newReplica names a replica, opens its stores and lists it (stopped).
func (g *Group) newReplica() (*Replica, error) {
	g.mu.Lock()
	g.named++
	id := raft.ServerID(fmt.Sprintf("berth%d", g.named))
	g.mu.Unlock()
	r := &Replica{ID: id, Addr: raft.ServerAddress(id)}
	if err := g.openStores(r); err != nil {
		return nil, err
	}
	g.mu.Lock()
	g.Replicas = append(g.Replicas, r)
	g.mu.Unlock()
	return r, nil
}

func (g *Group) openStores(r *Replica) error {
	dir := ""
	if g.opts.Dir != "" {
		dir = filepath.Join(g.opts.Dir, string(r.ID))
	}
	s, err := openStores(dir, g.opts.NoSync)
	r.stores = s
	return err
}

// start (re)starts a replica's raft node on its stores with a fresh FSM,
// as a process restart would, and connects it to the running replicas on
// its side.
func (g *Group) start(r *Replica) error {
	fsm, err := NewFSM(g.cfg)
	if err != nil {
		return err
	}
	_, t := raft.NewInmemTransport(r.Addr)
	rf, err := raft.NewRaft(g.opts.Raft(r.ID), fsm, r.logs, r.stable, r.snaps, t)
	if err != nil {
		t.Close()
		r.close() // a Restart opens them again
		return err
	}
	g.mu.Lock()
	r.trans, r.FSM, r.Raft, r.stop = t, fsm, rf, make(chan struct{})
	g.rewireLocked()
	g.mu.Unlock()
	return nil
}

// rewireLocked connects every two running replicas on the same side and
// disconnects the others.
func (g *Group) rewireLocked() {
	for _, a := range g.Replicas {
		for _, b := range g.Replicas {
			if a == b || a.trans == nil || b.trans == nil {
				continue
			}
			if a.side == b.side {
				a.trans.Connect(b.Addr, b.trans)
			} else {
				a.trans.Disconnect(b.Addr)
			}
		}
	}
}

// Partition cuts the network between the replicas of side and the
// others (a replica restarted meanwhile stays on its side); Heal joins
// them again.
func (g *Group) Partition(side ...*Replica) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, r := range g.Replicas {
		r.side = 0
	}
	for _, r := range side {
		r.side = 1
	}
	g.rewireLocked()
}

// Heal undoes Partition.
func (g *Group) Heal() { g.Partition() }

// Stop shuts a replica down and cuts it off, as a crash would; its stores
// are kept (closed, when on disk), so [Group.Restart] brings it back.
func (g *Group) Stop(r *Replica) error {
	g.mu.Lock()
	t := r.trans
	if t == nil {
		g.mu.Unlock()
		return nil
	}
	for _, o := range g.Replicas {
		if o != r && o.trans != nil {
			o.trans.Disconnect(r.Addr)
		}
	}
	t.DisconnectAll()
	r.trans = nil
	close(r.stop)
	g.mu.Unlock()
	err := r.Raft.Shutdown().Error()
	t.Close()
	if cerr := r.close(); err == nil {
		err = cerr
	}
	return err
}

// Restart starts a stopped replica again with a fresh FSM, reopening its
// stores: raft restores it from its own latest snapshot and replays its
// own log, then the leader sends the entries it missed, or its snapshot
// when they were compacted.
func (g *Group) Restart(r *Replica) error {
	if g.opts.Dir != "" {
		if err := g.openStores(r); err != nil {
			return err
		}
	}
	return g.start(r)
}

// Add starts a new replica with empty stores and has the leader add it
// as a voter; it catches up from the leader's log or snapshot.
func (g *Group) Add() (*Replica, error) {
	r, err := g.newReplica()
	if err != nil {
		return nil, err
	}
	if err := g.start(r); err != nil {
		return nil, err
	}
	err = g.onLeader(func(l *raft.Raft) error { return l.AddVoter(r.ID, r.Addr, 0, g.Timeout).Error() })
	return r, err
}

// Remove has the leader take r out of the configuration, then stops it
// and forgets it.
func (g *Group) Remove(r *Replica) error {
	if err := g.onLeader(func(l *raft.Raft) error { return l.RemoveServer(r.ID, 0, g.Timeout).Error() }); err != nil {
		return err
	}
	err := g.Stop(r)
	g.mu.Lock()
	for i, o := range g.Replicas {
		if o == r {
			g.Replicas = append(g.Replicas[:i], g.Replicas[i+1:]...)
			break
		}
	}
	g.mu.Unlock()
	return err
}

// onLeader runs a configuration change on the leader, again on the next
// leader if the leader is lost meanwhile.
func (g *Group) onLeader(change func(*raft.Raft) error) error {
	deadline := time.Now().Add(g.Timeout)
	for {
		l, err := g.leaderWithin(time.Until(deadline))
		if err != nil {
			return err
		}
		err = change(l.Raft)
		if err == nil || !retryable(err) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func retryable(err error) bool {
	return errors.Is(err, raft.ErrLeadershipLost) || errors.Is(err, raft.ErrNotLeader) ||
		errors.Is(err, raft.ErrLeadershipTransferInProgress) || errors.Is(err, raft.ErrRaftShutdown) ||
		errors.Is(err, raft.ErrEnqueueTimeout)
}

// Shutdown stops every replica.
func (g *Group) Shutdown() {
	g.mu.Lock()
	rs := append([]*Replica(nil), g.Replicas...)
	g.mu.Unlock()
	for _, r := range rs {
		g.Stop(r)
	}
}

// Leader waits for a leader among the running replicas and returns it.
// During a partition it may be a leader that has not yet noticed it lost
// the majority: a client's request to it fails, and is sent again.
func (g *Group) Leader() (*Replica, error) { return g.leaderWithin(g.Timeout) }

func (g *Group) leaderWithin(d time.Duration) (*Replica, error) {
	deadline := time.Now().Add(d)
	for {
		g.mu.Lock()
		for _, r := range g.Replicas {
			if r.trans != nil && r.Raft.State() == raft.Leader {
				g.mu.Unlock()
				return r, nil
			}
		}
		g.mu.Unlock()
		if time.Now().After(deadline) {
			return nil, errNoLeader
		}
		time.Sleep(5 * time.Millisecond)
	}
}

var errNoLeader = errors.New("ha: no leader elected")

// NewClient opens a client session.
func (g *Group) NewClient() (*Client, error) {
	return newClient(groupBackend{g: g}, g.Timeout, 5*time.Millisecond)
}

// Apply sends a command as one of the Group's clients: a session not in
// use by another call is taken from a pool (a new one opened if none is
// idle), so concurrent callers each have their own session and request
// numbers. See [Client.Apply]. Each call is a new request: a caller that
// retries a command whose outcome was unknown uses a Client of its own
// (a session left with an unknown request is not reused here).
func (g *Group) Apply(cmd durable.Command) (durable.Result, error, error) {
	g.mu.Lock()
	var c *Client
	if n := len(g.pool); n > 0 {
		c, g.pool = g.pool[n-1], g.pool[:n-1]
	}
	g.mu.Unlock()
	if c == nil {
		var err error
		if c, err = g.NewClient(); err != nil {
			return durable.Result{}, nil, err
		}
	}
	r, callErr, err := c.Apply(cmd)
	if !errors.Is(err, ErrSessionExpired) && !errors.Is(err, ErrOutcomeUnknown) {
		g.mu.Lock()
		g.pool = append(g.pool, c)
		g.mu.Unlock()
	}
	return r, callErr, err
}

// Read calls fn with the leader's Cluster and ledger once the leader has
// applied every entry committed before Read was called: the read sees
// every acknowledged command, and only committed ones. The leader proves
// it still leads by committing a barrier entry, so a leader cut off from
// the majority cannot answer: Read tries the next leader until the
// Group's Timeout. fn must be quick: the replica applies nothing while it
// runs.
func (g *Group) Read(fn func(*durable.Cluster, Ledger) error) error {
	return groupBackend{g: g}.readWithin(g.Timeout, fn)
}

// groupBackend sends a Client's entries to the Group's leader, or to one
// replica whether it leads or not (on: how a test reaches a leader that
// lost its majority).
type groupBackend struct {
	g  *Group
	on *Replica
}

func (b groupBackend) target(timeout time.Duration) (*Replica, error) {
	if b.on != nil {
		return b.on, nil
	}
	return b.g.leaderWithin(min(timeout, b.g.Timeout))
}

func (b groupBackend) submit(entry []byte, timeout time.Duration) (Response, bool, error) {
	l, err := b.target(timeout)
	if err != nil {
		return Response{}, false, err
	}
	b.g.mu.Lock()
	rf, stop := l.Raft, l.stop
	b.g.mu.Unlock()
	f := rf.Apply(entry, timeout)
	if err := waitFuture(f, timeout, stop); err != nil {
		// Only a refusal before the leader took the entry proves it is
		// not in any log.
		sent := !errors.Is(err, raft.ErrNotLeader) && !errors.Is(err, raft.ErrEnqueueTimeout) &&
			!errors.Is(err, raft.ErrLeadershipTransferInProgress)
		return Response{}, sent, err
	}
	return f.Response().(Response), true, nil
}

// readWithin reads through the target (see Group.Read), again until
// timeout; fn's own error is returned as it is.
func (b groupBackend) readWithin(timeout time.Duration, fn func(*durable.Cluster, Ledger) error) error {
	deadline := time.Now().Add(timeout)
	for {
		fsm, err := b.barrier(max(time.Until(deadline), time.Millisecond))
		if err == nil {
			return fsm.Read(fn)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%w: %w", ErrUnavailable, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// barrier commits a barrier on the target and returns its FSM, which has
// then applied every entry committed before.
func (b groupBackend) barrier(timeout time.Duration) (*FSM, error) {
	l, err := b.target(timeout)
	if err != nil {
		return nil, err
	}
	b.g.mu.Lock()
	rf, fsm, stop := l.Raft, l.FSM, l.stop
	b.g.mu.Unlock()
	return fsm, waitFuture(rf.Barrier(timeout), timeout, stop)
}

// errFutureTimeout: raft did not answer within the caller's timeout.
var errFutureTimeout = errors.New("ha: no answer from raft in time")

// waitFuture waits for f, at most timeout and no longer than its replica
// runs. raft v1.8 can leave a future unanswered for ever: entries
// committed but not yet applied when it shuts down stay in its FSM
// goroutine's queue, their futures with them (clients of a killed leader
// hung there). Only the goroutine waiting on such a future is left
// behind.
func waitFuture(f raft.Future, timeout time.Duration, stop <-chan struct{}) error {
	done := make(chan error, 1)
	go func() { done <- f.Error() }()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case err := <-done:
		return err
	case <-stop:
		return raft.ErrRaftShutdown
	case <-t.C:
		return errFutureTimeout
	}
}

// WaitApplied waits until every running replica has applied seq commands.
func (g *Group) WaitApplied(seq uint64) error {
	deadline := time.Now().Add(g.Timeout)
	for time.Now().Before(deadline) {
		done := true
		for _, r := range g.Running() {
			if r.FSM.Cluster().Seq() < seq {
				done = false
			}
		}
		if done {
			return nil
		}
		time.Sleep(2 * time.Millisecond)
	}
	return fmt.Errorf("ha: replicas did not reach command %d", seq)
}

// Running lists the running replicas.
func (g *Group) Running() []*Replica {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []*Replica
	for _, r := range g.Replicas {
		if r.trans != nil {
			out = append(out, r)
		}
	}
	return out
}

// Digest is the SHA-256 of a Cluster's snapshot, hex: two replicas in the
// same state have the same digest.
func Digest(c *durable.Cluster) (string, error) {
	h := sha256.New()
	if err := c.WriteSnapshot(h); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
