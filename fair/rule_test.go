package fair_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/fair"
	"github.com/berthsched/berth/queue"
)

var _ fair.Rule = (*fair.PlacementRule)(nil)

func ruleSched(t *testing.T, pol *fair.PlacementPolicy) *fair.Scheduler {
	t.Helper()
	af, err := fair.ParseAllocationFile([]byte(`<allocations><queue name="batch"/><queue name="etl"/><queue name="p"><queue name="c"/></queue></allocations>`), fair.ParseOptions{})
	require.NoError(t, err)
	if pol != nil {
		require.NoError(t, pol.Validate())
		af.Placement = pol
	}
	cfg := fair.DefaultConfig()
	cfg.Allocation = af
	cfg.Clock = berth.NewManualClock(0)
	s, err := fair.New(cfg)
	require.NoError(t, err)
	return s
}

// A host's rule set in the Go config changes where a real scheduler puts
// applications; without it the built-ins decide.
func TestCustomRuleChangesPlacement(t *testing.T) {
	tagged := fair.AppSpec{ID: "a1", User: "alice", Queue: "batch", Tags: []string{"queue:etl"}}
	plain := fair.AppSpec{ID: "a2", User: "alice", Queue: "batch"}
	withTag := &fair.PlacementPolicy{Rules: []fair.PlacementRule{
		{Custom: ByTag{}, Create: true},
		{Kind: fair.RuleSpecified, Create: false},
		{Kind: fair.RuleDefault, Create: true},
	}}
	for _, tc := range []struct {
		name      string
		pol       *fair.PlacementPolicy
		wantTag   string
		wantPlain string
	}{
		{"built-ins", nil, "root.batch", "root.batch"},
		{"tag rule first", withTag, "root.etl", "root.batch"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := ruleSched(t, tc.pol)
			q, err := s.SubmitApp(tagged)
			require.NoError(t, err)
			assert.Equal(t, tc.wantTag, q)
			q, err = s.SubmitApp(plain)
			require.NoError(t, err)
			assert.Equal(t, tc.wantPlain, q)
		})
	}
	// Create="false" on the rule caps the rule's own create: an
	// unconfigured queue makes it pass.
	capped := &fair.PlacementPolicy{Rules: []fair.PlacementRule{{Custom: ByTag{}}, {Kind: fair.RuleDefault, Create: true}}}
	s := ruleSched(t, capped)
	q, err := s.SubmitApp(fair.AppSpec{ID: "a3", User: "bob", Tags: []string{"queue:adhoc"}})
	require.NoError(t, err)
	assert.Equal(t, "root.default", q)
}

// fixedRule answers the same for everyone.
type fixedRule struct{ a fair.RuleAnswer }

func (fixedRule) Name() string { return "fixed" }
func (r fixedRule) Place(fair.PlacementRequest, fair.QueueLookup) (fair.RuleAnswer, error) {
	return r.a, nil
}

// A misbehaving rule gets a typed error; the application is not added.
func TestMisbehavingRuleIsRefused(t *testing.T) {
	for _, a := range []fair.RuleAnswer{
		{Verdict: fair.PlaceIn, Queue: "", Create: true},
		{Verdict: fair.PlaceIn, Queue: "root..x", Create: true},
		{Verdict: fair.PlaceIn, Queue: ".x", Create: true},
		{Verdict: fair.PlaceIn, Queue: "x.", Create: true},
		{Verdict: fair.PlaceIn, Queue: " x", Create: true},
		{Verdict: fair.Verdict(9), Queue: "root.etl"},
	} {
		pol := &fair.PlacementPolicy{Rules: []fair.PlacementRule{{Custom: fixedRule{a}, Create: true}, {Kind: fair.RuleDefault, Create: true}}}
		s := ruleSched(t, pol)
		_, err := s.SubmitApp(fair.AppSpec{ID: "x", User: "u"})
		var re *fair.RuleError
		require.ErrorAs(t, err, &re, "%+v", a)
		assert.Equal(t, "fixed", re.Rule)
		assert.ErrorIs(t, err, fair.ErrBadRule)
		assert.ErrorIs(t, err, berth.ErrInvalidArgument)
		// Nothing was added: the id is still free.
		pol.Rules[0] = fair.PlacementRule{Custom: fixedRule{fair.RuleAnswer{Verdict: fair.PlaceIn, Queue: "etl"}}}
		q, err := s.SubmitApp(fair.AppSpec{ID: "x", User: "u"})
		require.NoError(t, err)
		assert.Equal(t, "root.etl", q)
	}
	// A rule's reject and a parent queue answer behave as the built-ins'.
	s := ruleSched(t, &fair.PlacementPolicy{Rules: []fair.PlacementRule{{Custom: fixedRule{fair.RuleAnswer{Verdict: fair.Reject}}}, {Kind: fair.RuleDefault, Create: true}}})
	_, err := s.SubmitApp(fair.AppSpec{ID: "r", User: "u"})
	assert.ErrorIs(t, err, berth.ErrNoPlacement)
	s = ruleSched(t, &fair.PlacementPolicy{Rules: []fair.PlacementRule{{Custom: fixedRule{fair.RuleAnswer{Verdict: fair.PlaceIn, Queue: "p"}}}, {Kind: fair.RuleDefault, Create: true}}})
	_, err = s.SubmitApp(fair.AppSpec{ID: "r", User: "u"})
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)
	assert.NotErrorIs(t, err, fair.ErrBadRule)
}

