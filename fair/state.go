package fair

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"slices"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

// Durable state (issue 11 §1). SaveState writes one snapshot of kind
// "fair.Scheduler", body version 2, in the berth framing. The body, in
// order (resources, strings and floats as the framing writes them):
//
//	config        Config without Groups and Logger, then whether it had
//	              Groups, then the reservation-system settings
//	allocations   the AllocationFile in force: the queue tree as written
//	              (every field, host policies by name), user limits,
//	              defaults, the reservation settings, the placement policy
//	              (host rules by name)
//	scalars       next container id, next submission sequence, last update
//	              time, whether an update ran, the first PolicyError
//	nodes         in id order: id, rack, capability
//	queues        pre-order, children in creation order: path, parent,
//	              leaf, dynamic, plan, reservation, entitlement, whether
//	              the file or the shared tree holds it as configured, its
//	              policy (built-in number or host name), and the results of
//	              the last update (demand, fair and steady fair shares,
//	              active) and its min-share starvation clock
//	type changes  leaf/parent changes deferred by a reload
//	apps          leaf by leaf in queue order, runnable then waiting, each
//	              list in its order: id, user, leaf, runnable, sequence,
//	              priority, reservation id, start time, the last update's
//	              demand, fair share and weight, AM state, starvation state
//	              (last time at fair share, fair and min-share starvation,
//	              back-off end) and its request table with each key's
//	              delay-scheduling state
//	users         each user's waiting applications in order
//	containers    in id order: id, application, node, size, priority,
//	              locality, AM, time, marked for preemption
//	reservations  id, node, application, priority, size, time
//	earmarks      per node, what it owes starved applications, in order
//
// Everything else is derived and rebuilt on restore through the same
// helpers normal operation uses: queue settings and maximum shares
// (applySettings), the shared queue tree and its books (syncTree and
// account), usage of applications, queues and nodes, runnable counts, AM
// usage, the container index and the intrusive per-application and
// per-node lists (containers are re-linked in id order, which is the
// order the lists keep), rack counts and the walk's kept orders (re-keyed
// before the first walk). A restored scheduler is checked with
// [Scheduler.Check] before it is returned.
//
// Fair shares are saved, not recomputed: they are those of the last
// update, computed from demands that later asks have since changed.

const (
	stateKind    = "fair.Scheduler"
	stateVersion = 2

	// bounds on counts read from a snapshot (a corrupt count fails fast)
	maxStateItems = 1 << 28
	maxStateDepth = 256
)

// RestoreEnv is what a snapshot cannot hold and the host supplies to
// [RestoreScheduler].
type RestoreEnv struct {
	// Clock is the host's clock (required).
	Clock berth.Clock
	// Groups becomes Config.Groups: required when the saved scheduler had
	// one (placement and ACLs must see the same groups), ignored when it
	// had none.
	Groups queue.Groups
	// Logger becomes Config.Logger (nil: silent).
	Logger *slog.Logger
	// Rules resolves the host's placement rules saved in the allocation
	// file's placement policy, by the name their Name method reported.
	Rules *queue.Registry[Rule]
	// Policies resolves the host's scheduling policies (of queues and of
	// the allocation file), by the name their Name method reported.
	Policies *queue.Registry[SchedulingPolicy]
}

// RestoreOptions is the first name of [RestoreEnv], kept so that hosts
// written against it still build.
//
// Deprecated: use RestoreEnv, the name packages plan and capacity use too.
type RestoreOptions = RestoreEnv

// policy tags of the body
const (
	polNone    = 0
	polBuiltin = 1
	polHost    = 2
)

// SaveState writes the scheduler's state to w as one snapshot (see
// "Durable state" in the package documentation). It holds the scheduler's
// lock for the whole write, so the snapshot is a consistent cut, and
// streams: besides the output buffer it allocates only an index of the
// applications and nodes.
func (s *Scheduler) SaveState(w io.Writer) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.saveState(w)
}

