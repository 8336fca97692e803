package plan

import (
	"bytes"
	"fmt"
	"io"
	"slices"

	"github.com/berthsched/berth"
)

// Durable state: see "Durable state" in the package documentation, and
// DESIGN.md for the layout. Only primary data is written (the plan's
// configuration scalars, its capacity and every accepted allocation as it
// was stored); every index and aggregate is rebuilt on restore by the same
// transaction code that built it originally, so they cannot drift from
// the allocations.

const (
	// SystemStateKind is the kind of the snapshot [System.SaveState] writes.
	SystemStateKind = "plan.System"
	// PlanStateKind is the kind of the snapshot [Plan.SaveState] writes.
	PlanStateKind = "plan.Plan"
	// stateVersion is the body version of both kinds: 2 adds each
	// allocation's stages; version 1 snapshots are read with none.
	stateVersion = 2
	// maxStateCount bounds a count of plans, allocations, ids or stages
	// read from a snapshot, so that a corrupt count fails fast.
	maxStateCount = 1 << 28
)

// ComponentSpec is how a snapshot records a plan's agent, sharing policy
// or replanner, which are Go values it cannot hold: a name and the
// component's parameters in its own encoding. Built-ins report theirs
// through [Specified] (package policy's and agent's do, and their Resolve
// functions rebuild them); for another value the name is its Go type and
// the parameters are empty. A nil component has the zero spec.
type ComponentSpec struct {
	// Name identifies the component, e.g. "CapacityOverTime".
	Name string
	// Params are its parameters, opaque to the plan.
	Params []byte
}

// IsZero reports whether the spec records no component.
func (c ComponentSpec) IsZero() bool { return c.Name == "" && len(c.Params) == 0 }

// Equal compares name and parameters.
func (c ComponentSpec) Equal(o ComponentSpec) bool {
	return c.Name == o.Name && bytes.Equal(c.Params, o.Params)
}

// Specified is implemented by agents, sharing policies and replanners that
// can be recorded in a snapshot by name and parameters, so that a
// [Resolver] can rebuild them and a restore can check that the host
// supplied the same configuration.
type Specified interface {
	// StateSpec returns the component's name and parameters.
	StateSpec() ComponentSpec
}

// specOf records v (an agent, policy or replanner, possibly nil).
func specOf(v any) ComponentSpec {
	if v == nil {
		return ComponentSpec{}
	}
	if s, ok := v.(Specified); ok {
		return s.StateSpec()
	}
	return ComponentSpec{Name: fmt.Sprintf("%T", v)}
}

// Calculator names in a snapshot.
const (
	calcMemory   = "memory"
	calcDominant = "dominant"
)

// calculatorName names c in a snapshot: the built-ins by tag, another by
// its Go type (which only the host can supply back).
func calculatorName(c berth.Calculator) string {
	switch c.(type) {
	case berth.MemoryCalculator, *berth.MemoryCalculator:
		return calcMemory
	case berth.DominantCalculator, *berth.DominantCalculator:
		return calcDominant
	}
	return fmt.Sprintf("%T", c)
}

// PlanSpec is what a snapshot records of a plan's Go values, handed to the
// [Resolver] on restore.
type PlanSpec struct {
	// Queue is the plan's queue.
	Queue string
	// Calculator is "memory" (berth.MemoryCalculator), "dominant"
	// (berth.DominantCalculator) or the Go type of a host's calculator.
	Calculator string
	// Agent, Policy and Replanner record the plan's components.
	Agent, Policy, Replanner ComponentSpec
}

// PlanParts are the Go values of a restored plan, supplied by the host.
type PlanParts struct {
	// Agent, Policy and Replanner become the plan's (Config fields of the
	// same names). Each must be set when the saved plan had one.
	Agent     Agent
	Policy    SharingPolicy
	Replanner Replanner
	// Calculator, when nil, is the built-in the snapshot names; a host's
	// own calculator must be supplied.
	Calculator berth.Calculator
	// Clock, when nil, is [RestoreEnv].Clock.
	Clock berth.Clock
}