// A rule name in the allocation file must be built in or registered.
func TestRuleNamesResolveThroughTheRegistry(t *testing.T) {
	file := []byte(`<allocations><queuePlacementPolicy><rule name="tag"/><rule name="default"/></queuePlacementPolicy></allocations>`)
	for _, tc := range []struct {
		name  string
		rules *queue.Registry[fair.Rule]
	}{
		{"no registry", nil},
		{"other names", func() *queue.Registry[fair.Rule] {
			r := &queue.Registry[fair.Rule]{Kind: "placement rule"}
			require.NoError(t, r.Register("label", ByTag{}))
			return r
		}()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := fair.ParseAllocationFile(file, fair.ParseOptions{Rules: tc.rules})
			var un *queue.UnknownNameError
			require.ErrorAs(t, err, &un)
			assert.Equal(t, "tag", un.Name)
			assert.Equal(t, tc.rules.Names(), un.Known)
			var fe *berth.FieldError
			require.True(t, errors.As(err, &fe))
			assert.Contains(t, fe.Field, "queuePlacementPolicy.rule[1]")
			assert.ErrorIs(t, err, berth.ErrInvalidArgument)
		})
	}
	r := &queue.Registry[fair.Rule]{}
	require.NoError(t, r.Register("tag", ByTag{}))
	af, err := fair.ParseAllocationFile(file, fair.ParseOptions{Rules: r})
	require.NoError(t, err)
	require.Len(t, af.Placement.Rules, 2)
	assert.Equal(t, "tag", af.Placement.Rules[0].Name())
	assert.True(t, af.Placement.Rules[0].Create)
	// A built-in name is never looked up in the registry.
	require.NoError(t, r.Register("user", fixedRule{}))
	af, err = fair.ParseAllocationFile([]byte(`<allocations><queuePlacementPolicy><rule name="user"/></queuePlacementPolicy></allocations>`), fair.ParseOptions{Rules: r})
	require.NoError(t, err)
	assert.Nil(t, af.Placement.Rules[0].Custom)
	assert.Equal(t, fair.RuleUser, af.Placement.Rules[0].Kind)
}

// FuzzRuleAnswer: whatever queue a host's rule names, the submission
// lands in a valid leaf path or fails with a typed error; nothing panics.
func FuzzRuleAnswer(f *testing.F) {
	for _, q := range []string{"etl", "root.etl", "", "root..x", "p", "p.c", "new.leaf", " x", "root"} {
		f.Add(q, true, uint8(1))
	}
	f.Fuzz(func(t *testing.T, q string, create bool, verdict uint8) {
		a := fair.RuleAnswer{Verdict: fair.Verdict(verdict % 4), Queue: q, Create: create}
		s := ruleSched(t, &fair.PlacementPolicy{Rules: []fair.PlacementRule{{Custom: fixedRule{a}, Create: true}, {Kind: fair.RuleDefault, Create: true}}})
		got, err := s.SubmitApp(fair.AppSpec{ID: "x", User: "u"})
		if err != nil {
			require.True(t, errors.Is(err, berth.ErrInvalidArgument) || errors.Is(err, berth.ErrNoPlacement), "%v", err)
			return
		}
		_, perr := queue.ParsePath(got)
		require.NoError(t, perr, "%q", got)
	})
}
