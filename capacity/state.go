package capacity

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

// Durable state. SaveState writes one snapshot of kind
// "capacity.Scheduler", body version 3, in the berth framing; the body is:
//
//	YARN 3.x     optional: the state of YARN 3.x's features, one block
//	             (state_features.go) read before the rest
//	config       the global settings, the calculator (built-in tag, or
//	             "host's"), the placement, the groups flag, the
//	             reservation-system settings, then the configured queue
//	             tree depth first (name, capacities, state, ACLs, kind
//	             flags, settings with ordering policies as built-in tags or
//	             host names, the reservation settings and the label
//	             settings, children), the cluster's node labels
//	partitions   the labels in the scheduler's partition order (the
//	             indexes below refer to it)
//	reservation  every reservation queue, plans in tree order, each with
//	  queues     its plan's path, name, entitlement and own settings
//	nodes        by id: id, rack, capability, label
//	apps         by submission: id, sequence, queue path, user, groups,
//	             priority, active, start, reservation id, AM resource,
//	             AM-next flag, headroom, label expressions and AM
//	             partition, and the request table (every key with its ANY,
//	             rack and host entries, its delay, re-reservation,
//	             reservation and non-partitioned counters and its partition)
//	containers   by id: app and node (indexes into the lists above),
//	             resource, priority, locality, AM, time, preemption mark,
//	             borrowed flag
//	reservations by id: app, node, request priority, resource, locality,
//	             time
//	counters     the next container id and submission sequence
//	leaf caches  per leaf in tree order: the limits handed down at the last
//	             update and walk, and the incrementally kept usage ratios
//	             (per partition) and user weights (float sums whose
//	             rounding depends on history, so they are not recomputed)
//
// Version 2 is version 3 without the node-label fields (label settings,
// node labels, partitions, nodes' labels, applications' expressions and
// partitions, keys' partitions and non-partitioned counters, borrowed
// flags, per-partition usage ratios); version 1 is version 2 without the
// reservation-system and reservation settings. RestoreScheduler reads all
// three (what an older snapshot lacks restores as unset: YARN's defaults,
// every node and ask on the default partition). The YARN 3.x block may
// open a body of any version (it came before version 3, at the start of
// version 2's body) and holds, for each queue settings record and each
// auto-created queue, what the body's version holds; a body without it
// restores with YARN's defaults for it. A weight capacity holds its
// weight in the percentage's place.
//
// Everything else (queue, user and node usage, active users, the child
// and application orders, the id index, the queue tree's accounting) is
// rebuilt on restore through the code paths normal operation uses, and the
// restored scheduler is then checked (checkRestored). The application
// orders are rebuilt from the applications' current values, as Reconfigure
// rebuilds them: a host ordering policy whose Compare is not a strict weak
// order (or whose keys read anything but the AppView) may therefore visit
// applications in another order after a restore; the built-ins and any
// consistent policy come back exactly.

const (
	stateKind    = "capacity.Scheduler"
	stateVersion = 3
	// versionReservations added the reservation-system and reservation
	// settings, versionLabels the node labels and partitions.
	versionReservations = 2
	versionLabels       = 3
	// maxStateCount bounds any record count read from a snapshot.
	maxStateCount = 1 << 28
)

// Policy tags of the body.
const (
	tagNone    = 0 // no policy value set: the enum setting applies
	tagBuiltin = 1 // a built-in, with its parameters
	tagHost    = 2 // a host's policy, by name
)

// RestoreEnv is what a snapshot cannot hold and the host supplies to
// [RestoreScheduler]: the clock, the groups provider and the host's own
// policies, looked up by the name they reported when saved. Built-in
// calculators and ordering policies need nothing.
type RestoreEnv struct {
	// Clock is required, as for [New].
	Clock berth.Clock
	// Groups becomes Config.Groups; required when the saved configuration
	// had one, ignored when it had none (the restored scheduler must
	// resolve groups as the saved one did).
	Groups queue.Groups
	// Calculator is required when the saved configuration used a
	// calculator other than berth.MemoryCalculator or
	// berth.DominantCalculator, and ignored otherwise.
	Calculator berth.Calculator
	// AppOrderings and ChildOrderings resolve host ordering policies
	// (QueueSettings.AppOrderingPolicy, ChildOrderingPolicy) by the Name
	// they reported when saved; the registries [XMLOptions] uses serve.
	AppOrderings   *AppOrderings
	ChildOrderings *ChildOrderings
	// NodeSortings resolves host multi-node sorting policies by Name.
	NodeSortings *NodeSortings
}

