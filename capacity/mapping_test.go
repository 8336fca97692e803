package capacity

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// groupsLikeYARNTests gives users the groups YARN's placement tests use:
// "<user>group" first, then "<user>subgroup1" and "<user>subgroup2";
// "admins" is in group "root" only, "nosecondarygroupuser" in
// "primarygrouponly" only.
func groupsLikeYARNTests(user string) []string {
	switch user {
	case "admins":
		return []string{"root"}
	case "nosecondarygroupuser":
		return []string{"primarygrouponly"}
	}
	return []string{user + "group", user + "subgroup1", user + "subgroup2"}
}

// mappingTree is the queue tree of YARN's placement tests, plus a
// default queue and a users parent holding alice's queue.
func mappingTree() QueueConfig {
	root := QueueConfig{Name: "root", Settings: DefaultSettings()}
	root.Children = []QueueConfig{
		Queue("default", 20),
		Queue("agroup", 20, Queue("a", 100)),
		Queue("asubgroup2", 10),
		Queue("bsubgroup2", 10, Queue("b", 100)),
		Queue("users", 20, Queue("alice", 100)),
		Queue("admins", 10, Queue("primarygrouponly", 100)),
		Queue("others", 10, Queue("primarygrouponly", 100)),
	}
	return root
}

func mappingScheduler(t *testing.T, pl Placement) *Scheduler {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Root = mappingTree()
	cfg.Placement = pl
	cfg.Groups = queue.GroupsFunc(groupsLikeYARNTests)
	cfg.Clock = berth.NewManualClock(0)
	s, err := New(cfg)
	require.NoError(t, err)
	return s
}

func mustMappings(t *testing.T, v string) []QueueMapping {
	t.Helper()
	ms, err := ParseQueueMappings(v)
	require.NoError(t, err)
	return ms
}

