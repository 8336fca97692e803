package fair

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// activitySink keeps the activities a scheduler reports.
type activitySink struct {
	queue.NopObserver
	got []Activity
}

func (s *activitySink) ObserveActivity(a Activity) { s.got = append(s.got, a) }

// keyBefore is what a request looked like to the node before a heartbeat.
type keyBefore struct {
	anyCount            int
	anyRelax, rackRelax bool
	rackCount, host     int
	uniq                int
}

// before is what the checks need of the state before a heartbeat.
type before struct {
	keys     map[string]map[int32]keyBefore
	reserved string // the application holding the node's reservation
}

func stateBefore(s *Scheduler, n *node) before {
	b := before{keys: map[string]map[int32]keyBefore{}}
	if n.reserved != nil {
		b.reserved = n.reserved.app.id
	}
	for id, a := range s.apps {
		ks := map[int32]keyBefore{}
		for _, k := range a.asks.Keys() {
			var kb keyBefore
			kb.anyCount, kb.anyRelax = k.AnyAsk()
			kb.rackCount, kb.rackRelax = k.RackAsk(n.Rack)
			kb.host, _ = k.HostAsk(n.ID)
			kb.uniq = k.UniqueLocationAsks()
			ks[k.Priority()] = kb
		}
		b.keys[id] = ks
	}
	return b
}

// checkActivity checks one application's activity of a heartbeat on n
// against the state: a reason holds in the state before the heartbeat or,
// for the limits that only tighten while a heartbeat allocates (usage,
// free room, reservations), in the state after it.
func checkActivity(t *testing.T, s *Scheduler, n *node, b before, act Activity, others bool) {
	t.Helper()
	a := s.apps[act.App]
	require.NotNil(t, a, "%v", act)
	kb, hasKey := b.keys[act.App][act.Priority]
	msg := fmt.Sprintf("%v", act)
	switch act.Reason {
	case queue.ReasonQueueLimit:
		ok := false
		for q := a.q; q != nil; q = q.parent {
			if act.Limited == "" && !q.Usage.Add(act.Resource).FitsIn(q.MaxShare) ||
				q.path == act.Limited && !q.Usage.FitsIn(q.MaxShare) {
				ok = true
			}
		}
		assert.True(t, ok, "no queue at its maximum: %s", msg)
	case queue.ReasonNodeTooSmall:
		assert.False(t, act.Resource.FitsIn(n.Capability), msg)
	case queue.ReasonNodeFull:
		assert.False(t, act.Resource.FitsIn(n.unallocated()), msg)
		assert.True(t, act.Resource.FitsIn(n.Capability), "too small, not full: %s", msg)
	case queue.ReasonAMLimit:
		assert.True(t, a.managedAM && !a.amRunning, msg)
	case queue.ReasonLocality:
		assert.True(t, hasKey && (!kb.anyRelax || !kb.rackRelax), msg)
	case queue.ReasonLocalityDelay:
		assert.True(t, hasKey && kb.uniq > 1 && !(kb.rackCount > 0 && kb.host > 0) && kb.anyRelax, msg)
	case queue.ReasonNoDemand:
		k := a.asks.Key(act.Priority)
		assert.True(t, k == nil || k.Outstanding() <= 0, msg)
	case queue.ReasonReservation:
		assert.True(t, b.reserved != "" && b.reserved != act.App || len(a.reservedOn) > 0, msg)
	case queue.ReasonNodeReserved:
		assert.NotEmpty(t, b.reserved, msg)
	case queue.ReasonOrder:
		assert.True(t, others, "not reached though nobody else got the node: %s", msg)
	case queue.ReasonNone:
		assert.NotEqual(t, queue.Skipped, act.Outcome, "a skip without a reason: %s", msg)
		assert.NotEqual(t, queue.Unreserved, act.Outcome, msg)
	default:
		t.Errorf("a reason the fair scheduler does not give: %s", msg)
	}
}

