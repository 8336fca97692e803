package preempt

import (
	"slices"

	"github.com/berthsched/berth"
)

// IntraQueueSelector is YARN's IntraQueueCandidatesSelector
// (intra-queue-preemption.enabled): inside an under-served leaf whose used
// capacity reaches minimum-threshold, applications beyond their ideal
// share give containers to those below it, by application priority
// (priority_first) or toward each user's limit (userlimit_first), at most
// max-allowable-limit of the leaf's guarantee per round.
type IntraQueueSelector struct {
	// Wait is the kill wait (0: max_wait_before_kill).
	Wait berth.Duration
}

// Name is "intra-queue".
func (IntraQueueSelector) Name() string { return "intra-queue" }

// KillWait returns Wait.
func (s IntraQueueSelector) KillWait() berth.Duration { return s.Wait }

type intraApp struct {
	a                                    *AppView
	used, pending, am                    berth.Resource // on the default partition
	usedNoAM, selected, ideal, fromOther berth.Resource
	toBePreempted, actual                berth.Resource
}

// Select balances applications inside each eligible leaf.
func (s IntraQueueSelector) Select(r *ProportionalRound) error {
	if err := checkRound(r); err != nil {
		return err
	}
	// What earlier selectors took on the default partition, per
	// application (leaves are disjoint, so this selector's own choices
	// never matter to a later leaf).
	taken := map[string]berth.Resource{}
	for _, c := range r.Selected() {
		if c.part == 0 {
			taken[c.App] = taken[c.App].Add(c.Resource)
		}
	}
	for _, q := range slices.Clone(r.UnderServed()) {
		if err := s.leaf(r, q, taken); err != nil {
			return err
		}
	}
	return nil
}

// leaf runs YARN's intra-queue selection on one leaf: the users' limits,
// each application's ideal, what lower applications give the starved
// ones, then the victims.
func (s IntraQueueSelector) leaf(r *ProportionalRound, q *QueueView, taken map[string]berth.Resource) error {
	cfg := r.Config
	if !q.IsLeaf() || q.DisableIntraQueue || float64(q.UsedCapacity) < cfg.IntraQueueMinimumThreshold || len(q.Apps) < 2 {
		return nil
	}
	l := intraLeaf{apps: make([]*intraApp, len(q.Apps)),
		userFirst: cfg.IntraQueueOrder == UserLimitFirst, conservative: cfg.IntraQueueConservativeDRF,
		limits: map[string]berth.Resource{}, userAM: map[string]berth.Resource{}, userUsed: map[string]berth.Resource{}}
	amTotal := l.orderApps(q, taken)
	if err := l.userLimits(r, q); err != nil {
		return err
	}
	// What the leaf must give is its last ideal computation's, as YARN
	// reads its TempQueuePerPartition: not less what selectors took since.
	queueObtain := r.Assignment(q).ToObtain
	l.assignIdeal(r, q.Used.Sub(queueObtain).Sub(amTotal))
	l.spreadExcess(r, berth.Min(r.Cluster.Calculator, r.Cluster.Resource, berth.ComponentwiseMax(q.Guaranteed.Mul(cfg.IntraQueueMaxAllowableLimit).Sub(queueObtain), noResource), r.budget))
	l.matchDemand(r)
	l.deductSelected(r, q)
	return l.takeContainers(r)
}

// intraLeaf is the intra-queue selector's work on one leaf: its
// applications in order and its users' limits and usage. It holds no
// pointer to the round, the leaf or the calculator, which the steps take
// as arguments: escape analysis does not tell fields apart, and what
// those reach leaks, so the maps would leave the stack.
type intraLeaf struct {
	userFirst, conservative bool
	apps                    []*intraApp
	// per user: limit less AM usage, AM usage, usage
	limits, userAM, userUsed map[string]berth.Resource
}

// orderApps lists the leaf's applications with their usage on the
// default partition, by priority then submission for priority_first,
// and returns their AM usage in all.
func (l *intraLeaf) orderApps(q *QueueView, taken map[string]berth.Resource) berth.Resource {
	amTotal := noResource
	for i, a := range q.Apps {
		ia := &intraApp{a: a, used: a.UsedOn(0), pending: a.PendingOn(0), selected: taken[a.ID]}
		if a.AMPartition == 0 {
			ia.am = a.AMUsed
		}
		ia.usedNoAM = ia.used.Sub(ia.am)
		amTotal = amTotal.Add(ia.am)
		l.apps[i] = ia
	}
	if !l.userFirst { // priority_first: application priority, then submission
		slices.SortStableFunc(l.apps, func(x, y *intraApp) int {
			if x.a.Priority != y.a.Priority {
				return compareInts(y.a.Priority, x.a.Priority)
			}
			return compareInts(x.a.Order, y.a.Order)
		})
	}
	return amTotal
}

// userLimits sums each user's usage and AM usage and reads its limit.
func (l *intraLeaf) userLimits(r *ProportionalRound, q *QueueView) error {
	for _, ia := range l.apps {
		l.userAM[ia.a.User] = l.userAM[ia.a.User].Add(ia.am)
		l.userUsed[ia.a.User] = l.userUsed[ia.a.User].Add(ia.used)
	}
	for _, ia := range l.apps {
		if _, ok := l.limits[ia.a.User]; ok {
			continue
		}
		ul, err := r.UserLimit(q, ia.a.User)
		if err != nil {
			return err
		}
		l.limits[ia.a.User] = ul.Sub(l.userAM[ia.a.User])
	}
	return nil
}