// Behaviours of YARN 3.3's user-group rule, written from its
// TestUserGroupMappingPlacementRule and the CapacityScheduler guide. The
// evaluator is run on its own (as YARN's test does, without the start-up
// check of the mappings); want is the queue the application is resolved
// in ("" for the one it asked for), or wantErr a rejection.
func TestUserGroupMappingBehaviours(t *testing.T) {
	s := mappingScheduler(t, Placement{})
	cases := []struct {
		name      string
		mappings  string
		user      string
		requested string
		override  bool
		groups    func(string) []string
		want      string
		wantErr   bool
	}{
		{name: "secondary group names an existing queue", mappings: "u:%user:%secondary_group", user: "a", want: "root.asubgroup2"},
		{name: "no secondary group: nothing placed", mappings: "u:%user:%secondary_group", user: "a", groups: func(u string) []string { return []string{u + "group"} }},
		{name: "user without any group is rejected", mappings: "u:%user:%secondary_group", user: "a", groups: func(string) []string { return nil }, wantErr: true},
		{name: "a user to a queue", mappings: "u:a:a", user: "a", want: "root.agroup.a"},
		{name: "a group to a queue", mappings: "g:agroup:a", user: "a", want: "root.agroup.a"},
		{name: "every user to one queue", mappings: "u:%user:b", user: "a", want: "root.bsubgroup2.b"},
		{name: "every user to their own queue", mappings: "u:%user:%user", user: "a", want: "root.agroup.a"},
		{name: "every user to their primary group's queue", mappings: "u:%user:%primary_group", user: "a", want: "root.agroup"},
		{name: "user under their primary group", mappings: "u:%user:%primary_group.%user", user: "a", want: "root.agroup.a"},
		{name: "unknown placeholder under primary group", mappings: "u:%user:%primary_group.%random", user: "a"},
		{name: "unknown placeholder under secondary group", mappings: "u:%user:%secondary_group.%random", user: "a"},
		{name: "another user's mapping does not apply", mappings: "u:a:%random", user: "xyz"},
		{name: "one user to their primary group", mappings: "u:a:%primary_group", user: "a", want: "root.agroup"},
		{name: "one user to their secondary group", mappings: "u:a:%secondary_group", user: "a", want: "root.asubgroup2"},
		{name: "one user without a secondary group", mappings: "u:nosecondarygroupuser:%secondary_group", user: "nosecondarygroupuser"},
		{name: "user under a secondary group they lack", mappings: "u:%user:%secondary_group.%user", user: "nosecondarygroupuser"},
		{name: "group queue name is ambiguous: nothing placed", mappings: "u:%user:%primary_group.%user", user: "nosecondarygroupuser"},
		{name: "group queue resolves to a parent's non-leaf child", mappings: "u:%user:%primary_group.%user", user: "admins", wantErr: true},
		{name: "ambiguous primary group queue is rejected", mappings: "u:%user:%primary_group", user: "nosecondarygroupuser", wantErr: true},
		{name: "user under their secondary group", mappings: "u:%user:%secondary_group.%user", user: "b", want: "root.bsubgroup2.b"},
		{name: "a secondary group to a queue", mappings: "g:asubgroup1:a", user: "a", want: "root.agroup.a"},
		{name: "primary group under root", mappings: "u:%user:root.%primary_group", user: "a", want: "root.agroup"},
		{name: "primary group's queue missing under a plain parent", mappings: "u:%user:bsubgroup2.%primary_group", user: "abc"},
		{name: "secondary group's queue missing under a plain parent", mappings: "u:%user:bsubgroup2.%secondary_group", user: "abc"},
		{name: "secondary group under root", mappings: "u:%user:root.%secondary_group", user: "a", want: "root.asubgroup2"},
		{name: "override replaces the requested queue", mappings: "u:user:a", user: "user", requested: "b", override: true, want: "root.agroup.a"},
		{name: "without override the requested queue stays", mappings: "u:user:a", user: "user", requested: "b"},
		{name: "group mapping keeps a requested queue", mappings: "g:usergroup:usergroup.%user", user: "user", requested: "a"},
		{name: "group mapping overrides a requested queue", mappings: "g:usergroup:root.bsubgroup2.b", user: "user", requested: "a", override: true, want: "root.bsubgroup2.b"},
		{name: "group members to their own queue under a parent", mappings: "g:agroup:root.agroup.%user", user: "a", want: "root.agroup.a"},
		{name: "group members to their own queue", mappings: "g:agroup:%user", user: "a", want: "root.agroup.a"},
		// The parent-qualified form of issue 15 and the guide's examples.
		{name: "user under a plain parent, queue exists", mappings: "u:%user:root.users.%user", user: "alice", want: "root.users.alice"},
		{name: "user under a plain parent, no queue: nothing placed", mappings: "u:%user:root.users.%user", user: "bob"},
		{name: "short parent name", mappings: "u:%user:users.%user", user: "alice", want: "root.users.alice"},
		{name: "requesting the mapped leaf by name counts as default", mappings: "u:alice:root.users.alice", user: "alice", requested: "alice", want: "root.users.alice"},
		{name: "first matching mapping decides even when it finds nothing", mappings: "u:%user:%user,u:bob:a", user: "bob"},
		{name: "mappings are evaluated in order", mappings: "u:bob:b,u:%user:a", user: "bob", want: "root.bsubgroup2.b"},
		{name: "a group mapping before a user mapping", mappings: "g:bobgroup:a,u:bob:b", user: "bob", want: "root.agroup.a"},
		{name: "group mappings need groups", mappings: "g:eng:a", user: "bob", groups: func(string) []string { return nil }, wantErr: true},
		{name: "a user mapping before group mappings needs no groups", mappings: "u:bob:b,g:eng:a", user: "bob", groups: func(string) []string { return nil }, want: "root.bsubgroup2.b"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pl := Placement{Mappings: mustMappings(t, c.mappings), Override: c.override}
			groups := c.groups
			if groups == nil {
				groups = groupsLikeYARNTests
			}
			requested := c.requested
			if requested == "" {
				requested = "default"
			}
			in := placeInput{user: c.user, requested: requested, groups: func() []string { return groups(c.user) }}
			res, ok, err := pl.place(in, treeIndex{s.tree})
			if c.wantErr {
				require.Error(t, err)
				assert.ErrorIs(t, err, berth.ErrNoPlacement)
				assert.Contains(t, err.Error(), c.mappings) // names the mapping
				return
			}
			require.NoError(t, err)
			if c.want == "" {
				assert.False(t, ok, "placed in %s", res.queue)
				return
			}
			require.True(t, ok)
			assert.Equal(t, c.want, res.queue)
		})
	}
}

