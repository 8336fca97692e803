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
	insteadNoAutoCreate = "no auto-created queues: a queue must be configured; mappings to missing queues are refused or fall back as YARN does without auto-creation"
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

	{Pattern: "schedule-asynchronously.enable", Support: queue.KeyNotModelled, Instead: "no asynchronous scheduling: containers are allocated on the host's node heartbeats"},
	{Pattern: "schedule-asynchronously.**", Support: queue.KeyNotModelled, Instead: "no asynchronous scheduling: containers are allocated on the host's node heartbeats"},
	{Pattern: "multi-node-placement-enabled", Support: queue.KeyNotModelled, Instead: "single-node placement: each heartbeat allocates on its own node"},
	{Pattern: "multi-node-sorting.**", Support: queue.KeyNotModelled, Instead: "single-node placement: each heartbeat allocates on its own node"},
	{Pattern: "lazy-preemption-enabled", Support: queue.KeyNotModelled, Instead: "preemption kills at once (no killable containers)"},
	{Pattern: "application.fail-fast", Support: queue.KeyNotModelled, Instead: "recovery is not modelled"},
	{Pattern: "workflow-priority-mappings", Support: queue.KeyNotModelled, Instead: "an application runs at the priority the host gives it (AppSpec.Priority)"},
	{Pattern: "workflow-priority-mappings-override.enable", Support: queue.KeyNotModelled, Instead: "an application runs at the priority the host gives it (AppSpec.Priority)"},
	{Pattern: "mapping-rule-format", Support: queue.KeyNotModelled, Instead: "only the legacy queue-mappings format is read"},
	{Pattern: "mapping-rule-json", Support: queue.KeyNotModelled, Instead: "only the legacy queue-mappings format is read"},
	{Pattern: "mapping-rule-json-file", Support: queue.KeyNotModelled, Instead: "only the legacy queue-mappings format is read"},
	{Pattern: "user-metrics.enable", Support: queue.KeyNotModelled, Instead: "no metrics; the host reads Snapshot"},
	{Pattern: "skip-allocate-on-nodes-with-reserved-containers", Support: queue.KeyNotModelled, Instead: "a node's reservation is served first, then the node allocates as usual"},
	{Pattern: "legacy-queue-mode.enabled", Support: queue.KeyNotModelled, Instead: "capacities are percentages or absolute resources (legacy mode); weights are not read"},
	{Pattern: "max-parallel-apps", Support: queue.KeyNotModelled, Instead: "every admitted application may run (no max-parallel-apps limit)"},
	{Pattern: "user.max-parallel-apps", Support: queue.KeyNotModelled, Instead: "every admitted application may run (no max-parallel-apps limit)"},
	{Pattern: "user.*.max-parallel-apps", Support: queue.KeyNotModelled, Instead: "every admitted application may run (no max-parallel-apps limit)"},
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
	{Pattern: "auto-create-child-queue.enabled", Support: queue.KeyNotModelled, Instead: insteadNoAutoCreate},
	{Pattern: "auto-create-child-queue.**", Support: queue.KeyNotModelled, Instead: insteadNoAutoCreate},
	{Pattern: "leaf-queue-template.**", Support: queue.KeyNotModelled, Instead: insteadNoAutoCreate},
	{Pattern: "auto-queue-creation-v2.enabled", Support: queue.KeyNotModelled, Instead: insteadNoAutoCreate},
	{Pattern: "auto-queue-creation-v2.**", Support: queue.KeyNotModelled, Instead: insteadNoAutoCreate},
	{Pattern: "maximum-allocation-mb", Support: queue.KeyNotModelled, Instead: "the cluster-wide maximum allocation applies to every queue"},
	{Pattern: "maximum-allocation-vcores", Support: queue.KeyNotModelled, Instead: "the cluster-wide maximum allocation applies to every queue"},
	{Pattern: "maximum-allocation", Support: queue.KeyNotModelled, Instead: "the cluster-wide maximum allocation applies to every queue"},
	{Pattern: "acl_application_max_priority", Support: queue.KeyNotModelled, Instead: "application priorities are not capped per queue"},
	{Pattern: "default-application-priority", Support: queue.KeyNotModelled, Instead: "an application runs at the priority the host gives it (AppSpec.Priority)"},
	{Pattern: "maximum-application-lifetime", Support: queue.KeyNotModelled, Instead: "application lifetimes are not enforced (the host finishes applications)"},
	{Pattern: "default-application-lifetime", Support: queue.KeyNotModelled, Instead: "application lifetimes are not enforced (the host finishes applications)"},
	{Pattern: "max-parallel-apps", Support: queue.KeyNotModelled, Instead: "every admitted application may run (no max-parallel-apps limit)"},
	{Pattern: "user-limit", Support: queue.KeyNotModelled, Instead: "use minimum-user-limit-percent"},
	{Pattern: "multi-node-sorting.policy", Support: queue.KeyNotModelled, Instead: "single-node placement: each heartbeat allocates on its own node"},
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
		if r, ok := queueKeys.Lookup(rest[i+1:]); ok {
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
