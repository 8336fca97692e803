package fair

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

// RuleKind is a placement rule's type (the <rule name="…"> of
// queuePlacementPolicy).
type RuleKind uint8

const (
	// RuleSpecified places in the queue the application asked for.
	RuleSpecified RuleKind = iota + 1
	// RuleUser places in a queue named after the user.
	RuleUser
	// RulePrimaryGroup places in a queue named after the user's first group.
	RulePrimaryGroup
	// RuleSecondaryGroupExistingQueue places in the first existing queue
	// named after one of the user's other groups.
	RuleSecondaryGroupExistingQueue
	// RuleNestedUserQueue places in a user queue below its parent rule's
	// result.
	RuleNestedUserQueue
	// RuleDefault places in the default queue (or the rule's queue).
	RuleDefault
	// RuleReject rejects the application.
	RuleReject
)

// ruleName returns the allocation-file name of a rule kind ("" if none).
func ruleName(k RuleKind) string {
	switch k {
	case RuleSpecified:
		return "specified"
	case RuleUser:
		return "user"
	case RulePrimaryGroup:
		return "primaryGroup"
	case RuleSecondaryGroupExistingQueue:
		return "secondaryGroupExistingQueue"
	case RuleNestedUserQueue:
		return "nestedUserQueue"
	case RuleDefault:
		return "default"
	case RuleReject:
		return "reject"
	}
	return ""
}

// String returns the rule's name as the allocation file spells it.
func (k RuleKind) String() string {
	if n := ruleName(k); n != "" {
		return n
	}
	return "RuleKind(" + strconv.Itoa(int(k)) + ")"
}

// PlacementRule is one rule of a placement policy.
type PlacementRule struct {
	Kind RuleKind // the rule's type
	// Create lets the rule create the queue it names (create="true", the
	// default); without it the queue must exist as a configured queue.
	Create bool
	// Queue is the default rule's queue attribute ("" for root.default).
	Queue string
	// Parent is the nested rule whose result is the parent queue (required
	// for nestedUserQueue; allowed for user, primaryGroup and
	// secondaryGroupExistingQueue).
	Parent *PlacementRule
	// Custom, when set, is a host's rule: Kind, Queue and Parent are
	// ignored, and Create caps what the rule may create (a queue it names
	// must be configured unless both Create and the rule's answer allow
	// creating it).
	Custom Rule
}

// PlacementRequest is what a placement rule reads about a submission.
type PlacementRequest struct {
	Requested string   // the queue the application asks for ("" or "default": none)
	User      string   // the submitting user
	Groups    []string // the user's groups, primary first (nil: none known)
	Tags      []string // the application's tags
	AppID     string   // the application's id ("" for a dry run)
}

// Verdict is a placement rule's answer.
type Verdict uint8

const (
	// Pass lets the next rule decide.
	Pass Verdict = iota
	// PlaceIn places the application in the answer's queue.
	PlaceIn
	// Reject refuses the application.
	Reject
)

// RuleAnswer is what a [Rule] decides.
type RuleAnswer struct {
	Verdict Verdict
	// Queue is the leaf for PlaceIn: a full path ("root.x.y") or a name
	// under root ("x.y").
	Queue string
	// Create lets the scheduler create Queue when it is not configured;
	// otherwise an unconfigured queue makes the rule pass.
	Create bool
}

// Rule is a placement rule (YARN's PlacementRule, whose class YARN loads
// by name): the seven built-ins are [PlacementRule] values, and a host's
// rule sits beside them through [PlacementRule].Custom or, from an
// allocation file, a name in [ParseOptions].Rules.
//
// Contract: Place reads the request and the queue tree (through qi) and
// changes nothing. A PlaceIn answer must name a valid queue path, else the
// submission fails with a [*RuleError] and no state changes; a parent
// queue is refused by the scheduler as for the built-ins (a plan queue
// sends the application to its reservation queue). An error is returned
// as it is.
type Rule interface {
	// Name identifies the rule in errors.
	Name() string
	// Place decides for one submission.
	Place(req PlacementRequest, qi QueueLookup) (RuleAnswer, error)
}

