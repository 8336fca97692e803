package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"

	"github.com/berthsched/berth/examples/durable"
)

// FSM is one replica's state machine for raft: each committed log entry
// is an encoded durable.Command, applied to the replica's own
// durable.Cluster; raft snapshots are the Cluster's snapshot stream.
// Every replica applies the same commands in the same order to a Cluster
// built from the same Config, so every replica is in the same state.
//
// A log entry is a request number (uvarint) followed by the command: a
// client that lost its leader mid-call sends the same request again, and
// the FSM applies a request number it has already applied only once (the
// client-session rule of the raft paper, §8), answering the retry with the
// first answer. The last request number is replicated state: it is in
// the FSM's snapshot.
type FSM struct {
	cfg      durable.Config
	restores atomic.Int64

	mu       sync.Mutex
	cluster  *durable.Cluster
	lastReq  uint64
	lastResp Response
}

// Response is what [FSM.Apply] returns for a command, handed to the
// caller of raft.Apply on the leader by ApplyFuture.Response.
type Response struct {
	Result durable.Result
	Err    error // the call's own error (a refused submission); the command still counts
	// Duplicate marks the answer to a request applied before; after a
	// snapshot was installed in between, the first answer is gone and
	// Result is empty.
	Duplicate bool
}

// NewFSM builds a replica's state machine at genesis.
func NewFSM(cfg durable.Config) (*FSM, error) {
	c, err := durable.New(cfg)
	if err != nil {
		return nil, err
	}
	return &FSM{cfg: cfg, cluster: c}, nil
}

// Cluster returns the replica's current Cluster, for reading.
func (f *FSM) Cluster() *durable.Cluster {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.cluster
}

// Restores counts the snapshots installed by [FSM.Restore].
func (f *FSM) Restores() int64 { return f.restores.Load() }

// Entry encodes a log entry: request number req, then the command.
func Entry(req uint64, cmd durable.Command) ([]byte, error) {
	return cmd.AppendBinary(binary.AppendUvarint(nil, req))
}

