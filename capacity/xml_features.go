package capacity

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

// The YARN 3.x keys of capacity-scheduler.xml (and the yarn-site.xml
// keys YARN reads beside them): max-parallel-apps, priorities, lifetimes,
// maximum allocations, asynchronous and multi-node scheduling,
// auto-created queues. xml.go calls globalFeatures and queueFeatures.

// Keys outside the capacity prefix that the capacity scheduler reads.
const (
	keyClusterMaxPriority = "yarn.cluster.max-application-priority"
	keyACLEnable          = "yarn.acl.enable"
	keyNMHeartbeat        = "yarn.resourcemanager.nodemanagers.heartbeat-interval-ms"
	keySkipMultiplier     = "yarn.scheduler.skip.node.multiplier"
	keyWorkflowTagPrefix  = "yarn.workflow-id.tag-prefix"
)

// Keys below the capacity prefix.
const (
	asyncPrefix       = "schedule-asynchronously."
	nodeSortingPrefix = "multi-node-sorting.policy"
	autoV1Prefix      = "auto-create-child-queue."
	autoV2Prefix      = "auto-queue-creation-v2."
	leafTemplate      = "leaf-queue-template"
)

// globalFeatures reads the scheduler-wide keys.
func (p *parser) globalFeatures(cfg *Config) {
	p.nonNegInt(prefix+"max-parallel-apps", &cfg.MaxParallelApps)
	p.nonNegInt(prefix+"user.max-parallel-apps", &cfg.UserMaxParallelApps)
	for _, k := range sortedKeys(p.props) {
		rest, ok := strings.CutPrefix(k, prefix+"user.")
		if !ok {
			continue
		}
		u, ok := strings.CutSuffix(rest, ".max-parallel-apps")
		if !ok || u == "" || strings.Contains(u, ".") {
			continue
		}
		v := -1
		p.nonNegInt(k, &v)
		if p.err == nil {
			if cfg.UserMaxParallelAppsFor == nil {
				cfg.UserMaxParallelAppsFor = map[string]int{}
			}
			cfg.UserMaxParallelAppsFor[u] = v
		}
	}
	p.int32(keyClusterMaxPriority, &cfg.MaxAppPriority)
	p.bool(keyACLEnable, &cfg.ACLEnable)
	if v, ok := p.get(prefix + "workflow-priority-mappings"); ok {
		wp, err := ParseWorkflowPriorities(v)
		if err != nil {
			p.fail(prefix+"workflow-priority-mappings", v, reasonOf(err))
		}
		cfg.WorkflowPriorities = wp
	}
	p.bool(prefix+"workflow-priority-mappings-override.enable", &cfg.WorkflowPriorityOverride)
	p.readMappingRules(&cfg.Placement)
	if v, ok := p.get(keyWorkflowTagPrefix); ok {
		cfg.WorkflowTagPrefix = v
	}

	a := &cfg.Async
	p.bool(prefix+asyncPrefix+"enable", &a.Enabled)
	p.nonNegInt64(prefix+asyncPrefix+"scheduling-interval-ms", &a.Interval)
	p.int(prefix+asyncPrefix+"maximum-threads", &a.Threads)
	a.Threads = max(a.Threads, 1) // YARN: at least one thread
	p.int(prefix+asyncPrefix+"maximum-pending-backlogs", &a.MaxPendingBacklogs)
	beat, mult := int64(1000), int64(2)
	p.nonNegInt64(keyNMHeartbeat, &beat)
	p.nonNegInt64(keySkipMultiplier, &mult)
	if _, ok := p.props[keyNMHeartbeat]; ok {
		a.SkipNodeAfter = beat * mult
	} else if _, ok := p.props[keySkipMultiplier]; ok {
		a.SkipNodeAfter = beat * mult
	}

	m := &cfg.MultiNode
	p.bool(prefix+"multi-node-placement-enabled", &m.Enabled)
	if v, ok := p.get(prefix + nodeSortingPrefix); ok {
		m.Policy = strings.TrimSpace(v)
	}
	if v, ok := p.get(prefix + nodeSortingPrefix + ".names"); ok {
		for _, name := range splitList(v) {
			p.nodeSorting(m, name)
		}
	}

	var expire int64 = 300
	p.nonNegInt64(prefix+autoV2Prefix+"queue-expiration-time", &expire)
	if p.err == nil {
		cfg.AutoQueueExpiration = expire * 1000
	}
	legacy := true
	p.bool(prefix+"legacy-queue-mode.enabled", &legacy)
	cfg.NonLegacyQueueMode = !legacy
}

