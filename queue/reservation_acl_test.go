package queue

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/berthsched/berth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func testReservationACLs(groups Groups) *ReservationACLs {
	return NewReservationACLs(groups, map[string]ReservationQueueACLs{
		"dedicated": {Submit: ParseACL("alice submitters"), List: ParseACL("lister"), Administer: ParseACL("admin admins")},
		"closed":    {},
		"open":      AllowAllReservations(),
	})
}

func TestReservationACLsAuthorize(t *testing.T) {
	groups := StaticGroups{"carol": {"submitters"}, "dave": {"admins"}}
	r := testReservationACLs(groups)
	tests := []struct {
		user, op, queue, owner string
		allowed                bool
		field                  string // ACL key named on refusal
	}{
		{"alice", ReservationOpSubmit, "dedicated", "", true, ""},
		{"carol", ReservationOpSubmit, "dedicated", "", true, ""}, // group
		{"admin", ReservationOpSubmit, "dedicated", "", true, ""}, // administer overrides
		{"dave", ReservationOpSubmit, "dedicated", "", true, ""},  // administer group
		{"lister", ReservationOpSubmit, "dedicated", "", false, "acl_submit_reservations"},
		{"bob", ReservationOpSubmit, "dedicated", "", false, "acl_submit_reservations"},
		{"lister", ReservationOpList, "dedicated", "", true, ""},
		{"admin", ReservationOpList, "dedicated", "", true, ""},
		{"alice", ReservationOpList, "dedicated", "", false, "acl_list_reservations"},
		{"bob", ReservationOpList, "dedicated", "bob", true, ""}, // owner
		{"bob", ReservationOpList, "dedicated", "eve", false, "acl_list_reservations"},
		{"admin", ReservationOpUpdate, "dedicated", "eve", true, ""},
		{"dave", ReservationOpDelete, "dedicated", "eve", true, ""},
		{"alice", ReservationOpUpdate, "dedicated", "eve", false, "acl_administer_reservations"},
		{"lister", ReservationOpDelete, "dedicated", "eve", false, "acl_administer_reservations"},
		{"eve", ReservationOpUpdate, "dedicated", "eve", true, ""},
		{"eve", ReservationOpDelete, "dedicated", "eve", true, ""},
		{"", ReservationOpDelete, "dedicated", "", false, "acl_administer_reservations"}, // empty owner is no owner
		{"admin", ReservationOpSubmit, "closed", "", false, "acl_submit_reservations"},   // zero value: nobody
		{"eve", ReservationOpDelete, "closed", "eve", true, ""},                          // owner even there
		{"bob", ReservationOpDelete, "open", "eve", true, ""},
		{"bob", ReservationOpSubmit, "unconfigured", "", true, ""}, // no ACLs: allowed
		{"bob", ReservationOpUpdate, "unconfigured", "eve", true, ""},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%s/%s/%s/%s", tc.op, tc.user, tc.queue, tc.owner), func(t *testing.T) {
			err := r.AuthorizeReservation(tc.user, tc.op, tc.queue, tc.owner)
			if tc.allowed {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.ErrorIs(t, err, berth.ErrPermissionDenied)
			assert.NotErrorIs(t, err, berth.ErrInvalidArgument)
			var qe *Error
			require.ErrorAs(t, err, &qe)
			assert.Equal(t, tc.queue, qe.QueuePath)
			assert.Equal(t, tc.field, qe.Field)
			assert.Equal(t, tc.user, qe.Value)
			assert.Contains(t, err.Error(), "cannot perform operation "+tc.op)
		})
	}
}

func TestReservationACLsUnknownOp(t *testing.T) {
	r := NewReservationACLs(nil, nil)
	err := r.AuthorizeReservation("bob", "move", "any", "bob")
	require.Error(t, err)
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)
	var qe *Error
	require.ErrorAs(t, err, &qe)
	assert.Equal(t, "operation", qe.Field)
	assert.Equal(t, "move", qe.Value)
}

func TestReservationACLsCopiesAndReports(t *testing.T) {
	in := map[string]ReservationQueueACLs{"q": {Submit: ParseACL("alice")}}
	r := NewReservationACLs(nil, in)
	in["q"] = AllowAllReservations() // no effect on r
	assert.Error(t, r.AuthorizeReservation("bob", ReservationOpSubmit, "q", ""))
	a, ok := r.ACLs("q")
	require.True(t, ok)
	assert.Equal(t, []string{"alice"}, a.Submit.Users())
	assert.True(t, a.List.AllowsNobody())
	_, ok = r.ACLs("other")
	assert.False(t, ok)
	all := AllowAllReservations()
	assert.True(t, all.Submit.AllowsEveryone() && all.List.AllowsEveryone() && all.Administer.AllowsEveryone())
}

// Groups are looked up only when an ACL names groups and the user is not
// named, at most once per check.
func TestReservationACLsGroupLookups(t *testing.T) {
	var calls atomic.Int64
	groups := GroupsFunc(func(user string) []string { calls.Add(1); return []string{"admins"} })
	r := testReservationACLs(groups)
	require.NoError(t, r.AuthorizeReservation("alice", ReservationOpSubmit, "dedicated", ""))
	assert.Equal(t, int64(0), calls.Load(), "user named: no lookup")
	require.NoError(t, r.AuthorizeReservation("eve", ReservationOpUpdate, "dedicated", "eve"))
	assert.Equal(t, int64(0), calls.Load(), "owner: no lookup")
	require.NoError(t, r.AuthorizeReservation("frank", ReservationOpSubmit, "dedicated", ""))
	assert.Equal(t, int64(1), calls.Load(), "one lookup for two ACLs")
}

