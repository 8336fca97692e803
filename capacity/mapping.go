package capacity

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

// The capacity scheduler's placement: YARN 3.3's queue mappings
// (UserGroupMappingPlacementRule for u: and g: rules,
// AppNameMappingPlacementRule for application names), evaluated at
// submission before the queue is resolved.

// Configuration keys of the placement.
const (
	queueMappingsKey       = prefix + "queue-mappings"
	mappingsOverrideKey    = prefix + "queue-mappings-override.enable"
	queuePlacementRulesKey = "yarn.scheduler.queue-placement-rules"
	appNameMappingsKey     = queuePlacementRulesKey + ".app-name"
)

// Placeholders a mapping may use.
const (
	// MapCurrentUser stands for the submitting user (source or queue).
	MapCurrentUser = "%user"
	// MapPrimaryGroup stands for the user's first group.
	MapPrimaryGroup = "%primary_group"
	// MapSecondaryGroup stands for the first of the user's other groups
	// that names an existing queue.
	MapSecondaryGroup = "%secondary_group"
	// MapApplication stands for the application's name (app-name rules).
	MapApplication = "%application"
)

// MappingKind is the kind of a queue mapping.
type MappingKind uint8

const (
	// MapUser is a "u:" mapping: its source is a user name or %user.
	MapUser MappingKind = iota
	// MapGroup is a "g:" mapping: its source is a group name.
	MapGroup
	// MapApp is an application-name mapping: its source is an application
	// name or %application.
	MapApp
)

// QueueMapping is one mapping of yarn.scheduler.capacity.queue-mappings
// ("u:source:queue", "g:source:queue") or of
// yarn.scheduler.queue-placement-rules.app-name ("source:queue"). The
// target is split at its last dot, as YARN does: "root.users.%user" is
// Parent "root.users" and Queue "%user".
type QueueMapping struct {
	// Kind is u:, g: or an application-name mapping.
	Kind MappingKind
	// Source is the user, group or application name the mapping is for,
	// or %user / %application for every one.
	Source string
	// Parent is "", a queue path or short name, %primary_group or
	// %secondary_group.
	Parent string
	// Queue is a queue name or a placeholder (%user, %primary_group,
	// %secondary_group, %application).
	Queue string
}

// String formats the mapping as the configuration writes it.
func (m QueueMapping) String() string {
	target := m.Queue
	if m.Parent != "" {
		target = m.Parent + "." + m.Queue
	}
	switch m.Kind {
	case MapUser:
		return "u:" + m.Source + ":" + target
	case MapGroup:
		return "g:" + m.Source + ":" + target
	}
	return m.Source + ":" + target
}

// dynamic reports whether the target names a queue only at submission
// (YARN's "not a static queue mapping").
func (m QueueMapping) dynamic() bool {
	for _, p := range []string{MapCurrentUser, MapPrimaryGroup, MapSecondaryGroup, MapApplication} {
		if strings.Contains(m.Queue, p) {
			return true
		}
	}
	return false
}

// PlacementRuleKind names one of the placement rules of
// yarn.scheduler.queue-placement-rules.
type PlacementRuleKind uint8

const (
	// RuleUserGroup applies Placement.Mappings ("user-group").
	RuleUserGroup PlacementRuleKind = iota
	// RuleAppName applies Placement.AppMappings ("app-name").
	RuleAppName
)

// String returns YARN's name of the rule.
func (k PlacementRuleKind) String() string {
	if k == RuleAppName {
		return "app-name"
	}
	return "user-group"
}

