package capacity

import (
	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

// The attempt phase: one offer of the node to one application
// (RegularContainerAllocator), which decides and proposes; commit.go
// applies the proposal.

// app is RegularContainerAllocator.allocate over the application's
// priorities, most important first: each request on the attempt's node,
// or with no node (t.n nil) on the multi-node walk's candidates (offer).
func (t *attempt) app(a *app, lim *limits) proposal {
	var cands []*node
	if t.n == nil {
		cands = t.s.candidatesFor(a.q)
	}
	var first proposal // the first request passed over tells why
	for _, k := range a.asks.Keys() {
		if end, try := t.gate(a, k, lim, &first); !try {
			if end.st != stNone {
				return end
			}
			continue
		}
		p := t.offer(a, k, lim, cands)
		if p.st == stPrioritySkipped {
			t.passOver(&first, k, p.why)
			continue
		}
		p.app, p.key = a, k
		return p
	}
	return first.skippedApp(a)
}

// offer tries a's request k on the attempt's node, or, with none, on
// cands in the leaf's policy order: the first node that allocates or
// reserves wins, and the last node's answer is the request's. Each node
// tried is a scheduling opportunity the key missed, unless the request
// was passed over there. A default-partition key that must still wait to
// borrow a labelled node ends the application's visit (missedBorrow).
func (t *attempt) offer(a *app, k *skey, lim *limits, cands []*node) proposal {
	if t.n != nil {
		k.Payload.missed++
		if t.missedBorrow(k) {
			return skipped(stAppSkipped, queue.ReasonPartition)
		}
		p := t.request(a, k, lim)
		if p.st == stPrioritySkipped {
			k.Payload.missed--
		}
		return p
	}
	if t.missedBorrow(k) {
		return skipped(stAppSkipped, queue.ReasonPartition)
	}
	p := skipped(stPrioritySkipped, queue.ReasonNone)
	for _, n := range cands {
		k.Payload.missed++
		t.n = n
		p = t.request(a, k, lim)
		t.n = nil
		if p.st == stPrioritySkipped {
			k.Payload.missed--
		}
		if p.st.assigned() {
			p.node = n
			break
		}
	}
	return p
}

// gate runs askCheck on a's ask k: try reports whether to try it;
// otherwise end, unless empty, ends a's visit, and an ask skipped for a
// reason is passed over (first: see passOver).
func (t *attempt) gate(a *app, k *skey, lim *limits, first *proposal) (end proposal, try bool) {
	switch st, why := t.askCheck(a, k, lim); st {
	case stNone:
		return proposal{}, true
	case stPrioritySkipped:
		if why != queue.ReasonNone {
			t.passOver(first, k, why)
		}
		return proposal{}, false
	default:
		return proposal{st: st, why: why, app: a, key: k}, false
	}
}

// skippedApp is the proposal of an application none of whose requests
// was tried to the end: the first passed over (first) says why.
func (first proposal) skippedApp(a *app) proposal {
	if first.key == nil {
		first.why = queue.ReasonNoDemand
	}
	first.st, first.app = stAppSkipped, a
	return first
}

// passOver notes that a's request k was passed over for reason r (the
// first one passed over becomes first), and records it when the
// heartbeat is recorded.
func (t *attempt) passOver(first *proposal, k *skey, r queue.Reason) {
	if first.key == nil {
		first.key, first.why = k, r
	}
	if t.rec != nil {
		t.rec.PassOver(k.Priority(), k.Capability(), r)
	}
}

// skippedApp records that a's attempt came to nothing (p says why); the
// caller checked that the heartbeat is recorded.
func (t *attempt) skippedApp(a *app, p proposal) {
	act := queue.Activity{App: a.id, Queue: a.q.path, Result: queue.Result{Reason: p.why}}
	if p.key != nil {
		act.Priority, act.Resource = p.key.Priority(), p.key.Capability()
	}
	t.record(act)
}

// request tries node-local, then rack-local, then off-switch; when none
// assigns, the best level tried gives the reason.
func (t *attempt) request(a *app, k *skey, lim *limits) proposal {
	n := t.n
	why := queue.ReasonNone
	if c, _ := k.HostAsk(n.id); c > 0 {
		p := t.at(a, k, lim, NodeLocal)
		if p.st.assigned() {
			return p
		}
		why = p.why
	}
	if c, relax := k.RackAsk(n.rack); c > 0 {
		if !relax {
			return skipped(stPrioritySkipped, firstOf(why, queue.ReasonLocality))
		}
		p := t.at(a, k, lim, RackLocal)
		if p.st.assigned() {
			return p
		}
		why = firstOf(why, p.why)
	}
	if c, relax := k.AnyAsk(); c > 0 {
		if !relax {
			return skipped(stPrioritySkipped, firstOf(why, queue.ReasonLocality))
		}
		p := t.at(a, k, lim, OffSwitch)
		if p.st == stLocalitySkipped {
			p.st = stAppSkipped
		}
		if !p.st.assigned() {
			p.why = firstOf(why, p.why)
		}
		return p
	}
	return skipped(stPrioritySkipped, firstOf(why, queue.ReasonLocality))
}

// firstOf is r unless it is ReasonNone, else next.
func firstOf(r, next queue.Reason) queue.Reason {
	if r != queue.ReasonNone {
		return r
	}
	return next
}

// at is assign{NodeLocal,RackLocal,OffSwitch}Containers: the delay
// scheduling test, then place.
func (t *attempt) at(a *app, k *skey, lim *limits, loc Locality) proposal {
	if !t.canAssign(k, loc) {
		if loc == OffSwitch {
			return skipped(stAppSkipped, queue.ReasonLocalityDelay)
		}
		if c, _ := k.RackAsk(t.n.rack); c <= 0 {
			return skipped(stLocalitySkipped, queue.ReasonLocality) // no ask left on the node's rack
		}
		return skipped(stLocalitySkipped, queue.ReasonLocalityDelay)
	}
	return t.place(a, k, lim, loc)
}

// canAssign is delay scheduling: how many scheduling opportunities the key
// must miss before accepting a worse locality.
func (t *attempt) canAssign(k *skey, loc Locality) bool {
	s, n := t.s, t.n
	nn := int64(len(s.nodes))
	if loc == OffSwitch {
		if t.from != nil {
			return true
		}
		if nn == 0 {
			return false
		}
		uniq := k.UniqueLocationAsks()
		if uniq == 1 {
			return true
		}
		if s.cfg.RackLocalityAdditionalDelay > -1 {
			return k.Payload.missed > min(nn, int64(s.cfg.NodeLocalityDelay+s.cfg.RackLocalityAdditionalDelay))
		}
		wait := min(float32(max(uniq-1, 0))/float32(nn), 1)
		return min(float32(nn), float32(k.Outstanding())*wait) < float32(k.Payload.missed)
	}
	if c, _ := k.RackAsk(n.rack); c <= 0 {
		return false
	}
	if loc == RackLocal {
		return min(nn, int64(s.cfg.NodeLocalityDelay)) < k.Payload.missed
	}
	c, _ := k.HostAsk(n.id)
	return c > 0
}

// shouldAllocOrReserve is YARN's shouldAllocOrReserveNewContainer: stop
// reserving more nodes than the key still needs, with a starvation bonus
// for keys that keep re-reserving.
func (s *Scheduler) shouldAllocOrReserve(a *app, k *skey) bool {
	starvation := 0
	ks := &k.Payload
	if ks.nRes > 0 {
		maxA, minA := a.q.maxAlloc, s.cfg.MinAllocation
		nodeFactor := s.calculator.Ratio(k.Capability(), maxA)
		minFactor := s.calculator.Ratio(maxA.Sub(minA), maxA)
		starvation = int(float32(ks.reRes) / float32(ks.nRes) * (1 - min(nodeFactor, minFactor)))
	}
	return starvation+k.Outstanding()-ks.nRes > 0
}

// place is assignContainer: it decides between allocating, reserving and
// skipping.
func (t *attempt) place(a *app, k *skey, lim *limits, loc Locality) proposal {
	s, n, from := t.s, t.n, t.from
	capR := k.Capability()
	if s.cmp(&capR, &n.total) > 0 {
		return skipped(stLocalitySkipped, queue.ReasonNodeTooSmall)
	}
	shouldNew := s.shouldAllocOrReserve(a, k)
	avail := s.available(n.total.Sub(n.allocated), capR)
	needRes := s.rmax(capR.Sub(lim.headroom), lim.needUnreserve)
	need := s.cmp(&needRes, &berth.Resource{}) > 0
	if avail > 0 {
		var unres *reservation
		if from == nil && s.cfg.ContinueLooking && (!shouldNew || need) {
			amount := capR
			if need {
				amount = needRes
			}
			unres = s.findToUnreserve(a, k, amount)
			if unres == nil {
				return skipped(stLocalitySkipped, queue.ReasonNoUnreserve)
			}
		}
		return proposal{st: stAllocated, app: a, key: k, loc: loc, unres: unres}
	}
	if shouldNew || from != nil {
		if s.cfg.ContinueLooking && from == nil && need {
			return skipped(stLocalitySkipped, queue.ReasonNodeFull)
		}
		return proposal{st: stReserved, app: a, key: k, loc: loc}
	}
	return skipped(stLocalitySkipped, queue.ReasonReservation)
}

// findToUnreserve picks the application's oldest reservation for key k
// that is at least amount.
func (s *Scheduler) findToUnreserve(a *app, k *skey, amount berth.Resource) *reservation {
	for _, r := range a.resv {
		if r.key == k && s.calculator.FitsIn(amount, r.res) {
			return r
		}
	}
	return nil
}