// Apply implements raft.FSM. A log entry that does not decode is a bug in
// the writer (the leader encoded it); it is answered with the error and
// changes nothing, on every replica alike.
func (f *FSM) Apply(l *raft.Log) any {
	if l.Type != raft.LogCommand {
		return nil
	}
	req, n := binary.Uvarint(l.Data)
	if n <= 0 {
		return Response{Err: errors.New("ha: log entry without a request number")}
	}
	cmd, err := durable.DecodeCommand(l.Data[n:])
	if err != nil {
		return Response{Err: err}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if req <= f.lastReq {
		r := Response{Duplicate: true}
		if req == f.lastReq {
			r = f.lastResp
			r.Duplicate = true
		}
		return r
	}
	res, err := f.cluster.Apply(cmd)
	f.lastReq, f.lastResp = req, Response{Result: res, Err: err}
	return f.lastResp
}

// Snapshot implements raft.FSM. raft calls it between two Applies; the
// state is written out here (the last request number, then the Cluster's
// snapshot), so Persist can run while later commands are applied.
func (f *FSM) Snapshot() (raft.FSMSnapshot, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var buf bytes.Buffer
	buf.Write(binary.LittleEndian.AppendUint64(nil, f.lastReq))
	if err := f.cluster.WriteSnapshot(&buf); err != nil {
		return nil, err
	}
	return snapshot(buf.Bytes()), nil
}

// Restore implements raft.FSM: the replica's state is replaced by the
// snapshot's, the Cluster built from the replica's Config.
func (f *FSM) Restore(rc io.ReadCloser) error {
	defer rc.Close()
	br := bufio.NewReaderSize(rc, 256<<10)
	var req [8]byte
	if _, err := io.ReadFull(br, req[:]); err != nil {
		return fmt.Errorf("ha: snapshot: %w", err)
	}
	c, err := durable.Restore(br, f.cfg)
	if err != nil {
		return err
	}
	f.mu.Lock()
	f.cluster, f.lastReq, f.lastResp = c, binary.LittleEndian.Uint64(req[:]), Response{}
	f.mu.Unlock()
	f.restores.Add(1)
	return nil
}

type snapshot []byte

// Persist writes the snapshot taken by FSM.Snapshot to raft's sink.
func (s snapshot) Persist(sink raft.SnapshotSink) error {
	if _, err := sink.Write(s); err != nil {
		sink.Cancel()
		return err
	}
	return sink.Close()
}

// Release has nothing to free: the bytes are garbage collected.
func (s snapshot) Release() {}

// Replica is one Berth replica: a raft node with its FSM, in-memory log,
// stable and snapshot stores, and an in-memory transport.
type Replica struct {
	ID    raft.ServerID
	Addr  raft.ServerAddress
	FSM   *FSM
	Raft  *raft.Raft
	trans *raft.InmemTransport
	logs  *raft.InmemStore
	snaps *raft.InmemSnapshotStore
}

// Group is a set of replicas wired together over raft's in-memory
// transport, in one process: the test and demo harness.
type Group struct {
	mu       sync.Mutex
	cfg      durable.Config
	raftConf func(id raft.ServerID) *raft.Config
	Replicas []*Replica
	Timeout  time.Duration
	req      uint64 // the last request number sent
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

// NewGroup starts n replicas of a cluster built from cfg and bootstraps
// them as one raft configuration.
func NewGroup(n int, cfg durable.Config) (*Group, error) {
	g := &Group{cfg: cfg, raftConf: RaftConfig, Timeout: 10 * time.Second}
	var servers []raft.Server
	for i := range n {
		id := raft.ServerID(fmt.Sprintf("berth%d", i+1))
		servers = append(servers, raft.Server{ID: id, Address: raft.ServerAddress(id)})
	}
	for _, s := range servers {
		r := &Replica{ID: s.ID, Addr: s.Address, logs: raft.NewInmemStore(), snaps: raft.NewInmemSnapshotStore()}
		// The transport serves only to encode the peers here; start makes
		// the replica's own.
		_, t := raft.NewInmemTransport(s.Address)
		if err := raft.BootstrapCluster(g.raftConf(s.ID), r.logs, r.logs, r.snaps, t, raft.Configuration{Servers: servers}); err != nil {
			return nil, err
		}
		t.Close()
		g.Replicas = append(g.Replicas, r)
	}
	for _, r := range g.Replicas {
		if err := g.start(r); err != nil {
			g.Shutdown()
			return nil, err
		}
	}
	return g, nil
}

// start (re)starts a replica's raft node on its stores with a fresh FSM,
// as a process restart would, and connects it to the running replicas.
func (g *Group) start(r *Replica) error {
	fsm, err := NewFSM(g.cfg)
	if err != nil {
		return err
	}
	_, t := raft.NewInmemTransport(r.Addr)
	g.mu.Lock()
	for _, o := range g.Replicas {
		if o == r || o.trans == nil {
			continue
		}
		t.Connect(o.Addr, o.trans)
		o.trans.Connect(r.Addr, t)
	}
	r.trans, r.FSM = t, fsm
	g.mu.Unlock()
	rf, err := raft.NewRaft(g.raftConf(r.ID), fsm, r.logs, r.logs, r.snaps, t)
	if err != nil {
		return err
	}
	r.Raft = rf
	return nil
}

// Stop shuts a replica down and cuts it off, as a crash would; its stores
// are kept, so [Group.Restart] brings it back.
func (g *Group) Stop(r *Replica) error {
	g.mu.Lock()
	for _, o := range g.Replicas {
		if o != r && o.trans != nil {
			o.trans.Disconnect(r.Addr)
		}
	}
	if r.trans != nil {
		r.trans.DisconnectAll()
	}
	t := r.trans
	r.trans = nil
	g.mu.Unlock()
	err := r.Raft.Shutdown().Error()
	if t != nil {
		t.Close()
	}
	return err
}

// Restart starts a stopped replica again with a fresh FSM: raft restores
// it from its own latest snapshot, then the leader sends the entries it
// missed, or its snapshot when they were compacted.
func (g *Group) Restart(r *Replica) error { return g.start(r) }

// Shutdown stops every replica.
func (g *Group) Shutdown() {
	for _, r := range g.Replicas {
		if r.Raft != nil && r.trans != nil {
			g.Stop(r)
		}
	}
}

// Leader waits for a leader among the running replicas and returns it.
func (g *Group) Leader() (*Replica, error) {
	deadline := time.Now().Add(g.Timeout)
	for time.Now().Before(deadline) {
		g.mu.Lock()
		for _, r := range g.Replicas {
			if r.trans != nil && r.Raft.State() == raft.Leader {
				g.mu.Unlock()
				return r, nil
			}
		}
		g.mu.Unlock()
		time.Sleep(10 * time.Millisecond)
	}
	return nil, errors.New("ha: no leader elected")
}

// Apply sends a command through the raft log from the current leader and
// returns its result once it is committed and applied on the leader:
// then it is acknowledged, held by a majority of replicas. It returns the
// durable call's own error second and a failure to commit third. When
// the leader is lost during the call, Apply waits for the next leader and
// sends the same request again; the FSMs apply it once whichever way it
// went. A Group is one client: its requests are numbered in order.
func (g *Group) Apply(cmd durable.Command) (durable.Result, error, error) {
	g.mu.Lock()
	g.req++
	req := g.req
	g.mu.Unlock()
	b, err := Entry(req, cmd)
	if err != nil {
		return durable.Result{}, nil, err
	}
	deadline := time.Now().Add(g.Timeout)
	for {
		l, err := g.Leader()
		if err != nil {
			return durable.Result{}, nil, err
		}
		f := l.Raft.Apply(b, g.Timeout)
		err = f.Error()
		if err == nil {
			resp := f.Response().(Response)
			return resp.Result, resp.Err, nil
		}
		retry := errors.Is(err, raft.ErrLeadershipLost) || errors.Is(err, raft.ErrNotLeader) ||
			errors.Is(err, raft.ErrLeadershipTransferInProgress) || errors.Is(err, raft.ErrRaftShutdown) ||
			errors.Is(err, raft.ErrEnqueueTimeout)
		if !retry || time.Now().After(deadline) {
			return durable.Result{}, nil, err
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// WaitApplied waits until every running replica has applied seq commands.
func (g *Group) WaitApplied(seq uint64) error {
	deadline := time.Now().Add(g.Timeout)
	for time.Now().Before(deadline) {
		done := true
		g.mu.Lock()
		for _, r := range g.Replicas {
			if r.trans != nil && r.FSM.Cluster().Seq() < seq {
				done = false
			}
		}
		g.mu.Unlock()
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
