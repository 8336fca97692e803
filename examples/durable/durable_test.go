package durable

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/examples/durable/journal"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/queue"
)

// The crash test re-executes the test binary as a child that runs a
// journaled workload until it is killed; these variables tell it what to
// run.
const (
	envCrashDir  = "BERTH_DURABLE_CRASH_DIR"
	envCrashSeed = "BERTH_DURABLE_CRASH_SEED"
	envCrashKind = "BERTH_DURABLE_CRASH_KIND"
)

func TestMain(m *testing.M) {
	if dir := os.Getenv(envCrashDir); dir != "" {
		os.Exit(crashChild(dir))
	}
	os.Exit(m.Run())
}

var kinds = []SchedulerKind{Capacity, Fair}

func demo(t testing.TB, k SchedulerKind) Config {
	t.Helper()
	cfg, err := DemoConfig(k)
	require.NoError(t, err)
	return cfg
}

// state is what two Clusters must agree on: the snapshot bytes and the
// schedulers' and the plans' views.
func state(t testing.TB, c *Cluster) ([]byte, any) {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, c.WriteSnapshot(&buf))
	var view []any
	if c.Capacity() != nil {
		view = append(view, c.Capacity().Snapshot())
	} else {
		view = append(view, c.Fair().Snapshot())
	}
	if c.Reservations() != nil {
		for _, p := range c.Reservations().Plans() {
			l, err := c.Reservations().List(plan.ListRequest{Queue: p.QueueName(), Start: 0, End: -1, IncludeAllocations: true})
			require.NoError(t, err)
			view = append(view, l)
		}
	}
	view = append(view, c.Seq(), c.Now())
	return buf.Bytes(), view
}

func assertSameState(t testing.TB, want, got *Cluster, msg string) {
	t.Helper()
	ws, wv := state(t, want)
	gs, gv := state(t, got)
	assert.True(t, bytes.Equal(ws, gs), "%s: snapshot bytes differ (%d vs %d bytes)", msg, len(ws), len(gs))
	assert.True(t, reflect.DeepEqual(wv, gv), "%s: scheduler or plan state differs", msg)
}

// sameResult compares two results of the same command.
func sameResult(t testing.TB, want, got Result, werr, gerr error, msg string) {
	t.Helper()
	if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
		t.Fatalf("%s: errors differ: %v vs %v", msg, werr, gerr)
	}
	if !reflect.DeepEqual(want, got) {
		t.Fatalf("%s: results differ:\n%+v\n%+v", msg, want, got)
	}
}

func TestCommandsRoundTrip(t *testing.T) {
	def := &plan.Definition{Arrival: 10, Deadline: 5000, Name: "d", Priority: -3, Period: 0, Interpreter: plan.ROrder,
		Stages: []plan.Stage{{Capability: berth.NewWithExtras(1024, 1, berth.Quantity{Name: "yarn.io/gpu", Value: 2}), Containers: 3, Concurrency: 1, Duration: 100}}}
	id := plan.ReservationID{ClusterTimestamp: 17, Sequence: 4}
	cmds := []Command{
		AdvanceClock{To: -5}, AdvanceClock{To: 1 << 40},
		AddNode{Node: queue.NodeSpec{ID: "n1", Rack: "/r", Capability: berth.New(8192, 8)}},
		RemoveNode{ID: "n1"},
		Heartbeat{Node: "n1"}, Heartbeat{Node: "n2", Completed: []queue.ContainerID{1, 1 << 60}},
		SubmitApp{Spec: queue.AppSpec{ID: "a", Queue: "q", User: "u", Name: "nm", Groups: []string{}, Priority: -2, Tags: []string{"x", "y"}, ReservationID: "r", AMResource: berth.New(1, 1)}},
		SubmitApp{Spec: queue.AppSpec{ID: "b", Groups: []string{"g1", "g2"}}},
		Allocate{App: "a", Asks: []queue.Ask{{Priority: 1, ResourceName: "*", Capability: berth.New(1024, 1), Count: 3, StrictLocality: true}}, Release: []queue.ContainerID{9}},
		Allocate{App: "a"},
		FinishApp{App: "a"}, KillApp{App: "b"}, KillContainer{ID: 77},
		NewReservationID{},
		SubmitReservation{Request: plan.SubmissionRequest{Queue: "dedicated", ID: id, Definition: def, User: "u"}},
		SubmitReservation{Request: plan.SubmissionRequest{Queue: "dedicated", ID: id}},
		UpdateReservation{Request: plan.UpdateRequest{ID: id, Definition: def, User: "u"}},
		DeleteReservation{Request: plan.DeleteRequest{ID: id, User: "u"}},
		RunFollower{}, PreemptionRound{},
		ReloadConfig{File: []byte("<allocations/>")},
		MoveApp{App: "a", Target: "root.b"},
	}
	for _, c := range cmds {
		b, err := c.AppendBinary(nil)
		require.NoError(t, err)
		got, err := DecodeCommand(b)
		require.NoError(t, err, "%T", c)
		assert.Equal(t, c, got, "%T", c)
		assert.Equal(t, c.Kind(), got.Kind())
		// Every cut is refused with a typed error, never half-read.
		for cut := 0; cut < len(b); cut++ {
			_, err := DecodeCommand(b[:cut])
			assert.ErrorIs(t, err, berth.ErrCorruptState, "%T cut at %d", c, cut)
		}
		_, err = DecodeCommand(append(b, 0))
		assert.ErrorIs(t, err, berth.ErrCorruptState, "%T with a trailing byte", c)
	}
	_, err := DecodeCommand([]byte{CommandVersion + 1, byte(KindAddNode)})
	assert.ErrorIs(t, err, berth.ErrUnsupportedVersion)
	_, err = DecodeCommand([]byte{CommandVersion, 200})
	assert.ErrorIs(t, err, berth.ErrCorruptState)
	var ce *CommandError
	assert.True(t, errors.As(err, &ce))
}

