package capacity

import (
	"math"
	"slices"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

// setUserWeight reads the user's configured weight (default 1).
func (s *Scheduler) setUserWeight(q *qnode, u *user) {
	w := 1.0
	if v, ok := q.set().UserWeights[u.name]; ok {
		w = v
	}
	q.leaf.allWeights += w - u.weight
	if u.activeApps > 0 {
		q.leaf.activeWeights += w - u.weight
	}
	u.weight = w
	q.leaf.ulValid = false
}

// userUsage changes a user's used resource (allocations and reservations),
// keeping the leaf's usage ratio and active-user usage in step, as YARN's
// UsersManager does.
func (s *Scheduler) userUsage(q *qnode, u *user, delta berth.Resource) {
	lf := q.leaf
	u.used = u.used.Add(delta)
	if u.activeApps > 0 {
		lf.activeUsed = lf.activeUsed.Add(delta)
	}
	var r float32
	if !s.cluster.IsZero() {
		r = s.divide(u.used, s.cluster)
	}
	lf.usageRatio += r - u.ratio
	u.ratio = r
	lf.ulValid = false
}

// refreshRatios recomputes every user's usage ratio after the cluster
// resource changed.
func (s *Scheduler) refreshRatios(q *qnode) {
	if lf := q.leaf; lf != nil {
		lf.usageRatio = 0
		for _, u := range sortedUsers(lf) {
			u.ratio = 0
			if !s.cluster.IsZero() {
				u.ratio = s.calculator.Divide(s.cluster, u.used, s.cluster)
			}
			lf.usageRatio += u.ratio
		}
		lf.ulValid = false
	}
	for _, c := range q.children {
		s.refreshRatios(c)
	}
}

// userActiveApp counts an application of u gaining (+1) or losing (-1)
// outstanding asks; the user is active while the count is positive.
func (s *Scheduler) userActiveApp(q *qnode, u *user, d int) {
	lf := q.leaf
	was := u.activeApps > 0
	u.activeApps += d
	now := u.activeApps > 0
	switch {
	case !was && now:
		lf.activeUsers++
		lf.activeWeights += u.weight
		lf.activeUsed = lf.activeUsed.Add(u.used)
		for i := range u.lp {
			q.lp[i].activeUsed = q.lp[i].activeUsed.Add(u.lp[i].used)
		}
	case was && !now:
		lf.activeUsers--
		lf.activeWeights -= u.weight
		lf.activeUsed = lf.activeUsed.Sub(u.used)
		for i := range u.lp {
			q.lp[i].activeUsed = q.lp[i].activeUsed.Sub(u.lp[i].used)
		}
	}
	if was != now {
		lf.ulValid = false
	}
}

// divCeilF is YARN's divideAndCeil(rc, resource, float).
func (s *Scheduler) divCeilF(r berth.Resource, by float64) berth.Resource {
	if by == 0 {
		if s.mem {
			return berth.FromMemory(0)
		}
		return berth.Resource{}
	}
	f := func(v int64) int64 { return int64(math.Ceil(float64(v) / by)) }
	if s.mem {
		return berth.FromMemory(f(r.Memory))
	}
	out := berth.New(f(r.Memory), f(r.VCores))
	for _, e := range r.Extras() {
		out = out.With(e.Name, f(e.Value))
	}
	return out
}

// userLimit is UsersManager's limit for active users of leaf q, for user u
// (weighted), on the default partition in RESPECT_EXCLUSIVITY mode.
//
// The walk asks for it once per application visited and again after every
// allocation, so it is cached in two levels, as YARN's UsersManager caches
// it per user with a version stamp:
//   - the leaf's unweighted limit (lf.ulBase) is valid while lf.ulValid.
//     Every write to one of its inputs clears the flag: usageRatio and
//     activeUsed (userUsage, refreshRatios, userActiveApp), activeWeights
//     (userActiveApp, setUserWeight), and effMin, ulPct, ulf, the cluster,
//     the minimum allocation and the calculator (all re-derived by
//     applyCapacities, which every cluster or configuration change runs).
//   - a user's weighted limit (u.ulVal) is valid while u.ulGen equals
//     lf.ulGen, which each recomputation of the leaf's limit advances; the
//     weight itself only changes through setUserWeight, which clears
//     lf.ulValid. Users of weight 1 (most) share one weighted value per
//     generation (lf.ulOne, valid while lf.ulOneGen equals lf.ulGen).
func (s *Scheduler) userLimit(q *qnode, u *user) berth.Resource {
	lf := q.leaf
	if s.eagerLimits {
		return s.mulNormDown(s.leafUserLimit(q), u.weight, s.cfg.MinAllocation)
	}
	if !lf.ulValid {
		lf.ulBase = s.leafUserLimit(q)
		lf.ulValid = true
		lf.ulGen++
	}
	if u.ulGen != lf.ulGen {
		if u.weight == 1 {
			if lf.ulOneGen != lf.ulGen {
				lf.ulOne = s.mulNormDown(lf.ulBase, 1, s.cfg.MinAllocation)
				lf.ulOneGen = lf.ulGen
			}
			u.ulVal = lf.ulOne
		} else {
			u.ulVal = s.mulNormDown(lf.ulBase, u.weight, s.cfg.MinAllocation)
		}
		u.ulGen = lf.ulGen
	}
	return u.ulVal
}

// leafUserLimit is userLimit before the user's weight is applied.
func (s *Scheduler) leafUserLimit(q *qnode) berth.Resource {
	lf, cluster, minA := q.leaf, s.cluster, s.cfg.MinAllocation
	queueCap := s.rmax(q.effMin, minA)
	consumed := s.mulNormUp(cluster, float64(lf.usageRatio), minA)
	current := queueCap
	if s.cmp(&consumed, &queueCap) >= 0 {
		current = consumed.Add(minA)
	}
	activeTerm := s.divCeilF(lf.activeUsed.Add(minA), lf.activeWeights)
	pctTerm := s.divideAndCeil(current.Mul(lf.ulPct), 100)
	ul := s.rmax(activeTerm, pctTerm)
	maxUL := queueCap.Mul(lf.ulf)
	if lf.ulf == -1 {
		// user-limit-factor -1: a user may take the queue's maximum.
		maxUL = q.effMaxDown
	}
	return s.roundUp(s.rmin(ul, maxUL), minA)
}

// headroom is what the application is told it may still get: the smaller
// of the user's and the queue's room, within the free cluster.
func (s *Scheduler) headroom(q *qnode, u *user, ul berth.Resource) berth.Resource {
	h := berth.ComponentwiseMin(ul.SubNonNegative(u.used), q.leaf.cachedLimit.SubNonNegative(q.used))
	h = s.roundDown(h, s.cfg.MinAllocation)
	// YARN subtracts plainly; clamping keeps a headroom from going negative
	// when vcores are over-committed (memory calculator) or nodes left.
	return s.rmin(s.cluster.SubNonNegative(s.root.used), h)
}

// amLimit is the queue's AM resource limit on the default partition.
func (s *Scheduler) amLimit(q *qnode) berth.Resource {
	lf := q.leaf
	usable := q.effMin
	if s.calculator.FitsIn(q.effMin, lf.currentLimit) {
		usable = lf.currentLimit
	}
	return s.calculator.MultiplyAndNormalizeUp(usable, lf.maxAMPct, s.cfg.MinAllocation)
}

// userAMLimitOn is the per-user AM limit of q for u on partition p
// (YARN's getUserAMResourceLimitPerPartition): the user's share of the
// queue's guarantee there, within the queue's AM limit amLimit.
func (s *Scheduler) userAMLimitOn(q *qnode, u *user, amLimit berth.Resource, p int) berth.Resource {
	lf := q.leaf
	eff := math.Min(math.Max(lf.ulPct/100, 1/math.Max(float64(lf.activeUsers), 1))*u.weight, 1)
	effMin, amPct := q.effMin, lf.maxAMPct
	if p != 0 {
		effMin, amPct = q.lp[p-1].effMin, q.lp[p-1].amPct
	}
	pct := amPct * eff * lf.ulf
	if lf.ulf == -1 {
		pct = amPct // no user share, no factor (YARN 3.4)
	}
	l := s.calculator.MultiplyAndNormalizeUp(effMin, pct, s.cfg.MinAllocation)
	return berth.Min(s.calculator, s.cluster, l, amLimit)
}

// amLimitOn is the queue's AM limit on labelled partition p: its AM share
// of its guarantee there (YARN's calculateAndGetAMResourceLimitPerPartition,
// which reads no current limit on a labelled partition).
func (s *Scheduler) amLimitOn(q *qnode, p int) berth.Resource {
	lp := &q.lp[p-1]
	return s.calculator.MultiplyAndNormalizeUp(lp.effMin, lp.amPct, s.cfg.MinAllocation)
}

// activate is LeafQueue.activateApplications: pending applications start
// in submission order while their AM fits the queue's and the user's AM
// limits; the first AM of a queue is always allowed.
func (s *Scheduler) activate(q *qnode) {
	lf := q.leaf
	if lf == nil || len(lf.pendingAct) == 0 || s.total.IsZero() {
		return
	}
	calc, cluster := s.calculator, s.cluster
	amLimit := s.amLimit(q)
	for i := 0; i < len(lf.pendingAct); {
		a := lf.pendingAct[i]
		u := a.u
		// Limits and usage are those of the AM's partition.
		lim, used, uUsed := amLimit, lf.amUsed, u.amUsed
		if p := a.amPart; p != 0 {
			lim, used, uUsed = s.amLimitOn(q, p), q.lp[p-1].amUsed, u.lp[p-1].amUsed
		}
		free := lf.numActive < 1 || berth.LessOrEqual(calc, cluster, used, berth.Resource{})
		if !calc.FitsIn(used.Add(a.amRes), lim) && !free {
			i++
			continue
		}
		// The user limit is waived on the same condition as the queue's:
		// YARN looks at the queue's AM usage, not the user's.
		if !calc.FitsIn(uUsed.Add(a.amRes), s.userAMLimitOn(q, u, lim, a.amPart)) && !free {
			i++
			continue
		}
		lf.pendingAct = slices.Delete(lf.pendingAct, i, i+1)
		s.startApp(q, a)
		if s.obs != nil {
			s.emitApp(queue.AppActivated, a, "")
		}
	}
}

// startApp makes a, already out of q's pending list, active: its AM and
// demand count in the queue and it becomes schedulable. Restoring a
// snapshot (state.go) starts applications through it too.
func (s *Scheduler) startApp(q *qnode, a *app) {
	lf, u := q.leaf, a.u
	a.state = appActive
	lf.numActive++
	s.amUsage(q, u, a, false)
	s.accountUser(q, u, queue.Delta{PendingApps: -1, ActiveApps: 1})
	s.addAppPending(q, u, a, false)
	s.syncSched(a)
}

// pendingEntry is one active application for pendingWithinUserLimits.
type pendingEntry struct {
	user              string
	pending, reserved berth.Resource
}

// pendingWithinUserLimits is YARN's
// getTotalPendingResourcesConsideringUserLimit over apps in ordering
// order: each user's remaining room (its limit less its usage, at least
// zero) caps what its applications' outstanding asks count for.
func pendingWithinUserLimits(apps []pendingEntry, room map[string]berth.Resource, deductReserved bool) berth.Resource {
	var total berth.Resource
	for _, a := range apps {
		left, ok := room[a.user]
		if !ok {
			continue
		}
		p := a.pending
		if deductReserved {
			p = p.Sub(a.reserved)
		}
		p = berth.ComponentwiseMax(p, berth.Resource{})
		take := berth.ComponentwiseMin(left, p)
		total = total.Add(take)
		room[a.user] = left.Sub(take)
	}
	return total
}

// PendingWithinUserLimits is the leaf queue's outstanding demand that its
// users' limits let through (YARN's
// getTotalPendingResourcesConsideringUserLimit), for the preemption
// policy; deductReserved subtracts what applications already reserved.
func (s *Scheduler) PendingWithinUserLimits(queueName string, deductReserved bool) (berth.Resource, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	q, err := s.lookupQueue(queueName)
	if err != nil {
		return berth.Resource{}, err
	}
	if !q.isLeaf() {
		return berth.Resource{}, fieldErr(berth.ErrInvalidArgument, "queue", q.path, "%s is not a leaf queue", q.path)
	}
	room := map[string]berth.Resource{}
	entries := make([]pendingEntry, 0, q.leaf.sched.Len())
	q.leaf.sched.Ascend(func(a *app) bool {
		if _, ok := room[a.userName]; !ok {
			ul := s.userLimit(q, a.u)
			room[a.userName] = berth.ComponentwiseMax(ul.Sub(a.u.used), berth.Resource{})
		}
		entries = append(entries, pendingEntry{user: a.userName, pending: a.pending, reserved: a.reserved})
		return true
	})
	return pendingWithinUserLimits(entries, room, deductReserved), nil
}

// UserLimit is the limit of user in the leaf queue as the scheduler
// computes it now (YARN's getResourceLimitForAllUsers, with the user's
// weight), for the preemption policy's intra-queue user-limit fairness.
// A user without applications in the queue gets the limit of a new
// user with its configured weight.
func (s *Scheduler) UserLimit(queueName, userName string) (berth.Resource, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	q, err := s.lookupQueue(queueName)
	if err != nil {
		return berth.Resource{}, err
	}
	if !q.isLeaf() {
		return berth.Resource{}, fieldErr(berth.ErrInvalidArgument, "queue", q.path, "%s is not a leaf queue", q.path)
	}
	u, ok := q.leaf.users[userName]
	if !ok {
		w := 1.0
		if v, ok := q.set().UserWeights[userName]; ok {
			w = v
		}
		u = &user{name: userName, weight: w}
	}
	return s.userLimit(q, u), nil
}
