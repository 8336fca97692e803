package capacity

import (
	"slices"
	"strings"

	"github.com/berthsched/berth/queue"
)

// YARN's capacity-scheduler.xml keys, as Berth knows them. Three tables:
// keys below yarn.scheduler.capacity. that are not about one queue
// (globalKeys, patterns relative to the prefix), keys about one queue
// (queueKeys, patterns relative to "yarn.scheduler.capacity.<queue-path>."),
// and keys outside the prefix that a capacity-scheduler.xml may hold
// (otherKeys, whole keys). ParseXMLReport classifies every property with
// them; a key no table matches is unknown (YARN ignores it too).

const (
	insteadNoAutoCreate = "the capacity scheduler's queue management policy is GuaranteedOrZeroCapacityOverTimePolicy"
	insteadPreempt      = "package preempt"
)

var globalKeys = queue.KeyTable{
	{Pattern: "maximum-applications"},
	{Pattern: "global-queue-max-application"},
	{Pattern: "maximum-am-resource-percent"},
	{Pattern: "resource-calculator"},
	{Pattern: "node-locality-delay"},
	{Pattern: "rack-locality-additional-delay"},
	{Pattern: "rack-locality-full-reset"},
	{Pattern: "per-node-heartbeat.maximum-offswitch-assignments"},
	{Pattern: "per-node-heartbeat.multiple-assignments-enabled"},
	{Pattern: "per-node-heartbeat.maximum-container-assignments"},
	{Pattern: "reservations-continue-look-all-nodes"},
	{Pattern: "queue-mappings"},
	{Pattern: "queue-mappings-override.enable"},

	// YARN 3.x's global scheduler, max-parallel-apps, auto-created queues
	// (async.go, maxapps.go, autoqueue.go).
	{Pattern: "schedule-asynchronously.enable"},
	{Pattern: "schedule-asynchronously.scheduling-interval-ms"},
	{Pattern: "schedule-asynchronously.maximum-threads"},
	{Pattern: "schedule-asynchronously.maximum-pending-backlogs"},
	{Pattern: "multi-node-placement-enabled"},
	{Pattern: "multi-node-sorting.policy"},
	{Pattern: "multi-node-sorting.policy.names"},
	{Pattern: "multi-node-sorting.policy.*.class"},
	{Pattern: "multi-node-sorting.policy.*.sorting-interval.ms"},
	{Pattern: "max-parallel-apps"},
	{Pattern: "user.max-parallel-apps"},
	{Pattern: "user.*.max-parallel-apps"},
	{Pattern: "legacy-queue-mode.enabled"},
	{Pattern: "auto-queue-creation-v2.queue-expiration-time"},
	{Pattern: "ordering-policy.priority-utilization.underutilized-preemption.**", Support: queue.KeyElsewhere, Instead: insteadPreempt},
	{Pattern: "lazy-preemption-enabled", Support: queue.KeyNotModelled, Instead: "preemption kills at once (no killable containers)"},
	{Pattern: "application.fail-fast", Support: queue.KeyNotModelled, Instead: "recovery is not modelled"},
	{Pattern: "workflow-priority-mappings"},
	{Pattern: "workflow-priority-mappings-override.enable"},
	{Pattern: "mapping-rule-format"},
	{Pattern: "mapping-rule-json"},
	{Pattern: "mapping-rule-json-file"},
	{Pattern: "user-metrics.enable", Support: queue.KeyNotModelled, Instead: "no metrics; the host reads Snapshot"},
	{Pattern: "skip-allocate-on-nodes-with-reserved-containers", Support: queue.KeyNotModelled, Instead: "a node's reservation is served first, then the node allocates as usual"},
	{Pattern: "maximum-application-priority", Support: queue.KeyNotModelled, Instead: "an application runs at the priority the host gives it (AppSpec.Priority)"},
}

