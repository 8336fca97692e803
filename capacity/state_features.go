package capacity

import (
	"fmt"
	"math"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

// The YARN 3.x state of a snapshot (state.go's body, version
// featuresVersion and later): in the configuration, the scheduler-wide
// settings after the groups flag and each queue's settings after its user
// weights; per application, after its request table, whether it is
// runnable and its deadline; per node, after its capability, its last
// heartbeat; and after the leaf caches, the asynchronous rounds run and
// the multi-node sorters' orders.

// featuresVersion is the first body version with the YARN 3.x state.
const featuresVersion = 3

// Node sorting policy tags of the body.
const (
	tagResourceUsage = 1 // ResourceUsageNodes
)

func writeConfigFeatures(e *berth.StateEncoder, c *Config) {
	e.Int(c.MaxParallelApps)
	e.Int(c.UserMaxParallelApps)
	users := sortedKeys(c.UserMaxParallelAppsFor)
	e.Len(len(users))
	for _, u := range users {
		e.String(u)
		e.Int(c.UserMaxParallelAppsFor[u])
	}
	e.Varint(int64(c.MaxAppPriority))
	e.Bool(c.ACLEnable)
	a := &c.Async
	e.Bool(a.Enabled)
	e.Varint(a.Interval)
	e.Int(a.Threads)
	e.Int(a.MaxPendingBacklogs)
	e.Varint(a.SkipNodeAfter)
	m := &c.MultiNode
	e.Bool(m.Enabled)
	e.String(m.Policy)
	names := sortedKeys(m.Policies)
	e.Len(len(names))
	for _, n := range names {
		ns := m.Policies[n]
		e.String(n)
		writeNodeSortingPolicy(e, ns.Policy)
		e.Varint(ns.Interval)
	}
	e.Varint(c.AutoQueueExpiration)
	e.Bool(c.NonLegacyQueueMode)
	e.Len(len(c.WorkflowPriorities))
	for _, w := range c.WorkflowPriorities {
		e.String(w.WorkflowID)
		e.String(w.Queue)
		e.Varint(int64(w.Priority))
	}
	e.Bool(c.WorkflowPriorityOverride)
	e.String(c.WorkflowTagPrefix)
	pl := &c.Placement
	e.Uvarint(uint64(pl.Format))
	e.Len(len(pl.JSONRules))
	for _, r := range pl.JSONRules {
		e.Uvarint(uint64(r.Type))
		e.String(r.Matches)
		e.Uvarint(uint64(r.Policy))
		e.String(r.ParentQueue)
		e.String(r.Value)
		e.String(r.CustomPlacement)
		e.Uvarint(uint64(r.Fallback))
		e.Bool(r.NoCreate)
	}
}

func writeNodeSortingPolicy(e *berth.StateEncoder, p NodeSortingPolicy) {
	switch p.(type) {
	case nil:
		e.Uvarint(tagNone)
	case ResourceUsageNodes:
		e.Uvarint(tagBuiltin)
		e.Uvarint(tagResourceUsage)
	default:
		e.Uvarint(tagHost)
		e.String(p.Name())
	}
}

func (r *restorer) readConfigFeatures(c *Config) {
	d := r.d
	if d.Version() < featuresVersion {
		// Older snapshots: YARN's defaults.
		def := DefaultConfig()
		c.MaxParallelApps, c.UserMaxParallelApps = def.MaxParallelApps, def.UserMaxParallelApps
		c.Async, c.MultiNode, c.AutoQueueExpiration = def.Async, def.MultiNode, def.AutoQueueExpiration
		c.WorkflowTagPrefix = def.WorkflowTagPrefix
		return
	}
	c.MaxParallelApps = d.Int()
	c.UserMaxParallelApps = d.Int()
	n := d.Len(maxStateCount)
	for i := 0; i < n && d.Err() == nil; i++ {
		if c.UserMaxParallelAppsFor == nil {
			c.UserMaxParallelAppsFor = map[string]int{}
		}
		u := d.String()
		c.UserMaxParallelAppsFor[u] = d.Int()
	}
	c.MaxAppPriority = r.int32("cluster maximum priority")
	c.ACLEnable = d.Bool()
	a := &c.Async
	a.Enabled = d.Bool()
	a.Interval = d.Varint()
	a.Threads = d.Int()
	a.MaxPendingBacklogs = d.Int()
	a.SkipNodeAfter = d.Varint()
	m := &c.MultiNode
	m.Enabled = d.Bool()
	m.Policy = d.String()
	n = d.Len(maxStateCount)
	for i := 0; i < n && d.Err() == nil; i++ {
		if m.Policies == nil {
			m.Policies = map[string]NodeSorting{}
		}
		name := d.String()
		pol := r.readNodeSortingPolicy()
		m.Policies[name] = NodeSorting{Policy: pol, Interval: d.Varint()}
	}
	c.AutoQueueExpiration = d.Varint()
	c.NonLegacyQueueMode = d.Bool()
	n = d.Len(maxStateCount)
	for i := 0; i < n && d.Err() == nil; i++ {
		c.WorkflowPriorities = append(c.WorkflowPriorities, WorkflowPriority{WorkflowID: d.String(), Queue: d.String(), Priority: r.int32("workflow priority")})
	}
	c.WorkflowPriorityOverride = d.Bool()
	c.WorkflowTagPrefix = d.String()
	pl := &c.Placement
	pl.Format = MappingFormat(r.small(uint64(MappingJSON), "mapping rule format"))
	n = d.Len(maxStateCount)
	for i := 0; i < n && d.Err() == nil; i++ {
		var m MappingRule
		m.Type = RuleMatch(r.small(uint64(len(ruleMatchNames)-1), "mapping rule type"))
		m.Matches = d.String()
		m.Policy = RulePolicy(r.small(uint64(len(rulePolicyNames)-1), "mapping rule policy"))
		m.ParentQueue, m.Value, m.CustomPlacement = d.String(), d.String(), d.String()
		m.Fallback = RuleFallback(r.small(uint64(len(ruleFallbackNames)-1), "mapping rule fallback"))
		m.NoCreate = d.Bool()
		pl.JSONRules = append(pl.JSONRules, m)
	}
}

func (r *restorer) readNodeSortingPolicy() NodeSortingPolicy {
	d := r.d
	switch tag := d.Uvarint(); tag {
	case tagNone:
		return nil
	case tagBuiltin:
		if b := d.Uvarint(); b != tagResourceUsage {
			r.fail("node sorting policy %d", b)
		}
		return ResourceUsageNodes{}
	case tagHost:
		name := d.String()
		pol, ok := r.env.NodeSortings.Lookup(name)
		if !ok || pol == nil {
			d.Defer(berth.InvalidField("node sorting policy", name, "not in RestoreEnv.NodeSortings"))
		}
		return pol
	default:
		r.fail("node sorting policy tag %d", tag)
	}
	return nil
}

func writeSettingsFeatures(e *berth.StateEncoder, st *QueueSettings) {
	e.Int(st.MaxParallelApps)
	e.Varint(int64(st.DefaultAppPriority))
	e.Bool(st.PriorityACLs != nil)
	e.Len(len(st.PriorityACLs))
	for _, a := range st.PriorityACLs {
		queue.WriteACL(e, &a.Who)
		e.Varint(int64(a.Max))
		e.Varint(int64(a.Default))
	}
	e.Varint(st.MaxAppLifetime)
	e.Varint(st.DefaultAppLifetime)
	e.Resource(st.MaxAllocation)
	e.String(st.NodeSortingPolicy)
	ac := st.AutoCreate
	e.Bool(ac != nil)
	if ac == nil {
		return
	}
	e.Bool(ac.V2)
	e.Int(ac.MaxQueues)
	e.Bool(ac.FailOnExceedingCapacity)
	e.Bool(ac.AutoRemoval)
	for _, t := range []*QueueTemplate{&ac.Leaf, &ac.Parent} {
		writeCapacity(e, t.Capacity)
		writeCapacity(e, t.MaxCapacity)
		writeSettings(e, &t.Settings)
	}
}

// maxTemplateDepth bounds templates nested in templates in a snapshot.
const maxTemplateDepth = 8

func (r *restorer) readSettingsFeatures(st *QueueSettings, depth int) {
	d := r.d
	if d.Version() < featuresVersion {
		def := DefaultSettings()
		st.MaxParallelApps, st.MaxAppLifetime, st.DefaultAppLifetime = def.MaxParallelApps, def.MaxAppLifetime, def.DefaultAppLifetime
		return
	}
	st.MaxParallelApps = d.Int()
	st.DefaultAppPriority = r.int32("default application priority")
	hasACLs := d.Bool()
	n := d.Len(maxStateCount)
	if hasACLs {
		st.PriorityACLs = make([]PriorityACL, 0, min(n, 64))
	}
	for i := 0; i < n && d.Err() == nil; i++ {
		who := queue.ReadACL(d)
		if who == nil {
			r.fail("priority ACL without users")
			return
		}
		st.PriorityACLs = append(st.PriorityACLs, PriorityACL{Who: *who, Max: r.int32("max priority"), Default: r.int32("default priority")})
	}
	st.MaxAppLifetime = d.Varint()
	st.DefaultAppLifetime = d.Varint()
	st.MaxAllocation = d.Resource()
	st.NodeSortingPolicy = d.String()
	if !d.Bool() {
		return
	}
	if depth > maxTemplateDepth {
		r.fail("auto-creation templates nested deeper than %d", maxTemplateDepth)
		return
	}
	ac := &AutoCreate{V2: d.Bool(), MaxQueues: d.Int(), FailOnExceedingCapacity: d.Bool(), AutoRemoval: d.Bool()}
	for _, t := range []*QueueTemplate{&ac.Leaf, &ac.Parent} {
		t.Capacity = r.readCapacity()
		t.MaxCapacity = r.readCapacity()
		t.Settings = r.readSettingsDepth(depth + 1)
	}
	st.AutoCreate = ac
}

// int32 reads a varint that must fit an int32.
func (r *restorer) int32(what string) int32 {
	v := r.d.Varint()
	if v < math.MinInt32 || v > math.MaxInt32 {
		r.fail("%s %d out of range", what, v)
		return 0
	}
	return int32(v)
}

// writeAppFeatures writes an application's max-parallel-apps state and
// deadline.
func writeAppFeatures(e *berth.StateEncoder, a *app) {
	e.Bool(a.runnable)
	e.Varint(a.deadline)
}

func (r *restorer) readAppFeatures(f *appFields) {
	if r.d.Version() < featuresVersion {
		f.runnable, f.deadline = true, berth.MaxTime
		return
	}
	f.runnable = r.d.Bool()
	f.deadline = r.d.Varint()
}

// readNodeFeatures reads a node's last heartbeat.
func (r *restorer) readNodeFeatures(now berth.Time) berth.Time {
	if r.d.Version() < featuresVersion {
		return now
	}
	return r.d.Varint()
}

// writeRoundState writes the rounds run and the multi-node sorters' kept
// orders (node indexes into the id-ordered node list).
func (s *Scheduler) writeRoundState(e *berth.StateEncoder, nodeIx map[*node]int) {
	e.Uvarint(s.rounds)
	names := sortedKeys(s.sorters)
	e.Len(len(names))
	for _, n := range names {
		so := s.sorters[n]
		e.String(n)
		e.Bool(so.valid)
		e.Varint(so.at)
		e.Len(len(so.order))
		for _, nd := range so.order {
			if i, ok := nodeIx[nd]; ok {
				e.Int(i)
			} else {
				e.Int(-1) // a node removed since the sort
			}
		}
	}
}

// readRoundState reads what writeRoundState wrote; nodes are the
// restored nodes in id order, nil when only skipping.
func (r *restorer) readRoundState(s *Scheduler, nodes []*node) {
	d := r.d
	if d.Version() < featuresVersion {
		return
	}
	s.rounds = d.Uvarint()
	n := d.Len(maxStateCount)
	for i := 0; i < n && d.Err() == nil; i++ {
		name := d.String()
		so := &nodeSorter{valid: d.Bool(), at: d.Varint()}
		m := d.Len(maxStateCount)
		for j := 0; j < m && d.Err() == nil; j++ {
			ix := d.Int()
			switch {
			case ix == -1:
				// A node gone since the sort: it stays out, as it would
				// be skipped.
			case nodes == nil:
				// skipping the body (skipRest)
			case ix < 0 || ix >= len(nodes):
				r.fail("sorter %s: node index %d of %d", name, ix, len(nodes))
			default:
				so.order = append(so.order, nodes[ix])
			}
		}
		if s.sorters == nil {
			s.sorters = map[string]*nodeSorter{}
		}
		s.sorters[name] = so
	}
}

// autoRecord is an auto-created queue as a snapshot holds it.
type autoRecord struct {
	parent, name  string
	leaf          bool
	capacity, max queue.Capacity
	st            QueueSettings
	auto          autoKind
	lastSubmit    berth.Time
}

// writeAutoQueues writes the auto-created queues, parents before their
// children (tree order).
func (s *Scheduler) writeAutoQueues(e *berth.StateEncoder) {
	var qs []*qnode
	eachQueue(s.root, func(q *qnode) {
		if q.auto != autoNone {
			qs = append(qs, q)
		}
	})
	e.Len(len(qs))
	for _, q := range qs {
		e.String(q.parent.path)
		e.String(q.name)
		e.Bool(q.leaf != nil)
		writeCapacity(e, q.tq.Capacity())
		writeCapacity(e, q.tq.MaxCapacity())
		writeSettings(e, q.set())
		e.Uvarint(uint64(q.auto))
		e.Varint(q.lastSubmit)
	}
}

// readAutoQueues reads what writeAutoQueues wrote.
func (r *restorer) readAutoQueues() []autoRecord {
	d := r.d
	if d.Version() < featuresVersion {
		return nil
	}
	n := d.Len(maxStateCount)
	var out []autoRecord
	for i := 0; i < n && d.Err() == nil; i++ {
		a := autoRecord{parent: d.String(), name: d.String(), leaf: d.Bool()}
		a.capacity, a.max = r.readCapacity(), r.readCapacity()
		a.st = r.readSettings()
		a.auto = autoKind(r.small(uint64(autoV2), "auto-creation kind"))
		a.lastSubmit = d.Varint()
		out = append(out, a)
	}
	return out
}

// restoreAutoQueues recreates the auto-created queues in s.
func (s *Scheduler) restoreAutoQueues(recs []autoRecord) error {
	for i, a := range recs {
		p := s.byPath[a.parent]
		if p == nil || p.leaf != nil || a.auto == autoNone {
			return fmt.Errorf("auto-created queues[%d]: %q is not a parent", i, a.parent)
		}
		kind := queue.KindParent
		if a.leaf {
			kind = queue.KindLeaf
		}
		tq, err := s.tree.AddDynamicQueue(p.tq, a.name, kind, a.st)
		if err != nil {
			return fmt.Errorf("auto-created queues[%d]: %w", i, err)
		}
		if err := s.tree.SetDynamicCapacity(tq, a.capacity, a.max); err != nil {
			return fmt.Errorf("auto-created queues[%d]: %w", i, err)
		}
		s.syncTree()
		q := s.byTQ[tq]
		q.auto, q.lastSubmit = a.auto, a.lastSubmit
	}
	if len(recs) > 0 {
		s.clusterChanged()
	}
	return nil
}
