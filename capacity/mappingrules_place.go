package capacity

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/berthsched/berth"
)

// The JSON mapping rules against the tree: checked when the scheduler is
// built or reconfigured, evaluated at submission (mappingrules.go reads
// them).

// validateJSON checks the rules against a configured tree, as YARN does
// when it initializes CSMappingPlacementRule: each placing rule's path
// must be able to name a leaf (a path without variables an existing
// leaf or a queue its parent can create; a path with variables a
// parent, existing or creatable, of its fixed beginning).
func (p Placement) validateJSON(ix queueIndex) error {
	for i, r := range p.JSONRules {
		if err := r.validate(ix); err != nil {
			return &berth.FieldError{Field: mappingField(mappingRuleJSONKey, i), Value: r.String(), Reason: err.Error()}
		}
	}
	return nil
}

func (r MappingRule) validate(ix queueIndex) error {
	switch {
	case int(r.Type) >= len(ruleMatchNames):
		return fmt.Errorf("unknown rule type %d", r.Type)
	case int(r.Policy) >= len(rulePolicyNames):
		return fmt.Errorf("unknown rule policy %d", r.Policy)
	case int(r.Fallback) >= len(ruleFallbackNames):
		return fmt.Errorf("unknown fallback %d", r.Fallback)
	case r.Matches == "":
		return fmt.Errorf("Match string is empty")
	case r.Type == MatchGroup && r.Matches == "*":
		return fmt.Errorf("Cannot match '*' for groups")
	}
	pattern, _, place := r.target()
	if !place {
		return nil
	}
	if pattern == "" {
		return fmt.Errorf("Queue path is empty.")
	}
	parts := strings.Split(pattern, ".")
	static := true
	for _, part := range parts {
		if part == "" {
			return fmt.Errorf("Path segment cannot be empty '%s'.", pattern)
		}
		if slices.Contains(knownVariables, part) {
			static = false
		}
	}
	if static {
		return validateStaticPath(ix, pattern)
	}
	return validateDynamicPath(ix, parts, pattern)
}

// validateStaticPath is YARN's validateStaticQueuePath.
func validateStaticPath(ix queueIndex, path string) error {
	norm, err := normalizePathRoot(ix, path)
	if err != nil {
		return err
	}
	switch c := pathCreation(ix, norm); c {
	case pathExists:
		if _, leaf, _ := ix.find(norm); !leaf {
			return fmt.Errorf("Target queue '%s' but it's not a leaf queue.", path)
		}
		return nil
	case pathCreatable:
		return nil
	default:
		return c.err(path)
	}
}

// validateDynamicPath is YARN's validateDynamicQueuePath: only the path's
// fixed beginning can be checked.
func validateDynamicPath(ix queueIndex, parts []string, path string) error {
	dynamic := func(s string) bool { return slices.Contains(knownVariables, s) }
	if dynamic(parts[0]) {
		return nil
	}
	static, staticParent := parts[0], ""
	for _, part := range parts[1:] {
		if dynamic(part) {
			break
		}
		staticParent = static
		static += "." + part
	}
	norm, err := normalizePathRoot(ix, static)
	if err != nil {
		return err
	}
	if _, leaf, st := ix.find(norm); st == queueFound {
		if leaf {
			return fmt.Errorf("Queue path '%s' is invalid because '%s' is a leaf queue, which can have no other queues under it.", path, norm)
		}
		return nil
	}
	if staticParent != "" {
		np, err := normalizePathRoot(ix, staticParent)
		if err != nil {
			return err
		}
		if q, leaf, st := ix.find(np); st == queueFound && !leaf && ix.autoCreates(q) {
			return nil
		}
	}
	return fmt.Errorf("No eligible parent found on path '%s'.", path)
}

// normalizePathRoot replaces the path's first name with its queue's full
// path (MappingRuleValidationHelper.normalizeQueuePathRoot).
func normalizePathRoot(ix queueIndex, path string) (string, error) {
	first, rest, more := strings.Cut(path, ".")
	full, _, st := ix.find(first)
	switch st {
	case queueAmbiguous:
		return "", fmt.Errorf("Path root '%s' is ambiguous. Path '%s' is invalid", first, path)
	case queueMissing:
		return "", fmt.Errorf("Path root '%s' does not exist. Path '%s' is invalid", first, path)
	}
	if !more {
		return full, nil
	}
	return full + "." + rest, nil
}

// creation is YARN's MappingRuleValidationHelper.ValidationResult.
type creation uint8

