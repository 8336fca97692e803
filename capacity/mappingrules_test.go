package capacity

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

// The users and groups of YARN's TestCSMappingPlacementRule, plus a
// user whose name has a dot.
func ruleGroups(user string) []string {
	return map[string][]string{
		"alice":   {"p_alice", "user", "developer"},
		"bob":     {"p_bob", "user", "developer"},
		"charlie": {"p_charlie", "user", "tester"},
		"dave":    {"user", "tester"},
		"emily":   {"user", "tester", "developer"},
		"a.b":     {"g.x"},
	}[user]
}

// ruleTree has a leaf (unman), a legacy managed parent (man), a v2 parent
// (dyn), the users' and groups' queues, and a short name two queues hold
// (ambi).
func ruleTree() QueueConfig {
	root := QueueConfig{Name: "root", Settings: DefaultSettings()}
	man := QueueConfig{Name: "man", Capacity: queue.Percent(10), Settings: DefaultSettings(), Parent: true}
	man.Settings.AutoCreate = DefaultAutoCreate(false)
	k := Queue("k", 0)
	k.Capacity = queue.Weight(1)
	dyn := QueueConfig{Name: "dyn", Capacity: queue.Percent(20), Settings: DefaultSettings(), Children: []QueueConfig{k}}
	dyn.Settings.AutoCreate = DefaultAutoCreate(true)
	root.Children = []QueueConfig{
		Queue("default", 10),
		Queue("unman", 10),
		man,
		Queue("user", 20, Queue("alice", 40), Queue("bob", 30), Queue("ambi", 30)),
		Queue("other", 10, Queue("ambi", 100)),
		dyn,
		Queue("groups", 20, Queue("developer", 50), Queue("tester", 50)),
	}
	return root
}

func ruleConfig(rules ...MappingRule) Config {
	cfg := DefaultConfig()
	cfg.Root = ruleTree()
	cfg.Groups = queue.GroupsFunc(ruleGroups)
	cfg.Placement = Placement{Format: MappingJSON, JSONRules: rules}
	return cfg
}

func userRule(user string, p RulePolicy, parent string) MappingRule {
	return MappingRule{Type: MatchUser, Matches: user, Policy: p, ParentQueue: parent}
}

func customRule(user, path string, fb RuleFallback) MappingRule {
	return MappingRule{Type: MatchUser, Matches: user, Policy: PlaceCustom, CustomPlacement: path, Fallback: fb}
}

// runRules evaluates rules on their own (as YARN's test does, without the
// start-up check) against ruleTree: the queue chosen, "" for none, or
// "reject".
func runRules(t *testing.T, s *Scheduler, override bool, rules []MappingRule, user, app, requested string) string {
	t.Helper()
	pl := Placement{Format: MappingJSON, JSONRules: rules, Override: override}
	in := placeInput{user: user, app: app, requested: requested, groups: func() []string { return ruleGroups(user) }}
	res, ok, err := pl.place(in, treeIndex{s.tree})
	switch {
	case err != nil:
		require.ErrorIs(t, err, berth.ErrNoPlacement)
		return "reject"
	case !ok:
		return ""
	}
	return res.queue
}

func ruleScheduler(t *testing.T) *Scheduler {
	t.Helper()
	cfg := ruleConfig()
	cfg.Clock = berth.NewManualClock(0)
	s, err := New(cfg)
	require.NoError(t, err)
	return s
}