// Resolver supplies the Go values of each restored plan from what the
// snapshot recorded of them. A host usually returns the components its own
// configuration gives the queue, or rebuilds built-ins from the specs
// (agent.Resolve, policy.Resolve, policy.ResolveReplanner).
type Resolver interface {
	// ResolvePlan returns the Go values of the plan spec describes; an
	// error aborts the restore (wrapped as berth.ErrInvalidArgument).
	ResolvePlan(spec PlanSpec) (PlanParts, error)
}

// ResolverFunc adapts a function to a [Resolver]. A nil ResolverFunc is
// not usable: ResolvePlan panics, as calling a nil func does.
type ResolverFunc func(spec PlanSpec) (PlanParts, error)

// ResolvePlan calls f.
func (f ResolverFunc) ResolvePlan(spec PlanSpec) (PlanParts, error) { return f(spec) }

// RestoreEnv is what a snapshot cannot hold and the host supplies to
// [RestoreSystem] and [RestorePlan].
type RestoreEnv struct {
	// Clock is required: the system's clock and every plan's (unless the
	// resolver gives a plan its own).
	Clock berth.Clock
	// Authorizer becomes the restored system's (SystemConfig.Authorizer);
	// RestorePlan ignores it.
	Authorizer Authorizer
	// Publish becomes the restored system's (SystemConfig.Publish), which
	// a snapshot cannot hold; RestorePlan ignores it.
	Publish func(p *Plan, now berth.Time)
	// Resolver supplies each plan's agent, policy, replanner and (for a
	// host's own) calculator. Nil is only valid when every saved plan had
	// no agent, policy or replanner and a built-in calculator.
	Resolver Resolver
}

// ---- writing ----

// SaveState writes the plan as one snapshot of kind "plan.Plan" (see
// "Durable state" in the package documentation). It holds the plan's read
// lock for the whole write, so the snapshot is a consistent cut, and
// streams the allocations in id order without copying them.
func (p *Plan) SaveState(w io.Writer) error {
	if !p.view {
		p.mu.RLock()
		defer p.mu.RUnlock()
	}
	e := berth.NewStateEncoder(w, PlanStateKind, stateVersion)
	p.encodeLocked(e)
	return e.Finish()
}

// SaveState writes the system with all its plans as one snapshot of kind
// "plan.System" (see "Durable state" in the package documentation). It
// holds the system's read lock and the read locks of all its plans for the
// whole write, so the snapshot is a consistent cut of every plan and of
// the id counter and queue map. A call in flight on another goroutine is
// either wholly in the snapshot or not at all, except a submission or an
// archival between its plan change and its queue-map update; hosts that
// journal their calls serialize them and never see that.
func (s *System) SaveState(w io.Writer) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	queues := make([]string, 0, len(s.plans))
	for q := range s.plans {
		queues = append(queues, q)
	}
	slices.Sort(queues)
	plans := make([]*Plan, len(queues))
	for i, q := range queues {
		plans[i] = s.plans[q]
		plans[i].mu.RLock()
	}
	defer func() {
		for _, p := range plans {
			p.mu.RUnlock()
		}
	}()
	// The snapshot holds the ids the plans hold: claims of submissions
	// still placing and removals the system has yet to see are left out.
	ids := make([]ReservationID, 0, len(s.queues))
	for id, q := range s.queues {
		if p := s.plans[q]; p != nil {
			if _, held := p.st.get(id); !held {
				continue
			}
		}
		ids = append(ids, id)
	}
	slices.SortFunc(ids, ReservationID.Compare)

	e := berth.NewStateEncoder(w, SystemStateKind, stateVersion)
	e.Varint(s.cfg.ClusterTimestamp)
	e.Varint(s.sequence)
	e.Len(len(plans))
	for _, p := range plans {
		p.encodeLocked(e)
	}
	e.Len(len(ids))
	for _, id := range ids {
		encodeID(e, id)
		e.String(s.queues[id])
	}
	return e.Finish()
}

