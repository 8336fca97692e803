package capacity

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/berthsched/berth"
)

// YARN 3.4's JSON mapping rules (CSMappingPlacementRule): with
// mapping-rule-format "json", the placement is an ordered list of rules
// read from mapping-rule-json (inline) or mapping-rule-json-file, and the
// legacy queue-mappings are not read.
//
// A rule matches a user ("*" for all), a group the user is in, or an
// application name; the first rule that matches and answers decides. A
// placing rule names a queue path built from variables (%user,
// %primary_group, %secondary_group, %application, %specified, %default);
// the path is checked against the tree: a path under a parent must name
// an existing leaf or a queue its parent (or, v2, grandparent) creates,
// a single name an existing leaf. A path that fails the check takes the
// rule's fallback: skip to the next rule (the default), reject the
// submission, or place in %default. setDefaultQueue changes %default for
// the rules after it. The rules run only for submissions to "default" (or
// none), unless queue-mappings-override.enable is set; when no rule
// answers, the application goes where it asked.

// Configuration keys of the JSON mapping rules.
const (
	mappingRuleFormatKey   = prefix + "mapping-rule-format"
	mappingRuleJSONKey     = prefix + "mapping-rule-json"
	mappingRuleJSONFileKey = prefix + "mapping-rule-json-file"
)

// MappingFormat is the format of the placement (mapping-rule-format).
type MappingFormat uint8

const (
	// MappingLegacy places with Placement.Mappings and AppMappings
	// ("legacy", the default).
	MappingLegacy MappingFormat = iota
	// MappingJSON places with Placement.JSONRules ("json").
	MappingJSON
)

// RuleMatch is what a mapping rule matches (its "type").
type RuleMatch uint8

const (
	// MatchUser matches the submitting user; Matches "*" matches every
	// user.
	MatchUser RuleMatch = iota
	// MatchGroup matches a group the user is in.
	MatchGroup
	// MatchApplication matches the application's name.
	MatchApplication
)

var ruleMatchNames = []string{"user", "group", "application"}

// String returns the name the JSON uses.
func (m RuleMatch) String() string { return enumName(ruleMatchNames, int(m)) }

// RulePolicy is what a matching rule does (its "policy").
type RulePolicy uint8

const (
	// PlaceSpecified places in the queue the application asked for
	// (%specified; nothing when it asked for "default").
	PlaceSpecified RulePolicy = iota
	// PlaceReject rejects the submission.
	PlaceReject
	// PlaceDefaultQueue places in %default, never creating it.
	PlaceDefaultQueue
	// PlaceUser places in [ParentQueue.]%user.
	PlaceUser
	// PlacePrimaryGroup places in [ParentQueue.]%primary_group.
	PlacePrimaryGroup
	// PlaceSecondaryGroup places in [ParentQueue.]%secondary_group: the
	// first of the user's other groups with a queue of that name (under
	// the parent, when there is one).
	PlaceSecondaryGroup
	// PlacePrimaryGroupUser places in [ParentQueue.]%primary_group.%user.
	PlacePrimaryGroupUser
	// PlaceSecondaryGroupUser places in
	// [ParentQueue.]%secondary_group.%user.
	PlaceSecondaryGroupUser
	// PlaceApplicationName places in [ParentQueue.]%application.
	PlaceApplicationName
	// SetDefaultQueue sets %default to Value (its variables substituted)
	// and goes on to the next rule.
	SetDefaultQueue
	// PlaceCustom places in CustomPlacement, a path that may use the
	// variables.
	PlaceCustom
)

var rulePolicyNames = []string{"specified", "reject", "defaultQueue", "user", "primaryGroup", "secondaryGroup",
	"primaryGroupUser", "secondaryGroupUser", "applicationName", "setDefaultQueue", "custom"}

// String returns the name the JSON uses.
func (p RulePolicy) String() string { return enumName(rulePolicyNames, int(p)) }