// TestCSMappingPlacementRule's testRuleFallbackHandling.
func TestMappingRulesFallbacks(t *testing.T) {
	s := ruleScheduler(t)
	rules := []MappingRule{
		customRule("alice", "non-existent", FallbackReject),
		customRule("bob", "non-existent", FallbackSkip),
		{Type: MatchUser, Matches: "bob", Policy: SetDefaultQueue, Value: "root.invalid"},
		{Type: MatchUser, Matches: "bob", Policy: PlaceCustom, CustomPlacement: "%default"},
		customRule("charlie", "non-existent", FallbackPlaceDefault),
		{Type: MatchUser, Matches: "emily", Policy: SetDefaultQueue, Value: "root.invalid"},
		customRule("emily", "non-existent", FallbackPlaceDefault),
		{Type: MatchApplication, Matches: "ShouldFail", Policy: PlaceCustom, CustomPlacement: "root.default"},
	}
	for _, c := range []struct{ user, app, want string }{
		{"alice", "ShouldFail", "reject"},
		{"bob", "ShouldFail", "root.default"}, // %default invalid: the rule skips, the catch-all places
		{"charlie", "ShouldSucceed", "root.default"},
		{"dave", "ShouldSucceed", ""},
		{"emily", "ShouldFail", "reject"},
	} {
		assert.Equal(t, c.want, runRules(t, s, true, rules, c.user, c.app, "default"), c.user)
	}
}

