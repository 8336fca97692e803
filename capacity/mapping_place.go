package capacity

import (
	"fmt"
	"slices"

	"github.com/berthsched/berth"
)

// Placing a submission by the legacy queue mappings (YARN's
// UserGroupMappingPlacementRule and AppNameMappingPlacementRule): the
// rules in order, the first mapping that matches decides. mapping.go parses
// and validates the mappings.

// placeInput is what placement reads of a submission.
type placeInput struct {
	user, app, requested string
	groups               func() []string // resolved at most once, only when a mapping needs them
}

// placed is a mapping's answer: the queue (a full path, or a name as the
// mapping gives it for app-name rules) and the mapping that chose it.
type placed struct {
	queue   string // what the submission is resolved with
	leaf    string // the leaf name, compared with the requested queue
	mapping QueueMapping
	rule    PlacementRuleKind
	index   int
	json    *MappingRule // the JSON rule that chose the queue, if one did
}

// describe names what chose the queue, for errors.
func (p *placed) describe() string {
	if p.json != nil {
		return fmt.Sprintf("mapping rule %d %s", p.index+1, p.json)
	}
	return fmt.Sprintf("queue mapping %s (%s rule)", p.mapping, p.rule)
}

// errNoGroups is the rejection of a mapping that reads the groups of a
// user who has none (YARN's group service fails the submission).
func errNoGroups(m QueueMapping, user string) error {
	return &berth.FieldError{Field: "app.user", Value: user, Kind: berth.ErrNoPlacement,
		Reason: fmt.Sprintf("no groups found, and queue mapping %s needs them", m)}
}

// place runs the rules in order. ok is false when no rule places the
// application (it then goes where it asked). An error rejects it.
func (p Placement) place(in placeInput, ix queueIndex) (placed, bool, error) {
	if p.Format == MappingJSON {
		return p.placeJSON(in, ix)
	}
	requested := in.requested
	if requested == "" {
		requested = "default"
	}
	for _, rule := range p.rules() {
		var (
			res placed
			ok  bool
			err error
		)
		if rule == RuleAppName {
			res, ok, err = placeApp(p.AppMappings, in, ix)
		} else {
			res, ok, err = placeUserGroup(p.Mappings, in, ix)
		}
		if err != nil {
			return placed{}, false, err
		}
		if ok && (requested == "default" || requested == res.leaf || p.Override) {
			res.rule = rule
			return res, true, nil
		}
	}
	return placed{}, false, nil
}

// placeUserGroup is the user-group rule: the first mapping whose source
// matches decides, even when it finds no queue. Each mapping form has its
// own function; the switch picks the form.
func placeUserGroup(ms []QueueMapping, in placeInput, ix queueIndex) (placed, bool, error) {
	r := &userGroupRule{in: in, ix: ix}
	for i, m := range ms {
		var (
			res placed
			ok  bool
			err error
		)
		switch {
		case m.Kind == MapUser && m.Source == MapCurrentUser:
			res, ok, err = r.anyUser(m)
		case m.Kind == MapUser && m.Source == in.user:
			res, ok, err = r.namedQueue(m)
		case m.Kind == MapGroup:
			member, gerr := r.member(m)
			if gerr != nil {
				return placed{}, false, gerr
			}
			if !member {
				continue
			}
			res, ok, err = r.groupMember(m)
		default:
			continue
		}
		res.mapping, res.index = m, i
		return res, ok, err
	}
	return placed{}, false, nil
}

// userGroupRule places one submission by the user-group mappings. The
// user's groups are asked for once, when a mapping first needs them.
type userGroupRule struct {
	in      placeInput
	ix      queueIndex
	groups  []string
	fetched bool
}

// userGroups are the submitting user's groups, primary first.
func (r *userGroupRule) userGroups() []string {
	if !r.fetched && r.in.groups != nil {
		r.groups, r.fetched = r.in.groups(), true
	}
	return r.groups
}

// group resolves %primary_group (the first group) or %secondary_group
// (the first other group that names a queue, "" when none does). A user
// without groups fails the mapping.
func (r *userGroupRule) group(m QueueMapping, which string) (string, error) {
	gs := r.userGroups()
	if len(gs) == 0 {
		return "", errNoGroups(m, r.in.user)
	}
	if which == MapPrimaryGroup {
		return gs[0], nil
	}
	for _, g := range gs[1:] {
		if _, _, st := r.ix.find(g); st == queueFound {
			return g, nil
		}
	}
	return "", nil
}

// anyUser places by u:%user:queue. The queue may be %user, under a group
// parent (%primary_group.%user, %secondary_group.%user) or not, or what a
// named user's mapping may name.
func (r *userGroupRule) anyUser(m QueueMapping) (placed, bool, error) {
	if m.Queue != MapCurrentUser {
		return r.namedQueue(m)
	}
	if m.Parent != MapPrimaryGroup && m.Parent != MapSecondaryGroup {
		return target(m, r.in.user, r.ix)
	}
	g, err := r.group(m, m.Parent)
	if err != nil {
		return placed{}, false, err
	}
	return groupParent(m, r.in.user, g, r.ix)
}

