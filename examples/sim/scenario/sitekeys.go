package scenario

import (
	"sort"
	"strings"

	"github.com/berthsched/berth/preempt"
	"github.com/berthsched/berth/queue"
)

// The site file's keys, as the simulator knows them: what it
// reads itself (modelled), what package preempt reads from the same file
// (elsewhere), and what YARN or SLS gives a meaning the simulator does not
// reproduce (not modelled, with what it does instead). SiteReport
// classifies every property of the file with this table.
//
// Namespaces: the simulator owns the keys that start with one of
// siteNamespaces (SLS's, the schedulers', the RM's scheduler monitor and
// reservation system). A key there that no rule matches is unknown and
// reported with the closest known key. A key outside them that the table
// does not name (fs.*, hadoop.*, dfs.*, the NodeManagers', the timeline
// server's, ...) is ignored without a note: a real cluster's yarn-site.xml
// carries hundreds of such keys, none of which the simulation could act
// on, and listing them would bury the typos the report is for. Keys
// outside the namespaces that a scheduling prediction depends on are in
// the table, so they are still reported.

// siteNamespaces are the key prefixes the simulator owns.
var siteNamespaces = []string{
	"yarn.sls.",
	"yarn.scheduler.",
	"yarn.resourcemanager.scheduler.",
	"yarn.resourcemanager.monitor.",
	"yarn.resourcemanager.reservation-system.",
}

const (
	insteadSLSThreads   = "no threads: the simulator is one deterministic discrete-event loop"
	insteadSLSMetrics   = "no live metrics: the run writes its CSV files and report.html into --output-dir"
	insteadSchedulerCS  = "the capacity scheduler's keys are read from the scheduler's file (--scheduler-conf) only"
	insteadFairDefault  = "fair.DefaultConfig, with assignmultiple on (one heartbeat may allocate several containers)"
	insteadAllocations  = "the scheduler's file is --scheduler-conf; minimum and maximum allocations come from it (capacity) or Berth's defaults (fair)"
	insteadNodeSize     = "node sizes come from yarn.sls.nm.memory.mb / yarn.sls.nm.vcores, the node file or the trace's topology"
	insteadPreemptCS    = "package preempt (ParseProportionalProperties), under the capacity scheduler; capacity-scheduler.xml's value wins"
	insteadPreemptFair  = "package preempt (ParseFairConfig), under the fair scheduler"
	insteadSchedFlag    = "the scheduler is " + KeySchedulerClass + " (or --scheduler)"
	insteadNoAutoCreate = "the simulator does not run the queue management monitor: queues are auto-created at submission, never re-balanced or deleted"
	insteadNoServer     = "no RPC server: the simulator calls the scheduler in process"
	insteadReservation  = "the reservation system is plan.System with YARN's defaults per reservable queue"
)