// refReservationAllowed is a direct reading of YARN's rules, the model for
// the property test and the fuzz target.
func refReservationAllowed(acls map[string]ReservationQueueACLs, groups StaticGroups, user, op, queue, owner string) bool {
	if owner != "" && owner == user {
		return true
	}
	a, ok := acls[queue]
	if !ok {
		return true
	}
	in := func(acl ACL) bool {
		if acl.AllowsEveryone() || slices.Contains(acl.Users(), user) {
			return true
		}
		for _, g := range groups[user] {
			if slices.Contains(acl.Groups(), g) {
				return true
			}
		}
		return false
	}
	specific := map[string]ACL{ReservationOpSubmit: a.Submit, ReservationOpList: a.List,
		ReservationOpUpdate: a.Administer, ReservationOpDelete: a.Administer}[op]
	return in(specific) || in(a.Administer)
}

func TestReservationACLsProperty(t *testing.T) {
	users := []string{"", "alice", "bob", "carol"}
	aclStrings := []string{"", " ", "*", "alice", "bob g1", " g2", "alice,carol g1,g2"}
	groups := StaticGroups{"bob": {"g2"}, "carol": {"g1"}}
	ops := []string{ReservationOpSubmit, ReservationOpList, ReservationOpUpdate, ReservationOpDelete}
	for i, s := range aclStrings {
		for j, l := range aclStrings {
			ad := aclStrings[(i*3+j)%len(aclStrings)]
			acls := map[string]ReservationQueueACLs{"q": {Submit: ParseACL(s), List: ParseACL(l), Administer: ParseACL(ad)}}
			r := NewReservationACLs(groups, acls)
			for _, u := range users {
				for _, owner := range users {
					for _, op := range ops {
						for _, q := range []string{"q", "x"} {
							want := refReservationAllowed(acls, groups, u, op, q, owner)
							err := r.AuthorizeReservation(u, op, q, owner)
							assert.Equal(t, want, err == nil, "acls %q/%q/%q user %q op %s queue %s owner %q", s, l, ad, u, op, q, owner)
							if err != nil {
								assert.ErrorIs(t, err, berth.ErrPermissionDenied)
							}
						}
					}
				}
			}
		}
	}
}

func FuzzReservationACLs(f *testing.F) {
	f.Add("alice", "submit", "alice g", " ", "admin", "")
	f.Add("bob", "update", "*", "", "", "bob")
	f.Add("", "delete", "", "", "", "")
	f.Add("x", "list", " g1", "x", " ", "y")
	f.Add("x", "bogus", "*", "*", "*", "x")
	f.Fuzz(func(t *testing.T, user, op, submit, list, admin, owner string) {
		acls := map[string]ReservationQueueACLs{"q": {Submit: ParseACL(submit), List: ParseACL(list), Administer: ParseACL(admin)}}
		groups := StaticGroups{user: {"g1"}}
		r := NewReservationACLs(groups, acls)
		err := r.AuthorizeReservation(user, op, "q", owner)
		switch op {
		case ReservationOpSubmit, ReservationOpList, ReservationOpUpdate, ReservationOpDelete:
		default:
			if !errors.Is(err, berth.ErrInvalidArgument) {
				t.Fatalf("unknown op %q: got %v", op, err)
			}
			return
		}
		want := refReservationAllowed(acls, groups, user, op, "q", owner)
		if want != (err == nil) {
			t.Fatalf("user %q op %q owner %q: want allowed=%v, got %v", user, op, owner, want, err)
		}
		if err != nil && !errors.Is(err, berth.ErrPermissionDenied) {
			t.Fatalf("refusal of wrong kind: %v", err)
		}
		if err := r.AuthorizeReservation(user, op, "unconfigured", owner); err != nil {
			t.Fatalf("unconfigured queue refused: %v", err)
		}
	})
}

func TestReservationACLsConcurrent(t *testing.T) {
	r := testReservationACLs(StaticGroups{"carol": {"submitters"}})
	var wg sync.WaitGroup
	var denied atomic.Int64
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				if r.AuthorizeReservation("carol", ReservationOpSubmit, "dedicated", "") != nil {
					denied.Add(1)
				}
				if r.AuthorizeReservation("bob", ReservationOpList, "dedicated", "") == nil {
					denied.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	assert.Equal(t, int64(0), denied.Load())
}

func ExampleReservationACLs() {
	acls := NewReservationACLs(StaticGroups{"carol": {"planners"}}, map[string]ReservationQueueACLs{
		"dedicated": {
			Submit:     ParseACL("alice planners"),
			List:       ParseACL("*"),
			Administer: ParseACL("admin"),
		},
	})
	// In a host: plan.SystemConfig{Authorizer: acls, ...}.
	fmt.Println(acls.AuthorizeReservation("carol", ReservationOpSubmit, "dedicated", ""))
	fmt.Println(acls.AuthorizeReservation("bob", ReservationOpDelete, "dedicated", "alice"))
	fmt.Println(acls.AuthorizeReservation("alice", ReservationOpDelete, "dedicated", "alice"))
	fmt.Println(errors.Is(acls.AuthorizeReservation("bob", ReservationOpSubmit, "dedicated", ""), berth.ErrPermissionDenied))
	// Output:
	// <nil>
	// queue dedicated: acl_administer_reservations: user bob cannot perform operation delete (ADMINISTER_RESERVATIONS)
	// <nil>
	// true
}
