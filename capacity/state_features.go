package capacity

import (
	"fmt"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

// The YARN 3.x state of a snapshot is one optional block at the start of
// state.go's body (version 2), before the configuration, so that bodies
// written without it still read: such a body opens with
// maximum-applications, non-negative and so even in zigzag, and the block
// opens with featuresMarker, an odd number. The block holds:
//
//	config       the scheduler-wide YARN 3.x settings
//	queues       each configured queue's YARN 3.x settings, in the order
//	             the body holds the queues' settings (the tree depth first,
//	             then the reservation queues)
//	auto queues  the auto-created queues, parents first, with their whole
//	             settings
//	nodes        each node's last heartbeat, in id order
//	apps         each application's runnable flag and deadline, in
//	             submission order
//	rounds       the asynchronous rounds run and the multi-node sorters'
//	             orders (indexes into the id-ordered nodes)
//
// A body without the block restores with YARN's defaults: every
// application runnable and without a deadline, every node heard from at
// the restore.

// featuresMarker opens the YARN 3.x block; it must be odd (see above).
const featuresMarker = 0x7f1

// features is the YARN 3.x block as read, applied as the body is read.
type features struct {
	present    bool
	config     Config          // the YARN 3.x fields only
	settings   []QueueSettings // the YARN 3.x fields only, in body order
	used       int             // settings handed out
	autoQueues []autoRecord
	beats      []berth.Time
	apps       []appFeatures
	rounds     uint64
	sorters    []sorterRecord
}

// appFeatures is an application's max-parallel-apps state and deadline.
type appFeatures struct {
	runnable bool
	deadline berth.Time
}

// sorterRecord is a multi-node sorter's kept order as a snapshot holds it.
type sorterRecord struct {
	name  string
	valid bool
	at    berth.Time
	order []int
}

// writeFeatures writes the YARN 3.x block; nodeIDs and apps are the
// body's node and application orders.
func (s *Scheduler) writeFeatures(e *berth.StateEncoder, nodeIDs []string, apps []*app) {
	e.Uvarint(featuresMarker)
	writeConfigFeatures(e, &s.cfg)
	s.writeQueueFeatures(e)
	s.writeAutoQueues(e)
	s.writeBeats(e, nodeIDs)
	writeAppFeatures(e, apps)
	s.writeRoundState(e, nodeIDs)
}

func eachQueueConfig(q *QueueConfig, f func(*QueueConfig)) {
	f(q)
	for i := range q.Children {
		eachQueueConfig(&q.Children[i], f)
	}
}

// readFeatures reads the YARN 3.x block if the body has one, or sets
// YARN's defaults, and returns the configuration's first field,
// maximum-applications, which a body without the block opens with.
func (r *restorer) readFeatures() int {
	d := r.d
	d.Field("config")
	first := d.Uvarint()
	if first != featuresMarker {
		r.feat = defaultFeatures()
		v := int64(first >> 1)
		if first&1 != 0 {
			v = ^v
		}
		if int64(int(v)) != v {
			r.fail("maximum-applications %d overflows int", v)
		}
		return int(v)
	}
	f := &r.feat
	f.present = true
	d.Field("YARN 3.x config")
	r.readConfigFeatures(&f.config)
	f.settings = r.readQueueFeatures()
	d.Field("auto-created queues")
	f.autoQueues = r.readAutoQueues()
	f.beats = r.readBeats()
	f.apps = r.readAppFeatures()
	d.Field("rounds")
	r.readRoundState()
	d.Field("config")
	return d.Int()
}

// writeQueueFeatures writes the YARN 3.x settings of every queue settings
// record of the body, in its order: the configured tree depth first, then
// the reservation queues.
func (s *Scheduler) writeQueueFeatures(e *berth.StateEncoder) {
	var sts []*QueueSettings
	eachQueueConfig(&s.cfg.Root, func(q *QueueConfig) { sts = append(sts, &q.Settings) })
	eachQueue(s.root, func(q *qnode) {
		if q.kind == queue.KindReservation {
			sts = append(sts, q.set())
		}
	})
	e.Len(len(sts))
	for _, st := range sts {
		writeSettingsFeatures(e, st)
	}
}

func (r *restorer) readQueueFeatures() []QueueSettings {
	d := r.d
	d.Field("YARN 3.x queue settings")
	n := d.Len(maxStateCount)
	var out []QueueSettings
	for i := 0; i < n && d.Err() == nil; i++ {
		var st QueueSettings
		r.readSettingsFeatures(&st, 0)
		out = append(out, st)
	}
	return out
}

// writeBeats writes each node's last heartbeat, in id order.
func (s *Scheduler) writeBeats(e *berth.StateEncoder, nodeIDs []string) {
	e.Len(len(nodeIDs))
	for _, id := range nodeIDs {
		e.Varint(s.nodes[id].lastBeat)
	}
}

func (r *restorer) readBeats() []berth.Time {
	d := r.d
	d.Field("node heartbeats")
	n := d.Len(maxStateCount)
	var out []berth.Time
	for i := 0; i < n && d.Err() == nil; i++ {
		out = append(out, d.Varint())
	}
	return out
}

// writeAppFeatures writes each application's runnable flag and deadline,
// in submission order.
func writeAppFeatures(e *berth.StateEncoder, apps []*app) {
	e.Len(len(apps))
	for _, a := range apps {
		e.Bool(a.runnable)
		e.Varint(a.deadline)
	}
}

func (r *restorer) readAppFeatures() []appFeatures {
	d := r.d
	d.Field("application features")
	n := d.Len(maxStateCount)
	var out []appFeatures
	for i := 0; i < n && d.Err() == nil; i++ {
		out = append(out, appFeatures{runnable: d.Bool(), deadline: d.Varint()})
	}
	return out
}

// defaultFeatures is the YARN 3.x state of a body without the block:
// YARN's defaults.
func defaultFeatures() features {
	def := DefaultConfig()
	var c Config
	c.MaxParallelApps, c.UserMaxParallelApps = def.MaxParallelApps, def.UserMaxParallelApps
	c.Async, c.MultiNode, c.AutoQueueExpiration = def.Async, def.MultiNode, def.AutoQueueExpiration
	c.WorkflowTagPrefix = def.WorkflowTagPrefix
	return features{config: c}
}

// nextSettingsFeatures returns the YARN 3.x settings of the next queue
// settings in the body.
func (r *restorer) nextSettingsFeatures() QueueSettings {
	f := &r.feat
	if !f.present {
		def := DefaultSettings()
		return QueueSettings{MaxParallelApps: def.MaxParallelApps, MaxAppLifetime: def.MaxAppLifetime,
			DefaultAppLifetime: def.DefaultAppLifetime}
	}
	if f.used >= len(f.settings) {
		r.fail("more queues than YARN 3.x settings (%d)", len(f.settings))
		return QueueSettings{}
	}
	f.used++
	return f.settings[f.used-1]
}

// checkSettingsUsed checks that every queue's YARN 3.x settings went to
// a queue of the body.
func (r *restorer) checkSettingsUsed() {
	if f := &r.feat; f.present && f.used != len(f.settings) {
		r.fail("YARN 3.x settings for %d queues, the body has %d", len(f.settings), f.used)
	}
}

// appFeatures sets the max-parallel-apps state and deadline of the
// body's i-th application.
func (r *restorer) appFeatures(a *appFields, i int) {
	f := &r.feat
	switch {
	case !f.present:
		a.runnable, a.deadline = true, berth.MaxTime
	case i >= len(f.apps):
		r.fail("applications[%d]: no YARN 3.x state (%d held)", i, len(f.apps))
	default:
		a.runnable, a.deadline = f.apps[i].runnable, f.apps[i].deadline
	}
}

// restoreBeats sets the nodes' last heartbeats (AddNodes set them to the
// clock's now, the default).
func (r *restorer) restoreBeats(nodes []*node) bool {
	f := &r.feat
	if !f.present {
		return true
	}
	if len(f.beats) != len(nodes) {
		r.fail("node heartbeats: %d for %d nodes", len(f.beats), len(nodes))
		return false
	}
	for i, n := range nodes {
		n.lastBeat = f.beats[i]
	}
	return true
}

// writeFullSettings writes settings whole (the body's and the YARN 3.x
// ones), as the block holds templates' and auto-created queues'.
func writeFullSettings(e *berth.StateEncoder, st *QueueSettings) {
	writeSettings(e, st)
	writeSettingsFeatures(e, st)
}

// readFullSettings reads what writeFullSettings wrote, inside depth
// auto-creation templates.
func (r *restorer) readFullSettings(depth int) QueueSettings {
	var st QueueSettings
	r.readBaseSettings(&st)
	r.readSettingsFeatures(&st, depth)
	return st
}

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
	writeMultiNode(e, &c.MultiNode)
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
	writeMappingRules(e, &c.Placement)
}

