package plan

import (
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// queue.ReservationACLs implements Authorizer structurally (queue does not
// import plan).
var _ Authorizer = (*queue.ReservationACLs)(nil)

const aclNow = berth.Time(1_700_000_000_000)

// aclSystem is crmSystem with an authorizer (nil = ACLs disabled) and one
// reservation of "owner" already accepted (submitted with ACLs off).
func aclSystem(t *testing.T, auth Authorizer) (*System, SubmissionRequest) {
	t.Helper()
	s := crmSystem(t, berth.NewManualClock(aclNow))
	req := crmRequest(s.NewReservationID(), 4, aclNow, aclNow+63_000, 60_000)
	req.User = "owner"
	require.NoError(t, s.Submit(req))
	s.cfg.Authorizer = auth
	return s, req
}

// testACLs: submit by alice or group submitters, list by lister, administer
// by admin; the owner is named in no ACL.
func testACLs() *queue.ReservationACLs {
	return queue.NewReservationACLs(queue.StaticGroups{"carol": {"submitters"}}, map[string]queue.ReservationQueueACLs{
		"dedicated": {Submit: queue.ParseACL("alice submitters"), List: queue.ParseACL("lister"), Administer: queue.ParseACL("admin")},
	})
}

// runOp performs op as user on s; the subject reservation is req.
func runOp(s *System, req SubmissionRequest, op ReservationOp, user string, withID bool) error {
	switch op {
	case OpSubmitReservation:
		fresh := crmRequest(s.NewReservationID(), 2, aclNow, aclNow+63_000, 60_000)
		fresh.User = user
		return s.Submit(fresh)
	case OpUpdateReservation:
		upd := crmRequest(req.ID, 5, aclNow, aclNow+63_000, 60_000)
		return s.Update(UpdateRequest{ID: req.ID, Definition: upd.Definition, User: user})
	case OpDeleteReservation:
		return s.Delete(DeleteRequest{ID: req.ID, User: user})
	case OpListReservations:
		lr := ListRequest{Queue: "dedicated", Start: -1, End: -1, User: user}
		if withID {
			lr.ID = req.ID
		}
		resp, err := s.List(lr)
		if err == nil && len(resp.Reservations) != 1 {
			return errors.New("list did not return the reservation")
		}
		return err
	}
	return errors.New("unknown op")
}

func TestSystemReservationACLs(t *testing.T) {
	tests := []struct {
		op      ReservationOp
		user    string
		withID  bool // list only: name the reservation
		allowed bool
		why     string
	}{
		{OpSubmitReservation, "alice", false, true, "submit ACL names the user"},
		{OpSubmitReservation, "carol", false, true, "submit ACL names the user's group"},
		{OpSubmitReservation, "admin", false, true, "administer ACL overrides"},
		{OpSubmitReservation, "owner", false, false, "owning another reservation grants no submit"},
		{OpSubmitReservation, "lister", false, false, "list ACL grants no submit"},
		{OpSubmitReservation, "bob", false, false, "named nowhere"},
		{OpUpdateReservation, "owner", false, true, "owner may update"},
		{OpUpdateReservation, "admin", false, true, "administer ACL"},
		{OpUpdateReservation, "alice", false, false, "submit ACL grants no update"},
		{OpUpdateReservation, "lister", false, false, "list ACL grants no update"},
		{OpUpdateReservation, "bob", false, false, "named nowhere"},
		{OpDeleteReservation, "owner", false, true, "owner may delete"},
		{OpDeleteReservation, "admin", false, true, "administer ACL"},
		{OpDeleteReservation, "alice", false, false, "submit ACL grants no delete"},
		{OpDeleteReservation, "bob", false, false, "named nowhere"},
		{OpListReservations, "owner", true, true, "owner may list their reservation by id"},
		{OpListReservations, "owner", false, false, "owner rule needs the id"},
		{OpListReservations, "lister", false, true, "list ACL"},
		{OpListReservations, "lister", true, true, "list ACL"},
		{OpListReservations, "admin", false, true, "administer ACL overrides"},
		{OpListReservations, "alice", false, false, "submit ACL grants no list"},
		{OpListReservations, "bob", true, false, "named nowhere"},
	}
	for _, tc := range tests {
		t.Run(tc.op+"/"+tc.user+"/"+tc.why, func(t *testing.T) {
			// ACLs disabled (nil authorizer, YARN's default): always allowed.
			s, req := aclSystem(t, nil)
			assert.NoError(t, runOp(s, req, tc.op, tc.user, tc.withID), "ACLs disabled")

			s, req = aclSystem(t, testACLs())
			p, _ := s.Plan("dedicated")
			before, _ := p.Reservation(req.ID)
			lenBefore := p.Len()
			err := runOp(s, req, tc.op, tc.user, tc.withID)
			if tc.allowed {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.ErrorIs(t, err, berth.ErrPermissionDenied)
			// The ACLs say why (queue, ACL, user, operation); the system does
			// not say it again.
			assert.Contains(t, err.Error(), "queue dedicated: acl_")
			assert.Contains(t, err.Error(), "user "+tc.user+" cannot perform operation "+tc.op)
			assert.Equal(t, 1, strings.Count(err.Error(), "cannot perform"), err.Error())
			var fe *berth.FieldError
			require.ErrorAs(t, err, &fe)
			assert.Equal(t, tc.user, fe.Value)
			// A refusal changes nothing.
			assert.Equal(t, lenBefore, p.Len())
			after, ok := p.Reservation(req.ID)
			require.True(t, ok)
			assert.True(t, before.Definition.Equal(after.Definition))
			q, ok := s.QueueOf(req.ID)
			assert.True(t, ok)
			assert.Equal(t, "dedicated", q)
		})
	}
}

// recordingAuth records its calls and refuses with a fixed error.
type recordingAuth struct {
	calls [][4]string
	err   error
}

func (r *recordingAuth) AuthorizeReservation(user string, op ReservationOp, planQueue string, owner string) error {
	r.calls = append(r.calls, [4]string{user, op, planQueue, owner})
	return r.err
}

func TestSystemAuthorizerArguments(t *testing.T) {
	rec := &recordingAuth{}
	s, req := aclSystem(t, rec)
	for _, op := range []ReservationOp{OpListReservations, OpUpdateReservation, OpDeleteReservation, OpSubmitReservation} {
		require.NoError(t, runOp(s, req, op, "bob", true))
	}
	require.Len(t, rec.calls, 4)
	assert.Equal(t, [4]string{"bob", "list", "dedicated", "owner"}, rec.calls[0])
	assert.Equal(t, [4]string{"bob", "update", "dedicated", "owner"}, rec.calls[1])
	// The update is made in the caller's name (as YARN, which passes the
	// caller to the agent), so bob owns the reservation afterwards.
	assert.Equal(t, [4]string{"bob", "delete", "dedicated", "bob"}, rec.calls[2])
	assert.Equal(t, [4]string{"bob", "submit", "dedicated", ""}, rec.calls[3], "a new submission has no owner")
}

func TestSystemAuthorizerOrder(t *testing.T) {
	cause := errors.New("nope")
	rec := &recordingAuth{err: cause}
	s, req := aclSystem(t, rec)

	// Validation runs first: an unknown id is not found, not denied.
	err := s.Delete(DeleteRequest{ID: rid(99), User: "bob"})
	assert.ErrorIs(t, err, berth.ErrNotFound)
	_, err = s.List(ListRequest{Queue: "nope", User: "bob"})
	assert.ErrorIs(t, err, berth.ErrNotFound)
	assert.Empty(t, rec.calls)

	// As YARN, idempotence runs before the ACL check: resubmitting the
	// accepted definition succeeds and a different one is a conflict.
	assert.NoError(t, s.Submit(SubmissionRequest{Queue: req.Queue, ID: req.ID, Definition: req.Definition, User: "bob"}))
	changed := crmRequest(req.ID, 9, aclNow, aclNow+63_000, 60_000)
	changed.User = "bob"
	assert.ErrorIs(t, s.Submit(changed), berth.ErrConflict)
	assert.Empty(t, rec.calls)

	// Any authorizer error refuses, as ErrPermissionDenied with the cause.
	fresh := crmRequest(s.NewReservationID(), 1, aclNow, aclNow+63_000, 60_000)
	fresh.User = "bob"
	err = s.Submit(fresh)
	assert.ErrorIs(t, err, berth.ErrPermissionDenied)
	assert.ErrorIs(t, err, cause)
	_, held := s.QueueOf(fresh.ID)
	assert.False(t, held, "a refused submission claims no id")
	require.Len(t, rec.calls, 1)
}

func TestSystemAuthorizerFunc(t *testing.T) {
	deny := AuthorizerFunc(func(user string, op ReservationOp, planQueue, owner string) error {
		if op == OpDeleteReservation && user != owner {
			return errors.New("only owners delete")
		}
		return nil
	})
	s, req := aclSystem(t, deny)
	assert.ErrorIs(t, s.Delete(DeleteRequest{ID: req.ID, User: "bob"}), berth.ErrPermissionDenied)
	assert.NoError(t, s.Delete(DeleteRequest{ID: req.ID, User: "owner"}))
}

// A plan queue without configured ACLs allows everything, as YARN does.
func TestSystemReservationACLsUnconfiguredQueue(t *testing.T) {
	acls := queue.NewReservationACLs(nil, map[string]queue.ReservationQueueACLs{"other": {}})
	s, req := aclSystem(t, acls)
	for _, op := range []ReservationOp{OpListReservations, OpUpdateReservation, OpDeleteReservation, OpSubmitReservation} {
		assert.NoError(t, runOp(s, req, op, "bob", false), op)
	}
}

// The authorizer runs on every caller's goroutine: parallel submissions and
// listings under ACLs (run with -race).
func TestSystemReservationACLsConcurrent(t *testing.T) {
	s, _ := aclSystem(t, testACLs())
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for g := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			user := []string{"alice", "bob"}[g%2]
			for range 5 {
				err := runOp(s, SubmissionRequest{}, OpSubmitReservation, user, false)
				if (user == "alice") != (err == nil) {
					errs[g] = err
					if err == nil {
						errs[g] = errors.New("bob was allowed to submit")
					}
					return
				}
				if _, err := s.List(ListRequest{Queue: "dedicated", End: -1, User: "lister"}); err != nil {
					errs[g] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		assert.NoError(t, err)
	}
	p, _ := s.Plan("dedicated")
	assert.Equal(t, 1+4*5, p.Len(), "the owner's reservation and alice's 20")
}
