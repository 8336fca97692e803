// Package durable makes a host's Berth survive restarts and replicate.
//
// A Cluster wires a reservation system with its plans, one queue scheduler
// (capacity or fair), the plan follower and the preemption policy on one
// clock, and every state-changing host call on it is a typed, serialisable
// Command applied by one function, [Cluster.Apply], which returns the
// call's result. Because every Berth decision is a function of the calls
// and the clock, a log of commands is a complete record: replaying it from
// a snapshot reproduces the state exactly. [Store] puts a file-backed
// write-ahead journal (package journal) in front of a Cluster for one
// process; examples/ha puts the same commands through a raft log for
// replicas.
//
// It is an example host built on the library, in the main module so that
// hosts can import it; the library packages know nothing of it.
//
// # Commands
//
// AdvanceClock, AddNode, RemoveNode, Heartbeat, SubmitApp, Allocate,
// FinishApp, KillApp, KillContainer, MoveApp, NewReservationID,
// SubmitReservation, UpdateReservation, DeleteReservation, RunFollower,
// PreemptionRound and ReloadConfig cover what a ResourceManager is asked
// to do. The clock is a command too, so the follower and the preemption
// policy run at the times recorded. A command's encoding (see [DecodeCommand]) is a version byte, a
// kind byte and its fields as varints and length-prefixed strings; it has
// no checksum of its own, the journal's record framing and raft's log
// carry one. A call refused by Berth (an unknown node, an over-committed
// plan) still counts as a command: it changed nothing, and replaying it
// refuses it again, so a host journals before applying and never has to
// guess.
//
// # Snapshots
//
// [Cluster.WriteSnapshot] writes a header (a Berth snapshot of kind
// "durable.Cluster": the scheduler kind, the number of plans, the
// preemption switch, the command sequence number and the clock) followed
// by the parts' own snapshots one after another: plan.System,
// the scheduler, follower.Follower and the preemption policy.
// [Restore] reads them back with what a snapshot cannot hold (agents,
// sharing policies, groups, loggers) taken from the Config.
//
// # Journal and recovery
//
// [Open] recovers a Store from its directory: the latest snapshot, then
// every journal record after it. One Store at a time has a directory
// open. With journal.SyncAlways a command is on disk when [Store.Apply]
// returns; with batching, a host acknowledges only up to [Store.Synced].
// Recovery gives back every acknowledged command or refuses: a torn last
// record (a crash during the write, never acknowledged) is cut off;
// corruption, of a record or of the snapshot, is refused as
// berth.ErrCorruptState; acknowledged commands gone missing (a segment
// cut or deleted) are refused as journal.ErrLostRecords unless the host
// accepts the loss; [Store.Recovery] reports what was recovered. A
// failed fsync leaves one command's outcome unknown until the Store is
// reopened (see [Store.Apply]). Package journal's documentation lists
// what is promised and what is not.
//
// # Differences from YARN
//
// YARN's RMStateStore records applications, attempts, reservations and
// tokens (not the scheduler's state): after a restart the scheduler is
// rebuilt from the node managers' container reports and applications
// re-register, and decisions made in between may differ. Here the whole
// state, scheduler included, is recovered exactly, because the log holds
// the inputs rather than a summary of the outputs. YARN's active/standby
// failover through ZooKeeper elects one ResourceManager and the standby
// reloads the store; examples/ha instead keeps three replicas applying the
// same log through raft, so a new leader has the state already.
package durable