// Application-name mappings, alone and ordered against the user-group
// rule by yarn.scheduler.queue-placement-rules.
func TestAppNameMappings(t *testing.T) {
	apps, err := ParseAppNameMappings("etl:b, %application:%application")
	require.NoError(t, err)
	users := mustMappings(t, "u:%user:a")
	cases := []struct {
		name    string
		rules   []PlacementRuleKind
		app     string
		want    string
		wantErr string
	}{
		{name: "named application", rules: []PlacementRuleKind{RuleAppName}, app: "etl", want: "root.bsubgroup2.b"},
		{name: "application name as queue", rules: []PlacementRuleKind{RuleAppName}, app: "asubgroup2", want: "root.asubgroup2"},
		{name: "missing queue fails the submission, naming the mapping", rules: []PlacementRuleKind{RuleAppName}, app: "nosuch", wantErr: "%application:%application"},
		{name: "user-group first by default", app: "etl", want: "root.agroup.a"},
		{name: "app-name before user-group", rules: []PlacementRuleKind{RuleAppName, RuleUserGroup}, app: "etl", want: "root.bsubgroup2.b"},
		{name: "user-group before app-name", rules: []PlacementRuleKind{RuleUserGroup, RuleAppName}, app: "etl", want: "root.agroup.a"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := mappingScheduler(t, Placement{Rules: c.rules, Mappings: users, AppMappings: apps})
			q, err := s.SubmitApp(AppSpec{ID: "app", Name: c.app, User: "a", Queue: "default"})
			if c.wantErr != "" {
				require.Error(t, err)
				assert.ErrorIs(t, err, berth.ErrNotFound)
				assert.Contains(t, err.Error(), c.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.want, q)
		})
	}
}

// Submissions land where the mappings put them, with groups from the
// host's Config.Groups or from the submission itself.
func TestSubmitAppUsesMappings(t *testing.T) {
	s := mappingScheduler(t, Placement{Mappings: mustMappings(t, "u:%user:root.users.%user,g:bgroup:b")})
	q, err := s.SubmitApp(AppSpec{ID: "1", User: "alice", Queue: "default"})
	require.NoError(t, err)
	assert.Equal(t, "root.users.alice", q)
	// alice asked for a queue: without override she keeps it.
	q, err = s.SubmitApp(AppSpec{ID: "2", User: "alice", Queue: "asubgroup2"})
	require.NoError(t, err)
	assert.Equal(t, "root.asubgroup2", q)
	// bob: the first mapping matches and finds no queue, so the group
	// mapping is never reached; he lands in the default queue.
	q, err = s.SubmitApp(AppSpec{ID: "3", User: "bob", Queue: "default"})
	require.NoError(t, err)
	assert.Equal(t, "root.default", q)
	// The submission's own groups win over Config.Groups.
	s2 := mappingScheduler(t, Placement{Mappings: mustMappings(t, "g:bgroup:b")})
	q, err = s2.SubmitApp(AppSpec{ID: "4", User: "carol", Groups: []string{"bgroup"}, Queue: "default"})
	require.NoError(t, err)
	assert.Equal(t, "root.bsubgroup2.b", q)
	got, err := s2.Place(AppSpec{ID: "5", User: "b", Queue: "default"})
	require.NoError(t, err)
	assert.Equal(t, "root.bsubgroup2.b", got)
	// A rejection by the mappings leaves nothing behind.
	s3 := mappingScheduler(t, Placement{Mappings: mustMappings(t, "u:%user:%primary_group")})
	_, err = s3.SubmitApp(AppSpec{ID: "6", User: "nosecondarygroupuser", Queue: "default"})
	require.Error(t, err)
	assert.ErrorIs(t, err, berth.ErrNoPlacement)
	assert.Contains(t, err.Error(), "u:%user:%primary_group")
	assert.Empty(t, s3.Snapshot().Apps)
}

