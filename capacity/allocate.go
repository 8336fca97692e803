package capacity

import (
	"fmt"
	"slices"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

// An application's side of allocation (YARN's ApplicationMasterService
// allocate call): its asks, releases and headroom, and the bookkeeping that
// keeps its pending demand, usage and reservations in step with its queue.

// normalize applies YARN's request normalization and rejects asks above the
// maximum allocation.
func (s *Scheduler) normalize(q *qnode, r berth.Resource, field string) (berth.Resource, error) {
	if r.AnyNegative() {
		return r, berth.InvalidField(field, r, "must not be negative")
	}
	// The leaf's maximum allocation (maximum-allocation), the cluster's
	// unless the queue lowers it.
	maxA := q.maxAlloc
	if !r.FitsIn(maxA) {
		return r, berth.InvalidField(field, r, "exceeds the maximum allocation "+maxA.String())
	}
	return s.calculator.Normalize(r, s.cfg.MinAllocation, maxA, s.cfg.MinAllocation), nil
}

// Allocate is the application's side of YARN's allocate call: it replaces
// asks (by priority and resource name) and releases containers. It returns
// the application's current headroom. The call is all-or-nothing.
func (s *Scheduler) Allocate(appID string, asks []Ask, release []ContainerID) (berth.Resource, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.apps[appID]
	if !ok {
		return berth.Resource{}, notFound("app.id", appID)
	}
	norm := make([]Ask, len(asks))
	var parts []int // the ANY asks' partitions, when the cluster has labels
	if a.lp != nil {
		parts = make([]int, len(asks))
	}
	for i, k := range asks {
		f := fmt.Sprintf("asks[%d]", i)
		if err := k.Validate(f); err != nil {
			return berth.Resource{}, err
		}
		c, err := s.normalize(a.q, k.Capability, f+".capability")
		if err != nil {
			return berth.Resource{}, err
		}
		if k.ResourceName == AnyResource && k.Count > 0 && s.calculator.AnyMajorZeroOrNegative(c) {
			return berth.Resource{}, berth.InvalidField(f+".capability", k.Capability, "must be positive")
		}
		if k.ResourceName == AnyResource && (parts != nil || k.NodeLabelExpression != "") {
			// YARN reads a priority's label from its ANY ask: the ask's
			// own, else the application's, else the queue's default.
			p, err := s.resolveExpr(a.q, f+".node-label-expression", k.NodeLabelExpression, a.expr)
			if err != nil {
				return berth.Resource{}, err
			}
			if parts != nil {
				parts[i] = p
			}
		}
		k.Capability = c
		norm[i] = k
	}
	if err := s.checkDemand(a, norm); err != nil {
		return berth.Resource{}, err
	}
	if err := queue.CheckRelease(release, func(id ContainerID) bool {
		c, live := s.live.Get(id)
		r, reserved := s.resvByID[id]
		return live && c.app == a || reserved && r.app == a
	}); err != nil {
		return berth.Resource{}, err
	}
	for i, k := range norm {
		p := 0
		if parts != nil {
			p = parts[i]
		}
		s.setAsk(a, k, p)
	}
	for _, id := range release {
		if c, ok := s.live.Get(id); ok {
			s.releaseContainer(c)
			if s.obs != nil {
				s.emitEnded(c.c, Released)
			}
		} else if r, ok := s.resvByID[id]; ok {
			s.unreserve(r)
		}
	}
	s.pendingChanged(a)
	return s.refreshHeadroom(a), nil
}

// checkDemand refuses asks (valid and normalized) after which the
// outstanding demand of a, or of all applications together, would not be
// representable in int64: an error of kind berth.ErrCapacityExceeded
// naming the first ask that passes the bound. YARN's long arithmetic
// wraps instead (a pending memory of −9.2e18 after an ask of 2^53
// containers).
func (s *Scheduler) checkDemand(a *app, asks []Ask) error {
	fits := func(asks []Ask) bool {
		p, ok := a.asks.PendingAfter(asks)
		return ok && !s.pendingAll.Sub(a.pending).AddOverflows(p)
	}
	if fits(asks) {
		return nil
	}
	i := 0
	for i < len(asks)-1 && fits(asks[:i+1]) {
		i++
	}
	return fieldErr(berth.ErrCapacityExceeded, fmt.Sprintf("asks[%d].count", i), asks[i].Count,
		"the outstanding demand of the applications would overflow int64")
}

// refreshHeadroom recomputes a's headroom (YARN's
// computeUserLimitAndSetHeadroom) and returns it.
func (s *Scheduler) refreshHeadroom(a *app) berth.Resource {
	if a.lp != nil {
		a.headroom = s.appHeadroom(a)
	} else {
		a.headroom = s.headroom(a.q, a.u, s.userLimit(a.q, a.u))
	}
	return a.headroom
}

// Headroom returns the application's headroom as computed now: what its
// user and queue may still get, within the free cluster.
func (s *Scheduler) Headroom(appID string) (berth.Resource, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.apps[appID]
	if !ok {
		return berth.Resource{}, notFound("app.id", appID)
	}
	return s.refreshHeadroom(a), nil
}

// setAsk stores one validated ask in a's request table, an ANY ask with
// its key's partition p; pendingChanged must follow.
func (s *Scheduler) setAsk(a *app, k Ask, p int) {
	key, _ := a.asks.Update(k, s.isRack(k.ResourceName)) // k passed Ask.Validate
	if key != nil && k.ResourceName == AnyResource {
		key.Payload.part = p
	}
}

// pendingChanged recomputes a's outstanding demand and propagates it to
// the user (active users), the queue chain and the schedulable list.
func (s *Scheduler) pendingChanged(a *app) {
	if a.lp != nil {
		s.pendingChangedParts(a)
		return
	}
	s.setPending(a, a.asks.Pending())
}

// setPending sets a's total demand to p, the change being on the default
// partition.
func (s *Scheduler) setPending(a *app, p berth.Resource) {
	was := a.hasPending()
	delta := p.Sub(a.pending)
	a.pending = p
	s.pendingAll = s.pendingAll.Add(delta)
	if a.state == appActive && !delta.IsZero() {
		s.addPending(a.q, a.u, delta)
	}
	s.pendingMoved(a, was)
}

// pendingMoved follows a change of a's demand (was: it had some before):
// its user's activity, its fair key, its place in the schedulable list.
func (s *Scheduler) pendingMoved(a *app, was bool) {
	now := a.hasPending()
	if was != now {
		if now {
			s.userActiveApp(a.q, a.u, +1)
		} else {
			s.userActiveApp(a.q, a.u, -1)
		}
	}
	if a.inSched && appKeyMoves(a.q) {
		resched(a.q, a) // the fair key includes the demand
	}
	s.syncSched(a)
}

// syncSched keeps a in the schedulable list exactly when it is active with
// outstanding asks.
func (s *Scheduler) syncSched(a *app) {
	want := a.state == appActive && a.hasPending()
	if want && !a.inSched {
		schedInsert(a.q, a)
	} else if !want && a.inSched {
		schedRemove(a.q, a)
	}
}

// releaseContainer ends a live container, returning its resources.
func (s *Scheduler) releaseContainer(c *container) {
	a, n := c.app, c.node
	s.live.Delete(c.c.ID)
	n.unlink(c)
	a.unlink(c)
	n.allocated = n.allocated.Sub(c.c.Resource)
	if n.part == 0 {
		s.appUsage(a, c.c.Resource.Neg())
		s.charge(a.q, a.u, c.c.Resource.Neg(), false)
		return
	}
	if c.borrowed {
		a.borrowed--
		a.q.leaf.borrowed--
	}
	s.appUsageOn(a, n.part, c.c.Resource.Neg())
	s.chargeOn(n.part, a.q, a.u, c.c.Resource.Neg(), false)
}

// appUsage changes an application's used resource, keeping fair order.
func (s *Scheduler) appUsage(a *app, delta berth.Resource) {
	a.used = a.used.Add(delta)
	if a.inSched && appKeyMoves(a.q) {
		resched(a.q, a)
	}
}

// unreserve cancels a container reservation.
func (s *Scheduler) unreserve(r *reservation) {
	a := r.app
	r.node.reserved = nil
	delete(s.resvByID, r.id)
	if i := slices.Index(a.resv, r); i >= 0 {
		a.resv = slices.Delete(a.resv, i, i+1)
	}
	ks := &r.key.Payload
	ks.nRes--
	ks.reRes = 0 // YARN resets it on every unreservation
	a.reserved = a.reserved.Sub(r.res)
	if p := r.node.part; p != 0 {
		a.lp[p-1].reserved = a.lp[p-1].reserved.Sub(r.res)
	}
	s.chargeOn(r.node.part, a.q, a.u, r.res.Neg(), true)
}
