package capacity

import (
	"fmt"
	"math"
	"slices"

	"github.com/berthsched/berth/internal/order"
)

// The walk visits a leaf's applications in ordering-policy order and a
// parent's children in queue order. Both are kept in order.Set sets,
// re-keyed where an input of the key changes, so a heartbeat costs
// O(log n) per change instead of a sort per visit:
//
//   - applications: the fair policy's key (usage, start, demand) changes
//     with the application's usage and pending demand (appUsage,
//     setPending re-insert it, as the sorted list did before); FIFO's key
//     (priority, submission) never changes;
//   - children: the key (guarantee class, used capacity, priority, absolute
//     capacity, position) changes with the child's usage
//     (refreshUsedCap, called on every charge along the path and by
//     applyCapacities after every guarantee change) and with the
//     configuration (clusterChanged re-keys every child after a
//     reconfiguration or a node change); only children with pending demand
//     are kept (see rekeyChild).

// appKey is a leaf's application order as a lexicographic key: cmpFair's
// (usage magnitude, start time, demand, submission) or fifoBefore's
// (priority, submission). Both comparators are total orders (submission
// numbers are unique, and the magnitude is never NaN), so the kept order is
// exactly the order the sorted list had.
// The key is a policy's AppSortKey (for the built-ins: magnitude, start
// time, no-demand flag; start times are exact in a float64 below 2^53)
// followed by the submission number.
type appKey struct {
	k   [3]float64
	seq uint64
}

func cmpAppKey(a, b *appKey) int {
	for i := range a.k {
		if a.k[i] != b.k[i] {
			if a.k[i] < b.k[i] {
				return -1
			}
			return 1
		}
	}
	return cmpSeq(a.seq, b.seq)
}

// appKeyOf computes a's key under the leaf's policy from the values
// captured at insertion (sortUsed, sortDemand).
func appKeyOf(pol AppOrdering, sizeWeight bool, a *app) appKey {
	if pol == OrderFair {
		nd := 0.0
		if a.sortDemand <= 0 {
			nd = 1
		}
		return appKey{k: [3]float64{fairMagnitude(a, sizeWeight), float64(a.start), nd}, seq: a.seq}
	}
	return appKey{k: [3]float64{-float64(a.priority)}, seq: a.seq}
}

type appOrder = order.Set[appKey, *app]

func newAppOrder() *appOrder { return order.NewPrefixed[appKey, *app](cmpAppKey, appPrefix) }

// appPrefix is the whole key (its floats are never NaN): the Order
// compares applications without reading them.
func appPrefix(k *appKey) order.Prefix {
	return order.Prefix{order.PrefixFloat(k.k[0]), order.PrefixFloat(k.k[1]), order.PrefixFloat(k.k[2]), k.seq}
}

// childKey is cmpChildren as a lexicographic key. cmpChildren puts
// children with a positive guarantee first; among the others, a child below
// its guarantee (used capacity < 1) always precedes one at or above it
// (cmpUtilization compares their usage, or their priorities only when both
// are on the same side), so the order is: guarantee class, side,
// priority (higher first, when respected), used capacity, absolute
// capacity (larger first), position. NaN used capacities are on no side
// and compare equal to everything: such a child is bad and its parent is
// sorted instead.
type childKey struct {
	k   [5]float64
	pos int
	bad bool
}

func cmpChildKey(a, b *childKey) int {
	for i := range a.k {
		if a.k[i] != b.k[i] {
			if a.k[i] < b.k[i] {
				return -1
			}
			return 1
		}
	}
	return a.pos - b.pos
}

func childKeyOf(c *qnode, respectPriority bool) childKey {
	var k childKey
	pos := c.absCap > 0
	u := c.usedCap
	if !pos {
		k.k[0] = 1
		u = c.absUsedCap
	}
	if u >= 1 {
		k.k[1] = 1
	}
	if respectPriority {
		k.k[2] = -float64(c.set().Priority)
	}
	k.k[3] = float64(u)
	k.k[4] = -c.absCap
	k.pos = c.pos
	if math.IsNaN(k.k[3]) || math.IsNaN(k.k[4]) {
		k = childKey{pos: c.pos, bad: true}
	}
	return k
}

type childOrder = order.Set[childKey, *qnode]

func newChildOrder() *childOrder {
	return order.NewPrefixed[childKey, *qnode](cmpChildKey, childPrefix)
}

// childPrefix is the key's first four components (not NaN: NaN keys are
// bad and zeroed).
func childPrefix(k *childKey) order.Prefix {
	return order.Prefix{order.PrefixFloat(k.k[0]), order.PrefixFloat(k.k[1]), order.PrefixFloat(k.k[2]), order.PrefixFloat(k.k[3])}
}

// smallFan is the number of children up to which a parent sorts them on
// each visit, as before, instead of keeping them in its Order: re-sorting a
// handful of nearly sorted children (insertion sort, a few comparisons)
// costs less than re-keying the path on every allocation, and the bound
// keeps it independent of the number of queues.
const smallFan = 16

// smallPrioFan is smallFan for priority-utilization parents: their sort
// restarts from configuration order on every visit (the comparator is not
// transitive), so it costs more than the incremental insertion sort of
// utilization parents and the kept order pays off sooner.
const smallPrioFan = 4