// RuleFallback is what a rule does when the queue it names cannot take
// the application (its "fallbackResult").
type RuleFallback uint8

const (
	// FallbackSkip goes on to the next rule (the default).
	FallbackSkip RuleFallback = iota
	// FallbackReject rejects the submission.
	FallbackReject
	// FallbackPlaceDefault places in %default, or rejects the submission
	// when %default cannot take it.
	FallbackPlaceDefault
)

var ruleFallbackNames = []string{"skip", "reject", "placeDefault"}

// String returns the name the JSON uses.
func (f RuleFallback) String() string { return enumName(ruleFallbackNames, int(f)) }

func enumName(names []string, i int) string {
	if i < len(names) {
		return names[i]
	}
	return fmt.Sprintf("unknown(%d)", i)
}

// MappingRule is one of YARN 3.4's JSON mapping rules.
type MappingRule struct {
	// Type is what the rule matches.
	Type RuleMatch
	// Matches is the user, group or application name the rule is for
	// ("*" for every user); it may use the variables.
	Matches string
	// Policy is what the rule does when it matches.
	Policy RulePolicy
	// ParentQueue is the parent the user, group and application policies
	// place under ("" for none).
	ParentQueue string
	// Value is setDefaultQueue's new %default.
	Value string
	// CustomPlacement is the custom policy's queue path.
	CustomPlacement string
	// Fallback is what the rule does when its queue cannot take the
	// application.
	Fallback RuleFallback
	// NoCreate forbids creating the rule's queue under a parent that
	// auto-creates queues ("create": false; YARN creates by default).
	NoCreate bool
}

// jsonRule is a MappingRule as the JSON writes it.
type jsonRule struct {
	Type            string  `json:"type"`
	Matches         string  `json:"matches"`
	Policy          string  `json:"policy"`
	ParentQueue     string  `json:"parentQueue,omitempty"`
	FallbackResult  string  `json:"fallbackResult,omitempty"`
	Create          *bool   `json:"create,omitempty"`
	Value           *string `json:"value,omitempty"`
	CustomPlacement *string `json:"customPlacement,omitempty"`
}

func (r MappingRule) json() jsonRule {
	j := jsonRule{Type: r.Type.String(), Matches: r.Matches, Policy: r.Policy.String(), ParentQueue: r.ParentQueue}
	// The policies that need them always carry value and customPlacement.
	if r.Value != "" || r.Policy == SetDefaultQueue {
		j.Value = &r.Value
	}
	if r.CustomPlacement != "" || r.Policy == PlaceCustom {
		j.CustomPlacement = &r.CustomPlacement
	}
	if r.Fallback != FallbackSkip {
		j.FallbackResult = r.Fallback.String()
	}
	if r.NoCreate {
		f := false
		j.Create = &f
	}
	return j
}

// String formats the rule as the JSON writes it.
func (r MappingRule) String() string {
	b, _ := json.Marshal(r.json()) // strings and a bool: cannot fail
	return string(b)
}

// FormatMappingRules writes rules as mapping-rule-json's value.
func FormatMappingRules(rules []MappingRule) string {
	js := make([]jsonRule, len(rules))
	for i, r := range rules {
		js[i] = r.json()
	}
	b, _ := json.Marshal(struct {
		Rules []jsonRule `json:"rules"`
	}{js})
	return string(b)
}

