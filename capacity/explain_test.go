package capacity

import (
	"fmt"
	"strings"
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
	anyCount, rackCount, host int
	anyRelax, rackRelax       bool
	uniq, nRes, outstanding   int
	part                      int // the partition the request asks for
}

// before is what the checks need of the state before a heartbeat.
type before struct {
	keys      map[string]map[int32]keyBefore
	overLimit map[string]bool // the application's user is over its user limit
	reserved  string          // the application holding the node's reservation
}

func stateBefore(s *Scheduler, n *node) before {
	b := before{keys: map[string]map[int32]keyBefore{}, overLimit: map[string]bool{}}
	if n.reserved != nil {
		b.reserved = n.reserved.app.id
	}
	for id, a := range s.apps {
		ks := map[int32]keyBefore{}
		for _, k := range a.asks.Keys() {
			var kb keyBefore
			kb.anyCount, kb.anyRelax = k.AnyAsk()
			kb.rackCount, kb.rackRelax = k.RackAsk(n.rack)
			kb.host, _ = k.HostAsk(n.id)
			kb.uniq, kb.nRes, kb.outstanding = k.UniqueLocationAsks(), k.Payload.nRes, k.Outstanding()
			kb.part = k.Payload.part
			ks[k.Priority()] = kb
		}
		b.keys[id] = ks
		b.overLimit[id] = overUserLimit(s, a, n.part)
	}
	return b
}

// overUserLimit: a's user is over its user limit on partition part (on a
// labelled one, its own or the limit of a borrowing walk).
func overUserLimit(s *Scheduler, a *app, part int) bool {
	if part == 0 {
		ul := s.userLimit(a.q, a.u)
		return s.cmp(&a.u.used, &ul) > 0
	}
	used, total := a.u.lp[part-1].used, s.parts[part].total
	own, lent := s.userLimitOn(a.q, a.u, part, false), s.userLimitOn(a.q, a.u, part, true)
	return s.calculator.Compare(total, used, own) > 0 || s.calculator.Compare(total, used, lent) > 0
}

// waitsForPartition: the partition of node n is not for queue q (act.App
// "") or application a: q or a has demand on another partition (b: the
// requests before the heartbeat).
func waitsForPartition(s *Scheduler, n *node, b before, act Activity) bool {
	if act.App != "" {
		for _, kb := range b.keys[act.App] {
			if kb.outstanding > 0 && kb.part != n.part {
				return true
			}
		}
		return false
	}
	q := s.byPath[act.Queue]
	if n.part != 0 && !q.pending.IsZero() {
		return true
	}
	for i := range q.lp {
		if i+1 != n.part && !q.lp[i].pending.IsZero() {
			return true
		}
	}
	return false
}