// writeMultiNode writes the multi-node placement settings, the sorting
// policies by name.
func writeMultiNode(e *berth.StateEncoder, m *MultiNodePlacement) {
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
}

func (r *restorer) readMultiNode(m *MultiNodePlacement) {
	d := r.d
	m.Enabled = d.Bool()
	m.Policy = d.String()
	n := d.Len(maxStateCount)
	for i := 0; i < n && d.Err() == nil; i++ {
		if m.Policies == nil {
			m.Policies = map[string]NodeSorting{}
		}
		name := d.String()
		pol := r.readNodeSortingPolicy()
		m.Policies[name] = NodeSorting{Policy: pol, Interval: d.Varint()}
	}
}

// writeMappingRules writes the placement's mapping-rule format and its
// JSON rules.
func writeMappingRules(e *berth.StateEncoder, pl *Placement) {
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

func (r *restorer) readMappingRules(pl *Placement) {
	d := r.d
	pl.Format = MappingFormat(r.small(uint64(MappingJSON), "mapping rule format"))
	n := d.Len(maxStateCount)
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
	r.readMultiNode(&c.MultiNode)
	c.AutoQueueExpiration = d.Varint()
	c.NonLegacyQueueMode = d.Bool()
	n = d.Len(maxStateCount)
	for i := 0; i < n && d.Err() == nil; i++ {
		c.WorkflowPriorities = append(c.WorkflowPriorities, WorkflowPriority{WorkflowID: d.String(), Queue: d.String(), Priority: r.int32("workflow priority")})
	}
	c.WorkflowPriorityOverride = d.Bool()
	c.WorkflowTagPrefix = d.String()
	r.readMappingRules(&c.Placement)
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
		writeFullSettings(e, &t.Settings)
	}
}