// namedQueue places by a mapping whose queue is %primary_group,
// %secondary_group or a queue name (u:alice:%primary_group, u:alice:a,
// u:%user:a). A named user's %user is taken as a queue name, not
// replaced.
func (r *userGroupRule) namedQueue(m QueueMapping) (placed, bool, error) {
	leaf := m.Queue
	if leaf == MapPrimaryGroup || leaf == MapSecondaryGroup {
		g, err := r.group(m, leaf)
		if err != nil {
			return placed{}, false, err
		}
		leaf = g
	}
	return target(m, leaf, r.ix)
}

// member reports whether the user belongs to the group a g:group:queue
// mapping names. A user without groups fails every group mapping.
func (r *userGroupRule) member(m QueueMapping) (bool, error) {
	gs := r.userGroups()
	if len(gs) == 0 {
		return false, errNoGroups(m, r.in.user)
	}
	return slices.Contains(gs, m.Source), nil
}

// groupMember places a member of the group by g:group:queue, where the
// queue may be %user.
func (r *userGroupRule) groupMember(m QueueMapping) (placed, bool, error) {
	leaf := m.Queue
	if leaf == MapCurrentUser {
		leaf = r.in.user
	}
	return target(m, leaf, r.ix)
}

// target resolves a mapping's answer for leaf, as YARN's placement
// context does: without a parent the queue must exist (an ambiguous short
// name rejects the application); under a parent, the parent must exist
// and the leaf under it too (no parent auto-creates).
func target(m QueueMapping, leaf string, ix queueIndex) (placed, bool, error) {
	if leaf == "" {
		return placed{}, false, nil
	}
	if m.Parent == "" {
		path, _, st := ix.find(leaf)
		switch st {
		case queueAmbiguous:
			return placed{}, false, ambiguous(m, leaf)
		case queueMissing:
			return placed{}, false, nil
		}
		return placed{queue: path, leaf: leaf}, true, nil
	}
	parent, _, st := ix.find(m.Parent)
	if st != queueFound {
		return placed{}, false, nil
	}
	path := parent + "." + leaf
	if _, _, st := ix.find(path); st != queueFound && !ix.autoCreates(parent) {
		return placed{}, false, nil
	}
	return placed{queue: path, leaf: leaf}, true, nil
}

// groupParent is "%primary_group.%user" and "%secondary_group.%user": the
// group's queue is the parent, the user's queue under it must be an
// existing leaf (YARN rejects the application otherwise, as no managed
// parent can create it).
func groupParent(m QueueMapping, user, group string, ix queueIndex) (placed, bool, error) {
	if group == "" {
		return placed{}, false, nil
	}
	parent, _, st := ix.find(group)
	if st != queueFound {
		return placed{}, false, nil
	}
	path := parent + "." + user
	if _, leaf, st := ix.find(path); (st != queueFound || !leaf) && !(st == queueMissing && ix.autoCreates(parent)) {
		return placed{}, false, &berth.FieldError{Field: "queue", Value: path, Kind: berth.ErrNoPlacement,
			Reason: fmt.Sprintf("queue mapping %s needs this leaf queue, and no parent creates queues", m)}
	}
	return placed{queue: path, leaf: user}, true, nil
}

func ambiguous(m QueueMapping, name string) error {
	return &berth.FieldError{Field: "queue", Value: name, Kind: berth.ErrNoPlacement,
		Reason: fmt.Sprintf("queue mapping %s names an ambiguous queue (use its full path)", m)}
}

// placeApp is the app-name rule: the first mapping whose source is the
// application's name (or %application) decides. As in YARN, its target
// is not checked here: a queue that does not exist fails the submission.
func placeApp(ms []QueueMapping, in placeInput, ix queueIndex) (placed, bool, error) {
	for i, m := range ms {
		if m.Source != MapApplication && m.Source != in.app {
			continue
		}
		leaf := m.Queue
		if m.Source == MapApplication && m.Queue == MapApplication {
			leaf = in.app
		}
		if leaf == "" {
			return placed{}, false, nil
		}
		res := placed{queue: leaf, leaf: leaf, mapping: m, index: i}
		if m.Parent == "" {
			if _, _, st := ix.find(leaf); st == queueAmbiguous {
				return placed{}, false, ambiguous(m, leaf)
			}
			return res, true, nil
		}
		res.queue = m.Parent + "." + leaf
		if parent, _, st := ix.find(m.Parent); st == queueFound {
			res.queue = parent + "." + leaf
		}
		return res, true, nil
	}
	return placed{}, false, nil
}
