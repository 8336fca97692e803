package capacity

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

// Application priorities, as YARN 3.x's CapacityScheduler gives them
// (checkAndGetApplicationPriority): a submission without a priority
// (AppSpec.NoPriority) takes its user's default from the leaf's priority
// ACLs, else the leaf's default-application-priority; any priority above
// the cluster's maximum (yarn.cluster.max-application-priority, 0 unless
// set) is lowered to it; and with yarn.acl.enable the leaf's priority
// ACLs must let the user submit at that priority. Under FIFO ordering
// the leaf offers resources to higher priorities first, then by
// submission (FifoComparator), and waiting applications are activated in
// the same order (FifoOrderingPolicyForPendingApps).

// PriorityACL is one group of a leaf's acl_application_max_priority,
// written "[user=alice,bob group=eng max_priority=5 default_priority=2]":
// the users and groups it names may submit up to Max, and submit at
// Default when they give no priority.
type PriorityACL struct {
	// Who the group names: users and groups ("*": everyone).
	Who queue.ACL
	// Max is the highest priority allowed; a Max above the cluster's
	// maximum is lowered to it, as YARN does when it reads the ACL.
	Max int32
	// Default is the priority of the group's submissions without one.
	Default int32
}

// priorityACLGroup matches one bracketed group of the ACL value.
var priorityACLGroup = regexp.MustCompile(`\[([^\]]+)`)

// The keys whose values the parsers read, as their errors name them.
const (
	aclField      = "acl_application_max_priority"
	workflowField = "workflow-priority-mappings"
)

// ParsePriorityACLs reads an acl_application_max_priority value. Groups
// are bracketed; each holds user=, group=, max_priority= and
// default_priority= pairs separated by spaces (keys are case-insensitive,
// as YARN reads them). A value without brackets ("*", YARN's default)
// sets no group: anyone may submit. A negative default_priority reads as
// 0, as in YARN. An unknown key, a malformed number or a group without
// max_priority is an error (YARN fails to start on the first two and
// throws on the third when it reads the value).
// A malformed value is a *berth.FieldError naming the key and the part at
// fault.
func ParsePriorityACLs(v string) ([]PriorityACL, error) {
	var out []PriorityACL
	for _, m := range priorityACLGroup.FindAllStringSubmatch(v, -1) {
		body := strings.TrimSpace(m[1])
		if body == "" {
			continue
		}
		var users, groups string
		var acl PriorityACL
		hasMax := false
		for _, kv := range strings.Fields(body) {
			k, val, ok := strings.Cut(kv, "=")
			if !ok || val == "" {
				continue // YARN skips a pair without a value
			}
			switch strings.ToUpper(strings.TrimSpace(k)) {
			case "USER":
				users = strings.TrimSpace(val)
			case "GROUP":
				groups = strings.TrimSpace(val)
			case "MAX_PRIORITY":
				n, err := strconv.ParseInt(val, 10, 32)
				if err != nil {
					return nil, berth.InvalidField(aclField, val, "max_priority is not an integer")
				}
				acl.Max, hasMax = int32(n), true
			case "DEFAULT_PRIORITY":
				n, err := strconv.ParseInt(val, 10, 32)
				if err != nil {
					return nil, berth.InvalidField(aclField, val, "default_priority is not an integer")
				}
				acl.Default = max(int32(n), 0)
			default:
				return nil, berth.InvalidField(aclField, k, "unknown key (user, group, max_priority or default_priority)")
			}
		}
		if !hasMax {
			return nil, berth.InvalidField(aclField, "["+body+"]", "group has no max_priority")
		}
		switch {
		case users == "*" || groups == "*":
			acl.Who = queue.Everyone()
		default:
			// Users, a space, groups: Hadoop's ACL string. YARN joins the
			// pairs in the order written, so a group-only ACL becomes a
			// list of users there; Berth keeps groups as groups.
			acl.Who = queue.ParseACL(users + " " + groups)
		}
		out = append(out, acl)
	}
	return out, nil
}

// validatePriorityACLs checks a leaf's groups.
func validatePriorityACLs(key string, acls []PriorityACL) error {
	for i, a := range acls {
		if a.Default < 0 {
			return berth.InvalidField(fmt.Sprintf("%sacl_application_max_priority[%d].default_priority", key, i), a.Default, "must not be negative")
		}
	}
	return nil
}

// priorityACLsByMax orders a leaf's groups as YARN's manager keeps them:
// by max priority, highest first (YARN sorts with Priority's reversed
// comparison), ties in configuration order.
func priorityACLsByMax(acls []PriorityACL, clusterMax int32) []PriorityACL {
	out := slices.Clone(acls)
	for i := range out {
		out[i].Max = min(out[i].Max, clusterMax)
	}
	slices.SortStableFunc(out, func(a, b PriorityACL) int {
		switch {
		case a.Max > b.Max:
			return -1
		case a.Max < b.Max:
			return 1
		}
		return 0
	})
	return out
}

// userDefaultPriority is AppPriorityACLsManager.getDefaultPriority: the
// default of the last group (the one with the lowest maximum) that
// names the user.
func userDefaultPriority(acls []PriorityACL, user string, groups func() []string) (int32, bool) {
	var def int32
	found := false
	for _, a := range acls {
		if allows(a.Who, user, groups) {
			def, found = a.Default, true
		}
	}
	return def, found
}

// priorityAllowed is AppPriorityACLsManager.checkAccess: some group
// naming the user allows the priority.
func priorityAllowed(acls []PriorityACL, user string, groups func() []string, p int32) bool {
	for _, a := range acls {
		if allows(a.Who, user, groups) && p <= a.Max {
			return true
		}
	}
	return false
}

