package plan

import (
	"fmt"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/rle"
)

// checkTreap verifies a treap: keys in order, priorities a heap, the
// augmentations exact; it returns the number of nodes.
func checkTreap(t *tnode, key func(*Allocation) ivKey) (int, error) {
	if t == nil {
		return 0, nil
	}
	if t.key != key(t.a) {
		return 0, fmt.Errorf("node key %v is not its allocation's %v", t.key, key(t.a))
	}
	maxEnd, minStart := t.key.end, t.a.Start
	n := 1
	for _, ch := range []*tnode{t.left, t.right} {
		if ch == nil {
			continue
		}
		if ch.prio > t.prio {
			return 0, fmt.Errorf("heap order broken under %v", t.key)
		}
		if (ch == t.left) != (ch.key.compare(t.key) < 0) {
			return 0, fmt.Errorf("key order broken under %v", t.key)
		}
		k, err := checkTreap(ch, key)
		if err != nil {
			return 0, err
		}
		n += k
		maxEnd, minStart = max(maxEnd, ch.maxEnd), min(minStart, ch.minStart)
	}
	if t.maxEnd != maxEnd || t.minStart != minStart {
		return 0, fmt.Errorf("augmentation of %v: (%d, %d), want (%d, %d)", t.key, t.maxEnd, t.minStart, maxEnd, minStart)
	}
	return n, nil
}

func checkPeriodic(x periodicIndex) (int, error) {
	total := 0
	for i, g := range x.groups {
		if i > 0 && x.groups[i-1].period >= g.period {
			return 0, fmt.Errorf("periods out of order")
		}
		n, err := checkTreap(g.root, arcKey)
		if err != nil {
			return 0, err
		}
		if n != g.n || n == 0 {
			return 0, fmt.Errorf("period %d: %d nodes, count %d", g.period, n, g.n)
		}
		for a := range allNodes(g.root) {
			if a.Period() != g.period {
				return 0, fmt.Errorf("%v of period %d in group %d", a.ID, a.Period(), g.period)
			}
		}
		total += n
	}
	return total, nil
}

func allNodes(t *tnode) map[*Allocation]bool {
	out := map[*Allocation]bool{}
	var walk func(*tnode)
	walk = func(t *tnode) {
		if t != nil {
			out[t.a] = true
			walk(t.left)
			walk(t.right)
		}
	}
	walk(t)
	return out
}

// checkState verifies the indexes of a plan's state against its table.
func checkState(p *Plan) error {
	p.mu.RLock()
	defer p.mu.RUnlock()
	st := p.st
	np, err := checkIndex(st.byInterval)
	if err != nil {
		return err
	}
	pp, err := checkPeriodic(st.periodic)
	if err != nil {
		return err
	}
	if np+pp != st.table.Len() || st.byEnd.Len() != st.table.Len() {
		return fmt.Errorf("%d + %d indexed, table %d, byEnd %d", np, pp, st.table.Len(), st.byEnd.Len())
	}
	perUser := map[string]int{}
	var bad error
	st.table.Ascend(func(e idEntry) bool {
		perUser[e.a.User]++
		if e.a.ID != e.id {
			bad = fmt.Errorf("table entry %v holds %v", e.id, e.a.ID)
		}
		return bad == nil
	})
	if bad != nil {
		return bad
	}
	if len(perUser) != len(st.users) {
		return fmt.Errorf("%d users with reservations, %d user states", len(perUser), len(st.users))
	}
	for u, us := range st.users {
		n, err := checkIndex(us.byInterval)
		if err != nil {
			return fmt.Errorf("user %s: %w", u, err)
		}
		m, err := checkPeriodic(us.periodic)
		if err != nil {
			return fmt.Errorf("user %s: %w", u, err)
		}
		if n+m != us.n || us.n != perUser[u] {
			return fmt.Errorf("user %s: %d + %d indexed, n %d, table %d", u, n, m, us.n, perUser[u])
		}
		if err := checkArea(us.area, us.total); err != nil {
			return fmt.Errorf("user %s: %w", u, err)
		}
		for a := range allNodes(us.byInterval.root) {
			if a.User != u {
				return fmt.Errorf("user %s indexes %v of %s", u, a.ID, a.User)
			}
		}
	}
	for per, s := range st.patterns {
		if s.IsEmpty() {
			return fmt.Errorf("empty pattern of period %d kept", per)
		}
	}
	if _, ok := st.total.LatestEnd(); !ok && np > 0 {
		for a := range allNodes(st.byInterval.root) {
			for _, e := range a.Intervals {
				if !e.Resource.IsZero() && e.Interval.Valid() {
					return fmt.Errorf("%v holds %v but the total is empty", a.ID, e.Resource)
				}
			}
		}
	}
	return nil
}

