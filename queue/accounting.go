package queue

import (
	"math"
	"slices"

	"github.com/berthsched/berth"
)

// Usage is the accounting of a queue or of one user in a queue: resources
// used (allocated containers), pending (outstanding asks) and reserved
// (containers reserved on nodes), and application counts. A parent's Usage
// is the sum of its children's; a queue's is the sum of its users'.
type Usage struct {
	Used, Pending, Reserved berth.Resource
	PendingApps, ActiveApps int
}

// Apps returns PendingApps + ActiveApps.
func (u Usage) Apps() int { return u.PendingApps + u.ActiveApps }

// IsZero reports whether every amount and count is zero.
func (u Usage) IsZero() bool {
	return u.Used.IsZero() && u.Pending.IsZero() && u.Reserved.IsZero() && u.PendingApps == 0 && u.ActiveApps == 0
}

// Equal compares every field.
func (u Usage) Equal(o Usage) bool {
	return u.Used.Equal(o.Used) && u.Pending.Equal(o.Pending) && u.Reserved.Equal(o.Reserved) &&
		u.PendingApps == o.PendingApps && u.ActiveApps == o.ActiveApps
}

// Delta is a signed change of accounting applied to a leaf and a user, and
// propagated to every ancestor. Negative amounts release.
type Delta struct {
	Used, Pending, Reserved berth.Resource
	PendingApps, ActiveApps int
}

// Neg returns the opposite change.
func (d Delta) Neg() Delta {
	return Delta{Used: d.Used.Neg(), Pending: d.Pending.Neg(), Reserved: d.Reserved.Neg(),
		PendingApps: -d.PendingApps, ActiveApps: -d.ActiveApps}
}

// IsZero reports whether the delta changes nothing.
func (d Delta) IsZero() bool { return Usage(d).IsZero() }

// Usage returns the queue's accounting.
func (q *Queue[T]) Usage() Usage { return q.acct }

// Used returns the resources used in the queue (and its subtree).
func (q *Queue[T]) Used() berth.Resource { return q.acct.Used }

// Pending returns the resources asked for and not yet allocated.
func (q *Queue[T]) Pending() berth.Resource { return q.acct.Pending }

// Reserved returns the resources reserved on nodes.
func (q *Queue[T]) Reserved() berth.Resource { return q.acct.Reserved }

// PendingApps returns the number of applications not yet activated.
func (q *Queue[T]) PendingApps() int { return q.acct.PendingApps }

// ActiveApps returns the number of activated (running) applications.
func (q *Queue[T]) ActiveApps() int { return q.acct.ActiveApps }

// NumApps returns pending + active applications.
func (q *Queue[T]) NumApps() int { return q.acct.Apps() }

// UserUsage returns a user's accounting in this queue (its subtree for a
// parent); zero for an unknown user.
func (q *Queue[T]) UserUsage(user string) Usage {
	if u := q.users[user]; u != nil {
		return u.Usage
	}
	return Usage{}
}

// Users returns the names of the users with non-zero accounting in the
// queue (its subtree for a parent), sorted.
func (q *Queue[T]) Users() []string {
	out := make([]string, 0, len(q.users))
	for u := range q.users {
		out = append(out, u)
	}
	slices.Sort(out)
	return out
}

// NumUsers returns the number of users with non-zero accounting.
func (q *Queue[T]) NumUsers() int { return len(q.users) }

// Update applies d to the leaf q for user, and to every ancestor, in
// O(depth). It is all-or-nothing: it fails, changing nothing, when q is not
// a leaf or was removed, user is empty, or any resulting amount or count of
// the queue or the user would be negative or overflow. Errors are *Error
// values: berth.ErrInvalidArgument for bad calls and overflows,
// berth.ErrInvalidState for releases beyond what is held, berth.ErrNotFound
// for a removed queue.
func (q *Queue[T]) Update(user string, d Delta) error { return q.UpdateRef(nil, user, d) }

// UserRef remembers where one user's accounting entries sit along a leaf's
// path, so that a holder charging the same leaf and user again and again
// (an application, per container) skips a map lookup per level. Its zero
// value is ready to use; it refreshes itself whenever it no longer matches
// (another leaf or user, an entry dropped to zero and removed, a changed
// tree), so a stale UserRef costs a lookup, never a wrong charge. It is
// not safe for concurrent use.
type UserRef[T any] struct {
	leaf *Queue[T]
	user string
	// The leaf's entry first, then each ancestor's; the first levels in
	// place, so a holder's first charge allocates nothing for them.
	near [4]refEntry[T]
	far  []refEntry[T]
}

