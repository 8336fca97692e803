package fair

import (
	"math"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

// The attempt phase: one offer of the node to one application
// (FSAppAttempt.assignContainer), which decides and proposes; commit.go
// applies the proposal.

// app offers the node to a: its AM must fit its queue's AM share, then
// its requests are tried, most important first.
func (t *attempt) app(a *app) proposal {
	if t.s.overAMShareLimit(a) {
		var ask berth.Resource
		if t.rec != nil {
			ask, _ = a.asks.NextPending()
		}
		return t.skipped(a, queue.ReasonAMLimit, 0, ask)
	}
	var first queue.Reason
	var firstKey *skey
	for _, k := range a.asks.Keys() {
		p, decided := t.request(a, k)
		if decided {
			if p.Outcome == queue.Skipped {
				return t.skipped(a, p.Reason, k.Priority(), k.Capability())
			}
			return p
		}
		// The first request with demand tells why (an empty one says
		// nothing).
		if first == queue.ReasonNone || first == queue.ReasonNoDemand && p.Reason != first {
			first, firstKey = p.Reason, k
		}
	}
	if firstKey == nil {
		return t.skipped(a, queue.ReasonNoDemand, 0, berth.Resource{})
	}
	return t.skipped(a, first, firstKey.Priority(), firstKey.Capability())
}

// skipped is an application's attempt that came to nothing, recorded
// when the heartbeat is.
func (t *attempt) skipped(a *app, r queue.Reason, prio int32, res berth.Resource) proposal {
	if t.rec != nil {
		t.rec.Record(queue.Activity{App: a.id, Queue: a.q.path, Result: queue.Result{Reason: r},
			Priority: prio, Resource: res})
	}
	return skip(r)
}

// request tries one request of a on the node: whether the node can take
// it at all, then the locality delay scheduling allows. decided is true
// when the request's placement decides the application's attempt (YARN
// tries no further request), false when the request is passed over.
func (t *attempt) request(a *app, k *skey) (p proposal, decided bool) {
	if t.from == nil {
		if r := t.s.nodeReason(a, k, t.n); r != queue.ReasonNone {
			t.passOver(k, r)
			return skip(r), false
		}
	}
	k.Payload.opps++
	loc, r := t.s.locality(a, k, t.n, t.now)
	if r != queue.ReasonNone {
		t.passOver(k, r)
		return skip(r), false
	}
	return t.place(a, k, loc), true
}

func (t *attempt) passOver(k *skey, r queue.Reason) {
	if t.rec != nil && r != queue.ReasonNoDemand { // an empty request is not passed over
		t.rec.PassOver(k.Priority(), k.Capability(), r)
	}
}

// nodeReason is FSAppAttempt.hasContainerForNode as a reason: ReasonNone
// when k may be placed on n.
func (s *Scheduler) nodeReason(a *app, k *skey, n *node) queue.Reason {
	anyCount, anyRelax := k.AnyAsk()
	if anyCount <= 0 {
		return queue.ReasonNoDemand
	}
	rackCount, rackRelax := k.RackAsk(n.Rack)
	nodeCount, _ := k.HostAsk(n.ID)
	rackAsk, nodeAsk := rackCount > 0, nodeCount > 0
	if !(anyRelax || rackAsk) || rackAsk && !rackRelax && !nodeAsk {
		return queue.ReasonLocality
	}
	if !k.Capability().FitsIn(n.Capability) {
		return queue.ReasonNodeTooSmall
	}
	if !a.q.fitsInMaxShare(k.Capability()) {
		return queue.ReasonQueueLimit
	}
	return queue.ReasonNone
}

// locality is the level at which k may be placed on n now: node-local
// when the node is asked for, else what delay scheduling allows.
func (s *Scheduler) locality(a *app, k *skey, n *node, now berth.Time) (Locality, queue.Reason) {
	rackCount, rackRelax := k.RackAsk(n.Rack)
	nodeCount, _ := k.HostAsk(n.ID)
	anyCount, anyRelax := k.AnyAsk()
	allowed := s.allowedLocality(a, k, now)
	switch {
	case rackCount > 0 && nodeCount > 0:
		return NodeLocal, queue.ReasonNone
	case !rackRelax:
		return 0, queue.ReasonLocality
	case rackCount > 0 && allowed >= RackLocal:
		return RackLocal, queue.ReasonNone
	case !anyRelax:
		return 0, queue.ReasonLocality
	case anyCount <= 0:
		return 0, queue.ReasonNoDemand
	case k.UniqueLocationAsks() <= 1 || allowed == OffSwitch:
		return OffSwitch, queue.ReasonNone
	}
	return 0, queue.ReasonLocalityDelay
}

// place decides between a container and a reservation for k on the node
// at loc (FSAppAttempt.assignContainer(node, request, type, reserved)).
func (t *attempt) place(a *app, k *skey, loc Locality) proposal {
	capRes := k.Capability()
	if capRes.FitsIn(t.n.unallocated()) {
		if d := &k.Payload; d.allowedSet && loc < d.allowed {
			d.allowed = loc
		}
		if k.Outstanding() <= 0 {
			if t.from != nil {
				return proposal{Result: queue.Result{Outcome: queue.Unreserved, Reason: queue.ReasonNoDemand}, app: a, key: k, loc: loc}
			}
			return skip(queue.ReasonNoDemand)
		}
		return proposal{Result: queue.Result{Outcome: queue.Allocated}, app: a, key: k, loc: loc}
	}
	if !t.s.isReservable(a, capRes) {
		return skip(queue.ReasonNodeFull)
	}
	if r := t.s.reservationReason(a, t.n, loc); r != queue.ReasonNone {
		return skip(r)
	}
	return proposal{Result: queue.Result{Outcome: queue.Reserved}, app: a, key: k, loc: loc}
}

// overAMShareLimit is FSAppAttempt.isOverAMShareLimit: a managed AM that
// is not running may start only if its queue can run it.
func (s *Scheduler) overAMShareLimit(a *app) bool {
	if a.amRunning || !a.managedAM {
		return false
	}
	ask, count := a.asks.NextPending()
	return count == 0 || !s.canRunAppAM(a.q, ask)
}

// canRunAppAM checks maxAMShare of the queue.
func (s *Scheduler) canRunAppAM(q *fsQueue, am berth.Resource) bool {
	if math.Abs(float64(q.settings.MaxAMShare)+1) < 0.0001 {
		return true
	}
	return q.amUsage.Add(am).FitsIn(s.maxAMResource(q))
}

// maxAMResource is computeMaxAMResource: the queue's fair share with zero
// memory or vcores replaced by min(available, max share), times maxAMShare
// rounded up.
func (s *Scheduler) maxAMResource(q *fsQueue) berth.Resource {
	r := q.FairShare
	avail := s.cluster.Sub(s.root.Usage)
	if r.Memory == 0 {
		r.Memory = min(avail.Memory, q.MaxShare.Memory)
	}
	if r.VCores == 0 {
		r.VCores = min(avail.VCores, q.MaxShare.VCores)
	}
	return r.MulRoundUp(float64(q.settings.MaxAMShare))
}

// allowedLocality is YARN's delay scheduling, by opportunities or by time.
func (s *Scheduler) allowedLocality(a *app, k *skey, now berth.Time) Locality {
	if s.cfg.TimeBasedLocality {
		return s.allowedLocalityByTime(a, k, now)
	}
	nodeT, rackT := min(s.cfg.LocalityThresholdNode, 1), min(s.cfg.LocalityThresholdRack, 1)
	if nodeT < 0 || rackT < 0 {
		return OffSwitch
	}
	d := &k.Payload
	if !d.allowedSet {
		d.allowed, d.allowedSet = NodeLocal, true
		return NodeLocal
	}
	lvl := d.allowed
	if lvl == OffSwitch {
		return OffSwitch
	}
	t := nodeT
	if lvl == RackLocal {
		t = rackT
	}
	if float64(d.opps) > float64(len(s.nodes))*t {
		d.allowed = lvl + 1
		d.opps = 0
		d.lastAt, d.lastAtSet = now, true
	}
	return d.allowed
}

// allowedLocalityByTime is delay scheduling by time since the key's last
// container (or the application's start).
func (s *Scheduler) allowedLocalityByTime(a *app, k *skey, now berth.Time) Locality {
	if s.cfg.LocalityDelayNode < 0 || s.cfg.LocalityDelayRack < 0 {
		return OffSwitch
	}
	d := &k.Payload
	if !d.allowedSet {
		d.lastAt, d.lastAtSet = now, true
		d.allowed, d.allowedSet = NodeLocal, true
		return NodeLocal
	}
	lvl := d.allowed
	if lvl == OffSwitch {
		return OffSwitch
	}
	since := a.StartTime
	if d.lastAtSet {
		since = d.lastAt
	}
	limit := s.cfg.LocalityDelayNode
	if lvl == RackLocal {
		limit = s.cfg.LocalityDelayRack
	}
	if now-since > limit {
		d.allowed = lvl + 1
		d.opps = 0
		d.lastAt, d.lastAtSet = now, true
	}
	return d.allowed
}

// isReservable: YARN reserves only for starved applications asking at
// least the reservation threshold.
func (s *Scheduler) isReservable(a *app, r berth.Resource) bool {
	if a.fairStarvation.IsZero() && a.minStarvation.IsZero() {
		return false
	}
	threshold := s.cfg.Increment.Mul(s.cfg.ReservationThresholdIncrementMultiple)
	return a.q.policy.Calculator().Compare(s.cluster, r, threshold) >= 0
}

// reservationReason is ReasonReservation when a may not reserve n at
// loc: n holds another application's reservation, or a holds as many
// reservations off the node (on the rack, or anywhere) as
// Config.ReservableNodes allows (FSAppAttempt.reserve's checks).
func (s *Scheduler) reservationReason(a *app, n *node, loc Locality) queue.Reason {
	if n.reserved != nil && n.reserved.app != a {
		return queue.ReasonReservation
	}
	if loc == NodeLocal {
		return queue.ReasonNone
	}
	existing, total := 0, len(s.nodes)
	if loc == OffSwitch {
		existing = len(a.reservedOn)
	} else {
		total = s.racks.Nodes(n.Rack)
		for _, r := range a.reservedOn {
			if r.node.Rack == n.Rack {
				existing++
			}
		}
	}
	if existing >= int(math.Ceil(float64(total)*s.cfg.ReservableNodes)) {
		return queue.ReasonReservation
	}
	return queue.ReasonNone
}

// serveReservation is assignReservedContainer: the node's reservation is
// given up when its application can no longer use it, tried when it fits,
// and otherwise kept. stands reports whether it stood (or was fulfilled):
// the heartbeat then ends.
func (s *Scheduler) serveReservation(t *attempt, r *reservation, out []Allocation) (bool, []Allocation) {
	t.from = r
	stands, out := s.serve(t, r, out)
	t.from = nil
	return stands, out
}

// serve is serveReservation with t.from set to r.
func (s *Scheduler) serve(t *attempt, r *reservation, out []Allocation) (bool, []Allocation) {
	a, n := r.app, r.node
	k := a.asks.Key(r.prio)
	why := queue.ReasonNoDemand
	if k != nil {
		why = s.nodeReason(a, k, n)
		if why == queue.ReasonNone && s.overAMShareLimit(a) {
			why = queue.ReasonAMLimit
		}
	}
	if why != queue.ReasonNone {
		s.commit(t, proposal{Result: queue.Result{Outcome: queue.Unreserved, Reason: why}, app: a, key: k})
		return false, out
	}
	if !r.res.FitsIn(n.unallocated()) {
		t.kept(r, queue.ReasonNodeFull)
		return true, out
	}
	p, _ := t.request(a, k)
	if p.Outcome == queue.Skipped {
		t.kept(r, p.Reason)
		return true, out
	}
	if al, ok := s.commit(t, p); ok {
		out = append(out, al)
	}
	return true, out
}

// kept records a reservation served but kept for a later heartbeat.
func (t *attempt) kept(r *reservation, why queue.Reason) {
	if t.rec != nil {
		t.rec.Record(queue.Activity{App: r.app.id, Queue: r.app.q.path, Result: queue.Result{Outcome: queue.Reserved, Reason: why},
			Priority: r.prio, Resource: r.res, Container: r.id})
	}
}
