package fair

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/internal/order"
)

// The heartbeat walk visits children and applications in policy order. YARN
// sorts them on every visit (n log n per heartbeat and leaf); the scheduler
// keeps them in order.Set sets instead, keyed by sortKey, and re-keys an
// item when an input of its key changes:
//
//   - usage: on every allocation and release (the application and its
//     queue's path), and on a move (both paths);
//   - demand and application weight: only on Update, which recomputes them;
//   - queue weight, min share, policy, the tree's shape, the cluster
//     resource (DRF) and the resource types: on reload, reconfiguration,
//     node changes and entitlement changes — rare, so they mark the whole
//     order stale and the next walk re-keys every item (O(n) keys, O(log n)
//     per item that moved).
//
// Cheap notifications (touchApp, touchPath) queue items on a dirty list;
// the walk flushes it before each descent from the root, so every walk sees
// the order a sort of the current values would give.

// sortKey is a policy's comparison of Policy.Compare flattened into a
// lexicographic key: for items whose keys are all comparable (ok), cmpKey
// agrees with Compare exactly, so the order kept incrementally is the order
// a sort gives (Compare is total: it ends on the unique name). Where
// Compare is not a strict weak order (NaN ratios, negative demand) the item
// is marked bad and its set falls back to sorting with Compare.
type sortKey struct {
	k     [6]float64
	xs    []float64 // DRF over more than two types: the compared column
	start berth.Time
	name  string
	bad   bool
	fam   keyFamily // the layout of k, for keyPrefix
	// npre is namePrefix(name) when npreSet: the owner computes it once,
	// as reading the name's bytes on every re-key is a cache miss.
	npre    uint64
	npreSet bool
}

// keyFamily is the layout of a sortKey's components: keyPrefix summarises
// the built-in policies' keys more tightly than any key's.
type keyFamily uint8

const (
	famAny  keyFamily = iota // any key (host policies, DRF over more types)
	famFair                  // fairKey's
	famDRF2                  // drf2Key's
	famFIFO                  // FIFO's: the priority only
)

// keyFamily is the layout of p's keys.
func (p Policy) keyFamily(types []string) keyFamily {
	switch p {
	case PolicyFIFO:
		return famFIFO
	case PolicyDRF:
		if len(types) == 0 {
			return famDRF2
		}
		return famAny
	}
	return famFair
}

// keyPrefix is the order.Prefix of k: within one family it follows
// cmpKey (a key before another never has a greater prefix), so the Order
// keeps cmpKey's order while deciding most comparisons on the prefixes,
// without reading the items. Components are encoded exactly, in cmpKey's
// order, as far as they fit; only the last encoded one may be truncated.
// (Sets briefly hold keys of two families while a reload re-keys them;
// the Order's order, by prefix first, stays consistent meanwhile.)
func keyPrefix(k *sortKey) order.Prefix {
	c := &k.k
	switch k.fam {
	case famFair:
		if c[1] == 0 {
			// Needy (k[2] is the ratio compared first): the ratio,
			// truncated; ties are left to cmpKey.
			return order.Prefix{uint64(c[0])<<63 | ordBits(c[2])>>2}
		}
		// Not needy: k[2] is 0 and k[3] the weight class (0 to 2);
		// k[5] is 0 unless the class is 2 (negative weights).
		p := order.Prefix{uint64(c[0])<<63 | 1<<62 | (uint64(c[3])&3)<<60, ordBits(c[4])}
		if c[3] == 2 {
			p[2] = ordBits(c[5])
			return p
		}
		p[2], p[3] = ordInt(k.start), k.namePrefix()
		return p
	case famDRF2:
		// k[0] is the class (0 or 1), k[1] and k[2] the compared shares
		// (or ratios), k[3:] are 0.
		if c[1] < 0 {
			return order.Prefix{uint64(c[0]) << 63}
		}
		return order.Prefix{uint64(c[0])<<63 | nonNegBits(c[1]), ordBits(c[2]), ordInt(k.start), k.namePrefix()}
	case famFIFO:
		// Only k[0] (the negated priority) is set.
		return order.Prefix{ordBits(c[0]), ordInt(k.start), k.namePrefix()}
	}
	return order.Prefix{ordBits(c[0]), ordBits(c[1]), ordBits(c[2]), ordBits(c[3])}
}