// saveState is SaveState with the lock held.
func (s *Scheduler) saveState(w io.Writer) error {
	e := berth.NewStateEncoder(w, stateKind, stateVersion)
	writeConfig(e, &s.cfg)
	writeAllocationFile(e, s.alloc)

	e.Uvarint(uint64(s.nextID))
	e.Uvarint(s.nextSeq)
	e.Varint(s.lastUpdate)
	e.Bool(s.updated)
	var pe *PolicyError
	if errors.As(s.polErr, &pe) {
		e.Bool(true)
		e.String(pe.Policy)
		e.String(pe.Queue)
		e.String(pe.Item)
		e.Resource(pe.Share)
		e.String(pe.Reason)
	} else {
		e.Bool(false)
	}

	nodeIdx := make(map[*node]int, len(s.byID))
	e.Len(len(s.byID))
	for i, n := range s.byID {
		nodeIdx[n] = i
		e.String(n.ID)
		e.String(n.Rack)
		e.Resource(n.Capability)
	}

	var qs []*fsQueue
	var walk func(q *fsQueue)
	walk = func(q *fsQueue) {
		qs = append(qs, q)
		for _, c := range q.children {
			walk(c)
		}
	}
	walk(s.root)
	qIdx := make(map[*fsQueue]int, len(qs))
	e.Len(len(qs))
	for i, q := range qs {
		qIdx[q] = i
		e.String(q.path)
		if q.parent == nil {
			e.Int(-1)
		} else {
			e.Int(qIdx[q.parent])
		}
		e.Bool(q.leaf)
		e.Bool(q.dynamic)
		e.Bool(q.plan)
		e.Bool(q.reservation)
		e.Float64(q.entitlement)
		e.Bool(q.inConfig)
		e.Bool(q.tq != nil && !q.tq.Removed() && !q.tq.IsDynamic())
		writePolicy(e, q.policy)
		e.Resource(q.Demand)
		e.Resource(q.FairShare)
		e.Resource(q.SteadyFairShare)
		e.Bool(q.Active)
		e.Varint(q.lastAtMinShare)
	}

	tc := sortedKeys(s.pendingTypeChange)
	e.Len(len(tc))
	for _, p := range tc {
		e.String(p)
		e.Bool(s.pendingTypeChange[p])
	}

	appIdx := make(map[*app]int, len(s.apps))
	e.Len(len(s.apps))
	for _, q := range qs {
		if !q.leaf {
			continue
		}
		for _, list := range [][]*app{q.runnableApps, q.nonRunnableApps} {
			for _, a := range list {
				appIdx[a] = len(appIdx)
				writeApp(e, a, qIdx[q])
			}
		}
	}
	if len(appIdx) != len(s.apps) {
		e.Fail(fmt.Errorf("%w: %d applications in queues, %d known", berth.ErrInvalidState, len(appIdx), len(s.apps)))
	}

	users := sortedKeys(s.users)
	nu := 0
	for _, u := range users {
		if len(s.users[u].nonRunnable) > 0 {
			nu++
		}
	}
	e.Len(nu)
	for _, u := range users {
		wait := s.users[u].nonRunnable
		if len(wait) == 0 {
			continue
		}
		e.String(u)
		e.Len(len(wait))
		for _, a := range wait {
			e.Int(appIdx[a])
		}
	}

	e.Len(s.live.Len())
	s.live.Ascend(func(c *container) {
		e.Uvarint(uint64(c.ID))
		e.Int(appIdx[c.app])
		e.Int(nodeIdx[c.node])
		e.Resource(c.Resource)
		e.Varint(int64(c.Priority))
		e.Uvarint(uint64(c.Locality))
		e.Bool(c.AM)
		e.Varint(c.Time)
		e.Bool(c.marked)
	})

	e.Len(len(s.resvByID))
	for _, n := range s.byID { // every reservation is its node's
		if r := n.reserved; r != nil {
			e.Uvarint(uint64(r.id))
			e.Int(nodeIdx[n])
			e.Int(appIdx[r.app])
			e.Varint(int64(r.prio))
			e.Resource(r.res)
			e.Varint(r.time)
		}
	}

	// Earmarks of applications that have gone are dropped: the next
	// heartbeat of their node would drop them before reading any.
	ne := 0
	for _, n := range s.byID {
		if liveEarmarks(n) > 0 {
			ne++
		}
	}
	e.Len(ne)
	for _, n := range s.byID {
		k := liveEarmarks(n)
		if k == 0 {
			continue
		}
		e.Int(nodeIdx[n])
		e.Len(k)
		for _, p := range n.preempted {
			if !p.app.gone {
				e.Int(appIdx[p.app])
				e.Resource(p.res)
			}
		}
	}
	return e.Finish()
}

