package capacity

import (
	"fmt"
	"math"
	"slices"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

// The cluster's records of the body (see "Durable state" in state.go):
// nodes, applications, containers, reservations, counters and leaf
// caches, each writer beside its reader. A reader checks its records and
// places them in the scheduler build made, through the code paths normal
// operation uses; the later records index the nodes and applications.

// writeNodes writes the nodes in id order, and their indexes to nodeIx.
func (s *Scheduler) writeNodes(e *berth.StateEncoder, nodeIDs []string, nodeIx map[*node]int) {
	e.Len(len(nodeIDs))
	for i, id := range nodeIDs {
		n := s.nodes[id]
		nodeIx[n] = i
		e.String(n.id)
		e.String(n.rack)
		e.Resource(n.total)
		e.String(s.parts[n.part].name)
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

// readNodes reads the nodes and adds them as AddNodes does, with the
// heartbeats the features block holds.
func (r *restorer) readNodes() bool {
	d, s := r.d, r.s
	d.Field("nodes")
	n := d.Len(maxStateCount)
	specs := make([]NodeSpec, 0, min(n, 1<<16))
	for i := 0; i < n && d.Err() == nil; i++ {
		specs = append(specs, r.readNode())
		if i > 0 && d.Err() == nil && specs[i].ID <= specs[i-1].ID {
			r.fail("nodes[%d]: id %q out of order", i, specs[i].ID)
		}
	}
	if d.Err() != nil {
		return false
	}
	if err := s.AddNodes(specs...); err != nil {
		r.fail("nodes: %w", err)
		return false
	}
	r.nodes = make([]*node, len(specs))
	for i, sp := range specs {
		r.nodes[i] = s.nodes[sp.ID]
	}
	return r.restoreBeats(r.nodes)
}

// writeApps writes the applications (in submission order), and their
// indexes to appIx.
func writeApps(e *berth.StateEncoder, apps []*app, appIx map[*app]int) {
	e.Len(len(apps))
	for i, a := range apps {
		appIx[a] = i
		writeApp(e, a)
	}
}

// writeApp writes an application record: what readAppFields reads, then
// the request table.
func writeApp(e *berth.StateEncoder, a *app) {
	e.String(a.id)
	e.Uvarint(a.seq)
	e.String(a.q.path)
	e.String(a.userName)
	writeOptionalStrings(e, a.groups)
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
	f.groups = r.readOptionalStrings("groups without a list")
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

// writeKeyState writes a request key's counters: its delay,
// re-reservations, reservations, non-partitioned delay and partition.
func writeKeyState(e *berth.StateEncoder, k *keyState) {
	e.Varint(k.missed)
	e.Int(k.reRes)
	e.Int(k.nRes)
	e.Varint(k.missedNP)
	e.Int(k.part)
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

// readApps reads the applications, in submission order, into their
// leaves; restore activates them once the containers are in.
func (r *restorer) readApps() bool {
	d := r.d
	d.Field("applications")
	n := d.Len(maxStateCount)
	r.apps = make([]*app, 0, min(n, 1<<16))
	r.active = make([]bool, 0, min(n, 1<<16))
	for i := 0; i < n && d.Err() == nil; i++ {
		a, active := r.readApp(r.s, i)
		if a == nil {
			return false
		}
		if i > 0 && a.seq <= r.apps[i-1].seq {
			r.fail("applications[%d]: sequence %d out of order", i, a.seq)
			return false
		}
		r.apps = append(r.apps, a)
		r.active = append(r.active, active)
	}
	return d.Err() == nil
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

// containerRecord is a container or a reservation as the snapshot holds
// it, before it is checked; app and node index the application and node
// records.
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

// writeContainers writes the live containers in id order.
func (s *Scheduler) writeContainers(e *berth.StateEncoder, appIx map[*app]int, nodeIx map[*node]int) {
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
}

// readContainer reads a container record from lists of apps and nodes
// records (any index when negative, as when skipping).
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

// readContainers reads the containers and links each to its application
// and node; usage is charged once per application and partition, not per
// container: the integer sums are the same, and the running float sums a
// charge touches are restored from the leaf caches.
func (r *restorer) readContainers() bool {
	d, s := r.d, r.s
	d.Field("containers")
	n := d.Len(maxStateCount)
	held := make([]berth.Resource, len(r.apps)*len(s.parts)) // per application and partition
	for i := 0; i < n && d.Err() == nil; i++ {
		if !r.addContainer(i, r.readContainer(len(r.apps), len(r.nodes)), held) {
			return false
		}
	}
	for i, a := range r.apps {
		for p := range s.parts {
			if h := held[i*len(s.parts)+p]; !h.IsZero() {
				s.appUsageOn(a, p, h)
				s.chargeOn(p, a.q, a.u, h, false)
			}
		}
	}
	return d.Err() == nil
}

// addContainer checks container record i and links it; its usage goes to
// held, by application and partition.
func (r *restorer) addContainer(i int, rec containerRecord, held []berth.Resource) bool {
	if r.d.Err() != nil {
		return false
	}
	switch {
	case rec.id <= r.lastContainer:
		r.fail("containers[%d]: id %d out of order", i, rec.id)
	case rec.res.AnyNegative():
		r.fail("containers[%d]: negative resource %v", i, rec.res)
	case rec.prio < math.MinInt32 || rec.prio > math.MaxInt32:
		r.fail("containers[%d]: priority %d out of range", i, rec.prio)
	case rec.loc > uint64(OffSwitch):
		r.fail("containers[%d]: locality %d", i, rec.loc)
	}
	if r.d.Err() != nil {
		return false
	}
	r.lastContainer = rec.id
	a, n := r.apps[rec.app], r.nodes[rec.node]
	if rec.borrowed && n.part == 0 {
		r.fail("containers[%d]: borrowed on an unlabelled node", i)
		return false
	}
	c := &container{node: n, app: a, preempt: rec.preempt, borrowed: rec.borrowed}
	c.c = Container{ID: rec.id, App: a.id, Node: n.id, Queue: a.q.path, User: a.userName, Resource: rec.res,
		Priority: int32(rec.prio), Locality: Locality(rec.loc), AM: rec.am, Time: rec.time}
	r.s.live.Put(rec.id, c)
	n.link(c)
	a.link(c)
	n.allocated = n.allocated.Add(rec.res)
	h := rec.app*len(r.s.parts) + n.part
	held[h] = held[h].Add(rec.res)
	if rec.borrowed {
		a.borrowed++
		a.q.leaf.borrowed++
	}
	return true
}

// writeReservations writes the container reservations in id order.
func (s *Scheduler) writeReservations(e *berth.StateEncoder, appIx map[*app]int, nodeIx map[*node]int) {
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

// readReservations reads the reservations and books each on its node,
// application and queues.
func (r *restorer) readReservations() bool {
	d := r.d
	d.Field("reservations")
	n := d.Len(maxStateCount)
	for i := 0; i < n && d.Err() == nil; i++ {
		if !r.addReservation(i, r.readReservation(len(r.apps), len(r.nodes))) {
			return false
		}
	}
	return d.Err() == nil
}

// addReservation checks reservation record i and books it.
func (r *restorer) addReservation(i int, rec containerRecord) bool {
	if r.d.Err() != nil {
		return false
	}
	s := r.s
	a, n := r.apps[rec.app], r.nodes[rec.node]
	var k *skey
	if rec.prio >= math.MinInt32 && rec.prio <= math.MaxInt32 {
		k = a.asks.Key(int32(rec.prio))
	}
	_, live := s.live.Get(rec.id)
	switch {
	case rec.id <= r.lastReservation || live:
		r.fail("reservations[%d]: id %d out of order or taken", i, rec.id)
	case k == nil:
		r.fail("reservations[%d]: application %s has no request priority %d", i, a.id, rec.prio)
	case n.reserved != nil:
		r.fail("reservations[%d]: node %s reserved twice", i, n.id)
	case rec.res.AnyNegative() || rec.loc > uint64(OffSwitch):
		r.fail("reservations[%d]: malformed", i)
	}
	if r.d.Err() != nil {
		return false
	}
	r.lastReservation = rec.id
	rv := &reservation{id: rec.id, node: n, app: a, key: k, res: rec.res, loc: Locality(rec.loc), time: rec.time}
	n.reserved = rv
	s.resvByID[rec.id] = rv
	a.resv = append(a.resv, rv)
	a.reserved = a.reserved.Add(rec.res)
	if n.part != 0 {
		a.lp[n.part-1].reserved = a.lp[n.part-1].reserved.Add(rec.res)
	}
	s.chargeOn(n.part, a.q, a.u, rec.res, true)
	return true
}

// writeCounters writes the next container id and submission sequence.
func (s *Scheduler) writeCounters(e *berth.StateEncoder) {
	e.Uvarint(uint64(s.nextID))
	e.Uvarint(s.nextSeq)
}

// readCounters reads the counters, which may not fall below the ids read.
func (r *restorer) readCounters() bool {
	d, s := r.d, r.s
	d.Field("counters")
	s.nextID = ContainerID(d.Uvarint())
	s.nextSeq = d.Uvarint()
	if d.Err() != nil {
		return false
	}
	apps := r.apps
	if s.nextID < r.lastContainer || s.nextID < r.lastReservation || (len(apps) > 0 && s.nextSeq < apps[len(apps)-1].seq) {
		r.fail("counters below the ids in use")
		return false
	}
	return true
}

// startApps adds the applications' demand and activates the active ones,
// last so that each enters its leaf's order once, with its final usage,
// then derives the per-queue values as a cluster change does; the limits
// of the last update and walk come from the leaf caches instead, and no
// application is activated by the derivation.
func (r *restorer) startApps() {
	s := r.s
	for i, a := range r.apps {
		s.pendingChanged(a)
		if r.active[i] {
			lf := a.q.leaf
			if j := slices.Index(lf.pendingAct, a); j >= 0 {
				lf.pendingAct = slices.Delete(lf.pendingAct, j, j+1)
			}
			s.startApp(a.q, a)
		}
	}
	s.applyCapacities(s.root)
	s.refreshRatios(s.root)
	s.resortAll(s.root)
}

// writeLeafCaches writes, per leaf in tree order, the limits handed down
// at the last update and walk and the incrementally kept usage ratios and
// user weights (float sums whose rounding depends on history, so they are
// not recomputed).
func (s *Scheduler) writeLeafCaches(e *berth.StateEncoder) {
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
}

// leafCacheRecord is a leaf's caches as the body holds them.
type leafCacheRecord struct {
	path                   string
	current, cached        berth.Resource
	ratio                  float32
	activeWeights, weights float64
	ratios                 []float32 // per labelled partition (version 3)
}

func (r *restorer) readLeafCache() leafCacheRecord {
	d := r.d
	c := leafCacheRecord{path: d.String(), current: d.Resource(), cached: d.Resource(), ratio: d.Float32()}
	c.activeWeights, c.weights = d.Float64(), d.Float64()
	if r.v >= versionLabels {
		n := d.Len(maxStateCount)
		c.ratios = make([]float32, 0, min(n, 64))
		for i := 0; i < n && d.Err() == nil; i++ {
			c.ratios = append(c.ratios, d.Float32())
		}
	}
	return c
}

// readLeafCaches reads the leaves' caches over what startApps derived.
func (r *restorer) readLeafCaches() bool {
	d := r.d
	d.Field("leaf caches")
	n := d.Len(maxStateCount)
	for i := 0; i < n && d.Err() == nil; i++ {
		c := r.readLeafCache()
		if d.Err() != nil {
			return false
		}
		q := r.s.byPath[c.path]
		if q == nil || q.leaf == nil {
			r.fail("leaf caches[%d]: %q is not a leaf", i, c.path)
			return false
		}
		if r.v >= versionLabels && len(c.ratios) != len(q.lp) {
			r.fail("leaf caches[%d]: %d partitions, the scheduler has %d", i, len(c.ratios), len(q.lp))
			return false
		}
		lf := q.leaf
		lf.currentLimit, lf.cachedLimit = c.current, c.cached
		lf.usageRatio, lf.activeWeights, lf.allWeights = c.ratio, c.activeWeights, c.weights
		for j, x := range c.ratios {
			q.lp[j].usageRatio = x
		}
		lf.ulValid = false
	}
	return d.Err() == nil
}
