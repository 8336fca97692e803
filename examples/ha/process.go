package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"

	"github.com/berthsched/berth/examples/durable"
)

// ProcessOptions configure one replica process (go run . --id … --peers …).
type ProcessOptions struct {
	ID       raft.ServerID
	RaftAddr string // this replica's raft address (its entry in Peers when empty)
	HTTPAddr string // where clients reach it
	Peers    []raft.Server
	DataDir  string // raft.db (log and stable store) and snapshots/
	// Scheduler is the demo cluster's scheduler; every replica must have
	// the same.
	Scheduler durable.SchedulerKind
	NoSync    bool
	// The raft timeouts: see LoopbackRaftConfig.
	HeartbeatTimeout, ElectionTimeout, LeaderLeaseTimeout time.Duration
	// Log receives the process's own log and raft's warnings.
	Log io.Writer
}

// Loopback timeouts, the defaults of a replica process. A follower starts
// an election when it has heard nothing from the leader for a random time
// between HeartbeatTimeout and twice that; the leader sends heartbeats at
// a tenth of it, so a heartbeat is missed ten times before a failover
// starts. On loopback a round trip takes tens of microseconds, and the
// pauses that matter are the Go runtime's and the scheduler's on a busy
// machine (tens of milliseconds with eight processes on two cores), so
// 250 ms keeps false elections rare while a failover takes a few hundred
// milliseconds: 0.59 s median, 0.85 s p99 over 30 SIGKILLed leaders at
// load 20 on two cores, with no election but those the kills caused.
// 100 ms halved that (0.25 s, 0.46 s) but added five elections nothing
// caused; raft's defaults (1 s, for a network) take 1–3 s. The leader
// steps down after LeaderLeaseTimeout without a majority, well before a
// new leader can be elected.
const (
	LoopbackHeartbeatTimeout   = 250 * time.Millisecond
	LoopbackElectionTimeout    = 250 * time.Millisecond
	LoopbackLeaderLeaseTimeout = 125 * time.Millisecond
)

// LoopbackRaftConfig is a replica process's raft configuration: the
// given timeouts (loopback defaults when zero), commits batched for up to
// 5 ms, a snapshot every 4096 entries (checked every 10 s) keeping 1024
// entries behind it for followers that lag a little.
func LoopbackRaftConfig(o ProcessOptions) *raft.Config {
	c := raft.DefaultConfig()
	c.LocalID = o.ID
	c.HeartbeatTimeout = cmpOr(o.HeartbeatTimeout, LoopbackHeartbeatTimeout)
	c.ElectionTimeout = cmpOr(o.ElectionTimeout, LoopbackElectionTimeout)
	c.LeaderLeaseTimeout = cmpOr(o.LeaderLeaseTimeout, LoopbackLeaderLeaseTimeout)
	c.CommitTimeout = 5 * time.Millisecond
	c.SnapshotThreshold = 4096
	c.SnapshotInterval = 10 * time.Second
	c.TrailingLogs = 1024
	c.Logger = hclog.New(&hclog.LoggerOptions{Name: "raft", Level: hclog.Warn, Output: cmpOr[io.Writer](o.Log, os.Stderr)})
	return c
}

