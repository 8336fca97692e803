// Package follower publishes reservation plans to a queue scheduler as
// reservation queues.
//
// It is YARN's PlanFollower. At every run it gives each active reservation
// of a plan (package plan) a queue under the plan queue of a scheduler
// (package capacity or fair), entitled to the reservation's share of the
// plan queue at that time, hands the remainder to the plan's default
// reservation queue, moves (or kills) the applications of reservations
// that ended and removes their queues, and lets the plan's replanner repair
// a plan whose queue shrank below its commitments. Nothing runs in the
// background and the follower keeps no state between runs but the results
// of publications the host has not taken yet: each run compares the plan
// with the scheduler's queues, so it copes with any run frequency, with
// restarts and with plans edited in between, at the price of reading every
// active reservation and reservation queue of the plan at every run. It
// neither places nor admits reservations (packages agent and
// policy) and hands out no containers.
//
//	plan ──▶ Follower.Run(now) ──▶ Scheduler: add/remove reservation queues, set entitlements, move/kill apps
//
// # Usage
//
// The host drives it: call [Follower.Run] every plan step (YARN runs it on a
// timer with period
// yarn.resourcemanager.reservation-system.planfollower.time-step, 1 s by
// default), and publish a reservation accepted for the next step at once, as
// YARN's ClientRMService does, so that its queue exists before its
// applications arrive: set plan.SystemConfig.Publish to [Follower.Publish]
// and System.Submit does it, or call [Follower.Refresh] after accepting a
// reservation by other means. Publish keeps the [Result] and error of each
// publication, since Submit cannot return them: the next [Follower.Run]
// returns them before its own results, or [Follower.TakePublished] at once,
// so the containers a publication ended reach the host like a run's.
// [Follower.Recover] is the run YARN does after restoring plans on a
// restart.
//
// # A host's loop
//
// Each tick of its clock, a host does, in this order (Example (HostLoop)):
//
//  1. node events (AddNode, RemoveNode): the cluster plans are sized by;
//  2. [Follower.Run], once a plan step has passed: plans take their queue's
//     resources, reservations now active get queues, ended ones lose them;
//  3. reservation requests (plan.System's Submit, Update, Delete), which
//     publish a reservation arriving within a step at once (what that
//     publication ended comes with the next Run, or TakePublished);
//  4. applications (SubmitApp, naming the reservation) and their asks;
//  5. node heartbeats, which hand out containers;
//  6. preemption rounds (package preempt), the fair scheduler's Update
//     first.
//
// An application submitted to a reservation whose queue does not exist
// yet (it arrives later than one step from its acceptance, or the host
// publishes nothing) is refused with berth.ErrNotFound, as YARN refuses it
// ("not yet currently active"); YARN's clients submit once the reservation
// is active. Every call that ends containers returns them — RemoveNode, a
// run's [Result].Ended (a publication's among them), a preemption round's
// report — and the host stops them.
//
// # Schedulers and flavors
//
// The follower talks to the scheduler through the small [Scheduler]
// interface, what YARN's follower reads and does: the plan queue's
// resources, the names of its reservation queues and each one's entitlement
// and guaranteed resources, adding and removing reservation queues, setting
// entitlements, and listing, moving or killing the applications of an
// expired queue. Its methods take plain values and package queue's records
// (Entitlement, Ended), which both schedulers share, so *capacity.Scheduler
// and *fair.Scheduler both satisfy it as they are (see the Follower
// example); a scheduler lacking an operation is wired with [Funcs] and
// closures. The containers of killed applications are returned in
// [Result.Ended] for the host to stop. What differs between YARN's
// CapacitySchedulerPlanFollower and FairSchedulerPlanFollower is a [Flavor]:
//
//   - [CapacityFlavor]: reservation queues are named by the reservation id,
//     the default queue "<plan>-default"; the plan resources are the
//     cluster × the plan queue's absolute capacity, and every run sets the
//     plan's capacity to them. An entitlement is the queue's capacity and
//     maximum capacity.
//   - [FairFlavor]: reservation queues are full paths "root.<plan>.<id>",
//     the default queue "root.<plan>.<plan>-default"; the plan resources are
//     the plan queue's steady fair share, and every run sets the plan's
//     capacity to them too (YARN's leaves it alone). An entitlement is the
//     queue's weight.
//
// Both schedulers name their flavor ([FlavorReporter]): [New] takes it when
// Config.Flavor is nil and refuses the other one, as YARN's followers
// refuse a scheduler of the other kind.
//
// # One run
//
// With now rounded up to the plan step: read the plan resources and
// publish them as the plan's capacity; collect the reservations active at
// now; create the default queue if missing; if the active reservations
// hold more than the plan resources, run the replanner ([Follower.Recover]:
// shrink every reservation in proportion instead); expire the queues whose
// reservation is no longer active (entitlement 0, applications moved to
// the default queue when the plan's MoveOnExpiry is set, then kill what is
// left — the queue stays until a later run finds it empty — or remove the
// empty queue); set the default queue to 0; create missing queues and set
// each reservation's entitlement (its resources at now over the plan
// resources; maximum 1, or the capacity itself for gang reservations),
// queues that shrink before queues that grow, so the entitlements never
// sum above 100%; give the default queue the rest; archive the plan's
// completed reservations. The [Result] tells what was done.
//
// Scheduler errors do not stop a run, as in YARN: the follower goes on and
// returns them joined (each wrapping the scheduler's error, so errors.Is
// works on the kinds of package berth). A plan queue the scheduler does not
// know is an error and nothing else is done for that plan.
//
// # Durable state
//
// [Follower.SaveState] writes a snapshot of kind "follower.Follower" (body
// version 2) in Berth's durable-state format, and [RestoreFollower] reads
// it back. Since a follower keeps nothing between runs but the results of
// publications not yet taken, the body is its flavor's name ("capacity",
// "fair", or a host flavor's String) and those results (their errors as
// text); what it published (reservation queues, entitlements, the applications
// in them) lives in the scheduler and is saved with it, and the plans are
// saved with the reservation system. The host supplies the scheduler, the
// plan source and the logger at restore, and its own flavor if it used
// one; the built-in flavors come back by name.
//
// # Differences from YARN
//
// Deliberate fixes (YARN over-books, crashes or depends on hash order):
//
//   - After replanning, the run publishes the repaired plan. YARN keeps the
//     set of reservations it read before replanning, so it creates queues
//     for reservations the replanner just deleted and asks for entitlements
//     that sum above 100% (the scheduler refuses some of them).
//   - The fair flavor publishes the plan resources as the plan's capacity
//     at every run, as the capacity flavor does. YARN's
//     FairSchedulerPlanFollower never does, so a fair plan keeps the
//     capacity it was created with: after most nodes are lost it still
//     accepts reservations against the old capacity, and its replanner,
//     checking that capacity, repairs nothing, so YARN replans at every
//     plan step for as long as the plan queue's share stays below the
//     reservations. Berth replans once: the replanner deletes what the
//     smaller plan cannot hold, and the plan is no longer over-committed.
//   - When the plan is still over-committed after replanning (a host's
//     replanner, or the over-commitment lies outside the replanner's
//     window), or the plan has no replanner, the reservations are shrunk
//     in proportion as in recovery. YARN sends entitlements the scheduler
//     refuses, or fails on a missing replanner.
//   - A reservation's entitlement never exceeds what is left of the plan
//     (float rounding of the proportional shrink, a reservation larger than
//     the plan), and the default queue's is never negative; a NaN share is
//     0. YARN sends such values and the scheduler refuses them.
//   - Entitlements that shrink are applied before those that grow; among
//     each group YARN's order (by growth in resources) is kept. Whenever
//     YARN's order is safe the two orders are the same; YARN's alone can
//     raise one queue before another made room when the plan resources
//     changed or the reservations are resized, and the scheduler then
//     refuses the raise.
//   - Ties are deterministic: reservations are taken in (start, id) order
//     before YARN's stable sort by growth, expired queues in name order
//     (YARN iterates hash sets).
//   - Plan resources without vcores (a host scheduler reporting a
//     memory-only share, as YARN's fair policy computes it; package fair
//     completes its shares) still size reservations when the plan's
//     calculator divides by memory alone (berth.MemoryCalculator, the fair
//     scheduler's). YARN requires memory and vcores and gives every
//     reservation 0 there; with DRF Berth keeps that 0.
//   - [AlignUp] rounds negative times up correctly (YARN's formula maps −3
//     with step 5 to 5) and saturates near berth.MaxTime.
//   - Errors are returned (joined) as well as logged.
//
// Kept as YARN:
//
//   - The maximum capacity of a reservation queue is 100% unless the
//     reservation holds gangs ([plan.Allocation.ContainsGangs]).
//   - A queue whose applications had to be killed stays until a later run
//     finds it empty, even though Berth's schedulers kill at once.
//   - The plan's capacity is reset at every run, even below its
//     commitments (the replanner then repairs the plan).
//   - The replanner receives the run's unrounded time, as YARN's reads its
//     own clock.
//   - Completed reservations are archived at the end of the run, with the
//     sharing policy's window ([plan.Plan.ArchiveCompleted]).
package follower