// checkedHeartbeat runs a recorded heartbeat of node on s (every
// application recorded by name) and the same heartbeat, unrecorded, on
// twin, and checks the record against the decisions.
func checkedHeartbeat(t *testing.T, s, twin *Scheduler, node string, sink *activitySink) {
	n := s.nodes[node]
	b := stateBefore(s, n)
	require.NoError(t, s.RecordHeartbeat(node))
	for id := range s.apps {
		require.NoError(t, s.RecordApp(id, 4))
	}
	sink.got = nil
	als, err := s.Heartbeat(node, nil)
	require.NoError(t, err)
	want, err := twin.Heartbeat(node, nil)
	require.NoError(t, err)
	require.Equal(t, want, als, "recording changes no decision")
	got := map[ContainerID]bool{}
	for _, al := range als {
		got[al.Container.ID] = true
	}
	winners := map[string]bool{}
	for _, act := range sink.got {
		if act.Outcome == queue.Allocated || act.Outcome == queue.Reserved && act.Reason == queue.ReasonNone {
			winners[act.App] = true
		}
	}
	seen := map[ContainerID]bool{}
	for _, act := range sink.got {
		require.Equal(t, node, act.Node)
		require.Empty(t, act.Partition, "the fair scheduler walks the default partition only")
		if act.App == "" {
			continue // a queue skipped: its applications say why
		}
		switch act.Outcome {
		case queue.Allocated:
			assert.True(t, got[act.Container], "an allocation the heartbeat did not return: %v", act)
			assert.Equal(t, queue.ReasonNone, act.Reason, "an allocation with a blocking reason")
			seen[act.Container] = true
		case queue.Reserved:
			if act.Reason == queue.ReasonNone {
				require.NotNil(t, n.reserved, "%v", act)
				assert.Equal(t, act.App, n.reserved.app.id)
			}
		case queue.Unreserved:
			assert.Equal(t, act.App, b.reserved)
		}
		if act.Reason == queue.ReasonOrder || act.Limited != "" {
			assert.False(t, winners[act.App], "an application that got the node was not reached: %v", act)
		}
		others := len(winners) > 0 && !(len(winners) == 1 && winners[act.App])
		checkActivity(t, s, n, b, act, others)
	}
	assert.Len(t, seen, len(als), "every allocation has its activity")
	// Every application that waits and got nothing says why.
	for id, a := range s.apps {
		if isWalkable(a) && !winners[id] {
			atts, err := s.Explain(id, 0)
			require.NoError(t, err)
			require.NotEmpty(t, atts, "application %s waits with no reason", id)
			last := atts[len(atts)-1]
			assert.Equal(t, node, last.Node, "application %s: no activity for this heartbeat", id)
		}
	}
}

// The reasons match the walk's decisions: over random worlds, every
// recorded heartbeat's allocations are its Allocated activities, no
// allocation carries a reason, every application that waits and got
// nothing has a reason consistent with the state, and recording changes
// no decision (a twin without recording decides the same, byte for byte).
func TestReasonsMatchDecisions(t *testing.T) {
	var reasons [32]int
	for seed := range uint64(8) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 41))
			cfg := stateConfig(rng)
			s, clock := stateScheduler(t, cfg)
			twin, clock2 := stateScheduler(t, cfg)
			sink := &activitySink{}
			s.SetObserver(sink)
			w := &stateWorld{}
			for range 400 {
				op := drawOp(rng, w)
				out := op.run(s, clock)
				require.Equal(t, out, op.run(twin, clock2), op.name)
				if op.seen != nil {
					op.seen(w, out)
				}
				w.live = liveIDs(s)
				if len(w.nodes) > 0 && rng.IntN(3) == 0 {
					checkedHeartbeat(t, s, twin, w.nodes[rng.IntN(len(w.nodes))], sink)
					for _, a := range sink.got {
						reasons[a.Reason]++
					}
				}
			}
			require.NoError(t, s.Check())
			require.Equal(t, saveBytes(t, twin), saveBytes(t, s), "recording leaves no trace in the state")
		})
	}
	// The worlds gave the walk's reasons.
	for _, r := range []queue.Reason{queue.ReasonQueueLimit, queue.ReasonAMLimit, queue.ReasonNodeTooSmall, queue.ReasonLocality,
		queue.ReasonLocalityDelay, queue.ReasonNodeFull, queue.ReasonNodeReserved, queue.ReasonOrder, queue.ReasonReservation} {
		assert.Positive(t, reasons[r], "reason %s never seen", r)
	}
}

