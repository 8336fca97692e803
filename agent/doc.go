// Package agent decides where in time a reservation goes: YARN's reservation
// agents and two more.
//
// An agent reads a plan (package plan), computes a placement of every stage
// of a definition inside its window and records it with Plan.AddReservation
// or Plan.UpdateReservation, where the plan's sharing policy (package
// policy) has the last word; a failed search leaves no trace. The built-ins
// decide as YARN's planning package does, times off the plan step included,
// at 5 to 22 µs of CPU per decision on the yardstick's streams.
// [NewPortfolio] and [NewLeastWaste] reserve about a tenth more area than
// YARN's best agent on mixed requests, at about twice the greedy agent's
// time. Agents keep no state between calls and never move an accepted
// reservation: each is an online placer of one request, not an optimiser of
// the whole plan.
//
// # Usage
//
// Ready-made agents: [NewGreedy] (YARN's GreedyReservationAgent),
// [NewAlignedPlannerWithGreedy] (YARN's default, AlignedPlannerWithGreedy:
// the aligned planner, then the greedy one if it fails), [TryMany]
// (TryManyReservationAgents) and [LegacyGreedy], the step-by-step greedy
// agent of YARN 2.x (its worked example is [ExampleLegacyGreedy]). Their
// settings are typed ([Config]) with YARN's defaults and keys. Periodic definitions
// (Period > 0) are planned against the minimum availability over every
// instance of the period, as in YARN.
//
// The agents are built from parts, as in YARN:
//
//   - [IterativePlanner] places the stages one by one (first to last when
//     favouring early allocation, last to first otherwise) and honours the
//     interpreter: R_ANY (the first stage that fits), R_ALL (every stage,
//     independently), R_ORDER (each stage after the previous one) and
//     R_ORDER_NO_GAP (each stage one block touching the previous one).
//   - A [StageInterval] gives each stage its window: [Unconstrained] or
//     [ByDemand] (the window split in proportion to the stages' demand).
//     They are YARN 3's StageExecutionInterval classes, which replaced the
//     earliest-start orderings of YARN 2.8 (StageEarliestStartByJobArrival
//     and StageEarliestStartByDemand) with the same split of the window.
//   - A [StageAllocator] places one stage: [GreedyRLE] (batch after batch
//     of gangs at the earliest or latest place, walking the availability's
//     breakpoints), [Greedy] (the same with YARN's step scan, right to left)
//     or [LowCostAligned] (aligned candidate windows, the least loaded
//     first, a few gangs at a time as the smoothness factor allows).
//
// Failures are errors, never a silent false: [*NoPlacementError] (wrapping
// berth.ErrNoPlacement) when no placement exists, a *berth.FieldError
// (berth.ErrInvalidArgument) for a stage that cannot be planned, and the
// sharing policy's error (berth.ErrCapacityExceeded) when the plan refuses
// the placement.
//
// # Times off the plan step
//
// Times need not be multiples of the plan step; the low-cost aligned
// planner then decides as YARN does, in detail: its candidate windows start
// at the stage's unrounded arrival (allocating left; end at its deadline
// allocating right) and last the duration rounded up to the step; a
// window's cost sums the load share over each stretch of constant load,
// weighted by its length in steps (partial steps pro rata); equal costs
// prefer the earliest end (allocating left) or the latest. The plan's load
// that enters the cost is the one YARN's planner reads: asked over the
// window aligned inwards [⌈arrival⌉, ⌊deadline⌋), YARN's plan answers with
// its run-length entries unclipped, so before the run of equal load that
// holds ⌈arrival⌉ the load counts as zero, and after ⌊deadline⌋ the load
// at ⌊deadline⌋ holds on (clipped instead when the plan holds periodic
// reservations or for an update, as YARN's extra merge clips). The
// directory testdata holds random scenarios with YARN's decisions, which
// the tests replay (testdata/README.md).
//
// # Extending
//
// [StageAllocator] and [StageInterval] are the planner's two constructor
// arguments in YARN, and here exported interfaces: a user's type set in
// [IterativePlanner].Allocator or .Interval is a first-class citizen. Both
// read the run through a [*StageView], a read-only view of what the
// planner sees: the definition, the plan's capacity, step, calculator and
// allocation bounds, what the plan leaves the user over a window
// ([StageView.Available], with earlier stages of the same definition
// taken off, or [StageView.PlanAvailable] before them), the plan's load
// ([StageView.Load], [StageView.PlanLoads]) and what earlier stages took
// ([StageView.Taken], [StageView.Placed]). The built-ins use the same view
// and its fast paths are methods of it: [StageView.AvailableForStage]
// answers "no stretch has room" from the load steps before building a
// profile (the test that makes most rejections cheap in a saturated
// plan), [StageView.PlanLeastFree] bounds a window by one peak-load query,
// and [StageView.Gangs] counts gangs as the planner does. An allocator
// answers [Placement] blocks; the planner, not the allocator, records
// them, after checking them: a block outside the window, empty, negative,
// not a whole number of gangs, a total other than the stage's demand, or
// blocks beyond the plan's capacity together with earlier stages fail the
// placement with a [*ContractError] (errors.Is [ErrContract]) and leave
// the plan as it was. See the best-fit allocator of the examples.
//
// # Comparing agents
//
// Beyond YARN, [NewPortfolio] and [NewLeastWaste] return agents built to
// accept more of the area offered, and [Measure] is a yardstick to compare
// any agents against an upper bound.
//
// [Measure] runs any plan.Agent over a stream of requests (a list of
// [Episode]s: a plan configuration and the requests submitted to a fresh
// plan built from it) and reports a [Report]: requests accepted; the area
// (resource × time, memory and vcores) the accepted reservations hold
// ([ReservedArea]) as a fraction of the area offered ([OfferedArea]: each
// stage's capability × containers × duration rounded up to the step, R_ANY
// counting its largest stage); mean and p99 time per decision, read from a
// clock the host passes in; and the final plans' [Fragmentation]: over
// [first arrival, last deadline), 1 − R/F where F is the free memory area
// and R the largest rectangle (a time span × an amount of memory) lying in
// it, so 0 means the free area is one block and values near 1 mean it is
// scattered in slivers.
//
// [UpperBound] is the optimum of the divisible relaxation of the stream,
// per resource type: every stage becomes work of its offered area that
// may be split, interrupted and partly left undone, inside the part of
// the window it can use (the whole window under R_ALL; under R_ORDER and
// R_ORDER_NO_GAP the window less the durations of the stages before and
// after it; for R_ANY one piece as large and as fast as its largest
// stage), at a rate no higher than all its containers at once, the plan's
// capacity bounding the sum at every instant; a request with a stage that
// no plan of that capacity could hold (a gang larger than the plan, a
// window shorter than its stages) drops out. It is solved exactly as a
// maximum flow (source → stages → time segments → sink) over the segments
// between window ends, never per time step. Every valid placement is a
// schedule of the relaxation reserving the same area, so no agent, online
// or offline, reserves more. The tests check it against exhaustive search
// over every placement on tiny episodes (where it is most often exact),
// against a step-by-step flow, and against every agent on random streams.
//
// On workload W4 (WORKLOADS.md: 50 plans of 4 to 64 nodes, 100 mixed
// requests each) [LeastWaste] reserves 11.3 % more memory area and 10.1 %
// more vcore area than the best of YARN's agents, at about twice the early
// greedy agent's time per decision; the [Portfolio] 10.4 % and 9.0 % more.
// Their gain comes from R_ANY (the largest alternative first) and
// R_ORDER_NO_GAP (a chain search); LeastWaste adds the aligned planner
// first for R_ALL and, for single stages in contested windows, the
// placement that strands least. The table of every agent on both streams
// is in WORKLOADS.md; what else was tried, and why recourse (moving
// accepted reservations) was left out, is in DESIGN.md.
//
// # Durable state
//
// Agents keep no state between calls (their scratch buffers hold nothing
// an answer depends on), so a plan snapshot (plan.System.SaveState)
// records its agent by name and options through StateSpec: "Greedy",
// "AlignedPlannerWithGreedy" and "Portfolio" with their [Config],
// "LegacyGreedy" with its flag, and a [TryMany] of other agents with
// theirs. [Resolve] rebuilds these on restore; a planner of other parts,
// or a host's own agent, is supplied by the host's plan.Resolver.
//
// # Differences from YARN
//
// Fixed bugs:
//
//   - YARN's greedy allocators (StageAllocatorGreedyRLE, StageAllocatorGreedy)
//     compute the availability once per stage, so a later batch of the same
//     stage can overlap an earlier one and over-book; the policy then
//     rejects the whole request (348 times in workload W2-hot). In Berth
//     each batch sees the batches placed before it. With this and policy's
//     fix, W2 accepts all 10,000 requests and W2-hot 2,047, every W2-hot
//     rejection being "no placement found".
//   - A stage of zero duration is rejected as invalid: YARN's low-cost
//     allocator divides by zero (ArithmeticException) and its greedy
//     allocators place it as an empty block that the plan accepts as a
//     reservation holding nothing.
//   - Where the tentative allocation of a job exceeds the availability in
//     some resource type, YARN's low-cost allocator throws and abandons the
//     whole planner; Berth counts that candidate window as full.
//   - Costs and windows where YARN dereferences an undefined load (a null in
//     its merges) count the load as zero instead of crashing.
//   - Agents never report failure as success (YARN's agents return false
//     and ClientRMService answers success): every failure is an error, and
//     [TryMany] returns the last one.
//
// Conservative answers kept by default, exact ones as options:
//
//   - The right-to-left greedy scan also examines the stretch that ends
//     where its candidate window starts, and ties move the constraining
//     point furthest, so it can place a batch later than it must.
//     Config.ExactScan ignores that stretch and keeps the nearest
//     constraining point.
//   - Gangs are counted with the plan's calculator (memory only by default)
//     while the policy checks every resource type, so a placement found can
//     be refused for vcores. Config.ComponentwiseFit counts them with
//     every type.
//
// Berth-only additions: [Portfolio] and [LeastWaste] (not YARN agents, see
// above) and the yardstick ([Measure], [UpperBound], [Fragmentation]).
//
// Other deliberate differences:
//
//   - A stage allocator's answer is checked before it is recorded
//     ([ContractError]); YARN trusts its allocators, so a faulty one
//     corrupts the planner's tentative load.
//   - The greedy scans walk the availability's breakpoints instead of every
//     step, with the same result; the plan's load is read as steps
//     (Plan.AppendLoadSteps, a walk of the plan's aggregate series into a
//     recycled buffer) rather than as copied series.
//   - The greedy-RLE allocator, allocating left, skips work that cannot
//     change its answer: under the memory calculator the first candidate
//     window is settled by one range maximum of the plan's load
//     (Plan.PeakLoad), and a stage whose window holds no stretch of its
//     duration with room for one gang (nor, with exact counts, enough gang
//     time in all such stretches) is rejected from the load steps alone,
//     without building the availability or running the scan. Decisions and
//     placements are YARN's.
//   - Placements are returned in canonical form (maximal blocks of equal
//     amount), YARN's toIntervalMap without its zero gaps.
//   - [LegacyGreedy] sums stages placed on the same interval, where the 2.x
//     agent's map kept only the last.
//   - The low-cost aligned allocator computes the cost only of the
//     candidate windows that fit a gang (the others are dropped unread);
//     decisions are YARN's.
//   - The low-cost aligned allocator gives up on a stage (and the greedy
//     agent of [NewAlignedPlannerWithGreedy] takes over) beyond 2^20
//     candidate windows or 65,536 rounds, where YARN goes on.
//   - YARN's plan keeps an empty periodic series once its last periodic
//     reservation is gone, and its load reads stay clipped; Berth's then
//     read the load unclipped again (see above), which can only change
//     which equal-looking window the low-cost allocator prefers.
package agent