func encodeID(e *berth.StateEncoder, id ReservationID) {
	e.Varint(id.ClusterTimestamp)
	e.Varint(id.Sequence)
}

func encodeSpec(e *berth.StateEncoder, c ComponentSpec) {
	e.String(c.Name)
	e.Bytes(c.Params)
}

// encodeLocked writes the plan's body; the caller holds its read lock.
func (p *Plan) encodeLocked(e *berth.StateEncoder) {
	c := &p.cfg
	e.String(c.Queue)
	e.Resource(c.Capacity)
	e.Varint(c.Step)
	e.Varint(c.MaxPeriodicity)
	e.Resource(c.MinAllocation)
	e.Resource(c.MaxAllocation)
	e.Bool(c.MoveOnExpiry)
	e.Bool(c.ExactPeriodicMin)
	e.String(calculatorName(c.Calculator))
	encodeSpec(e, specOf(c.Agent))
	encodeSpec(e, specOf(c.Policy))
	encodeSpec(e, specOf(c.Replanner))
	e.Resource(p.st.capacity)
	e.Len(p.st.table.Len())
	p.st.table.Ascend(func(en idEntry) bool {
		encodeAllocation(e, en.a)
		return e.Err() == nil
	})
}

// encodeAllocation writes a stored allocation: what the plan was given
// (intervals in their stored order) and what it stamped (acceptance time,
// active span).
func encodeAllocation(e *berth.StateEncoder, a *Allocation) {
	encodeID(e, a.ID)
	e.String(a.User)
	e.Varint(a.Start)
	e.Varint(a.End)
	e.Varint(a.AcceptedAt)
	e.Bool(a.Gang)
	e.Bool(a.hasActive)
	if a.hasActive {
		e.Interval(a.active)
	}
	d := &a.Definition
	e.Varint(d.Arrival)
	e.Varint(d.Deadline)
	e.String(d.Name)
	e.Varint(int64(d.Priority))
	e.Varint(d.Period)
	e.Int(d.Interpreter.Code()) // YARN's code, as the REST field
	e.Len(len(d.Stages))
	for _, s := range d.Stages {
		e.Resource(s.Capability)
		e.Varint(s.Containers)
		e.Varint(s.Concurrency)
		e.Varint(s.Duration)
	}
	e.Len(len(a.Intervals))
	for _, iv := range a.Intervals {
		e.Interval(iv.Interval)
		e.Resource(iv.Resource)
	}
	e.Len(len(a.Stages)) // version 2
	for _, s := range a.Stages {
		e.Int(s.Stage)
		e.Interval(s.Interval)
		e.Resource(s.Resource)
	}
}

// ---- reading ----

// RestorePlan reads a snapshot written by [Plan.SaveState] and returns the
// plan it holds, its indexes rebuilt, with the Go values env supplies. It
// returns a plan only when the whole snapshot was read and verified.
// Errors are *berth.StateError values wrapping berth.ErrCorruptState (a
// truncated, corrupted or inconsistent snapshot),
// berth.ErrUnsupportedVersion, or berth.ErrInvalidArgument (another kind
// of snapshot, a missing clock, a resolver that failed or gave no
// component the plan had, or one whose [Specified] spec differs from the
// saved one).
func RestorePlan(r io.Reader, env RestoreEnv) (*Plan, error) {
	d, err := berth.NewStateDecoder(r, PlanStateKind, stateVersion)
	if err != nil {
		return nil, err
	}
	if berth.CheckNotNil("clock", env.Clock) != nil {
		d.Field("clock")
		d.Fail(berth.InvalidField("clock", nil, "a clock is required to restore a plan"))
		return nil, d.Err()
	}
	p := decodePlan(d, env, "plan")
	if err := d.Finish(); err != nil {
		return nil, err
	}
	return p, nil
}