// assignIdeal hands the reassignable resource out in order, each
// application up to its demand and its user's limit, noting what it
// must get from others.
func (l *intraLeaf) assignIdeal(r *ProportionalRound, reassignable berth.Resource) {
	calc, cluster := r.Cluster.Calculator, r.Cluster.Resource
	idealFor := map[string]berth.Resource{}
	for _, ia := range l.apps {
		if !berth.GreaterThan(calc, cluster, reassignable, noResource) || (l.conservative && calc.AnyMajorZeroOrNegative(reassignable)) {
			break
		}
		want := ia.usedNoAM.Add(ia.pending).Sub(ia.selected)
		u := ia.a.User
		if berth.LessThan(calc, cluster, idealFor[u], l.limits[u]) {
			ia.ideal = berth.Min(calc, cluster, reassignable, berth.Min(calc, cluster, want, l.limits[u].Sub(idealFor[u])))
			idealFor[u] = idealFor[u].Add(ia.ideal)
			if have := ia.usedNoAM.Sub(ia.selected); berth.GreaterThan(calc, cluster, ia.ideal, have) {
				ia.fromOther = ia.ideal.Sub(have)
			}
			reassignable = berth.ComponentwiseMax(reassignable.Sub(ia.ideal), noResource)
		}
	}
}

// spreadExcess gives each application, last first, what it may lose
// beyond its ideal, within limit in all.
func (l *intraLeaf) spreadExcess(r *ProportionalRound, limit berth.Resource) {
	calc, cluster := r.Cluster.Calculator, r.Cluster.Resource
	for i := len(l.apps) - 1; i >= 0; i-- {
		ia := l.apps[i]
		p := ia.used.Sub(ia.ideal).Sub(ia.selected).Sub(ia.am)
		if l.userFirst {
			p = p.Sub(r.Cluster.MinAllocation)
		}
		p = berth.ComponentwiseMax(p, noResource)
		ia.toBePreempted = berth.Min(calc, cluster, p, limit)
		limit = berth.ComponentwiseMax(limit.Sub(ia.toBePreempted), noResource)
	}
}

// matchDemand matches each starved application's demand with lower
// applications' excess.
func (l *intraLeaf) matchDemand(r *ProportionalRound) {
	calc, cluster, apps := r.Cluster.Calculator, r.Cluster.Resource, l.apps
	capped := map[string]bool{}
	for hi, h := range apps {
		need := h.fromOther
		for lo := len(apps) - 1; lo > hi && berth.GreaterThan(calc, cluster, need, noResource); lo-- {
			low := apps[lo]
			if !berth.GreaterThan(calc, cluster, low.toBePreempted, noResource) {
				continue
			}
			if low.a.User == h.a.User && low.a.Priority >= h.a.Priority {
				continue
			}
			avail := low.toBePreempted
			if l.userFirst && low.a.User != h.a.User {
				over := l.userUsed[low.a.User].Sub(l.limits[low.a.User]).Sub(l.userAM[low.a.User])
				if !berth.GreaterThan(calc, cluster, over, noResource) {
					continue // that user is within its limit
				}
				if low.a.Priority == h.a.Priority && !capped[low.a.User] {
					avail = berth.Min(calc, cluster, avail, over)
					capped[low.a.User] = true
				}
			}
			m := berth.Min(calc, cluster, need, avail)
			low.actual = low.actual.Add(m)
			low.toBePreempted = low.toBePreempted.Sub(m)
			need = need.Sub(m)
		}
	}
}

// deductSelected takes every container chosen earlier in the round from
// this leaf off every application's amount, while the amount is greater
// than it (YARN's TempAppPerPartition.deductActuallyToBePreempted).
func (l *intraLeaf) deductSelected(r *ProportionalRound, q *QueueView) {
	calc, cluster := r.Cluster.Calculator, r.Cluster.Resource
	for _, sel := range r.Selected() {
		if sel.Leaf != q || sel.part != 0 {
			continue
		}
		for _, ia := range l.apps {
			if berth.GreaterThan(calc, cluster, ia.actual, sel.Resource) {
				ia.actual = ia.actual.Sub(sel.Resource)
			}
		}
	}
}

// takeContainers chooses, last application first, non-AM containers on
// the default partition until each application's amount is met (and,
// for user_limit_first, while its user stays above its limit).
func (l *intraLeaf) takeContainers(r *ProportionalRound) error {
	calc, cluster := r.Cluster.Calculator, r.Cluster.Resource
	for i := len(l.apps) - 1; i >= 0; i-- {
		ia := l.apps[i]
		if !berth.GreaterThan(calc, cluster, ia.actual, noResource) {
			continue
		}
		userLeft := l.userUsed[ia.a.User]
		cs, err := r.Cluster.AppContainers(ia.a)
		if err != nil {
			return err
		}
		for _, ct := range sortedForPreemption(r, cs) {
			if ct.AM || r.Cluster.PartitionOfNode(ct.Node) != 0 || r.IsSelected(ct.ID) {
				continue
			}
			if l.userFirst && berth.LessOrEqual(calc, cluster, userLeft.Sub(ct.Resource), l.limits[ia.a.User].Add(l.userAM[ia.a.User])) {
				break
			}
			ok, done := r.TryPreemptFor(ct, &ia.actual, l.conservative)
			if ok {
				userLeft = userLeft.Sub(ct.Resource)
			}
			if done {
				break
			}
		}
	}
	return nil
}