// ErrBadRule is wrapped by every [RuleError].
var ErrBadRule = errors.New("fair: placement rule answered outside its contract")

// RuleError reports a placement rule's answer that the policy refuses: a
// malformed queue path or an unknown verdict.
type RuleError struct {
	Rule   string // the rule's Name
	Queue  string // the queue it answered
	Reason string
}

// Error names the rule, its answer and the broken rule.
func (e *RuleError) Error() string {
	return fmt.Sprintf("fair: placement rule %s: queue %q: %s", e.Rule, e.Queue, e.Reason)
}

// Unwrap returns ErrBadRule and berth.ErrInvalidArgument.
func (e *RuleError) Unwrap() []error { return []error{ErrBadRule, berth.ErrInvalidArgument} }

// Name returns the rule's name as the allocation file spells it.
func (r *PlacementRule) Name() string {
	if r.Custom != nil {
		return r.Custom.Name()
	}
	return r.Kind.String()
}

// Place is the built-in rule's decision (or the custom rule's, with
// Create capped): the same interface a host's rule implements.
func (r *PlacementRule) Place(req PlacementRequest, qi QueueLookup) (RuleAnswer, error) {
	if qi == nil {
		qi = noQueues{}
	}
	if r.Custom != nil {
		a, err := r.Custom.Place(req, qi)
		a.Create = a.Create && r.Create
		return a, err
	}
	if r.Kind == RuleReject {
		return RuleAnswer{Verdict: Reject}, nil
	}
	q, err := r.place(req.Requested, req.User, req.Groups, qi)
	if err != nil || q == "" {
		return RuleAnswer{}, err
	}
	// place answers only queues it may use: created or configured.
	return RuleAnswer{Verdict: PlaceIn, Queue: q, Create: true}, nil
}

// terminal reports whether the rule always places (or rejects), so that no
// later rule can be reached.
func (r *PlacementRule) terminal() bool {
	switch r.Kind {
	case RuleReject:
		return true
	case RuleUser, RulePrimaryGroup, RuleNestedUserQueue:
		return r.Create && (r.Parent == nil || r.Parent.terminal())
	case RuleDefault:
		return r.Create
	}
	return false
}

// PlacementPolicy is an ordered list of rules: the first rule that places
// the application wins; if none does, it is rejected.
type PlacementPolicy struct {
	Rules []PlacementRule // in evaluation order
}

// ImplicitPlacementPolicy is the policy YARN uses when the allocation file
// has no queuePlacementPolicy: specified, then (if userAsDefaultQueue) user,
// then default when the user rule cannot always place.
func ImplicitPlacementPolicy(userAsDefaultQueue, allowUndeclaredPools bool) *PlacementPolicy {
	p := &PlacementPolicy{Rules: []PlacementRule{{Kind: RuleSpecified, Create: allowUndeclaredPools}}}
	if userAsDefaultQueue {
		p.Rules = append(p.Rules, PlacementRule{Kind: RuleUser, Create: allowUndeclaredPools})
	}
	if !userAsDefaultQueue || !allowUndeclaredPools {
		p.Rules = append(p.Rules, PlacementRule{Kind: RuleDefault, Create: true})
	}
	return p
}

// Validate checks YARN's reachability rules: no terminal rule before the
// last, and a terminal last rule.
func (p *PlacementPolicy) Validate() error {
	for i := range p.Rules {
		if p.Rules[i].terminal() && i < len(p.Rules)-1 {
			return fieldErr("queuePlacementPolicy", p.Rules[i].Kind.String(),
				fmt.Sprintf("Rules after rule %d in queue placement policy can never be reached", i+1))
		}
	}
	if len(p.Rules) == 0 || !p.Rules[len(p.Rules)-1].terminal() {
		return fieldErr("queuePlacementPolicy", "", "Could get past last queue placement rule without assigning")
	}
	return nil
}