// SaveState writes the scheduler's state to w as one snapshot (see the
// package documentation, "Durable state"). It holds the scheduler's lock
// for the whole write, so the snapshot is a consistent cut, and streams:
// besides the output buffer it allocates only indexes of the nodes and
// applications.
func (s *Scheduler) SaveState(w io.Writer) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := berth.NewStateEncoder(w, stateKind, stateVersion)
	nodeIDs := sortedKeys(s.nodes)
	apps := s.appsBySeq()
	s.writeFeatures(e, nodeIDs, apps)
	s.saveConfig(e)
	e.Len(len(s.parts) - 1)
	for _, p := range s.parts[1:] {
		e.String(p.name)
	}
	s.saveReservationQueues(e)

	nodeIx := make(map[*node]int, len(nodeIDs))
	e.Len(len(nodeIDs))
	for i, id := range nodeIDs {
		n := s.nodes[id]
		nodeIx[n] = i
		e.String(n.id)
		e.String(n.rack)
		e.Resource(n.total)
		e.String(s.parts[n.part].name)
	}

	appIx := make(map[*app]int, len(apps))
	e.Len(len(apps))
	for i, a := range apps {
		appIx[a] = i
		e.String(a.id)
		e.Uvarint(a.seq)
		e.String(a.q.path)
		e.String(a.userName)
		e.Bool(a.groups != nil)
		e.Len(len(a.groups))
		for _, g := range a.groups {
			e.String(g)
		}
		e.Varint(int64(a.priority))
		e.Bool(a.state == appActive)
		e.Varint(a.start)
		e.String(a.resID)
		e.Resource(a.amRes)
		e.Bool(a.waitingAM)
		e.Resource(a.headroom)
		e.String(a.expr)
		e.String(a.amExpr)
		e.Int(a.amPart)
		a.asks.WriteState(e, writeKeyState)
	}

	e.Len(s.live.Len())
	s.live.Ascend(func(c *container) {
		e.Uvarint(uint64(c.c.ID))
		e.Len(appIx[c.app])
		e.Len(nodeIx[c.node])
		e.Resource(c.c.Resource)
		e.Varint(int64(c.c.Priority))
		e.Uvarint(uint64(c.c.Locality))
		e.Bool(c.c.AM)
		e.Varint(c.c.Time)
		e.Bool(c.preempt)
		e.Bool(c.borrowed)
	})

	resv := make([]*reservation, 0, len(s.resvByID))
	for _, r := range s.resvByID {
		resv = append(resv, r)
	}
	slices.SortFunc(resv, func(x, y *reservation) int { return cmpID(x.id, y.id) })
	e.Len(len(resv))
	for _, r := range resv {
		e.Uvarint(uint64(r.id))
		e.Len(appIx[r.app])
		e.Len(nodeIx[r.node])
		e.Varint(int64(r.key.Priority()))
		e.Resource(r.res)
		e.Uvarint(uint64(r.loc))
		e.Varint(r.time)
	}

	e.Uvarint(uint64(s.nextID))
	e.Uvarint(s.nextSeq)

	var leaves []*qnode
	eachQueue(s.root, func(q *qnode) {
		if q.leaf != nil {
			leaves = append(leaves, q)
		}
	})
	e.Len(len(leaves))
	for _, q := range leaves {
		lf := q.leaf
		e.String(q.path)
		e.Resource(lf.currentLimit)
		e.Resource(lf.cachedLimit)
		e.Float32(lf.usageRatio)
		e.Float64(lf.activeWeights)
		e.Float64(lf.allWeights)
		e.Len(len(q.lp))
		for i := range q.lp {
			e.Float32(q.lp[i].usageRatio)
		}
	}
	return e.Finish()
}

// appsBySeq returns the applications in submission order.
func (s *Scheduler) appsBySeq() []*app {
	apps := make([]*app, 0, len(s.apps))
	for _, a := range s.apps {
		apps = append(apps, a)
	}
	slices.SortFunc(apps, bySeq)
	return apps
}

func eachQueue(q *qnode, f func(*qnode)) {
	f(q)
	for _, c := range q.children {
		eachQueue(c, f)
	}
}

func writeKeyState(e *berth.StateEncoder, k *keyState) {
	e.Varint(k.missed)
	e.Int(k.reRes)
	e.Int(k.nRes)
	e.Varint(k.missedNP)
	e.Int(k.part)
}

func (s *Scheduler) saveConfig(e *berth.StateEncoder) {
	c := &s.cfg
	e.Int(c.MaximumApplications)
	e.Int(c.GlobalQueueMaxApplications)
	e.Float64(c.MaximumAMResourcePercent)
	e.Int(c.NodeLocalityDelay)
	e.Int(c.RackLocalityAdditionalDelay)
	e.Bool(c.RackLocalityFullReset)
	e.Int(c.MaxOffSwitchAssignments)
	e.Bool(c.MultipleAssignments)
	e.Int(c.MaxContainerAssignments)
	e.Bool(c.ContinueLooking)
	switch c.Calculator.(type) {
	case berth.MemoryCalculator:
		e.Uvarint(0)
	case berth.DominantCalculator:
		e.Uvarint(1)
	default:
		e.Uvarint(2)
	}
	e.Resource(c.MinAllocation)
	e.Resource(c.MaxAllocation)
	p := &c.Placement
	e.Len(len(p.Rules))
	for _, r := range p.Rules {
		e.Uvarint(uint64(r))
	}
	for _, ms := range [][]QueueMapping{p.Mappings, p.AppMappings} {
		e.Len(len(ms))
		for _, m := range ms {
			e.Uvarint(uint64(m.Kind))
			e.String(m.Source)
			e.String(m.Parent)
			e.String(m.Queue)
		}
	}
	e.Bool(p.Override)
	e.Bool(c.Groups != nil)
	queue.WriteReservationSystemSettings(e, c.ReservationSystem)
	writeQueueConfig(e, &c.Root)
	e.Len(len(c.NodeLabels))
	for _, l := range c.NodeLabels {
		e.String(l.Name)
		e.Bool(l.NonExclusive)
	}
}

func writeCapacity(e *berth.StateEncoder, c queue.Capacity) {
	e.Uvarint(uint64(c.Kind))
	if c.Kind == queue.CapacityWeight {
		e.Float32(c.Weight) // in the percentage's place: see readCapacity
	} else {
		e.Float32(c.Percent)
	}
	e.Resource(c.Resource)
}