// checkIndex verifies both halves of an interval index and that they hold
// the same reservations.
func checkIndex(x ivIndex) (int, error) {
	n, err := checkTreap(x.root, keyOf)
	if err != nil {
		return 0, err
	}
	if x.byKey.Len() != n {
		return 0, fmt.Errorf("treap %d, list %d", n, x.byKey.Len())
	}
	in := allNodes(x.root)
	var prev *ivKey
	x.byKey.Ascend(func(e ivEntry) bool {
		if !in[e.a] || e.k != keyOf(e.a) || (prev != nil && prev.compare(e.k) >= 0) {
			err = fmt.Errorf("list entry %v out of place", e.k)
			return false
		}
		prev = &e.k
		return true
	})
	return n, err
}

// checkAreaTree verifies a change tree: keys in order, priorities a heap,
// no zero change kept, the subtree sums exact; it returns the changes.
func checkAreaTree(t *inode, out map[berth.Time][2]rle.Int128) error {
	if t == nil {
		return nil
	}
	if t.zero() {
		return fmt.Errorf("zero change kept at %d", t.t)
	}
	if t.prio != timePriority(t.t) {
		return fmt.Errorf("priority of %d is not its hash", t.t)
	}
	if t.pm != t.dm.Scale(t.t) || t.pv != t.dv.Scale(t.t) {
		return fmt.Errorf("change times time at %d is stale", t.t)
	}
	out[t.t] = [2]rle.Int128{t.dm, t.dv}
	sm, sv, tm, tv := t.dm, t.dv, t.dm.Scale(t.t), t.dv.Scale(t.t)
	for _, ch := range []*inode{t.left, t.right} {
		if ch == nil {
			continue
		}
		if ch.prio > t.prio {
			return fmt.Errorf("heap order broken under %d", t.t)
		}
		if (ch == t.left) != (ch.t < t.t) {
			return fmt.Errorf("key order broken under %d", t.t)
		}
		if err := checkAreaTree(ch, out); err != nil {
			return err
		}
		sm, sv, tm, tv = sm.Add(ch.sm), sv.Add(ch.sv), tm.Add(ch.tm), tv.Add(ch.tv)
	}
	if sm != t.sm || sv != t.sv || tm != t.tm || tv != t.tv {
		return fmt.Errorf("sums under %d are stale", t.t)
	}
	return nil
}

// checkArea verifies that the change tree of a load holds exactly the
// changes of its series (value minus the value before, at every
// breakpoint), when no step had extended types.
func checkArea(x areaIndex, total *rle.Series) error {
	if x.ext < 0 {
		return fmt.Errorf("negative extended-type count %d", x.ext)
	}
	got := map[berth.Time][2]rle.Int128{}
	if err := checkAreaTree(x.root, got); err != nil {
		return err
	}
	if x.ext > 0 {
		return nil
	}
	// Steps skips the stretches holding nothing: each gap closes the
	// value before it.
	want := map[berth.Time][2]rle.Int128{}
	var prev berth.Resource
	prevEnd := berth.MinTime
	put := func(t berth.Time, d berth.Resource) {
		if !d.IsZero() {
			want[t] = [2]rle.Int128{rle.Int128Of(d.Memory), rle.Int128Of(d.VCores)}
		}
	}
	for st := range total.Steps() {
		if st.Interval.Start > prevEnd {
			put(prevEnd, prev.Neg())
			prev = berth.Resource{}
		}
		put(st.Interval.Start, st.Value.Sub(prev))
		prev, prevEnd = st.Value, st.Interval.End
	}
	put(prevEnd, prev.Neg()) // at berth.MaxTime when held to the end of time
	if len(got) != len(want) {
		return fmt.Errorf("change tree has %d changes, the series %d", len(got), len(want))
	}
	for t, d := range want {
		if got[t] != d {
			return fmt.Errorf("change at %d: tree %v, series %v", t, got[t], d)
		}
	}
	return nil
}