// parsePlacementPolicy reads <queuePlacementPolicy>; nil with no error
// means "no <rule> children: keep the current rules".
func (ap *allocParser) parsePlacementPolicy(el *xnode) (*PlacementPolicy, error) {
	if len(el.children) == 0 {
		return nil, fieldErr("queuePlacementPolicy", "", "Empty configuration for QueuePlacementPolicy is not allowed")
	}
	p := &PlacementPolicy{}
	for _, c := range el.children {
		if c.name != "rule" {
			ap.unknown("queuePlacementPolicy", c.name, strings.TrimSpace(c.text.String()), placementElems)
			continue
		}
		r, err := ap.parseRule(c, "queuePlacementPolicy.rule["+strconv.Itoa(len(p.Rules)+1)+"]")
		if err != nil {
			return nil, err
		}
		p.Rules = append(p.Rules, *r)
	}
	if len(p.Rules) == 0 {
		return nil, nil
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return p, nil
}

func (ap *allocParser) parseRule(el *xnode, field string) (*PlacementRule, error) {
	ap.checkAttrs(field, el, ruleAttrs)
	name, _ := el.attr("name")
	if name == "" {
		return nil, fieldErr(field, "", "No name provided for a rule element")
	}
	var kind RuleKind
	for k := RuleSpecified; k <= RuleReject; k++ {
		if ruleName(k) == name {
			kind = k
		}
	}
	var custom Rule
	if kind == 0 {
		c, ok := ap.opts.Rules.Lookup(name)
		if !ok {
			// A *berth.FieldError (YARN's words) that also matches
			// *queue.UnknownNameError.
			return nil, &berth.FieldError{Field: field, Value: name, Reason: "No rule class found for " + name,
				Err: &queue.UnknownNameError{Field: field, Kind: "placement rule", Name: name, Known: ap.opts.Rules.Names()}}
		}
		custom = c
	}
	r := &PlacementRule{Kind: kind, Create: true, Custom: custom}
	if v, ok := el.attr("create"); ok && v != "" {
		r.Create = strings.EqualFold(v, "true")
	}
	if kind == RuleDefault {
		if q, ok := el.attr("queue"); ok {
			r.Queue = q
		}
	}
	// Only the last nested <rule> counts as the parent.
	for _, c := range el.children {
		if c.name != "rule" {
			ap.unknown(field, c.name, strings.TrimSpace(c.text.String()), placementElems)
			continue
		}
		pr, err := ap.parseRule(c, field+".rule")
		if err != nil {
			return nil, err
		}
		r.Parent = pr
	}
	if r.Parent != nil {
		switch {
		case r.Parent.Kind == RuleReject || r.Parent.Kind == RuleNestedUserQueue:
			return nil, fieldErr(field, r.Parent.Kind.String(), "Rule '"+r.Parent.Kind.String()+"' is not allowed as a parent rule for any rule")
		case r.Parent.Kind == kind:
			return nil, fieldErr(field, name, "Parent rule may not be the same type as the child rule: "+name)
		case kind == RuleSpecified || kind == RuleDefault || kind == RuleReject:
			return nil, fieldErr(field, name, "Rule '"+name+"' may not have a parent rule")
		}
	}
	if kind == RuleNestedUserQueue && r.Parent == nil {
		return nil, fieldErr(field, name, "Rule 'nestedUserQueue' must have a parent rule set")
	}
	return r, nil
}

// QueueLookup answers what placement needs to know about existing queues.
type QueueLookup interface {
	// LookupQueue reports whether the queue at path exists, whether it is
	// a leaf, and whether it is configured (not created ad hoc).
	LookupQueue(path string) (exists, leaf, configured bool)
}

// noQueues is the lookup of a nil QueueLookup: no queue exists.
type noQueues struct{}

func (noQueues) LookupQueue(string) (exists, leaf, configured bool) { return false, false, false }

// cleanName replaces "." in user and group names, which would otherwise
// make nested queues.
func cleanName(s string) string { return strings.ReplaceAll(strings.TrimSpace(s), ".", "_dot_") }

func assureRoot(q string) string {
	if q == queue.RootName || strings.HasPrefix(q, queue.RootName+".") {
		return q
	}
	return queue.RootName + "." + q
}

// Place runs the policy for an application asking for requested on behalf
// of user. It returns the full queue path, or "" when the rules reject the
// application. An invalid requested name or a user without groups (for the
// group rules) is an error of kind berth.ErrInvalidArgument.
func (p *PlacementPolicy) Place(requested, user string, groups queue.Groups, qi QueueLookup) (string, error) {
	return p.PlaceApp(PlacementRequest{Requested: requested, User: user, Groups: groupsOf(groups, user)}, qi)
}

// PlaceApp is Place for a full request (tags and id too): every rule,
// built-in or a host's, goes through [Rule].Place and has its answer
// checked. It returns the full queue path, or "" when rejected.
func (p *PlacementPolicy) PlaceApp(req PlacementRequest, qi QueueLookup) (string, error) {
	for i := range p.Rules {
		r := &p.Rules[i]
		a, err := r.Place(req, qi)
		if err != nil {
			return "", err
		}
		switch a.Verdict {
		case Pass:
			continue
		case Reject:
			return "", nil
		case PlaceIn:
		default:
			return "", &RuleError{Rule: r.Name(), Queue: a.Queue, Reason: fmt.Sprintf("unknown verdict %d", a.Verdict)}
		}
		q := a.Queue
		if q == "" || !validPath(assureRoot(q)) {
			return "", &RuleError{Rule: r.Name(), Queue: q, Reason: "not a valid queue path"}
		}
		q = assureRoot(q)
		exists, _, conf := qi.LookupQueue(q)
		if !a.Create && !(exists && conf) {
			continue
		}
		return q, nil
	}
	return "", nil
}

func configured(qi QueueLookup, path string) bool {
	ok, _, conf := qi.LookupQueue(path)
	return ok && conf
}

func (r *PlacementRule) place(requested, user string, gs []string, qi QueueLookup) (string, error) {
	switch r.Kind {
	case RuleReject:
		return "", nil
	case RuleSpecified:
		if requested == "" || requested == "default" {
			return "", nil
		}
		if unicodeTrim(requested) != requested || strings.HasPrefix(requested, ".") || strings.HasSuffix(requested, ".") {
			return "", fieldErr("queue", requested, "invalid queue name in submission: "+strconv.Quote(requested))
		}
		q := assureRoot(requested)
		if r.Create || configured(qi, q) {
			return q, nil
		}
		return "", nil
	case RuleDefault:
		q := "root.default"
		if r.Queue != "" {
			if c := assureRoot(r.Queue); validPath(c) {
				q = c
			}
		}
		if r.Create || configured(qi, q) {
			return q, nil
		}
		return "", nil
	}
	// The rules that may sit under a parent rule.
	base := queue.RootName
	if r.Parent != nil {
		pq, err := r.Parent.place(requested, user, gs, qi)
		if err != nil || pq == "" {
			return "", err
		}
		if exists, leaf, _ := qi.LookupQueue(pq); exists && leaf {
			return "", nil
		}
		base = pq
	}
	var name string
	switch r.Kind {
	case RuleUser, RuleNestedUserQueue:
		name = cleanName(user)
	case RulePrimaryGroup:
		if len(gs) == 0 {
			return "", &berth.FieldError{Field: "user", Value: user, Reason: "no groups found for user " + user, Kind: berth.ErrNoPlacement}
		}
		name = cleanName(gs[0])
	case RuleSecondaryGroupExistingQueue:
		for _, g := range gs[min(1, len(gs)):] {
			if q := base + "." + cleanName(g); configured(qi, q) {
				return q, nil
			}
		}
		return "", nil
	}
	q := base + "." + name
	if r.Create || configured(qi, q) {
		return q, nil
	}
	return "", nil
}

func groupsOf(g queue.Groups, user string) []string {
	if g == nil {
		return nil
	}
	return g.GroupsOf(user)
}

func validPath(p string) bool {
	_, err := queue.ParsePath(p)
	return err == nil
}