// target is the queue path pattern a placing rule evaluates, and whether
// it may create the queue; place is false for reject and setDefaultQueue.
func (r MappingRule) target() (pattern string, create, place bool) {
	under := func(v string) string {
		if r.ParentQueue == "" {
			return v
		}
		return r.ParentQueue + "." + v
	}
	create = !r.NoCreate
	switch r.Policy {
	case PlaceSpecified:
		return varSpecified, create, true
	case PlaceDefaultQueue:
		return varDefault, false, true
	case PlaceUser:
		return under(MapCurrentUser), create, true
	case PlacePrimaryGroup:
		return under(MapPrimaryGroup), create, true
	case PlaceSecondaryGroup:
		return under(MapSecondaryGroup), create, true
	case PlacePrimaryGroupUser:
		return under(MapPrimaryGroup + "." + MapCurrentUser), create, true
	case PlaceSecondaryGroupUser:
		return under(MapSecondaryGroup + "." + MapCurrentUser), create, true
	case PlaceApplicationName:
		return under(MapApplication), create, true
	case PlaceCustom:
		return r.CustomPlacement, create, true
	}
	return "", false, false
}

// The variables beyond the legacy placeholders.
const (
	varSpecified = "%specified"
	varDefault   = "%default"
	// defaultQueuePath is %default until a rule sets it.
	defaultQueuePath = "root.default"
)

// knownVariables are the names a path part is dynamic for (YARN's
// immutable variables and %default).
var knownVariables = []string{MapCurrentUser, MapPrimaryGroup, MapSecondaryGroup, MapApplication, varSpecified, varDefault}