// ordBits maps floats (not NaN) to integers in the same order.
func ordBits(x float64) uint64 { return order.PrefixFloat(x) }

// nonNegBits is ordBits for x >= 0 in 63 bits.
func nonNegBits(x float64) uint64 {
	if x == 0 {
		return 0
	}
	return math.Float64bits(x)
}

// ordInt maps int64s to uint64s in the same order.
func ordInt(x int64) uint64 { return order.PrefixInt(x) }

func (k *sortKey) namePrefix() uint64 {
	if k.npreSet {
		return k.npre
	}
	return namePrefix(k.name)
}

// namePrefix is s's first eight bytes, big-endian, zero-padded: strings
// that compare less never get a greater value.
func namePrefix(s string) uint64 {
	var v uint64
	for i := range 8 {
		v <<= 8
		if i < len(s) {
			v |= uint64(s[i])
		}
	}
	return v
}

// cmpKey orders keys lexicographically.
func cmpKey(a, b *sortKey) int {
	for i := range a.k {
		if a.k[i] != b.k[i] {
			if a.k[i] < b.k[i] {
				return -1
			}
			return 1
		}
	}
	for i := range min(len(a.xs), len(b.xs)) {
		if a.xs[i] != b.xs[i] {
			if a.xs[i] < b.xs[i] {
				return -1
			}
			return 1
		}
	}
	if c := cmpInt(len(a.xs), len(b.xs)); c != 0 {
		return c
	}
	if c := cmpInt64(a.start, b.start); c != 0 {
		return c
	}
	return strings.Compare(a.name, b.name)
}

func cmpInt(a, b int) int { return cmpInt64(int64(a), int64(b)) }

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// key computes s's sortKey under p (see Compare for the arguments).
func (p Policy) key(cluster berth.Resource, types []string, s *Schedulable) sortKey {
	var k sortKey
	p.keyInto(cluster, types, s, &k)
	return k
}

// keyInto is key writing into *out: keys are large, and the walk's
// re-keys would otherwise copy them at every call.
func (p Policy) keyInto(cluster berth.Resource, types []string, s *Schedulable, out *sortKey) {
	*out = sortKey{start: s.StartTime, name: s.Name}
	k := out
	switch p {
	case PolicyFIFO:
		k.k[0] = -float64(s.Priority)
	case PolicyDRF:
		if len(types) == 0 {
			k.bad = drf2Key(&cluster, s, &k.k)
		} else {
			k.k[0], k.xs, k.bad = drfNKey(cluster, types, s)
		}
	default:
		k.k, k.bad = fairKey(s)
	}
	if k.bad {
		// Only a sort places it; the Order still needs a consistent key
		// (NaN compares with nothing).
		k.k, k.xs = [6]float64{}, nil
	}
}

// fairKey follows compareFair: zero demand last; needy (usage under
// min(minShare, demand)) first, by usage/minShare; then by weight class —
// positive weights by usage/weight, zero weights by usage, negative weights
// by -weight then usage — which is how compareFair's three weight cases
// relate any two items.
func fairKey(s *Schedulable) ([6]float64, bool) {
	var k [6]float64
	d, u, w := s.Demand.Memory, s.Usage.Memory, s.Weight
	if d < 0 || math.IsNaN(w) {
		// compareFair treats negative demand as neither zero nor
		// positive, and NaN weights as equal to any: not orderable by key.
		return k, true
	}
	k[0] = b2f(d == 0)
	if m := min(s.MinShare.Memory, d); u < m {
		k[2] = float64(u) / float64(max(m, 1))
	} else {
		k[1] = 1
	}
	switch {
	case w > 0:
		k[4] = float64(u) / w
	case w == 0:
		k[3], k[4] = 1, float64(u)
	default:
		k[3], k[4], k[5] = 2, -w, float64(u)
	}
	return k, false
}