// Start-up (and reconfiguration) checks of the mappings, as YARN makes
// when it initializes its placement rules: errors name the mapping.
func TestMappingsValidatedAgainstTree(t *testing.T) {
	cases := []struct {
		mappings, apps string
		field          string
		reason         string
	}{
		{mappings: "u:bob:nosuch", field: queueMappingsKey + "[1]", reason: "invalid or non-leaf queue nosuch"},
		{mappings: "u:bob:b,g:eng:agroup", field: queueMappingsKey + "[2]", reason: "non-leaf queue : agroup"},
		{mappings: "u:bob:primarygrouponly", field: queueMappingsKey + "[1]", reason: "ambiguous leaf queue reference primarygrouponly"},
		{mappings: "u:bob:root.users.carol", field: queueMappingsKey + "[1]", reason: "does not have auto creation of leaf queues enabled [root.users]"},
		{mappings: "u:bob:root.nosuch.carol", field: queueMappingsKey + "[1]", reason: "invalid parent queue [root.nosuch]"},
		{mappings: "u:%user:root.nosuch.%user", field: queueMappingsKey + "[1]", reason: "invalid parent queue [root.nosuch]"},
		{apps: "etl:nosuch", field: appNameMappingsKey + "[1]", reason: "nosuch"},
	}
	for _, c := range cases {
		t.Run(c.mappings+c.apps, func(t *testing.T) {
			pl := Placement{}
			if c.mappings != "" {
				pl.Mappings = mustMappings(t, c.mappings)
			}
			if c.apps != "" {
				var err error
				pl.AppMappings, err = ParseAppNameMappings(c.apps)
				require.NoError(t, err)
			}
			cfg := DefaultConfig()
			cfg.Root = mappingTree()
			cfg.Placement = pl
			cfg.Clock = berth.NewManualClock(0)
			_, err := New(cfg)
			var fe *berth.FieldError
			require.True(t, errors.As(err, &fe), "%v", err)
			assert.Equal(t, c.field, fe.Field)
			assert.Contains(t, fe.Reason, c.reason)

			// Reconfigure refuses it and keeps the old configuration.
			s := mappingScheduler(t, Placement{})
			_, err = s.Reconfigure(cfg)
			require.Error(t, err)
			assert.Empty(t, s.Config().Placement.Mappings)
		})
	}
	// Each list holds its own kind of mapping.
	cfg0 := DefaultConfig()
	cfg0.Root = mappingTree()
	cfg0.Placement.AppMappings = mustMappings(t, "u:bob:b")
	cfg0.Clock = berth.NewManualClock(0)
	_, err0 := New(cfg0)
	assert.ErrorContains(t, err0, appNameMappingsKey+"[1]")
	// Placeholders and existing targets are accepted.
	ok := "u:%user:%user,u:%user:%primary_group.%user,u:%user:%secondary_group.%random,u:%user:root.users.%user,g:x:b,u:y:root.users.alice"
	cfg := DefaultConfig()
	cfg.Root = mappingTree()
	cfg.Placement.Mappings = mustMappings(t, ok)
	cfg.Clock = berth.NewManualClock(0)
	_, err := New(cfg)
	require.NoError(t, err)
}

func TestParseQueueMappings(t *testing.T) {
	ms, err := ParseQueueMappings(" u:alice:root.a.b , g: eng :%user,, u:%user:%primary_group.%user ")
	require.NoError(t, err)
	assert.Equal(t, []QueueMapping{
		{Kind: MapUser, Source: "alice", Parent: "root.a", Queue: "b"},
		{Kind: MapGroup, Source: "eng", Queue: "%user"},
		{Kind: MapUser, Source: "%user", Parent: "%primary_group", Queue: "%user"},
	}, ms)
	assert.Equal(t, "u:alice:root.a.b", ms[0].String())
	for _, bad := range []string{"u:alice", "x:alice:q", "u:alice:q:r", "u::q", "u:alice:root."} {
		_, err := ParseQueueMappings("u:ok:q," + bad)
		var fe *berth.FieldError
		require.True(t, errors.As(err, &fe), bad)
		assert.Equal(t, queueMappingsKey+"[2]", fe.Field, bad)
		assert.Equal(t, bad, fe.Value)
	}
	_, err = ParseAppNameMappings("a:b:c")
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)
	rules, err := ParsePlacementRules("app-name, user-group")
	require.NoError(t, err)
	assert.Equal(t, []PlacementRuleKind{RuleAppName, RuleUserGroup}, rules)
	_, err = ParsePlacementRules("user-group,user-group")
	assert.ErrorContains(t, err, "duplicate")
	_, err = ParsePlacementRules("com.example.MyRule")
	assert.ErrorContains(t, err, "unknown placement rule")
}

// The XML keys reach the scheduler.
func TestParseXMLMappings(t *testing.T) {
	doc := xmlDoc(
		prefix+"root.queues", "default,users",
		prefix+"root.default.capacity", "50",
		prefix+"root.users.capacity", "50",
		prefix+"root.users.queues", "alice",
		prefix+"root.users.alice.capacity", "100",
		queueMappingsKey, "u:%user:root.users.%user",
		mappingsOverrideKey, "true",
		appNameMappingsKey, "nightly:default",
		queuePlacementRulesKey, "app-name,user-group",
	)
	cfg, err := ParseXML(strings.NewReader(doc))
	require.NoError(t, err)
	assert.True(t, cfg.Placement.Override)
	assert.Equal(t, []PlacementRuleKind{RuleAppName, RuleUserGroup}, cfg.Placement.Rules)
	cfg.Clock = berth.NewManualClock(0)
	s, err := New(cfg)
	require.NoError(t, err)
	q, err := s.SubmitApp(AppSpec{ID: "1", User: "alice", Queue: "default"})
	require.NoError(t, err)
	assert.Equal(t, "root.users.alice", q)
	q, err = s.SubmitApp(AppSpec{ID: "2", User: "alice", Name: "nightly", Queue: "alice"})
	require.NoError(t, err)
	assert.Equal(t, "root.default", q)

	// A mapping to a queue the file does not define is refused, naming it.
	bad := strings.Replace(doc, "root.users.%user", "root.users.bob", 1)
	_, err = ParseXML(strings.NewReader(bad))
	var fe *berth.FieldError
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, queueMappingsKey+"[1]", fe.Field)
	assert.Equal(t, "u:%user:root.users.bob", fe.Value)
}