func writeQueueConfig(e *berth.StateEncoder, q *QueueConfig) {
	e.String(q.Name)
	writeCapacity(e, q.Capacity)
	writeCapacity(e, q.MaxCapacity)
	e.Uvarint(uint64(q.State))
	queue.WriteACL(e, q.SubmitACL)
	queue.WriteACL(e, q.AdminACL)
	e.Bool(q.Parent)
	e.Bool(q.Reservable)
	writeSettings(e, &q.Settings)
	e.Len(len(q.Children))
	for i := range q.Children {
		writeQueueConfig(e, &q.Children[i])
	}
}

func writeSettings(e *berth.StateEncoder, st *QueueSettings) {
	e.Float64(st.UserLimitFactor)
	e.Float64(st.MinUserLimitPercent)
	e.Int(st.MaxApplications)
	e.Float64(st.MaxAMResourcePercent)
	e.Uvarint(uint64(st.AppOrdering))
	switch p := st.AppOrderingPolicy.(type) {
	case nil:
		e.Uvarint(tagNone)
	case builtinApps:
		e.Uvarint(tagBuiltin)
		e.Uvarint(uint64(p.ord))
		e.Bool(p.sizeWeight)
	default:
		e.Uvarint(tagHost)
		e.String(p.Name())
	}
	e.Bool(st.FairSizeBasedWeight)
	e.Uvarint(uint64(st.ChildOrdering))
	switch p := st.ChildOrderingPolicy.(type) {
	case nil:
		e.Uvarint(tagNone)
	case builtinKids:
		e.Uvarint(tagBuiltin)
		e.Bool(p.prio)
	default:
		e.Uvarint(tagHost)
		e.String(p.Name())
	}
	e.Int(st.Priority)
	names := sortedKeys(st.UserWeights)
	e.Bool(st.UserWeights != nil)
	e.Len(len(names))
	for _, n := range names {
		e.String(n)
		e.Float64(st.UserWeights[n])
	}
	queue.WriteReservationSettings(e, st.Reservation)
	e.Bool(st.AccessibleNodeLabels != nil)
	e.Len(len(st.AccessibleNodeLabels))
	for _, l := range st.AccessibleNodeLabels {
		e.String(l)
	}
	e.String(st.DefaultNodeLabelExpression)
	labels := sortedKeys(st.NodeLabels)
	e.Bool(st.NodeLabels != nil)
	e.Len(len(labels))
	for _, l := range labels {
		ls := st.NodeLabels[l]
		e.String(l)
		writeCapacity(e, ls.Capacity)
		writeCapacity(e, ls.MaxCapacity)
		e.Float64(ls.MaxAMResourcePercent)
	}
}

func (s *Scheduler) saveReservationQueues(e *berth.StateEncoder) {
	var rq []*qnode
	eachQueue(s.root, func(q *qnode) {
		if q.kind == queue.KindReservation {
			rq = append(rq, q)
		}
	})
	e.Len(len(rq))
	for _, q := range rq {
		e.String(q.parent.path)
		e.String(q.name)
		ent := q.tq.Entitlement()
		e.Float32(ent.Capacity)
		e.Float32(ent.MaxCapacity)
		writeSettings(e, q.set())
	}
}

// restorer carries a restore's decoder and the host's environment. A value
// the environment lacks (a policy, calculator, rule or groups provider the
// snapshot names) is reported through the decoder's Defer, so a damaged
// snapshot is still reported as corrupt.
type restorer struct {
	d    *berth.StateDecoder
	env  RestoreEnv
	v    uint64   // the body version
	feat features // the YARN 3.x state, read first
}

func (r *restorer) fail(format string, args ...any) {
	r.d.Fail(fmt.Errorf("%w: "+format, append([]any{berth.ErrCorruptState}, args...)...))
}

// RestoreScheduler reads a snapshot written by [Scheduler.SaveState] and
// returns a new scheduler in the same state, which decides exactly as the
// saved one would have. What a snapshot cannot hold comes from env (see
// [RestoreEnv]). Nothing is returned unless the whole snapshot verified:
// a damaged snapshot is an error wrapping berth.ErrCorruptState, one of
// another kind or a newer version berth.ErrInvalidArgument or
// berth.ErrUnsupportedVersion, and a policy, calculator or groups provider
// env lacks berth.ErrInvalidArgument naming it.
func RestoreScheduler(rd io.Reader, env RestoreEnv) (*Scheduler, error) {
	if berth.CheckNotNil("clock", env.Clock) != nil {
		return nil, berth.InvalidField("clock", nil, "a clock is required")
	}
	d, err := berth.NewStateDecoder(rd, stateKind, stateVersion)
	if err != nil {
		return nil, err
	}
	r := &restorer{d: d, env: env, v: d.Version()}
	s := r.restore()
	if err := d.Finish(); err != nil {
		return nil, err
	}
	if s == nil {
		// only reachable through an error already reported
		return nil, fmt.Errorf("%w: scheduler not restored", berth.ErrCorruptState)
	}
	if err := s.checkRestored(); err != nil {
		return nil, &berth.StateError{Kind: stateKind, Offset: -1, Field: "consistency",
			Err: fmt.Errorf("%w: %w", berth.ErrCorruptState, err)}
	}
	return s, nil
}