// ParseMappingRules reads mapping-rule-json's value: an object whose
// "rules" array holds the rules in evaluation order. Properties YARN's
// schema does not know are ignored, as YARN ignores them; a rule without
// type, matches or policy, with an unknown name, matching group "*", or
// missing the custom policy's customPlacement or setDefaultQueue's value
// is refused. An error names the rule's position (mapping-rule-json[i],
// from 1).
func ParseMappingRules(data []byte) ([]MappingRule, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	var top map[string]json.RawMessage
	if err := dec.Decode(&top); err != nil {
		return nil, berth.InvalidField(mappingRuleJSONKey, string(data), "not a JSON object of mapping rules: "+err.Error())
	}
	if top == nil {
		return nil, berth.InvalidField(mappingRuleJSONKey, string(data), "not a JSON object of mapping rules")
	}
	raw, ok := top["rules"]
	if !ok {
		return nil, nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil || items == nil {
		return nil, berth.InvalidField(mappingRuleJSONKey+".rules", string(raw), "rules must be an array")
	}
	out := make([]MappingRule, 0, len(items))
	for i, item := range items {
		r, err := parseMappingRule(item)
		if err != nil {
			return nil, berth.InvalidField(mappingField(mappingRuleJSONKey, i), string(item), err.Error())
		}
		out = append(out, r)
	}
	return out, nil
}

func parseMappingRule(item json.RawMessage) (MappingRule, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(item, &fields); err != nil || fields == nil {
		return MappingRule{}, fmt.Errorf("a rule must be a JSON object")
	}
	text := func(name string) (string, bool, error) {
		v, ok := fields[name]
		if !ok {
			return "", false, nil
		}
		return jsonScalar(name, v)
	}
	enum := func(name string, names []string) (int, bool, error) {
		s, ok, err := text(name)
		if err != nil || !ok {
			return 0, ok, err
		}
		i := slices.Index(names, s)
		if i < 0 {
			return 0, false, fmt.Errorf("unknown %s %q", name, s)
		}
		return i, true, nil
	}
	var r MappingRule
	policy, ok, err := enum("policy", rulePolicyNames)
	if err != nil {
		return r, err
	} else if !ok {
		return r, fmt.Errorf("Rule policy is undefined")
	}
	r.Policy = RulePolicy(policy)
	typ, ok, err := enum("type", ruleMatchNames)
	if err != nil {
		return r, err
	} else if !ok {
		return r, fmt.Errorf("Rule type is undefined")
	}
	r.Type = RuleMatch(typ)
	matches, ok, err := text("matches")
	switch {
	case err != nil:
		return r, err
	case !ok:
		return r, fmt.Errorf("Match string is undefined")
	case matches == "":
		return r, fmt.Errorf("Match string is empty")
	}
	r.Matches = matches
	fb, _, err := enum("fallbackResult", ruleFallbackNames)
	if err != nil {
		return r, err
	}
	r.Fallback = RuleFallback(fb)
	if v, ok := fields["create"]; ok && string(v) != "null" {
		var b bool
		if err := json.Unmarshal(v, &b); err != nil {
			// Jackson coerces the strings "true" and "false".
			s, _, serr := jsonScalar("create", v)
			if serr != nil || (s != "true" && s != "false") {
				return r, fmt.Errorf("create must be a boolean")
			}
			b = s == "true"
		}
		r.NoCreate = !b
	}
	parent, hasParent, err := text("parentQueue")
	if err != nil {
		return r, err
	}
	r.ParentQueue = parent
	value, hasValue, err := text("value")
	if err != nil {
		return r, err
	}
	r.Value = value
	custom, hasCustom, err := text("customPlacement")
	if err != nil {
		return r, err
	}
	r.CustomPlacement = custom
	switch {
	case r.Type == MatchGroup && r.Matches == "*":
		return r, fmt.Errorf("Cannot match '*' for groups")
	case r.Policy == PlaceCustom && !hasCustom:
		return r, fmt.Errorf("custom queue is undefined")
	case r.Policy == SetDefaultQueue && !hasValue:
		return r, fmt.Errorf("default queue is undefined")
	case hasParent && parent == "" && r.usesParent():
		// YARN builds ".%user" and refuses its empty segment.
		p, _, _ := r.target()
		return r, fmt.Errorf("Path segment cannot be empty '.%s'", p)
	}
	return r, nil
}

// usesParent reports whether the policy places under ParentQueue.
func (r MappingRule) usesParent() bool {
	switch r.Policy {
	case PlaceUser, PlacePrimaryGroup, PlaceSecondaryGroup, PlacePrimaryGroupUser, PlaceSecondaryGroupUser, PlaceApplicationName:
		return true
	}
	return false
}

// jsonScalar reads a string property; like Jackson, it takes a number or
// a boolean as its text. ok is false for null.
func jsonScalar(name string, v json.RawMessage) (string, bool, error) {
	var x any
	if err := json.Unmarshal(v, &x); err != nil {
		return "", false, fmt.Errorf("%s: %v", name, err)
	}
	switch x := x.(type) {
	case nil:
		return "", false, nil
	case string:
		return x, true, nil
	case float64, bool:
		return strings.TrimSpace(string(v)), true, nil
	}
	return "", false, fmt.Errorf("%s must be a string", name)
}

// readMappingRules reads the JSON rules of a capacity-scheduler.xml: the
// format, then the inline JSON or, when there is none, the file through
// XMLOptions.ReadFile.
func (p *parser) readMappingRules(dst *Placement) {
	format, ok := p.get(mappingRuleFormatKey)
	if !ok || p.err != nil {
		return
	}
	switch format {
	case "legacy":
		dst.Format = MappingLegacy
		return
	case "json":
		dst.Format = MappingJSON
	default:
		p.fail(mappingRuleFormatKey, format, "Illegal queue mapping type: "+format)
		return
	}
	var data []byte
	if v, _ := p.get(mappingRuleJSONKey); v != "" {
		data = []byte(v)
	} else if path, _ := p.get(mappingRuleJSONFileKey); path != "" {
		if p.opts.ReadFile == nil {
			p.fail(mappingRuleJSONFileKey, path, "reading the rules' file needs XMLOptions.ReadFile (Berth reads no files itself)")
			return
		}
		b, err := p.opts.ReadFile(strings.TrimSpace(path))
		if err != nil {
			p.fail(mappingRuleJSONFileKey, path, "cannot read the mapping rules: "+err.Error())
			return
		}
		data = b
	} else {
		return // YARN starts with no rules
	}
	rules, err := ParseMappingRules(data)
	if err != nil && p.err == nil {
		p.err = err
	}
	dst.JSONRules = rules
}

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