// partialShuffleClass is YARN's resource-usage policy that shuffles each
// ten nodes of the sorted order (YARN-10738), read as ResourceUsageNodes.
const partialShuffleClass = "org.apache.hadoop.yarn.server.resourcemanager.scheduler.placement.ResourceUsageWithPartialShuffleMultiNodeLookupPolicy"

// nodeSorting reads one named multi-node sorting policy.
func (p *parser) nodeSorting(m *MultiNodePlacement, name string) {
	key := prefix + nodeSortingPrefix + "." + name
	class, ok := p.get(key + ".class")
	class = strings.TrimSpace(class)
	if !ok || class == "" {
		if name != "default" {
			p.fail(key+".class", class, "the policy's class is not configured")
			return
		}
		class = ResourceUsageClass
	}
	var pol NodeSortingPolicy
	switch class {
	case ResourceUsageClass, "ResourceUsageMultiNodeLookupPolicy":
		pol = ResourceUsageNodes{}
	case partialShuffleClass, partialShuffleClass[strings.LastIndexByte(partialShuffleClass, '.')+1:]:
		pol = ResourceUsageNodes{}
		p.notes = append(p.notes, queue.ConfigNote{Kind: queue.NoteNotModelled, Key: key + ".class", Value: class,
			Instead: "sorted as ResourceUsageMultiNodeLookupPolicy (least allocated first, ties by node id) without the random " +
				"shuffle of each ten nodes, which spreads YARN's scheduling threads: Berth's rounds are one deterministic thread"})
	default:
		if hp, ok := p.opts.NodeSortings.Lookup(class); ok && hp != nil {
			pol = hp
		} else if p.err == nil {
			p.err = &berth.FieldError{Field: key + ".class", Value: class, Reason: "unknown multi-node sorting policy",
				Err: &queue.UnknownNameError{Field: key + ".class", Kind: "multi-node sorting policy", Name: class, Known: p.opts.NodeSortings.Names()}}
			return
		}
	}
	var interval int64 = 1000
	p.nonNegInt64(key+".sorting-interval.ms", &interval)
	if m.Policies == nil {
		m.Policies = map[string]NodeSorting{}
	}
	m.Policies[name] = NodeSorting{Policy: pol, Interval: interval}
}

// queueFeatures reads a queue's YARN 3.x keys.
func (p *parser) queueFeatures(key, path string, q *QueueConfig, depth int) {
	st := &q.Settings
	p.nonNegInt(key+"max-parallel-apps", &st.MaxParallelApps)
	p.int32(key+"default-application-priority", &st.DefaultAppPriority)
	if v, ok := p.get(key + "acl_application_max_priority"); ok {
		acls, err := ParsePriorityACLs(v)
		if err != nil {
			p.fail(key+"acl_application_max_priority", v, reasonOf(err))
		}
		st.PriorityACLs = acls
	}
	p.int64(key+"maximum-application-lifetime", &st.MaxAppLifetime)
	p.int64(key+"default-application-lifetime", &st.DefaultAppLifetime)
	p.maxAllocation(key, &st.MaxAllocation)
	if v, ok := p.get(key + nodeSortingPrefix); ok {
		st.NodeSortingPolicy = strings.TrimSpace(v)
	}
	p.autoCreate(key, path, q, depth)
}

// managedParent reports whether the queue at key is a legacy managed
// parent (auto-create-child-queue.enabled): a parent even without
// configured children.
func (p *parser) managedParent(key string) bool {
	v := false
	p.bool(key+autoV1Prefix+"enabled", &v)
	return v
}