func cmpOr[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// ParsePeers reads id=host:port,… into raft servers (all voters).
func ParsePeers(s string) ([]raft.Server, error) {
	var out []raft.Server
	for _, p := range strings.Split(s, ",") {
		id, addr, ok := strings.Cut(strings.TrimSpace(p), "=")
		if !ok || id == "" || addr == "" {
			return nil, fmt.Errorf("ha: --peers: %q is not id=host:port", p)
		}
		if _, _, err := net.SplitHostPort(addr); err != nil {
			return nil, fmt.Errorf("ha: --peers: %q: %w", p, err)
		}
		out = append(out, raft.Server{Suffrage: raft.Voter, ID: raft.ServerID(id), Address: raft.ServerAddress(addr)})
	}
	return out, nil
}

// RunProcess runs one replica until ctx is done: raft over TCP, its log,
// stable store and snapshots in DataDir (bootstrapped with Peers the first
// time, reopened after), and the HTTP API for clients (see remote.go).
func RunProcess(ctx context.Context, o ProcessOptions) error {
	log := slog.New(slog.NewTextHandler(cmpOr[io.Writer](o.Log, os.Stderr), nil)).With("replica", o.ID)
	if o.RaftAddr == "" {
		for _, p := range o.Peers {
			if p.ID == o.ID {
				o.RaftAddr = string(p.Address)
			}
		}
	}
	if o.RaftAddr == "" || o.HTTPAddr == "" || o.DataDir == "" {
		return errors.New("ha: a replica needs --id (listed in --peers), --http and --data-dir")
	}
	cfg, err := durable.DemoConfig(o.Scheduler)
	if err != nil {
		return err
	}
	st, err := openStores(o.DataDir, o.NoSync)
	if err != nil {
		return err
	}
	defer st.close()
	addr, err := net.ResolveTCPAddr("tcp", o.RaftAddr)
	if err != nil {
		return err
	}
	trans, err := raft.NewTCPTransport(o.RaftAddr, addr, 4, 2*time.Second, cmpOr[io.Writer](o.Log, os.Stderr))
	if err != nil {
		return err
	}
	defer trans.Close()
	rc := LoopbackRaftConfig(o)
	existing, err := raft.HasExistingState(st.logs, st.stable, st.snaps)
	if err != nil {
		return err
	}
	if !existing {
		if err := raft.BootstrapCluster(rc, st.logs, st.stable, st.snaps, trans, raft.Configuration{Servers: o.Peers}); err != nil {
			return err
		}
	}
	fsm, err := NewFSM(cfg)
	if err != nil {
		return err
	}
	rf, err := raft.NewRaft(rc, fsm, st.logs, st.stable, st.snaps, trans)
	if err != nil {
		return err
	}
	defer rf.Shutdown()
	ln, err := net.Listen("tcp", o.HTTPAddr)
	if err != nil {
		return err
	}
	stop := make(chan struct{})
	defer close(stop)
	srv := &http.Server{Handler: (&server{raft: rf, fsm: fsm, id: o.ID, timeout: 5 * time.Second, stop: stop}).handler()}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	log.Info("replica up", "raft", o.RaftAddr, "http", ln.Addr(), "data", o.DataDir, "restarted", existing)
	select {
	case <-ctx.Done():
	case err := <-errc:
		return err
	}
	sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	srv.Shutdown(sctx)
	log.Info("replica stopping")
	return rf.Shutdown().Error()
}

// runMain is the command: with --id, one replica process; without, the
// demo of three replicas in one process.
func runMain(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("ha", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		o         ProcessOptions
		id, peers string
		sched     = fs.String("scheduler", "capacity", "the demo cluster's scheduler: capacity or fair")
	)
	fs.StringVar(&id, "id", "", "run one replica with this raft server id (one of --peers); without it, run the in-process demo")
	fs.StringVar(&peers, "peers", "", "the replicas' raft addresses: id=host:port,…")
	fs.StringVar(&o.RaftAddr, "raft", "", "this replica's raft address (default: its entry in --peers)")
	fs.StringVar(&o.HTTPAddr, "http", "", "where clients reach this replica (host:port)")
	fs.StringVar(&o.DataDir, "data-dir", "", "the replica's raft log, stable store and snapshots")
	fs.BoolVar(&o.NoSync, "no-sync", false, "do not fsync the raft log (safe against a process crash only)")
	fs.DurationVar(&o.HeartbeatTimeout, "heartbeat-timeout", LoopbackHeartbeatTimeout, "raft heartbeat timeout")
	fs.DurationVar(&o.ElectionTimeout, "election-timeout", LoopbackElectionTimeout, "raft election timeout")
	fs.DurationVar(&o.LeaderLeaseTimeout, "lease-timeout", LoopbackLeaderLeaseTimeout, "raft leader lease timeout")
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch *sched {
	case "capacity":
		o.Scheduler = durable.Capacity
	case "fair":
		o.Scheduler = durable.Fair
	default:
		return fmt.Errorf("ha: --scheduler %q: want capacity or fair", *sched)
	}
	if id == "" {
		return run(stdout, o.Scheduler)
	}
	o.ID = raft.ServerID(id)
	var err error
	if o.Peers, err = ParsePeers(peers); err != nil {
		return err
	}
	if o.DataDir != "" {
		o.DataDir = filepath.Clean(o.DataDir)
	}
	o.Log = stderr
	return RunProcess(ctx, o)
}
