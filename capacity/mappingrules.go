package capacity

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
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
	var f ruleFields
	if err := json.Unmarshal(item, &f); err != nil || f == nil {
		return MappingRule{}, fmt.Errorf("a rule must be a JSON object")
	}
	var r MappingRule
	if err := f.readRequired(&r); err != nil {
		return r, err
	}
	err := f.readOptional(&r)
	return r, err
}

// ruleFields are a rule's properties as the JSON has them.
type ruleFields map[string]json.RawMessage

// text reads a string property; ok is false when it is missing or null.
func (f ruleFields) text(name string) (string, bool, error) {
	v, ok := f[name]
	if !ok {
		return "", false, nil
	}
	return jsonScalar(name, v)
}

// enum reads a property that must be one of names.
func (f ruleFields) enum(name string, names []string) (int, bool, error) {
	s, ok, err := f.text(name)
	if err != nil || !ok {
		return 0, ok, err
	}
	i := slices.Index(names, s)
	if i < 0 {
		return 0, false, fmt.Errorf("unknown %s %q", name, s)
	}
	return i, true, nil
}

// readRequired reads what MappingRuleCreator.checkMandatoryParameters
// requires: policy, type and a non-empty matches.
func (f ruleFields) readRequired(r *MappingRule) error {
	policy, ok, err := f.enum("policy", rulePolicyNames)
	if err != nil {
		return err
	} else if !ok {
		return fmt.Errorf("Rule policy is undefined")
	}
	r.Policy = RulePolicy(policy)
	typ, ok, err := f.enum("type", ruleMatchNames)
	if err != nil {
		return err
	} else if !ok {
		return fmt.Errorf("Rule type is undefined")
	}
	r.Type = RuleMatch(typ)
	matches, ok, err := f.text("matches")
	switch {
	case err != nil:
		return err
	case !ok:
		return fmt.Errorf("Match string is undefined")
	case matches == "":
		return fmt.Errorf("Match string is empty")
	}
	r.Matches = matches
	return nil
}

// readOptional reads the rest, and refuses what MappingRuleCreator
// refuses: group "*", custom without customPlacement, setDefaultQueue
// without value, and an empty parentQueue for a policy that uses it.
func (f ruleFields) readOptional(r *MappingRule) error {
	fb, _, err := f.enum("fallbackResult", ruleFallbackNames)
	if err != nil {
		return err
	}
	r.Fallback = RuleFallback(fb)
	if err := f.readCreate(r); err != nil {
		return err
	}
	var hasParent, hasValue, hasCustom bool
	for _, p := range []struct {
		name string
		dst  *string
		has  *bool
	}{{"parentQueue", &r.ParentQueue, &hasParent}, {"value", &r.Value, &hasValue}, {"customPlacement", &r.CustomPlacement, &hasCustom}} {
		if *p.dst, *p.has, err = f.text(p.name); err != nil {
			return err
		}
	}
	switch {
	case r.Type == MatchGroup && r.Matches == "*":
		return fmt.Errorf("Cannot match '*' for groups")
	case r.Policy == PlaceCustom && !hasCustom:
		return fmt.Errorf("custom queue is undefined")
	case r.Policy == SetDefaultQueue && !hasValue:
		return fmt.Errorf("default queue is undefined")
	case hasParent && r.ParentQueue == "" && r.usesParent():
		// YARN builds ".%user" and refuses its empty segment.
		p, _, _ := r.target()
		return fmt.Errorf("Path segment cannot be empty '.%s'", p)
	}
	return nil
}

// readCreate reads "create" (true unless set false); like Jackson, it
// takes the strings "true" and "false" too.
func (f ruleFields) readCreate(r *MappingRule) error {
	v, ok := f["create"]
	if !ok || string(v) == "null" {
		return nil
	}
	var b bool
	if err := json.Unmarshal(v, &b); err != nil {
		s, _, serr := jsonScalar("create", v)
		if serr != nil || (s != "true" && s != "false") {
			return fmt.Errorf("create must be a boolean")
		}
		b = s == "true"
	}
	r.NoCreate = !b
	return nil
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
