package capacity

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func keysOf(ns []queue.ConfigNote) []string {
	var out []string
	for _, n := range ns {
		out = append(out, n.Key)
	}
	return out
}

// Hadoop's stock capacity-scheduler.xml: every key is known, and the
// only one not modelled is recovery's fail-fast; priority ACLs,
// lifetimes and workflow priority mappings are read.
func TestReportOfHadoopDefaultFile(t *testing.T) {
	data, err := os.ReadFile("testdata/hadoop-default-capacity-scheduler.xml")
	require.NoError(t, err)
	cfg, rep, err := ParseXMLReport(strings.NewReader(string(data)), XMLOptions{})
	require.NoError(t, err)
	assert.Empty(t, rep.Of(queue.NoteUnknown))
	assert.Empty(t, rep.Of(queue.NoteElsewhere))
	assert.Equal(t, []string{
		"yarn.scheduler.capacity.application.fail-fast",
	}, keysOf(rep.Of(queue.NoteNotModelled)))
	for _, n := range rep.Notes {
		assert.NotEmpty(t, n.Instead, n.Key)
	}
	// The typed part is YARN's default tree.
	require.Len(t, cfg.Root.Children, 1)
	assert.Equal(t, "default", cfg.Root.Children[0].Name)
	assert.Empty(t, cfg.Placement.Mappings)
	cfg.Clock = berth.NewManualClock(0)
	s, err := New(cfg)
	require.NoError(t, err)
	q, err := s.SubmitApp(AppSpec{ID: "a1", User: "alice", Queue: "default"})
	require.NoError(t, err)
	assert.Equal(t, "root.default", q)

	// Strict mode refuses it, naming the first key.
	_, rep2, err := ParseXMLReport(strings.NewReader(string(data)), XMLOptions{Strict: true})
	require.Error(t, err)
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)
	var re *queue.ConfigReportError
	require.True(t, errors.As(err, &re))
	assert.Equal(t, rep, re.Report)
	assert.Equal(t, rep, rep2)
	assert.Contains(t, err.Error(), "yarn.scheduler.capacity.application.fail-fast")
	assert.NotContains(t, err.Error(), "more")
}

// The three lines issue 15 adds to the stock file: a queue mapping and a
// node label (both modelled now) and a misspelt key (unknown, with the
// key it was meant to be).
func TestReportEachKind(t *testing.T) {
	doc := xmlDoc(
		prefix+"root.queues", "default,alice",
		prefix+"root.default.capacity", "50",
		prefix+"root.alice.capacity", "50",
		prefix+"queue-mappings", "u:%user:%user",
		prefix+"root.default.accessible-node-labels", "gpu",
		prefix+"root.default.accessible-node-labels.gpu.capacity", "100",
		prefix+"root.default.typo-capacity", "10",
		prefix+"root.defualt.maximum-capacity", "10",
		prefix+"maximum-applicatons", "10",
		prefix+"root.default.disable_preemption", "true",
		"yarn.resourcemanager.monitor.capacity.preemption.total_preemption_per_round", "0.2",
		prefix+"root.alice.leaf-queue-template.accessible-node-labels", "gpu",
		"totally.unrelated", "x",
	)
	cfg, rep, err := ParseXMLReport(strings.NewReader(doc), XMLOptions{})
	require.NoError(t, err)
	require.Len(t, cfg.Placement.Mappings, 1)
	assert.Equal(t, []NodeLabel{{Name: "gpu"}}, cfg.NodeLabels)
	def := cfg.Root.Children[0].Settings
	assert.Equal(t, []string{"gpu"}, def.AccessibleNodeLabels)
	assert.Equal(t, map[string]LabelSettings{"gpu": {Capacity: queue.Percent(100)}}, def.NodeLabels)

	byKey := map[string]queue.ConfigNote{}
	for _, n := range rep.Notes {
		byKey[n.Key] = n
	}
	cases := []struct {
		key        string
		kind       queue.NoteKind
		suggestion string
		instead    string
	}{
		{prefix + "root.default.typo-capacity", queue.NoteUnknown, prefix + "root.default.capacity", ""},
		{prefix + "root.defualt.maximum-capacity", queue.NoteUnknown, prefix + "root.default.maximum-capacity", ""},
		{prefix + "maximum-applicatons", queue.NoteUnknown, prefix + "maximum-applications", ""},
		{"totally.unrelated", queue.NoteUnknown, "", ""},
		{prefix + "root.default.disable_preemption", queue.NoteElsewhere, "", "package preempt"},
		{"yarn.resourcemanager.monitor.capacity.preemption.total_preemption_per_round", queue.NoteElsewhere, "", "package preempt"},
	}
	// Label keys are read, in a queue and in an auto-creation template.
	for _, k := range []string{"root.default.accessible-node-labels", "root.default.accessible-node-labels.gpu.capacity",
		"root.alice.leaf-queue-template.accessible-node-labels"} {
		assert.NotContains(t, byKey, prefix+k)
	}
	for _, c := range cases {
		t.Run(c.key, func(t *testing.T) {
			n, ok := byKey[c.key]
			require.True(t, ok, "not reported")
			assert.Equal(t, c.kind, n.Kind)
			assert.Equal(t, c.suggestion, n.Suggestion)
			assert.Contains(t, n.Instead, c.instead)
		})
	}
	assert.Len(t, rep.Notes, len(cases), rep.String())
	assert.False(t, rep.Clean())
	assert.Contains(t, rep.String(), "did you mean "+prefix+"root.default.capacity?")

	_, _, err = ParseXMLReport(strings.NewReader(doc), XMLOptions{Strict: true})
	var re *queue.ConfigReportError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, "capacity-scheduler.xml", re.File)
	assert.Len(t, re.Report.Of(queue.NoteUnknown), 4)
}

