// Package queue keeps the queue tree and its accounting for Berth's capacity and fair schedulers.
//
// A [Tree] is the hierarchy of YARN 3.3's queues (paths, capacities, states,
// ACLs, plan and reservation queues, dynamic queues) with the accounting of
// used, pending and reserved resources and of applications per queue and per
// user. A charge to a leaf reaches every ancestor in O(depth) and is
// all-or-nothing, and [Tree.Reconfigure] swaps in a new configuration
// atomically. The tree is generic over the scheduler's per-queue payload
// (Tree[T], Queue[T]), so its settings and state are typed fields: no type
// assertion on a hot path and no side table keyed by path to keep in step
// with reconfiguration, at the price of a type parameter in every
// signature. It holds no policy (ordering, user limits, fair shares and
// preemption live in packages capacity, fair and preempt), is not safe for
// concurrent use (its scheduler's lock guards it), and accounts for the
// default partition only (package capacity keeps its node labels'
// partitions itself).
//
// # Usage
//
//   - A scheduler parses its file at the edge into a [Config] tree, builds a
//     [Tree] with [New] from a [TreeConfig], charges leaves ([Queue.Update],
//     [Queue.Allocate], [Queue.SubmitApp], [Move]; a [UserRef] saves the
//     user lookup per level), checks [Queue.CanSubmit] and calls
//     [Tree.Reconfigure] on a refresh; reports and preemption read a
//     [Snapshot].
//   - A plan follower adds, sizes and removes reservation queues
//     ([Tree.AddReservationQueue], [Tree.SetEntitlement],
//     [Tree.RemoveReservationQueue]); the fair scheduler's placement rules
//     create and drop ad-hoc queues ([Tree.EnsureLeaf],
//     [Tree.AddDynamicQueue], [Tree.RemoveDynamicQueue]).
//   - Both schedulers speak to their host in the records declared here,
//     which they re-export as aliases: [NodeSpec], [AppSpec], [Ask],
//     [Container], [Allocation], [Ended] and [Locality]. [Requests] is an
//     application's table of outstanding asks (YARN's AppSchedulingInfo).
//   - [Order] keeps children or applications sorted by keys their owner
//     computes, O(log n) per change, so a walk never sorts.
//   - A parser returns a [ConfigReport] from its scheduler's [KeyTable]:
//     keys Berth does not model, keys nobody knows (with the nearest known
//     one), keys another package reads; [ConfigReport.Err] is strict mode.
//   - [ReservationACLs] holds plan queues' reservation ACLs with YARN's
//     rules and satisfies plan.Authorizer without importing package plan.
//   - Both schedulers' walks say why they skipped in one vocabulary: a
//     step comes to a [Result], an [Outcome] and a [Reason] (YARN's
//     ActivityDiagnosticConstant). An [ActivityLog] records them on demand,
//     as YARN's ActivitiesManager does (the next heartbeat of chosen nodes,
//     the last attempts of chosen applications), as [Activity] values an
//     [ActivityObserver] also receives; unrecorded, a walk pays one boolean
//     test per heartbeat.
//
// # The host's role
//
// The host supplies user → groups ([Groups]) for ACL checks and may set an
// [Observer] on a scheduler to see its decisions as [ContainerEvent],
// [AppEvent] and [QueueEvent] values, one method per family
// ([NopObserver] to embed; [EventLog] and [EventState] ready-made). Values
// ([Path], [ACL], [Capacity], [Usage]) and a [Snapshot] are immutable and
// may be shared between goroutines; a Tree belongs to its scheduler.
//
// # Extending
//
// [TreeConfig] carries one scheduler's rules: CheckCapacitySums and
// RequireStoppedToRemove for the capacity scheduler, Validate for checks of
// its own, Merge for what a surviving queue's payload keeps on Reconfigure.
// A [Registry] maps the names a configuration file uses (placement rules,
// policies) to the host's implementations; an unknown name is an
// [*UnknownNameError].
//
// # Differences from YARN
//
//   - Queue names may not contain whitespace anywhere, control characters or
//     invalid UTF-8; YARN's fair scheduler rejects only leading or trailing
//     whitespace.
//   - ACL names are trimmed as Java's String.trim (characters ≤ U+0020);
//     Hadoop trims names next to commas with \s, which differs only for
//     control characters.
//   - Absolute capacities compare componentwise (min in max, a child's max
//     in its parent's, children's sum in the parent's); YARN 3.3 uses the
//     resource calculator, which under memory-only ignores vcores.
//   - SetEntitlement refuses a maximum below the capacity; YARN accepts it
//     and ends with an absolute maximum below the absolute capacity.
//   - Removing a queue (Reconfigure, RemoveReservationQueue) is refused while
//     it has any usage, not only applications, so parents always equal the
//     sum of their children; a plan's default reservation queue cannot go.
//   - Accounting updates that would overflow int64 are refused; YARN wraps.
//   - Reconfigure refuses to turn a busy leaf into a parent or to drop a busy
//     queue; YARN's capacity scheduler refuses unless the leaf is STOPPED
//     and its fair scheduler defers until the queue is empty (keep the queue
//     in the next configuration until it drains for that).
//   - Accounting is the default partition's; package capacity keeps the
//     usage of labelled partitions (YARN's ResourceUsage per label).
//   - [Requests] keeps rack and host asks apart, as the caller classifies
//     the name; YARN's one map by name merges a name that is both.
//   - Charging an allocation to a key with nothing outstanding changes
//     nothing and reports it; YARN's fails on the missing request.
package queue
