package fair

import (
	"errors"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeQueues is a queue manager for placement: path → leaf?; every queue
// in it is configured.
type fakeQueues map[string]bool

func (f fakeQueues) LookupQueue(p string) (bool, bool, bool) {
	leaf, ok := f[p]
	return ok, leaf, ok
}

var testGroups = queue.GroupsFunc(func(u string) []string {
	switch u {
	case "admins":
		return []string{"root"}
	case "emptygroupuser":
		return nil
	}
	return []string{u + "group", u + "subgroup1", u + "subgroup2"}
})

func parsePolicy(t *testing.T, rules string) *PlacementPolicy {
	t.Helper()
	af, err := ParseAllocationFile([]byte(allocXML("<queuePlacementPolicy>"+rules+"</queuePlacementPolicy>")), ParseOptions{})
	require.NoError(t, err)
	require.NotNil(t, af.Placement)
	return af.Placement
}

func policyErr(t *testing.T, rules string) error {
	t.Helper()
	_, err := ParseAllocationFile([]byte(allocXML("<queuePlacementPolicy>"+rules+"</queuePlacementPolicy>")), ParseOptions{})
	require.Error(t, err)
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)
	var fe *berth.FieldError
	require.True(t, errors.As(err, &fe))
	assert.Contains(t, fe.Field, "queuePlacementPolicy")
	return err
}

func place(t *testing.T, p *PlacementPolicy, qs fakeQueues, requested, user string) string {
	t.Helper()
	got, err := p.Place(requested, user, testGroups, qs)
	require.NoError(t, err)
	return got
}

