package queue

import (
	"maps"

	"github.com/berthsched/berth"
)

// The reservation calls [ReservationACLs.AuthorizeReservation] decides on.
// They are the values of plan.ReservationOp (an alias of string), spelled
// here because package queue does not import plan.
const (
	// ReservationOpSubmit is a reservation submission; it needs
	// acl_submit_reservations.
	ReservationOpSubmit = "submit"
	// ReservationOpUpdate is a reservation update; it needs
	// acl_administer_reservations unless the caller owns the reservation.
	ReservationOpUpdate = "update"
	// ReservationOpDelete is a reservation deletion; it needs
	// acl_administer_reservations unless the caller owns the reservation.
	ReservationOpDelete = "delete"
	// ReservationOpList is a reservation listing; it needs
	// acl_list_reservations unless the caller owns the reservation named.
	ReservationOpList = "list"
)

// ReservationQueueACLs are the reservation ACLs of one plan queue, YARN's
// capacity-scheduler keys acl_submit_reservations, acl_list_reservations and
// acl_administer_reservations (FairScheduler aclSubmitReservations, …).
//
// The zero value allows nobody; YARN reads an absent key as "*" (everyone),
// so start from [AllowAllReservations] and set the keys configured. Unlike
// the application ACLs, reservation ACLs are not inherited from parent
// queues: each plan queue's keys decide alone, as in YARN.
type ReservationQueueACLs struct {
	// Submit is acl_submit_reservations.
	Submit ACL
	// List is acl_list_reservations.
	List ACL
	// Administer is acl_administer_reservations; it also grants submit and
	// list.
	Administer ACL
}

// AllowAllReservations returns the ACLs YARN uses when no key is set: "*"
// for all three.
func AllowAllReservations() ReservationQueueACLs {
	return ReservationQueueACLs{Submit: Everyone(), List: Everyone(), Administer: Everyone()}
}

// ReservationACLs checks reservation calls against per plan queue ACLs:
// YARN's ReservationsACLsManager with the rules of
// ClientRMService.checkReservationACLs. Its AuthorizeReservation method
// satisfies plan.Authorizer, so a host enables reservation ACLs
// (yarn.acl.enable and yarn.acl.reservation-enable both true) by setting a
// *ReservationACLs as plan.SystemConfig.Authorizer, and leaves them
// disabled (YARN's default) with a nil Authorizer.
//
// A ReservationACLs is immutable after [NewReservationACLs] and safe for
// concurrent use (the Groups it is given must be too). The zero value is
// ready to use: it has no ACLs, so it allows every call, as YARN does for
// a queue without reservation ACLs.
type ReservationACLs struct {
	queues map[string]ReservationQueueACLs
	groups Groups
}

// NewReservationACLs returns a checker for the given plan queues, keyed by
// the plan's queue name (plan.Config.Queue). A plan queue missing from
// perQueue allows every call, as YARN does for a queue without ACLs.
// groups resolves the caller's groups when an ACL names groups; nil means
// no user has groups. perQueue is copied.
func NewReservationACLs(groups Groups, perQueue map[string]ReservationQueueACLs) *ReservationACLs {
	return &ReservationACLs{queues: maps.Clone(perQueue), groups: groups}
}

// ACLs returns the ACLs of planQueue and whether it has any configured.
func (r *ReservationACLs) ACLs(planQueue string) (ReservationQueueACLs, bool) {
	a, ok := r.queues[planQueue]
	return a, ok
}

// AuthorizeReservation returns nil when user may perform op on planQueue,
// else an *Error of kind berth.ErrPermissionDenied naming the user, the
// operation, the queue and the ACL key. The rules are YARN's, in order:
//
//   - the owner of the reservation named (owner, non-empty) may do
//     anything with it;
//   - a queue without configured ACLs allows everything;
//   - the ACL of the operation (submit → acl_submit_reservations, list →
//     acl_list_reservations, update and delete →
//     acl_administer_reservations) allows the user;
//   - acl_administer_reservations allows the user.
//
// An unknown op is refused with berth.ErrInvalidArgument (fail closed).
func (r *ReservationACLs) AuthorizeReservation(user string, op string, planQueue string, owner string) error {
	var field string
	switch op {
	case ReservationOpSubmit:
		field = "acl_submit_reservations"
	case ReservationOpList:
		field = "acl_list_reservations"
	case ReservationOpUpdate, ReservationOpDelete:
		field = "acl_administer_reservations"
	default:
		return invalid(planQueue, "operation", op, "unknown reservation operation")
	}
	if owner != "" && owner == user {
		return nil
	}
	acls, ok := r.queues[planQueue]
	if !ok {
		return nil
	}
	var specific ACL
	switch op {
	case ReservationOpSubmit:
		specific = acls.Submit
	case ReservationOpList:
		specific = acls.List
	default:
		specific = acls.Administer
	}
	l := lazyGroups{src: r.groups, user: user}
	if l.allowedBy(specific) || l.allowedBy(acls.Administer) {
		return nil
	}
	return &Error{QueuePath: planQueue, Field: field, Value: user, Kind: berth.ErrPermissionDenied,
		Reason: "user " + user + " cannot perform operation " + op + " (" + reservationACLName(field) + ")"}
}

// reservationACLName returns YARN's ReservationACL enum name of a key.
func reservationACLName(field string) string {
	switch field {
	case "acl_submit_reservations":
		return "SUBMIT_RESERVATIONS"
	case "acl_list_reservations":
		return "LIST_RESERVATIONS"
	}
	return "ADMINISTER_RESERVATIONS"
}