const (
	pathCreatable creation = iota
	pathExists
	pathNoParent
	pathNoDynamicParent
	pathAmbiguousParent
	pathAmbiguousQueue
	pathEmpty
)

func (c creation) err(path string) error {
	parent, leaf := splitTarget(path)
	switch c {
	case pathAmbiguousParent:
		return fmt.Errorf("Target queue path '%s' contains an ambiguous parent queue '%s' reference.", path, parent)
	case pathAmbiguousQueue:
		return fmt.Errorf("Target queue is an ambiguous leaf queue '%s'.", path)
	case pathEmpty:
		return fmt.Errorf("Mapping rule did not specify a target queue.")
	case pathNoParent:
		return fmt.Errorf("Target queue does not exist and has no parent defined '%s'.", path)
	}
	return fmt.Errorf("Mapping rule specified a parent queue '%s', but it is not a dynamic parent queue, and no queue exists with name '%s' under it.", parent, leaf)
}

// pathCreation is YARN's validateQueuePathAutoCreation: whether path
// names a queue, or one its parent creates, or (v2) one its grandparent
// creates with the parent.
func pathCreation(ix queueIndex, path string) creation {
	if path == "" {
		return pathEmpty
	}
	switch _, _, st := ix.find(path); st {
	case queueFound:
		return pathExists
	case queueAmbiguous:
		return pathAmbiguousQueue
	}
	parts := strings.Split(path, ".")
	if len(parts) < 2 {
		return pathNoParent
	}
	parentPath := strings.Join(parts[:len(parts)-1], ".")
	grandPath := strings.Join(parts[:len(parts)-2], ".")
	pp, leaf, st := ix.find(parentPath)
	switch st {
	case queueAmbiguous:
		return pathAmbiguousParent
	case queueMissing:
		if grandPath == "" {
			return pathNoParent
		}
		gp, gleaf, gst := ix.find(grandPath)
		switch {
		case gst == queueAmbiguous:
			return pathAmbiguousParent
		case gst == queueFound && !gleaf && ix.autoCreatesV2(gp):
			return pathCreatable
		}
		return pathNoDynamicParent
	}
	if !leaf && ix.autoCreates(pp) {
		return pathCreatable
	}
	return pathNoDynamicParent
}

// The placement at submission.

// ruleVars is YARN's VariableContext for one submission.
type ruleVars struct {
	vals      map[string]string
	user      string   // the user as submitted (%user is cleaned)
	groups    []string // the user's groups, nil without a group source
	secondary []string // candidate secondary groups, cleaned
	ix        queueIndex
}

// cleanName replaces dots, as YARN does for user and group names used
// as queue names.
func cleanName(s string) string { return strings.ReplaceAll(s, ".", "_dot_") }

func newRuleVars(in placeInput, ix queueIndex) *ruleVars {
	v := &ruleVars{user: in.user, ix: ix, vals: map[string]string{
		MapCurrentUser: cleanName(in.user),
		MapApplication: in.app,
		varDefault:     defaultQueuePath,
		varSpecified:   "",
	}}
	if in.requested != "" && in.requested != "default" {
		v.vals[varSpecified] = in.requested
	}
	var gs []string
	if in.groups != nil {
		gs = in.groups()
	}
	v.groups = gs
	if len(gs) == 0 {
		// No groups: YARN leaves them empty without a group service (and
		// undefined for a user the service has none for).
		v.vals[MapPrimaryGroup], v.vals[MapSecondaryGroup] = "", ""
		return v
	}
	v.vals[MapPrimaryGroup] = cleanName(gs[0])
	for _, g := range gs[1:] {
		v.secondary = append(v.secondary, cleanName(g))
	}
	if len(v.secondary) == 0 {
		v.vals[MapSecondaryGroup] = ""
	}
	return v
}

// replace substitutes every variable anywhere in s, longest names first
// (VariableContext.replaceVariables); %secondary_group, when it depends
// on the path, is not substituted.
func (v *ruleVars) replace(s string) string {
	names := make([]string, 0, len(v.vals))
	for n := range v.vals {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		if len(names[i]) != len(names[j]) {
			return len(names[i]) > len(names[j])
		}
		return names[i] < names[j]
	})
	for _, n := range names {
		s = strings.ReplaceAll(s, n, v.vals[n])
	}
	return s
}