// TestWorkloadRoundTrip: every command of long random streams encodes and
// decodes to itself.
func TestWorkloadRoundTrip(t *testing.T) {
	for _, k := range kinds {
		c, err := New(demo(t, k))
		require.NoError(t, err)
		w := smallWorkload(7, k)
		seen := map[Kind]bool{}
		for range 20000 {
			cmd := w.Next()
			seen[cmd.Kind()] = true
			b, err := cmd.AppendBinary(nil)
			require.NoError(t, err)
			got, err := DecodeCommand(b)
			require.NoError(t, err)
			require.Equal(t, cmd, got)
			w.Observe(c.Apply(cmd))
		}
		for kind := KindAdvanceClock; kind <= KindMoveApp; kind++ {
			if kind == KindReloadConfig {
				continue // rare: one in about 500 rounds
			}
			assert.True(t, seen[kind], "%s: the workload issues %s", k, kind)
		}
	}
}

func TestApplyRefusals(t *testing.T) {
	c, err := New(demo(t, Capacity))
	require.NoError(t, err)
	_, err = c.Apply(AdvanceClock{To: 100})
	require.NoError(t, err)
	_, err = c.Apply(AdvanceClock{To: 50})
	assert.ErrorIs(t, err, berth.ErrInvalidArgument, "the clock never goes back")
	assert.Equal(t, berth.Time(100), c.Now())
	_, err = c.Apply(nil)
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)
	_, err = c.Apply(RemoveNode{ID: "nope"})
	assert.Error(t, err)
	assert.Equal(t, uint64(3), c.Seq(), "refused calls count: replay refuses them again")

	noPlans := demo(t, Capacity)
	noPlans.Plans = nil
	c, err = New(noPlans)
	require.NoError(t, err)
	_, err = c.Apply(NewReservationID{})
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)
	for _, cmd := range []Command{SubmitReservation{}, UpdateReservation{}, DeleteReservation{}} {
		_, err = c.Apply(cmd)
		var ce *CommandError
		require.ErrorAs(t, err, &ce, "%s without plans", cmd.Kind())
		assert.ErrorIs(t, err, berth.ErrInvalidArgument)
		assert.Equal(t, cmd.Kind(), ce.Kind)
		assert.Equal(t, "Config.Plans", ce.Field)
	}
	r, err := c.Apply(RunFollower{})
	assert.NoError(t, err)
	assert.Empty(t, r.Follower)

	_, err = New(Config{})
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)
}