// setKeyed decides whether q keeps its children in q.kids, filling the
// order when it starts to.
func (s *Scheduler) setKeyed(q *qnode) {
	fan := s.sortFan
	if q.set().ChildOrdering == OrderPriorityUtilization {
		fan = min(fan, smallPrioFan)
	}
	want := len(q.children) > fan
	if want == q.keyed {
		return
	}
	q.keyed = want
	q.kids.Clear()
	q.kidsBad = 0
	for _, c := range q.children {
		c.badKey = false
		if want {
			s.rekeyChild(c)
		}
	}
}

// A parent's kept order holds only its walkable children, those with
// pending demand: the walk skips the others (assignParent), and they can
// be many (a plan keeps its finished reservations' queues for a day) and,
// using nothing, come first under both child orderings. So a heartbeat
// costs the same whatever the number of idle siblings. A child joins the
// order, keyed afresh, when its demand becomes non-zero and leaves it when
// its demand becomes zero (addPending). Its key is still computed while it
// is idle, for badKey alone: a bad key anywhere, idle or not, sends the
// walk to a sort of every child (kidsBad), as before, since a comparison
// that is no strict weak order could place the walkable children
// differently without the idle ones.

// rekeyChild is the "key changed" notification for q in its parent's
// order, and the "walkable changed" one.
func (s *Scheduler) rekeyChild(q *qnode) {
	p := q.parent
	if p == nil || !p.keyed {
		return
	}
	k := parentChildKey(p, q)
	if k.bad != q.badKey {
		q.badKey = k.bad
		if k.bad {
			p.kidsBad++
		} else {
			p.kidsBad--
		}
	}
	if q.pending.IsZero() {
		p.kids.Remove(&q.ent) // nothing when q is no member
		return
	}
	p.kids.Rekey(&q.ent, k)
}

// dropChild takes q out of its parent's order and bad count.
func (s *Scheduler) dropChild(p, q *qnode) {
	if q.badKey {
		q.badKey = false
		p.kidsBad--
	}
	if p.kids != nil {
		p.kids.Remove(&q.ent)
	}
}

// checkKids compares q's kept child order with a sort of its walkable
// children by cmpChildren and notes the first difference as a bug (tests).
func (s *Scheduler) checkKids(q *qnode) {
	want := walkableKids(q)
	got := make([]*qnode, 0, len(want))
	q.kids.Ascend(func(c *qnode) bool { got = append(got, c); return true })
	if !slices.Equal(got, want) && s.bug == nil {
		s.bug = fmt.Errorf("capacity: child order of %s differs from a sort (%d kept, %d walkable children)", q.path, len(got), len(want))
	}
}

// checkMembers verifies q's order bookkeeping against its children: a
// kept order holds exactly the walkable children, kidsBad counts the
// children flagged badKey, and under a built-in ordering (or any, in tests
// that check orders) each flag is what the child's key, computed afresh,
// says, as the kept order is a sort's (a host's policy is not asked again
// otherwise: it may answer differently each time); a parent that sorts
// keeps no order.
func (s *Scheduler) checkMembers(q *qnode) error {
	_, builtin := childOrdering(q.set()).(builtinKids)
	bad, n := 0, 0 // children counted bad, members
	for _, c := range q.children {
		member := c.ent.In(q.kids)
		if member {
			n++
		}
		isBad := c.badKey
		if builtin || s.checkOrder || !q.keyed {
			isBad = q.keyed && parentChildKey(q, c).bad
		}
		switch {
		case !q.keyed && (member || c.badKey):
			return fmt.Errorf("queue %s sorts its children but keeps %s (bad %v)", q.path, c.path, c.badKey)
		case q.keyed && member == c.pending.IsZero():
			return fmt.Errorf("queue %s: child %s kept %v with pending %v", q.path, c.path, member, c.pending)
		case c.badKey != isBad:
			return fmt.Errorf("queue %s: child %s counted bad %v, its key says %v", q.path, c.path, c.badKey, isBad)
		}
		if isBad {
			bad++
		}
	}
	if bad != q.kidsBad {
		return fmt.Errorf("queue %s counts %d bad children, has %d", q.path, q.kidsBad, bad)
	}
	if n != q.kids.Len() {
		return fmt.Errorf("queue %s keeps %d children, %d of them its own", q.path, q.kids.Len(), n)
	}
	if q.keyed && q.kidsBad == 0 && (builtin || s.checkOrder) {
		want := walkableKids(q)
		i := 0
		q.kids.Ascend(func(c *qnode) bool {
			if want[i] != c {
				return false
			}
			i++
			return true
		})
		if i != len(want) {
			return fmt.Errorf("queue %s: kept child order differs from a sort at %d", q.path, i)
		}
	}
	return nil
}

// checkSorted compares the order a utilization parent's sort left with a
// stable sort of its children by cmpChildren, when that comparison is a
// total order (no NaN), and notes a difference as a bug (tests).
func (s *Scheduler) checkSorted(q *qnode) {
	if b, ok := childOrdering(q.set()).(builtinKids); !ok || b.prio || nanKids(q.children) {
		return
	}
	if !slices.Equal(q.order, sortedKids(q)) && s.bug == nil {
		s.bug = fmt.Errorf("capacity: sorted children of %s differ from a sort", q.path)
	}
}

// sortedKids is a stable sort of q's children by cmpKids: the reference
// the checks compare the kept and sorted orders with.
func sortedKids(q *qnode) []*qnode {
	want := slices.Clone(q.children)
	slices.SortStableFunc(want, cmpKids(q))
	return want
}

// walkableKids is sortedKids without the children with no pending demand,
// which kept orders leave out (rekeyChild).
func walkableKids(q *qnode) []*qnode {
	return slices.DeleteFunc(sortedKids(q), func(c *qnode) bool { return c.pending.IsZero() })
}