// Placement is the capacity scheduler's queue placement: ordered rules,
// each an ordered list of mappings. For each rule in order, the first
// mapping that matches the submission decides that rule's answer (a
// queue, or nothing); the first rule that answers a queue places the
// application there, provided the application asked for "default" (or
// nothing), asked for that very queue, or Override is set. When no rule
// answers, the application goes where it asked.
type Placement struct {
	// Rules in evaluation order (yarn.scheduler.queue-placement-rules);
	// empty means YARN's default, user-group alone.
	Rules []PlacementRuleKind
	// Mappings are the u: and g: mappings (queue-mappings).
	Mappings []QueueMapping
	// AppMappings are the application-name mappings
	// (yarn.scheduler.queue-placement-rules.app-name).
	AppMappings []QueueMapping
	// Override lets a mapping override the queue the application asked
	// for (queue-mappings-override.enable).
	Override bool
	// Format chooses the mappings above (legacy) or JSONRules
	// (mapping-rule-format; mappingrules.go).
	Format MappingFormat
	// JSONRules are YARN 3.4's JSON mapping rules (mapping-rule-json or
	// mapping-rule-json-file), used when Format is MappingJSON.
	JSONRules []MappingRule
}

func (p Placement) clone() Placement {
	p.Rules = slices.Clone(p.Rules)
	p.Mappings = slices.Clone(p.Mappings)
	p.AppMappings = slices.Clone(p.AppMappings)
	p.JSONRules = slices.Clone(p.JSONRules)
	return p
}

func (p Placement) rules() []PlacementRuleKind {
	if len(p.Rules) == 0 {
		return []PlacementRuleKind{RuleUserGroup}
	}
	return p.Rules
}

// splitTokens splits s at sep, trims each token and drops empty ones, as
// Hadoop's trimmed string collections do.
func splitTokens(s, sep string) []string {
	var out []string
	for _, t := range strings.Split(s, sep) {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, t)
		}
	}
	return out
}

func mappingField(key string, i int) string { return key + "[" + strconv.Itoa(i+1) + "]" }

// splitTarget splits a mapping's target at its last dot.
func splitTarget(t string) (parent, leaf string) {
	if i := strings.LastIndexByte(t, '.'); i >= 0 {
		return strings.TrimSpace(t[:i]), strings.TrimSpace(t[i+1:])
	}
	return "", t
}

// ParseQueueMappings reads the value of
// yarn.scheduler.capacity.queue-mappings: comma-separated
// "u|g:source:queue" mappings. An error names the mapping's position
// (queue-mappings[i], from 1) and its text.
func ParseQueueMappings(value string) ([]QueueMapping, error) {
	var out []QueueMapping
	for i, text := range splitTokens(value, ",") {
		parts := splitTokens(text, ":")
		if len(parts) != 3 {
			return nil, berth.InvalidField(mappingField(queueMappingsKey, i), text, "Illegal queue mapping "+text)
		}
		m := QueueMapping{Source: parts[1]}
		switch parts[0] {
		case "u":
			m.Kind = MapUser
		case "g":
			m.Kind = MapGroup
		default:
			return nil, berth.InvalidField(mappingField(queueMappingsKey, i), text, "unknown mapping prefix "+parts[0])
		}
		m.Parent, m.Queue = splitTarget(parts[2])
		if m.Queue == "" {
			return nil, berth.InvalidField(mappingField(queueMappingsKey, i), text, "Illegal queue mapping "+text)
		}
		out = append(out, m)
	}
	return out, nil
}

// ParseAppNameMappings reads the value of
// yarn.scheduler.queue-placement-rules.app-name: comma-separated
// "application:queue" mappings.
func ParseAppNameMappings(value string) ([]QueueMapping, error) {
	var out []QueueMapping
	for i, text := range splitTokens(value, ",") {
		parts := splitTokens(text, ":")
		if len(parts) != 2 {
			return nil, berth.InvalidField(mappingField(appNameMappingsKey, i), text, "Illegal queue mapping "+text)
		}
		m := QueueMapping{Kind: MapApp, Source: parts[0]}
		m.Parent, m.Queue = splitTarget(parts[1])
		if m.Queue == "" {
			return nil, berth.InvalidField(mappingField(appNameMappingsKey, i), text, "Illegal queue mapping "+text)
		}
		out = append(out, m)
	}
	return out, nil
}

