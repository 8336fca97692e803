// Package preempt frees room for starved queues: YARN's capacity and fair-scheduler preemption.
//
// [Proportional] is YARN's ProportionalCapacityPreemptionPolicy for package
// capacity and [FairPreemptor] is YARN 3.x's fair-scheduler preemption
// (FSPreemptionThread) for package fair; both decide as YARN does on the
// same state, in an order that does not depend on hash maps. A round reads
// the scheduler's aggregate state once and then only the containers of the
// applications and nodes it searches: on 1,000 leaf queues, 10,000 nodes
// and 100,000 containers a proportional round takes about 5 ms of CPU and a
// fair round serving 200 starved applications about 10 ms. The price is
// that nothing runs by itself: the host calls each round with its own
// clock's time, must not change the scheduler during it, and stops the
// killed containers itself; a policy is not safe for concurrent use. It is
// not a general eviction framework (it preempts only to restore the
// guarantees and shares its scheduler computes) and it does not model
// YARN's lazy preemption.
//
// # Usage
//
//   - Capacity: [ParseProportionalXML] reads [ProportionalConfig] from
//     capacity-scheduler.xml (every key of YARN's policy with its default,
//     and the per-queue disable_preemption switches); [NewProportional]
//     builds the policy from a [ProportionalSetup] (the scheduler's two
//     sides, the settings, optionally a selector chain and a logger).
//     [Proportional.Round] marks, kills and cancels reservations and
//     returns a [ProportionalReport] (per queue and partition its ideal
//     assignment and what it must give, per container the [Decision]);
//     [Proportional.Evaluate] computes a round without acting.
//   - Fair: [ParseFairConfig] reads the yarn-site keys into [FairConfig],
//     whose [FairConfig.ApplyTo] turns on the scheduler's starvation
//     tracking; [NewFairPreemptor] builds a preemptor from a
//     [FairPreemptorSetup] (the scheduler's two sides, the settings, a
//     [FairVictimSelector], YARN's by default); [FairPreemptor.Round] marks
//     victims, earmarks their room for the starved application on that
//     node and kills them after waitTimeBeforeKill, returning a
//     [FairRound]. The per-queue timeouts and thresholds live in the
//     allocation file package fair parses.
//   - Both save and restore their marks and waits ([Proportional.SaveState]
//     and [RestoreProportional], [FairPreemptor.SaveState] and
//     [RestoreFairPreemptor]) and report each action to an [Observer].
//
// # Reading apart from acting
//
// Each scheduler is seen through two interfaces: a read side
// ([CapacityState], [FairState]) and an act side ([CapacityActor],
// [FairActor]); *capacity.Scheduler and *fair.Scheduler have both
// ([CapacityScheduler], [FairScheduler]). A proportional round is
// [Proportional.Decide], a [ProportionalPlan] computed from the read side
// alone (the selectors hold no actor), then [Proportional.Apply], which
// marks, kills and cancels through the act side: a host may inspect the
// plan and veto candidates in between. A fair round decides its new
// victims from the read side before it marks any, but it kills the due
// marks of earlier rounds first, which changes what it decides: it offers
// no plan to inspect.
//
// # The host's role
//
// The host calls Round every monitoring interval (3 s by default for the
// proportional policy) after heartbeats, from one goroutine, stops the
// containers a round killed ([ProportionalReport].Ended, [FairRound].Ended)
// and tells applications about marked ones if it models AMs. Nothing here
// reads the wall clock, starts a goroutine or keeps global state.
//
// # Extending
//
// A [Selector] chooses containers through the exported methods of
// [ProportionalRound] exactly as the built-ins do;
// [ProportionalSetup].Selectors installs a chain of the host's. A
// [FairVictimSelector] replaces YARN's victim search, and its answers are
// checked. Any type with the methods of the read and act sides can be
// preempted, and the two sides may be different values (a recording or
// dry-run actor over the real state).
//
// # Differences from YARN
//
// Proportional policy:
//
//   - Marks survive a restart ([Proportional.SaveState]); YARN's live in
//     memory, so a failover restarts every kill wait.
//   - The intra-queue selector balances the default partition only; YARN's
//     balances every partition.
//   - A leaf's borrowed containers are walked in one order for every
//     partition it gives back; YARN goes partition by partition in hash
//     order.
//   - No lazy preemption: a kill frees the container at once
//     (lazy-preemption-enabled is not read) and no queue holds killable
//     resource.
//   - Containers chosen earlier in a round come off what a leaf must give
//     in the order chosen; YARN's hash order leaves another remainder when
//     sizes differ.
//   - Ties in the ideal-assignment fix-point break on child order and leaves
//     are walked depth first; YARN's follow hash-set order.
//   - Fixed: the FIFO selector cancels only the reservations it counts;
//     YARN cancels every one it walks, even unselected.
//   - A mark whose container ended is forgotten at the next round (YARN:
//     after twice the wait); ForgetUnselected, no YARN key, forgets a mark
//     as soon as a round does not renew it.
//   - Fixed: deadlines compare without overflow; YARN's firstSeen +
//     2 × max_wait_before_kill wraps for a huge wait and forgets every mark.
//   - The queue-priority selector cannot move a reservation to another node:
//     allow-move-reservation is read, but only the reserving node is freed.
//   - The intra-queue selector takes from each application up to its own
//     amount, not the leaf's total, and reads user limits through
//     [CapacityState.UserLimit].
//   - A leaf's AM share is its guarantee times maximum-am-resource-percent
//     (YARN: its effective capacity on the partition).
//
// Fair-scheduler preemption:
//
//   - Fixed: a node whose free, unreserved room already fits the request
//     yields no victim; YARN preempts one container there for nothing.
//   - Asks of zero capability drive no preemption (YARN's memory ratio
//     becomes infinite and kills for nothing).
//   - Negative durations are refused by the parser; YARN's timer throws and
//     its preemption thread silently stops.
//   - The back-off sum saturates; YARN's wraps into the past and preempts
//     for the application on every update.
//   - A marked container is killed after the wait only if its beneficiary
//     still has pending demand, else unmarked; FairConfig.KillUnneeded
//     (berth.preempt.fair.kill-unneeded) kills unconditionally, as YARN.
//   - Orders are deterministic (nodes by id, containers newest first, host
//     then rack then ANY, applications least starved first); YARN's follow
//     hash maps and a partial-order comparator.
//   - One round serves every starved application out of back-off; YARN's
//     thread takes them one at a time as its update queues them.
//   - The utilization threshold also gates the round (kills of earlier marks
//     still happen); YARN gates only the starvation update.
//   - A node's potential counts only this preemptor's earmarks; containers
//     marked by others are excluded as candidates but not counted.
//   - Marks, waits and back-off survive a restart
//     ([FairPreemptor.SaveState]); YARN's are in memory, so a failover
//     starts over from the new ResourceManager's starvation.
package preempt