// drf2Key follows compareDRF2: needy first, then the dominant and the other
// share (of usage per weight, or of usage per min share when needy). It
// writes into *k, which must be zero (keys are computed on every
// allocation: returning the array would copy it), and reports a bad key.
func drf2Key(cluster *berth.Resource, s *Schedulable, k *[6]float64) bool {
	sh, d := drfShares2(s, *cluster)
	u := [2]int64{s.Usage.Memory, s.Usage.VCores}
	m := [2]int64{s.MinShare.Memory, s.MinShare.VCores}
	if u[d] < m[d] {
		r := [2]float64{float64(u[0]) / float64(m[0]), float64(u[1]) / float64(m[1])}
		k[1], k[2] = r[d], r[1-d]
	} else {
		k[0], k[1], k[2] = 1, sh[d], sh[1-d]
	}
	return math.IsNaN(k[1]) || math.IsNaN(k[2])
}

// drfNKey follows compareDRFN: needy first, then the column compared there
// (usage per weight, or per min share when needy) in the item's own order
// of usage ratios.
func drfNKey(cluster berth.Resource, types []string, s *Schedulable) (float64, []float64, bool) {
	rows, dom := drfRatios(s, cluster, types)
	dn := typeAt(types, dom)
	col, cls := 1, 1.0
	if s.Usage.Get(dn) < s.MinShare.Get(dn) {
		col, cls = 2, 0
		for i := range rows {
			n := typeAt(types, i)
			rows[i][2] = float32(s.Usage.Get(n)) / float32(s.MinShare.Get(n))
		}
	}
	sortRatios(rows)
	xs := make([]float64, len(rows))
	bad := false
	for i, r := range rows {
		xs[i] = float64(r[col])
		bad = bad || math.IsNaN(xs[i])
	}
	return cls, xs, bad
}

// ordSet is one walk's order (a parent's children or a leaf's
// applications) and the count of its members that only a sort can place.
//
// Queues hold theirs in place (the Order too), not behind pointers: a
// heartbeat visiting a leaf that is out of cache then misses once for
// its order rather than once per indirection.
type ordSet[V any] struct {
	o   order.Set[sortKey, V]
	bad int
}

// init makes s an empty set; s must not move afterwards (members point to
// s.o).
func (s *ordSet[V]) init() {
	*s = ordSet[V]{o: *order.NewPrefixed[sortKey, V](cmpKey, keyPrefix)}
}

// put inserts or re-keys e; wasBad is whether e's key in the set (if it
// is a member) is bad.
func (s *ordSet[V]) put(e *order.Entry[sortKey, V], k *sortKey, wasBad bool) {
	if wasBad && e.In(&s.o) {
		s.bad--
	}
	if k.bad {
		s.bad++
	}
	s.o.RekeyPtr(e, k)
}

// drop removes e if it is a member.
func (s *ordSet[V]) drop(e *order.Entry[sortKey, V]) {
	if !e.In(&s.o) {
		return
	}
	if e.Key().bad {
		s.bad--
	}
	s.o.Remove(e)
}

func (s *Scheduler) noteOrderBug(q *fsQueue, got, want int) {
	if s.bug == nil {
		s.bug = fmt.Errorf("fair: walk order of %s differs from a sort (%d kept, %d sorted)", q.path, got, want)
	}
}

// touchApp notes that an input of a's key or membership changed.
func (s *Scheduler) touchApp(a *app) {
	if !a.dirty {
		a.dirty = true
		s.dirtyApps = append(s.dirtyApps, a)
	}
}