// maxAllocation reads maximum-allocation ("memory-mb=8192,vcores=4"),
// else maximum-allocation-mb and -vcores, as YARN does (the older keys
// count only when the newer is unset).
func (p *parser) maxAllocation(key string, dst *berth.Resource) {
	if v, ok := p.get(key + "maximum-allocation"); ok && strings.TrimSpace(v) != "" {
		r, err := parseResourceList(v)
		if err != nil {
			p.fail(key+"maximum-allocation", v, err.Error())
			return
		}
		*dst = r
		return
	}
	mb, vc := int64(-1), int64(-1)
	p.int64(key+"maximum-allocation-mb", &mb)
	p.int64(key+"maximum-allocation-vcores", &vc)
	if mb > 0 {
		dst.Memory = mb
	}
	if vc > 0 {
		dst.VCores = vc
	}
}

// parseResourceList reads YARN's resource string
// ("memory-mb=8192,vcores=4,gpu=2"); memory may carry a unit (Mi, Gi, Ti).
func parseResourceList(v string) (berth.Resource, error) {
	var r berth.Resource
	for _, part := range strings.Split(v, ",") {
		name, val, ok := strings.Cut(part, "=")
		name, val = strings.TrimSpace(name), strings.TrimSpace(val)
		if !ok || name == "" || val == "" {
			return r, fmt.Errorf("bad resource entry %q (name=value)", part)
		}
		mult := int64(1)
		for _, u := range []struct {
			s string
			m int64
		}{{"Mi", 1}, {"Gi", 1024}, {"Ti", 1024 * 1024}, {"M", 1}, {"G", 1024}, {"T", 1024 * 1024}} {
			if s, ok := strings.CutSuffix(val, u.s); ok {
				val, mult = s, u.m
				break
			}
		}
		n, err := strconv.ParseInt(val, 10, 64)
		if err != nil || n < 0 || n > (1<<62)/mult {
			return r, fmt.Errorf("bad amount for %s", name)
		}
		n *= mult
		switch name {
		case "memory-mb", "memory":
			r.Memory = n
		case "vcores":
			r.VCores = n
		default:
			r = r.With(name, n)
		}
	}
	return r, nil
}

// autoCreate reads a parent's auto-creation keys and templates.
func (p *parser) autoCreate(key, path string, q *QueueConfig, depth int) {
	v1, v2 := false, false
	p.bool(key+autoV1Prefix+"enabled", &v1)
	p.bool(key+autoV2Prefix+"enabled", &v2)
	if p.err != nil || (!v1 && !v2) {
		return
	}
	if v1 && v2 {
		p.fail(key+autoV2Prefix+"enabled", "true", "a queue cannot enable both auto-create-child-queue and auto-queue-creation-v2")
		return
	}
	a := DefaultAutoCreate(v2)
	if v1 {
		// A managed parent: configured as a leaf, it is a parent of the
		// leaves it creates.
		q.Parent = true
		p.nonNegInt(key+autoV1Prefix+"max-queues", &a.MaxQueues)
		p.bool(key+autoV1Prefix+"fail-on-exceeding-parent-capacity", &a.FailOnExceedingCapacity)
		if v, ok := p.get(key + autoV1Prefix + "management-policy"); ok &&
			!strings.HasSuffix(strings.TrimSpace(v), "GuaranteedOrZeroCapacityOverTimePolicy") {
			p.fail(key+autoV1Prefix+"management-policy", v, "only GuaranteedOrZeroCapacityOverTimePolicy is modelled")
		}
		a.Leaf = p.template(path+"."+leafTemplate, nil, depth)
		if a.Leaf.Capacity.Kind == queue.CapacityUnset {
			a.Leaf.Capacity = queue.Percent(0)
		}
	} else {
		p.nonNegInt(key+autoV2Prefix+"max-queues", &a.MaxQueues)
		p.bool(key+autoV2Prefix+"queue-auto-removal.enable", &a.AutoRemoval)
		common := path + "." + autoV2Prefix + "template"
		a.Leaf = p.template(path+"."+autoV2Prefix+"leaf-template", &common, depth)
		a.Parent = p.template(path+"."+autoV2Prefix+"parent-template", &common, depth)
		for _, t := range []*QueueTemplate{&a.Leaf, &a.Parent} {
			if t.Capacity.Kind == queue.CapacityUnset {
				t.Capacity = queue.Weight(1)
			}
		}
	}
	q.Settings.AutoCreate = a
}