func (r *restorer) restore() *Scheduler {
	d := r.d
	maxApps := r.readFeatures()
	d.Field("config")
	cfg := r.readConfig(maxApps)
	var partNames []string
	if r.v >= versionLabels {
		d.Field("partitions")
		np := d.Len(maxStateCount)
		for i := 0; i < np && d.Err() == nil; i++ {
			partNames = append(partNames, d.String())
		}
	}
	d.Field("reservation queues")
	type rqueue struct {
		plan, name string
		ent        Entitlement
		st         QueueSettings
	}
	nrq := d.Len(maxStateCount)
	var rqs []rqueue
	for i := 0; i < nrq && d.Err() == nil; i++ {
		q := rqueue{plan: d.String(), name: d.String()}
		q.ent.Capacity = r.d.Float32()
		q.ent.MaxCapacity = r.d.Float32()
		q.st = r.readSettings()
		rqs = append(rqs, q)
	}
	r.checkSettingsUsed()
	if d.Err() != nil {
		return nil
	}
	if r.d.Deferred() != nil {
		// The configuration cannot be built without the host's policies:
		// read on only to verify the checksum.
		r.skipRest()
		return nil
	}
	cfg.Clock = r.env.Clock
	s, err := New(cfg)
	if err != nil {
		r.fail("config: %w", err)
		return nil
	}
	if err := s.orderParts(partNames); err != nil {
		r.fail("partitions: %w", err)
		return nil
	}
	for i, rq := range rqs {
		if err := s.restoreReservationQueue(rq.plan, rq.name, rq.ent, rq.st); err != nil {
			r.fail("reservation queues[%d]: %w", i, err)
			return nil
		}
	}
	if err := validateSettings(s.tree); err != nil {
		r.fail("reservation queues: %w", err)
		return nil
	}
	if err := s.restoreAutoQueues(r.feat.autoQueues); err != nil {
		r.fail("%w", err)
		return nil
	}

	d.Field("nodes")
	nn := d.Len(maxStateCount)
	specs := make([]NodeSpec, 0, min(nn, 1<<16))
	for i := 0; i < nn && d.Err() == nil; i++ {
		specs = append(specs, r.readNode())
		if i > 0 && d.Err() == nil && specs[i].ID <= specs[i-1].ID {
			r.fail("nodes[%d]: id %q out of order", i, specs[i].ID)
		}
	}
	if d.Err() != nil {
		return nil
	}
	if err := s.AddNodes(specs...); err != nil {
		r.fail("nodes: %w", err)
		return nil
	}
	nodes := make([]*node, len(specs))
	for i, sp := range specs {
		nodes[i] = s.nodes[sp.ID]
	}
	if !r.restoreBeats(nodes) {
		return nil
	}

	d.Field("applications")
	na := d.Len(maxStateCount)
	apps := make([]*app, 0, min(na, 1<<16))
	active := make([]bool, 0, min(na, 1<<16))
	for i := 0; i < na && d.Err() == nil; i++ {
		a, act := r.readApp(s, i)
		if a == nil {
			return nil
		}
		if i > 0 && a.seq <= apps[i-1].seq {
			r.fail("applications[%d]: sequence %d out of order", i, a.seq)
			return nil
		}
		apps = append(apps, a)
		active = append(active, act)
	}

	d.Field("containers")
	nc := d.Len(maxStateCount)
	held := make([]berth.Resource, len(apps)*len(s.parts)) // per application and partition
	var last ContainerID
	for i := 0; i < nc && d.Err() == nil; i++ {
		rc := r.readContainer(len(apps), len(nodes))
		if d.Err() != nil {
			return nil
		}
		switch {
		case rc.id <= last:
			r.fail("containers[%d]: id %d out of order", i, rc.id)
		case rc.res.AnyNegative():
			r.fail("containers[%d]: negative resource %v", i, rc.res)
		case rc.prio < math.MinInt32 || rc.prio > math.MaxInt32:
			r.fail("containers[%d]: priority %d out of range", i, rc.prio)
		case rc.loc > uint64(OffSwitch):
			r.fail("containers[%d]: locality %d", i, rc.loc)
		}
		if d.Err() != nil {
			return nil
		}
		last = rc.id
		a, n := apps[rc.app], nodes[rc.node]
		if rc.borrowed && n.part == 0 {
			r.fail("containers[%d]: borrowed on an unlabelled node", i)
			return nil
		}
		c := &container{node: n, app: a, preempt: rc.preempt, borrowed: rc.borrowed}
		c.c = Container{ID: rc.id, App: a.id, Node: n.id, Queue: a.q.path, User: a.userName, Resource: rc.res,
			Priority: int32(rc.prio), Locality: Locality(rc.loc), AM: rc.am, Time: rc.time}
		s.live.Put(rc.id, c)
		n.link(c)
		a.link(c)
		n.allocated = n.allocated.Add(rc.res)
		h := rc.app*len(s.parts) + n.part
		held[h] = held[h].Add(rc.res)
		if rc.borrowed {
			a.borrowed++
			a.q.leaf.borrowed++
		}
	}
	// Usage is charged once per application and partition, not per
	// container: the integer sums are the same, and the running float sums
	// a charge touches are restored from the snapshot below.
	for i, a := range apps {
		for p := range s.parts {
			if h := held[i*len(s.parts)+p]; !h.IsZero() {
				s.appUsageOn(a, p, h)
				s.chargeOn(p, a.q, a.u, h, false)
			}
		}
	}

	d.Field("reservations")
	nr := d.Len(maxStateCount)
	var lastR ContainerID
	for i := 0; i < nr && d.Err() == nil; i++ {
		rc := r.readReservation(len(apps), len(nodes))
		if d.Err() != nil {
			return nil
		}
		a, n := apps[rc.app], nodes[rc.node]
		var k *skey
		if rc.prio >= math.MinInt32 && rc.prio <= math.MaxInt32 {
			k = a.asks.Key(int32(rc.prio))
		}
		_, live := s.live.Get(rc.id)
		switch {
		case rc.id <= lastR || live:
			r.fail("reservations[%d]: id %d out of order or taken", i, rc.id)
		case k == nil:
			r.fail("reservations[%d]: application %s has no request priority %d", i, a.id, rc.prio)
		case n.reserved != nil:
			r.fail("reservations[%d]: node %s reserved twice", i, n.id)
		case rc.res.AnyNegative() || rc.loc > uint64(OffSwitch):
			r.fail("reservations[%d]: malformed", i)
		}
		if d.Err() != nil {
			return nil
		}
		lastR = rc.id
		rv := &reservation{id: rc.id, node: n, app: a, key: k, res: rc.res, loc: Locality(rc.loc), time: rc.time}
		n.reserved = rv
		s.resvByID[rc.id] = rv
		a.resv = append(a.resv, rv)
		a.reserved = a.reserved.Add(rc.res)
		if n.part != 0 {
			a.lp[n.part-1].reserved = a.lp[n.part-1].reserved.Add(rc.res)
		}
		s.chargeOn(n.part, a.q, a.u, rc.res, true)
	}

	d.Field("counters")
	s.nextID = ContainerID(d.Uvarint())
	s.nextSeq = d.Uvarint()
	if d.Err() != nil {
		return nil
	}
	if s.nextID < last || s.nextID < lastR || (len(apps) > 0 && s.nextSeq < apps[len(apps)-1].seq) {
		r.fail("counters below the ids in use")
		return nil
	}

	// Demand and activation last, so that each application enters its
	// leaf's order once, with its final usage.
	for i, a := range apps {
		s.pendingChanged(a)
		if active[i] {
			lf := a.q.leaf
			if j := slices.Index(lf.pendingAct, a); j >= 0 {
				lf.pendingAct = slices.Delete(lf.pendingAct, j, j+1)
			}
			s.startApp(a.q, a)
		}
	}
	// Derived per-queue values, as a cluster change recomputes them; the
	// limits of the last update and walk are restored below instead of
	// recomputed, and no application is activated here.
	s.applyCapacities(s.root)
	s.refreshRatios(s.root)
	s.resortAll(s.root)

	d.Field("leaf caches")
	nl := d.Len(maxStateCount)
	for i := 0; i < nl && d.Err() == nil; i++ {
		path := d.String()
		cur, cached := d.Resource(), d.Resource()
		ratio := r.d.Float32()
		aw, tw := d.Float64(), d.Float64()
		ratios := r.readRatios()
		if d.Err() != nil {
			return nil
		}
		q := s.byPath[path]
		if q == nil || q.leaf == nil {
			r.fail("leaf caches[%d]: %q is not a leaf", i, path)
			return nil
		}
		if r.v >= versionLabels && len(ratios) != len(q.lp) {
			r.fail("leaf caches[%d]: %d partitions, the scheduler has %d", i, len(ratios), len(q.lp))
			return nil
		}
		lf := q.leaf
		lf.currentLimit, lf.cachedLimit = cur, cached
		lf.usageRatio, lf.activeWeights, lf.allWeights = ratio, aw, tw
		for j, x := range ratios {
			q.lp[j].usageRatio = x
		}
		lf.ulValid = false
	}
	if !r.restoreRounds(s, nodes, len(apps)) {
		return nil
	}
	return s
}