// Negative values written in capacity-scheduler.xml: refused where YARN
// gives them no meaning, with the key named; kept where it does.
func TestXMLNegativeValues(t *testing.T) {
	base := []string{prefix + "root.queues", "a", prefix + "root.a.capacity", "100"}
	refused := map[string]string{
		prefix + "maximum-applications":                             "-1",
		prefix + "maximum-am-resource-percent":                      "-0.1",
		prefix + "root.a.maximum-am-resource-percent":               "-0.5",
		prefix + "root.a.user-limit-factor":                         "-2",
		prefix + "root.a.minimum-user-limit-percent":                "-5",
		prefix + "root.a.capacity":                                  "-5",
		prefix + "root.a.maximum-capacity":                          "-5",
		prefix + "root.a.user-settings.bob.weight":                  "-1",
		prefix + "root.a.user-limit-factor ":                        "NaN",
		"yarn.scheduler.minimum-allocation-mb":                      "-1",
		prefix + "per-node-heartbeat.maximum-container-assignments": "-2",
		prefix + "rack-locality-additional-delay":                   "-2",
	}
	for k, v := range refused {
		t.Run("refused "+k, func(t *testing.T) {
			key := strings.TrimSpace(k)
			doc := xmlDoc(append(slicesClone(base), key, v)...)
			_, err := ParseXML(strings.NewReader(doc))
			var fe *berth.FieldError
			require.ErrorAs(t, err, &fe)
			assert.Equal(t, key, fe.Field)
		})
	}
	kept := map[string]string{
		prefix + "root.a.maximum-capacity":                          "-1", // unset: 100%
		prefix + "root.a.maximum-applications":                      "-1", // derived from the system limit
		prefix + "global-queue-max-application":                     "-1", // unset
		prefix + "rack-locality-additional-delay":                   "-1", // the wait-factor formula
		prefix + "per-node-heartbeat.maximum-container-assignments": "-1", // unlimited
		prefix + "per-node-heartbeat.maximum-offswitch-assignments": "-3", // counts as 1
		prefix + "root.a.priority":                                  "-3", // an order, any integer
	}
	for k, v := range kept {
		t.Run("kept "+k, func(t *testing.T) {
			_, err := ParseXML(strings.NewReader(xmlDoc(append(slicesClone(base), k, v)...)))
			require.NoError(t, err)
		})
	}
}

// Place, SubmitApp and Reconfigure may be called from several goroutines;
// the configuration handed in is copied, so changing it later changes
// nothing.
func TestPlacementConcurrentAndCopied(t *testing.T) {
	pl := Placement{Mappings: mustMappings(t, "u:alice:root.users.alice,g:bgroup:b")}
	s := mappingScheduler(t, pl)
	pl.Mappings[0].Queue = "nosuch" // the caller's slice, not the scheduler's
	cfg := s.Config()
	done := make(chan struct{})
	for w := range 4 {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := range 50 {
				q, err := s.Place(AppSpec{ID: "p", User: "alice", Queue: "default"})
				assert.NoError(t, err)
				assert.Equal(t, "root.users.alice", q)
				_, err = s.SubmitApp(AppSpec{ID: fmt.Sprintf("w%d-%d", w, i), User: "b", Queue: "default"})
				assert.NoError(t, err)
				if i%10 == 0 {
					_, err := s.Reconfigure(cfg)
					assert.NoError(t, err)
				}
			}
		}()
	}
	for range 4 {
		<-done
	}
	assert.Len(t, s.Snapshot().Apps, 200)
	for _, a := range s.Snapshot().Apps {
		assert.Equal(t, "root.bsubgroup2.b", a.Queue)
	}
}