func liveEarmarks(n *node) int {
	k := 0
	for _, p := range n.preempted {
		if !p.app.gone {
			k++
		}
	}
	return k
}

func writeApp(e *berth.StateEncoder, a *app, q int) {
	e.String(a.id)
	e.String(a.user)
	e.Int(q)
	e.Bool(a.runnable)
	e.Uvarint(a.seq)
	e.Varint(int64(a.appPrio))
	e.String(a.resID)
	e.Varint(a.StartTime)
	e.Resource(a.Demand)
	e.Resource(a.FairShare)
	e.Float64(a.Weight)
	e.Bool(a.Active)
	e.Bool(a.managedAM)
	e.Bool(a.amRunning)
	e.Resource(a.amRes)
	e.Varint(a.lastTimeAtFairShare)
	e.Resource(a.fairStarvation)
	e.Resource(a.minStarvation)
	e.Varint(a.nextStarvationCheck)
	a.asks.WriteState(e, writeDelay)
}

func writeDelay(e *berth.StateEncoder, d *delayState) {
	e.Uvarint(uint64(d.allowed))
	e.Bool(d.allowedSet)
	e.Int(d.opps)
	e.Varint(d.lastAt)
	e.Bool(d.lastAtSet)
}

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

// writeOpt writes an optional value of the allocation file: a presence
// flag, then the value with write. readOpt reads it back.
func writeOpt[T any](e *berth.StateEncoder, v *T, write func(T)) {
	e.Bool(v != nil)
	if v != nil {
		write(*v)
	}
}

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

// restorer carries a restore's decoder and the host's environment. A value
// the environment lacks (a policy, calculator, rule or groups provider the
// snapshot names) is reported through the decoder's Defer, so a damaged
// snapshot is still reported as corrupt.
type restorer struct {
	d   *berth.StateDecoder
	env RestoreEnv
}

func (r *restorer) fail(format string, args ...any) {
	r.d.Fail(fmt.Errorf(format, args...))
}

// RestoreScheduler reads a snapshot written by [Scheduler.SaveState] and
// returns a new scheduler in the same state, which decides exactly as the
// saved one would have. What a snapshot cannot hold comes from env (see
// [RestoreEnv]). Nothing is returned unless the whole snapshot
// verified: a damaged snapshot is an error wrapping berth.ErrCorruptState,
// one of another kind or a newer version berth.ErrInvalidArgument or
// berth.ErrUnsupportedVersion, and a host rule, policy or groups provider env cannot
// resolve (or a nil clock) berth.ErrInvalidArgument naming it.
func RestoreScheduler(rd io.Reader, env RestoreEnv) (*Scheduler, error) {
	if berth.CheckNotNil("clock", env.Clock) != nil {
		return nil, berth.InvalidField("clock", nil, "a clock is required")
	}
	d, err := berth.NewStateDecoder(rd, stateKind, stateVersion)
	if err != nil {
		return nil, err
	}
	r := &restorer{d: d, env: env}
	s := r.restore()
	if err := d.Finish(); err != nil {
		return nil, err
	}
	if err := s.Check(); err != nil {
		return nil, &berth.StateError{Kind: stateKind, Field: "books", Err: fmt.Errorf("%w: %w", berth.ErrCorruptState, err)}
	}
	return s, nil
}

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