// allows asks for the user's groups only when the user is not named.
func allows(a queue.ACL, user string, groups func() []string) bool {
	return a.Allows(user, nil) || a.Allows(user, groups())
}

// appPriority is checkAndGetApplicationPriority for a submission to leaf
// q: the priority the application runs at, or a refusal by the leaf's
// priority ACLs (kind berth.ErrPermissionDenied).
func (s *Scheduler) appPriority(q *qnode, appID, user string, groups queue.Groups, requested int32, unset bool) (int32, error) {
	lf := q.leaf
	gs := func() []string { return groups.GroupsOf(user) }
	p := requested
	if unset {
		def, ok := int32(0), false
		if s.cfg.ACLEnable {
			def, ok = userDefaultPriority(lf.priorityACLs, user, gs)
		}
		if !ok {
			def = q.set().DefaultAppPriority
		}
		p = def
	}
	p = min(p, s.cfg.MaxAppPriority)
	if s.cfg.ACLEnable && len(lf.priorityACLs) > 0 && !priorityAllowed(lf.priorityACLs, user, gs, p) {
		return 0, fieldErr(berth.ErrPermissionDenied, "priority", p,
			"User %s does not have permission to submit/update %s for priority %d in queue %s", user, appID, p, q.path)
	}
	return p, nil
}

// UpdateAppPriority changes an application's priority (YARN's
// updateApplicationPriority): the priority is lowered to the cluster's
// maximum and checked against the leaf's priority ACLs, then the
// application moves to its place in the leaf's order (and among the
// applications waiting for activation). It returns the priority in
// force.
func (s *Scheduler) UpdateAppPriority(appID string, priority int32) (int32, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.apps[appID]
	if !ok {
		return 0, notFound("app.id", appID)
	}
	p, err := s.appPriority(a.q, a.id, a.userName, s.groupSource(a.userName, a.groups), priority, false)
	if err != nil {
		return 0, err
	}
	if p == a.priority {
		return p, nil
	}
	q := a.q
	lf := q.leaf
	i := slices.Index(lf.pendingAct, a)
	if i >= 0 {
		lf.pendingAct = slices.Delete(lf.pendingAct, i, i+1)
	}
	a.priority = p
	if i >= 0 {
		insertPending(lf, a)
	}
	if a.inSched {
		resched(q, a)
	}
	return p, nil
}

// byActivation is FifoOrderingPolicyForPendingApps: higher priority
// first, then submission.
func byActivation(x, y *app) int {
	if x.priority != y.priority {
		if x.priority > y.priority {
			return -1
		}
		return 1
	}
	return cmpSeq(x.seq, y.seq)
}

// insertPending puts a among the leaf's applications waiting for
// activation, in activation order.
func insertPending(lf *leafState, a *app) {
	i, _ := slices.BinarySearchFunc(lf.pendingAct, a, byActivation)
	lf.pendingAct = slices.Insert(lf.pendingAct, i, a)
}

// WorkflowPriority is one of the workflow-priority-mappings
// ("workflowid:queue:priority"): applications of the workflow submitted
// to the queue, or to a queue below it, run at the priority.
type WorkflowPriority struct {
	// WorkflowID is lower case, as YARN lowers application tags.
	WorkflowID string
	// Queue is the queue's full path.
	Queue    string
	Priority int32
}

// ParseWorkflowPriorities reads workflow-priority-mappings: a comma
// list of "workflowID:queue:priority" (parts trimmed, the id lowered).
// A malformed mapping is a *berth.FieldError naming it.
func ParseWorkflowPriorities(v string) ([]WorkflowPriority, error) {
	var out []WorkflowPriority
	for _, m := range splitList(v) {
		parts := strings.Split(m, ":")
		for i := range parts {
			parts[i] = strings.TrimSpace(parts[i])
		}
		if len(parts) != 3 || parts[0] == "" || parts[1] == "" || parts[2] == "" {
			return nil, berth.InvalidField(workflowField, m, "not workflowID:queue:priority")
		}
		p, err := strconv.ParseInt(parts[2], 10, 32)
		if err != nil {
			return nil, berth.InvalidField(workflowField, m, "the priority is not an integer")
		}
		out = append(out, WorkflowPriority{WorkflowID: strings.ToLower(parts[0]), Queue: parts[1], Priority: int32(p)})
	}
	return out, nil
}

// workflowPriority is WorkflowPriorityMappingsManager.mapWorkflowPriorityForApp:
// the mapped priority of the application's workflow in leaf q or the
// nearest queue above it (the root excluded), when the override is on.
func (s *Scheduler) workflowPriority(q *qnode, tags []string) (int32, bool) {
	if !s.cfg.WorkflowPriorityOverride || len(s.cfg.WorkflowPriorities) == 0 {
		return 0, false
	}
	id := ""
	for _, t := range tags {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(t), s.cfg.WorkflowTagPrefix); ok {
			id = rest // the last tag wins, as in YARN
		}
	}
	if id == "" {
		return 0, false
	}
	id = strings.ToLower(id)
	for n := q; n != nil && n.parent != nil; n = n.parent {
		// The last mapping of a (queue, workflow) wins, as YARN's map.
		for i := len(s.cfg.WorkflowPriorities) - 1; i >= 0; i-- {
			if m := s.cfg.WorkflowPriorities[i]; m.Queue == n.path && m.WorkflowID == id {
				return m.Priority, true
			}
		}
	}
	return 0, false
}