// RestoreSystem reads a snapshot written by [System.SaveState] and returns
// the system it holds: its cluster timestamp and id counter, the queue of
// every known reservation id, and every plan with its allocations
// (acceptance times included) and indexes rebuilt, with the Go values env
// supplies. It returns a system only when the whole snapshot was read and
// verified; errors are as for [RestorePlan], plus berth.ErrCorruptState for
// a reservation id mapped to a queue without a plan.
func RestoreSystem(r io.Reader, env RestoreEnv) (*System, error) {
	d, err := berth.NewStateDecoder(r, SystemStateKind, stateVersion)
	if err != nil {
		return nil, err
	}
	if berth.CheckNotNil("clock", env.Clock) != nil {
		d.Field("clock")
		d.Fail(berth.InvalidField("clock", nil, "a clock is required to restore a reservation system"))
		return nil, d.Err()
	}
	s, _ := NewSystem(SystemConfig{Clock: env.Clock, Authorizer: env.Authorizer, Publish: env.Publish})
	d.Field("cluster timestamp")
	s.cfg.ClusterTimestamp = d.Varint()
	d.Field("sequence")
	s.sequence = d.Varint()
	d.Field("plans")
	n := d.Len(maxStateCount)
	prev := ""
	for i := 0; i < n && d.Err() == nil; i++ {
		p := decodePlan(d, env, fmt.Sprintf("plans[%d]", i))
		if d.Err() != nil {
			break
		}
		if i > 0 && p.cfg.Queue <= prev {
			d.Fail(fmt.Errorf("plan %q out of order or repeated", p.cfg.Queue))
			break
		}
		prev = p.cfg.Queue
		s.holdLocked(p)
	}
	d.Field("queues")
	n = d.Len(maxStateCount)
	var last ReservationID
	for i := 0; i < n && d.Err() == nil; i++ {
		d.Field(fmt.Sprintf("queues[%d]", i))
		id := decodeID(d)
		q := d.String()
		if d.Err() != nil {
			break
		}
		switch {
		case id.IsZero() || (i > 0 && id.Compare(last) <= 0):
			d.Fail(fmt.Errorf("reservation id %v zero, out of order or repeated", id))
		case s.plans[q] == nil:
			d.Fail(fmt.Errorf("reservation %v mapped to queue %q, which has no plan", id, q))
		}
		last = id
		s.queues[id] = q
	}
	if err := d.Finish(); err != nil {
		return nil, err
	}
	return s, nil
}

// failCorrupt records err, a check of the plan's own that refused saved
// data, as corruption (the plan's checks report berth.ErrInvalidArgument).
func failCorrupt(d *berth.StateDecoder, err error) {
	d.Fail(fmt.Errorf("%w: %w", berth.ErrCorruptState, err))
}

func decodeID(d *berth.StateDecoder) ReservationID {
	return ReservationID{ClusterTimestamp: d.Varint(), Sequence: d.Varint()}
}

func decodeSpec(d *berth.StateDecoder) ComponentSpec {
	return ComponentSpec{Name: d.String(), Params: d.Bytes()}
}