var queueKeys = queue.KeyTable{
	{Pattern: "queues"},
	{Pattern: "capacity"},
	{Pattern: "maximum-capacity"},
	{Pattern: "user-limit-factor"},
	{Pattern: "minimum-user-limit-percent"},
	{Pattern: "maximum-applications"},
	{Pattern: "maximum-am-resource-percent"},
	{Pattern: "state"},
	{Pattern: "acl_submit_applications"},
	{Pattern: "acl_administer_queue"},
	{Pattern: "ordering-policy"},
	{Pattern: "ordering-policy.fair.enable-size-based-weight"},
	{Pattern: "priority"},
	{Pattern: "reservable"},
	{Pattern: "user-settings.*.weight"},

	{Pattern: "disable_preemption", Support: queue.KeyElsewhere, Instead: insteadPreempt},
	{Pattern: "intra-queue-preemption.disable_preemption", Support: queue.KeyElsewhere, Instead: insteadPreempt},

	{Pattern: "accessible-node-labels"},
	{Pattern: "accessible-node-labels.*.capacity"},
	{Pattern: "accessible-node-labels.*.maximum-capacity"},
	{Pattern: "accessible-node-labels.*.maximum-am-resource-percent"},
	{Pattern: "default-node-label-expression"},
	{Pattern: "accessible-node-labels.**", Support: queue.KeyNotModelled, Instead: "a queue's settings on a label are its capacity, maximum-capacity and maximum-am-resource-percent"},
	{Pattern: "auto-create-child-queue.enabled"},
	{Pattern: "auto-create-child-queue.max-queues"},
	{Pattern: "auto-create-child-queue.fail-on-exceeding-parent-capacity"},
	{Pattern: "auto-create-child-queue.management-policy"},
	{Pattern: "auto-queue-creation-v2.enabled"},
	{Pattern: "auto-queue-creation-v2.max-queues"},
	{Pattern: "auto-queue-creation-v2.queue-auto-removal.enable"},
	{Pattern: "maximum-allocation-mb"},
	{Pattern: "maximum-allocation-vcores"},
	{Pattern: "maximum-allocation"},
	{Pattern: "acl_application_max_priority"},
	{Pattern: "default-application-priority"},
	{Pattern: "maximum-application-lifetime"},
	{Pattern: "default-application-lifetime"},
	{Pattern: "max-parallel-apps"},
	{Pattern: "multi-node-sorting.policy"},
	{Pattern: "user-limit", Support: queue.KeyNotModelled, Instead: "use minimum-user-limit-percent"},
	{Pattern: "min-resource", Support: queue.KeyNotModelled, Instead: "write an absolute capacity as capacity=[memory=…,vcores=…]"},
	{Pattern: "max-resource", Support: queue.KeyNotModelled, Instead: "write an absolute maximum as maximum-capacity=[memory=…,vcores=…]"},
	{Pattern: "ordering-policy.exclusive-enforced-partitions", Support: queue.KeyNotModelled, Instead: "applications are ordered the same way on every partition"},
	{Pattern: "queue-management-policy", Support: queue.KeyNotModelled, Instead: insteadNoAutoCreate},
	{Pattern: "allow-zero-capacity-sum", Support: queue.KeyNotModelled, Instead: "children's capacities must add up to 100% (or all be 0 under a 0% parent)"},
	// A reservable queue's reservation settings (QueueSettings.Reservation).
	{Pattern: "reservation-window"},
	{Pattern: "average-capacity"},
	{Pattern: "instantaneous-max-capacity"},
	{Pattern: "reservation-enforcement-window"},
	{Pattern: "reservation-policy"},
	{Pattern: "reservation-agent"},
	{Pattern: "reservation-planner"},
	{Pattern: "show-reservations-as-queues"},
	{Pattern: "reservation-move-on-expiry"},
	{Pattern: "acl_submit_reservations"},
	{Pattern: "acl_list_reservations"},
	{Pattern: "acl_administer_reservations"},
}

// otherKeys also holds the ResourceManager's reservation-system keys
// (Config.ReservationSystem).
var otherKeys = append(queue.KeyTable{
	{Pattern: keyClusterMaxPriority},
	{Pattern: keyNMHeartbeat},
	{Pattern: keySkipMultiplier},
	{Pattern: keyWorkflowTagPrefix},
	{Pattern: "yarn.scheduler.minimum-allocation-mb"},
	{Pattern: "yarn.scheduler.minimum-allocation-vcores"},
	{Pattern: "yarn.scheduler.maximum-allocation-mb"},
	{Pattern: "yarn.scheduler.maximum-allocation-vcores"},
	{Pattern: queuePlacementRulesKey},
	{Pattern: appNameMappingsKey},

	{Pattern: "yarn.resourcemanager.monitor.capacity.preemption.**", Support: queue.KeyElsewhere, Instead: insteadPreempt},
	{Pattern: "yarn.resourcemanager.scheduler.monitor.enable", Support: queue.KeyElsewhere, Instead: insteadPreempt + " (the host decides when to run it)"},
	{Pattern: "yarn.resourcemanager.scheduler.monitor.policies", Support: queue.KeyElsewhere, Instead: insteadPreempt + " (the host decides when to run it)"},
}, queue.ReservationSystemKeys...)