// ParsePlacementRules reads yarn.scheduler.queue-placement-rules:
// "user-group" and "app-name" in evaluation order, each at most once.
// YARN also accepts a placement rule class name; Berth has no plug-in
// rules, so anything else is refused.
func ParsePlacementRules(value string) ([]PlacementRuleKind, error) {
	var out []PlacementRuleKind
	for _, name := range splitTokens(value, ",") {
		var k PlacementRuleKind
		switch name {
		case "user-group":
			k = RuleUserGroup
		case "app-name":
			k = RuleAppName
		default:
			return nil, berth.InvalidField(queuePlacementRulesKey, name, "unknown placement rule (only user-group and app-name are modelled)")
		}
		if slices.Contains(out, k) {
			return nil, berth.InvalidField(queuePlacementRulesKey, value, "Invalid PlacementRule inputs which contains duplicate rule strings")
		}
		out = append(out, k)
	}
	return out, nil
}

// lookupStatus is the outcome of resolving a queue name.
type lookupStatus uint8

const (
	queueMissing lookupStatus = iota
	queueFound
	queueAmbiguous
)

// queueIndex resolves a full path or a unique short name, as YARN's
// queue manager does; the configuration and the live tree both answer it.
type queueIndex interface {
	find(name string) (path string, leaf bool, st lookupStatus)
	// autoCreates reports whether the queue at path creates missing
	// queues below it (autoqueue.go).
	autoCreates(path string) bool
	// autoCreatesV2 reports whether it does so as a v2 parent (which
	// creates two levels).
	autoCreatesV2(path string) bool
}

// configIndex answers for a configuration not yet built into a tree.
type configIndex struct {
	leaf   map[string]bool     // full path → leaf
	byName map[string][]string // short name → full paths
	auto   map[string]bool     // full path → auto-creates
	autoV2 map[string]bool     // full path → auto-creates, v2
}

func newConfigIndex(root QueueConfig) *configIndex {
	ix := &configIndex{leaf: map[string]bool{}, byName: map[string][]string{}, auto: map[string]bool{}, autoV2: map[string]bool{}}
	var walk func(q QueueConfig, path string)
	walk = func(q QueueConfig, path string) {
		ix.leaf[path] = len(q.Children) == 0 && !q.Reservable && !q.Parent
		ix.auto[path] = q.Settings.AutoCreate != nil
		ix.autoV2[path] = q.Settings.AutoCreate != nil && q.Settings.AutoCreate.V2
		name := q.Name
		if path == queue.RootName {
			name = queue.RootName
		}
		ix.byName[name] = append(ix.byName[name], path)
		for _, c := range q.Children {
			walk(c, path+"."+c.Name)
		}
	}
	walk(root, queue.RootName)
	return ix
}

func (ix *configIndex) find(name string) (string, bool, lookupStatus) {
	if leaf, ok := ix.leaf[name]; ok && (name == queue.RootName || strings.HasPrefix(name, queue.RootName+".")) {
		return name, leaf, queueFound
	}
	switch ps := ix.byName[name]; len(ps) {
	case 0:
		return "", false, queueMissing
	case 1:
		return ps[0], ix.leaf[ps[0]], queueFound
	}
	return "", false, queueAmbiguous
}

func (ix *configIndex) autoCreates(path string) bool { return ix.auto[path] }

func (ix *configIndex) autoCreatesV2(path string) bool { return ix.autoV2[path] }

// treeIndex answers for the scheduler's live tree (with its reservation
// queues).
type treeIndex struct{ t *qtree }

func (ix treeIndex) autoCreates(path string) bool {
	q, err := ix.t.Lookup(path)
	return err == nil && !q.IsLeaf() && q.Payload.AutoCreate != nil
}

