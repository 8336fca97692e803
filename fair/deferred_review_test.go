package fair

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/berthsched/berth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// nodeLiveIDs lists the live containers through NodeContainers, which reads
// the scheduler's own records: unlike a Snapshot it charges nothing
// deferred to the shared tree, so the charges stay pending across steps.
func nodeLiveIDs(t *testing.T, s *Scheduler, nodes []string) []ContainerID {
	t.Helper()
	var out []ContainerID
	for _, n := range nodes {
		cs, err := s.NodeContainers(n)
		if err != nil {
			continue // a node the model names but the scheduler refused
		}
		for _, c := range cs {
			out = append(out, c.ID)
		}
	}
	return out
}

// TestDeferredChargesAcrossSaveRestore: the state property test reads a
// Snapshot after every step, which charges the shared tree, so it never
// saves a scheduler with deferred charges pending. Here the operations of
// every kind the state test draws (kills of containers and reservations,
// the preemption protocol, node removal, moves, reloads, reservation
// queues) run on a deferring scheduler and on one charging at once, and
// the deferring one is saved while charges are pending: the restored
// scheduler's books, the original's once read, and the eager one's are the
// same, and all three go on deciding alike.
func TestDeferredChargesAcrossSaveRestore(t *testing.T) {
	seeds := 16
	if testing.Short() || raceEnabled {
		seeds = 4
	}
	pendingAtSave := 0
	for seed := range uint64(seeds) {
		rng := rand.New(rand.NewPCG(seed, 29))
		cfg := stateConfig(rng)
		s, clock := stateScheduler(t, cfg)
		e, eclock := stateScheduler(t, cfg)
		e.eagerAcct = true
		w := &stateWorld{}
		for step := range 400 {
			op := drawOp(rng, w)
			got := op.run(s, clock)
			want := op.run(e, eclock)
			require.Equal(t, want, got, "seed %d step %d %s", seed, step, op.name)
			if op.seen != nil {
				op.seen(w, got)
			}
			w.live = nodeLiveIDs(t, s, w.nodes)
			if step%50 != 49 {
				continue
			}
			if len(s.acctDirty) > 0 {
				pendingAtSave++
			}
			var buf bytes.Buffer
			require.NoError(t, s.SaveState(&buf))
			rclock := berth.NewManualClock(clock.Now())
			r, err := RestoreScheduler(bytes.NewReader(buf.Bytes()), restoreEnv(rclock))
			require.NoError(t, err, "seed %d step %d", seed, step)
			wantTree := e.SnapshotOf(SnapshotTree).Tree
			assert.Equal(t, wantTree, r.SnapshotOf(SnapshotTree).Tree, "seed %d step %d: restored books", seed, step)
			assert.Equal(t, wantTree, s.SnapshotOf(SnapshotTree).Tree, "seed %d step %d: deferred books", seed, step)
			require.NoError(t, r.Check(), "seed %d step %d", seed, step)
			require.NoError(t, s.Check(), "seed %d step %d", seed, step)
			require.NoError(t, e.Check(), "seed %d step %d", seed, step)
			// The restored scheduler decides as the original from here.
			s, clock = r, rclock
		}
	}
	assert.Positive(t, pendingAtSave, "some saves had deferred charges pending")
}