// The policies, matchers and variables, one rule (or a few) at a time.
func TestMappingRulesBehaviours(t *testing.T) {
	s := ruleScheduler(t)
	noCreate := userRule("*", PlacePrimaryGroupUser, "root.dyn")
	noCreate.NoCreate = true
	reject := customRule("*", "ambi", FallbackReject)
	cases := []struct {
		name      string
		rules     []MappingRule
		user, app string
		requested string
		override  bool
		want      string
	}{
		{"user under a parent", []MappingRule{userRule("*", PlaceUser, "root.user")}, "alice", "app", "default", false, "root.user.alice"},
		{"user without a queue skips", []MappingRule{userRule("*", PlaceUser, "root.user")}, "charlie", "app", "default", false, ""},
		{"user under a short parent name", []MappingRule{userRule("bob", PlaceUser, "user")}, "bob", "app", "", false, "root.user.bob"},
		{"no match", []MappingRule{userRule("bob", PlaceUser, "root.user")}, "alice", "app", "default", false, ""},
		{"group matcher", []MappingRule{{Type: MatchGroup, Matches: "developer", Policy: PlaceCustom, CustomPlacement: "groups.developer"}}, "emily", "app", "default", false, "root.groups.developer"},
		{"group matcher misses", []MappingRule{{Type: MatchGroup, Matches: "developer", Policy: PlaceCustom, CustomPlacement: "groups.developer"}}, "dave", "app", "default", false, ""},
		{"primary group without its queue", []MappingRule{userRule("*", PlacePrimaryGroup, "root.groups")}, "dave", "app", "default", false, ""},
		{"secondary group under a parent", []MappingRule{userRule("*", PlaceSecondaryGroup, "root.groups")}, "alice", "app", "default", false, "root.groups.developer"},
		{"secondary group: first with a queue", []MappingRule{userRule("*", PlaceSecondaryGroup, "root.groups")}, "charlie", "app", "default", false, "root.groups.tester"},
		{"secondary group names a parent", []MappingRule{userRule("*", PlaceSecondaryGroup, "")}, "alice", "app", "default", false, ""},
		{"secondary group under a short parent is never found", []MappingRule{userRule("*", PlaceSecondaryGroup, "groups")}, "alice", "app", "default", false, ""},
		{"v2 grandparent creates two levels", []MappingRule{userRule("*", PlacePrimaryGroupUser, "root.dyn")}, "alice", "app", "default", false, "root.dyn.p_alice.alice"},
		{"create false", []MappingRule{noCreate}, "alice", "app", "default", false, ""},
		{"managed parent creates the leaf", []MappingRule{userRule("*", PlaceUser, "root.man")}, "alice", "app", "default", false, "root.man.alice"},
		{"managed parent does not create two levels", []MappingRule{userRule("*", PlacePrimaryGroupUser, "root.man")}, "alice", "app", "default", false, ""},
		{"a leaf is no parent", []MappingRule{userRule("*", PlaceUser, "root.unman")}, "alice", "app", "default", false, ""},
		{"application name", []MappingRule{userRule("*", PlaceApplicationName, "")}, "alice", "bob", "default", false, "root.user.bob"},
		{"application matcher", []MappingRule{{Type: MatchApplication, Matches: "spark", Policy: PlaceCustom, CustomPlacement: "root.unman"}}, "dave", "spark", "default", false, "root.unman"},
		{"specified default is no queue", []MappingRule{userRule("*", PlaceSpecified, "")}, "alice", "app", "default", true, ""},
		{"specified with override", []MappingRule{userRule("*", PlaceSpecified, "")}, "alice", "app", "root.user.bob", true, "root.user.bob"},
		{"specified parent", []MappingRule{userRule("*", PlaceSpecified, "")}, "alice", "app", "user", true, ""},
		{"no jurisdiction without override", []MappingRule{userRule("*", PlaceUser, "root.user")}, "alice", "app", "root.user.bob", false, ""},
		{"override", []MappingRule{userRule("*", PlaceUser, "root.user")}, "alice", "app", "root.user.bob", true, "root.user.alice"},
		{"defaultQueue", []MappingRule{userRule("*", PlaceDefaultQueue, "")}, "alice", "app", "default", false, "root.default"},
		{"setDefaultQueue with variables", []MappingRule{{Type: MatchUser, Matches: "*", Policy: SetDefaultQueue, Value: "root.user.%user"}, userRule("*", PlaceDefaultQueue, "")}, "bob", "app", "default", false, "root.user.bob"},
		{"defaultQueue never creates", []MappingRule{{Type: MatchUser, Matches: "*", Policy: SetDefaultQueue, Value: "root.dyn.%user"}, userRule("*", PlaceDefaultQueue, "")}, "bob", "app", "default", false, ""},
		{"ambiguous short name skips", []MappingRule{customRule("*", "ambi", FallbackSkip)}, "alice", "app", "default", false, ""},
		{"ambiguous short name rejects", []MappingRule{reject}, "alice", "app", "default", false, "reject"},
		{"reject policy", []MappingRule{userRule("dave", PlaceReject, ""), userRule("*", PlaceDefaultQueue, "")}, "dave", "app", "default", false, "reject"},
		{"after a reject for someone else", []MappingRule{userRule("dave", PlaceReject, ""), userRule("*", PlaceDefaultQueue, "")}, "alice", "app", "default", false, "root.default"},
		{"a dotted user name is cleaned", []MappingRule{userRule("a.b", PlaceUser, "root.dyn")}, "a.b", "app", "default", false, "root.dyn.a_dot_b"},
		{"so is a dotted group", []MappingRule{userRule("*", PlacePrimaryGroupUser, "root.dyn")}, "a.b", "app", "default", false, "root.dyn.g_dot_x.a_dot_b"},
		{"matches substitutes variables", []MappingRule{{Type: MatchUser, Matches: "%application", Policy: PlaceDefaultQueue}}, "alice", "alice", "default", false, "root.default"},
		{"first answer wins", []MappingRule{userRule("*", PlaceUser, "root.user"), userRule("*", PlaceDefaultQueue, "")}, "alice", "app", "default", false, "root.user.alice"},
		{"placeDefault fallback", []MappingRule{{Type: MatchUser, Matches: "*", Policy: PlaceUser, ParentQueue: "root.user", Fallback: FallbackPlaceDefault}}, "dave", "app", "default", false, "root.default"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, runRules(t, s, c.override, c.rules, c.user, c.app, c.requested))
		})
	}

	// Without a group source, the group variables are empty and the group
	// matcher never matches.
	pl := Placement{Format: MappingJSON, JSONRules: []MappingRule{
		{Type: MatchGroup, Matches: "user", Policy: PlaceDefaultQueue},
		userRule("*", PlacePrimaryGroup, "root.groups"),
	}}
	_, ok, err := pl.place(placeInput{user: "alice", requested: "default"}, treeIndex{s.tree})
	require.NoError(t, err)
	assert.False(t, ok)
}

