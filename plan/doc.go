// Package plan is the bookkeeping core of Berth's reservation system: it
// holds reservation definitions and ids, the plan of one reservable queue
// (YARN's InMemoryPlan) and the service facade over all plans (YARN's
// ReservationSystem with the reservation calls of ClientRMService).
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
// # The plan
//
// A [Plan] keeps every allocation by id, an interval index of the
// non-periodic ones (a treap keyed by [start, end) and augmented with the
// largest end, for those running when a window opens, and the same keys in a
// btree, for those starting inside it), an index of the periodic ones (per
// period, a treap of the arcs they cover within one period), an end-ordered
// btree, the aggregate series of all non-periodic reservations and one
// pattern per period for the periodic ones, and the same per user. Queries
// cost O(log n + answer); no operation walks all reservations or all time
// steps, except the availability of a periodic request, which visits the
// steps of the non-periodic load outside one MaxPeriodicity of its window
// (see "Differences from YARN"). Every change runs as a transaction under
// the write lock that journals the inverse of each step (typed records in a
// reused buffer, nothing allocated) and is undone step by step if any part
// fails, so an update is all-or-nothing and a rejected change leaves no
// trace. Storage is copy-on-write (rle series, btrees, treap nodes: a node
// belongs to one state and is changed in place by it, and a snapshot hands
// both sides fresh owners so the nodes they share are copied on the next
// write), so [Plan.Snapshot] gives agents a cheap private copy to plan on
// speculatively, and between snapshots a change allocates only the nodes it
// adds. A Plan is safe for concurrent use.
//
// With 10,000 reservations (bench_test.go, thread CPU time on a loaded
// 2-core machine) an add costs about 3 µs and 4 allocations, an update about
// 5 µs, listing the 120 reservations of one hour about 2.5 µs and the load
// steps of one hour about 7 µs. Callers that need the load of a window
// should read it with [Plan.AppendLoadSteps] (a walk of the aggregate
// series, no allocation with a reused buffer) rather than sum the
// reservations [Plan.Reservations] lists: over eight hours of that plan it
// is about 26 µs against 360 µs. [Plan.PeakLoad] answers the largest load
// of a window from the series' block bounds, and [Plan.LoadIntegral] a
// user's integral over a window in O(log n) from a tree of the load's
// changes with prefix sums, whatever the window's length.
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
// same for one plan ("plan.Plan"). Body version 2 holds only primary data
// (version 1, still read, lacks the allocations' stages):
//
//	system       cluster timestamp, id sequence, the plans in queue order,
//	             then every reservation id its plans hold with its queue,
//	             in id order
//	plan         queue, configured capacity, step, max periodicity, minimum
//	             and maximum allocation, move-on-expiry, exact periodic
//	             minimum; the calculator's name and the agent's, policy's
//	             and replanner's specs ([ComponentSpec]); the current
//	             capacity; the allocations in id order
//	allocation   id, user, start, end, acceptance time, gang flag, the
//	             active span booked for its user (when any), the definition
//	             (arrival, deadline, name, priority, period, interpreter
//	             as YARN's code, stages), the intervals as stored and the
//	             stage each part serves ([Allocation].Stages)
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
// With 10,000 reservations (bench_test's plan, durable_bench_test.go, on
// a loaded 2-core machine) the snapshot is 1.4 MB; a save takes about 5 ms
// and allocates 1.4% of the state's 14.5 MB heap, a restore about 50 ms of
// CPU (70–105 ms wall) and allocates 1.16× the state, the restored state
// (1.01× the original's heap) included.
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
//     compareTo compares the sequence with itself (§18 item 9).
//   - An update is validated once, against the plan with the old version
//     removed, so the old allocation is never counted twice; YARN first
//     validates with the old version present and CapacityOverTimePolicy
//     adds it to the user's consumption instead of subtracting it (§18
//     item 1, vector POL-X1). [Plan.AvailableResources] adds the old
//     version back correctly for agents planning an update.
//   - A failed update restores the old reservation exactly, acceptance time
//     included; YARN re-adds it with a new acceptance time (and skips the
//     rollback on a non-planning exception).
//   - [System.Submit] fails when the agent fails; YARN answers success when
//     its agent returns false (§18 item 10). Agents return errors, not
//     booleans.
//   - Empty intervals (start == end) in an allocation are dropped; YARN
//     records a stray zero breakpoint that makes an otherwise empty
//     allocation non-empty (§18 item 18). Inverted intervals, negative
//     resources and non-periodic intervals outside [Start, End) are
//     rejected.
//   - A periodic allocation's intervals are folded onto [0, period) by
//     their phase, wrapped pieces included; YARN silently drops intervals
//     outside [0, period] and loses wrapped parts (§18 item 6). An all-zero
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
//     delete: ids archived by the plan follower or removed by the
//     replanner stay in it, and it grows with every reservation ever
//     submitted. A Berth plan tells its [System] what it removed, whoever
//     removed it, and the system forgets those ids at its next call: an id
//     its plan no longer holds has no queue ([System.QueueOf]), deleting it
//     again fails in validation (berth.ErrNotFound) rather than in the plan
//     (§18 item 17), and it may be submitted again to any queue. A
//     submission reusing an id another queue holds, or another queue's
//     submission is still placing, is berth.ErrConflict: the system checks
//     a claim against what the plan holds (a ledger the plan keeps under a
//     lock of its own, so the check never waits on a change in progress),
//     so an id is never placed in two plans, even when a plan removes it
//     while a submission of it is under way.
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
//     YARN's LowCostAligned agent divides by a zero duration (§18 item 13).
//
// Durable state differs from YARN's RMStateStore by design:
//
//   - The system is saved as one checksummed snapshot, not one record per
//     reservation written at each change; a host that journals its calls
//     replays them from the snapshot (issue 11).
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
//     calculator over the instances, choosing a whole operand (§18 item 8);
//     Config.ExactPeriodicMin takes the componentwise minimum instead.
//   - [Plan.EarliestStart] and [Plan.LastEnd] ignore periodic reservations
//     (§18 item 16).
//   - [Filter].Window is closed at its end: a reservation starting exactly
//     at the window end is listed, as YARN does.
//   - Reservation ACLs are decided by a host-supplied [Authorizer]
//     (queue.ReservationACLs for YARN's); the host, not the plan, reads
//     yarn.acl.enable and yarn.acl.reservation-enable and leaves the
//     Authorizer nil when either is false.
package plan