// readRatios reads a leaf's usage ratios on the labelled partitions
// (version 2).
func (r *restorer) readRatios() []float32 {
	if r.v < versionLabels {
		return nil
	}
	n := r.d.Len(maxStateCount)
	out := make([]float32, 0, min(n, 64))
	for i := 0; i < n && r.d.Err() == nil; i++ {
		out = append(out, r.d.Float32())
	}
	return out
}

// skipRest reads the rest of a body whose configuration could not be
// built, so that Finish can still tell damage from a missing host policy.
// The layout is fixed, so the records are read and dropped.
func (r *restorer) skipRest() {
	d := r.d
	// the partitions were read with the configuration
	nn := d.Len(maxStateCount)
	for i := 0; i < nn && d.Err() == nil; i++ {
		r.readNode()
	}
	na := d.Len(maxStateCount)
	for i := 0; i < na && d.Err() == nil; i++ {
		r.readAppFields()
		queue.ReadRequests(d, readKeyState)
	}
	nc := d.Len(maxStateCount)
	for i := 0; i < nc && d.Err() == nil; i++ {
		r.readContainer(-1, -1)
	}
	nr := d.Len(maxStateCount)
	for i := 0; i < nr && d.Err() == nil; i++ {
		r.readReservation(-1, -1)
	}
	d.Uvarint()
	d.Uvarint()
	nl := d.Len(maxStateCount)
	for i := 0; i < nl && d.Err() == nil; i++ {
		_ = d.String()
		d.Resource()
		d.Resource()
		d.Float32()
		d.Float64()
		d.Float64()
		r.readRatios()
	}
}

// readNode reads a node record.
func (r *restorer) readNode() NodeSpec {
	n := NodeSpec{ID: r.d.String(), Rack: r.d.String(), Capability: r.d.Resource()}
	if r.v >= versionLabels {
		n.Label = r.d.String()
	}
	return n
}

// containerRecord is a container as the snapshot holds it, before it is
// checked; app and node index the application and node records.
type containerRecord struct {
	id        ContainerID
	app, node int
	res       berth.Resource
	prio      int64
	loc       uint64
	am        bool
	time      berth.Time
	preempt   bool
	borrowed  bool
}

