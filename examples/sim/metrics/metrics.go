// Package metrics holds what the simulator records over a run, and writes it
// as CSV.
//
// The simulator (package engine) records per-job runtimes, cluster and
// per-queue samples over time, the reservation plan's load, preemptions, and
// a timeline of typed events (nodes lost and back, reconfiguration and
// replanning, preemption rounds that killed, reservations accepted, refused
// and removed, a stall); this package writes them in SLS's formats
// (jobruntime.csv) and as CSV files. It knows nothing about the schedulers:
// the engine fills the records (from the scheduler's, the plans' and the
// preemption policy's observer events and its own application masters),
// package report draws them.
package metrics

import (
	"github.com/berthsched/berth"
)

// Job is the outcome of one job of the trace.
type Job struct {
	ID, Queue, User, AMType string
	// TraceStart and TraceEnd are the trace's job.start.ms / job.end.ms
	// (SLS's real_start_time / real_end_time columns).
	TraceStart, TraceEnd berth.Time
	// Submitted is when the application was submitted; AMStarted when its
	// AM container was allocated (0: never); FirstTask when its first task
	// container was allocated; Finished when it finished (0: did not
	// finish within the run).
	Submitted, AMStarted, FirstTask, Finished berth.Time
	// Expired is when the application was killed because its lifetime
	// ran out (0: it was not); Finished stays 0 then.
	Expired berth.Time
	// AMNode is the node of the AM container (of its last attempt); ""
	// when the AM never launched.
	AMNode string
	// Queue the application actually ran in (a reservation queue for a
	// job run under its reservation).
	RanIn string
	// Containers allocated (AM included), and how many of them were
	// preempted, or lost with their node or with the AM container on it.
	Containers, Preempted, Lost int
	// Attempts counts AM attempts (more than 1 when the AM was lost).
	Attempts int
	// Reservation is the reservation id when the job asked for one, ""
	// otherwise; Deadline its deadline.
	Reservation string
	Deadline    berth.Time
}

// Launched tells whether the job's AM container was ever allocated (SLS
// records a job's runtime only then).
func (j *Job) Launched() bool { return j.AMNode != "" }

// Wait is how long the job waited from submission to its first task (or
// to its AM when it never ran a task); −1 when it never started.
func (j *Job) Wait() berth.Duration {
	switch {
	case j.FirstTask > 0:
		return j.FirstTask - j.Submitted
	case j.AMStarted > 0:
		return j.AMStarted - j.Submitted
	}
	return -1
}

// Reservation is one reservation request of a deadline job.
type Reservation struct {
	ID, Job, Queue, User string
	// Arrival and Deadline are the requested window.
	Arrival, Deadline berth.Time
	// Accepted tells whether the plan accepted it; Reason why not.
	Accepted bool
	Reason   string
	// Start and End bound the resources the plan placed (accepted only).
	Start, End berth.Time
	// Removed is when a replanning deleted it (0: never).
	Removed berth.Time
}

// QueueSample is one queue at one sample time.
type QueueSample struct {
	// Guaranteed is the capacity scheduler's effective guarantee, or the
	// fair scheduler's instantaneous fair share.
	Guaranteed, Used, Pending berth.Resource
	// ActiveApps and PendingApps as the scheduler counts them.
	ActiveApps, PendingApps int
	// Marked counts the queue's containers a preemption policy marked so
	// far, Preempted those preempted (killed) so far.
	Marked, Preempted int
}

// Sample is the cluster and its queues at one time.
type Sample struct {
	Time berth.Time
	// Cluster capacity, allocated and pending (outstanding asks).
	Capacity, Allocated, Pending berth.Resource
	// Nodes in the cluster; RunningApps and RunningContainers as the
	// simulator counts them.
	Nodes, RunningApps, RunningContainers int
	// Queues parallels Run.Queues.
	Queues []QueueSample
	// PlanCapacity and PlanCommitted parallel Run.Plans: each plan's
	// capacity and what its reservations hold at Time.
	PlanCapacity, PlanCommitted []berth.Resource
	// Preempted and Lost count containers so far; Marked those a
	// preemption policy marked (told their application) so far.
	Preempted, Lost, Marked int
}

// Run is everything one simulation recorded.
type Run struct {
	// Scheduler names the scheduler ("capacity", "fair").
	Scheduler string
	// Description is the scenario's own account of itself (a SYNTH
	// trace's description), "" when it has none.
	Description string `json:",omitempty"`
	// Queues are the reported queues (configured leaves and plan queues,
	// then the leaves the scheduler creates for the jobs; full paths),
	// Plans the plan queues, in order.
	Queues, Plans []string
	Jobs          []Job
	Reservations  []Reservation
	Samples       []Sample
	// Timeline lists what happened, in time order: nodes lost and
	// returned, reconfigurations, replanning, preemption rounds that
	// killed, reservations accepted, refused and removed, a stall.
	Timeline []Event
	// End is the simulated time the run stopped at; Events how many
	// events it processed.
	End    berth.Time
	Events uint64
	// Heartbeats counts node heartbeats delivered to the scheduler;
	// IdleHeartbeats those that neither reported nor allocated anything.
	Heartbeats, IdleHeartbeats uint64
	// SkippedHeartbeats counts heartbeats known to be futile and not
	// delivered (see engine.Config.ExactHeartbeats).
	SkippedHeartbeats uint64
	// Replans counts follower runs in which the replanner acted or the
	// reservations were resized to fit (follower.Result.Replanned, Resized).
	Replans int
	// LostWithAM counts, of the lost containers (Sample.Lost, Job.Lost),
	// those that ended because their application's AM container was lost
	// with its node (the attempt ends, and its containers with it).
	LostWithAM int
	// Released counts containers handed out beyond what an AM asked for
	// and given back at once.
	Released int
	// Unfinished counts jobs that did not finish; Stalled tells the run
	// stopped because nothing could progress (engine.Config.StallTimeout),
	// StalledSince when the last thing changed.
	Unfinished   int
	Stalled      bool
	StalledSince berth.Time
	// Config lists what the configuration files (the scheduler's file and
	// the site file) say that the simulation does not model, or that no
	// one knows, and the keys other components read (the host fills it
	// from the parsers' reports).
	Config []ConfigNote
	// Waits says why applications waited, per reported queue (in
	// Queues' order, queues without a wait left out): the reasons the
	// scheduler's walk gave when a node offered to an application brought
	// it nothing. Nil when the scheduler does not record them.
	Waits []QueueWaits `json:",omitempty"`
}

// QueueWaits is why the applications of one queue waited: the attempts
// (a node offered to one of its applications) that brought nothing, by
// reason, the most frequent first.
type QueueWaits struct {
	Queue    string
	Attempts int
	Reasons  []ReasonCount
}

// ReasonCount is how many attempts one reason stopped: Reason is its
// short name ("locality-delay"), Text the sentence.
type ReasonCount struct {
	Reason, Text string
	Attempts     int
}

// ConfigNote is one entry of the configuration report: the file it is
// about, its kind ("not modelled", "unknown", "read elsewhere"), the key
// and value as written, and what Berth does instead or the closest known
// key.
type ConfigNote struct {
	File, Kind, Key, Value, Detail string
}
