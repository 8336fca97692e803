// Package engine replays trace jobs through Berth's schedulers on a virtual clock, as SLS does.
//
// It is the simulator's discrete-event engine: the jobs of package trace
// run through a Berth queue scheduler, the reservation system and the plan
// follower, as YARN's Scheduler Load Simulator (SLS) runs them with real
// threads in wall-clock time. Events run in (time, sequence) order and
// nothing reads the wall clock,
// so the same inputs give the same outputs, byte for byte, at thousands
// of times real time.
//
// What it simulates, after SLS:
//
//   - Node managers heartbeat every Config.NodeHeartbeat ms, each at its
//     own phase drawn from Config.Seed in [0, NodeHeartbeat) (NMRunner's
//     random.nextInt(interval)), reporting the containers whose work ended
//     since the last heartbeat and receiving the containers the scheduler
//     allocates. The phases decide which node a waiting ask meets first,
//     so placement does not follow the nodes' order in the node file.
//   - Each application is submitted at its trace time plus an offset drawn
//     per job from the seed within one heartbeat interval, as SLS's AM
//     clocks are rebased when SLSRunner schedules them
//     (Config.ExactSubmissions turns it off).
//   - Application masters of SLS's MapReduce model (MRAMSimulator): the
//     application is submitted with its AM resource, the AM container is
//     allocated first, then every map is asked for (by host, rack and
//     anywhere, as packageRequests does), and the reduces only once every
//     map is done; the job finishes after its last reduce. Tasks run for
//     the trace's durations from their allocation. A task container
//     preempted, killed or lost is asked for again; a lost AM restarts
//     the application as a new attempt that keeps the finished tasks. A
//     container counts as lost when a node loss ended it: on the node, or
//     because its attempt's AM container was on the node
//     (metrics.Run.LostWithAM).
//   - SLS's streaming model (StreamAMSimulator): every stream is asked for
//     at once and asked for again whenever it ends, until the job's
//     lifetime (job.end.ms − job.start.ms) has passed.
//   - Deadline jobs reserve through plan.System as SLS does for MapReduce
//     (ReservationClientUtil): maps then reduces, each stage a gang of all
//     its tasks, R_ORDER_NO_GAP, between the job's start and deadline. An
//     accepted job's AM submits its application under the reservation at
//     once (so its wait for the reservation counts), and the application
//     enters the scheduler when the reserved resources start; a refused
//     one is submitted at once, to its queue (the plan's default queue).
//   - The plan follower runs every Config.FollowerInterval; a preemption
//     policy (Preemptor, the seam package scenario plugs package preempt's
//     policies into) every Config.PreemptionInterval, its killed
//     containers asked for again by their AMs and its marks counted per
//     queue (ObservedPreemptor); node losses and returns at their times;
//     metrics samples every Config.SampleInterval, or adaptively from one
//     a second down to about Config.SampleBudget over the run.
//
// The engine talks to the scheduler through Scheduler, a small interface
// *capacity.Scheduler and *fair.Scheduler both satisfy, so switching
// schedulers needs no branch; CapacityStats and FairStats read the
// per-queue figures of the samples.
//
// A heartbeat that can change nothing is not delivered: a node with no
// completions to report and no room for any pending ask parks until a
// container on it ends or a new kind of ask arrives, and (unless
// Config.ExactHeartbeats) a heartbeat is skipped when a node with at least
// as much room heartbeat in vain since the last change in the cluster,
// less than one interval ago, while no application asks for hosts or
// racks. Both keep the scheduler's answers; they make idle and saturated
// clusters cost nothing.
//
// # Observing decisions
//
// The engine is two hosts in one. As the application masters it acts on
// what each call returns (allocations, ended containers). As the metrics
// collector it observes the components, as any host exporting metrics
// would: New sets its recorder as the observer of the scheduler (package
// queue's Observer), of every plan of the reservation system (package
// plan's) and of the preemption policy (package preempt's, through an
// ObservedPreemptor). Running containers and applications, containers
// preempted, lost and marked per queue and per job, and each
// reservation's acceptance, placement, refusal and deletion by the
// replanner come from their events, not from counts kept beside the
// calls or from reading the plans back after a replanning. The same
// events, with the engine's node losses and returns, the follower's
// replanning and a stall, make the run's timeline (metrics.Run.Timeline):
// one metrics.Event per node, per reconfigured queue, per reservation
// decision, and per preemption round and victim queue.
//
// # Differences from SLS
//
//   - Virtual time: a day replays in seconds, deterministically; SLS runs
//     in wall time on thread pools and two runs differ.
//   - An AM acts at once on what a heartbeat returns (SLS's AM sees it at
//     its next AM heartbeat, yarn.sls.am.heartbeat.interval.ms): there is
//     no AM heartbeat delay, and a container starts at its allocation.
//   - Tasks of one job with the same priority are asked for at the largest
//     of their sizes: Berth keys asks by (priority, resource name), as
//     YARN's scheduler keys do, so one priority has one size.
//   - A task container that comes beyond what is outstanding (a stale
//     count after a re-ask) is released at once.
//   - A lost AM container restarts the application (a new application id
//     "<job>_attempt<n>") keeping finished tasks; SLS waits for the RM to
//     launch a new attempt of the same application.
package engine
