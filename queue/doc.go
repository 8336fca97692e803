// Package queue is the queue tree that Berth's hierarchical schedulers
// (package capacity and package fair) share: queue paths, the typed,
// scheduler-neutral configuration of each queue (capacity, maximum
// capacity, state, ACLs), its validation, the accounting of used, pending
// and reserved resources and of applications per queue and per user, the
// dynamic reservation queues a plan follower adds under a plan queue,
// lookups, snapshots, and atomic reconfiguration; and the records both
// schedulers exchange with their host (nodes, applications, asks,
// containers) with the per-application table of outstanding asks
// ([Requests]). Scheduling policy —
// ordering, user limits, fair shares, preemption — lives in the schedulers;
// this package only keeps the hierarchy and its books consistent.
//
// # How a scheduler uses it
//
// The scheduler parses its file at the edge (capacity-scheduler.xml or
// fair-scheduler.xml) into a [Config] tree, builds a [Tree] with [New], and
// from then on charges accounting to leaves ([Queue.Update],
// [Queue.Allocate], [Queue.SubmitApp], …; [Move] when an application
// changes queue), checks access
// ([Queue.CanSubmit]), and calls [Tree.Reconfigure] with a new Config on a
// refresh. The plan follower adds, sizes and removes reservation queues
// under plan queues ([Tree.AddReservationQueue], [Tree.SetEntitlement],
// [Tree.RemoveReservationQueue]); the fair scheduler's placement rules
// create ad-hoc queues ([Tree.EnsureLeaf], [Tree.AddDynamicQueue]) and drop
// them when idle ([Tree.RemoveDynamicQueue]). Preemption and reports read a
// [Snapshot].
//
// # What a configuration file says that Berth does not model
//
// Each scheduler keeps a typed table of YARN's configuration keys
// ([KeyTable] of [KeyRule]: a pattern, whether Berth models it, reads it
// elsewhere or not at all, and what it does instead) and its parser
// returns a [ConfigReport] beside the typed configuration: keys not
// modelled, keys nobody knows (with the closest known key by
// [EditDistance]), keys another package reads. [ConfigReport.Err] is the
// strict mode's refusal, a *[ConfigReportError].
//
// # The host's vocabulary and the request table
//
// Both schedulers speak to their host in the same records, declared once
// here: [NodeSpec], [AppSpec], [Ask], [Container], [Allocation], [Ended]
// with its [ExitStatus], and [Locality]; packages capacity and fair
// re-export them under their own names as type aliases. [Requests] is an
// application's table of outstanding asks by request priority and
// locality, with YARN's relaxLocality flags and allocation rules (YARN's
// AppSchedulingInfo, which both of its schedulers share); each scheduler
// keeps its delay-scheduling state beside it, in RequestKey.Payload or in
// its own maps.
//
// [Order] keeps a set sorted by keys its owner computes and re-keys on
// change notifications, in O(log n) per change: both schedulers walk their
// children and applications in policy order through it rather than sorting
// on every heartbeat, and a pluggable ordering policy can supply the key.
// An owner that can summarise its keys in an [OrderPrefix] (built with
// [PrefixFloat] and [PrefixInt]) lets the Order decide most comparisons
// without reading its items, which matters when they are many and large.
//
// [ReservationACLs] holds the reservation ACLs of plan queues
// (acl_submit_reservations, acl_list_reservations,
// acl_administer_reservations) with YARN's rules; it satisfies package
// plan's Authorizer without importing it, so a host hands it to plan.System.
//
// # Scheduler payloads: why generics
//
// Each scheduler needs its own typed per-queue settings (user-limit-factor
// and ordering policy for the capacity scheduler; weight, min/max
// resources and scheduling policy for the fair one) and its own run-time
// state. Tree[T] and Queue[T] are generic over that payload: Config[T]
// carries the settings in Config.Settings and the built queue exposes them
// as the field Queue.Payload, typed, with no casts and no maps keyed by
// path. A scheduler typically uses a pointer to its own struct, so the
// payload holds both settings and state; [Options.Merge] decides what a
// surviving queue keeps on Reconfigure (e.g. its state with the new
// settings). An opaque `any` field would have forced type assertions on
// every hot path; a side table keyed by path would have to be kept in sync
// with reconfiguration by hand.
//
// Rules that belong to one scheduler stay optional: [Options.CheckCapacitySums]
// turns on the capacity scheduler's checks across siblings, and
// [Options.RequireStoppedToRemove] its STOPPED-before-delete rule;
// [Options.Validate] lets a scheduler add its own checks on a candidate
// tree before it is installed.
//
// # Semantics (YARN 3.3)
//
// Paths are "root.a.b"; names are non-empty, contain no "." and no
// whitespace. A queue with children (or Config.Parent) is a parent; a
// reservable leaf is a plan queue holding dynamic reservation queues,
// starting with "<name>-default" at entitlement 100%/100%.
//
// Capacities are percentages of the parent or absolute resources. With
// CheckCapacitySums, children's capacities (fractions, single precision)
// must sum to 1 within 0.0005 under a parent with non-zero capacity and to
// 0 under a zero-capacity parent, unless children use absolute resources;
// absolute children must fit in an absolute parent, and a non-zero
// percentage parent may not have absolute children. Absolute capacity =
// capacity × parent's; absolute maximum likewise, and it may not be below
// the absolute capacity (by more than 0.0001).
//
// State: an unset state inherits the parent's; a child of a stopped parent
// is effectively stopped, and configuring it RUNNING is an error. A stopped
// queue with applications reports DRAINING.
//
// ACLs use Hadoop's AccessControlList syntax ([ParseACL]). Defaults: root
// allows everyone, other queues nobody. Access is granted if the queue or
// any ancestor allows it; submitting needs SUBMIT_APPLICATIONS or
// ADMINISTER_QUEUE. The host supplies user → groups ([Groups]).
//
// Accounting is charged to leaves and propagated to every ancestor in
// O(depth): a parent's usage is the sum of its children's, a queue's the
// sum of its users'. Updates are all-or-nothing and never leave a negative
// amount. A holder that charges the same leaf and user again and again (an
// application, per container) keeps a [UserRef] and calls
// [Queue.UpdateRef]: the same update without a user lookup per level.
//
// # Extending
//
// [Registry] maps the names a configuration file uses to a host's
// implementations (the fair scheduler's placement rules today; the same
// type can serve scheduling and ordering policy names). The host fills it
// explicitly and hands it to a parser; an unknown name is an
// [*UnknownNameError] (berth.ErrInvalidArgument).
//
// # Observing decisions
//
// A host that wants to see what a scheduler decides — for metrics, an
// audit log, a simulator's statistics — sets an [Observer] on it
// (capacity.Scheduler.SetObserver, fair.Scheduler.SetObserver) instead of
// polling snapshots. The events are declared here, once for both
// schedulers, so one observer serves either: [ContainerEvent] (allocated;
// ended as completed, released, killed, preempted or lost), [AppEvent]
// (added, activated, moved, finished, killed) and [QueueEvent] (added,
// removed, entitlement changed, reconfigured), each with the scheduler's
// time. Packages plan and preempt have their own observers for
// reservations and preemption marks and kills; their method names differ,
// so one host type can implement all three. Two ready-made observers:
// [EventLog] keeps one line of text per event (a trace, a test's expected
// sequence), and [EventState] rebuilds from the events alone the state
// they describe and reports the first event that contradicts it.
//
// The shape: one interface method per event family, each taking a small
// value struct with a Kind. Values, not pointers or interfaces, so that an
// event allocates nothing and an observer may keep it; families, not one
// method per kind, so that a counter is an array indexed by Kind and a
// new kind breaks no host; [NopObserver] to embed, so that a host
// implements only the families it wants and a new family (a new method)
// breaks no host either. There is no registry and no global hook: an
// observer belongs to one scheduler, set by the host; nil (the default)
// means none, and each decision point then costs one nil check.
//
// The rules for an observer:
//   - It is called synchronously, on the goroutine making the call that
//     decided, in decision order, while the scheduler holds its lock:
//     events of one scheduler are totally ordered and deterministic, and
//     an observer needs no lock of its own if only that scheduler calls it.
//   - It must not call any method of the scheduler that emitted the event
//     (the lock is held: it would deadlock), nor block. It may record,
//     count, or enqueue the event for the host to act on after the call
//     returns.
//   - Events describe the state right after the decision: e.g. a
//     container ends before the application that held it is finished,
//     and an application is added before it is activated. Allocation by
//     allocation, the live containers of an application are its
//     allocated events minus its ended ones.
//
// # Why a walk skipped: activities
//
// Both schedulers' allocation walks speak one vocabulary: a step comes to
// a [Result], an [Outcome] (skipped, allocated, reserved, unreserved) and
// a [Reason] — the limit that held it back, one of YARN's
// ActivityDiagnosticConstant diagnostics (queue limit, user limit, AM
// share, locality, locality delay, node full, reservation, partition, …).
// The walks compute the reasons anyway to decide; on demand they record
// them, as YARN's ActivitiesManager does for its scheduler-activities and
// app-activities calls, in an [ActivityLog]: the next heartbeat of chosen
// nodes, the last attempts of chosen applications. A recorded step is an
// [Activity]; an observer that also implements [ActivityObserver] receives
// them as events. Nothing is recorded unless a host asked: the walk then
// pays one boolean test per heartbeat.
//
// # Concurrency
//
// A Tree and its Queues are not safe for concurrent use: the tree is
// owned by its scheduler, which already serializes its work under its own
// lock. Values — [Path], [ACL], [Capacity], [Usage] — and a [Snapshot] are
// immutable once made and may be shared between goroutines.
//
// # Differences from YARN
//
//   - Queue names may not contain whitespace anywhere, control characters,
//     or invalid UTF-8; YARN's fair scheduler only rejects names with
//     leading or trailing whitespace.
//   - ACL names are trimmed with Java's String.trim (characters ≤ U+0020);
//     Hadoop trims names next to commas with the regex class \s only,
//     which differs only for control characters.
//   - Absolute capacities are compared componentwise (min must fit in max,
//     a child's max in its parent's, children's sum in the parent's);
//     YARN 3.3 compares some of them through the resource calculator,
//     which under the memory-only calculator ignores vcores.
//   - SetEntitlement refuses a maximum below the capacity; YARN accepts it
//     and ends up with an absolute maximum below the absolute capacity.
//   - Removing a queue (by Reconfigure or RemoveReservationQueue) is refused
//     while it has any usage, not only applications, so parents always
//     stay equal to the sum of their children. The default reservation
//     queue of a plan cannot be removed.
//   - Accounting updates that would overflow int64 are refused; YARN wraps.
//   - Reconfigure refuses a leaf holding applications or usage that the new
//     configuration turns into a parent, and refuses to drop a busy queue;
//     YARN's capacity scheduler refuses unless the leaf is STOPPED, and its
//     fair scheduler defers such changes until the queue is empty. A fair
//     scheduler that wants deferral can keep the queue in its next
//     configuration until it drains.
//   - Node labels (partitions) are not modelled: accounting is for the
//     default partition.
//   - [Requests] keeps rack and host asks apart, as the caller classifies
//     a name when it stores the ask; YARN keeps one map keyed by name, so
//     a name that is both a node and a rack shares one entry there.
//     Charging an allocation to a key with nothing outstanding changes
//     nothing and reports it; YARN's would fail on a missing request.
package queue