// decodePlan reads one plan body and rebuilds the plan, or records the
// first error in d and returns nil.
func decodePlan(d *berth.StateDecoder, env RestoreEnv, where string) *Plan {
	field := func(f string) { d.Field(where + "." + f) }
	var cfg Config
	field("config")
	cfg.Queue = d.String()
	cfg.Capacity = d.Resource()
	cfg.Step = d.Varint()
	cfg.MaxPeriodicity = d.Varint()
	cfg.MinAllocation = d.Resource()
	cfg.MaxAllocation = d.Resource()
	cfg.MoveOnExpiry = d.Bool()
	cfg.ExactPeriodicMin = d.Bool()
	spec := PlanSpec{Queue: cfg.Queue}
	field("calculator")
	spec.Calculator = d.String()
	field("agent")
	spec.Agent = decodeSpec(d)
	field("policy")
	spec.Policy = decodeSpec(d)
	field("replanner")
	spec.Replanner = decodeSpec(d)
	field("capacity")
	capacity := d.Resource()
	if d.Err() != nil {
		return nil
	}
	field("config")
	switch {
	case cfg.Step <= 0:
		d.Fail(fmt.Errorf("step %d is not positive", cfg.Step))
	case cfg.MaxPeriodicity <= 0:
		d.Fail(fmt.Errorf("max periodicity %d is not positive", cfg.MaxPeriodicity))
	case cfg.Capacity.AnyNegative() || capacity.AnyNegative():
		d.Fail(fmt.Errorf("negative capacity %v / %v", cfg.Capacity, capacity))
	}
	if d.Err() != nil {
		return nil
	}
	if !resolveParts(d, env, spec, &cfg, where) {
		return nil
	}
	p := newPlan(cfg, newState(capacity))

	field("allocations")
	n := d.Len(maxStateCount)
	var last ReservationID
	var evs []buildEvent
	for i := 0; i < n && d.Err() == nil; i++ {
		// The field stays "allocations" (a per-record name would cost a
		// string per record); errors name the reservation.
		a, active, hasActive := decodeAllocation(d, cfg.Queue, &evs)
		if d.Err() != nil {
			return nil
		}
		if i > 0 && a.ID.Compare(last) <= 0 {
			d.Fail(fmt.Errorf("reservation id %v out of order or repeated", a.ID))
			return nil
		}
		last = a.ID
		tx := p.begin(p.st)
		if err := tx.restore(a, active, hasActive); err != nil {
			tx.abort()
			failCorrupt(d, err)
			return nil
		}
		tx.commit()
	}
	if d.Err() != nil {
		return nil
	}
	return p
}

// resolveParts fills cfg's Go values from env for the saved spec; false
// after recording an error in d.
func resolveParts(d *berth.StateDecoder, env RestoreEnv, spec PlanSpec, cfg *Config, where string) bool {
	var parts PlanParts
	if env.Resolver != nil {
		var err error
		if parts, err = env.Resolver.ResolvePlan(spec); err != nil {
			d.Field(where + ".resolver")
			d.Fail(&berth.FieldError{Field: "resolver", Value: spec.Queue, Kind: berth.ErrInvalidArgument,
				Reason: "resolving the plan's components failed", Err: err})
			return false
		}
	}
	cfg.Clock = env.Clock
	if parts.Clock != nil {
		cfg.Clock = parts.Clock
	}
	cfg.Calculator = parts.Calculator
	if cfg.Calculator == nil {
		switch spec.Calculator {
		case calcMemory:
			cfg.Calculator = berth.MemoryCalculator{}
		case calcDominant:
			cfg.Calculator = berth.DominantCalculator{}
		default:
			d.Field(where + ".calculator")
			d.Fail(berth.InvalidField("calculator", spec.Calculator, "the plan used a host's calculator: the resolver must supply it"))
			return false
		}
	} else if got := calculatorName(cfg.Calculator); got != spec.Calculator {
		d.Field(where + ".calculator")
		d.Fail(berth.InvalidField("calculator", got, fmt.Sprintf("the plan was saved with calculator %q", spec.Calculator)))
		return false
	}
	cfg.Agent, cfg.Policy, cfg.Replanner = parts.Agent, parts.Policy, parts.Replanner
	check := func(name string, saved ComponentSpec, v any, isNil bool) bool {
		d.Field(where + "." + name)
		if isNil {
			if !saved.IsZero() {
				d.Fail(berth.InvalidField(name, saved.Name, "the plan had this "+name+" and the resolver supplied none"))
				return false
			}
			return true
		}
		if s, ok := v.(Specified); ok {
			if got := s.StateSpec(); !got.Equal(saved) {
				d.Fail(berth.InvalidField(name, got.Name,
					fmt.Sprintf("the resolver supplied a %s configured differently from the saved %q", name, saved.Name)))
				return false
			}
		}
		return true
	}
	return check("agent", spec.Agent, cfg.Agent, cfg.Agent == nil) &&
		check("policy", spec.Policy, cfg.Policy, cfg.Policy == nil) &&
		check("replanner", spec.Replanner, cfg.Replanner, cfg.Replanner == nil)
}