var siteKeys = func() queue.KeyTable {
	t := queue.KeyTable{
		// Read by this package (see the package documentation).
		{Pattern: KeyNMHeartbeat},
		{Pattern: KeyNMMemory},
		{Pattern: KeyNMVCores},
		{Pattern: KeyContainerMemory},
		{Pattern: KeyContainerVCores},
		{Pattern: KeyAMMemory},
		{Pattern: KeyAMVCores},
		{Pattern: KeyMetricsInterval},
		{Pattern: KeyReservationEnable},
		{Pattern: KeyFollowerStep},
		{Pattern: KeyMonitorEnable},
		{Pattern: KeyMonitorPolicies},
		{Pattern: KeyFairUpdateInterval},
		{Pattern: KeySchedulerClass},
		{Pattern: KeyFairAllocationFile},

		// Package preempt's fair keys.
		{Pattern: preempt.FairKeyPreemption, Support: queue.KeyElsewhere, Instead: insteadPreemptFair},
		{Pattern: preempt.FairKeyUtilizationThreshold, Support: queue.KeyElsewhere, Instead: insteadPreemptFair},
		{Pattern: preempt.FairKeyWaitTimeBeforeKill, Support: queue.KeyElsewhere, Instead: insteadPreemptFair},
		{Pattern: preempt.FairKeyWaitBeforeNextStarvation, Support: queue.KeyElsewhere, Instead: insteadPreemptFair},
		{Pattern: preempt.FairKeyContinuousScheduling, Support: queue.KeyElsewhere, Instead: insteadPreemptFair},
		{Pattern: preempt.FairKeyContinuousSchedulingSleep, Support: queue.KeyElsewhere, Instead: insteadPreemptFair + " (its back-off only; the fair scheduler itself allocates on heartbeats)"},
		{Pattern: preempt.FairKeyNMHeartbeatInterval, Support: queue.KeyElsewhere, Instead: insteadPreemptFair + " (its back-off; the simulated nodes beat every " + KeyNMHeartbeat + ")"},

		// SLS's keys (SLSConfiguration, sls-runner.xml) the simulator
		// does not model.
		{Pattern: "yarn.sls.runner.pool.size", Support: queue.KeyNotModelled, Instead: insteadSLSThreads},
		{Pattern: "yarn.sls.scheduler.class", Support: queue.KeyNotModelled, Instead: insteadSchedFlag + "; no scheduler wrapper is needed for metrics"},
		{Pattern: "yarn.sls.metrics.switch", Support: queue.KeyNotModelled, Instead: insteadSLSMetrics},
		{Pattern: "yarn.sls.metrics.web.address.port", Support: queue.KeyNotModelled, Instead: insteadSLSMetrics},
		{Pattern: "yarn.sls.metrics.output", Support: queue.KeyNotModelled, Instead: "outputs go to --output-dir"},
		{Pattern: "yarn.sls.metrics.timer.window.size", Support: queue.KeyNotModelled, Instead: "no scheduler-operation timers: the report gives the run's wall time and throughput"},
		{Pattern: "yarn.sls.am.heartbeat.interval.ms", Support: queue.KeyNotModelled, Instead: "an application master asks as soon as it has something to ask; its asks are served on the nodes' heartbeats (" + KeyNMHeartbeat + ")"},
		{Pattern: KeyAMTypePrefix + "*"}, // read: see amTypes
		{Pattern: "yarn.sls.nm.resource.utilization.ratio", Support: queue.KeyNotModelled, Instead: "no utilization reports: a node's used resource is its containers' allocation"},

		// YARN's scheduler keys in yarn-site.xml.
		{Pattern: "yarn.scheduler.minimum-allocation-mb", Support: queue.KeyNotModelled, Instead: insteadAllocations},
		{Pattern: "yarn.scheduler.minimum-allocation-vcores", Support: queue.KeyNotModelled, Instead: insteadAllocations},
		{Pattern: "yarn.scheduler.maximum-allocation-mb", Support: queue.KeyNotModelled, Instead: insteadAllocations},
		{Pattern: "yarn.scheduler.maximum-allocation-vcores", Support: queue.KeyNotModelled, Instead: insteadAllocations},
		{Pattern: "yarn.scheduler.include-port-in-node-name", Support: queue.KeyNotModelled, Instead: "nodes are named by the node file or the trace"},
		{Pattern: "yarn.scheduler.configuration.store.class", Support: queue.KeyNotModelled, Instead: "the configuration is the files given; no mutable configuration store"},
		{Pattern: "yarn.scheduler.queue-placement-rules", Support: queue.KeyNotModelled, Instead: insteadSchedulerCS},
		{Pattern: "yarn.scheduler.capacity.**", Support: queue.KeyNotModelled, Instead: insteadSchedulerCS},
		{Pattern: "yarn.scheduler.fair.user-as-default-queue", Support: queue.KeyNotModelled, Instead: insteadFairDefault + "; placement follows the allocation file's queuePlacementPolicy"},
		{Pattern: "yarn.scheduler.fair.allow-undeclared-pools", Support: queue.KeyNotModelled, Instead: insteadFairDefault + "; placement follows the allocation file's queuePlacementPolicy"},
		{Pattern: "yarn.scheduler.fair.sizebasedweight", Support: queue.KeyNotModelled, Instead: insteadFairDefault},
		{Pattern: "yarn.scheduler.fair.assignmultiple", Support: queue.KeyNotModelled, Instead: insteadFairDefault},
		{Pattern: "yarn.scheduler.fair.max.assign", Support: queue.KeyNotModelled, Instead: insteadFairDefault},
		{Pattern: "yarn.scheduler.fair.dynamic.max.assign", Support: queue.KeyNotModelled, Instead: insteadFairDefault},
		{Pattern: "yarn.scheduler.fair.locality.threshold.node", Support: queue.KeyNotModelled, Instead: insteadFairDefault},
		{Pattern: "yarn.scheduler.fair.locality.threshold.rack", Support: queue.KeyNotModelled, Instead: insteadFairDefault},
		{Pattern: "yarn.scheduler.fair.locality-delay-node-ms", Support: queue.KeyNotModelled, Instead: insteadFairDefault},
		{Pattern: "yarn.scheduler.fair.locality-delay-rack-ms", Support: queue.KeyNotModelled, Instead: insteadFairDefault},
		{Pattern: "yarn.scheduler.fair.reservable-nodes", Support: queue.KeyNotModelled, Instead: insteadFairDefault},
		{Pattern: "yarn.scheduler.increment-allocation-mb", Support: queue.KeyNotModelled, Instead: insteadFairDefault},
		{Pattern: "yarn.scheduler.increment-allocation-vcores", Support: queue.KeyNotModelled, Instead: insteadFairDefault},
		{Pattern: "yarn.scheduler.fair.event-log-enabled", Support: queue.KeyNotModelled, Instead: "no event log: the run's CSV files record what happened"},
		{Pattern: "yarn.scheduler.fair.eventlog.dir", Support: queue.KeyNotModelled, Instead: "no event log: the run's CSV files record what happened"},

		// The ResourceManager's scheduler, monitor and reservation system.
		{Pattern: "yarn.resourcemanager.scheduler.address", Support: queue.KeyNotModelled, Instead: insteadNoServer},
		{Pattern: "yarn.resourcemanager.scheduler.client.thread-count", Support: queue.KeyNotModelled, Instead: insteadNoServer},
		{Pattern: "yarn.resourcemanager.monitor.capacity.queue-management.monitoring-interval", Support: queue.KeyNotModelled, Instead: insteadNoAutoCreate},
		{Pattern: "yarn.resourcemanager.reservation-system.class", Support: queue.KeyNotModelled, Instead: insteadReservation},
		{Pattern: "yarn.resourcemanager.reservation-system.plan.follower", Support: queue.KeyNotModelled, Instead: "package follower, in the flavour of the scheduler run"},
		{Pattern: "yarn.resourcemanager.reservation-system.smoothness-factor", Support: queue.KeyNotModelled, Instead: "agent.DefaultConfig (smoothness factor 10)"},
		{Pattern: "yarn.resourcemanager.reservation-system.favor-early-allocation", Support: queue.KeyNotModelled, Instead: "agent.DefaultConfig (early allocation favoured)"},
		{Pattern: "yarn.resourcemanager.reservation-system.max-periodicity", Support: queue.KeyNotModelled, Instead: "periodic reservations are not submitted by the simulator's traces"},

		// SLS's sls-runner.xml names each scheduler's metrics wrapper by
		// the scheduler's class name.
		{Pattern: "org.apache.hadoop.yarn.server.resourcemanager.scheduler.**", Support: queue.KeyNotModelled, Instead: insteadSLSMetrics + "; no scheduler wrapper is needed"},

		// Outside the simulator's namespaces, but a prediction depends on
		// them: a real cluster's node sizes.
		{Pattern: "yarn.nodemanager.resource.memory-mb", Support: queue.KeyNotModelled, Instead: insteadNodeSize},
		{Pattern: "yarn.nodemanager.resource.cpu-vcores", Support: queue.KeyNotModelled, Instead: insteadNodeSize},
	}
	// Package preempt's proportional keys go first: the first match wins,
	// and some are below yarn.scheduler.capacity.
	var pre queue.KeyTable
	for _, k := range proportionalKeys {
		pre = append(pre, queue.KeyRule{Pattern: k, Support: queue.KeyElsewhere, Instead: insteadPreemptCS})
	}
	return append(pre, t...)
}()