// D-01..D-20.
func TestPlacementVectors(t *testing.T) {
	base := func() fakeQueues { return fakeQueues{"root": false, "root.default": true} }

	p := parsePolicy(t, `<rule name="specified"/><rule name="user"/>`)
	assert.Equal(t, "root.specifiedq", place(t, p, base(), "specifiedq", "someuser"))
	assert.Equal(t, "root.someuser", place(t, p, base(), "default", "someuser"))
	assert.Equal(t, "root.otheruser", place(t, p, base(), "default", "otheruser"))

	p = parsePolicy(t, `<rule name="specified"/><rule name="user" create="false"/><rule name="default"/>`)
	qs := base()
	qs["root.someuser"] = true
	assert.Equal(t, "root.specifiedq", place(t, p, qs, "specifiedq", "someuser"), "D-02")
	assert.Equal(t, "root.someuser", place(t, p, qs, "default", "someuser"))
	assert.Equal(t, "root.specifiedq", place(t, p, qs, "specifiedq", "otheruser"))
	assert.Equal(t, "root.default", place(t, p, qs, "default", "otheruser"))

	p = parsePolicy(t, `<rule name="specified"/><rule name="reject"/>`)
	assert.Equal(t, "root.specifiedq", place(t, p, base(), "specifiedq", "u"), "D-03")
	assert.Equal(t, "", place(t, p, base(), "default", "u"))

	assert.Contains(t, policyErr(t, `<rule name="specified"/><rule name="user" create="false"/>`).Error(), "Could get past last queue placement rule without assigning")
	assert.Contains(t, policyErr(t, `<rule name="specified"/><rule name="default"/><rule name="user"/>`).Error(), "Rules after rule 2 in queue placement policy can never be reached")
	policyErr(t, `<rule name="secondaryGroupExistingQueue" create="true"/><rule name="default" queue="otherdefault" create="false"/>`)

	p = parsePolicy(t, `<rule name="specified" create="false"/><rule name="default" queue="root.someDefaultQueue"/>`)
	qs = base()
	qs["root.someDefaultQueue"] = true
	assert.Equal(t, "root.someDefaultQueue", place(t, p, qs, "default", "user1"), "D-07")

	// D-08
	assert.Contains(t, policyErr(t, `<rule name="nestedUserQueue"/>`).Error(), "must have a parent rule set")
	assert.Contains(t, policyErr(t, `<rule name="nestedUserQueue"><rule name="unknownRule"/></rule>`).Error(), "No rule class found for unknownRule")
	assert.Contains(t, policyErr(t, `<rule name="nestedUserQueue"><rule name="reject"/></rule>`).Error(), "is not allowed as a parent rule")
	policyErr(t, `<rule name="nestedUserQueue"><rule name="primaryGroup" create="false"/></rule>`)

	// D-09: the last nested rule is the parent.
	p = parsePolicy(t, `<rule name="nestedUserQueue"><rule name="primaryGroup"/><rule name="default"/></rule>`)
	require.NotNil(t, p.Rules[0].Parent)
	assert.Equal(t, RuleDefault, p.Rules[0].Parent.Kind)

	// D-10
	assert.Contains(t, policyErr(t, `<rule />`).Error(), "No name provided for a rule element")
	af, err := ParseAllocationFile([]byte(allocXML(`<queuePlacementPolicy><notarule/></queuePlacementPolicy>`)), ParseOptions{})
	require.NoError(t, err)
	assert.Nil(t, af.Placement, "no <rule>: rules unchanged")
	policyErr(t, `<rule name="user"><rule /></rule>`)
	p = parsePolicy(t, `<rule name="user"><notarule/></rule>`)
	assert.Nil(t, p.Rules[0].Parent)

	// D-11
	p = parsePolicy(t, `<rule name="specified" create="false"/><rule name="nestedUserQueue"><rule name="primaryGroup"/></rule>`)
	qs = base()
	assert.Equal(t, "root.user1group.user1", place(t, p, qs, "default", "user1"))
	qs["root.specifiedq"] = true
	qs["root.user3group"] = true
	assert.Equal(t, "root.specifiedq", place(t, p, qs, "root.specifiedq", "user2"))
	assert.Equal(t, "", place(t, p, qs, "default", "user3"))

	// D-12, D-12b
	p = parsePolicy(t, `<rule name="nestedUserQueue"><rule name="primaryGroup" create="false"/></rule><rule name="default"/>`)
	qs = base()
	assert.Equal(t, "root.default", place(t, p, qs, "default", "user1"))
	qs["root.user1group"] = false
	assert.Equal(t, "root.user1group.user1", place(t, p, qs, "default", "user1"))
	assert.Equal(t, "root.default", place(t, p, qs, "default", "user2"))
	qs["root.user2group"] = false
	qs["root.user2group.user2"] = true
	assert.Equal(t, "root.user2group.user2", place(t, p, qs, "default", "user2"))

	// D-13
	p = parsePolicy(t, `<rule name="nestedUserQueue"><rule name="secondaryGroupExistingQueue"/></rule><rule name="default"/>`)
	qs = base()
	assert.Equal(t, "root.default", place(t, p, qs, "default", "user1"))
	qs["root.user1subgroup1"] = false
	assert.Equal(t, "root.user1subgroup1.user1", place(t, p, qs, "default", "user1"))

	// D-14
	p = parsePolicy(t, `<rule name="nestedUserQueue"><rule name="specified" create="false"/></rule><rule name="default"/>`)
	qs = base()
	qs["root.parent1"], qs["root.parent2"] = false, false
	assert.Equal(t, "root.parent1.user1", place(t, p, qs, "root.parent1", "user1"))
	assert.Equal(t, "root.parent2.user2", place(t, p, qs, "root.parent2", "user2"))

	// D-15
	p = parsePolicy(t, `<rule name="specified" create="false"/><rule name="nestedUserQueue"><rule name="default" queue="root.parent"/></rule>`)
	assert.Equal(t, "root.parent.user1", place(t, p, base(), "default", "user1"))
	p = parsePolicy(t, `<rule name="specified" create="false"/><rule name="nestedUserQueue"><rule name="default" queue="root.parent" create="false"/></rule><rule name="default"/>`)
	qs = base()
	qs["root.parent"] = false
	assert.Equal(t, "root.parent.user1", place(t, p, qs, "default", "user1"))
	qs["root.parent"] = true
	assert.Equal(t, "root.default", place(t, p, qs, "default", "user1"), "a leaf parent result fails the rule")
	p = parsePolicy(t, `<rule name="specified" create="false"/><rule name="nestedUserQueue"><rule name="default" queue="root.parent"/></rule>`)
	assert.Equal(t, "", place(t, p, qs, "default", "user1"))

	// D-16, D-17
	p = parsePolicy(t, `<rule name="user"/>`)
	assert.Equal(t, "root.first_dot_last", place(t, p, base(), "default", "first.last"))
	p = parsePolicy(t, `<rule name="specified" create="false"/><rule name="nestedUserQueue"><rule name="default"/></rule>`)
	assert.Equal(t, "root.default.first_dot_last", place(t, p, fakeQueues{"root": false}, "default", "first_dot_last"))
	dotted := queue.GroupsFunc(func(u string) []string { return []string{u + ".group"} })
	p = parsePolicy(t, `<rule name="specified" create="false"/><rule name="nestedUserQueue"><rule name="primaryGroup"/></rule>`)
	got, err := p.Place("default", "user1", dotted, base())
	require.NoError(t, err)
	assert.Equal(t, "root.user1_dot_group.user1", got)

	// D-18, D-19
	p = parsePolicy(t, `<rule name="primaryGroup" create="false"/><rule name="default"/>`)
	_, err = p.Place("root.fake", "emptygroupuser", testGroups, base())
	assert.Error(t, err)
	p = parsePolicy(t, `<rule name="specified"/><rule name="default"/>`)
	for _, q := range []string{"A ", "A\u00a0", ".A", "A."} {
		_, err = p.Place(q, "user1", testGroups, base())
		assert.ErrorIs(t, err, berth.ErrInvalidArgument, "%q", q)
	}

	// D-20
	ip := ImplicitPlacementPolicy(false, false)
	assert.Equal(t, []PlacementRule{{Kind: RuleSpecified}, {Kind: RuleDefault, Create: true}}, ip.Rules)
	require.NoError(t, ip.Validate())
	require.NoError(t, ImplicitPlacementPolicy(true, true).Validate())
	require.NoError(t, ImplicitPlacementPolicy(true, false).Validate())
}

func TestRuleKindString(t *testing.T) {
	assert.Equal(t, "nestedUserQueue", RuleNestedUserQueue.String())
	assert.Equal(t, "RuleKind(99)", RuleKind(99).String())
}