// touchPath notes that q's and its ancestors' usage changed.
func (s *Scheduler) touchPath(q *fsQueue) {
	for ; q != nil && q.parent != nil; q = q.parent {
		if !q.dirty {
			q.dirty = true
			s.dirtyQueues = append(s.dirtyQueues, q)
		}
	}
}

// flushOrder brings every order up to date before a walk.
func (s *Scheduler) flushOrder() {
	stale := s.ordStale
	if stale {
		s.ordStale = false
		s.resyncOrder(s.root)
	}
	// After a resync every item is in place, the dirty ones included:
	// placing them again would only re-read their (cold) records.
	for _, a := range s.dirtyApps {
		a.dirty = false
		if !stale {
			s.placeApp(a)
		}
	}
	s.dirtyApps = s.dirtyApps[:0]
	for _, q := range s.dirtyQueues {
		q.dirty = false
		if !stale {
			s.placeQueue(q)
		}
	}
	s.dirtyQueues = s.dirtyQueues[:0]
}

// resyncOrder re-keys every queue and application below q, the root,
// after counting the walkable ones afresh (recount).
func (s *Scheduler) resyncOrder(q *fsQueue) {
	s.recount(q)
	s.replace(q)
}

func (s *Scheduler) replace(q *fsQueue) {
	s.placeQueue(q)
	for _, a := range q.runnableApps {
		s.placeApp(a)
	}
	for _, a := range q.nonRunnableApps {
		s.placeApp(a)
	}
	for _, c := range q.children {
		s.replace(c)
	}
}

// The walk offers a node only to queues that have a walkable application
// below them: a runnable one with pending demand, the applications a
// leaf's walk visits (placeApp). Visiting any other queue cannot assign
// or change anything, but costs as much as any visit, and idle queues
// can be many: a plan keeps the queues of its finished reservations for
// a day, and under DRF idle queues, using nothing, come first. So each
// queue counts its walkable members (walkN: applications for a leaf,
// children with walkN > 0 for a parent), a parent's kept order holds
// only its walkable children, and its sorted walk skips the others:
// heartbeats cost the same whatever the number of idle queues.
//
// Invariant (after each flushOrder, which every walk starts with):
// a.walkQ is a.q when a is walkable, nil otherwise, and each queue's
// walkN is as above. placeApp, which every change of an input of a's
// walkability reaches through touchApp, keeps it (walkable); structural
// changes mark the order stale and resyncOrder counts afresh (recount);
// detachApp uncounts an application leaving the scheduler at once.
// TestStateRestoresEveryField compares the counts kept so with a restored
// scheduler's, counted afresh.

// isWalkable reports whether the leaf walk visits a (see placeApp).
func isWalkable(a *app) bool {
	q := a.q
	return a.runnable && q != nil && q.leaf && !a.gone && !a.Demand.Sub(a.Usage).IsZero()
}

// recount sets every walkQ and walkN below q from scratch.
func (s *Scheduler) recount(q *fsQueue) {
	q.walkN, q.idleBad, q.idleBadN = 0, false, 0 // placeQueue sets the last two again
	for _, a := range q.runnableApps {
		a.walkQ = nil
		if isWalkable(a) {
			a.walkQ = q
			q.walkN++
		}
	}
	for _, a := range q.nonRunnableApps {
		a.walkQ = nil
	}
	for _, c := range q.children {
		s.recount(c)
		if c.walkN > 0 {
			q.walkN++
		}
	}
}

// walkable records whether a is walkable (w), moving its count between
// leaves as needed.
func (s *Scheduler) walkable(a *app, w bool) {
	var q *fsQueue
	if w {
		q = a.q
	}
	if a.walkQ == q {
		return
	}
	if a.walkQ != nil {
		s.addWalk(a.walkQ, -1)
	}
	if q != nil {
		s.addWalk(q, 1)
	}
	a.walkQ = q
}

