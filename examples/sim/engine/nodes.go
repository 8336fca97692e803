package engine

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/examples/sim/metrics"
	"github.com/berthsched/berth/queue"
)

// node is one NodeManager of the cluster and its heartbeat schedule: a
// node heartbeats at its phase within each interval, and parks while a
// heartbeat could change nothing.
type node struct {
	spec      queue.NodeSpec
	idx       int
	phase     berth.Time
	down      bool
	armed     bool
	armedAt   berth.Time
	gen       uint32 // heartbeat events of older generations are stale
	parked    bool
	futile    bool // parked after a heartbeat that changed nothing
	lastBeat  berth.Time
	free      capKey
	completed []queue.ContainerID
}

func (e *Engine) nodeUp(n *node, now berth.Time) error {
	if err := e.s.AddNode(n.spec); err != nil {
		return fmt.Errorf("node %s: %w", n.spec.ID, err)
	}
	n.down = false
	e.bump()
	n.free = keyOf(n.spec.Capability)
	e.liveNodes++
	e.cluster = e.cluster.Add(n.spec.Capability)
	e.arm(n, now)
	return nil
}

// nodeDown takes a live node out of the cluster: what ran on it ends with
// it.
func (e *Engine) nodeDown(n *node, now berth.Time) {
	if n.down {
		return
	}
	e.bump()
	// What ran on the node goes with it.
	e.used.mem -= n.spec.Capability.Memory - n.free.mem
	e.used.vc -= n.spec.Capability.VCores - n.free.vc
	n.down = true
	n.armed = false
	e.liveNodes--
	e.cluster = e.cluster.Sub(n.spec.Capability)
	n.completed = n.completed[:0]
	ended, err := e.s.RemoveNode(n.spec.ID)
	if err != nil {
		e.log.Warn("remove node", "node", n.spec.ID, "err", err)
	}
	e.nodeLost(n, ended, now)
	e.ended(ended, now)
}

// nodeReturned brings a node that was down back.
func (e *Engine) nodeReturned(n *node, now berth.Time) {
	if !n.down {
		return
	}
	if err := e.nodeUp(n, now); err != nil {
		e.log.Warn("add node", "node", n.spec.ID, "err", err)
	} else {
		e.record(metrics.Event{Time: now, Kind: metrics.NodeReturned, Node: n.spec.ID, Rack: n.spec.Rack, Resource: n.spec.Capability})
	}
}

// arm schedules the node's next heartbeat at its phase, at or after t.
func (e *Engine) arm(n *node, t berth.Time) {
	if n.down {
		return
	}
	iv := e.cfg.NodeHeartbeat
	k := (t - n.phase + iv - 1) / iv
	if t <= n.phase {
		k = 0
	}
	at := n.phase + k*iv
	if n.armed && n.armedAt <= at {
		return
	}
	n.armed, n.parked, n.futile = true, false, false
	n.armedAt = at
	n.gen++
	e.push(event{at: at, kind: evHeartbeat, i: int32(n.idx), gen: n.gen})
}

// bump records a change that may make a futile heartbeat useful again:
// the nodes parked after one are woken (once per instant).
func (e *Engine) bump() {
	e.epoch++
	e.lastChange = e.clock.Now()
	if len(e.futile) == 0 || e.wakeAt >= 0 {
		return
	}
	e.wakeAt = e.clock.Now()
	e.push(event{at: e.wakeAt, kind: evWake})
}

func (e *Engine) wake(now berth.Time) {
	e.wakeAt = -1
	for _, n := range e.futile {
		if n.futile && !n.down {
			n.futile = false
			if e.fits(n.free) {
				e.arm(n, now+1)
			}
		}
	}
	e.futile = e.futile[:0]
}

// dominated tells whether a heartbeat of a node with this much room is
// known to be futile: in the current epoch a node with at least as much
// room heartbeat without effect, less than a heartbeat interval ago (a
// scheduler may act on time alone, as the fair scheduler's periodic
// update does). Locality asks make heartbeats of
// different nodes differ (and count missed opportunities), so then every
// heartbeat is delivered.
func (e *Engine) dominated(free capKey) bool {
	if e.memoEpoch != e.epoch || e.localApps > 0 || e.cfg.ExactHeartbeats || e.clock.Now()-e.memoTime >= e.cfg.NodeHeartbeat {
		return false
	}
	for _, m := range e.memo {
		if free.mem <= m.mem && free.vc <= m.vc {
			return true
		}
	}
	return false
}