// The rules are checked against the tree when the scheduler is built
// (and reconfigured), as YARN checks them when it initializes.
func TestMappingRulesValidated(t *testing.T) {
	for _, c := range []struct {
		name string
		rule MappingRule
		ok   bool
	}{
		{"existing leaf", customRule("*", "root.user.alice", FallbackSkip), true},
		{"short name", customRule("*", "alice", FallbackSkip), true},
		{"missing queue", customRule("*", "non-existent", FallbackSkip), false},
		{"unknown variable is a name", customRule("*", "%token", FallbackSkip), false},
		{"parent queue", customRule("*", "root.user", FallbackSkip), false},
		{"missing leaf under a fixed parent", customRule("*", "root.user.zed", FallbackSkip), false},
		{"under a v2 parent", customRule("*", "root.dyn.x", FallbackSkip), true},
		{"two levels under a v2 parent", customRule("*", "root.dyn.x.y", FallbackSkip), true},
		{"under a managed parent", customRule("*", "root.man.x", FallbackSkip), true},
		{"two levels under a managed parent", customRule("*", "root.man.x.y", FallbackSkip), false},
		{"ambiguous", customRule("*", "ambi", FallbackSkip), false},
		{"ambiguous path root", customRule("*", "ambi.x", FallbackSkip), false},
		{"variables under a parent", userRule("*", PlaceUser, "root.user"), true},
		{"variables under a leaf", userRule("*", PlaceUser, "root.unman"), false},
		{"variables under nothing that creates", userRule("*", PlaceUser, "root.nowhere"), false},
		{"variables under a missing queue of a v2 parent", userRule("*", PlaceUser, "root.dyn.sub"), true},
		{"variables under a missing root", userRule("*", PlaceUser, "nowhere"), false},
		{"variables only", userRule("*", PlaceUser, ""), true},
		{"empty custom path", customRule("*", "", FallbackSkip), false},
		{"empty segment", customRule("*", "root..default", FallbackSkip), false},
		{"group *", MappingRule{Type: MatchGroup, Matches: "*", Policy: PlaceDefaultQueue}, false},
		{"empty matches", MappingRule{Type: MatchUser, Policy: PlaceDefaultQueue}, false},
		{"reject", userRule("*", PlaceReject, ""), true},
		{"setDefaultQueue to anything", MappingRule{Type: MatchUser, Matches: "*", Policy: SetDefaultQueue, Value: "nowhere"}, true},
		{"unknown policy", MappingRule{Type: MatchUser, Matches: "*", Policy: PlaceCustom + 1}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := ruleConfig(userRule("*", PlaceDefaultQueue, ""), c.rule)
			cfg.Clock = berth.NewManualClock(0)
			_, err := New(cfg)
			if c.ok {
				require.NoError(t, err)
				return
			}
			var fe *berth.FieldError
			require.True(t, errors.As(err, &fe), "%v", err)
			assert.Equal(t, mappingRuleJSONKey+"[2]", fe.Field)
		})
	}
	// Legacy mappings are not read with the JSON format, even broken ones.
	cfg := ruleConfig(userRule("*", PlaceDefaultQueue, ""))
	cfg.Placement.Mappings = []QueueMapping{{Kind: MapUser, Source: "u", Queue: "nowhere"}}
	cfg.Clock = berth.NewManualClock(0)
	_, err := New(cfg)
	require.NoError(t, err)
	cfg.Placement.Format = MappingJSON + 1
	cfg.Clock = berth.NewManualClock(0)
	_, err = New(cfg)
	assertFieldError(t, err, mappingRuleFormatKey)
}

