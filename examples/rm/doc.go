// Package rm builds a ResourceManager from YARN's configuration in one call.
//
// [LoadCapacity] and [LoadFair] read the scheduler's file
// (capacity-scheduler.xml or fair-scheduler.xml) and, optionally,
// yarn-site.xml, and build on one clock everything YARN's
// ResourceManager would: the queue scheduler; when the reservation system
// is enabled, one plan per reservable queue with the agent, sharing
// policy and replanner its keys name, the reservation system
// ([plan.System]) holding them and the plan follower of the scheduler's
// flavor; and when preemption is enabled, the scheduler's preemption
// policy. They return every piece typed ([Capacity], [Fair]) with one
// configuration report of both files, which lists the keys read.
// [NewCapacity] and [NewFair] do the same from typed configurations, and
// [NewReservations] builds the reservation system alone for a scheduler
// a host built itself ([CapacitySpec], [FairSpec] describe it).
//
// The keys read, and where they go:
//
//	yarn.scheduler.capacity.<queue>.reservable              a plan per reservable queue
//	  .reservation-agent / -policy / -planner               the plan's Agent, Policy, Replanner
//	  .average-capacity, .instantaneous-max-capacity,       policy.CapacityOverTimeConfig
//	  .reservation-window
//	  .reservation-enforcement-window                       policy.ReplannerConfig
//	  .reservation-move-on-expiry                           plan.Config.MoveOnExpiry
//	  .show-reservations-as-queues                          carried (queue listings are the host's)
//	  .acl_*_reservations                                   queue.ReservationACLs, when ACLs are on
//	fair-scheduler.xml <queue><reservation/>, global        the same, with YARN's defaults for the
//	  <reservation-agent|policy|planner>                      rest (the file cannot set them)
//	yarn.resourcemanager.reservation-system.enable          whether the system is built (false)
//	  .class, .plan.follower                                checked against the scheduler
//	  .planfollower.time-step, .max-periodicity             plan.Config.Step, MaxPeriodicity
//	  .favor-early-allocation, .smoothness-factor           agent.Config
//	yarn.acl.enable, yarn.acl.reservation-enable            plan.SystemConfig.Authorizer
//	yarn.resourcemanager.scheduler.monitor.enable           capacity: preempt.Proportional
//	yarn.resourcemanager.monitor.capacity.preemption.*      preempt.ProportionalConfig
//	yarn.scheduler.fair.preemption*, …                      fair: preempt.FairPreemptor
//
// Agent, policy and replanner names are YARN's classes, fully qualified or
// by simple name (AlignedPlannerWithGreedy, GreedyReservationAgent,
// CapacityOverTimePolicy, NoOverCommitPolicy, SimpleCapacityReplanner),
// or Berth's own agents by the names package agent gives them (Greedy,
// Portfolio, LegacyGreedy, LeastWaste); a host adds its own through the
// registries of [Options]. An unknown name is a *berth.FieldError naming
// the key that also matches *queue.UnknownNameError, as YARN fails to
// start on a class it cannot load.
//
// # What the host does each tick
//
// Nothing here runs by itself: the host owns the clock. Each plan step
// ([Reservations.Step]) it advances the clock and calls Follower.Run,
// and stops the containers each result's Ended lists. A reservation that
// arrives within one step is published by System.Submit itself (the
// system's Publish is the follower's), so its queue exists when Submit
// returns and its applications may follow at once, as in YARN; what that
// publication ended comes first in the next Run's results (or from
// Follower.TakePublished). The host forwards node heartbeats to the
// scheduler, and every preemption interval it runs the preemption round.
// Under the capacity scheduler, clock-driven YARN 3.x work is the host's
// call too: with schedule-asynchronously.enable heartbeats only report
// completions and the host runs capacity.Scheduler.ScheduleRound every
// scheduling interval (Config.Async.Interval); it calls ExpireApps as
// often as YARN's lifetime monitor runs (every 3 s) when queues set
// lifetimes, and ManageQueues when it wants idle auto-created queues
// deleted and managed parents re-balanced. The runnable example shows one
// such loop.
//
// # Trade-offs
//
// The one-call path follows YARN's defaults exactly, including those that
// surprise: the reservation system is off unless
// yarn.resourcemanager.reservation-system.enable says true, and the fair
// allocation file cannot change a plan's window or limits (YARN's fair
// scheduler does not read them; a host sets AllocationFile.Reservation in
// Go). A host that needs another shape of plan (a given capacity, a
// replaced component) keeps the one call and edits each plan's
// configuration with Options.ConfigurePlan, or lists the plans itself in
// Options.Plans. The package lives under examples because it ties every
// library package together, which no library package may do.
package rm