// addWalk adds d (1 or -1) to q's walkN, and to its ancestors' while a
// queue becomes walkable or idle; such a queue joins or leaves its
// parent's kept order at the next flush.
func (s *Scheduler) addWalk(q *fsQueue, d int) {
	for ; q != nil; q = q.parent {
		was := q.walkN > 0
		q.walkN += d
		if q.walkN > 0 == was || q.parent == nil {
			return
		}
		if !q.dirty {
			q.dirty = true
			s.dirtyQueues = append(s.dirtyQueues, q)
		}
	}
}

// smallSet is the size up to which a leaf's applications or a parent's
// children are sorted on each visit, as YARN does, instead of kept in an
// Order: sorting a handful costs less than re-keying on every allocation,
// and the bound keeps the walk independent of the number of applications.
const smallSet = 8

// placeApp puts a where the walk must see it: in its leaf's order when it
// is runnable with pending demand, nowhere otherwise.
func (s *Scheduler) placeApp(a *app) {
	q := a.q
	w := isWalkable(a)
	s.walkable(a, w)
	if !w {
		s.unplaceApp(a)
		return
	}
	if len(q.runnableApps) <= s.sortSmall {
		s.unplaceApp(a)
		q.appStale = true // sorted per visit; filled if it grows
		return
	}
	if a.set != &q.appOrd {
		s.unplaceApp(a)
		a.set = &q.appOrd
	}
	k := &s.keyOut
	policyKey(q.keyer, s.env(), &a.Schedulable, a.npre, &s.keyBuf, k)
	a.set.put(&a.ord, k, a.ordBad)
	a.ordBad = k.bad
	k.xs, k.name = nil, "" // hold no references (keyInto rewrites the rest)
}

func (s *Scheduler) unplaceApp(a *app) {
	if a.set != nil {
		a.set.drop(&a.ord)
		a.set = nil
	}
}

// placeQueue re-keys q in its parent's order.
func (s *Scheduler) placeQueue(q *fsQueue) {
	p := q.parent
	if p == nil || q.gone {
		return
	}
	if len(p.children) <= s.sortSmall {
		p.kidOrd.drop(&q.ord)
		p.kidStale = true
		return
	}
	k := &s.keyOut
	policyKey(p.keyer, s.env(), &q.Schedulable, q.npre, &s.keyBuf, k)
	if q.walkN == 0 {
		// Idle: out of the order (the walk skips it, see isWalkable), but
		// a bad key still sends the parent's walk to a sort of every
		// child (keptKids), as it would if q were a member.
		p.kidOrd.drop(&q.ord)
		s.setIdleBad(q, k.bad)
	} else {
		s.setIdleBad(q, false)
		p.kidOrd.put(&q.ord, k, q.ordBad)
		q.ordBad = k.bad
	}
	k.xs, k.name = nil, "" // hold no references (keyInto rewrites the rest)
}

// setIdleBad records whether q, idle, has a bad key.
func (s *Scheduler) setIdleBad(q *fsQueue, bad bool) {
	if q.idleBad == bad {
		return
	}
	q.idleBad = bad
	if bad {
		q.parent.idleBadN++
	} else {
		q.parent.idleBadN--
	}
}

// keptKids reports whether the walk uses q's kept child order, filling it
// first if q grew past smallSet since it was last kept.
func (s *Scheduler) keptKids(q *fsQueue) bool {
	if s.sortWalk || len(q.children) <= s.sortSmall {
		return false
	}
	if q.kidStale {
		q.kidStale = false
		for _, c := range q.children {
			s.placeQueue(c)
		}
	}
	return q.kidOrd.bad == 0 && q.idleBadN == 0
}