// proportionalKeys are the keys package preempt's proportional policy
// reads from yarn-site.xml (preempt.ParseProportionalProperties).
var proportionalKeys = func() []string {
	var out []string
	for _, s := range []string{
		"monitoring_interval", "max_wait_before_kill", "total_preemption_per_round",
		"max_ignored_over_capacity", "natural_termination_factor", "observe_only",
		"select_based_on_reserved_containers", "additional_res_balance_based_on_reserved_containers",
		"intra-queue-preemption.enabled", "intra-queue-preemption.minimum-threshold",
		"intra-queue-preemption.max-allowable-limit", "intra-queue-preemption.preemption-order-policy",
		"conservative-drf", "intra-queue-preemption.conservative-drf",
		"preemption-to-balance-queue-after-satisfied.enabled",
		"preemption-to-balance-queue-after-satisfied.max-wait-before-kill",
	} {
		out = append(out, preempt.MonitorPrefix+s)
	}
	const under = preempt.CapacityPrefix + "ordering-policy.priority-utilization.underutilized-preemption."
	return append(out, under+"enabled", under+"reserved-container-delay-ms", under+"allow-move-reservation")
}()

// siteKeyRule finds the rule of a site key. Package preempt also reads a
// queue's disable_preemption keys from the site, which no pattern can say
// (the queue path has any number of segments).
func siteKeyRule(key string) (queue.KeyRule, bool) {
	if strings.HasPrefix(key, preempt.CapacityPrefix) && strings.HasSuffix(key, ".disable_preemption") {
		return queue.KeyRule{Pattern: key, Support: queue.KeyElsewhere, Instead: insteadPreemptCS}, true
	}
	return siteKeys.Lookup(key)
}