// refEntry is one level's remembered entry: valid while the entry still
// carries the generation it had when remembered.
type refEntry[T any] struct {
	q   *Queue[T]
	u   *userEntry
	gen uint64
}

// userEntry is one user's accounting in one queue. gen changes when the
// entry leaves its queue's map, which invalidates every UserRef to it.
type userEntry struct {
	Usage
	gen uint64
}

// entry returns the user's entry in n, the ith queue of the ref's path,
// or nil when the user has none; cached reports that r already holds it.
func (r *UserRef[T]) entry(i int, n *Queue[T], user string) (u *userEntry, cached bool) {
	if e := r.at(i, false); e != nil && e.q == n && e.u != nil && e.u.gen == e.gen {
		return e.u, true
	}
	return n.users[user], false
}

// at returns the ith entry's slot; nil when r is nil, or when there is
// none and grow is false.
func (r *UserRef[T]) at(i int, grow bool) *refEntry[T] {
	switch {
	case r == nil:
		return nil
	case i < len(r.near):
		return &r.near[i]
	}
	i -= len(r.near)
	if i >= len(r.far) {
		if !grow {
			return nil
		}
		r.far = append(r.far, make([]refEntry[T], i+1-len(r.far))...)
	}
	return &r.far[i]
}

// reset forgets every entry.
func (r *UserRef[T]) reset(leaf *Queue[T], user string) {
	r.leaf, r.user = leaf, user
	r.near = [len(r.near)]refEntry[T]{}
	clear(r.far)
}

// remember records u (nil: none) as the ith entry.
func (r *UserRef[T]) remember(i int, n *Queue[T], u *userEntry) {
	e := r.at(i, true)
	if e == nil {
		return
	}
	*e = refEntry[T]{q: n}
	if u != nil {
		e.u, e.gen = u, u.gen
	}
}

// UpdateRef is Update for a holder that keeps a UserRef for (q, user): the
// same checks and effects, with the per-level lookups served by ref. A nil
// ref is Update.
func (q *Queue[T]) UpdateRef(ref *UserRef[T], user string, d Delta) error {
	if ref != nil && (ref.leaf != q || ref.user != user) {
		ref.reset(q, user)
	}
	leafUser, leafCached := ref.entry(0, q, user)
	if err := q.checkUpdate(user, &d, leafUser); err != nil {
		return err
	}
	i := 0
	for n := q; n != nil; n, i = n.parent, i+1 {
		addTo(&n.acct, &d)
		u, cached := leafUser, leafCached
		if n != q {
			u, cached = ref.entry(i, n, user)
		}
		if u == nil {
			if n.users == nil {
				n.users = make(map[string]*userEntry)
			}
			// Reuse the entry of the last user that dropped to zero:
			// charge/release cycles then allocate nothing.
			u, n.spare = n.spare, nil
			if u == nil {
				u = new(userEntry)
			}
			n.users[user] = u
		}
		addTo(&u.Usage, &d)
		if u.IsZero() {
			delete(n.users, user)
			u.gen++ // references to it, ref's included, are stale
			n.spare = u
		} else if !cached {
			ref.remember(i, n, u)
		}
	}
	return nil
}

// checkUpdate validates an Update without changing anything; u is the
// user's entry in the leaf (nil when the user has none yet).
func (q *Queue[T]) checkUpdate(user string, d *Delta, u *userEntry) error {
	ps := q.path.s
	switch {
	case q.removed:
		return &Error{QueuePath: ps, Reason: "queue was removed from the tree", Kind: berth.ErrNotFound}
	case !q.IsLeaf():
		return invalid(ps, "", q.kind.String(), "accounting is charged to leaf queues only")
	case user == "":
		return invalid(ps, "user", user, "user must not be empty")
	}
	// Overflow can appear anywhere up, where totals are larger.
	for n := q; n != nil; n = n.parent {
		if f, over := overflowField(&n.acct, d); over {
			return invalid(n.path.s, f, *d, "accounting would overflow")
		}
	}
	// The user's amounts in the leaf: non-negative results there imply
	// them for the leaf (the sum of its users) and every ancestor (sums of
	// their children).
	var zero Usage
	uAcct := &zero
	if u != nil {
		uAcct = &u.Usage
	}
	if f, neg := negativeField(uAcct, d); neg {
		return stateErr(ps, f, user, "release exceeds what the user holds in the queue")
	}
	return nil
}