// readContainer reads a container record from lists of apps and nodes
// records (any index when negative, as when skipping). restore and
// skipRest both read through it, so the layout is written once.
func (r *restorer) readContainer(apps, nodes int) containerRecord {
	d := r.d
	var c containerRecord
	c.id = ContainerID(d.Uvarint())
	c.app, c.node = r.index(apps, "application"), r.index(nodes, "node")
	c.res = d.Resource()
	c.prio = d.Varint()
	c.loc = d.Uvarint()
	c.am = d.Bool()
	c.time = d.Varint()
	c.preempt = d.Bool()
	if r.v >= versionLabels {
		c.borrowed = d.Bool()
	}
	return c
}

// readReservation reads a container reservation record as readContainer
// does (its own field order; no AM flag or preemption mark).
func (r *restorer) readReservation(apps, nodes int) containerRecord {
	d := r.d
	var c containerRecord
	c.id = ContainerID(d.Uvarint())
	c.app, c.node = r.index(apps, "application"), r.index(nodes, "node")
	c.prio = d.Varint()
	c.res = d.Resource()
	c.loc = d.Uvarint()
	c.time = d.Varint()
	return c
}

// appFields is an application record before it is placed.
type appFields struct {
	id, path, user, resID string
	seq                   uint64
	groups                []string
	prio                  int64
	active, waitingAM     bool
	start                 berth.Time
	amRes, headroom       berth.Resource
	runnable              bool       // within max-parallel-apps
	deadline              berth.Time // lifetime's end
	expr, amExpr          string
	amPart                int
}

func (r *restorer) readAppFields() appFields {
	d := r.d
	f := appFields{id: d.String(), seq: d.Uvarint(), path: d.String(), user: d.String()}
	hasGroups := d.Bool()
	ng := d.Len(maxStateCount)
	if hasGroups {
		f.groups = make([]string, 0, min(ng, 64))
	}
	for i := 0; i < ng && d.Err() == nil; i++ {
		f.groups = append(f.groups, d.String())
	}
	f.prio = d.Varint()
	f.active = d.Bool()
	f.start = d.Varint()
	f.resID = d.String()
	f.amRes = d.Resource()
	f.waitingAM = d.Bool()
	f.headroom = d.Resource()
	if r.v >= versionLabels {
		f.expr, f.amExpr, f.amPart = d.String(), d.String(), d.Int()
	}
	return f
}

func readKeyState(d *berth.StateDecoder, k *keyState) {
	k.missed = d.Varint()
	k.reRes = d.Int()
	k.nRes = d.Int()
	if d.Version() >= versionLabels {
		k.missedNP = d.Varint()
		k.part = d.Int()
	}
	if d.Err() == nil && (k.missed < 0 || k.reRes < 0 || k.nRes < 0 || k.missedNP < 0 || k.part < 0) {
		d.Fail(fmt.Errorf("%w: negative request counters", berth.ErrCorruptState))
	}
}

// readApp reads one application and attaches it to its leaf, waiting for
// activation and without demand (restore adds both once the containers are
// in).
func (r *restorer) readApp(s *Scheduler, i int) (*app, bool) {
	d := r.d
	f := r.readAppFields()
	asks := queue.ReadRequests(d, readKeyState)
	r.appFeatures(&f, i)
	if d.Err() != nil {
		return nil, false
	}
	q := s.byPath[f.path]
	switch {
	case f.id == "" || f.user == "":
		r.fail("applications[%d]: empty id or user", i)
	case s.apps[f.id] != nil:
		r.fail("applications[%d]: id %q twice", i, f.id)
	case q == nil || q.leaf == nil:
		r.fail("applications[%d]: queue %q is not a leaf", i, f.path)
	case f.prio < math.MinInt32 || f.prio > math.MaxInt32:
		r.fail("applications[%d]: priority %d out of range", i, f.prio)
	case f.amRes.AnyNegative():
		r.fail("applications[%d]: negative AM resource", i)
	case f.active && !f.runnable:
		r.fail("applications[%d]: active but waiting for a max-parallel-apps slot", i)
	case f.amPart < 0 || f.amPart >= len(s.parts):
		r.fail("applications[%d]: AM partition %d of %d", i, f.amPart, len(s.parts))
	}
	for _, k := range asks.Keys() {
		if k.Payload.part >= len(s.parts) {
			r.fail("applications[%d]: priority %d on partition %d of %d", i, k.Priority(), k.Payload.part, len(s.parts))
		}
	}
	if d.Err() != nil {
		return nil, false
	}
	a := &app{id: f.id, seq: f.seq, userName: f.user, groups: f.groups, priority: int32(f.prio),
		start: f.start, resID: f.resID, amRes: f.amRes, waitingAM: f.waitingAM, headroom: f.headroom,
		runnable: f.runnable, deadline: f.deadline,
		expr: f.expr, amExpr: f.amExpr, amPart: f.amPart, lp: growTo[apart](nil, len(s.parts)-1)}
	a.asks = *asks
	s.apps[a.id] = a
	s.attach(q, a)
	return a, f.active
}

// index reads an index into a list of n records; any index when n is
// negative.
func (r *restorer) index(n int, what string) int {
	v := r.d.Uvarint()
	if n < 0 {
		return int(min(v, math.MaxInt))
	}
	if r.d.Err() == nil && v >= uint64(n) {
		r.fail("%s index %d of %d", what, v, n)
	}
	return int(min(v, uint64(max(n-1, 0))))
}

