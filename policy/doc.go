// Package policy admits or rejects reservations in a plan and repairs a plan
// that lost capacity.
//
// These are YARN's NoOverCommitPolicy, CapacityOverTimePolicy and
// SimpleCapacityReplanner. Their checks walk the breakpoints of resource
// series, never every step of a window, so their cost follows the number of
// allocations involved, not the window's length. By default they keep YARN's
// conservative answers (an average check that can reject a reservation
// within the average; capacity checked in every resource type while agents
// count gangs by memory); the exact checks are options. A policy decides
// admission only: where a reservation goes is an agent's choice (package
// agent), and a policy keeps no state of its own.
//
//   - [NoOverCommit]: the plan may never hold more than its capacity, in any
//     resource type, at any time.
//   - [CapacityOverTime] (YARN's default): NoOverCommit, plus per-user
//     limits: at any instant a user holds at most InstantaneousMaxPercent of
//     the plan, and over any window of Window ms at most AveragePercent on
//     average.
//   - [SimpleCapacityReplanner]: deletes the most recently accepted
//     reservations where the plan is over-committed, over the enforcement
//     window ahead of now.
//
// # Usage
//
// A plan (package plan) calls its [plan.SharingPolicy] on every add and
// update, after an agent has chosen where the reservation goes; the
// policy's Available method also lowers what agents see as available, so
// that they search only among placements the policy can accept.
// Configuration is typed ([CapacityOverTimeConfig], [ReplannerConfig]) with
// YARN's defaults; each field names its YARN key. Rejections are
// [*RejectionError] values wrapping berth.ErrCapacityExceeded and
// [ErrQuotaExceeded] or [ErrOverCommitted], as YARN throws
// PlanningQuotaException or ResourceOverCommitException.
//
// # Durable state
//
// The policies and the replanner keep no state of their own: the history
// CapacityOverTime checks is the plan's accepted reservations, which the
// plan's snapshot holds (plan.System.SaveState), and their scratch
// buffers hold nothing an answer depends on. A plan snapshot records each
// by name and configuration (StateSpec, a plan.ComponentSpec); [Resolve]
// and [ResolveReplanner] rebuild them from that record on restore, and a
// restore refuses a component whose record differs from the saved one.
//
// # Differences from YARN
//
// Fixed bugs (Berth answers differently, and correctly):
//
//   - The average check of CapacityOverTime integrates the user's
//     consumption up to the end-of-time sentinel (Long.MAX_VALUE) and
//     overflows whenever the user still holds resources at the end of the
//     checked range, rejecting falsely (all 2,586 rejections of YARN in
//     workload W2). Berth stops the walk at the last breakpoint of the
//     checked range, and computes the integrals in 128 bits.
//   - An update counted the old version of the reservation twice in the
//     average check (it adds the old allocation to the user's consumption
//     where it should subtract it). The plan validates an update against
//     itself without the old version, so nothing is counted twice (an
//     identical update of a 12 h reservation at 25 % is accepted).
//   - YARN orders reservations for the replanner by acceptance time, then
//     sequence number, and its ReservationId.compareTo compares the sequence
//     number with itself, so distinct reservations can compare equal and one
//     of them is skipped; Berth breaks the last ties on the cluster
//     timestamp.
//   - YARN's replanner throws a RuntimeException for new contracts; Berth
//     returns berth.ErrInvalidArgument. Its user-facing counterpart
//     (ClientRMService reporting a failed submission as success) cannot
//     happen: the plan and the agents report every failure as an error.
//
// Conservative answers kept by default, exact ones as options:
//
//   - The average check samples the running integral at breakpoints and
//     every window inside long stretches, and compares the integral between
//     the last samples at or before x and x − window; that spans up to two
//     windows, so a reservation that respects the average can be rejected
//     (one holding exactly 25 % for 25 h, for instance). Set
//     CapacityOverTimeConfig.ExactAverage for the exact check over every
//     window. It compares the true integral of memory and of vcores over
//     every window with AveragePercent of the capacity in that type,
//     unrounded; YARN's check truncates that limit to whole units and
//     rounds each sampled average to a whole unit, which lets averages pass
//     the limit by up to one unit (with 6 vcores at 25 %, YARN's limit is
//     1 vcore and it admits averages up to almost 2; the exact check
//     admits up to 1.5), and its samples can miss the worst window. The
//     exact check rejects only what passes the limit; YARN may accept some
//     of that.
//   - Capacity is checked componentwise (every resource type), as in YARN,
//     while agents may count gangs with the plan's calculator (memory only by
//     default), so an agent's placement can still be rejected here for
//     vcores; see agent.Config.ComponentwiseFit.
//
// Other deliberate differences:
//
//   - The average check works on memory and vcores, as YARN's does, but
//     without YARN's truncation of the normalised integral to a 32-bit int.
//   - Like YARN, every rejection of CapacityOverTime is a quota error, even
//     a physical over-commit; [RejectionError.Check] tells which limit was
//     passed (capacity, instantaneous or average), which YARN does not.
//   - A plan that is over-committed anywhere in the reservation's window
//     rejects it, as YARN's availability computation throws there.
//   - The replanner visits only the first step at or after each time where
//     the plan can change, instead of every step of the window; the
//     deletions are the same.
//   - A periodic reservation whose checked range spans more than 2^20 of
//     its periods is rejected with an error (the plan's unrolling limit);
//     YARN unrolls them all.
//   - The checks read the plan's load as steps (Plan.AppendLoadSteps, a
//     walk of the plan's aggregate series), not as copied series; the
//     capacity check reads it only over the allocation's own span once
//     Plan.PeakLoad rules out an over-committed plan in the window; and the
//     average check first tries a quick sufficient bound built on the
//     user's integral over the checked range (Plan.LoadIntegral, O(log n)).
//     The results are the same.
package policy