// replacePath substitutes the path parts that are exactly a variable
// (VariableContext.replacePathVariables); %secondary_group is the first
// candidate group with a queue under the parts before it.
func (v *ruleVars) replacePath(s string) string {
	parts := strings.Split(s, ".")
	for i, part := range parts {
		if val, ok := v.vals[part]; ok {
			parts[i] = val
			continue
		}
		if part == MapSecondaryGroup && v.secondary != nil {
			prefix := ""
			if i > 0 {
				prefix = strings.Join(parts[:i], ".") + "."
			}
			parts[i] = ""
			for _, g := range v.secondary {
				if _, _, st := v.ix.find(prefix + g); st == queueFound {
					parts[i] = g
					break
				}
			}
		}
	}
	return strings.Join(parts, ".")
}

// matches reports whether the rule is for this submission.
func (r MappingRule) matches(v *ruleVars) bool {
	switch r.Type {
	case MatchUser:
		return r.Matches == "*" || v.replace(r.Matches) == v.user
	case MatchGroup:
		return v.groups != nil && slices.Contains(v.groups, v.replace(r.Matches))
	}
	return v.replace(r.Matches) == v.vals[MapApplication]
}

// errRuleRejected is a rejection by rule i.
func errRuleRejected(i int, r MappingRule, why string) error {
	return &berth.FieldError{Field: "queue", Value: r.String(), Kind: berth.ErrNoPlacement,
		Reason: fmt.Sprintf("Application submission have been rejected by mapping rule %d: %s", i+1, why)}
}

// placeJSON runs the JSON rules (CSMappingPlacementRule.
// getPlacementForApp).
func (p Placement) placeJSON(in placeInput, ix queueIndex) (placed, bool, error) {
	if in.requested != "" && in.requested != "default" && !p.Override {
		return placed{}, false, nil
	}
	v := newRuleVars(in, ix)
	for i, r := range p.JSONRules {
		if !r.matches(v) {
			continue
		}
		if r.Policy == PlaceReject {
			return placed{}, false, errRuleRejected(i, r, "its policy is reject")
		}
		if r.Policy == SetDefaultQueue {
			v.vals[varDefault] = v.replace(r.Value)
			continue
		}
		pattern, create, _ := r.target()
		path := v.replacePath(pattern)
		full, err := normalizePlacement(ix, path, create)
		if err == nil {
			return placedAt(full, i, r), true, nil
		}
		switch r.Fallback {
		case FallbackReject:
			return placed{}, false, errRuleRejected(i, r, fmt.Sprintf("cannot place in %q (%v) and its fallback is reject", path, err))
		case FallbackPlaceDefault:
			def := v.replacePath(varDefault)
			full, derr := normalizePlacement(ix, def, false)
			if derr != nil {
				return placed{}, false, errRuleRejected(i, r, fmt.Sprintf("cannot place in %q (%v) nor in the default queue %q (%v)", path, err, def, derr))
			}
			return placedAt(full, i, r), true, nil
		}
	}
	return placed{}, false, nil
}

func placedAt(full string, i int, r MappingRule) placed {
	_, leaf := splitTarget(full)
	rule := r
	return placed{queue: full, leaf: leaf, json: &rule, index: i}
}

// normalizePlacement is CSMappingPlacementRule.validateAndNormalizeQueue:
// the full path of the leaf the application goes to, which exists or
// which its parent (or v2 grandparent) creates when create allows.
func normalizePlacement(ix queueIndex, path string, create bool) (string, error) {
	if slices.Contains(strings.Split(path, "."), "") {
		return "", fmt.Errorf("Invalid path returned by rule: '%s'", path)
	}
	parent, leaf := splitTarget(path)
	var full string
	if parent != "" {
		norm, err := normalizePathRoot(ix, parent+"."+leaf)
		if err != nil {
			return "", err
		}
		switch c := pathCreation(ix, norm); c {
		case pathExists:
		case pathCreatable:
			if !create {
				return "", fmt.Errorf("Mapping rule doesn't allow auto-creation of the queue '%s'.", norm)
			}
		default:
			return "", c.err(norm)
		}
		full = norm
	} else {
		p, _, st := ix.find(leaf)
		switch st {
		case queueAmbiguous:
			return "", fmt.Errorf("Queue '%s' specified in mapping rule is ambiguous", leaf)
		case queueMissing:
			return "", fmt.Errorf("Queue '%s' specified in mapping rule does not exist.", leaf)
		}
		full = p
	}
	if _, isLeaf, st := ix.find(full); st == queueFound && !isLeaf {
		return "", fmt.Errorf("Mapping rule returned a non-leaf queue '%s', cannot place application in it.", full)
	}
	return full, nil
}
