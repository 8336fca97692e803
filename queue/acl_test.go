package queue

import (
	"strings"
	"testing"

	"github.com/berthsched/berth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseACL(t *testing.T) {
	tests := []struct {
		in     string
		all    bool
		users  []string
		groups []string
		str    string
	}{
		{"*", true, nil, nil, "*"},
		{" * ", true, nil, nil, "*"},
		{"  *", true, nil, nil, "*"}, // second half trims to "*"
		{"* ", true, nil, nil, "*"},
		{"alice *", true, nil, nil, "*"},
		{"*,alice", false, []string{"*", "alice"}, nil, "*,alice "},
		{"alice,* g", false, []string{"alice", "*"}, []string{"g"}, "alice,* g"},
		{"", false, nil, nil, " "},
		{" ", false, nil, nil, " "},
		{"   ", false, nil, nil, " "},
		{"alice", false, []string{"alice"}, nil, "alice "},
		{"alice,bob", false, []string{"alice", "bob"}, nil, "alice,bob "},
		{"alice,bob admins,ops", false, []string{"alice", "bob"}, []string{"admins", "ops"}, "alice,bob admins,ops"},
		{" admins", false, nil, []string{"admins"}, " admins"},
		{"alice, bob", false, []string{"alice"}, []string{"bob"}, "alice bob"}, // space ends the user list
		{"alice,,bob,alice admins, ops ,,admins", false, []string{"alice", "bob"}, []string{"admins", "ops"}, "alice,bob admins,ops"},
		{"bob,alice", false, []string{"bob", "alice"}, nil, "bob,alice "}, // order kept
		{"a b c", false, []string{"a"}, []string{"b c"}, "a b c"},         // groups keep inner spaces
		{"\talice\t", false, []string{"alice"}, nil, "alice "},
		{"user1,user2 group1,group2", false, []string{"user1", "user2"}, []string{"group1", "group2"}, "user1,user2 group1,group2"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			a := ParseACL(tc.in)
			assert.Equal(t, tc.all, a.AllowsEveryone())
			assert.Equal(t, tc.users, a.Users())
			assert.Equal(t, tc.groups, a.Groups())
			assert.Equal(t, tc.str, a.String())
			assert.Equal(t, !tc.all && len(tc.users) == 0 && len(tc.groups) == 0, a.AllowsNobody())
			assert.True(t, ParseACL(a.String()).Equal(a), "round trip of %q", a.String())
		})
	}
}

func TestACLAllows(t *testing.T) {
	tests := []struct {
		acl    string
		user   string
		groups []string
		want   bool
	}{
		{"*", "anyone", nil, true},
		{" ", "anyone", []string{"admins"}, false},
		{"", "anyone", nil, false},
		{"alice", "alice", nil, true},
		{"alice", "bob", nil, false},
		{"alice admins", "bob", []string{"users", "admins"}, true},
		{"alice admins", "bob", []string{"users"}, false},
		{" admins", "admins", nil, false}, // a user named like the group is not in it
		{"*,alice", "*", nil, true},       // "*" inside a list is a literal name
		{"*,alice", "bob", nil, false},
		{"alice,bob", "Alice", nil, false}, // case sensitive
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, ParseACL(tc.acl).Allows(tc.user, tc.groups), "%q allows %q %v", tc.acl, tc.user, tc.groups)
	}
	assert.False(t, ACL{}.Allows("x", []string{"y"}), "zero ACL allows nobody")
	assert.True(t, Everyone().Allows("x", nil))
	assert.True(t, Nobody().AllowsNobody())
}