// maxTemplateDepth bounds templates nested in templates in a snapshot.
const maxTemplateDepth = 8

func (r *restorer) readSettingsFeatures(st *QueueSettings, depth int) {
	d := r.d
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
		t.Settings = r.readFullSettings(depth + 1)
	}
	st.AutoCreate = ac
}

// writeRoundState writes the rounds run and the multi-node sorters' kept
// orders (indexes into nodeIDs, the id-ordered nodes).
func (s *Scheduler) writeRoundState(e *berth.StateEncoder, nodeIDs []string) {
	e.Uvarint(s.rounds)
	names := sortedKeys(s.sorters)
	e.Len(len(names))
	if len(names) == 0 {
		return
	}
	nodeIx := make(map[*node]int, len(nodeIDs))
	for i, id := range nodeIDs {
		nodeIx[s.nodes[id]] = i
	}
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

// readRoundState reads what writeRoundState wrote into the block.
func (r *restorer) readRoundState() {
	d, f := r.d, &r.feat
	f.rounds = d.Uvarint()
	n := d.Len(maxStateCount)
	for i := 0; i < n && d.Err() == nil; i++ {
		so := sorterRecord{name: d.String(), valid: d.Bool(), at: d.Varint()}
		m := d.Len(maxStateCount)
		for j := 0; j < m && d.Err() == nil; j++ {
			so.order = append(so.order, d.Int())
		}
		f.sorters = append(f.sorters, so)
	}
}

// restoreRounds sets the rounds and sorters read into s, whose nodes, in
// id order, are nodes, and checks the block held as many applications as
// the body (apps).
func (r *restorer) restoreRounds(s *Scheduler, nodes []*node, apps int) bool {
	f := &r.feat
	if f.present && len(f.apps) != apps {
		r.fail("application features: %d for %d applications", len(f.apps), apps)
		return false
	}
	s.rounds = f.rounds
	for _, rec := range f.sorters {
		so := &nodeSorter{valid: rec.valid, at: rec.at}
		for _, ix := range rec.order {
			switch {
			case ix == -1:
				// A node gone since the sort: it stays out, as it would
				// be skipped.
			case ix < 0 || ix >= len(nodes):
				r.fail("sorter %s: node index %d of %d", rec.name, ix, len(nodes))
				return false
			default:
				so.order = append(so.order, nodes[ix])
			}
		}
		if s.sorters == nil {
			s.sorters = map[string]*nodeSorter{}
		}
		s.sorters[rec.name] = so
	}
	return true
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
		writeFullSettings(e, q.set())
		e.Uvarint(uint64(q.auto))
		e.Varint(q.lastSubmit)
	}
}

// readAutoQueues reads what writeAutoQueues wrote.
func (r *restorer) readAutoQueues() []autoRecord {
	d := r.d
	n := d.Len(maxStateCount)
	var out []autoRecord
	for i := 0; i < n && d.Err() == nil; i++ {
		a := autoRecord{parent: d.String(), name: d.String(), leaf: d.Bool()}
		a.capacity, a.max = r.readCapacity(), r.readCapacity()
		a.st = r.readFullSettings(0)
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
