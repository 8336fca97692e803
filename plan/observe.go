package plan

import (
	"fmt"

	"github.com/berthsched/berth"
)

// Observer receives a plan's decisions about reservations as they are
// made: accepted, rejected, updated, deleted, expired. A host sets one per
// plan with [Plan.SetObserver], or on every plan of a system at once with
// [System.SetObserver].
//
// The plan calls it synchronously, in decision order, with the plan's
// write lock held: an observer must return quickly and must not call any
// method of the plan (that would deadlock) nor of the [System] that
// submitted to it; it may record, count, or enqueue the event. Events are
// values: an observer may keep them, and the *Allocation they carry, which
// the plan never changes once stored.
//
// Embed [NopObserver] to implement only what you need; methods added to
// Observer later then need no change in hosts.
type Observer interface {
	// ObserveReservation reports one reservation decision.
	ObserveReservation(ReservationEvent)
}

// NopObserver implements [Observer] and ignores every event.
type NopObserver struct{}

// ObserveReservation does nothing.
func (NopObserver) ObserveReservation(ReservationEvent) {}

var _ Observer = NopObserver{}

// ReservationEventKind says what happened to a reservation.
type ReservationEventKind uint8

const (
	// ReservationAccepted: the reservation entered the plan (an agent's
	// [Plan.AddReservation] for a submission, or [Plan.RecoverReservation]).
	ReservationAccepted ReservationEventKind = iota + 1
	// ReservationRejected: [System.Submit] refused a submission to this
	// plan (its agent found no placement, the sharing policy refused it,
	// the caller may not submit, the id is taken); Err is the error Submit
	// returned. The plan is unchanged.
	ReservationRejected
	// ReservationUpdated: the reservation was replaced by a new version
	// ([Plan.UpdateReservation]); Allocation is the new one.
	ReservationUpdated
	// ReservationUpdateRejected: [System.Update] refused to change the
	// reservation; the old version stays. Err is Update's error.
	ReservationUpdateRejected
	// ReservationDeleted: the reservation was removed before it ended
	// ([Plan.DeleteReservation]: a delete request, or a replanner making
	// room after the plan's capacity shrank).
	ReservationDeleted
	// ReservationExpired: the reservation ended and was archived
	// ([Plan.ArchiveCompleted]).
	ReservationExpired
)

// String names the kind.
func (k ReservationEventKind) String() string {
	switch k {
	case ReservationAccepted:
		return "accepted"
	case ReservationRejected:
		return "rejected"
	case ReservationUpdated:
		return "updated"
	case ReservationUpdateRejected:
		return "update-rejected"
	case ReservationDeleted:
		return "deleted"
	case ReservationExpired:
		return "expired"
	}
	return fmt.Sprintf("ReservationEventKind(%d)", uint8(k))
}

// ReservationEvent is one decision about one reservation.
type ReservationEvent struct {
	Kind ReservationEventKind
	// Plan is the plan's queue; ID the reservation; User who asked for it
	// (the request's user for rejections).
	Plan string
	ID   ReservationID
	User string
	// Allocation is the plan's stored allocation: the one added or the
	// new version (accepted, updated), or the one removed (deleted,
	// expired); nil for rejections. Read-only.
	Allocation *Allocation
	// Err is why a submission or update was rejected.
	Err error
	// Time of the event, from the plan's clock.
	Time berth.Time
}

// SetObserver makes o receive the plan's decisions from now on; nil
// (untyped) removes it. Snapshots and policy views of the plan have no
// observer: an agent planning speculatively reports nothing.
func (p *Plan) SetObserver(o Observer) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.observer = o
}

// SetObserver sets o (nil: none) on every plan of the system and on every
// plan added to it later by [System.AddPlan] or [System.Reinitialize],
// replacing what [Plan.SetObserver] set on them, so a host observes all
// reservations with one call. The rules of [Observer] apply; the plans'
// own locks, not the system's, are held during the calls.
func (s *System) SetObserver(o Observer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.observer = o
	for _, p := range s.plans {
		p.SetObserver(o)
	}
}

// emit reports a change made under the write lock; callers test p.obs.
func (p *Plan) emit(k ReservationEventKind, a *Allocation) {
	p.observer.ObserveReservation(ReservationEvent{Kind: k, Plan: p.cfg.Queue, ID: a.ID, User: a.User, Allocation: a, Time: p.cfg.Clock.Now()})
}

// rejected reports a refused request (the System's): it takes the write
// lock itself, so that observers always run under it.
func (p *Plan) rejected(k ReservationEventKind, id ReservationID, user string, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.observer != nil {
		p.observer.ObserveReservation(ReservationEvent{Kind: k, Plan: p.cfg.Queue, ID: id, User: user, Err: err, Time: p.cfg.Clock.Now()})
	}
}