// Keys other packages read do not make strict mode refuse a file.
func TestStrictAcceptsKeysReadElsewhere(t *testing.T) {
	doc := xmlDoc(
		prefix+"root.queues", "default",
		prefix+"root.default.capacity", "100",
		prefix+"root.default.disable_preemption", "true",
		"yarn.resourcemanager.monitor.capacity.preemption.max_wait_before_kill", "1000",
	)
	_, rep, err := ParseXMLReport(strings.NewReader(doc), XMLOptions{Strict: true})
	require.NoError(t, err)
	assert.True(t, rep.Clean())
	assert.Len(t, rep.Of(queue.NoteElsewhere), 2)
}

// A key of a queue the tree does not have is unknown (YARN reads it for
// no queue), suggested on the closest queue.
func TestReportKeyOfQueueNotInTree(t *testing.T) {
	doc := xmlDoc(prefix+"root.queues", "default", prefix+"root.default.capacity", "100", prefix+"root.gone.capacity", "5")
	_, rep, err := ParseXMLReport(strings.NewReader(doc), XMLOptions{})
	require.NoError(t, err)
	require.Len(t, rep.Notes, 1)
	assert.Equal(t, queue.NoteUnknown, rep.Notes[0].Kind)
	assert.Equal(t, prefix+"root.gone.capacity", rep.Notes[0].Key)
}

// Every rule of the tables is either modelled or says what Berth does
// instead, and every rule matches a key of its own shape.
func TestKeyTablesAreComplete(t *testing.T) {
	for _, tab := range []queue.KeyTable{globalKeys, queueKeys, otherKeys} {
		for _, r := range tab {
			if r.Support != queue.KeyModelled {
				assert.NotEmpty(t, r.Instead, r.Pattern)
			}
			key := strings.ReplaceAll(strings.ReplaceAll(r.Pattern, "**", "x.y"), "*", "x")
			got, ok := tab.Lookup(key)
			require.True(t, ok, r.Pattern)
			assert.Equal(t, r.Support, got.Support, r.Pattern)
		}
	}
}