// Submissions placed by the rules create their queues.
func TestMappingRulesSubmit(t *testing.T) {
	cfg := ruleConfig(
		userRule("dave", PlaceReject, ""),
		userRule("alice", PlacePrimaryGroupUser, "root.dyn"),
		userRule("bob", PlaceUser, "root.man"),
		userRule("*", PlaceDefaultQueue, ""),
	)
	cfg.Clock = berth.NewManualClock(0)
	s, err := New(cfg)
	require.NoError(t, err)
	require.NoError(t, s.AddNode(mkNode("n1", 10*gb, 10)))
	for _, c := range []struct{ user, want string }{
		{"alice", "root.dyn.p_alice.alice"},
		{"bob", "root.man.bob"},
		{"emily", "root.default"},
	} {
		q, err := s.SubmitApp(AppSpec{ID: "app-" + c.user, User: c.user})
		require.NoError(t, err, c.user)
		assert.Equal(t, c.want, q)
		p, err := s.Place(AppSpec{ID: "again-" + c.user, User: c.user, Queue: "default"})
		require.NoError(t, err)
		assert.Equal(t, c.want, p)
	}
	_, err = s.SubmitApp(AppSpec{ID: "app-dave", User: "dave"})
	assert.ErrorIs(t, err, berth.ErrNoPlacement)
	q, err := s.SubmitApp(AppSpec{ID: "app-dave2", User: "dave", Queue: "root.unman"})
	require.NoError(t, err, "a named queue is outside the rules' jurisdiction")
	assert.Equal(t, "root.unman", q)
	require.NoError(t, s.Check())

	// The rules survive a snapshot.
	var buf bytes.Buffer
	require.NoError(t, s.SaveState(&buf))
	r, err := RestoreScheduler(bytes.NewReader(buf.Bytes()), RestoreEnv{Clock: berth.NewManualClock(0), Groups: queue.GroupsFunc(ruleGroups)})
	require.NoError(t, err)
	assert.Equal(t, s.cfg.Placement, r.cfg.Placement)
	assert.Equal(t, saveBytes(t, s), saveBytes(t, r))
}

const sampleRules = `{"rules": [
  {"type": "user", "matches": "*", "policy": "primaryGroupUser", "parentQueue": "root.dyn", "fallbackResult": "skip", "create": false},
  {"type": "group", "matches": "developer", "policy": "custom", "customPlacement": "root.groups.developer", "fallbackResult": "placeDefault"},
  {"type": "application", "matches": "spark", "policy": "setDefaultQueue", "value": "root.unman", "comment": "ignored"},
  {"type": "user", "matches": 42, "policy": "reject", "create": "true"},
  {"type": "user", "matches": "*", "policy": "defaultQueue", "fallbackResult": "reject"}
], "description": "ignored too"}`