// decodeAllocation reads one allocation and checks what the plan checks
// on an add (prepare, build); the indexes check the rest when it is
// booked.
func decodeAllocation(d *berth.StateDecoder, queue string, evs *[]buildEvent) (a *Allocation, active berth.Interval, hasActive bool) {
	var err error
	a = &Allocation{Queue: queue}
	a.ID = decodeID(d)
	a.User = d.String()
	a.Start = d.Varint()
	a.End = d.Varint()
	a.AcceptedAt = d.Varint()
	a.Gang = d.Bool()
	hasActive = d.Bool()
	if hasActive {
		active = d.Interval()
	}
	def := &a.Definition
	def.Arrival = d.Varint()
	def.Deadline = d.Varint()
	def.Name = d.String()
	prio := d.Varint()
	def.Priority = int32(prio)
	def.Period = d.Varint()
	if code := d.Int(); d.Err() == nil {
		var err error
		if def.Interpreter, err = InterpreterOf(int64(code)); err != nil {
			d.Fail(fmt.Errorf("interpreter code %d is none of YARN's", code))
		}
	}
	n := d.Len(maxStateCount)
	if n > 0 {
		def.Stages = make([]Stage, 0, min(n, 64))
	}
	for i := 0; i < n && d.Err() == nil; i++ {
		def.Stages = append(def.Stages, Stage{Capability: d.Resource(), Containers: d.Varint(),
			Concurrency: d.Varint(), Duration: d.Varint()})
	}
	n = d.Len(maxStateCount)
	if n > 0 {
		a.Intervals = make([]IntervalResource, 0, min(n, 64))
	}
	for i := 0; i < n && d.Err() == nil; i++ {
		a.Intervals = append(a.Intervals, IntervalResource{Interval: d.Interval(), Resource: d.Resource()})
	}
	if d.Version() >= 2 {
		n = d.Len(maxStateCount)
		if n > 0 {
			a.Stages = make([]StageInterval, 0, min(n, 64))
		}
		for i := 0; i < n && d.Err() == nil; i++ {
			a.Stages = append(a.Stages, StageInterval{Stage: d.Int(), Interval: d.Interval(), Resource: d.Resource()})
		}
	}
	if d.Err() != nil {
		return nil, active, false
	}
	switch {
	case int64(def.Priority) != prio:
		d.Fail(fmt.Errorf("priority %d overflows int32", prio))
	case a.ID.IsZero():
		d.Fail(fmt.Errorf("zero reservation id"))
	case a.User == "":
		d.Fail(fmt.Errorf("reservation %v has no user", a.ID))
	case a.Start > a.End:
		d.Fail(fmt.Errorf("reservation %v ends at %d before its start %d", a.ID, a.End, a.Start))
	case hasActive && !active.Valid():
		d.Fail(fmt.Errorf("reservation %v has an empty active span %v", a.ID, active))
	}
	if d.Err() != nil {
		return nil, active, false
	}
	if *evs, err = a.buildSteps(*evs); err != nil {
		failCorrupt(d, err)
		return nil, active, false
	}
	if err := a.checkStages(); err != nil {
		failCorrupt(d, err)
		return nil, active, false
	}
	// The decoded intervals are private: they are the frozen copy, shared
	// as a stored allocation shares it (prepare).
	a.frozen = a.Intervals
	return a, active, hasActive
}