func TestSnapshotRestoreContinue(t *testing.T) {
	for _, k := range kinds {
		cfg := demo(t, k)
		a, err := New(cfg)
		require.NoError(t, err)
		w := smallWorkload(11, k)
		for range 3000 {
			w.Observe(a.Apply(w.Next()))
		}
		var buf bytes.Buffer
		require.NoError(t, a.WriteSnapshot(&buf))
		b, err := Restore(bytes.NewReader(buf.Bytes()), cfg)
		require.NoError(t, err)
		assertSameState(t, a, b, k.String()+" restored")
		for i := range 3000 {
			cmd := w.Next()
			ra, ea := a.Apply(cmd)
			rb, eb := b.Apply(cmd)
			sameResult(t, ra, rb, ea, eb, fmt.Sprintf("%s command %d after restore", k, i))
			w.Observe(ra, ea)
		}
		assertSameState(t, a, b, k.String()+" after 3000 more commands")

		// Corruption and mismatches are refused.
		snap := buf.Bytes()
		for _, cut := range []int{0, 10, len(snap) / 2, len(snap) - 1} {
			_, err := Restore(bytes.NewReader(snap[:cut]), cfg)
			assert.ErrorIs(t, err, berth.ErrCorruptState, "cut at %d", cut)
		}
		flipped := bytes.Clone(snap)
		flipped[len(flipped)/2] ^= 0x10
		_, err = Restore(bytes.NewReader(flipped), cfg)
		assert.ErrorIs(t, err, berth.ErrCorruptState)
		other := demo(t, Capacity)
		if k == Capacity {
			other = demo(t, Fair)
		}
		_, err = Restore(bytes.NewReader(snap), other)
		assert.ErrorIs(t, err, berth.ErrInvalidArgument)
	}
}

// TestJournalReplayProperty: random command streams applied directly and
// through a journaled Store that is checkpointed, closed and recovered at
// random points give identical results and identical final states, for
// every sync mode.
func TestJournalReplayProperty(t *testing.T) {
	for _, k := range kinds {
		for seed := uint64(1); seed <= 3; seed++ {
			mode := journal.SyncMode(seed % 3)
			t.Run(fmt.Sprintf("%s/seed%d/mode%d", k, seed, mode), func(t *testing.T) {
				cfg := demo(t, k)
				opts, _ := quick() // replay is the subject, not the disk
				opts.Sync, opts.SyncEvery, opts.SegmentBytes = mode, 16, 32<<10
				dir := t.TempDir()
				direct, err := New(cfg)
				require.NoError(t, err)
				st, err := Open(dir, cfg, opts)
				require.NoError(t, err)
				rng := rand.New(rand.NewPCG(seed, 99))
				w := smallWorkload(seed, k)
				for i := range 4000 {
					cmd := w.Next()
					rd, ed := direct.Apply(cmd)
					rs, es := st.Apply(cmd)
					sameResult(t, rd, rs, ed, es, fmt.Sprintf("command %d", i))
					w.Observe(rd, ed)
					switch rng.IntN(400) {
					case 0:
						require.NoError(t, st.Checkpoint())
					case 1:
						require.NoError(t, st.Close())
						st, err = Open(dir, cfg, opts)
						require.NoError(t, err)
						assertSameState(t, direct, st.Cluster(), fmt.Sprintf("recovered after command %d", i))
					}
				}
				require.NoError(t, st.Close())
				st, err = Open(dir, cfg, opts)
				require.NoError(t, err)
				defer st.Close()
				assertSameState(t, direct, st.Cluster(), "recovered at the end")
			})
		}
	}
}

// crashChild runs a journaled workload with a sync on every command,
// checkpointing now and then, and prints the sequence number of each
// acknowledged command, until it is killed. A killed process loses what
// it had not handed to the kernel, not what it had not fsynced, so the
// child does not wait for the disk.
func crashChild(dir string) int {
	seed, _ := strconv.ParseUint(os.Getenv(envCrashSeed), 10, 64)
	kind := SchedulerKind(map[string]uint8{"capacity": 1, "fair": 2}[os.Getenv(envCrashKind)])
	cfg, err := DemoConfig(kind)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	opts, _ := quick()
	opts.Sync = journal.SyncAlways
	st, err := Open(dir, cfg, opts)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	w := smallWorkload(seed, kind)
	out := bufio.NewWriter(os.Stdout)
	for i := 0; ; i++ {
		r, err := st.Apply(w.Next())
		if r.Seq == 0 {
			fmt.Fprintln(os.Stderr, "journal:", err)
			return 2
		}
		w.Observe(r, err)
		fmt.Fprintf(out, "ack %d\n", r.Seq)
		out.Flush()
		if i%700 == 699 {
			if err := st.Checkpoint(); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 2
			}
		}
	}
}