func TestParseMappingRules(t *testing.T) {
	rules, err := ParseMappingRules([]byte(sampleRules))
	require.NoError(t, err)
	assert.Equal(t, []MappingRule{
		{Type: MatchUser, Matches: "*", Policy: PlacePrimaryGroupUser, ParentQueue: "root.dyn", NoCreate: true},
		{Type: MatchGroup, Matches: "developer", Policy: PlaceCustom, CustomPlacement: "root.groups.developer", Fallback: FallbackPlaceDefault},
		{Type: MatchApplication, Matches: "spark", Policy: SetDefaultQueue, Value: "root.unman"},
		{Type: MatchUser, Matches: "42", Policy: PlaceReject},
		{Type: MatchUser, Matches: "*", Policy: PlaceDefaultQueue, Fallback: FallbackReject},
	}, rules)
	again, err := ParseMappingRules([]byte(FormatMappingRules(rules)))
	require.NoError(t, err)
	assert.Equal(t, rules, again)

	none, err := ParseMappingRules([]byte(`{}`))
	require.NoError(t, err)
	assert.Empty(t, none)

	for _, c := range []struct{ name, json, field string }{
		{"not JSON", `{"rules": [`, mappingRuleJSONKey},
		{"not an object", `[]`, mappingRuleJSONKey},
		{"rules not an array", `{"rules": {}}`, mappingRuleJSONKey + ".rules"},
		{"rules null", `{"rules": null}`, mappingRuleJSONKey + ".rules"},
		{"rule not an object", `{"rules": [1]}`, mappingRuleJSONKey + "[1]"},
		{"no policy", `{"rules": [{"type": "user", "matches": "a"}]}`, mappingRuleJSONKey + "[1]"},
		{"no type", `{"rules": [{"policy": "user", "matches": "a"}]}`, mappingRuleJSONKey + "[1]"},
		{"no matches", `{"rules": [{"type": "user", "policy": "user"}]}`, mappingRuleJSONKey + "[1]"},
		{"empty matches", `{"rules": [{"type": "user", "policy": "user", "matches": ""}]}`, mappingRuleJSONKey + "[1]"},
		{"unknown policy", `{"rules": [{"type": "user", "policy": "nearest", "matches": "a"}]}`, mappingRuleJSONKey + "[1]"},
		{"unknown type", `{"rules": [{"type": "queue", "policy": "user", "matches": "a"}]}`, mappingRuleJSONKey + "[1]"},
		{"unknown fallback", `{"rules": [{"type": "user", "policy": "user", "matches": "a", "fallbackResult": "retry"}]}`, mappingRuleJSONKey + "[1]"},
		{"names are case-sensitive", `{"rules": [{"type": "User", "policy": "user", "matches": "a"}]}`, mappingRuleJSONKey + "[1]"},
		{"group *", `{"rules": [{"type": "group", "policy": "user", "matches": "*"}]}`, mappingRuleJSONKey + "[1]"},
		{"custom without a path", `{"rules": [{"type": "user", "policy": "custom", "matches": "a"}]}`, mappingRuleJSONKey + "[1]"},
		{"setDefaultQueue without a value", `{"rules": [{"type": "user", "policy": "setDefaultQueue", "matches": "a"}]}`, mappingRuleJSONKey + "[1]"},
		{"empty parent", `{"rules": [{"type": "user", "policy": "user", "matches": "a", "parentQueue": ""}]}`, mappingRuleJSONKey + "[1]"},
		{"create not a boolean", `{"rules": [{"type": "user", "policy": "user", "matches": "a", "create": "maybe"}]}`, mappingRuleJSONKey + "[1]"},
		{"matches an object", `{"rules": [{"type": "user", "policy": "user", "matches": {}}]}`, mappingRuleJSONKey + "[1]"},
		{"second rule", `{"rules": [{"type": "user", "policy": "user", "matches": "a"}, {}]}`, mappingRuleJSONKey + "[2]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseMappingRules([]byte(c.json))
			assertFieldError(t, err, c.field)
		})
	}
}