// A dry run changes nothing (the snapshot bytes stay the same) and
// answers what the real heartbeat then does, activities included.
func TestDryRunIsTheHeartbeat(t *testing.T) {
	for seed := range uint64(6) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 43))
			s, clock := stateScheduler(t, stateConfig(rng))
			w := &stateWorld{}
			dry := 0
			for range 300 {
				op := drawOp(rng, w)
				out := op.run(s, clock)
				if op.seen != nil {
					op.seen(w, out)
				}
				w.live = liveIDs(s)
				if len(w.nodes) == 0 || rng.IntN(4) > 0 {
					continue
				}
				node := w.nodes[rng.IntN(len(w.nodes))]
				saved := saveBytes(t, s)
				d, err := s.DryRun(node)
				require.NoError(t, err)
				require.Equal(t, saved, saveBytes(t, s), "a dry run changes nothing")
				require.NoError(t, s.RecordHeartbeat(node))
				als, err := s.Heartbeat(node, nil)
				require.NoError(t, err)
				require.Equal(t, als, d.Allocations)
				require.Equal(t, s.HeartbeatRecord(node), d.Activities)
				dry += len(als)
			}
			require.NoError(t, s.Check())
			require.Positive(t, dry, "the dry runs allocated")
		})
	}
}

func TestExplainArguments(t *testing.T) {
	h := newHarness(t, DefaultConfig(), "")
	node := h.addNode(4096, 4)
	app := h.request(1024, "default", "u", 1)
	tests := []struct {
		name string
		err  error
		call func() error
	}{
		{"record unknown node", berth.ErrNotFound, func() error { return h.s.RecordHeartbeat("ghost") }},
		{"record any node", nil, func() error { return h.s.RecordHeartbeat("") }},
		{"record unknown app", berth.ErrNotFound, func() error { return h.s.RecordApp("ghost", 1) }},
		{"negative keep", berth.ErrInvalidArgument, func() error { return h.s.RecordApp(app, -1) }},
		{"keep too many", berth.ErrInvalidArgument, func() error { return h.s.RecordApp(app, queue.MaxKeptActivities+1) }},
		{"every app", nil, func() error { return h.s.RecordApp("", 3) }},
		{"explain unknown app", berth.ErrNotFound, func() error { _, err := h.s.Explain("ghost", 1); return err }},
		{"dry run unknown node", berth.ErrNotFound, func() error { _, err := h.s.DryRun("ghost"); return err }},
		{"dry run", nil, func() error { _, err := h.s.DryRun(node); return err }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			if tt.err == nil {
				require.NoError(t, err)
			} else {
				require.ErrorIs(t, err, tt.err)
			}
		})
	}
}

// A dry run resolves the host's policies and rules of the scheduler it
// copies, by the names the snapshot gives them.
func TestDryRunWithHostPolicy(t *testing.T) {
	reg := &queue.Registry[SchedulingPolicy]{}
	require.NoError(t, reg.Register("lifo", lifo{}))
	af, err := ParseAllocationFile([]byte(`<allocations><queue name="q"><schedulingPolicy>lifo</schedulingPolicy></queue></allocations>`),
		ParseOptions{Policies: reg})
	require.NoError(t, err)
	clock := berth.NewManualClock(0)
	cfg := DefaultConfig()
	cfg.Allocation = af
	cfg.Clock = clock
	s, err := New(cfg)
	require.NoError(t, err)
	require.NoError(t, s.AddNode(NodeSpec{ID: "n1", Capability: berth.New(4096, 4)}))
	for _, id := range []string{"a", "b"} {
		clock.Advance(10)
		_, err := s.SubmitApp(AppSpec{ID: id, Queue: "q", User: "u"})
		require.NoError(t, err)
		_, err = s.Allocate(id, []Ask{{Priority: 1, ResourceName: AnyResource, Capability: berth.New(1024, 1), Count: 1}}, nil)
		require.NoError(t, err)
	}
	d, err := s.DryRun("n1")
	require.NoError(t, err)
	require.Len(t, d.Allocations, 1)
	assert.Equal(t, "b", d.Allocations[0].Container.App, "the host policy (newest first) ordered the copy's walk")
}

// The explain calls are safe beside heartbeats from other goroutines
// (run with -race): each holds the scheduler's lock, and DryRun's copy is
// its own.
func TestExplainUnderConcurrentCallers(t *testing.T) {
	s, ids := throughputWorld(t, 20)
	require.NoError(t, s.RecordApp("", 2))
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				node := ids[(g*7+i)%len(ids)]
				switch g {
				case 0:
					_, err := s.Heartbeat(node, nil)
					assert.NoError(t, err)
				case 1:
					assert.NoError(t, s.RecordHeartbeat(node))
					_ = s.HeartbeatRecord(node)
				case 2:
					_, err := s.Explain("app0", 1)
					assert.NoError(t, err)
					s.SetObserver(&activitySink{})
				default:
					_, err := s.DryRun(node)
					assert.NoError(t, err)
				}
			}
		}()
	}
	wg.Wait()
	require.NoError(t, s.Check())
}