// readConfig reads the configuration after its first field, maxApps,
// onto the YARN 3.x settings the features block gave.
func (r *restorer) readConfig(maxApps int) Config {
	d := r.d
	c := r.feat.config
	c.MaximumApplications = maxApps
	c.GlobalQueueMaxApplications = d.Int()
	c.MaximumAMResourcePercent = d.Float64()
	c.NodeLocalityDelay = d.Int()
	c.RackLocalityAdditionalDelay = d.Int()
	c.RackLocalityFullReset = d.Bool()
	c.MaxOffSwitchAssignments = d.Int()
	c.MultipleAssignments = d.Bool()
	c.MaxContainerAssignments = d.Int()
	c.ContinueLooking = d.Bool()
	switch tag := d.Uvarint(); tag {
	case 0:
		c.Calculator = berth.MemoryCalculator{}
	case 1:
		c.Calculator = berth.DominantCalculator{}
	case 2:
		c.Calculator = r.env.Calculator
		if c.Calculator == nil {
			r.d.Defer(berth.InvalidField("calculator", nil, "the snapshot used a host calculator: RestoreEnv.Calculator is required"))
		}
	default:
		r.fail("calculator tag %d", tag)
	}
	c.MinAllocation = d.Resource()
	c.MaxAllocation = d.Resource()
	p := &c.Placement
	nr := d.Len(16)
	for i := 0; i < nr && d.Err() == nil; i++ {
		k := d.Uvarint()
		if k > uint64(RuleAppName) {
			r.fail("placement rule %d", k)
		}
		p.Rules = append(p.Rules, PlacementRuleKind(k))
	}
	for j, dst := range []*[]QueueMapping{&p.Mappings, &p.AppMappings} {
		n := d.Len(maxStateCount)
		for i := 0; i < n && d.Err() == nil; i++ {
			k := d.Uvarint()
			if k > uint64(MapApp) {
				r.fail("placement mappings(%d)[%d]: kind %d", j, i, k)
			}
			*dst = append(*dst, QueueMapping{Kind: MappingKind(k), Source: d.String(), Parent: d.String(), Queue: d.String()})
		}
	}
	p.Override = d.Bool()
	if d.Bool() {
		c.Groups = r.env.Groups
		if c.Groups == nil {
			r.d.Defer(berth.InvalidField("groups", nil, "the snapshot's configuration had a groups provider: RestoreEnv.Groups is required"))
		}
	}
	if r.v >= versionReservations {
		c.ReservationSystem = queue.ReadReservationSystemSettings(d)
	}
	c.Root = r.readQueueConfig(0)
	if r.v >= versionLabels {
		n := d.Len(maxStateCount)
		for i := 0; i < n && d.Err() == nil; i++ {
			c.NodeLabels = append(c.NodeLabels, NodeLabel{Name: d.String(), NonExclusive: d.Bool()})
		}
	}
	return c
}

// maxDepth bounds the queue tree's depth read from a snapshot.
const maxDepth = 256

func (r *restorer) readCapacity() queue.Capacity {
	var c queue.Capacity
	k := r.d.Uvarint()
	if k > uint64(queue.CapacityWeight) {
		r.fail("capacity kind %d", k)
	}
	c.Kind = queue.CapacityKind(k)
	// A weight takes the percentage's place: older bodies have no weights,
	// so the record's layout stays as it was.
	if c.Kind == queue.CapacityWeight {
		c.Weight = r.d.Float32()
	} else {
		c.Percent = r.d.Float32()
	}
	c.Resource = r.d.Resource()
	return c
}

func (r *restorer) readQueueConfig(depth int) QueueConfig {
	d := r.d
	var q QueueConfig
	if depth > maxDepth {
		r.fail("queue tree deeper than %d", maxDepth)
		return q
	}
	q.Name = d.String()
	q.Capacity = r.readCapacity()
	q.MaxCapacity = r.readCapacity()
	st := d.Uvarint()
	if st > uint64(queue.StateStopped) {
		r.fail("queue %s: state %d", q.Name, st)
	}
	q.State = queue.State(st)
	q.SubmitACL = queue.ReadACL(d)
	q.AdminACL = queue.ReadACL(d)
	q.Parent = d.Bool()
	q.Reservable = d.Bool()
	q.Settings = r.readSettings()
	n := d.Len(maxStateCount)
	for i := 0; i < n && d.Err() == nil; i++ {
		q.Children = append(q.Children, r.readQueueConfig(depth+1))
	}
	return q
}

// readSettings reads a queue's settings in the body onto the YARN 3.x
// settings the features block holds for it.
func (r *restorer) readSettings() QueueSettings {
	st := r.nextSettingsFeatures()
	r.readBaseSettings(&st)
	return st
}

// readBaseSettings reads the settings the body holds (as its version
// has them) into st.
func (r *restorer) readBaseSettings(st *QueueSettings) {
	d := r.d
	st.UserLimitFactor = d.Float64()
	st.MinUserLimitPercent = d.Float64()
	st.MaxApplications = d.Int()
	st.MaxAMResourcePercent = d.Float64()
	st.AppOrdering = AppOrdering(r.small(uint64(OrderFair), "app ordering"))
	switch tag := d.Uvarint(); tag {
	case tagNone:
	case tagBuiltin:
		ord := AppOrdering(r.small(uint64(OrderFair), "app ordering policy"))
		st.AppOrderingPolicy = ord.Policy(d.Bool())
	case tagHost:
		name := d.String()
		pol, ok := r.env.AppOrderings.Lookup(name)
		if !ok || pol == nil {
			r.d.Defer(berth.InvalidField("app ordering policy", name, "not in RestoreEnv.AppOrderings"))
		}
		st.AppOrderingPolicy = pol
	default:
		r.fail("app ordering policy tag %d", tag)
	}
	st.FairSizeBasedWeight = d.Bool()
	st.ChildOrdering = ChildOrdering(r.small(uint64(OrderPriorityUtilization), "child ordering"))
	switch tag := d.Uvarint(); tag {
	case tagNone:
	case tagBuiltin:
		if d.Bool() {
			st.ChildOrderingPolicy = prioKids
		} else {
			st.ChildOrderingPolicy = utilKids
		}
	case tagHost:
		name := d.String()
		pol, ok := r.env.ChildOrderings.Lookup(name)
		if !ok || pol == nil {
			r.d.Defer(berth.InvalidField("child ordering policy", name, "not in RestoreEnv.ChildOrderings"))
		}
		st.ChildOrderingPolicy = pol
	default:
		r.fail("child ordering policy tag %d", tag)
	}
	st.Priority = d.Int()
	hasWeights := d.Bool()
	n := d.Len(maxStateCount)
	if hasWeights {
		st.UserWeights = make(map[string]float64, min(n, 64))
	}
	if !hasWeights && n > 0 {
		r.fail("user weights without a table")
		return
	}
	for i := 0; i < n && d.Err() == nil; i++ {
		name := d.String()
		st.UserWeights[name] = d.Float64()
	}
	if r.v >= versionReservations {
		st.Reservation = queue.ReadReservationSettings(d)
	}
	if r.v >= versionLabels {
		r.readLabelSettings(st)
	}
}

