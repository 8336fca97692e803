package plan

import (
	"github.com/berthsched/berth"
	"github.com/berthsched/berth/rle"
)

// Agent places reservations in a plan: YARN's ReservationAgent. Package
// agent holds the implementations (greedy, aligned, …); the plan and the
// [System] only call this interface.
//
// An agent searches p for a placement of def and records it with
// [Plan.AddReservation] (create) or [Plan.UpdateReservation] (update); the
// plan runs its [SharingPolicy] on that call, so a placement computed on a
// stale view is still checked against the current plan. To try placements
// without committing, an agent may work on [Plan.Snapshot], a cheap private
// copy, and commit the winner on p.
//
// Errors: berth.ErrNoPlacement (wrapped) when no placement exists,
// berth.ErrCapacityExceeded for a policy rejection, berth.ErrInvalidArgument
// for a contract the agent cannot plan (YARN's ContractValidationException).
// YARN agents return false or throw; Berth agents return an error instead of
// false, so a failed placement is never reported as success.
type Agent interface {
	// CreateReservation places def for user under id and adds it to p.
	CreateReservation(p *Plan, id ReservationID, user string, def Definition) error
	// UpdateReservation replaces the reservation id with a placement of def.
	UpdateReservation(p *Plan, id ReservationID, user string, def Definition) error
	// DeleteReservation removes the reservation id from p.
	DeleteReservation(p *Plan, id ReservationID, user string) error
}

// SharingPolicy decides whether a plan may accept a reservation and how
// much of the plan a user may take: YARN's SharingPolicy (NoOverCommitPolicy,
// CapacityOverTimePolicy in package policy).
//
// The plan calls Validate with a read-only view: for an add, the plan
// without the new reservation; for an update, the plan with the old version
// already removed (so the old allocation is never counted twice, see
// "Differences from YARN"). The view is only valid during the call and is
// read-only (its write methods fail with [ErrReadOnlyView]); take
// view.Snapshot() for a private copy to experiment on. The plan holds its
// lock while it calls the policy, so a policy must read through the view
// only, never through the plan it belongs to.
type SharingPolicy interface {
	// Validate returns nil to accept a, or an error wrapping
	// berth.ErrCapacityExceeded (over-commit, quota) to reject it.
	Validate(view *Plan, a *Allocation) error
	// Available lowers avail, the physical availability over window
	// computed by [Plan.AvailableResources] (the old reservation oldID, if
	// any, already added back), to what user may still take; YARN's
	// availableResources. It may return avail itself when it imposes
	// nothing, and must not modify it in place.
	Available(avail *rle.Series, view *Plan, user string, oldID ReservationID, window berth.Interval) (*rle.Series, error)
	// ValidWindow is how much history the policy needs, in ms; the plan
	// archives reservations that ended before now − ValidWindow.
	ValidWindow() berth.Duration
}

// Replanner repairs a plan that no longer fits its capacity (after
// [Plan.SetCapacity] shrank it), usually by deleting reservations: YARN's
// Planner (SimpleCapacityReplanner in package policy).
type Replanner interface {
	// Plan repairs p at time now. contracts are new definitions to place
	// while replanning; YARN's only implementation rejects a non-empty list.
	Plan(p *Plan, contracts []Definition, now berth.Time) error
}