// checkActivity checks one activity of a heartbeat on n against the
// state: a reason holds in the state before the heartbeat or, for the
// limits that only tighten while a heartbeat allocates (free room, user
// usage), in the state after it. others: another application got the
// node; won: this one did (its requests changed during the heartbeat).
func checkActivity(t *testing.T, s *Scheduler, n *node, b before, act Activity, others, won bool) {
	t.Helper()
	msg := fmt.Sprintf("%v", act)
	kb, hasKey := b.keys[act.App][act.Priority]
	switch act.Reason {
	case queue.ReasonQueueLimit, queue.ReasonQueueHeadroom:
		q := s.byPath[act.Queue]
		require.NotNil(t, q, msg)
		if act.App != "" && act.Limited != "" {
			assert.True(t, act.Queue == act.Limited || strings.HasPrefix(act.Queue, act.Limited+"."), msg)
		}
	case queue.ReasonUserLimit:
		assert.True(t, b.overLimit[act.App] || overUserLimit(s, s.apps[act.App], n.part), msg)
	case queue.ReasonPartition:
		assert.True(t, waitsForPartition(s, n, b, act), msg)
	case queue.ReasonNodeTooSmall:
		assert.Positive(t, s.cmp(&act.Resource, &n.total), msg)
	case queue.ReasonNodeFull:
		ask := act.Resource
		if act.App == "" || act.Limited != "" { // the root skipped
			ask = s.cfg.MinAllocation
		}
		assert.LessOrEqual(t, s.available(n.total.Sub(n.allocated), ask), int64(0), msg)
	case queue.ReasonLocality:
		assert.True(t, hasKey && (kb.rackCount > 0 && !kb.rackRelax || !kb.anyRelax || kb.anyCount <= 0 || kb.host > 0 && kb.rackCount <= 0), "%s %+v", msg, kb)
	case queue.ReasonLocalityDelay:
		assert.True(t, hasKey && (kb.host <= 0 || won) && (kb.uniq != 1 || kb.rackCount > 0 && s.cfg.NodeLocalityDelay > 0), "%s %+v", msg, kb)
	case queue.ReasonNoDemand:
		if act.Outcome == queue.Unreserved {
			assert.Equal(t, b.reserved, act.App, msg)
		} else {
			for _, kb := range b.keys[act.App] {
				assert.LessOrEqual(t, kb.outstanding, 0, msg)
			}
		}
	case queue.ReasonReservation:
		assert.True(t, hasKey && kb.nRes > 0, msg)
	case queue.ReasonAMLimit:
		a := s.apps[act.App]
		assert.True(t, a.state == appPending && !a.inSched, msg)
	case queue.ReasonNoUnreserve:
		assert.True(t, s.cfg.ContinueLooking, msg)
	case queue.ReasonNodeReserved:
		assert.NotEmpty(t, b.reserved, msg)
	case queue.ReasonOrder:
		assert.True(t, others, "not reached though nobody else got the node: %s", msg)
	case queue.ReasonNone:
		assert.NotEqual(t, queue.Skipped, act.Outcome, "a skip without a reason: %s", msg)
		assert.NotEqual(t, queue.Unreserved, act.Outcome, msg)
	default:
		t.Errorf("a reason the capacity scheduler does not give: %s", msg)
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
	assert.Equal(t, s.HeartbeatRecord(node), withoutUnreached(sink.got), "the node's record is what the observer saw of the walk")
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
		require.Equal(t, s.parts[n.part].name, act.Partition, "the walk's partition is the node's: %v", act)
		switch act.Outcome {
		case queue.Allocated:
			assert.True(t, got[act.Container], "an allocation the heartbeat did not return: %v", act)
			seen[act.Container] = true
		case queue.Reserved:
			require.NotNil(t, n.reserved, "%v", act)
			assert.Equal(t, act.App, n.reserved.app.id)
			assert.Equal(t, act.Container, n.reserved.id)
		}
		if act.Reason == queue.ReasonOrder {
			assert.False(t, winners[act.App], "an application that got the node was not reached: %v", act)
		}
		others := len(winners) > 0 && !(len(winners) == 1 && winners[act.App])
		checkActivity(t, s, n, b, act, others, winners[act.App])
	}
	assert.Len(t, seen, len(als), "every allocation has its activity")
	// Every application that waits and got nothing says why.
	for id, a := range s.apps {
		if a.inSched && a.hasPending() && !winners[id] {
			atts, err := s.Explain(id, 0)
			require.NoError(t, err)
			require.NotEmpty(t, atts, "application %s waits with no reason", id)
			assert.Equal(t, node, atts[len(atts)-1].Node, "application %s: no activity for this heartbeat", id)
		}
	}
}

// withoutUnreached drops the activities the log adds at the end of a
// heartbeat for applications selected by name that the walk did not
// reach: the node's record is the walk's own.
func withoutUnreached(as []Activity) []Activity {
	out := []Activity{}
	for _, a := range as {
		// (ReasonPartition: an application whose requests are all for
		// other partitions; the walk's own carry the request.)
		if a.Reason == queue.ReasonOrder || a.App != "" && a.Limited != "" ||
			a.Reason == queue.ReasonPartition && a.App != "" && a.Resource.IsZero() {
			continue
		}
		out = append(out, a)
	}
	return out
}

// The reasons match the walk's decisions: over random worlds, every
// recorded heartbeat's allocations are its Allocated activities, no
// allocation carries a reason, every application that waits and got
// nothing has a reason consistent with the state, and recording changes
// no decision (a twin without recording decides the same, byte for byte).
func TestReasonsMatchDecisions(t *testing.T) {
	reasons := reasonWorlds(t, nil)
	// The worlds gave the walk's reasons.
	for _, r := range []queue.Reason{queue.ReasonQueueLimit, queue.ReasonQueueHeadroom, queue.ReasonUserLimit, queue.ReasonAMLimit,
		queue.ReasonNodeTooSmall, queue.ReasonLocality, queue.ReasonLocalityDelay, queue.ReasonNodeFull,
		queue.ReasonNodeReserved, queue.ReasonOrder, queue.ReasonReservation} {
		assert.Positive(t, reasons[r], "reason %s never seen", r)
	}
	t.Logf("reasons seen: %v", reasons[:16])
}

// The same with node partitions (labelConfig): the partition walks'
// reasons, ReasonPartition among them, match their decisions too.
func TestReasonsMatchDecisionsWithPartitions(t *testing.T) {
	reasons := reasonWorlds(t, labelConfig)
	for _, r := range []queue.Reason{queue.ReasonPartition, queue.ReasonQueueLimit, queue.ReasonUserLimit,
		queue.ReasonLocalityDelay, queue.ReasonNodeFull, queue.ReasonOrder} {
		assert.Positive(t, reasons[r], "reason %s never seen", r)
	}
	t.Logf("reasons seen: %v", reasons[:16])
}