// readLabelSettings reads a queue's label settings (version 3).
func (r *restorer) readLabelSettings(st *QueueSettings) {
	d := r.d
	hasAccess := d.Bool()
	n := d.Len(maxStateCount)
	if hasAccess {
		st.AccessibleNodeLabels = make([]string, 0, min(n, 64))
	} else if n > 0 {
		r.fail("accessible labels without a list")
		return
	}
	for i := 0; i < n && d.Err() == nil; i++ {
		st.AccessibleNodeLabels = append(st.AccessibleNodeLabels, d.String())
	}
	st.DefaultNodeLabelExpression = d.String()
	hasLabels := d.Bool()
	n = d.Len(maxStateCount)
	if hasLabels {
		st.NodeLabels = make(map[string]LabelSettings, min(n, 64))
	} else if n > 0 {
		r.fail("label settings without a table")
		return
	}
	for i := 0; i < n && d.Err() == nil; i++ {
		l := d.String()
		st.NodeLabels[l] = LabelSettings{Capacity: r.readCapacity(), MaxCapacity: r.readCapacity(), MaxAMResourcePercent: d.Float64()}
	}
}

func (r *restorer) small(max uint64, what string) uint64 {
	v := r.d.Uvarint()
	if v > max {
		r.fail("%s %d", what, v)
		return 0
	}
	return v
}

// restoreReservationQueue recreates a reservation queue (the plan's default
// queue exists already) with its own settings and entitlement, through the
// calls a plan follower makes.
func (s *Scheduler) restoreReservationQueue(plan, name string, ent Entitlement, st QueueSettings) error {
	p := s.byPath[plan]
	if p == nil || p.kind != queue.KindPlan {
		return fmt.Errorf("%q is not a plan queue", plan)
	}
	if name != p.name+queue.DefaultReservationSuffix {
		if err := s.AddReservationQueue(plan, name); err != nil {
			return err
		}
	}
	q := s.byPath[plan+"."+name]
	if q == nil || q.kind != queue.KindReservation {
		return errors.New("reservation queue " + name + " not created")
	}
	q.tq.Payload = st
	return s.SetEntitlement(q.path, ent)
}

// checkRestored verifies what restore cannot guarantee by construction
// from a well-formed but inconsistent body (the aggregates are built
// through the normal paths, so they agree with the records): the queue
// tree accepted every charge, no node is over its capability, and each
// request key's reservation count matches its reservations. It is linear,
// unlike [Scheduler.Check].
func (s *Scheduler) checkRestored() error {
	s.flushAccounts() // so that a charge the tree refuses shows in s.bug
	if s.bug != nil {
		return s.bug
	}
	for _, n := range s.nodes {
		if !s.calculator.FitsIn(n.allocated, n.total) {
			return fmt.Errorf("node %s over its capability: %v > %v", n.id, n.allocated, n.total)
		}
	}
	for _, q := range s.byPath {
		if err := checkLeafSums(q); err != nil {
			return err
		}
	}
	held := make(map[*skey]int, len(s.resvByID))
	for _, r := range s.resvByID {
		held[r.key]++
	}
	for _, a := range s.apps {
		for _, k := range a.asks.Keys() {
			if k.Payload.nRes != held[k] {
				return fmt.Errorf("application %s priority %d counts %d reservations, holds %d", a.id, k.Priority(), k.Payload.nRes, held[k])
			}
		}
	}
	return nil
}

// checkLeafSums compares a leaf's restored running sums with the sums of
// its users: equal up to the rounding a history of increments can leave.
func checkLeafSums(q *qnode) error {
	lf := q.leaf
	if lf == nil {
		return nil
	}
	var all, active float64
	var ratio float32
	for _, u := range lf.users {
		all += u.weight
		if u.activeApps > 0 {
			active += u.weight
		}
		ratio += u.ratio
	}
	// Check's tolerance for the weights; the ratio is a float32 sum.
	near := func(a, b, tol float64) bool { return math.Abs(a-b) <= tol }
	switch {
	case !near(lf.allWeights, all, 1e-9) || !near(lf.activeWeights, active, 1e-9):
		return fmt.Errorf("leaf %s user weights %v/%v, users say %v/%v", q.path, lf.allWeights, lf.activeWeights, all, active)
	case !near(float64(lf.usageRatio), float64(ratio), 1e-3*max(1, float64(ratio))):
		return fmt.Errorf("leaf %s usage ratio %v, users say %v", q.path, lf.usageRatio, ratio)
	}
	return nil
}