// template reads the template at path (read as a queue of that path, as
// YARN reads a template's keys), over base's keys when given (v2's
// shared template).
func (p *parser) template(path string, base *string, depth int) QueueTemplate {
	tp := p
	if base != nil {
		// The shared template's keys, then the specific ones over them.
		props := make(map[string]string)
		for k, v := range p.props {
			if rest, ok := strings.CutPrefix(k, prefix+*base+"."); ok {
				props[prefix+path+"."+rest] = v
			}
		}
		for k, v := range p.props {
			if strings.HasPrefix(k, prefix+path+".") {
				props[k] = v
			}
		}
		tp = &parser{props: props, opts: p.opts, weights: map[string][]string{}, labelKeys: indexLabelKeys(props), named: p.named}
		tp.indexWeights()
	}
	q := tp.queue(path[strings.LastIndexByte(path, '.')+1:], path, depth+1)
	if tp.err != nil && p.err == nil {
		p.err = tp.err
	}
	return QueueTemplate{Capacity: q.Capacity, MaxCapacity: q.MaxCapacity, Settings: q.Settings}
}

func (p *parser) nonNegInt(key string, dst *int) {
	v := *dst
	p.int(key, &v)
	if _, set := p.props[key]; set && v < 0 {
		p.fail(key, strconv.Itoa(v), "must not be negative")
		return
	}
	*dst = v
}

func (p *parser) nonNegInt64(key string, dst *int64) {
	v := *dst
	p.int64(key, &v)
	if _, set := p.props[key]; set && v < 0 {
		p.fail(key, strconv.FormatInt(v, 10), "must not be negative")
		return
	}
	*dst = v
}

func (p *parser) int32(key string, dst *int32) {
	if v, ok := p.get(key); ok {
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 32)
		if err != nil {
			p.fail(key, v, "not a 32-bit integer")
			return
		}
		*dst = int32(n)
	}
}

// orderingPolicy reads a queue's ordering-policy. A leaf takes an
// application ordering (fifo, fair, and fifo-with-partitions and
// fifo-for-pending-apps read as fifo), a parent a queue ordering
// (utilization, priority-utilization); either may name a host's policy.
// YARN 2.9 and later refuse a leaf ordering on a parent (it is no queue
// ordering class) and a queue ordering on a leaf; so does Berth, unless
// XMLOptions.IgnoreLeafOrderingOnParents keeps YARN 2.8's reading of the
// former: ignored, with a note in the report.
func (p *parser) orderingPolicy(key, v string, leaf bool, st *QueueSettings) {
	switch v {
	case "fifo", "fifo-with-partitions", "fifo-for-pending-apps", "fair":
		if !leaf {
			if p.opts.IgnoreLeafOrderingOnParents {
				p.notes = append(p.notes, queue.ConfigNote{Kind: queue.NoteNotModelled, Key: key, Value: v,
					Instead: "ignored on a parent queue, as YARN 2.8 did (YARN 2.9+ refuses it); the parent orders its children by utilization"})
				return
			}
			p.fail(key, v, "Unable to construct queue ordering policy="+v+": a parent queue takes utilization or priority-utilization (YARN 2.9+)")
			return
		}
		st.AppOrdering = OrderFIFO
		if v == "fair" {
			st.AppOrdering = OrderFair
		}
	case "utilization", "priority-utilization":
		if leaf {
			p.fail(key, v, "Unable to construct ordering policy for: "+v+": a leaf queue takes fifo or fair")
			return
		}
		st.ChildOrdering = OrderUtilization
		if v == "priority-utilization" {
			st.ChildOrdering = OrderPriorityUtilization
		}
	default:
		p.customOrdering(key, v, leaf, st)
	}
}

// reasonOf is the reason a parser's *berth.FieldError gives, with the
// part at fault, for the parser's own error naming the whole key.
func reasonOf(err error) string {
	var fe *berth.FieldError
	if errors.As(err, &fe) {
		return fmt.Sprintf("%s: %v", fe.Reason, fe.Value)
	}
	return err.Error()
}