func TestNewACL(t *testing.T) {
	a, err := NewACL([]string{" alice", "bob", "alice"}, []string{"admins", "ops team"})
	require.NoError(t, err)
	assert.Equal(t, []string{"alice", "bob"}, a.Users())
	assert.Equal(t, "alice,bob admins,ops team", a.String())
	assert.True(t, ParseACL(a.String()).Equal(a))
	for _, bad := range [][2][]string{
		{{"a b"}, nil}, {{"a,b"}, nil}, {{""}, nil}, {{"*"}, nil}, {nil, {"g,h"}}, {nil, {" "}}, {nil, {"*"}},
	} {
		_, err := NewACL(bad[0], bad[1])
		assert.ErrorIs(t, err, berth.ErrInvalidArgument, "%q", bad)
	}
}

func TestACLEqual(t *testing.T) {
	assert.True(t, ParseACL("a,b g").Equal(ParseACL("b,a g")))
	assert.False(t, ParseACL("a,b g").Equal(ParseACL("a g")))
	assert.False(t, ParseACL("a g").Equal(ParseACL("a h")))
	assert.False(t, Everyone().Equal(Nobody()))
	assert.True(t, Everyone().Equal(ParseACL(" *")))
	assert.True(t, Nobody().Equal(ParseACL("")))
}

// countingGroups counts lookups, to check they are lazy.
type countingGroups struct {
	m     map[string][]string
	calls int
}

func (c *countingGroups) GroupsOf(u string) []string { c.calls++; return c.m[u] }

func aclPtr(s string) *ACL { a := ParseACL(s); return &a }

func TestAccessWalkUp(t *testing.T) {
	// root: submit nobody, admin "root-admin"; a: submit "alice"; a.a1: submit " devs";
	// b: admin "bob"; b.b1: defaults.
	c := cfgT{Name: "root", SubmitACL: aclPtr(" "), AdminACL: aclPtr("root-admin"), Children: []cfgT{
		{Name: "a", Capacity: Percent(50), SubmitACL: aclPtr("alice"), Children: []cfgT{
			{Name: "a1", Capacity: Percent(100), SubmitACL: aclPtr(" devs")},
		}},
		{Name: "b", Capacity: Percent(50), AdminACL: aclPtr("bob"), Children: []cfgT{
			{Name: "b1", Capacity: Percent(100)},
		}},
	}}
	tr := mustTree(t, c, csOpts)
	groups := StaticGroups{"dave": {"devs"}, "erin": {"ops"}}
	tests := []struct {
		queue, user string
		access      Access
		want        bool
	}{
		{"root.a.a1", "alice", SubmitApplications, true}, // allowed at parent a
		{"root.a.a1", "dave", SubmitApplications, true},  // by group at a1
		{"root.a", "dave", SubmitApplications, false},    // the group ACL is below
		{"root.a.a1", "erin", SubmitApplications, false},
		{"root.b.b1", "bob", SubmitApplications, false}, // bob administers b, that is not submit
		{"root.b.b1", "bob", AdministerQueue, true},
		{"root.a.a1", "root-admin", AdministerQueue, true},
		{"root.a.a1", "root-admin", SubmitApplications, false},
		{"root", "alice", SubmitApplications, false},
	}
	for _, tc := range tests {
		q := mustQueue(t, tr, tc.queue)
		assert.Equal(t, tc.want, q.HasAccess(tc.access, tc.user, groups), "%s %s %v", tc.queue, tc.user, tc.access)
		err := q.CheckAccess(tc.access, tc.user, groups)
		if tc.want {
			assert.NoError(t, err)
		} else {
			assert.ErrorIs(t, err, berth.ErrPermissionDenied)
			assert.Equal(t, tc.queue, asQueueError(t, err).QueuePath)
		}
	}
	// CanSubmit: submit or administer anywhere up.
	b1 := mustQueue(t, tr, "root.b.b1")
	assert.True(t, b1.CanSubmit("bob", groups))
	assert.True(t, b1.CanSubmit("root-admin", nil))
	assert.False(t, b1.CanSubmit("alice", groups))
	err := b1.CheckSubmit("alice", groups)
	assert.ErrorIs(t, err, berth.ErrPermissionDenied)
	assert.Equal(t, "acl_submit_applications", asQueueError(t, err).Field)
	assert.NoError(t, b1.CheckSubmit("bob", nil))

	// Groups are looked up at most once, and only when an ACL names groups.
	cg := &countingGroups{m: map[string][]string{"dave": {"devs"}}}
	assert.True(t, mustQueue(t, tr, "root.a.a1").CanSubmit("dave", cg))
	assert.Equal(t, 1, cg.calls)
	cg.calls = 0
	assert.False(t, b1.CanSubmit("zed", cg))
	assert.Equal(t, 0, cg.calls, "no ACL on the way up names groups")
	assert.True(t, mustQueue(t, tr, "root.a").CanSubmit("alice", GroupsFunc(func(string) []string {
		t.Fatal("groups looked up although the user is named")
		return nil
	})))
}

