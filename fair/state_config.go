package fair

import (
	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

// The configuration records of the body (see "Durable state" in
// state.go): the config and the allocation file in force (its queue tree,
// limits and defaults, reservation settings and placement policy), each
// writer beside its reader.

// writeConfig writes the config record: Config without Groups and
// Logger, then whether it had Groups, then the reservation-system
// settings.
func writeConfig(e *berth.StateEncoder, c *Config) {
	e.Len(len(c.ResourceTypes))
	for _, t := range c.ResourceTypes {
		e.String(t)
	}
	e.Resource(c.MinAllocation)
	e.Resource(c.MaxAllocation)
	e.Resource(c.Increment)
	e.Bool(c.UserAsDefaultQueue)
	e.Bool(c.AllowUndeclaredPools)
	e.Bool(c.AssignMultiple)
	e.Bool(c.DynamicMaxAssign)
	e.Int(c.MaxAssign)
	e.Float64(c.LocalityThresholdNode)
	e.Float64(c.LocalityThresholdRack)
	e.Bool(c.TimeBasedLocality)
	e.Varint(c.LocalityDelayNode)
	e.Varint(c.LocalityDelayRack)
	e.Varint(c.UpdateInterval)
	e.Bool(c.SizeBasedWeight)
	e.Bool(c.Preemption)
	e.Float64(c.PreemptionUtilizationThreshold)
	e.Float64(c.ReservableNodes)
	e.Float64(c.ReservationThresholdIncrementMultiple)
	e.Bool(c.Groups != nil)
	queue.WriteReservationSystemSettings(e, c.ReservationSystem)
}

// readConfig reads the config record and checks it as New does; Groups
// and Logger come from the environment.
func (r *restorer) readConfig() Config {
	d := r.d
	var c Config
	d.Field("config")
	n := d.Len(1 << 10)
	for i := 0; i < n && d.Err() == nil; i++ {
		c.ResourceTypes = append(c.ResourceTypes, d.String())
	}
	c.MinAllocation = d.Resource()
	c.MaxAllocation = d.Resource()
	c.Increment = d.Resource()
	c.UserAsDefaultQueue = d.Bool()
	c.AllowUndeclaredPools = d.Bool()
	c.AssignMultiple = d.Bool()
	c.DynamicMaxAssign = d.Bool()
	c.MaxAssign = d.Int()
	c.LocalityThresholdNode = d.Float64()
	c.LocalityThresholdRack = d.Float64()
	c.TimeBasedLocality = d.Bool()
	c.LocalityDelayNode = d.Varint()
	c.LocalityDelayRack = d.Varint()
	c.UpdateInterval = d.Varint()
	c.SizeBasedWeight = d.Bool()
	c.Preemption = d.Bool()
	c.PreemptionUtilizationThreshold = d.Float64()
	c.ReservableNodes = d.Float64()
	c.ReservationThresholdIncrementMultiple = d.Float64()
	hadGroups := d.Bool()
	if d.Version() >= 2 {
		c.ReservationSystem = queue.ReadReservationSystemSettings(d)
	}
	if d.Err() == nil {
		if err := c.Validate(); err != nil {
			r.fail("config: %w", err)
		} else if c.UpdateInterval <= 0 {
			r.fail("config: update interval %d", c.UpdateInterval)
		}
	}
	c.Logger = r.env.Logger
	if hadGroups {
		if r.env.Groups == nil {
			r.d.Defer(berth.InvalidField("groups", nil, "the saved scheduler resolved groups with Config.Groups: RestoreEnv.Groups is required"))
		}
		c.Groups = r.env.Groups
	}
	return c
}

// writePolicy writes a scheduling policy: none, a built-in by number or
// the host's by name.
func writePolicy(e *berth.StateEncoder, p SchedulingPolicy) {
	switch v := p.(type) {
	case nil:
		e.Uvarint(polNone)
	case builtinPolicy:
		e.Uvarint(polBuiltin)
		e.Uvarint(uint64(v.p))
	default:
		e.Uvarint(polHost)
		e.String(p.Name())
	}
}

// readPolicy reads a scheduling policy for field; a host policy the
// environment lacks is deferred and stands in as fair.
func (r *restorer) readPolicy(field string) SchedulingPolicy {
	d := r.d
	switch tag := d.Uvarint(); tag {
	case polNone:
		return nil
	case polBuiltin:
		p := Policy(d.Uvarint())
		if sp := p.SchedulingPolicy(); sp != nil {
			return sp
		}
		r.fail("%s: unknown built-in policy %d", field, p)
	case polHost:
		name := d.String()
		if d.Err() != nil {
			return nil
		}
		p, err := r.env.Policies.Resolve(field, name)
		if err != nil {
			r.d.Defer(berth.InvalidField(field, name, "the host's scheduling policy is not in RestoreEnv.Policies: "+err.Error()))
			return builtinPolicy{PolicyFair}
		}
		return p
	default:
		r.fail("%s: bad policy tag %d", field, tag)
	}
	return nil
}

// writeCRes writes a configurable resource whole (absolute or
// percentages, and its default).
func writeCRes(e *berth.StateEncoder, c ConfigurableResource) {
	e.Bool(c.unbounded)
	e.Bool(c.percent)
	e.Resource(c.abs)
	e.Len(len(c.pct))
	for _, f := range c.pct {
		e.Float64(f)
	}
	e.Float64(c.def)
}

func (r *restorer) readCRes() ConfigurableResource {
	d := r.d
	var c ConfigurableResource
	c.unbounded = d.Bool()
	c.percent = d.Bool()
	c.abs = d.Resource()
	n := d.Len(1 << 10)
	for i := 0; i < n && d.Err() == nil; i++ {
		c.pct = append(c.pct, d.Float64())
	}
	c.def = d.Float64()
	return c
}

// writeOpt writes an optional value of the allocation file: a presence
// flag, then the value with write. readOpt reads it back.
func writeOpt[T any](e *berth.StateEncoder, v *T, write func(T)) {
	e.Bool(v != nil)
	if v != nil {
		write(*v)
	}
}

// readOpt reads a value written by writeOpt: nil when absent.
func readOpt[T any](d *berth.StateDecoder, read func() T) *T {
	if !d.Bool() {
		return nil
	}
	v := read()
	return &v
}

// writeQueueConfig writes a configured queue as the allocation file has
// it (optional values as writeOpt writes them) and, depth first, its
// children.
func writeQueueConfig(e *berth.StateEncoder, q *QueueConfig) {
	e.String(q.Path)
	e.Bool(q.Parent)
	cres := func(c ConfigurableResource) { writeCRes(e, c) }
	writeOpt(e, q.MinResources, e.Resource)
	writeOpt(e, q.MaxResources, cres)
	writeOpt(e, q.MaxChildResources, cres)
	writeOpt(e, q.MaxContainerAllocation, e.Resource)
	writeOpt(e, q.MaxRunningApps, e.Int)
	writeOpt(e, q.MaxAMShare, e.Float32)
	writeOpt(e, q.Weight, e.Float32)
	writeOpt(e, q.Policy, func(p Policy) { e.Uvarint(uint64(p)) })
	writePolicy(e, q.SchedulingPolicy)
	for _, a := range []*queue.ACL{q.SubmitACL, q.AdministerACL, q.AdministerReservationsACL, q.ListReservationsACL, q.SubmitReservationsACL} {
		queue.WriteACL(e, a)
	}
	writeOpt(e, q.MinSharePreemptionTimeout, e.Varint)
	writeOpt(e, q.FairSharePreemptionTimeout, e.Varint)
	writeOpt(e, q.FairSharePreemptionThreshold, e.Float32)
	writeOpt(e, q.AllowPreemptionFrom, e.Bool)
	e.Bool(q.Reservable)
	e.Len(len(q.Children))
	for i := range q.Children {
		writeQueueConfig(e, &q.Children[i])
	}
}

func (r *restorer) readQueueConfig(depth int) QueueConfig {
	d := r.d
	var q QueueConfig
	if depth > maxStateDepth {
		r.fail("allocation file nested deeper than %d", maxStateDepth)
		return q
	}
	q.Path = d.String()
	q.Parent = d.Bool()
	q.MinResources = readOpt(d, d.Resource)
	q.MaxResources = readOpt(d, r.readCRes)
	q.MaxChildResources = readOpt(d, r.readCRes)
	q.MaxContainerAllocation = readOpt(d, d.Resource)
	q.MaxRunningApps = readOpt(d, d.Int)
	q.MaxAMShare = readOpt(d, d.Float32)
	q.Weight = readOpt(d, d.Float32)
	q.Policy = readOpt(d, func() Policy { return Policy(d.Uvarint()) })
	q.SchedulingPolicy = r.readPolicy("allocations.queue[" + q.Path + "].schedulingPolicy")
	q.SubmitACL = queue.ReadACL(d)
	q.AdministerACL = queue.ReadACL(d)
	q.AdministerReservationsACL = queue.ReadACL(d)
	q.ListReservationsACL = queue.ReadACL(d)
	q.SubmitReservationsACL = queue.ReadACL(d)
	q.MinSharePreemptionTimeout = readOpt(d, d.Varint)
	q.FairSharePreemptionTimeout = readOpt(d, d.Varint)
	q.FairSharePreemptionThreshold = readOpt(d, d.Float32)
	q.AllowPreemptionFrom = readOpt(d, d.Bool)
	q.Reservable = d.Bool()
	n := d.Len(maxStateItems)
	for i := 0; i < n && d.Err() == nil; i++ {
		q.Children = append(q.Children, r.readQueueConfig(depth+1))
	}
	return q
}

// writeRule writes a placement rule (a host rule by name), then its
// parent rule if it has one.
func writeRule(e *berth.StateEncoder, r *PlacementRule) {
	e.Uvarint(uint64(r.Kind))
	e.Bool(r.Create)
	e.String(r.Queue)
	if r.Custom != nil {
		e.Bool(true)
		e.String(r.Custom.Name())
	} else {
		e.Bool(false)
	}
	e.Bool(r.Parent != nil)
	if r.Parent != nil {
		writeRule(e, r.Parent)
	}
}

func (r *restorer) readRule(depth int) PlacementRule {
	d := r.d
	var pr PlacementRule
	if depth > maxStateDepth {
		r.fail("placement rule nested deeper than %d", maxStateDepth)
		return pr
	}
	pr.Kind = RuleKind(d.Uvarint())
	pr.Create = d.Bool()
	pr.Queue = d.String()
	if d.Bool() {
		name := d.String()
		if d.Err() == nil {
			rule, err := r.env.Rules.Resolve("allocations.queuePlacementPolicy.rule", name)
			if err != nil {
				r.d.Defer(berth.InvalidField("allocations.queuePlacementPolicy.rule", name, "the host's placement rule is not in RestoreEnv.Rules: "+err.Error()))
			}
			pr.Custom = rule
		}
	} else if d.Err() == nil && ruleName(pr.Kind) == "" {
		r.fail("placement rule kind %d", pr.Kind)
	}
	if d.Bool() {
		p := r.readRule(depth + 1)
		pr.Parent = &p
	}
	return pr
}

// writeAllocationFile writes the allocation file in force: the queue
// tree, user limits, defaults, reservation settings and placement policy.
func writeAllocationFile(e *berth.StateEncoder, af *AllocationFile) {
	writeQueueConfig(e, &af.Root)
	users := sortedKeys(af.UserMaxApps)
	e.Len(len(users))
	for _, u := range users {
		e.String(u)
		e.Int(af.UserMaxApps[u])
	}
	e.Int(af.UserMaxAppsDefault)
	e.Int(af.QueueMaxAppsDefault)
	writeCRes(e, af.QueueMaxResourcesDefault)
	e.Float32(af.QueueMaxAMShareDefault)
	e.Uvarint(uint64(af.DefaultPolicy))
	writePolicy(e, af.DefaultSchedulingPolicy)
	e.Varint(af.DefaultMinSharePreemptionTimeout)
	e.Varint(af.DefaultFairSharePreemptionTimeout)
	e.Float32(af.DefaultFairSharePreemptionThreshold)
	queue.WriteReservationSettings(e, af.Reservation)
	e.Bool(af.Placement != nil)
	if af.Placement != nil {
		e.Len(len(af.Placement.Rules))
		for i := range af.Placement.Rules {
			writeRule(e, &af.Placement.Rules[i])
		}
	}
}

func (r *restorer) readAllocationFile() *AllocationFile {
	d := r.d
	d.Field("allocations")
	af := &AllocationFile{UserMaxApps: map[string]int{}}
	af.Root = r.readQueueConfig(0)
	n := d.Len(maxStateItems)
	for i := 0; i < n && d.Err() == nil; i++ {
		u := d.String()
		af.UserMaxApps[u] = d.Int()
	}
	af.UserMaxAppsDefault = d.Int()
	af.QueueMaxAppsDefault = d.Int()
	af.QueueMaxResourcesDefault = r.readCRes()
	af.QueueMaxAMShareDefault = r.d.Float32()
	af.DefaultPolicy = Policy(d.Uvarint())
	af.DefaultSchedulingPolicy = r.readPolicy("allocations.defaultQueueSchedulingPolicy")
	af.DefaultMinSharePreemptionTimeout = d.Varint()
	af.DefaultFairSharePreemptionTimeout = d.Varint()
	af.DefaultFairSharePreemptionThreshold = r.d.Float32()
	if d.Version() >= 2 {
		af.Reservation = queue.ReadReservationSettings(d)
	} else if ag, pol, pl := d.String(), d.String(), d.String(); ag != "" || pol != "" || pl != "" {
		// Version 1 kept the three names alone, "" when absent.
		for _, x := range []struct{ elem, v string }{{"reservation-agent", ag}, {"reservation-policy", pol}, {"reservation-planner", pl}} {
			if x.v != "" {
				_ = reservationElem(af, x.elem, x.v)
			}
		}
	}
	if d.Bool() {
		af.Placement = &PlacementPolicy{}
		n := d.Len(maxStateItems)
		for i := 0; i < n && d.Err() == nil; i++ {
			af.Placement.Rules = append(af.Placement.Rules, r.readRule(0))
		}
	}
	if d.Err() == nil && af.Root.Path != queue.RootName {
		r.fail("allocation file root %q", af.Root.Path)
	}
	return af
}