// classifyKeys reports every property the typed configuration does not
// cover, and lists those it does as read. paths are the queue paths of
// the parsed tree, sorted.
func classifyKeys(props map[string]string, paths []string) queue.ConfigReport {
	var rep queue.ConfigReport
	isPath := make(map[string]bool, len(paths))
	for _, p := range paths {
		isPath[p] = true
	}
	for _, key := range sortedKeys(props) {
		rule, known := lookupKey(key, isPath)
		switch {
		case !known:
			rep.Add(queue.ConfigNote{Kind: queue.NoteUnknown, Key: key, Value: props[key], Suggestion: suggestKey(key, paths)})
		case rule.Support == queue.KeyNotModelled:
			rep.Add(queue.ConfigNote{Kind: queue.NoteNotModelled, Key: key, Value: props[key], Instead: rule.Instead})
		case rule.Support == queue.KeyElsewhere:
			rep.Add(queue.ConfigNote{Kind: queue.NoteElsewhere, Key: key, Value: props[key], Instead: rule.Instead})
		default:
			rep.Add(queue.ConfigNote{Kind: queue.NoteRead, Key: key, Value: props[key]})
		}
	}
	rep.Sort()
	return rep
}

// lookupKey finds the rule of a key: a global key, a key of a queue of
// the tree (the longest queue path that prefixes it), or another key.
func lookupKey(key string, isPath map[string]bool) (queue.KeyRule, bool) {
	rest, ok := strings.CutPrefix(key, prefix)
	if !ok {
		return otherKeys.Lookup(key)
	}
	if r, ok := globalKeys.Lookup(rest); ok {
		return r, true
	}
	// Try the longest queue path first: "root.a.capacity" is queue
	// root.a's capacity, not a key "a.capacity" of root.
	for i := len(rest) - 1; i > 0; i-- {
		if rest[i] != '.' || !isPath[rest[:i]] {
			continue
		}
		if r, ok := lookupQueueKey(rest[i+1:]); ok {
			return r, true
		}
	}
	return queue.KeyRule{}, false
}

// suggestKey finds the closest known key to an unknown one: a global key,
// the same queue with a known suffix, or a known suffix on the closest
// queue path (a misspelt queue name).
func suggestKey(key string, paths []string) string {
	limit := queue.SuggestLimit(key)
	best, bestD := "", limit+1
	try := func(cand string, d int) {
		if d >= 0 && d < bestD {
			best, bestD = cand, d
		}
	}
	rest, ok := strings.CutPrefix(key, prefix)
	if !ok {
		c, d := queue.Closest(key, otherKeys.Literals(), limit)
		try(c, d)
		for _, g := range globalKeys.Literals() {
			try(prefix+g, queue.EditDistance(key, prefix+g, bestD-1))
		}
		return best
	}
	if c, d := queue.Closest(rest, globalKeys.Literals(), limit); c != "" {
		try(prefix+c, d)
	}
	suffixes := queueKeys.Literals()
	for i := len(rest) - 1; i > 0; i-- {
		if rest[i] != '.' {
			continue
		}
		head, tail := rest[:i], rest[i+1:]
		if slices.Contains(paths, head) {
			if c, d := queue.Closest(tail, suffixes, bestD-1); c != "" {
				try(prefix+head+"."+c, d)
			}
		}
		if slices.Contains(suffixes, tail) {
			if c, d := queue.Closest(head, paths, bestD-1); c != "" {
				try(prefix+c+"."+tail, d)
			}
		}
	}
	return best
}

// templatePrefixes start a queue key that configures the queues a parent
// auto-creates; the rest is a queue key of its own.
var templatePrefixes = []string{leafTemplate + ".", autoV2Prefix + "template.", autoV2Prefix + "leaf-template.", autoV2Prefix + "parent-template."}

// lookupQueueKey finds the rule of a queue key, looking through the
// auto-creation templates.
func lookupQueueKey(tail string) (queue.KeyRule, bool) {
	for _, tp := range templatePrefixes {
		if rest, ok := strings.CutPrefix(tail, tp); ok {
			return lookupQueueKey(rest)
		}
	}
	return queueKeys.Lookup(tail)
}
