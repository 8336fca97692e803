package queue

import (
	"slices"
	"strings"

	"github.com/berthsched/berth"
)

// ACL is an access control list in Hadoop's AccessControlList syntax:
// "user1,user2 group1,group2" — users before the first space, groups after
// it, both comma separated and trimmed, empty names dropped, duplicates
// dropped (first spelling kept). A part that trims to "*" allows everyone;
// a blank string (e.g. the single space " ") allows nobody.
//
// ACL is a value; its zero value allows nobody. Lists keep their input order
// because YARN prints them that way.
type ACL struct {
	all    bool
	users  []string
	groups []string
}

// Everyone returns the ACL "*".
func Everyone() ACL { return ACL{all: true} }

// Nobody returns the ACL " " (YARN's NONE_ACL).
func Nobody() ACL { return ACL{} }

// NewACL returns an ACL allowing the given users and groups. Names are
// trimmed and duplicates dropped. A name that the string form could not
// carry is refused with an *Error of kind berth.ErrInvalidArgument: empty,
// "*" (use [Everyone]), containing a comma, or — for users — containing a
// space.
func NewACL(users, groups []string) (ACL, error) {
	var a ACL
	for _, u := range users {
		n := javaTrim(u)
		if n == "" || n == "*" || strings.ContainsAny(n, ", ") {
			return ACL{}, invalid("", "acl.users", u, "user name not representable in an ACL")
		}
		if !slices.Contains(a.users, n) {
			a.users = append(a.users, n)
		}
	}
	for _, g := range groups {
		n := javaTrim(g)
		if n == "" || n == "*" || strings.Contains(n, ",") {
			return ACL{}, invalid("", "acl.groups", g, "group name not representable in an ACL")
		}
		if !slices.Contains(a.groups, n) {
			a.groups = append(a.groups, n)
		}
	}
	return a, nil
}

// ParseACL parses Hadoop's ACL syntax. Every string is a valid ACL (YARN
// never rejects one), so it returns no error; see [ACL] for the rules.
// Trimming follows Java's String.trim (characters ≤ U+0020) for the whole
// string and for each name.
//
// Quirk kept from Hadoop: "*" is the wildcard only when a whole half trims
// to "*"; in a list ("alice,*") it is an ordinary name, and String then
// prints "alice,* " which parses back to the same list, but the one-name
// list "*,*" prints as "* ", the wildcard.
func ParseACL(s string) ACL {
	parts := strings.SplitN(s, " ", 2)
	for _, p := range parts {
		if javaTrim(p) == "*" {
			return ACL{all: true}
		}
	}
	var a ACL
	a.users = splitNames(parts[0])
	if len(parts) == 2 {
		a.groups = splitNames(parts[1])
	}
	return a
}

// javaTrim strips leading and trailing characters ≤ U+0020 (Java's
// String.trim).
func javaTrim(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
}

