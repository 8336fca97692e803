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

func (s IntraQueueSelector) leaf(r *ProportionalRound, q *QueueView, taken map[string]berth.Resource) error {
	c, cfg := r.Cluster, r.Config
	rc, cl := c.Calculator, c.Resource
	if !q.IsLeaf() || q.DisableIntraQueue || float64(q.UsedCapacity) < cfg.IntraQueueMinimumThreshold || len(q.Apps) < 2 {
		return nil
	}
	userFirst := cfg.IntraQueueOrder == UserLimitFirst
	apps := make([]*intraApp, len(q.Apps))
	amTotal := noResource
	for i, a := range q.Apps {
		ia := &intraApp{a: a, used: a.UsedOn(0), pending: a.PendingOn(0), selected: taken[a.ID]}
		if a.AMPartition == 0 {
			ia.am = a.AMUsed
		}
		ia.usedNoAM = ia.used.Sub(ia.am)
		amTotal = amTotal.Add(ia.am)
		apps[i] = ia
	}
	if !userFirst { // priority_first: application priority, then submission
		slices.SortStableFunc(apps, func(x, y *intraApp) int {
			if x.a.Priority != y.a.Priority {
				return compareInts(y.a.Priority, x.a.Priority)
			}
			return compareInts(x.a.Order, y.a.Order)
		})
	}
	// What the leaf must give is its last ideal computation's, as YARN
	// reads its TempQueuePerPartition: not less what selectors took since.
	queueObtain := r.Assignment(q).ToObtain
	reassignable := q.Used.Sub(queueObtain).Sub(amTotal)
	limits := map[string]berth.Resource{}
	userAM := map[string]berth.Resource{}
	userUsed := map[string]berth.Resource{}
	for _, ia := range apps {
		userAM[ia.a.User] = userAM[ia.a.User].Add(ia.am)
		userUsed[ia.a.User] = userUsed[ia.a.User].Add(ia.used)
	}
	for _, ia := range apps {
		if _, ok := limits[ia.a.User]; ok {
			continue
		}
		ul, err := r.UserLimit(q, ia.a.User)
		if err != nil {
			return err
		}
		limits[ia.a.User] = ul.Sub(userAM[ia.a.User])
	}
	idealFor := map[string]berth.Resource{}
	conservative := cfg.IntraQueueConservativeDRF
	for _, ia := range apps {
		if !berth.GreaterThan(rc, cl, reassignable, noResource) || (conservative && rc.AnyMajorZeroOrNegative(reassignable)) {
			break
		}
		want := ia.usedNoAM.Add(ia.pending).Sub(ia.selected)
		u := ia.a.User
		if berth.LessThan(rc, cl, idealFor[u], limits[u]) {
			ia.ideal = berth.Min(rc, cl, reassignable, berth.Min(rc, cl, want, limits[u].Sub(idealFor[u])))
			idealFor[u] = idealFor[u].Add(ia.ideal)
			if have := ia.usedNoAM.Sub(ia.selected); berth.GreaterThan(rc, cl, ia.ideal, have) {
				ia.fromOther = ia.ideal.Sub(have)
			}
			reassignable = berth.ComponentwiseMax(reassignable.Sub(ia.ideal), noResource)
		}
	}
	limit := berth.Min(rc, cl, berth.ComponentwiseMax(q.Guaranteed.Mul(cfg.IntraQueueMaxAllowableLimit).Sub(queueObtain), noResource), r.budget)
	for i := len(apps) - 1; i >= 0; i-- {
		ia := apps[i]
		p := ia.used.Sub(ia.ideal).Sub(ia.selected).Sub(ia.am)
		if userFirst {
			p = p.Sub(c.MinAllocation)
		}
		p = berth.ComponentwiseMax(p, noResource)
		ia.toBePreempted = berth.Min(rc, cl, p, limit)
		limit = berth.ComponentwiseMax(limit.Sub(ia.toBePreempted), noResource)
	}
	// Match each starved application's demand with lower applications'
	// excess.
	capped := map[string]bool{}
	for hi, h := range apps {
		need := h.fromOther
		for lo := len(apps) - 1; lo > hi && berth.GreaterThan(rc, cl, need, noResource); lo-- {
			l := apps[lo]
			if !berth.GreaterThan(rc, cl, l.toBePreempted, noResource) {
				continue
			}
			if l.a.User == h.a.User && l.a.Priority >= h.a.Priority {
				continue
			}
			avail := l.toBePreempted
			if userFirst && l.a.User != h.a.User {
				over := userUsed[l.a.User].Sub(limits[l.a.User]).Sub(userAM[l.a.User])
				if !berth.GreaterThan(rc, cl, over, noResource) {
					continue // that user is within its limit
				}
				if l.a.Priority == h.a.Priority && !capped[l.a.User] {
					avail = berth.Min(rc, cl, avail, over)
					capped[l.a.User] = true
				}
			}
			m := berth.Min(rc, cl, need, avail)
			l.actual = l.actual.Add(m)
			l.toBePreempted = l.toBePreempted.Sub(m)
			need = need.Sub(m)
		}
	}
	// Every container chosen earlier in the round from this leaf is taken
	// off every application's amount, while the amount is greater than it
	// (YARN's TempAppPerPartition.deductActuallyToBePreempted).
	for _, sel := range r.Selected() {
		if sel.Leaf != q || sel.part != 0 {
			continue
		}
		for _, l := range apps {
			if berth.GreaterThan(rc, cl, l.actual, sel.Resource) {
				l.actual = l.actual.Sub(sel.Resource)
			}
		}
	}
	for i := len(apps) - 1; i >= 0; i-- {
		l := apps[i]
		if !berth.GreaterThan(rc, cl, l.actual, noResource) {
			continue
		}
		userLeft := userUsed[l.a.User]
		cs, err := c.AppContainers(l.a)
		if err != nil {
			return err
		}
		for _, ct := range sortedForPreemption(r, cs) {
			if ct.AM || r.Cluster.PartitionOfNode(ct.Node) != 0 || r.IsSelected(ct.ID) {
				continue
			}
			if userFirst && berth.LessOrEqual(rc, cl, userLeft.Sub(ct.Resource), limits[l.a.User].Add(userAM[l.a.User])) {
				break
			}
			ok, done := r.TryPreemptFor(ct, &l.actual, conservative)
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