// TestDeferredChargesAtQueueLifecycle runs scripts in which an
// application's charges reach the shared tree (a read), then it releases
// them without a read, and then a queue's life changes: the tree must take
// the releases before it reconfigures or removes the queue. Each script
// runs on a deferring scheduler and on one charging at once; their books,
// read at the end, and their checks must agree, and every container must
// be released in the books.
func TestDeferredChargesAtQueueLifecycle(t *testing.T) {
	const alloc = `<allocations>
<queue name="a"/><queue name="b"/>
<queue name="plan"><reservation/></queue>
</allocations>`
	const asParent = `<allocations>
<queue name="a" type="parent"><queue name="x"/></queue><queue name="b"/>
<queue name="plan"><reservation/></queue>
</allocations>`
	ask := []Ask{{Priority: 1, ResourceName: AnyResource, Capability: berth.New(1024, 1), Count: 2}}
	// run submits id to queue, asks for two containers and places them.
	run := func(t *testing.T, s *Scheduler, id, q, user string) {
		t.Helper()
		_, err := s.SubmitApp(AppSpec{ID: id, Queue: q, User: user})
		require.NoError(t, err)
		_, err = s.Allocate(id, ask, nil)
		require.NoError(t, err)
		s.Update()
		als, err := s.Heartbeat("n", nil)
		require.NoError(t, err)
		require.NotEmpty(t, als, "%s placed", id)
	}
	read := func(s *Scheduler) { s.SnapshotOf(SnapshotTree) }
	// unread requires charges pending in a deferring scheduler.
	unread := func(t *testing.T, s *Scheduler) {
		t.Helper()
		if !s.eagerAcct {
			require.NotEmpty(t, s.acctDirty, "charges pending")
		}
	}
	kind := func(s *Scheduler, path string) string {
		q := s.SnapshotOf(SnapshotQueues).Queue(path)
		switch {
		case q == nil:
			return "none"
		case q.Leaf:
			return "leaf"
		}
		return "parent"
	}
	cases := []struct {
		name   string
		script func(t *testing.T, s *Scheduler)
	}{
		{"ad-hoc queue removed by an update", func(t *testing.T, s *Scheduler) {
			run(t, s, "app1", "adhoc", "u")
			read(s)
			_, err := s.FinishApp("app1")
			require.NoError(t, err)
			unread(t, s)
			s.Update() // root.adhoc is empty: removed
			require.Equal(t, "none", kind(s, "root.adhoc"))
		}},
		{"leaf becomes a parent once empty", func(t *testing.T, s *Scheduler) {
			run(t, s, "app1", "a", "u")
			af, err := ParseAllocationFile([]byte(asParent), ParseOptions{})
			require.NoError(t, err)
			res, err := s.Reload(af)
			require.NoError(t, err)
			require.Equal(t, []string{"root.a"}, res.Deferred)
			read(s)
			_, err = s.KillApp("app1")
			require.NoError(t, err)
			unread(t, s)
			s.Update() // the deferred change happens now
			require.Equal(t, "parent", kind(s, "root.a"))
		}},
		{"reservation queue removed after a kill", func(t *testing.T, s *Scheduler) {
			require.NoError(t, s.AddReservationQueue("plan", "r1"))
			require.NoError(t, s.SetEntitlement("r1", Entitlement{Capacity: 1, MaxCapacity: 1}))
			_, err := s.SubmitApp(AppSpec{ID: "app1", Queue: "plan", User: "u", ReservationID: "r1"})
			require.NoError(t, err)
			_, err = s.Allocate("app1", ask, nil)
			require.NoError(t, err)
			s.Update()
			_, err = s.Heartbeat("n", nil)
			require.NoError(t, err)
			read(s)
			_, err = s.KillApp("app1")
			require.NoError(t, err)
			require.NoError(t, s.SetEntitlement("r1", Entitlement{}))
			unread(t, s)
			require.NoError(t, s.RemoveReservationQueue("r1"))
			require.Equal(t, "none", kind(s, "root.plan.r1"))
		}},
		{"move beside unread charges of the same user", func(t *testing.T, s *Scheduler) {
			run(t, s, "app1", "a", "u")
			run(t, s, "app2", "b", "u")
			read(s)
			run(t, s, "app3", "a", "u")
			run(t, s, "app4", "b", "u")
			unread(t, s)
			_, err := s.MoveApp("app1", "b")
			require.NoError(t, err)
			_, err = s.MoveApp("app4", "a")
			require.NoError(t, err)
			for _, id := range []string{"app1", "app2", "app3", "app4"} {
				_, err = s.FinishApp(id)
				require.NoError(t, err)
			}
		}},
		{"node removed with the containers", func(t *testing.T, s *Scheduler) {
			run(t, s, "app1", "a", "u")
			read(s)
			_, err := s.RemoveNode("n")
			require.NoError(t, err)
			unread(t, s)
			require.NoError(t, s.AddNode(NodeSpec{ID: "n", Rack: "/r", Capability: berth.New(16384, 16)}))
			_, err = s.FinishApp("app1")
			require.NoError(t, err)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var trees []any
			for _, eager := range []bool{false, true} {
				af, err := ParseAllocationFile([]byte(alloc), ParseOptions{})
				require.NoError(t, err)
				cfg := DefaultConfig()
				cfg.Allocation = af
				cfg.Clock = berth.NewManualClock(0)
				s, err := New(cfg)
				require.NoError(t, err)
				s.eagerAcct = eager
				require.NoError(t, s.AddNode(NodeSpec{ID: "n", Rack: "/r", Capability: berth.New(16384, 16)}))
				tc.script(t, s)
				require.NoError(t, s.Check(), "eager %t", eager)
				tree := s.SnapshotOf(SnapshotTree).Tree
				assert.True(t, tree.Root().Usage.Used.IsZero(), "eager %t: every container released in the books", eager)
				trees = append(trees, tree)
			}
			assert.Equal(t, trees[1], trees[0], "deferred books equal eager ones")
		})
	}
}
