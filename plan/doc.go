// Package plan keeps reservations: their definitions, one plan per
// reservable queue, the service.
//
// A [Plan] is YARN's InMemoryPlan and a [System] is its ReservationSystem
// with the reservation calls of ClientRMService. Queries cost
// O(log n + answer), a change is all-or-nothing (journaled, and undone step
// by step if any part fails), a Plan is safe for concurrent use and
// [Plan.Snapshot] is a cheap copy-on-write copy for agents to plan on. The
// price is memory: each allocation is indexed several ways (by interval,
// by end, by user, as load series), and the indexes are rebuilt on
// restore. A plan neither chooses placements (package agent) nor admits
// them (package policy), and runs nothing by itself: a plan follower
// (package follower) publishes it to a scheduler.
//
// # Usage
//
// A user asks for resources in advance with a [Definition] (stages of
// containers between an arrival and a deadline). The [System] validates the
// request, then hands it to the [Agent] of the target [Plan] (package
// agent), which searches the plan for a placement and records it as an
// [Allocation] with [Plan.AddReservation]. The plan asks its
// [SharingPolicy] (package policy) to admit it, stamps the acceptance time
// from its berth.Clock and books it into run-length-encoded resource
// series (package rle). The plan follower then reads the plan to publish
// reservation queues to a scheduler: at every plan step, and at once for a
// reservation that arrives within one when [SystemConfig].Publish is set.
// An allocation records which stage of its definition each part serves
// ([Allocation].Stages, [Allocation.StagesAt]), so that a host runs the
// right stage of a pipeline at each time.
//
//	System ── validate ── authorize ──▶ Agent ── AddReservation ──▶ Plan ── Validate ──▶ SharingPolicy
//
// # Reservation ACLs
//
// With [SystemConfig].Authorizer set, the System checks every Submit,
// Update, Delete and List with the caller (the request's User) after
// validation and before the agent, where YARN's ClientRMService calls
// checkReservationACLs (for Submit after the idempotence check, so
// resubmitting an accepted reservation needs no permission). A refusal is
// an error of kind berth.ErrPermissionDenied naming the user, the operation
// and the queue, and changes nothing. A nil Authorizer performs no checks,
// YARN's default (yarn.acl.reservation-enable=false). The [Authorizer]
// receives the owner of the reservation named, so it can let owners update,
// delete and list their own reservations as YARN does;
// queue.ReservationACLs implements YARN's rules and ACL syntax
// (acl_submit_reservations, acl_list_reservations,
// acl_administer_reservations, administer granting everything, a queue
// without ACLs allowing everything). [ReservationOp] is an alias of string
// so that package queue satisfies Authorizer without importing plan. As in
// YARN, an update is made in the caller's name: an administrator who
// updates someone's reservation becomes its owner.
//
// # REST payloads
//
// The request and response types ([NewReservationResponse],
// [SubmissionRequest], [UpdateRequest], [DeleteRequest], [ListRequest],
// [ListResponse], [ReservationInfo], [ResourceAllocationInfo] and
// [Definition]) encode and decode the JSON bodies of YARN's reservation
// REST calls. They decode both what YARN's documentation shows and what a
// ResourceManager actually sends: its JSON writer prints numbers and
// booleans as strings and a list of one element as the element alone
// ("reservations": {…}, "reservation-request": {…}). They encode the
// documented form: plain numbers and booleans, arrays.
//
// # Reading the load
//
// Callers that need the load of a window should read it with
// [Plan.AppendLoadSteps] (a walk of the aggregate series, no allocation with
// a reused buffer) rather than sum the reservations [Plan.Reservations]
// lists: over eight hours of a plan of 10,000 reservations it is about
// 26 µs against 360 µs. [Plan.PeakLoad] answers the largest load of a
// window from the series' block bounds, and [Plan.LoadIntegral] a user's
// integral over a window in O(log n), whatever the window's length. How
// the plan is indexed, and its costs, are in DESIGN.md.
//
// # Observing decisions
//
// [Plan.SetObserver] makes a host's [Observer] see every decision about
// the plan's reservations as a [ReservationEvent]: accepted, updated,
// deleted (a request, or the replanner), expired (archived), and — from
// [System.Submit] and [System.Update] — rejected, with the error the
// caller got. The observer is called synchronously, in decision order,
// with the plan's write lock held: it must not call the plan (nor the
// System on its behalf) and should only record, count or enqueue. Events
// are values and carry the plan's stored, immutable *Allocation. Snapshots
// and policy views have no observer, so an agent's speculative planning
// reports nothing. Without an observer a change costs one nil check.
//
// # Durable state
//
// [System.SaveState] writes the whole reservation system as one snapshot
// of kind "plan.System" in Berth's durable-state format (package berth:
// versioned header, streamed body, length and CRC-32C trailer), and
// [RestoreSystem] reads it back; [Plan.SaveState] and [RestorePlan] do the
// same for one plan ("plan.Plan"). The body holds only primary data (the
// reservations and the plans' settings; version 1, still read, lacks the
// allocations' stages); its layout is in DESIGN.md.
//
// Every index and aggregate (the interval treaps and their ordered twins,
// the periodic arcs, the end order, the load series and periodic patterns,
// each user's load, active count and integral tree) is rebuilt on restore
// by the transaction code that built it the first time, so it cannot drift
// from the allocations; the treaps' shapes depend only on their keys, so
// the restored plan is the original to the last node. The active span is
// restored as stamped, not recomputed: it was computed against the
// capacity of its acceptance. Nothing else needs saving: the sharing
// policies, the replanner and the agents keep no state of their own (a
// policy's history is the plan's reservations).
//
// The agent, policy, replanner, calculator and clock are Go values. A
// snapshot records the calculator by name ("memory", "dominant") and the
// others by [ComponentSpec], which built-ins fill through [Specified]
// (packages agent and policy; their Resolve functions rebuild them). On
// restore the host's [Resolver] supplies them from the saved [PlanSpec];
// a component the plan had must be supplied, and one that reports a
// different spec is refused, so a restored plan cannot silently decide
// differently. A restore builds everything on the side and returns it
// only after the trailer verified; a truncated, corrupted or inconsistent
// snapshot (an allocation the plan would refuse, ids out of order, a
// reservation mapped to an unknown queue) is a *berth.StateError wrapping
// berth.ErrCorruptState and nothing is returned.
//
// # Differences from YARN
//
// Deliberate fixes (YARN is wrong there):
//
//   - A definition that names no interpreter is R_ALL, the default of
//     YARN's ReservationRequestsProto: [Interpreter]'s zero value is RAll
//     and an absent REST field decodes to it. YARN's REST layer reads an
//     absent field as 0, R_ANY, which reserves one stage of a pipeline,
//     and its record layer as null (validated as an ordered request,
//     planned as R_ALL). A value outside the enum (Go, a snapshot, or a
//     REST code such as −1 or 9, on which YARN's REST layer fails with an
//     index error) is berth.ErrInvalidArgument everywhere: validation,
//     agents, [NewAllocation], JSON.
//   - An allocation says which stage each part of it serves
//     ([Allocation].Stages, filled by Berth's agents, checked to add up to
//     its intervals); YARN's allocation is one map from interval to
//     resource, so a host cannot tell a pipeline's stages apart.
//   - A deadline not after the arrival is berth.ErrInvalidArgument under
//     every interpreter; YARN refuses it only through the minimum
//     duration, which it skips for R_ANY (whose agent then answers that no
//     placement exists).
//   - [System.Submit] and [System.Update] place a definition that does not
//     repeat from its arrival or from now, whichever is later
//     ([Definition.PlacedArrival]), and store that arrival: nothing is
//     reserved in the past. YARN places from the arrival as given, so an
//     early-placing agent books a past arrival (down to math.MinInt64)
//     where nobody can use it. A resubmission is the same request when the
//     definitions are equal once both arrivals are taken as placed at
//     acceptance.
//   - [ReservationID.Compare] orders by timestamp then sequence; YARN's
//     compareTo compares the sequence with itself.
//   - An update is validated once, against the plan with the old version
//     removed, so the old allocation is never counted twice; YARN first
//     validates with the old version present and CapacityOverTimePolicy adds
//     it to the user's consumption instead of subtracting it.
//     [Plan.AvailableResources] adds the old version back correctly for
//     agents planning an update.
//   - A failed update restores the old reservation exactly, acceptance time
//     included; YARN re-adds it with a new acceptance time (and skips the
//     rollback on a non-planning exception).
//   - [System.Submit] fails when the agent fails; YARN answers success when
//     its agent returns false. Agents return errors, not
//     booleans.
//   - Empty intervals (start == end) in an allocation are dropped; YARN
//     records a stray zero breakpoint that makes an otherwise empty
//     allocation non-empty. Inverted intervals, negative
//     resources and non-periodic intervals outside [Start, End) are
//     rejected.
//   - A periodic allocation's intervals are folded onto [0, period) by
//     their phase, wrapped pieces included; YARN silently drops intervals
//     outside [0, period] and loses wrapped parts. An all-zero
//     allocation books no active-reservation count; YARN books the inverted
//     interval [MAX, MIN).
//   - Availability for a periodic request ([Plan.AvailableResources] with
//     a period) also covers the occurrences that meet non-periodic
//     reservations before the window or more than MaxPeriodicity after it.
//     YARN checks only the instances inside one MaxPeriodicity from the
//     window, while the plan books periodic reservations at every time, so
//     YARN can over-commit a plan there. An occurrence further away than
//     int64 can offset is refused (berth.ErrInvalidArgument), never
//     skipped.
//   - A periodic reservation spanning a whole period (End − Start ≥
//     period) meets every search window of [Plan.Reservations]; YARN's
//     test takes that span modulo the period, gets 0, and lists the
//     reservation only for windows that wrap over its start, so the plan
//     follower would miss it most of the time. YARN's test is otherwise
//     kept exactly, computed without int64 overflow.
//   - [Allocation.Compare] breaks ties on the whole id, so distinct
//     reservations never compare equal (YARN's TreeSet collapses them).
//   - YARN's map from reservation id to queue is emptied only by its own
//     delete: ids archived by the plan follower or removed by the replanner
//     stay in it, and it grows with every reservation ever submitted. A
//     Berth plan tells its [System] what it removed, whoever removed it, and
//     the system forgets those ids at its next call: an id its plan no
//     longer holds has no queue ([System.QueueOf]), deleting it again fails
//     in validation (berth.ErrNotFound) rather than in the plan, and it may
//     be submitted again to any queue. A submission reusing an id another
//     queue holds, or another queue's submission is still placing, is
//     berth.ErrConflict: the system checks a claim against what the plan
//     holds (a ledger the plan keeps under a lock of its own, so the check
//     never waits on a change in progress), so an id is never placed in two
//     plans, even when a plan removes it while a submission of it is under
//     way.
//   - The span an allocation adds to its user's active-reservation count
//     is computed once, at acceptance, and removed as booked; YARN
//     recomputes it on removal against the capacity of that moment.
//   - [Plan.EarliestStart] is the first time anything is held; YARN
//     returns the first breakpoint of its series, which may hold zero
//     after removals.
//   - Arithmetic in the validator saturates instead of overflowing; an
//     over-long unroll of a periodic allocation is an error instead of an
//     endless loop.
//   - The stage checks YARN leaves to its planners (gang size ≥ 1,
//     containers > 0 and a multiple of the gang, positive duration) are
//     available in the validator as [Limits].StrictStages, off by default:
//     YARN's LowCostAligned agent divides by a zero duration.
//
// Durable state differs from YARN's RMStateStore by design:
//
//   - The system is saved as one checksummed snapshot, not one record per
//     reservation written at each change; a host that journals its calls
//     replays them from the snapshot (examples/durable does).
//   - A restored system keeps its cluster timestamp and continues its id
//     sequence, so a replay issues the same ids; YARN's counter starts
//     again under the new ResourceManager's start time.
//   - Acceptance times and active spans come back as stamped; YARN's
//     recovery re-adds each reservation and recomputes its span against
//     the capacity of the moment.
//   - A snapshot also holds the plans' configuration scalars and capacity
//     and records the plans' components, which a restore checks; YARN
//     rebuilds plans from the configuration of the new ResourceManager.
//
// Kept as YARN (conservative or merely odd), documented:
//
//   - Availability for a periodic request is the minimum under the
//     calculator over the instances, choosing a whole operand;
//     Config.ExactPeriodicMin takes the componentwise minimum instead.
//   - [Plan.EarliestStart] and [Plan.LastEnd] ignore periodic reservations.
//   - [Filter].Window is closed at its end: a reservation starting exactly
//     at the window end is listed, as YARN does.
//   - Reservation ACLs are decided by a host-supplied [Authorizer]
//     (queue.ReservationACLs for YARN's); the host, not the plan, reads
//     yarn.acl.enable and yarn.acl.reservation-enable and leaves the
//     Authorizer nil when either is false.
package plan