// readOpt reads a value written by writeOpt: nil when absent.
func readOpt[T any](d *berth.StateDecoder, read func() T) *T {
	if !d.Bool() {
		return nil
	}
	v := read()
	return &v
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

// int32 reads a priority.
func (r *restorer) int32() int32 {
	v := r.d.Varint()
	if r.d.Err() == nil && (v < math.MinInt32 || v > math.MaxInt32) {
		r.fail("%d out of int32 range", v)
		return 0
	}
	return int32(v)
}

// index reads an index into a list of n records; -1 after an error.
func (r *restorer) index(n int, what string) int {
	i := r.d.Int()
	if r.d.Err() != nil {
		return -1
	}
	if i < 0 || i >= n {
		r.fail("%s index %d out of range [0, %d)", what, i, n)
		return -1
	}
	return i
}

// app and node read an index and return the record, nil after an error.
func (r *restorer) app(apps []*app) *app {
	if i := r.index(len(apps), "application"); i >= 0 {
		return apps[i]
	}
	return nil
}

func (r *restorer) node(s *Scheduler) *node {
	if i := r.index(len(s.byID), "node"); i >= 0 {
		return s.byID[i]
	}
	return nil
}

// restore reads the body into a new scheduler. On any decoding error it
// stops early; the caller discards the result.
func (r *restorer) restore() *Scheduler {
	d := r.d
	cfg := r.readConfig()
	af := r.readAllocationFile()
	s := &Scheduler{sortSmall: smallSet,
		clock: r.env.Clock, cfg: cfg, alloc: af, unbounded: Unbounded(cfg.ResourceTypes...),
		queues: map[string]*fsQueue{}, pendingTypeChange: map[string]bool{},
		nodes: map[string]*node{},
		apps:  map[string]*app{}, users: map[string]*userApps{},
		resvByID: map[ContainerID]*reservation{},
	}
	if af.Placement != nil {
		s.placement = af.Placement
	} else {
		s.placement = ImplicitPlacementPolicy(cfg.UserAsDefaultQueue, cfg.AllowUndeclaredPools)
	}

	d.Field("scalars")
	s.nextID = ContainerID(d.Uvarint())
	s.nextSeq = d.Uvarint()
	s.lastUpdate = d.Varint()
	s.updated = d.Bool()
	var polErr *PolicyError
	if d.Bool() {
		polErr = &PolicyError{Policy: d.String(), Queue: d.String(), Item: d.String(), Share: d.Resource(), Reason: d.String()}
	}

	// Nodes, as AddNode files them (one cluster change at the end).
	d.Field("nodes")
	nn := d.Len(maxStateItems)
	for i := 0; i < nn && d.Err() == nil; i++ {
		spec := NodeSpec{ID: d.String(), Rack: d.String(), Capability: d.Resource()}
		if d.Err() != nil {
			break
		}
		if spec.ID == "" || spec.Rack == "" || spec.Capability.AnyNegative() || (i > 0 && spec.ID <= s.nodeIDs[i-1]) {
			r.fail("node %d (%q) invalid or out of order", i, spec.ID)
			break
		}
		if !fitsSum(s.cluster, spec.Capability) {
			r.fail("node %q overflows the cluster", spec.ID)
			break
		}
		n := &node{NodeSpec: spec}
		s.nodes[spec.ID] = n
		s.nodeIDs = append(s.nodeIDs, spec.ID)
		s.byID = append(s.byID, n)
		s.racks.Add(spec.Rack)
		s.cluster = s.cluster.Add(spec.Capability)
	}

	// Queues in pre-order, through newQueue as every queue is made; their
	// settings are applied again below, once the tree is whole.
	type qstate struct {
		demand, fair, steady berth.Resource
		active               bool
		lastAtMin            berth.Time
		tqConfigured         bool
		inConfig             bool
	}
	d.Field("queues")
	nq := d.Len(maxStateItems)
	qs := make([]*fsQueue, 0, min(nq, 1024))
	st := make([]qstate, 0, min(nq, 1024))
	for i := 0; i < nq && d.Err() == nil; i++ {
		path := d.String()
		parent := d.Int()
		leaf, dynamic, plan, resv := d.Bool(), d.Bool(), d.Bool(), d.Bool()
		ent := d.Float64()
		var x qstate
		x.inConfig = d.Bool()
		x.tqConfigured = d.Bool()
		pol := r.readPolicy("queues[" + path + "].policy")
		x.demand, x.fair, x.steady = d.Resource(), d.Resource(), d.Resource()
		x.active = d.Bool()
		x.lastAtMin = d.Varint()
		if d.Err() != nil {
			break
		}
		if pol == nil {
			r.fail("queue %q without a policy", path)
			break
		}
		var p *fsQueue
		switch {
		case i == 0 && (parent != -1 || path != queue.RootName || leaf):
			r.fail("first queue %q is not the root", path)
		case i > 0 && (parent < 0 || parent >= i):
			r.fail("queue %q: parent index %d", path, parent)
		case s.queues[path] != nil:
			r.fail("queue %q twice", path)
		}
		if d.Err() != nil {
			break
		}
		if i > 0 {
			p = qs[parent]
			pp, err := queue.ParsePath(path)
			pa, _ := pp.Parent()
			if err != nil || p.leaf || pa.String() != p.path {
				r.fail("queue %q does not fit under %q", path, p.path)
				break
			}
		}
		q := s.newQueue(path, p, leaf, pol)
		q.dynamic, q.plan, q.reservation, q.entitlement = dynamic, plan, resv, ent
		if i == 0 {
			s.root = q
		}
		qs = append(qs, q)
		st = append(st, x)
	}
	if d.Err() != nil || len(qs) == 0 {
		if d.Err() == nil {
			r.fail("no root queue")
		}
		return s
	}
	if s.queues[defaultQueue] == nil {
		r.fail("no %s queue", defaultQueue)
		return s
	}
	// Settings top-down, then the steady shares, exactly as a reload does.
	for i, q := range qs {
		s.applySettings(q)
		q.inConfig = st[i].inConfig || st[i].tqConfigured
	}
	for _, q := range qs {
		switch {
		case q.parent == nil && (q.dynamic || q.plan || q.reservation):
			r.fail("root marked dynamic, plan or reservation")
		case q.reservation && (!q.leaf || !q.parent.plan):
			r.fail("reservation queue %q not a leaf of a plan", q.path)
		case leafOnly(q.policy) && !q.leaf:
			r.fail("parent queue %q with leaf-only policy %s", q.path, q.policy.Name())
		}
		if d.Err() != nil {
			return s
		}
	}
	s.recomputeSteady()
	s.syncTree()
	for i, q := range qs {
		q.inConfig = st[i].inConfig
		q.Demand, q.FairShare, q.SteadyFairShare = st[i].demand, st[i].fair, st[i].steady
		q.Active = st[i].active
		q.lastAtMinShare = st[i].lastAtMin
	}
	s.polErr = nil
	if polErr != nil {
		s.polErr = polErr
	}
	s.ordStale = true

	d.Field("type changes")
	ntc := d.Len(maxStateItems)
	for i := 0; i < ntc && d.Err() == nil; i++ {
		p := d.String()
		s.pendingTypeChange[p] = d.Bool()
	}

	// Applications, filed in their lists in the saved order.
	d.Field("apps")
	na := d.Len(maxStateItems)
	apps := make([]*app, 0, min(na, 1<<16))
	for i := 0; i < na && d.Err() == nil; i++ {
		a := r.readApp(s, qs)
		if a == nil {
			break
		}
		apps = append(apps, a)
	}
	if d.Err() != nil {
		return s
	}

	d.Field("users")
	nu := d.Len(maxStateItems)
	waiting := 0
	for i := 0; i < nu && d.Err() == nil; i++ {
		name := d.String()
		k := d.Len(na)
		u := s.user(name)
		if len(u.nonRunnable) > 0 {
			r.fail("user %q twice", name)
		}
		for j := 0; j < k && d.Err() == nil; j++ {
			a := r.app(apps)
			if a == nil {
				break
			}
			if a.user != name || a.runnable || slices.Contains(u.nonRunnable, a) {
				r.fail("user %q: waiting application %q misfiled", name, a.id)
			}
			u.nonRunnable = append(u.nonRunnable, a)
			waiting++
		}
	}
	if d.Err() == nil {
		for _, a := range apps {
			if !a.runnable {
				waiting--
			}
		}
		if waiting != 0 {
			r.fail("users' waiting lists do not hold every waiting application")
		}
	}

	// Containers, charged as allocate charges them, in id order (the
	// order of the intrusive lists).
	d.Field("containers")
	nc := d.Len(maxStateItems)
	var last ContainerID
	for i := 0; i < nc && d.Err() == nil; i++ {
		id := ContainerID(d.Uvarint())
		a, n := r.app(apps), r.node(s)
		if a == nil || n == nil {
			break
		}
		c := &container{Container: Container{ID: id, Resource: d.Resource(), Priority: r.int32(),
			Locality: Locality(d.Uvarint()), AM: d.Bool(), Time: d.Varint()}, app: a, node: n}
		c.marked = d.Bool()
		if d.Err() != nil {
			break
		}
		if id == 0 || id <= last || id > s.nextID || c.Resource.AnyNegative() || c.Locality > OffSwitch {
			r.fail("container %d invalid or out of order", id)
			break
		}
		if !n.allocated.Add(c.Resource).FitsIn(n.Capability) {
			r.fail("container %d overfills node %q", id, n.ID)
			break
		}
		last = id
		c.App, c.Node, c.Queue, c.User = a.id, n.ID, a.q.path, a.user
		s.chargeRestored(c)
	}

	d.Field("reservations")
	nr := d.Len(maxStateItems)
	for i := 0; i < nr && d.Err() == nil; i++ {
		id := ContainerID(d.Uvarint())
		n, a := r.node(s), r.app(apps)
		if a == nil || n == nil {
			break
		}
		rv := &reservation{id: id, app: a, node: n, prio: r.int32(), res: d.Resource(), time: d.Varint()}
		if d.Err() != nil {
			break
		}
		if _, live := s.live.Get(id); live || id == 0 || id > s.nextID || s.resvByID[id] != nil || n.reserved != nil || rv.res.AnyNegative() {
			r.fail("reservation %d invalid", id)
			break
		}
		n.reserved = rv
		a.reservedOn[n.ID] = rv
		a.reservedRes = a.reservedRes.Add(rv.res)
		s.account(a.q, a.user, queue.Delta{Reserved: rv.res})
		s.resvByID[id] = rv
	}

	d.Field("earmarks")
	ne := d.Len(maxStateItems)
	for i := 0; i < ne && d.Err() == nil; i++ {
		n := r.node(s)
		if n == nil {
			break
		}
		k := d.Len(na)
		if len(n.preempted) > 0 {
			r.fail("node %q earmarked twice", n.ID)
		}
		for j := 0; j < k && d.Err() == nil; j++ {
			a := r.app(apps)
			res := d.Resource()
			if a == nil {
				break
			}
			if res.AnyNegative() {
				r.fail("negative earmark on %q", n.ID)
			}
			n.preempted = append(n.preempted, &preemptedFor{app: a, res: res})
		}
	}
	// The delay-state and shares are as saved; nothing above may leave
	// the walk's orders stale.
	s.ordStale = true
	return s
}

// fitsSum reports whether a+b stays representable in every type.
func fitsSum(a, b berth.Resource) bool {
	for _, t := range berth.TypeNames(b) {
		if b.Get(t) > math.MaxInt64-a.Get(t) {
			return false
		}
	}
	return true
}

// chargeRestored books a restored container as allocate books a new one.
func (s *Scheduler) chargeRestored(c *container) {
	a, n := c.app, c.node
	s.live.Put(c.ID, c)
	a.live.push(c, appList)
	n.live.push(c, nodeList)
	n.allocated = n.allocated.Add(c.Resource)
	s.account(a.q, a.user, queue.Delta{Used: c.Resource})
	a.Usage = a.Usage.Add(c.Resource)
	for p := a.q; p != nil; p = p.parent {
		p.Usage = p.Usage.Add(c.Resource)
	}
}

// readApp reads one application and files it at the end of its leaf's
// runnable or waiting list, with the counts addAppToQueue keeps.
func (r *restorer) readApp(s *Scheduler, qs []*fsQueue) *app {
	d := r.d
	a := &app{reservedOn: map[string]*reservation{}}
	a.id = d.String()
	a.user = d.String()
	qi := r.index(len(qs), "queue")
	a.runnable = d.Bool()
	a.seq = d.Uvarint()
	a.appPrio = r.int32()
	a.resID = d.String()
	a.StartTime = d.Varint()
	a.Demand = d.Resource()
	a.FairShare = d.Resource()
	a.Weight = d.Float64()
	a.Active = d.Bool()
	a.managedAM = d.Bool()
	a.amRunning = d.Bool()
	a.amRes = d.Resource()
	a.lastTimeAtFairShare = d.Varint()
	a.fairStarvation = d.Resource()
	a.minStarvation = d.Resource()
	a.nextStarvationCheck = d.Varint()
	asks := queue.ReadRequestsIn(d, readDelay, &a.askBlk)
	if d.Err() != nil {
		return nil
	}
	q := qs[qi]
	switch {
	case a.id == "" || s.apps[a.id] != nil:
		r.fail("application %q empty or twice", a.id)
	case !q.leaf:
		r.fail("application %q in parent queue %q", a.id, q.path)
	case a.seq == 0 || a.seq > s.nextSeq:
		r.fail("application %q: sequence %d", a.id, a.seq)
	}
	if d.Err() != nil {
		return nil
	}
	// The fields SubmitApp sets and the snapshot does not hold; keep the
	// two in step (TestStateRestoresEveryField names a field left out).
	a.asks = *asks
	a.Name = a.id
	a.npre = namePrefix(a.Name)
	a.ord.Value = a
	a.Priority = 1
	a.MaxShare = s.unbounded
	a.q = q
	s.apps[a.id] = a
	if a.runnable {
		if len(q.nonRunnableApps) > 0 {
			r.fail("application %q: runnable after waiting ones in %q", a.id, q.path)
			return nil
		}
		s.account(q, a.user, queue.Delta{ActiveApps: 1})
		q.runnableApps = append(q.runnableApps, a)
		for p := q; p != nil; p = p.parent {
			p.numRunnable++
		}
		s.user(a.user).runnable++
	} else {
		s.account(q, a.user, queue.Delta{PendingApps: 1})
		q.nonRunnableApps = append(q.nonRunnableApps, a)
	}
	if a.amRunning {
		q.amUsage = q.amUsage.Add(a.amRes)
	}
	return a
}

func readDelay(d *berth.StateDecoder, s *delayState) {
	s.allowed = Locality(d.Uvarint())
	s.allowedSet = d.Bool()
	s.opps = d.Int()
	s.lastAt = d.Varint()
	s.lastAtSet = d.Bool()
	if d.Err() == nil && (s.allowed > OffSwitch || s.opps < 0) {
		d.Fail(fmt.Errorf("delay state: level %d, %d opportunities", s.allowed, s.opps))
	}
}
