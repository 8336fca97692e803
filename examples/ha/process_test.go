package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/berthsched/berth/examples/durable"
)

var (
	processKills     = flag.Int("process.kills", 2, "leader kills in TestProcessLeaderKill (the failover figure: e.g. 30)")
	processHeartbeat = flag.Duration("process.heartbeat", 0, "the replica processes' raft heartbeat and election timeout (lease: half); 0 keeps the loopback defaults")
)

// processArgsEnv makes the test binary a replica process: the replica
// processes of the tests are this binary, so no separate build is needed,
// and they run the command's own entry point (runMain) with the
// arguments given, exactly as `go run . --id … --peers …` does.
const processArgsEnv = "BERTH_HA_PROCESS_ARGS"

func TestMain(m *testing.M) {
	if args, ok := os.LookupEnv(processArgsEnv); ok {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		err := runMain(ctx, strings.Split(args, "\x1f"), os.Stdout, os.Stderr)
		stop()
		if err != nil {
			fmt.Fprintln(os.Stderr, "ha:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// procCluster is replica processes on loopback.
type procCluster struct {
	t      *testing.T
	dir    string
	peers  string
	ids    []raft.ServerID
	https  map[raft.ServerID]string
	procs  map[raft.ServerID]*exec.Cmd
	remote *Remote
}

// freePorts returns n loopback ports free a moment ago.
func freePorts(t *testing.T, n int) []int {
	var ls []net.Listener
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	for _, l := range ls {
		l.Close()
	}
	return ports
}

func startProcCluster(t *testing.T, n int) *procCluster {
	ports := freePorts(t, 2*n)
	pc := &procCluster{t: t, dir: t.TempDir(), https: map[raft.ServerID]string{}, procs: map[raft.ServerID]*exec.Cmd{}}
	var peers []string
	for i := range n {
		id := raft.ServerID(fmt.Sprintf("berth%d", i+1))
		pc.ids = append(pc.ids, id)
		peers = append(peers, fmt.Sprintf("%s=127.0.0.1:%d", id, ports[2*i]))
		pc.https[id] = fmt.Sprintf("127.0.0.1:%d", ports[2*i+1])
	}
	pc.peers = strings.Join(peers, ",")
	pc.remote = NewRemote(pc.https)
	t.Cleanup(func() {
		for id := range pc.procs {
			pc.kill(id)
		}
		if t.Failed() {
			for _, id := range pc.ids {
				b, _ := os.ReadFile(filepath.Join(pc.dir, string(id)+".log"))
				if len(b) > 4000 {
					b = b[len(b)-4000:]
				}
				t.Logf("%s's log:\n%s", id, b)
			}
		}
	})
	for _, id := range pc.ids {
		pc.start(id)
	}
	return pc
}

// start starts (or restarts) a replica process on its data directory.
func (pc *procCluster) start(id raft.ServerID) {
	args := []string{"--id", string(id), "--peers", pc.peers, "--http", pc.https[id],
		"--data-dir", filepath.Join(pc.dir, string(id))}
	if hb := *processHeartbeat; hb > 0 {
		args = append(args, "--heartbeat-timeout", hb.String(), "--election-timeout", hb.String(), "--lease-timeout", (hb / 2).String())
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), processArgsEnv+"="+strings.Join(args, "\x1f"))
	logf, err := os.OpenFile(filepath.Join(pc.dir, string(id)+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	require.NoError(pc.t, err)
	defer logf.Close()
	cmd.Stdout, cmd.Stderr = logf, logf
	require.NoError(pc.t, cmd.Start())
	pc.procs[id] = cmd
}

// kill sends SIGKILL and reaps the process.
func (pc *procCluster) kill(id raft.ServerID) {
	cmd := pc.procs[id]
	if cmd == nil {
		return
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	delete(pc.procs, id)
}

// leader polls the running replicas until one says it leads.
func (pc *procCluster) leader(timeout time.Duration) raft.ServerID {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		for id := range pc.procs {
			if st, err := pc.remote.Status(id, time.Second); err == nil && st.State == raft.Leader.String() {
				return id
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	pc.t.Fatal("no leader among the processes")
	return ""
}

// term is the highest raft term a running replica reports.
func (pc *procCluster) term() uint64 {
	var term uint64
	for id := range pc.procs {
		if st, err := pc.remote.Status(id, time.Second); err == nil {
			term = max(term, st.Term)
		}
	}
	return term
}

// waitAgree waits until every running replica has applied exactly the
// state a linearizable read returns, and returns that read.
func (pc *procCluster) waitAgree(timeout time.Duration) ReadState {
	deadline := time.Now().Add(timeout)
	for {
		want, err := pc.remote.Read(time.Until(deadline))
		require.NoError(pc.t, err)
		ok := true
		for id := range pc.procs {
			st, err := pc.remote.Status(id, time.Second)
			if err != nil || st.Applied != want.Applied || st.Digest != want.Digest || st.Ledger != want.Ledger {
				ok = false
			}
		}
		if ok {
			return want
		}
		require.True(pc.t, time.Now().Before(deadline), "the replicas did not agree")
		time.Sleep(20 * time.Millisecond)
	}
}

// stream applies a workload through one remote client until stop, and
// records each acknowledgement and its time.
type stream struct {
	mu     sync.Mutex
	log    []acked
	times  []time.Time
	served []raft.ServerID // the replica that acknowledged
	err    error
}

func (s *stream) run(c *Client, rem *Remote, w *durable.Workload, stop <-chan struct{}) {
	for {
		select {
		case <-stop:
			return
		default:
		}
		cmd := w.Next()
		r, callErr, err := c.Apply(cmd)
		now := time.Now()
		s.mu.Lock()
		if err != nil {
			s.err = err
			s.mu.Unlock()
			return
		}
		s.log = append(s.log, acked{cmd, r, callErr})
		s.times = append(s.times, now)
		s.served = append(s.served, rem.ServedBy())
		s.mu.Unlock()
		w.Observe(r, callErr)
	}
}

// firstAckAfter waits for the first acknowledgement after t0 by another
// replica than old (an answer of the old leader sent before it died may
// arrive after t0).
func (s *stream) firstAckAfter(t *testing.T, t0 time.Time, old raft.ServerID, timeout time.Duration) time.Time {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		s.mu.Lock()
		err := s.err
		i, _ := slices.BinarySearchFunc(s.times, t0, func(a, b time.Time) int { return a.Compare(b) })
		for i < len(s.times) && s.served[i] == old {
			i++
		}
		var at time.Time
		if i < len(s.times) {
			at = s.times[i]
		}
		s.mu.Unlock()
		require.NoError(t, err)
		if !at.IsZero() {
			return at
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatal("nothing acknowledged after the kill")
	return time.Time{}
}

func (s *stream) acks() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.log)
}

func (s *stream) waitAcks(t *testing.T, n int) {
	deadline := time.Now().Add(30 * time.Second)
	for s.acks() < n {
		s.mu.Lock()
		err := s.err
		s.mu.Unlock()
		require.NoError(t, err)
		require.True(t, time.Now().Before(deadline), "the stream stalled at %d acknowledgements", s.acks())
		time.Sleep(5 * time.Millisecond)
	}
}

// TestProcessLeaderKill starts three replica processes on loopback (raft
// over TCP, logs and snapshots on disk), streams commands through the
// HTTP client, and SIGKILLs the leader mid-stream (-process.kills times):
// the others elect a leader and go on, the killed one restarts from its
// data directory and catches up; at the end every replica is in the state
// of a reference that applied exactly the acknowledged commands. It
// measures the failover (leader killed → first command acknowledged by
// the new leader): run with -process.kills=30 -v for the figure.
func TestProcessLeaderKill(t *testing.T) {
	pc := startProcCluster(t, 3)
	pc.leader(15 * time.Second)
	c, err := pc.remote.NewClient(15 * time.Second)
	require.NoError(t, err)
	cfg, err := durable.DemoConfig(durable.Capacity)
	require.NoError(t, err)

	var s stream
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.run(c, pc.remote, smallWorkload(91, durable.Capacity), stop)
	}()
	stopStream := sync.OnceFunc(func() {
		close(stop)
		<-done
	})
	defer stopStream()
	s.waitAcks(t, 60)
	term0 := pc.term()
	var failovers []time.Duration
	for range *processKills {
		l := pc.leader(10 * time.Second)
		t0 := time.Now()
		pc.kill(l)
		at := s.firstAckAfter(t, t0, l, 20*time.Second)
		failovers = append(failovers, at.Sub(t0))
		nl := pc.leader(10 * time.Second)
		assert.NotEqual(t, l, nl)
		s.waitAcks(t, s.acks()+30) // the new leader goes on
		pc.start(l)
		pc.waitAgree(20 * time.Second) // the restarted one caught up
		s.waitAcks(t, s.acks()+10)
	}
	stopStream()
	require.NoError(t, s.err)

	final := pc.waitAgree(20 * time.Second)
	want, seq := replayAcked(t, cfg, s.log)
	assert.Equal(t, seq, final.Applied, "exactly the acknowledged commands were applied")
	assert.Equal(t, want, final.Digest)

	slices.Sort(failovers)
	t.Logf("failover over %d leader kills (leader killed → first acknowledged command): median %v, p99 %v, min %v, max %v; %d elections in all; %v",
		len(failovers), percentile(failovers, 50), percentile(failovers, 99), failovers[0], failovers[len(failovers)-1], pc.term()-term0, failovers)
	for _, f := range failovers {
		assert.Less(t, f, 10*time.Second)
	}
}

// percentile of sorted durations, nearest rank.
func percentile(sorted []time.Duration, p int) time.Duration {
	i := (p*len(sorted)+99)/100 - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

// TestProcessFlags: a replica process refuses incomplete or malformed
// flags with a message naming the flag.
func TestProcessFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--id", "a", "--peers", "a=127.0.0.1"}, "--peers"},
		{[]string{"--id", "a", "--peers", "a"}, "--peers"},
		{[]string{"--id", "b", "--peers", "a=127.0.0.1:1", "--http", "127.0.0.1:2", "--data-dir", t.TempDir()}, "--id"},
		{[]string{"--id", "a", "--peers", "a=127.0.0.1:1", "--data-dir", t.TempDir()}, "--http"},
		{[]string{"--scheduler", "fifo"}, "--scheduler"},
	} {
		err := runMain(context.Background(), tc.args, &strings.Builder{}, &strings.Builder{})
		require.Error(t, err, "%v", tc.args)
		assert.Contains(t, err.Error(), tc.want, "%v", tc.args)
	}
}