// TestCrashRecovery kills a child process (SIGKILL) at random points of a
// run with fsync on, recovers its journal, and compares with a run that
// was not interrupted: the recovered cluster holds at least every
// acknowledged command, is in exactly the state of the uninterrupted run
// after the same commands, and decides the rest of the stream the same.
func TestCrashRecovery(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for round := range 4 {
		k := kinds[round%2]
		seed := uint64(100 + round)
		dir := t.TempDir()
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), envCrashDir+"="+dir, envCrashSeed+"="+strconv.FormatUint(seed, 10), envCrashKind+"="+k.String())
		stdout, err := cmd.StdoutPipe()
		require.NoError(t, err)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		require.NoError(t, cmd.Start())
		killAt := 200 + rng.IntN(2500)
		sc := bufio.NewScanner(stdout)
		var acked uint64
		for sc.Scan() {
			v, err := strconv.ParseUint(strings.TrimPrefix(sc.Text(), "ack "), 10, 64)
			require.NoError(t, err)
			acked = v
			if int(acked) >= killAt {
				break
			}
		}
		// Let it run a little past the read point, then kill it mid-write.
		time.Sleep(time.Duration(rng.IntN(3000)) * time.Microsecond)
		require.NoError(t, cmd.Process.Kill())
		_ = cmd.Wait()
		require.Greater(t, acked, uint64(0), "child: %s", stderr.String())

		cfg := demo(t, k)
		st, err := Open(dir, cfg, journal.Options{Sync: journal.SyncAlways, SegmentBytes: 1 << 20})
		require.NoError(t, err, "recovery after kill at ~%d", acked)
		got := st.Cluster().Seq()
		assert.GreaterOrEqual(t, got, acked, "every acknowledged command survives")

		ref, err := New(cfg)
		require.NoError(t, err)
		w := smallWorkload(seed, k)
		for range got {
			w.Observe(ref.Apply(w.Next()))
		}
		assertSameState(t, ref, st.Cluster(), fmt.Sprintf("%s: recovered %d commands (acked %d)", k, got, acked))
		for i := range 500 {
			c := w.Next()
			rr, er := ref.Apply(c)
			rs, es := st.Apply(c)
			sameResult(t, rr, rs, er, es, fmt.Sprintf("command %d after recovery", got+uint64(i)+1))
			w.Observe(rr, er)
		}
		require.NoError(t, st.Close())
	}
}

// TestSnapshotLayout: the stream is the header and then the parts' own
// snapshots, each readable by its package on its own.
func TestSnapshotLayout(t *testing.T) {
	for _, k := range kinds {
		c, err := New(demo(t, k))
		require.NoError(t, err)
		w := smallWorkload(3, k)
		for range 500 {
			w.Observe(c.Apply(w.Next()))
		}
		var buf bytes.Buffer
		require.NoError(t, c.WriteSnapshot(&buf))
		// Each part starts with the format's magic, the format version and
		// its kind (a length byte and the name, for these short kinds).
		var kindsSeen []string
		data := buf.Bytes()
		for i := 0; ; {
			j := bytes.Index(data[i:], []byte("BERTHSS\x00"))
			if j < 0 {
				break
			}
			at := i + j + 9
			n := int(data[at])
			kindsSeen = append(kindsSeen, string(data[at+1:at+1+n]))
			i = at + 1 + n
		}
		// Two snapshots back to back in one stream: each restore reads
		// exactly its own.
		br := bufio.NewReader(bytes.NewReader(append(bytes.Clone(data), data...)))
		for range 2 {
			r, err := Restore(br, demo(t, k))
			require.NoError(t, err)
			assert.Equal(t, c.Seq(), r.Seq())
		}
		_, err = br.ReadByte()
		assert.ErrorIs(t, err, io.EOF, "nothing is left after the second snapshot")
		want := []string{SnapshotKind, "plan.System", "capacity.Scheduler", "follower.Follower", "preempt.Proportional"}
		if k == Fair {
			want = []string{SnapshotKind, "plan.System", "fair.Scheduler", "follower.Follower", "preempt.FairPreemptor"}
		}
		assert.Equal(t, want, kindsSeen)
	}
}

// smallWorkload is a workload on a dozen nodes, so that a few thousand
// commands hold many rounds (every kind of command, many follower runs and
// preemption rounds).
func smallWorkload(seed uint64, k SchedulerKind) *Workload {
	w := NewWorkload(seed, k)
	w.Nodes, w.Apps = 12, 10
	return w
}

// TestRestoreRefusesUnknownScheduler: a sound header and a Config that
// agree on a scheduler kind New refuses give an error, not a Cluster
// without a scheduler (whose first command would panic).
func TestRestoreRefusesUnknownScheduler(t *testing.T) {
	const bogus = SchedulerKind(7)
	var buf bytes.Buffer
	e := berth.NewStateEncoder(&buf, SnapshotKind, snapshotVersion)
	e.Uvarint(uint64(bogus))
	e.Len(0)
	e.Bool(false)
	e.Uvarint(0)
	e.Varint(0)
	e.Uvarint(modeParts)
	require.NoError(t, e.Finish())
	c, err := Restore(&buf, Config{Scheduler: bogus})
	assert.Nil(t, c)
	var fe *berth.FieldError
	require.ErrorAs(t, err, &fe)
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)
	assert.Equal(t, "Config.Scheduler", fe.Field)
}