// splitNames is Hadoop's getTrimmedStringCollection: split on commas, trim
// each name, drop empties and duplicates, keep order. (Hadoop trims the
// names of the regex class \s only, a difference for control characters.)
func splitNames(s string) []string {
	var out []string
	for _, n := range strings.Split(s, ",") {
		n = javaTrim(n)
		if n != "" && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// AllowsEveryone reports whether the ACL is the wildcard "*".
func (a ACL) AllowsEveryone() bool { return a.all }

// AllowsNobody reports whether the ACL allows no user and no group.
func (a ACL) AllowsNobody() bool { return !a.all && len(a.users) == 0 && len(a.groups) == 0 }

// Users returns a copy of the user names, in input order.
func (a ACL) Users() []string { return slices.Clone(a.users) }

// Groups returns a copy of the group names, in input order.
func (a ACL) Groups() []string { return slices.Clone(a.groups) }

// Allows reports whether user, member of groups, is allowed: the wildcard,
// the user named, or one of its groups named (Hadoop's isUserInList).
func (a ACL) Allows(user string, groups []string) bool {
	if a.all || slices.Contains(a.users, user) {
		return true
	}
	if len(a.groups) == 0 {
		return false
	}
	for _, g := range groups {
		if slices.Contains(a.groups, g) {
			return true
		}
	}
	return false
}

// needsGroups reports whether deciding for a user not named would look at
// groups; it lets callers skip an expensive group lookup.
func (a ACL) needsGroups() bool { return !a.all && len(a.groups) > 0 }

// String returns the ACL in YARN's canonical form (getAclString): "*", or
// users and groups comma joined with one space between ("alice,bob admins",
// "alice " for users only, " admins" for groups only, " " for nobody).
// ParseACL(a.String()) equals a.
func (a ACL) String() string {
	if a.all {
		return "*"
	}
	return strings.Join(a.users, ",") + " " + strings.Join(a.groups, ",")
}

// Equal reports whether both ACLs allow the same users and groups (order of
// the lists ignored).
func (a ACL) Equal(o ACL) bool {
	if a.all || o.all {
		return a.all == o.all
	}
	return sameSet(a.users, o.users) && sameSet(a.groups, o.groups)
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// Access names a queue operation guarded by an ACL.
type Access uint8

const (
	// SubmitApplications is YARN's SUBMIT_APPLICATIONS
	// (acl_submit_applications, aclSubmitApps).
	SubmitApplications Access = iota
	// AdministerQueue is YARN's ADMINISTER_QUEUE (acl_administer_queue,
	// aclAdministerApps).
	AdministerQueue
)

// String returns YARN's enum name.
func (a Access) String() string {
	switch a {
	case SubmitApplications:
		return "SUBMIT_APPLICATIONS"
	case AdministerQueue:
		return "ADMINISTER_QUEUE"
	}
	return "UNKNOWN"
}

// field returns the capacity-scheduler key suffix of the ACL.
func (a Access) field() string {
	if a == AdministerQueue {
		return "acl_administer_queue"
	}
	return "acl_submit_applications"
}

// Groups tells the groups of a user. The host supplies it (YARN's
// GroupMappingServiceProvider); it is consulted only when an ACL on the way
// up names groups and the user itself is not named.
type Groups interface {
	GroupsOf(user string) []string
}

// GroupsFunc adapts a function to [Groups]. A nil GroupsFunc is not
// usable: GroupsOf panics, as calling a nil func does.
type GroupsFunc func(user string) []string

// GroupsOf calls f.
func (f GroupsFunc) GroupsOf(user string) []string { return f(user) }

// StaticGroups is a fixed user → groups table, handy in tests and small hosts.
type StaticGroups map[string][]string

// GroupsOf returns the table entry.
func (g StaticGroups) GroupsOf(user string) []string { return g[user] }

// lazyGroups resolves a user's groups at most once.
type lazyGroups struct {
	src      Groups
	user     string
	resolved bool
	groups   []string
}

func (l *lazyGroups) get() []string {
	if !l.resolved {
		l.resolved = true
		if l.src != nil {
			l.groups = l.src.GroupsOf(l.user)
		}
	}
	return l.groups
}

// allowedBy checks one ACL, resolving groups only if needed.
func (l *lazyGroups) allowedBy(a ACL) bool {
	if a.all || slices.Contains(a.users, l.user) {
		return true
	}
	if !a.needsGroups() {
		return false
	}
	return a.Allows(l.user, l.get())
}

// HasAccess reports whether user may perform access on q: the ACL of q or
// of any ancestor allows it (YARN's walk-up rule, ConfiguredYarnAuthorizer).
// groups may be nil (no groups).
func (q *Queue[T]) HasAccess(access Access, user string, groups Groups) bool {
	lg := &lazyGroups{src: groups, user: user}
	for n := q; n != nil; n = n.parent {
		if lg.allowedBy(n.acl(access)) {
			return true
		}
	}
	return false
}

// CanSubmit reports whether user may submit applications to q: it needs
// SUBMIT_APPLICATIONS or ADMINISTER_QUEUE on q or an ancestor, as YARN's
// RMAppManager checks.
func (q *Queue[T]) CanSubmit(user string, groups Groups) bool {
	lg := &lazyGroups{src: groups, user: user}
	for n := q; n != nil; n = n.parent {
		if lg.allowedBy(n.submitACL) || lg.allowedBy(n.adminACL) {
			return true
		}
	}
	return false
}

// CheckSubmit is [Queue.CanSubmit] as an error: nil when allowed, else an
// *Error of kind berth.ErrPermissionDenied naming the queue and the user.
func (q *Queue[T]) CheckSubmit(user string, groups Groups) error {
	if q.CanSubmit(user, groups) {
		return nil
	}
	return &Error{QueuePath: q.path.s, Field: SubmitApplications.field(), Value: user,
		Reason: "user cannot submit applications to queue", Kind: berth.ErrPermissionDenied}
}

// CheckAccess is [Queue.HasAccess] as an error of kind
// berth.ErrPermissionDenied.
func (q *Queue[T]) CheckAccess(access Access, user string, groups Groups) error {
	if q.HasAccess(access, user, groups) {
		return nil
	}
	return &Error{QueuePath: q.path.s, Field: access.field(), Value: user,
		Reason: "user does not have " + access.String() + " access", Kind: berth.ErrPermissionDenied}
}