// startSweep wakes the parked nodes one at a time, in the order their
// heartbeats come: each is armed at its next heartbeat and the sweep
// resumes after it, until no parked node has room for a pending ask. The
// scheduler sees the same heartbeats, in the same order, as if every
// parked node had been heartbeating, minus those that would have come
// after the asks were served; waking them all would cost an event per
// node for every new kind of ask.
func (e *Engine) startSweep() {
	if e.sweeping {
		return
	}
	e.sweeping = true
	e.push(event{at: e.clock.Now(), kind: evSweep})
}

func (e *Engine) sweep(now berth.Time) {
	n := len(e.byPhase)
	off := now % e.cfg.NodeHeartbeat
	i0, _ := slices.BinarySearchFunc(e.byPhase, off, func(nd *node, t berth.Time) int { return cmp.Compare(nd.phase, t) })
	var last *node // a node that heartbeat at now comes last, an interval on
	for k := range n {
		nd := e.byPhase[(i0+k)%n]
		if nd.parked && !nd.down && !nd.armed && e.fits(nd.free) {
			if nd.lastBeat >= now {
				if last == nil {
					last = nd
				}
				continue
			}
			e.arm(nd, now)
			e.push(event{at: nd.armedAt, kind: evSweep})
			return
		}
	}
	if last != nil {
		e.arm(last, now+1)
		e.push(event{at: last.armedAt, kind: evSweep})
		return
	}
	e.sweeping = false
}

// fits tells whether some pending ask fits in free.
func (e *Engine) fits(free capKey) bool {
	for k, c := range e.pending {
		if c > 0 && k.mem <= free.mem && k.vc <= free.vc {
			return true
		}
	}
	return false
}

// heartbeat delivers one node update. A node stays on its heartbeat
// schedule while it has completions to report or room for a pending ask;
// otherwise it parks and is woken by a completion, a new kind of ask or a
// kill on it: a heartbeat that can neither report nor allocate changes
// nothing, so eliding it keeps the run exact while idle and full nodes
// cost nothing.
func (e *Engine) heartbeat(n *node, gen uint32, now berth.Time) error {
	if n.down || !n.armed || gen != n.gen {
		return nil
	}
	n.armed = false
	n.lastBeat = now
	completed := n.completed
	n.completed = nil
	if len(completed) == 0 && e.dominated(n.free) {
		// Nothing changed since a node with at least this much room
		// heartbeat in vain: this one would too.
		e.run.SkippedHeartbeats++
		if e.fits(n.free) {
			e.arm(n, now+1)
		} else {
			n.parked = true
		}
		return nil
	}
	allocs, err := e.s.Heartbeat(n.spec.ID, completed)
	if err != nil {
		e.log.Warn("heartbeat", "node", n.spec.ID, "err", err)
	}
	// The allocations first: they served the asks as they were before
	// this heartbeat, and an AM re-asking after a completion must count
	// them (its ask is a total).
	for i := range allocs {
		// With multi-node placement a heartbeat may allocate on any node.
		e.allocated(&allocs[i], e.nodeByID[allocs[i].Node], now)
	}
	for _, id := range completed {
		e.reported(id, now)
	}
	e.run.Heartbeats++
	idle := len(allocs) == 0 && len(completed) == 0
	if idle {
		e.run.IdleHeartbeats++
		if e.memoEpoch != e.epoch {
			e.memoEpoch, e.memo, e.memoTime = e.epoch, e.memo[:0], now
		}
		if len(e.memo) < 8 {
			e.memo = append(e.memo, n.free)
		}
	}
	switch {
	case !e.fits(n.free):
		n.parked = true
	case idle && e.cfg.IdleBackoff > 0:
		e.arm(n, now+berth.Duration(e.cfg.IdleBackoff)*e.cfg.NodeHeartbeat)
		n.futile = true
		e.futile = append(e.futile, n)
	default:
		e.arm(n, now+1)
	}
	return nil
}

// round runs an asynchronous scheduling round while asks are pending.
func (e *Engine) round(now berth.Time) {
	if e.pendingRes.IsZero() {
		return
	}
	allocs, err := e.cfg.Rounds.ScheduleRound()
	if err != nil {
		e.log.Warn("scheduling round", "time", now, "err", err)
	}
	for i := range allocs {
		e.allocated(&allocs[i], e.nodeByID[allocs[i].Node], now)
	}
}

// roundEvery is the round interval, at least 1 ms.
func (e *Engine) roundEvery() berth.Duration { return max(e.cfg.RoundInterval, 1) }