// reasonWorlds runs recorded heartbeats over random worlds (mutate: their
// configuration) beside unrecorded twins and counts the reasons seen.
func reasonWorlds(t *testing.T, mutate func(*Config)) (reasons [32]int) {
	for seed := uint64(1); seed <= 8; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			s, clock, tw := buildRandomWith(t, seed, 0, mutate)
			twin, clock2, _ := buildRandomWith(t, seed, 0, mutate)
			sink := &activitySink{}
			s.SetObserver(sink)
			for range 400 {
				d := int64(tw.r.IntN(700))
				clock.Advance(d)
				clock2.Advance(d)
				op := tw.next(s, clock)
				require.Equal(t, op(twin), op(s))
				if nodes := s.Snapshot().Nodes; len(nodes) > 0 && tw.r.IntN(3) == 0 {
					checkedHeartbeat(t, s, twin, nodes[tw.r.IntN(len(nodes))].ID, sink)
					for _, a := range sink.got {
						reasons[a.Reason]++
						for _, rq := range a.Requests {
							reasons[rq.Reason]++
						}
					}
				}
			}
			require.NoError(t, s.Check())
			require.Equal(t, saveBytes(t, twin), saveBytes(t, s), "recording leaves no trace in the state")
		})
	}
	return reasons
}

func TestExplainArguments(t *testing.T) {
	s, clock, _ := buildRandom(t, 3, 0)
	require.NoError(t, s.AddNode(NodeSpec{ID: "n1", Rack: "/r1", Capability: berth.New(4096, 4)}))
	clock.Advance(1)
	_, err := s.SubmitApp(AppSpec{ID: "app", Queue: "b", User: "u"})
	require.NoError(t, err)
	tests := []struct {
		name string
		err  error
		call func() error
	}{
		{"record unknown node", berth.ErrNotFound, func() error { return s.RecordHeartbeat("ghost") }},
		{"record any node", nil, func() error { return s.RecordHeartbeat("") }},
		{"record unknown app", berth.ErrNotFound, func() error { return s.RecordApp("ghost", 1) }},
		{"negative keep", berth.ErrInvalidArgument, func() error { return s.RecordApp("app", -1) }},
		{"keep too many", berth.ErrInvalidArgument, func() error { return s.RecordApp("app", queue.MaxKeptActivities+1) }},
		{"every app", nil, func() error { return s.RecordApp("", 3) }},
		{"explain unknown app", berth.ErrNotFound, func() error { _, err := s.Explain("ghost", 1); return err }},
		{"explain", nil, func() error { _, err := s.Explain("app", 1); return err }},
		{"dry run unknown node", berth.ErrNotFound, func() error { _, err := s.DryRun("ghost"); return err }},
		{"dry run", nil, func() error { _, err := s.DryRun("n1"); return err }},
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

// An application's record goes with it, and a node's with the node.
func TestExplainForgets(t *testing.T) {
	s, clock, _ := buildRandom(t, 3, 0)
	require.NoError(t, s.AddNode(NodeSpec{ID: "n1", Rack: "/r1", Capability: berth.New(4096, 4)}))
	require.NoError(t, s.AddNode(NodeSpec{ID: "n2", Rack: "/r1", Capability: berth.New(65536, 64)}))
	clock.Advance(1)
	_, err := s.SubmitApp(AppSpec{ID: "app", Queue: "b", User: "u"})
	require.NoError(t, err)
	_, err = s.Allocate("app", []Ask{{Priority: 1, ResourceName: AnyResource, Capability: berth.New(8192, 1), Count: 1}}, nil)
	require.NoError(t, err)
	require.NoError(t, s.RecordApp("app", 2))
	require.NoError(t, s.RecordHeartbeat("n1"))
	_, err = s.Heartbeat("n1", nil)
	require.NoError(t, err)
	atts, err := s.Explain("app", 0)
	require.NoError(t, err)
	require.Len(t, atts, 1)
	assert.Equal(t, queue.ReasonNodeTooSmall, atts[0].Reason)
	require.NotEmpty(t, s.HeartbeatRecord("n1"))
	_, err = s.FinishApp("app")
	require.NoError(t, err)
	_, err = s.Explain("app", 0)
	require.ErrorIs(t, err, berth.ErrNotFound)
	_, err = s.RemoveNode("n1")
	require.NoError(t, err)
	assert.Nil(t, s.HeartbeatRecord("n1"))
}

// The explain calls are safe beside heartbeats from other goroutines
// (run with -race): each holds the scheduler's lock, and DryRun's copy is
// its own.
func TestExplainUnderConcurrentCallers(t *testing.T) {
	s := throughputWorldT(t, 20)
	nodes := s.Snapshot().Nodes
	require.NoError(t, s.RecordApp("", 2))
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				node := nodes[(g*7+i)%len(nodes)].ID
				switch g {
				case 0:
					_, err := s.Heartbeat(node, nil)
					assert.NoError(t, err)
				case 1:
					assert.NoError(t, s.RecordHeartbeat(node))
					_ = s.HeartbeatRecord(node)
				case 2:
					_, err := s.Explain("app-0", 1)
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
