package capacity

import (
	"errors"
	"fmt"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

// The configuration records of the body (see "Durable state" in
// state.go): the config, the partitions and the reservation queues, each
// writer beside its reader. restore builds a scheduler from them (build)
// before it reads the cluster's records.

// writeConfig writes the config record: the global settings, the
// calculator, the placement, the groups flag, the reservation-system
// settings, the queue tree and the node labels.
func (s *Scheduler) writeConfig(e *berth.StateEncoder) {
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
	writeCalculator(e, c.Calculator)
	e.Resource(c.MinAllocation)
	e.Resource(c.MaxAllocation)
	writePlacement(e, &c.Placement)
	e.Bool(c.Groups != nil)
	queue.WriteReservationSystemSettings(e, c.ReservationSystem)
	writeQueueConfig(e, &c.Root)
	e.Len(len(c.NodeLabels))
	for _, l := range c.NodeLabels {
		e.String(l.Name)
		e.Bool(l.NonExclusive)
	}
}

// readConfig reads the config record after its first field, maxApps
// (which readFeatures read), onto the YARN 3.x settings the features
// block gave.
func (r *restorer) readConfig(maxApps int) Config {
	d := r.d
	d.Field("config")
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
	c.Calculator = r.readCalculator()
	c.MinAllocation = d.Resource()
	c.MaxAllocation = d.Resource()
	r.readPlacement(&c.Placement)
	if d.Bool() {
		c.Groups = r.env.Groups
		if c.Groups == nil {
			d.Defer(berth.InvalidField("groups", nil, "the snapshot's configuration had a groups provider: RestoreEnv.Groups is required"))
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

// Calculator tags of the config record.
const (
	calcMemory   = 0 // berth.MemoryCalculator
	calcDominant = 1 // berth.DominantCalculator
	calcHost     = 2 // the host's, from RestoreEnv.Calculator
)

func writeCalculator(e *berth.StateEncoder, c berth.Calculator) {
	switch c.(type) {
	case berth.MemoryCalculator:
		e.Uvarint(calcMemory)
	case berth.DominantCalculator:
		e.Uvarint(calcDominant)
	default:
		e.Uvarint(calcHost)
	}
}

func (r *restorer) readCalculator() berth.Calculator {
	switch tag := r.d.Uvarint(); tag {
	case calcMemory:
		return berth.MemoryCalculator{}
	case calcDominant:
		return berth.DominantCalculator{}
	case calcHost:
		if r.env.Calculator == nil {
			r.d.Defer(berth.InvalidField("calculator", nil, "the snapshot used a host calculator: RestoreEnv.Calculator is required"))
		}
		return r.env.Calculator
	default:
		r.fail("calculator tag %d", tag)
		return nil
	}
}

// writePlacement writes the placement's rules, its user and group
// mappings, its application mappings and the override flag.
func writePlacement(e *berth.StateEncoder, p *Placement) {
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
}

func (r *restorer) readPlacement(p *Placement) {
	d := r.d
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
}

// maxDepth bounds the queue tree's depth read from a snapshot.
const maxDepth = 256

// writeQueueConfig writes a configured queue and, depth first, its
// children.
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

func writeCapacity(e *berth.StateEncoder, c queue.Capacity) {
	e.Uvarint(uint64(c.Kind))
	if c.Kind == queue.CapacityWeight {
		e.Float32(c.Weight) // in the percentage's place: see readCapacity
	} else {
		e.Float32(c.Percent)
	}
	e.Resource(c.Resource)
}

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

// writeSettings writes a queue's settings as the body holds them (the
// YARN 3.x ones go to the features block).
func writeSettings(e *berth.StateEncoder, st *QueueSettings) {
	e.Float64(st.UserLimitFactor)
	e.Float64(st.MinUserLimitPercent)
	e.Int(st.MaxApplications)
	e.Float64(st.MaxAMResourcePercent)
	e.Uvarint(uint64(st.AppOrdering))
	writeAppOrderingPolicy(e, st.AppOrderingPolicy)
	e.Bool(st.FairSizeBasedWeight)
	e.Uvarint(uint64(st.ChildOrdering))
	writeChildOrderingPolicy(e, st.ChildOrderingPolicy)
	e.Int(st.Priority)
	writeUserWeights(e, st.UserWeights)
	queue.WriteReservationSettings(e, st.Reservation)
	writeLabelSettings(e, st)
}

// readSettings reads a queue's settings in the body onto the YARN 3.x
// settings the features block holds for it.
func (r *restorer) readSettings() QueueSettings {
	st := r.nextSettingsFeatures()
	r.readBaseSettings(&st)
	return st
}

// readBaseSettings reads what writeSettings wrote (as the body's version
// has it) into st.
func (r *restorer) readBaseSettings(st *QueueSettings) {
	d := r.d
	st.UserLimitFactor = d.Float64()
	st.MinUserLimitPercent = d.Float64()
	st.MaxApplications = d.Int()
	st.MaxAMResourcePercent = d.Float64()
	st.AppOrdering = AppOrdering(r.small(uint64(OrderFair), "app ordering"))
	st.AppOrderingPolicy = r.readAppOrderingPolicy()
	st.FairSizeBasedWeight = d.Bool()
	st.ChildOrdering = ChildOrdering(r.small(uint64(OrderPriorityUtilization), "child ordering"))
	st.ChildOrderingPolicy = r.readChildOrderingPolicy()
	st.Priority = d.Int()
	st.UserWeights = r.readUserWeights()
	if r.v >= versionReservations {
		st.Reservation = queue.ReadReservationSettings(d)
	}
	if r.v >= versionLabels {
		r.readLabelSettings(st)
	}
}

func writeAppOrderingPolicy(e *berth.StateEncoder, p AppOrderingPolicy) {
	switch p := p.(type) {
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
}

func (r *restorer) readAppOrderingPolicy() AppOrderingPolicy {
	switch tag := r.d.Uvarint(); tag {
	case tagNone:
		return nil
	case tagBuiltin:
		ord := AppOrdering(r.small(uint64(OrderFair), "app ordering policy"))
		return ord.Policy(r.d.Bool())
	case tagHost:
		name := r.d.String()
		pol, ok := r.env.AppOrderings.Lookup(name)
		if !ok || pol == nil {
			r.d.Defer(berth.InvalidField("app ordering policy", name, "not in RestoreEnv.AppOrderings"))
		}
		return pol
	default:
		r.fail("app ordering policy tag %d", tag)
		return nil
	}
}

func writeChildOrderingPolicy(e *berth.StateEncoder, p ChildOrderingPolicy) {
	switch p := p.(type) {
	case nil:
		e.Uvarint(tagNone)
	case builtinKids:
		e.Uvarint(tagBuiltin)
		e.Bool(p.prio)
	default:
		e.Uvarint(tagHost)
		e.String(p.Name())
	}
}

func (r *restorer) readChildOrderingPolicy() ChildOrderingPolicy {
	switch tag := r.d.Uvarint(); tag {
	case tagNone:
		return nil
	case tagBuiltin:
		if r.d.Bool() {
			return prioKids
		}
		return utilKids
	case tagHost:
		name := r.d.String()
		pol, ok := r.env.ChildOrderings.Lookup(name)
		if !ok || pol == nil {
			r.d.Defer(berth.InvalidField("child ordering policy", name, "not in RestoreEnv.ChildOrderings"))
		}
		return pol
	default:
		r.fail("child ordering policy tag %d", tag)
		return nil
	}
}

// writeUserWeights writes a table that may be nil, by user name.
func writeUserWeights(e *berth.StateEncoder, weights map[string]float64) {
	names := sortedKeys(weights)
	e.Bool(weights != nil)
	e.Len(len(names))
	for _, n := range names {
		e.String(n)
		e.Float64(weights[n])
	}
}

func (r *restorer) readUserWeights() map[string]float64 {
	present, n := r.optionalLen("user weights without a table")
	if !present {
		return nil
	}
	weights := make(map[string]float64, min(n, 64))
	for i := 0; i < n && r.d.Err() == nil; i++ {
		name := r.d.String()
		weights[name] = r.d.Float64()
	}
	return weights
}

// writeLabelSettings writes a queue's node-label settings (version 3):
// the accessible labels, the default expression and the per-label
// capacities by label.
func writeLabelSettings(e *berth.StateEncoder, st *QueueSettings) {
	writeOptionalStrings(e, st.AccessibleNodeLabels)
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

func (r *restorer) readLabelSettings(st *QueueSettings) {
	st.AccessibleNodeLabels = r.readOptionalStrings("accessible labels without a list")
	st.DefaultNodeLabelExpression = r.d.String()
	present, n := r.optionalLen("label settings without a table")
	if !present {
		return
	}
	st.NodeLabels = make(map[string]LabelSettings, min(n, 64))
	for i := 0; i < n && r.d.Err() == nil; i++ {
		l := r.d.String()
		st.NodeLabels[l] = LabelSettings{Capacity: r.readCapacity(), MaxCapacity: r.readCapacity(), MaxAMResourcePercent: r.d.Float64()}
	}
}

// writePartitions writes the labels in the scheduler's partition order,
// which the node, application and leaf records index.
func (s *Scheduler) writePartitions(e *berth.StateEncoder) {
	e.Len(len(s.parts) - 1)
	for _, p := range s.parts[1:] {
		e.String(p.name)
	}
}

// readPartitions reads the partition order (version 3; none before).
func (r *restorer) readPartitions() []string {
	if r.v < versionLabels {
		return nil
	}
	d := r.d
	d.Field("partitions")
	var names []string
	n := d.Len(maxStateCount)
	for i := 0; i < n && d.Err() == nil; i++ {
		names = append(names, d.String())
	}
	return names
}

// resvQueueRecord is a reservation queue as the body holds it.
type resvQueueRecord struct {
	plan, name string
	ent        Entitlement
	st         QueueSettings
}

// writeReservationQueues writes every reservation queue, plans in tree
// order: its plan's path, its name, its entitlement and its own settings.
func (s *Scheduler) writeReservationQueues(e *berth.StateEncoder) {
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

func (r *restorer) readReservationQueues() []resvQueueRecord {
	d := r.d
	d.Field("reservation queues")
	n := d.Len(maxStateCount)
	var out []resvQueueRecord
	for i := 0; i < n && d.Err() == nil; i++ {
		q := resvQueueRecord{plan: d.String(), name: d.String()}
		q.ent.Capacity = d.Float32()
		q.ent.MaxCapacity = d.Float32()
		q.st = r.readSettings()
		out = append(out, q)
	}
	return out
}

// build makes the scheduler the configuration records describe, through
// the calls a host makes: New, then the partitions' order, the
// reservation queues and the auto-created queues.
func (r *restorer) build(cfg Config, partitions []string, resvQueues []resvQueueRecord) bool {
	cfg.Clock = r.env.Clock
	s, err := New(cfg)
	if err != nil {
		r.fail("config: %w", err)
		return false
	}
	if err := s.orderParts(partitions); err != nil {
		r.fail("partitions: %w", err)
		return false
	}
	for i, rq := range resvQueues {
		if err := s.restoreReservationQueue(rq.plan, rq.name, rq.ent, rq.st); err != nil {
			r.fail("reservation queues[%d]: %w", i, err)
			return false
		}
	}
	if err := validateSettings(s.tree); err != nil {
		r.fail("reservation queues: %w", err)
		return false
	}
	if err := s.restoreAutoQueues(r.feat.autoQueues); err != nil {
		r.fail("%w", err)
		return false
	}
	r.s = s
	return true
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