// addTo adds d to *u in place. Memory and vcores are added in place when
// d carries no extended types (Resource.Add then keeps u's extended types
// as they are): this runs for every container, at every level.
func addTo(u *Usage, d *Delta) {
	addRes(&u.Used, &d.Used)
	addRes(&u.Pending, &d.Pending)
	addRes(&u.Reserved, &d.Reserved)
	u.PendingApps += d.PendingApps
	u.ActiveApps += d.ActiveApps
}

func addRes(r, d *berth.Resource) {
	switch {
	case !d.HasExtras():
		r.Memory += d.Memory
		r.VCores += d.VCores
	default:
		*r = r.Add(*d)
	}
}

// negativeField names the first field of u+d that would be negative
// (overflow is checked before).
func negativeField(u *Usage, d *Delta) (string, bool) {
	switch {
	case d.Used.AnyNegative() && u.Used.Add(d.Used).AnyNegative():
		return "used", true
	case d.Pending.AnyNegative() && u.Pending.Add(d.Pending).AnyNegative():
		return "pending", true
	case d.Reserved.AnyNegative() && u.Reserved.Add(d.Reserved).AnyNegative():
		return "reserved", true
	case u.PendingApps+d.PendingApps < 0:
		return "pending-apps", true
	case u.ActiveApps+d.ActiveApps < 0:
		return "active-apps", true
	}
	return "", false
}

// overflowField names the first field of u+d that would overflow.
func overflowField(u *Usage, d *Delta) (string, bool) {
	switch {
	case addOverflows(&u.Used, &d.Used):
		return "used", true
	case addOverflows(&u.Pending, &d.Pending):
		return "pending", true
	case addOverflows(&u.Reserved, &d.Reserved):
		return "reserved", true
	case intOverflows(u.PendingApps, d.PendingApps):
		return "pending-apps", true
	case intOverflows(u.ActiveApps, d.ActiveApps):
		return "active-apps", true
	}
	return "", false
}

func intOverflows(a, b int) bool {
	return (b > 0 && a > math.MaxInt-b) || (b < 0 && a < math.MinInt-b)
}

// addOverflows reports whether a+b overflows in some component.
func addOverflows(a, b *berth.Resource) bool { return a.AddOverflows(*b) }

// Allocate charges r as used by user (a container was allocated).
func (q *Queue[T]) Allocate(user string, r berth.Resource) error {
	return q.Update(user, Delta{Used: r})
}

// Release returns r used by user (a container finished).
func (q *Queue[T]) Release(user string, r berth.Resource) error {
	return q.Update(user, Delta{Used: r.Neg()})
}

// SubmitApp counts a new, not yet activated application of user.
func (q *Queue[T]) SubmitApp(user string) error {
	return q.Update(user, Delta{PendingApps: 1})
}

// ActivateApp moves one of user's applications from pending to active.
func (q *Queue[T]) ActivateApp(user string) error {
	return q.Update(user, Delta{PendingApps: -1, ActiveApps: 1})
}

// FinishApp removes one of user's applications, active or still pending.
func (q *Queue[T]) FinishApp(user string, active bool) error {
	if active {
		return q.Update(user, Delta{ActiveApps: -1})
	}
	return q.Update(user, Delta{PendingApps: -1})
}

// Move transfers accounting d (non-negative amounts) of user from leaf
// from to leaf to, as when an application moves between queues (YARN's
// moveApplication): from is released, to is charged, and common ancestors
// end where they started. All-or-nothing: when either side would fail,
// nothing changes.
func Move[T any](from, to *Queue[T], user string, d Delta) error {
	if from == nil || to == nil {
		return invalid("", "queue", nil, "nil queue")
	}
	if f, bad := negativeField(&Usage{}, &d); bad {
		return invalid(from.path.s, f, d, "moved amounts must not be negative")
	}
	neg := d.Neg()
	if from == to {
		err := from.checkUpdate(user, &neg, from.users[user]) // nothing moves; the user must hold d
		return err
	}
	if err := from.checkUpdate(user, &neg, from.users[user]); err != nil {
		return err
	}
	// Checked before the release, so totals above are at their highest:
	// if the charge fits now it fits after.
	if err := to.checkUpdate(user, &d, to.users[user]); err != nil {
		return err
	}
	_ = from.Update(user, neg)
	_ = to.Update(user, d)
	return nil
}