func TestDefaultACLs(t *testing.T) {
	tr := mustTree(t, rootOf(leaf("a", 100)), csOpts)
	a := mustQueue(t, tr, "root.a")
	assert.True(t, tr.Root().ACL(SubmitApplications).AllowsEveryone())
	assert.True(t, tr.Root().ACL(AdministerQueue).AllowsEveryone())
	assert.True(t, a.ACL(SubmitApplications).AllowsNobody())
	assert.True(t, a.CanSubmit("anyone", nil), "root's default * is inherited by the walk-up")
	assert.Equal(t, "SUBMIT_APPLICATIONS", SubmitApplications.String())
	assert.Equal(t, "ADMINISTER_QUEUE", AdministerQueue.String())
}

func FuzzParseACL(f *testing.F) {
	for _, s := range []string{"*", " ", "", "alice", "alice,bob admins", " *", "* ", "*,*", "a,* g", ",\x01a,b",
		"a b c", "\t*\t", "a,,b ,g,,", "alice bob,*", "\x00", "  ", "a\u00a0b g"} {
		f.Add(s, "alice", "admins")
	}
	f.Fuzz(func(t *testing.T, s, user, group string) {
		a := ParseACL(s)
		str := a.String()
		if a.AllowsEveryone() {
			if str != "*" || len(a.Users()) != 0 || len(a.Groups()) != 0 {
				t.Fatalf("wildcard ACL %q: %q %q %q", s, str, a.Users(), a.Groups())
			}
			if !a.Allows(user, nil) {
				t.Fatal("wildcard refused")
			}
			return
		}
		seen := map[string]bool{}
		for _, u := range a.Users() {
			if u == "" || javaTrim(u) != u || strings.ContainsAny(u, ", ") || seen[u] {
				t.Fatalf("bad user %q from %q", u, s)
			}
			seen[u] = true
			if !a.Allows(u, nil) {
				t.Fatalf("named user %q refused", u)
			}
		}
		clear(seen)
		for _, g := range a.Groups() {
			if g == "" || javaTrim(g) != g || strings.Contains(g, ",") || seen[g] {
				t.Fatalf("bad group %q from %q", g, s)
			}
			seen[g] = true
			if !a.Allows("\x00nobody", []string{g}) {
				t.Fatalf("member of %q refused", g)
			}
		}
		// Allows is exactly "user named or a group named".
		want := false
		for _, u := range a.Users() {
			want = want || u == user
		}
		for _, g := range a.Groups() {
			want = want || g == group
		}
		if a.Allows(user, []string{group}) != want {
			t.Fatalf("Allows(%q,%q) on %q", user, group, s)
		}
		// Round trip, except Hadoop's quirk: a single literal "*" prints as the wildcard.
		single := func(l []string) bool { return len(l) == 1 && l[0] == "*" }
		b := ParseACL(str)
		if single(a.Users()) || single(a.Groups()) {
			if !b.AllowsEveryone() {
				t.Fatalf("quirk changed: %q", str)
			}
			return
		}
		if !b.Equal(a) || b.String() != str {
			t.Fatalf("round trip %q -> %q -> %q", s, str, b.String())
		}
	})
}
