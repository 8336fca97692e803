package capacity

import (
	"fmt"
	"slices"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

// The partition model (see the package documentation, "Node partitions").
// Partition 0 is the default partition; its state lives where it always
// has (qnode's embedded qpart, user.used, leafState's sums, app.pending's
// default share), so the default walk reads the same fields as a
// scheduler without labels. Partition i > 0 is Config.NodeLabels' label
// parts[i].name; its state is in the lp slices (index i-1), which are nil
// while the cluster has no labels.

// part is one partition of the cluster.
type part struct {
	name         string // "" for the default partition
	nonExclusive bool
	total        berth.Resource // its nodes' capabilities
	nodes        int
}

// lpart is a queue's state on one labelled partition.
type lpart struct {
	qpart
	effMin, effMax berth.Resource
	absMax         float64
	access         bool // the queue may serve asks labelled with the partition
	// leaves: the AM share, the running sums of the user limit (as the
	// default partition's in leafState) and the AMs' usage
	amPct      float64
	usageRatio float32
	activeUsed berth.Resource
	amUsed     berth.Resource
}

// upart is a user's usage on one labelled partition.
type upart struct {
	used   berth.Resource
	ratio  float32
	amUsed berth.Resource
}

// apart is an application's usage and demand on one labelled partition
// (app's used, reserved and pending are its totals over all partitions).
type apart struct {
	used, reserved, pending berth.Resource
}

// labelled reports whether the cluster has node labels.
func (s *Scheduler) labelled() bool { return len(s.parts) > 1 }

// setParts installs the configured labels: existing partitions keep their
// index (state refers to them by index), new labels are appended. It
// refuses a configuration that drops a label.
func (s *Scheduler) setParts(ls []NodeLabel) error {
	if len(s.parts) == 0 {
		s.parts = []part{{}}
		s.partOf = map[string]int{}
	}
	want := make(map[string]NodeLabel, len(ls))
	for _, l := range ls {
		want[l.Name] = l
	}
	for _, p := range s.parts[1:] {
		if _, ok := want[p.name]; !ok {
			return fieldErr(berth.ErrInvalidState, "node-labels", p.name, "node label %s cannot be removed from a running scheduler", p.name)
		}
	}
	grew := false
	for _, l := range ls {
		if i, ok := s.partOf[l.Name]; ok {
			s.parts[i].nonExclusive = l.NonExclusive
			continue
		}
		s.partOf[l.Name] = len(s.parts)
		s.parts = append(s.parts, part{name: l.Name, nonExclusive: l.NonExclusive})
		grew = true
	}
	if grew {
		s.growParts()
	}
	return nil
}

// checkParts is setParts' refusal without the change, for Reconfigure's
// checks before anything is applied.
func (s *Scheduler) checkParts(ls []NodeLabel) error {
	for _, p := range s.parts[1:] {
		found := false
		for _, l := range ls {
			found = found || l.Name == p.name
		}
		if !found {
			return fieldErr(berth.ErrInvalidState, "node-labels", p.name, "node label %s cannot be removed from a running scheduler", p.name)
		}
	}
	return nil
}

// growParts extends every per-partition slice to the partitions in force.
func (s *Scheduler) growParts() {
	n := len(s.parts) - 1
	for _, q := range s.byPath {
		s.growQueue(q)
		if lf := q.leaf; lf != nil {
			for _, u := range lf.users {
				u.lp = growTo(u.lp, n)
			}
		}
	}
	for _, a := range s.apps {
		a.lp = growTo(a.lp, n)
	}
}

func (s *Scheduler) growQueue(q *qnode) {
	q.lp = growTo(q.lp, len(s.parts)-1)
}

func growTo[T any](xs []T, n int) []T {
	if n == 0 || len(xs) == n {
		return xs
	}
	out := make([]T, n)
	copy(out, xs)
	return out
}

// newUser makes a user of a leaf with room for the partitions.
func (s *Scheduler) newUser(name string) *user {
	return &user{name: name, lp: growTo[upart](nil, len(s.parts)-1)}
}

// partTotal is partition p's resource: the cluster's comparisons on p
// are made against it, as YARN's per-partition computations are.
func (s *Scheduler) partTotal(p int) berth.Resource {
	if p == 0 {
		return s.cluster
	}
	return s.parts[p].total
}

// nodeJoined and nodeLeft keep the partitions' sizes.
func (s *Scheduler) nodeJoined(n *node) {
	pt := &s.parts[n.part]
	pt.total = pt.total.Add(n.total)
	pt.nodes++
	s.total = s.total.Add(n.total)
	if n.part == 0 {
		s.cluster, s.walkCluster = pt.total, pt.total
	}
}

func (s *Scheduler) nodeLeft(n *node) {
	pt := &s.parts[n.part]
	pt.total = pt.total.Sub(n.total)
	pt.nodes--
	s.total = s.total.Sub(n.total)
	if n.part == 0 {
		s.cluster, s.walkCluster = pt.total, pt.total
	}
}

// nodePart resolves a node's label.
func (s *Scheduler) nodePart(label string) (int, error) {
	if label == "" {
		return 0, nil
	}
	p, ok := s.partOf[label]
	if !ok {
		return 0, berth.InvalidField("node.label", label, "the cluster has no such node label (Config.NodeLabels)")
	}
	return p, nil
}

// resolveExpr is YARN's normalization of a label expression: the first
// of exprs given (an ask's, then its application's), else the queue's
// default; it returns the partition, checked to exist and to be one the
// queue may access (YARN's InvalidLabelResourceRequestException).
func (s *Scheduler) resolveExpr(q *qnode, field string, exprs ...string) (int, error) {
	e := ""
	for _, x := range exprs {
		if x != "" {
			e = x
			break
		}
	}
	if e == "" {
		e = q.defExp
	}
	if e == "" || e == queue.NoLabel {
		return 0, nil
	}
	p, ok := s.partOf[e]
	if !ok {
		return 0, berth.InvalidField(field, e, "the cluster has no such node label")
	}
	if !q.access.has(e) {
		return 0, berth.InvalidField(field, e, fmt.Sprintf("queue %s cannot access node label %s", q.path, e))
	}
	return p, nil
}

// applyLabelCaps derives q's guarantees and maximums on the labelled
// partitions (YARN's per-label absolute capacities and effective
// resources) from its label settings and its parent's; applyCapacities
// calls it top down. Reservation queues have none: the reservation system
// plans on the default partition.
func (s *Scheduler) applyLabelCaps(q *qnode) {
	st := q.set()
	for i := range q.lp {
		lp, pt := &q.lp[i], &s.parts[i+1]
		total := pt.total
		lp.access = q.access.has(pt.name)
		ls, ok := st.NodeLabels[pt.name]
		if q.kind == queue.KindReservation {
			ok = false
		}
		var capF, maxF float32
		switch {
		case q.parent == nil:
			// The root holds every partition whatever its keys say (YARN
			// 3.4: QueueNodeLabelsSettings gives it every label a queue
			// configures, internalGetLabeledQueueCapacity reads 100 for it).
			ok, capF, maxF = false, 1, 1
		case ok:
			capF, maxF = labelPercent(ls.Capacity, 0), labelPercent(ls.MaxCapacity, 1)
		}
		var pl *lpart
		if q.parent != nil {
			pl = &q.parent.lp[i]
			capF *= float32(pl.absCap)
			maxF *= float32(pl.absMax)
		}
		lp.absCap, lp.absMax = float64(capF), float64(maxF)
		if ok && ls.Capacity.IsAbsolute() {
			lp.effMin = s.absoluteMinOn(q, i+1, ls.Capacity.Resource)
			lp.absCap = 0
			if !total.IsZero() {
				lp.absCap = float64(s.calculator.Divide(total, lp.effMin, total))
			}
		} else {
			lp.effMin = total.Mul(lp.absCap)
		}
		switch {
		case ok && ls.MaxCapacity.IsAbsolute():
			lp.effMax = ls.MaxCapacity.Resource
			if pl != nil {
				lp.effMax = berth.Min(s.calculator, total, lp.effMax, pl.effMax)
			}
		case ok && ls.Capacity.IsAbsolute() && pl != nil:
			lp.effMax = pl.effMax
		default:
			lp.effMax = total.Mul(lp.absMax)
		}
		lp.effMaxDown = s.calculator.RoundDown(lp.effMax, s.cfg.MinAllocation)
		lp.amPct = 0
		if q.leaf != nil && ok {
			lp.amPct = q.leaf.maxAMPct
			if ls.MaxAMResourcePercent > 0 {
				lp.amPct = ls.MaxAMResourcePercent
			}
		}
		s.refreshUsedCapOn(q, i+1)
	}
}

// absoluteMinOn is absoluteMin on labelled partition p: the configured
// minimum, scaled down per type when the siblings' minimums on the
// partition together exceed the parent's guarantee there.
func (s *Scheduler) absoluteMinOn(q *qnode, p int, min berth.Resource) berth.Resource {
	if q.parent == nil {
		return min
	}
	name := s.parts[p].name
	var sum berth.Resource
	for _, c := range q.parent.children {
		if cs, ok := c.set().NodeLabels[name]; ok && cs.Capacity.IsAbsolute() && c.kind != queue.KindReservation {
			sum = sum.Add(cs.Capacity.Resource)
		}
	}
	return scaleAbsolute(min, sum, q.parent.lp[p-1].effMin)
}

// refreshUsedCapOn is refreshUsedCap on labelled partition p; labelled
// walks sort children per visit, so there is no kept order to re-key.
func (s *Scheduler) refreshUsedCapOn(q *qnode, p int) {
	lp := &q.lp[p-1]
	total := s.parts[p].total
	if total.IsZero() {
		lp.usedCap, lp.absUsedCap = 0, 0
		return
	}
	g := berth.Max(s.calculator, total, lp.effMin, s.cfg.MinAllocation)
	lp.usedCap = s.calculator.Divide(total, lp.used, g)
	lp.absUsedCap = s.calculator.Divide(total, lp.used, total)
}

// chargeOn is charge on partition p: the mirror of p, the tree's
// accounting (which sums every partition).
func (s *Scheduler) chargeOn(p int, q *qnode, u *user, delta berth.Resource, res bool) {
	if p == 0 {
		s.charge(q, u, delta, res)
		return
	}
	s.chargeMirrorOn(p, q, u, delta, res)
	d := queue.Delta{Used: delta}
	if res {
		d.Reserved = delta
	}
	s.accountUser(q, u, d)
}

// chargeMirrorOn is chargeMirror on partition p.
func (s *Scheduler) chargeMirrorOn(p int, q *qnode, u *user, delta berth.Resource, res bool) {
	if p == 0 {
		s.chargeMirror(q, u, delta, res)
		return
	}
	s.userUsageOn(q, u, p, delta)
	for n := q; n != nil; n = n.parent {
		lp := &n.lp[p-1]
		lp.used = lp.used.Add(delta)
		if res {
			lp.reserved = lp.reserved.Add(delta)
		}
		s.refreshUsedCapOn(n, p)
	}
}

// userUsageOn is userUsage on labelled partition p.
func (s *Scheduler) userUsageOn(q *qnode, u *user, p int, delta berth.Resource) {
	lp, up := &q.lp[p-1], &u.lp[p-1]
	up.used = up.used.Add(delta)
	if u.activeApps > 0 {
		lp.activeUsed = lp.activeUsed.Add(delta)
	}
	var r float32
	if total := s.parts[p].total; !total.IsZero() {
		r = s.calculator.Divide(total, up.used, total)
	}
	lp.usageRatio += r - up.ratio
	up.ratio = r
}

// addPendingOn is addPending on labelled partition p.
func (s *Scheduler) addPendingOn(p int, q *qnode, u *user, delta berth.Resource) {
	for n := q; n != nil; n = n.parent {
		n.lp[p-1].pending = n.lp[p-1].pending.Add(delta)
	}
	s.accountUser(q, u, queue.Delta{Pending: delta})
}

// appUsageOn changes a's usage on partition p (its total too).
func (s *Scheduler) appUsageOn(a *app, p int, delta berth.Resource) {
	if p != 0 {
		a.lp[p-1].used = a.lp[p-1].used.Add(delta)
	}
	s.appUsage(a, delta)
}

// reservedOn is a's reserved resource on partition p.
func (a *app) reservedOn(p int) berth.Resource {
	if a.lp == nil {
		return a.reserved // inlined: without labels
	}
	return a.reservedOnParts(p)
}

func (a *app) reservedOnParts(p int) berth.Resource {
	return a.onPart(p, a.reserved, func(x *apart) berth.Resource { return x.reserved })
}

// usedOn and pendingOn are a's usage and demand on partition p.
func (a *app) usedOn(p int) berth.Resource {
	return a.onPart(p, a.used, func(x *apart) berth.Resource { return x.used })
}

func (a *app) pendingOn(p int) berth.Resource {
	return a.onPart(p, a.pending, func(x *apart) berth.Resource { return x.pending })
}

// onPart is the part on partition p of a's total, of which field gives
// each labelled partition's: the default partition holds the rest.
func (a *app) onPart(p int, total berth.Resource, field func(*apart) berth.Resource) berth.Resource {
	switch {
	case a.lp == nil:
		return total
	case p != 0:
		return field(&a.lp[p-1])
	}
	for i := range a.lp {
		total = total.Sub(field(&a.lp[i]))
	}
	return total
}

// userUsedOn is u's usage on partition p.
func (u *user) usedOn(p int) berth.Resource {
	if p == 0 {
		return u.used
	}
	return u.lp[p-1].used
}

// pendingChanged recomputes a's outstanding demand per partition from its
// asks and propagates it: each labelled partition's change to the queue
// chain there, the default partition's as setPending does.
func (s *Scheduler) pendingChangedParts(a *app) {
	buf := s.partBuf[:0]
	for range s.parts {
		buf = append(buf, berth.Resource{})
	}
	for _, k := range a.asks.Keys() {
		if k.Outstanding() > 0 {
			buf[k.Payload.part] = buf[k.Payload.part].Add(k.Pending())
		}
	}
	s.partBuf = buf
	was := a.hasPending()
	d0 := buf[0].Sub(a.pendingOn(0))
	total := buf[0]
	for i := range a.lp {
		ap := &a.lp[i]
		total = total.Add(buf[i+1])
		if d := buf[i+1].Sub(ap.pending); !d.IsZero() {
			ap.pending = buf[i+1]
			if a.state == appActive {
				s.addPendingOn(i+1, a.q, a.u, d)
			}
		}
	}
	s.pendingAll = s.pendingAll.Add(total.Sub(a.pending))
	a.pending = total
	if a.state == appActive && !d0.IsZero() {
		s.addPending(a.q, a.u, d0)
	}
	s.pendingMoved(a, was)
}

// setPendingOn sets a's demand on labelled partition p to v after an
// allocation on it.
func (s *Scheduler) setPendingOn(a *app, p int, v berth.Resource) {
	was := a.hasPending()
	ap := &a.lp[p-1]
	d := v.Sub(ap.pending)
	ap.pending = v
	a.pending = a.pending.Add(d)
	s.pendingAll = s.pendingAll.Add(d)
	if a.state == appActive && !d.IsZero() {
		s.addPendingOn(p, a.q, a.u, d)
	}
	s.pendingMoved(a, was)
}

// addAppPending adds (sign +1) or removes (-1) all of a's demand to or
// from its queue chain, partition by partition (activation, moves).
func (s *Scheduler) addAppPending(q *qnode, u *user, a *app, neg bool) {
	f := func(r berth.Resource) berth.Resource {
		if neg {
			return r.Neg()
		}
		return r
	}
	if a.lp == nil {
		s.addPending(q, u, f(a.pending))
		return
	}
	s.addPending(q, u, f(a.pendingOn(0)))
	for i := range a.lp {
		if !a.lp[i].pending.IsZero() {
			s.addPendingOn(i+1, q, u, f(a.lp[i].pending))
		}
	}
}

// chargeApp charges (or with neg takes back) a's usage and reservations
// to leaf q's mirror and accounting, partition by partition (moves).
func (s *Scheduler) chargeApp(q *qnode, u *user, a *app, neg bool) {
	f := func(r berth.Resource) berth.Resource {
		if neg {
			return r.Neg()
		}
		return r
	}
	for p := 0; p < len(s.parts); p++ {
		if a.lp == nil && p > 0 {
			break
		}
		if used := a.usedOn(p); !used.IsZero() {
			s.chargeOn(p, q, u, f(used), false)
		}
		if res := a.reservedOn(p); !res.IsZero() {
			s.chargeOn(p, q, u, f(res), true)
		}
	}
}

// amUsage counts a's AM in (or with neg out of) its leaf's and user's AM
// usage on its AM's partition.
func (s *Scheduler) amUsage(q *qnode, u *user, a *app, neg bool) {
	r := a.amRes
	if neg {
		r = r.Neg()
	}
	if a.amPart == 0 {
		q.leaf.amUsed = q.leaf.amUsed.Add(r)
		u.amUsed = u.amUsed.Add(r)
		return
	}
	lp, up := &q.lp[a.amPart-1], &u.lp[a.amPart-1]
	lp.amUsed = lp.amUsed.Add(r)
	up.amUsed = up.amUsed.Add(r)
}

// checkMovePartitions refuses to move a to a leaf that cannot access a
// partition a still asks for (YARN's checkQueuePartition).
func (s *Scheduler) checkMovePartitions(a *app, q *qnode) error {
	if a.lp == nil {
		return nil
	}
	var missing []string
	for i := range a.lp {
		if name := s.parts[i+1].name; !a.lp[i].pending.IsZero() && !q.access.has(name) {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		return fieldErr(berth.ErrInvalidArgument, "queue", q.path,
			"Specified queue=%s can't satisfy following apps label expressions =%v", q.path, missing)
	}
	return nil
}

// orderParts puts the labelled partitions in the order names gives (a
// restored scheduler's must be the saved one's, whose indexes its records
// use). It runs before any node, application or reservation queue exists:
// the queues' per-partition values are derived and recomputed later.
func (s *Scheduler) orderParts(names []string) error {
	if names == nil {
		return nil // version 1: no labels
	}
	if len(names) != len(s.parts)-1 {
		return fmt.Errorf("%d partitions, the configuration declares %d", len(names), len(s.parts)-1)
	}
	parts := []part{s.parts[0]}
	partOf := make(map[string]int, len(names))
	for _, n := range names {
		i, ok := s.partOf[n]
		if !ok {
			return fmt.Errorf("partition %q is not a configured node label", n)
		}
		if _, dup := partOf[n]; dup {
			return fmt.Errorf("partition %q listed twice", n)
		}
		partOf[n] = len(parts)
		parts = append(parts, s.parts[i])
	}
	s.parts, s.partOf = parts, partOf
	s.clusterChanged()
	return nil
}

// borrowedOf lists leaf q's borrowed containers, the latest application's
// first and each application's newest first (YARN's descending order of
// container ids within a leaf's ignore-exclusivity set).
func (s *Scheduler) borrowedOf(q *qnode) []Container {
	var out []Container
	for i := len(q.leaf.apps) - 1; i >= 0; i-- {
		a := q.leaf.apps[i]
		if a.borrowed == 0 {
			continue
		}
		start := len(out)
		for c := a.head; c != nil; c = c.aNext {
			if c.borrowed {
				out = append(out, c.c)
			}
		}
		seg := out[start:]
		slices.SortFunc(seg, func(x, y Container) int { return cmpID(y.ID, x.ID) })
	}
	return out
}