func (ix treeIndex) autoCreatesV2(path string) bool {
	q, err := ix.t.Lookup(path)
	return err == nil && !q.IsLeaf() && q.Payload.AutoCreate != nil && q.Payload.AutoCreate.V2
}

func (ix treeIndex) find(name string) (string, bool, lookupStatus) {
	q, err := ix.t.Lookup(name)
	switch {
	case err == nil:
		return q.Path().String(), q.IsLeaf(), queueFound
	case errors.Is(err, berth.ErrNotFound):
		return "", false, queueMissing
	}
	return "", false, queueAmbiguous
}

// validate checks the mappings against a configured tree, as YARN does
// when it (re)initializes its placement rules: a mapping whose target is
// fixed must name an existing leaf; a target under a fixed parent needs
// that parent. Errors name the mapping's key and position.
func (p Placement) validate(ix queueIndex) error {
	switch p.Format {
	case MappingLegacy:
	case MappingJSON:
		return p.validateJSON(ix)
	default:
		return berth.InvalidField(mappingRuleFormatKey, p.Format, "unknown mapping rule format")
	}
	check := func(key string, ms []QueueMapping, app bool) error {
		for i, m := range ms {
			if (m.Kind == MapApp) != app {
				return berth.InvalidField(mappingField(key, i), m.String(), "wrong kind of mapping for this list")
			}
			if err := m.validate(ix); err != nil {
				return &berth.FieldError{Field: mappingField(key, i), Value: m.String(), Reason: err.Error()}
			}
		}
		return nil
	}
	if err := check(queueMappingsKey, p.Mappings, false); err != nil {
		return err
	}
	if err := check(appNameMappingsKey, p.AppMappings, true); err != nil {
		return err
	}
	seen := map[PlacementRuleKind]bool{}
	for _, k := range p.Rules {
		if k > RuleAppName {
			return berth.InvalidField(queuePlacementRulesKey, k, "unknown placement rule")
		}
		if seen[k] {
			return berth.InvalidField(queuePlacementRulesKey, k.String(), "Invalid PlacementRule inputs which contains duplicate rule strings")
		}
		seen[k] = true
	}
	return nil
}

func (m QueueMapping) validate(ix queueIndex) error {
	if m.Kind > MapApp {
		return fmt.Errorf("unknown mapping kind %d", m.Kind)
	}
	if m.Source == "" || m.Queue == "" || strings.Contains(m.Queue, ".") {
		return fmt.Errorf("Illegal queue mapping %s", m)
	}
	if m.Parent == MapPrimaryGroup || m.Parent == MapSecondaryGroup {
		return nil // the parent is known only at submission
	}
	if m.dynamic() {
		if m.Parent == "" {
			return nil
		}
		if _, _, st := ix.find(m.Parent); st != queueFound {
			return fmt.Errorf("mapping contains invalid or non-leaf queue [%s] and invalid parent queue [%s]", m.Queue, m.Parent)
		}
		return nil
	}
	full := m.Queue
	if m.Parent != "" {
		full = m.Parent + "." + m.Queue
	}
	_, leaf, st := ix.find(full)
	switch {
	case st == queueAmbiguous:
		return fmt.Errorf("mapping contains ambiguous leaf queue reference %s", full)
	case st == queueFound && !leaf:
		return fmt.Errorf("mapping contains invalid or non-leaf queue : %s", full)
	case st == queueFound:
		return nil
	case m.Parent == "":
		return fmt.Errorf("mapping contains invalid or non-leaf queue %s", m.Queue)
	}
	ppath, _, pst := ix.find(m.Parent)
	if pst != queueFound {
		return fmt.Errorf("mapping contains invalid or non-leaf queue [%s] and invalid parent queue [%s]", full, m.Parent)
	}
	if ix.autoCreates(ppath) {
		return nil // created at the first submission
	}
	return fmt.Errorf("mapping contains leaf queue [%s] and invalid parent queue which does not have auto creation of leaf queues enabled [%s]", full, m.Parent)
}