// keptApps is keptKids for a leaf's applications.
func (s *Scheduler) keptApps(q *fsQueue) bool {
	if s.sortWalk || len(q.runnableApps) <= s.sortSmall {
		return false
	}
	if q.appStale {
		q.appStale = false
		for _, a := range q.runnableApps {
			s.placeApp(a)
		}
	}
	return q.appOrd.bad == 0
}

// sortedKids is the reference order of q's children: a sort with Compare,
// as YARN does on every visit.
// Idle children are sorted too: with a comparator that is not a strict
// weak order (bad keys), leaving them out could change the others' order.
func (s *Scheduler) sortedKids(q *fsQueue) []*fsQueue {
	kids := append(q.kidsBuf[:0], q.children...)
	q.kidsBuf = kids
	env, pol := s.env(), q.order
	slices.SortFunc(kids, func(a, b *fsQueue) int {
		return pol.Compare(env, SchedulableView{&a.Schedulable}, SchedulableView{&b.Schedulable})
	})
	return kids
}

// sortedApps is the reference order of q's runnable applications with
// pending demand.
func (s *Scheduler) sortedApps(q *fsQueue) []*app {
	apps := q.appsBuf[:0]
	for _, a := range q.runnableApps {
		if !a.Demand.Sub(a.Usage).IsZero() {
			apps = append(apps, a)
		}
	}
	q.appsBuf = apps
	env, pol := s.env(), q.order
	slices.SortFunc(apps, func(a, b *app) int {
		return pol.Compare(env, SchedulableView{&a.Schedulable}, SchedulableView{&b.Schedulable})
	})
	return apps
}

// checkOrders compares the kept orders with the reference sorts and notes
// the first difference as a bug (tests turn checking on).
func (s *Scheduler) checkOrders(q *fsQueue) {
	if q.parent == nil {
		s.checkWalk(q)
	}
	if q.leaf {
		if !s.keptApps(q) {
			return
		}
		want := slices.Clone(s.sortedApps(q))
		var got []*app
		q.appOrd.o.Ascend(func(a *app) bool { got = append(got, a); return true })
		if !slices.Equal(got, want) {
			s.noteOrderBug(q, len(got), len(want))
		}
		return
	}
	if s.keptKids(q) {
		want := slices.DeleteFunc(slices.Clone(s.sortedKids(q)), func(c *fsQueue) bool { return c.walkN == 0 })
		var got []*fsQueue
		q.kidOrd.o.Ascend(func(c *fsQueue) bool { got = append(got, c); return true })
		if !slices.Equal(got, want) {
			s.noteOrderBug(q, len(got), len(want))
		}
	}
	for _, c := range q.children {
		s.checkOrders(c)
	}
}

// checkWalk compares the walkable counts below q, and the counts of idle
// children with bad keys of kept orders, with counts from scratch and
// notes the first difference as a bug; it returns whether q is walkable.
func (s *Scheduler) checkWalk(q *fsQueue) bool {
	n := 0
	for _, a := range q.runnableApps {
		w := isWalkable(a)
		if w {
			n++
		}
		if (a.walkQ == q) != w && s.bug == nil {
			s.bug = fmt.Errorf("fair: application %s counted walkable %t, is %t", a.id, a.walkQ == q, w)
		}
	}
	bad := 0
	kept := len(q.children) > s.sortSmall && !q.kidStale // idleBadN is kept
	for _, c := range q.children {
		if s.checkWalk(c) {
			n++
		} else if kept {
			var k sortKey
			policyKey(q.keyer, s.env(), &c.Schedulable, c.npre, &s.keyBuf, &k)
			if k.bad {
				bad++
			}
		}
	}
	if kept && bad != q.idleBadN && s.bug == nil {
		s.bug = fmt.Errorf("fair: queue %s counts %d idle children with bad keys, has %d", q.path, q.idleBadN, bad)
	}
	if n != q.walkN && s.bug == nil {
		s.bug = fmt.Errorf("fair: queue %s counts %d walkable, has %d", q.path, q.walkN, n)
	}
	return n > 0
}