// Each modelled key, written in a file, changes the typed configuration
// (so the table does not claim more than the parser reads).
func TestModelledKeysAreRead(t *testing.T) {
	base := []string{prefix + "root.queues", "a,b", prefix + "root.a.capacity", "50", prefix + "root.b.capacity", "50"}
	def, err := ParseXML(strings.NewReader(xmlDoc(base...)))
	require.NoError(t, err)
	set := map[string]string{
		"maximum-applications":                                 "7",
		"global-queue-max-application":                         "7",
		"maximum-am-resource-percent":                          "0.7",
		"resource-calculator":                                  "org.apache.hadoop.yarn.util.resource.DominantResourceCalculator",
		"node-locality-delay":                                  "7",
		"rack-locality-additional-delay":                       "7",
		"rack-locality-full-reset":                             "false",
		"per-node-heartbeat.maximum-offswitch-assignments":     "7",
		"per-node-heartbeat.multiple-assignments-enabled":      "false",
		"per-node-heartbeat.maximum-container-assignments":     "7",
		"reservations-continue-look-all-nodes":                 "false",
		"queue-mappings":                                       "u:bob:a",
		"queue-mappings-override.enable":                       "true",
		"root.a.user-limit-factor":                             "7",
		"root.a.minimum-user-limit-percent":                    "7",
		"root.a.maximum-applications":                          "7",
		"root.a.maximum-am-resource-percent":                   "0.7",
		"root.a.state":                                         "STOPPED",
		"root.a.acl_submit_applications":                       "bob",
		"root.a.acl_administer_queue":                          "bob",
		"root.a.ordering-policy":                               "fair",
		"root.a.ordering-policy.fair.enable-size-based-weight": "true",
		"root.a.priority":                                      "7",
		"root.a.reservable":                                    "true",
		"root.a.user-settings.bob.weight":                      "0.5",
		"root.a.maximum-capacity":                              "70",
		"root.a.reservation-window":                            "7",
		"root.a.average-capacity":                              "7",
		"root.a.instantaneous-max-capacity":                    "7",
		"root.a.reservation-agent":                             "GreedyReservationAgent",
		"root.a.reservation-policy":                            "NoOverCommitPolicy",
		"root.a.reservation-planner":                           "SimpleCapacityReplanner",
		"root.a.reservation-enforcement-window":                "7",
		"root.a.show-reservations-as-queues":                   "true",
		"root.a.reservation-move-on-expiry":                    "false",
		"root.a.acl_submit_reservations":                       "bob",
		"root.a.acl_list_reservations":                         "bob",
		"root.a.acl_administer_reservations":                   "bob",
	}
	for k, v := range set {
		t.Run(k, func(t *testing.T) {
			r, ok := lookupKey(prefix+k, map[string]bool{"root": true, "root.a": true, "root.b": true})
			require.True(t, ok)
			require.Equal(t, queue.KeyModelled, r.Support)
			cfg, err := ParseXML(strings.NewReader(xmlDoc(append(slicesClone(base), prefix+k, v)...)))
			require.NoError(t, err)
			assert.NotEqual(t, def, cfg)
		})
	}
}

// The ResourceManager's reservation-system keys, in the same file, are
// read too.
func TestReservationSystemKeysAreRead(t *testing.T) {
	base := []string{prefix + "root.queues", "a", prefix + "root.a.capacity", "100"}
	for _, r := range queue.ReservationSystemKeys {
		t.Run(r.Pattern, func(t *testing.T) {
			v := "7"
			switch r.Pattern {
			case queue.KeyReservationSystemEnable, queue.KeyACLEnable, queue.KeyReservationACLEnable:
				v = "true"
			case queue.KeyFavorEarlyAllocation:
				v = "false"
			case queue.KeyReservationSystemClass, queue.KeyPlanFollower:
				v = "SomeClass"
			}
			got, ok := lookupKey(r.Pattern, nil)
			require.True(t, ok)
			require.Equal(t, queue.KeyModelled, got.Support)
			cfg, err := ParseXML(strings.NewReader(xmlDoc(append(slicesClone(base), r.Pattern, v)...)))
			require.NoError(t, err)
			require.NotNil(t, cfg.ReservationSystem)
			assert.NotEqual(t, queue.DefaultReservationSystemSettings(), *cfg.ReservationSystem)
		})
	}
}

func slicesClone(s []string) []string { return append([]string(nil), s...) }

func TestEditDistance(t *testing.T) {
	cases := []struct {
		a, b  string
		limit int
		want  int
	}{
		{"", "", -1, 0},
		{"abc", "abc", -1, 0},
		{"capacity", "capacty", -1, 1},
		{"kitten", "sitting", -1, 3},
		{"kitten", "sitting", 1, 2}, // above the limit: limit+1
		{"a", "abcdef", 2, 3},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, queue.EditDistance(c.a, c.b, c.limit), "%q %q", c.a, c.b)
	}
}