// ownedKey reports whether the key is in one of the simulator's
// namespaces.
func ownedKey(key string) bool {
	for _, p := range siteNamespaces {
		if strings.HasPrefix(key, p) {
			return true
		}
	}
	return false
}

// SiteReport classifies every property of the site file (nil: an empty
// report): keys YARN or SLS knows that the simulator does not model, keys
// package preempt reads, and unknown keys in the simulator's namespaces
// with the closest known key. Keys outside those namespaces that the
// table does not name are not reported (see siteNamespaces). The notes are
// in key order.
func SiteReport(s *Site) queue.ConfigReport {
	var rep queue.ConfigReport
	if s == nil {
		return rep
	}
	keys := make([]string, 0, len(s.Values))
	for k := range s.Values {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	literals := siteKeys.Literals()
	for _, key := range keys {
		v := s.Values[key]
		rule, known := siteKeyRule(key)
		switch {
		case !known && ownedKey(key):
			sug, _ := queue.Closest(key, literals, queue.SuggestLimit(key))
			rep.Add(queue.ConfigNote{Kind: queue.NoteUnknown, Key: key, Value: v, Suggestion: sug})
		case !known:
			// Not the simulator's business (see siteNamespaces).
		case rule.Support == queue.KeyNotModelled:
			rep.Add(queue.ConfigNote{Kind: queue.NoteNotModelled, Key: key, Value: v, Instead: rule.Instead})
		case rule.Support == queue.KeyElsewhere:
			rep.Add(queue.ConfigNote{Kind: queue.NoteElsewhere, Key: key, Value: v, Instead: rule.Instead})
		}
	}
	rep.Sort()
	return rep
}