func TestMappingRulesXML(t *testing.T) {
	base := []string{prefix + "root.queues", "default,user", prefix + "root.default.capacity", "50",
		prefix + "root.user.capacity", "50", prefix + "root.user.queues", "alice",
		prefix + "root.user.alice.capacity", "100"}
	doc := func(props ...string) string { return xmlDoc(append(append([]string{}, base...), props...)...) }
	inline := `{"rules":[{"type":"user","matches":"*","policy":"user","parentQueue":"root.user"}]}`
	want := []MappingRule{userRule("*", PlaceUser, "root.user")}

	cfg, rep, err := ParseXMLReport(stringsReader(doc(mappingRuleFormatKey, "json", mappingRuleJSONKey, inline,
		queueMappingsKey, "u:alice:nowhere")), XMLOptions{Strict: true})
	require.NoError(t, err, "legacy mappings are not read with the JSON format")
	assert.Empty(t, rep.Of(queue.NoteNotModelled))
	assert.Equal(t, MappingJSON, cfg.Placement.Format)
	assert.Equal(t, want, cfg.Placement.JSONRules)

	// The file, read through the host's ReadFile.
	path := filepath.Join(t.TempDir(), "rules.json")
	require.NoError(t, os.WriteFile(path, []byte(inline), 0o600))
	fileDoc := doc(mappingRuleFormatKey, "json", mappingRuleJSONFileKey, path)
	cfg, _, err = ParseXMLReport(stringsReader(fileDoc), XMLOptions{ReadFile: os.ReadFile})
	require.NoError(t, err)
	assert.Equal(t, want, cfg.Placement.JSONRules)
	_, err = ParseXML(stringsReader(fileDoc))
	assertFieldError(t, err, mappingRuleJSONFileKey)
	_, _, err = ParseXMLReport(stringsReader(doc(mappingRuleFormatKey, "json", mappingRuleJSONFileKey, "/nowhere/rules.json")),
		XMLOptions{ReadFile: os.ReadFile})
	assertFieldError(t, err, mappingRuleJSONFileKey)

	// No rules at all: YARN starts with none.
	cfg, err = ParseXML(stringsReader(doc(mappingRuleFormatKey, "json")))
	require.NoError(t, err)
	assert.Equal(t, MappingJSON, cfg.Placement.Format)
	assert.Empty(t, cfg.Placement.JSONRules)

	// The legacy format ignores the JSON.
	cfg, err = ParseXML(stringsReader(doc(mappingRuleFormatKey, "legacy", mappingRuleJSONKey, inline)))
	require.NoError(t, err)
	assert.Equal(t, MappingLegacy, cfg.Placement.Format)
	assert.Empty(t, cfg.Placement.JSONRules)

	_, err = ParseXML(stringsReader(doc(mappingRuleFormatKey, "yaml")))
	assertFieldError(t, err, mappingRuleFormatKey)
	_, err = ParseXML(stringsReader(doc(mappingRuleFormatKey, "json", mappingRuleJSONKey, `{"rules":[{"type":"user"}]}`)))
	assertFieldError(t, err, mappingRuleJSONKey+"[1]")
	_, err = ParseXML(stringsReader(doc(mappingRuleFormatKey, "json", mappingRuleJSONKey,
		`{"rules":[{"type":"user","matches":"*","policy":"custom","customPlacement":"root.nowhere"}]}`)))
	var fe *berth.FieldError
	require.True(t, errors.As(err, &fe), "%v", err)
	assert.Equal(t, mappingRuleJSONKey+"[1]", fe.Field, "checked against the tree")
}

func FuzzParseMappingRules(f *testing.F) {
	f.Add([]byte(sampleRules))
	f.Add([]byte(`{"rules":[]}`))
	f.Add([]byte(`{"rules":[{"type":"group","matches":"*","policy":"user"}]}`))
	f.Add([]byte(`{"rules":[{"type":"user","matches":"a","policy":"custom","customPlacement":"%user.%secondary_group","create":"false"}]} trailing`))
	f.Fuzz(func(t *testing.T, data []byte) {
		rules, err := ParseMappingRules(data)
		if err != nil {
			var fe *berth.FieldError
			if !errors.As(err, &fe) || !errors.Is(err, berth.ErrInvalidArgument) {
				t.Fatalf("error %v is not an invalid field", err)
			}
			return
		}
		again, err := ParseMappingRules([]byte(FormatMappingRules(rules)))
		if err != nil {
			t.Fatalf("formatted rules do not parse: %v", err)
		}
		if fmt.Sprint(rules) != fmt.Sprint(again) {
			t.Fatalf("round trip: %v != %v", rules, again)
		}
		// Evaluating any rule against a tree never panics.
		s := fuzzRuleScheduler
		for _, user := range []string{"alice", "a.b", "nobody"} {
			in := placeInput{user: user, app: "app", requested: "default", groups: func() []string { return ruleGroups(user) }}
			pl := Placement{Format: MappingJSON, JSONRules: rules}
			_, _, _ = pl.place(in, treeIndex{s.tree})
			_ = pl.validate(treeIndex{s.tree})
		}
	})
}

var fuzzRuleScheduler = func() *Scheduler {
	cfg := ruleConfig()
	cfg.Clock = berth.NewManualClock(0)
	s, err := New(cfg)
	if err != nil {
		panic(err)
	}
	return s
}()
