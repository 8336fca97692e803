package follower

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/plan"
)

// PlanSource gives the plans to follow at each run. *plan.System satisfies
// it, so plans added by a later Reinitialize are followed from the next
// run on (YARN calls setPlans then). [Plans] is a fixed list.
type PlanSource interface {
	Plans() []*plan.Plan
}

// Plans is a fixed list of plans, a [PlanSource].
type Plans []*plan.Plan

// Plans returns the list.
func (ps Plans) Plans() []*plan.Plan { return ps }

// Config configures a [Follower].
type Config struct {
	// Scheduler receives the reservation queues. Required.
	Scheduler Scheduler
	// Flavor is the scheduler's naming and capacity rule ([CapacityFlavor]
	// or [FairFlavor]). Nil takes the flavor a [FlavorReporter] scheduler
	// names (both of Berth's schedulers do); required otherwise.
	Flavor Flavor
	// Plans gives the plans [Follower.Run] synchronizes, in the order
	// returned. May be nil when the host only calls Synchronize.
	Plans PlanSource
	// Logger, when set, receives YARN's log lines (Debug) and the errors
	// the follower skips past (Warn). Nil logs nothing.
	Logger *slog.Logger
}

// Follower publishes plans to a queue scheduler: YARN's PlanFollower
// (AbstractSchedulerPlanFollower and its CS/FS flavors). The host calls
// [Follower.Run] every plan step (YARN runs it on a timer with fixed delay
// yarn.resourcemanager.reservation-system.planfollower.time-step) or
// [Follower.Synchronize] for one plan, e.g. right after accepting a
// reservation that starts within a step (YARN's ClientRMService does).
// A Follower keeps no state of its own between runs but the results of
// publications the host has not taken ([Follower.Publish]): like YARN's it
// computes set differences between the plan and the scheduler's queues, so
// it copes with any frequency of runs and with restarts. It is safe for
// concurrent use; runs are serialized.
//
// Only [New] makes a usable Follower: the zero value has no scheduler and
// is not one (synchronizing a plan with it panics).
type Follower struct {
	mu  sync.Mutex
	cfg Config
	// published holds what Publish did, until Run or TakePublished hands
	// it to the host: its only state between runs.
	published []Result
	pubErrs   []error
}

// New returns a follower for cfg. A nil Scheduler, a nil Flavor for a
// scheduler that names none, and the built-in flavor of the other
// scheduler (FairFlavor on a capacity scheduler, whose reservation queues
// it would misname) are *berth.FieldError values of kind
// berth.ErrInvalidArgument on field follower.scheduler or follower.flavor.
func New(cfg Config) (*Follower, error) {
	if cfg.Scheduler == nil {
		return nil, berth.InvalidField("follower.scheduler", nil, "a scheduler is required")
	}
	if fr, ok := cfg.Scheduler.(FlavorReporter); ok {
		want := builtinFlavor(fr.FollowerFlavor())
		switch {
		case want == nil:
		case cfg.Flavor == nil:
			cfg.Flavor = want
		case cfg.Flavor != want && builtinFlavor(cfg.Flavor.String()) == cfg.Flavor:
			return nil, berth.InvalidField("follower.flavor", cfg.Flavor.String(),
				fmt.Sprintf("the scheduler takes the %s flavor's queue names", want))
		}
	}
	if cfg.Flavor == nil {
		return nil, berth.InvalidField("follower.flavor", nil, "a flavor (CapacityFlavor or FairFlavor) is required")
	}
	return &Follower{cfg: cfg}, nil
}

// SetPlans replaces the plan source (YARN's setPlans).
func (f *Follower) SetPlans(src PlanSource) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cfg.Plans = src
}

// Assignment is one entitlement the follower asked the scheduler for.
type Assignment struct {
	Queue string
	Entitlement
}

// Move is one application moved out of an expired reservation's queue.
type Move struct {
	App, From, To string
}

// Result tells what one synchronization of one plan did.
type Result struct {
	// PlanQueue is the plan's queue; Now the run's time rounded up to the
	// plan step.
	PlanQueue string
	Now       berth.Time
	// PlanResources is what the scheduler guarantees the plan queue;
	// Reserved what the active reservations hold at Now (after any
	// replanning).
	PlanResources, Reserved berth.Resource
	// Active lists the active reservations at Now, in (start, id) order.
	Active []plan.ReservationID
	// Replanned is set when the plan was over-committed and the replanner
	// ran; Resized when the reservations were shrunk proportionally to fit
	// (recovery, no replanner, or still over-committed after replanning).
	Replanned, Resized bool
	// Created lists the reservation queues created (default queue first).
	Created []string
	// Expired lists the queues of expired reservations handled, by name.
	Expired []string
	// Moved lists the applications moved to the default queue, Killed those
	// killed (kept apps or failed moves), Removed the queues removed.
	Moved   []Move
	Killed  []string
	Removed []string
	// Ended lists the containers of the killed applications, as the
	// scheduler returned them, for the host to stop.
	Ended []Ended
	// Assignments lists every entitlement requested (a refused one shows
	// in the run's error), in order: expired queues to 0/0, the default
	// queue to 0, the active reservations (shrinking ones first, then by
	// growth), then the default queue to the remainder.
	Assignments []Assignment
	// Archived lists the reservations the plan archived at Now.
	Archived []plan.ReservationID
}

// Entitlements returns the last entitlement set for each queue in this run.
func (r *Result) Entitlements() map[string]Entitlement {
	out := make(map[string]Entitlement, len(r.Assignments))
	for _, a := range r.Assignments {
		out[a.Queue] = a.Entitlement
	}
	return out
}

// Run synchronizes every plan of the source at time now, in the source's
// order (YARN's run). It returns first the results of the publications
// not yet taken ([Follower.Publish], in the order they ran), then one
// Result per plan, and the errors of all of them joined; a failing plan
// does not stop the others. A host handles every Result alike: it stops
// the containers of each one's Ended.
func (f *Follower) Run(now berth.Time) ([]Result, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out, err := f.takeLocked()
	errs := []error{err}
	if f.cfg.Plans == nil {
		return out, err
	}
	for _, p := range f.cfg.Plans.Plans() {
		if p == nil {
			continue
		}
		r, err := f.sync(p, now, true)
		out = append(out, r)
		errs = append(errs, err)
	}
	return out, errors.Join(errs...)
}

// Synchronize publishes plan p to the scheduler at time now (YARN's
// synchronizePlan(plan, true)): when the active reservations exceed the
// plan queue's resources, the plan's replanner repairs the plan first.
//
// Like YARN, a failing scheduler operation does not stop the run: the
// follower carries on with the next step and returns every error joined
// (each wraps the scheduler's error, so errors.Is works). A plan queue the
// scheduler does not know is an error wrapping the scheduler's and nothing
// else is done.
func (f *Follower) Synchronize(p *plan.Plan, now berth.Time) (Result, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sync(p, now, true)
}

// Publish synchronizes plan p at time now as [Follower.Synchronize] does
// and keeps the Result and error for the host: the next [Follower.Run]
// returns them before its own, and [Follower.TakePublished] returns them
// at once. Its signature is plan.SystemConfig.Publish's, so a reservation
// system publishes through it:
//
//	f, _ := follower.New(follower.Config{Scheduler: s})
//	sys, _ := plan.NewSystem(plan.SystemConfig{Clock: clock, Publish: f.Publish})
//	f.SetPlans(sys)
//
// Nothing a publication does is lost, though System.Submit, which calls
// it, cannot return it: the applications it killed (an expired
// reservation's, when the plan does not move them) have their containers
// in the kept Result's Ended, which the host stops as a run's. What is
// kept grows with each publication until the host takes it; a host loop
// that runs the follower every plan step keeps at most a step's worth.
func (f *Follower) Publish(p *plan.Plan, now berth.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	res, err := f.sync(p, now, true)
	if p != nil {
		f.published = append(f.published, res)
	}
	if err != nil {
		f.pubErrs = append(f.pubErrs, err)
	}
}

// TakePublished returns the results of the publications since the last
// Run or TakePublished, in the order they ran, with their errors joined,
// and forgets them. A host that stops containers as soon as a reservation
// call returns calls it after System.Submit; one that waits for its next
// Run need not call it.
func (f *Follower) TakePublished() ([]Result, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.takeLocked()
}

func (f *Follower) takeLocked() ([]Result, error) {
	out, err := f.published, errors.Join(f.pubErrs...)
	f.published, f.pubErrs = nil, nil
	return out, err
}

// Refresh is what YARN's ClientRMService does after accepting a
// reservation (refreshScheduler): when the reservation arrives within one
// plan step of now (arrival − now < step), the plan is synchronized at
// once, so that its queue exists before the user submits applications;
// otherwise the next periodic run will do. done reports whether it ran.
func (f *Follower) Refresh(p *plan.Plan, arrival, now berth.Time) (res Result, done bool, err error) {
	if p == nil {
		return Result{}, false, berth.InvalidField("plan", nil, "must not be nil")
	}
	if d := arrival - now; arrival > now && (d < 0 || d >= p.Step()) { // d < 0: overflow
		return Result{}, false, nil
	}
	res, err = f.Synchronize(p, now)
	return res, true, err
}

// Recover is the synchronization YARN runs after recovering the plans on a
// ResourceManager restart (synchronizePlan(plan, false)): an over-committed
// plan is not replanned, the reservations' entitlements are shrunk in
// proportion instead.
func (f *Follower) Recover(p *plan.Plan, now berth.Time) (Result, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sync(p, now, false)
}

// AlignUp rounds t up to a multiple of step, as the follower does with the
// run time (a non-positive step leaves t alone). YARN's formula gets
// negative times wrong (−3 with step 5 becomes 5); Berth rounds to 0. Near
// berth.MaxTime it saturates at the last multiple.
func AlignUp(t berth.Time, step berth.Duration) berth.Time {
	if step <= 0 {
		return t
	}
	r := t % step
	if r < 0 {
		r += step
	}
	if r == 0 {
		return t
	}
	if t > berth.MaxTime-(step-r) {
		return t - r
	}
	return t + step - r
}

// run carries the state of one synchronization of one plan; Follower.sync
// fills it in step by step.
type run struct {
	follower  *Follower
	scheduler Scheduler
	flavor    Flavor
	plan      *plan.Plan
	res       Result
	errs      []error
	planQueue string
	// defaultName is the default reservation's name, defaultQueue its
	// queue's name in the flavor.
	defaultName, defaultQueue string
	// rawNow is the host's time, now the run's time: rawNow rounded up to
	// the plan step.
	rawNow, now berth.Time
	// cluster is the cluster's resources, planResources the plan queue's
	// guarantee.
	cluster, planResources berth.Resource
	calculator             berth.Calculator
	// queues are the plan queue's children as the scheduler lists them at
	// the start.
	queues []string
	// active are the reservations active at now, in (start, id) order,
	// reserved what they hold together.
	active   []*plan.Allocation
	reserved berth.Resource
	// resize is set when the reservations are shrunk in proportion to fit
	// the plan queue.
	resize bool
}

func (r *run) fail(op, subject string, err error) {
	err = opError(op, subject, err)
	r.errs = append(r.errs, err)
	if lg := r.follower.cfg.Logger; lg != nil {
		lg.Warn("plan follower", "plan", r.planQueue, "error", err)
	}
}

func (r *run) debug(msg string, args ...any) {
	if lg := r.follower.cfg.Logger; lg != nil && lg.Enabled(context.Background(), slog.LevelDebug) {
		lg.Debug(msg, append([]any{"plan", r.planQueue}, args...)...)
	}
}

func (r *run) entitle(queue string, e Entitlement) {
	r.res.Assignments = append(r.res.Assignments, Assignment{Queue: queue, Entitlement: e})
	if err := r.scheduler.SetEntitlement(queue, e); err != nil {
		r.fail("set entitlement of", queue, err)
	}
}

// activeAt returns the reservations active at now in (start, id) order and
// what they hold together.
func activeAt(p *plan.Plan, now berth.Time) ([]*plan.Allocation, berth.Resource) {
	cur := p.ReservationsAt(now)
	slices.SortStableFunc(cur, func(a, b *plan.Allocation) int {
		if a.Start != b.Start {
			if a.Start < b.Start {
				return -1
			}
			return 1
		}
		return a.ID.Compare(b.ID)
	})
	var total berth.Resource
	for _, a := range cur {
		total = total.Add(a.ResourcesAt(now))
	}
	return cur, total
}

// sync is one run of the plan follower, in the steps of YARN's
// AbstractSchedulerPlanFollower.synchronizePlan. An error of a step that
// leaves nothing to do ends the run; the others are joined into its error
// and the run goes on.
func (f *Follower) sync(p *plan.Plan, rawNow berth.Time, replan bool) (Result, error) {
	if p == nil {
		return Result{}, berth.InvalidField("plan", nil, "must not be nil")
	}
	// The run and its maps are made here, not in a constructor, so that
	// they stay on the stack.
	r := &run{follower: f, scheduler: f.cfg.Scheduler, flavor: f.cfg.Flavor, plan: p, planQueue: p.QueueName(),
		rawNow: rawNow, now: AlignUp(rawNow, p.Step()), calculator: p.Calculator()}
	r.start()
	r.debug("running plan follower edit policy", "now", r.now)
	if err := r.publishPlanResources(); err != nil {
		return r.res, err
	}
	r.active, r.reserved = activeAt(p, r.now)
	if err := r.listQueues(); err != nil {
		return r.res, err
	}
	// existing holds the reservation names that have a queue.
	existing := make(map[string]bool, len(r.queues))
	for _, q := range r.queues {
		existing[r.flavor.ReservationName(q)] = true
	}
	r.ensureDefaultQueue(existing)
	r.fitPlanQueue(replan)
	r.expireInactive()
	total := r.entitleReservations(existing)
	r.archive(total)
	return r.res, errors.Join(r.errs...)
}

// start fills in what the run derives from its plan and time.
func (r *run) start() {
	r.res.PlanQueue, r.res.Now = r.planQueue, r.now
	r.defaultName = defaultReservation(r.flavor, r.planQueue)
	r.defaultQueue = r.flavor.QueueName(r.planQueue, r.defaultName)
}

// publishPlanResources reads the plan queue's share of the cluster and
// publishes it to the plan as its capacity (both built-in flavors; YARN's
// fair follower does not).
func (r *run) publishPlanResources() error {
	planResources, err := r.scheduler.PlanResources(r.planQueue)
	if err != nil {
		return opError("find plan queue", r.planQueue, err)
	}
	r.planResources, r.res.PlanResources = planResources, planResources
	r.cluster = r.scheduler.ClusterResource()
	if r.flavor.PublishesCapacity() && !planResources.AnyNegative() {
		if err := r.plan.SetCapacity(planResources); err != nil {
			r.fail("set capacity of plan", r.planQueue, err)
		}
	}
	return nil
}

// listQueues reads the plan queue's children from the scheduler.
func (r *run) listQueues() error {
	queues, err := r.scheduler.ReservationQueueNames(r.planQueue)
	if err != nil {
		return opError("list reservation queues of", r.planQueue, err)
	}
	r.queues = queues
	return nil
}

// ensureDefaultQueue creates the plan's default reservation queue if the
// scheduler has none.
func (r *run) ensureDefaultQueue(existing map[string]bool) {
	if existing[r.defaultName] {
		return
	}
	if err := r.scheduler.AddReservationQueue(r.planQueue, r.defaultName); err != nil {
		r.fail("create default reservation queue", r.defaultQueue, err)
		return
	}
	r.res.Created = append(r.res.Created, r.defaultQueue)
	existing[r.defaultName] = true
}

// fitPlanQueue handles a plan queue that shrank below its reservations:
// replan (YARN), or shrink the reservations in proportion (recovery, or
// still too big after replanning). It records the active reservations.
func (r *run) fitPlanQueue(replan bool) {
	over := func() bool { return berth.GreaterThan(r.calculator, r.cluster, r.reserved, r.planResources) }
	if over() {
		if replan && r.plan.Replanner() != nil {
			r.res.Replanned = true
			if err := r.plan.Replanner().Plan(r.plan, nil, r.rawNow); err != nil {
				r.fail("replan", r.planQueue, err)
			}
			// Berth: publish the repaired plan, not the one before.
			r.active, r.reserved = activeAt(r.plan, r.now)
			r.resize = over()
		} else {
			r.resize = true
		}
	}
	r.res.Reserved, r.res.Resized = r.reserved, r.resize
	for _, a := range r.active {
		r.res.Active = append(r.res.Active, a.ID)
	}
}

// expireInactive handles the queues whose reservation is no longer
// active, in name order.
func (r *run) expireInactive() {
	active := make(map[string]bool, len(r.active)+1)
	active[r.defaultName] = true
	for _, a := range r.active {
		active[a.ID.String()] = true
	}
	var expired []string
	for _, q := range r.queues {
		if name := r.flavor.ReservationName(q); !active[name] {
			expired = append(expired, r.flavor.QueueName(r.planQueue, name))
		}
	}
	slices.Sort(expired)
	expired = slices.Compact(expired)
	for _, q := range expired {
		r.expire(q, r.plan.MoveOnExpiry())
	}
}

// sizing is one active reservation's queue and the entitlement the run
// gives it.
type sizing struct {
	allocation *plan.Allocation
	name       string
	// growth is what the reservation holds at now less what its queue
	// holds.
	growth      berth.Resource
	entitlement Entitlement
}

// entitleReservations frees the default queue, then sizes the
// reservations' queues (creating those missing), those giving up the most
// first so the plan's children never sum above 100%, and gives the
// default queue the remainder. It returns the reservations' total share.
func (r *run) entitleReservations(existing map[string]bool) float32 {
	r.entitle(r.defaultQueue, Entitlement{Capacity: 0, MaxCapacity: 1})
	held := make(map[string]QueueState, len(r.active))
	r.readHeld(held, existing)
	sizes := make([]sizing, len(r.active))
	for i, a := range r.active {
		name := a.ID.String()
		sizes[i] = sizing{allocation: a, name: name, growth: a.ResourcesAt(r.now).Sub(held[name].Resources)}
	}
	// YARN's order: by how much each reservation grows, shrinking first.
	slices.SortStableFunc(sizes, func(x, y sizing) int { return x.growth.Compare(y.growth) })
	total := r.shares(sizes)
	for _, s := range shrinkingFirst(sizes, held) {
		q := r.flavor.QueueName(r.planQueue, s.name)
		if !existing[s.name] {
			if err := r.scheduler.AddReservationQueue(r.planQueue, s.name); err != nil {
				r.fail("create reservation queue", q, err)
			} else {
				r.res.Created = append(r.res.Created, q)
				existing[s.name] = true
			}
		}
		r.entitle(q, s.entitlement)
	}
	r.entitle(r.defaultQueue, Entitlement{Capacity: max(1-total, 0), MaxCapacity: 1})
	return total
}

// readHeld reads into held what each active reservation's queue holds now
// (YARN's getReservationQueueResourceIfExists), by reservation name; a
// queue yet to be created (not in existing) holds nothing.
func (r *run) readHeld(held map[string]QueueState, existing map[string]bool) {
	for _, a := range r.active {
		name := a.ID.String()
		if !existing[name] {
			continue
		}
		q := r.flavor.QueueName(r.planQueue, name)
		e, res, err := r.scheduler.ReservationQueueState(r.planQueue, q)
		if err != nil {
			r.fail("read reservation queue", q, err)
			continue
		}
		held[name] = QueueState{Queue: q, Entitlement: e, Resources: res}
	}
}

// shares sets each reservation's entitlement, in order, as its share of
// the plan queue and never more than what is left of it; it returns their
// total.
func (r *run) shares(sizes []sizing) float32 {
	var total float32
	for i := range sizes {
		s := &sizes[i]
		want := s.allocation.ResourcesAt(r.now)
		var target float32
		// YARN needs memory and vcores in the plan resources; Berth lets
		// a calculator that divides by memory alone do without vcores (a
		// fair-policy plan queue's steady share has none).
		if r.planResources.Memory > 0 && (r.planResources.VCores > 0 || !r.calculator.IsInvalidDivisor(r.planResources)) {
			if r.resize {
				want = r.planResources.Mul(float64(r.calculator.Ratio(want, r.reserved)))
			}
			target = r.calculator.Divide(r.cluster, want, r.planResources)
		}
		// Berth: never hand out more than what is left of the plan.
		if target != target || target < 0 {
			target = 0
		}
		target = min(target, max(1-total, 0))
		maxCapacity := float32(1)
		if s.allocation.ContainsGangs() {
			maxCapacity = target
		}
		s.entitlement = Entitlement{Capacity: target, MaxCapacity: maxCapacity}
		total += target
		r.debug("assigning capacity", "reservation", s.name, "resources", want, "capacity", target)
	}
	return total
}

// shrinkingFirst orders the queues whose entitlement actually shrinks
// first (Berth). In the usual case this is YARN's order already; when the
// plan queue's resources changed or the reservations are resized, YARN's
// resource-delta order can raise one queue before another has made room,
// and the scheduler refuses the change.
func shrinkingFirst(sizes []sizing, held map[string]QueueState) []sizing {
	shrinking := func(s sizing) bool {
		q, ok := held[s.name]
		return ok && s.entitlement.Capacity < q.Entitlement.Capacity
	}
	ordered := make([]sizing, 0, len(sizes))
	for _, s := range sizes {
		if shrinking(s) {
			ordered = append(ordered, s)
		}
	}
	for _, s := range sizes {
		if !shrinking(s) {
			ordered = append(ordered, s)
		}
	}
	return ordered
}

// archive archives the plan's completed reservations and logs the run.
func (r *run) archive(total float32) {
	ids, err := r.plan.ArchiveCompleted(r.now)
	if err != nil {
		r.fail("archive completed reservations of", r.planQueue, err)
	}
	r.res.Archived = ids
	if lg := r.follower.cfg.Logger; lg != nil {
		lg.Info("finished plan follower iteration", "plan", r.planQueue, "now", r.now,
			"reservations", len(r.active), "default-capacity", max(1-total, 0))
	}
}

// expire handles the queue of a reservation that ended or was deleted:
// entitlement 0, applications moved to the default queue (when move is
// set), then kill what is left or remove the empty queue. As in YARN a
// queue whose applications were killed stays until a later run finds it
// empty.
func (r *run) expire(q string, move bool) {
	r.res.Expired = append(r.res.Expired, q)
	r.entitle(q, Entitlement{})
	apps, err := r.scheduler.AppsInQueue(q)
	if err != nil {
		r.fail("list applications of", q, err)
		return
	}
	if move {
		for _, app := range apps {
			if _, err := r.scheduler.MoveApp(app, r.defaultQueue); err != nil {
				r.fail("move application "+app+" to", r.defaultQueue, err)
				continue
			}
			r.res.Moved = append(r.res.Moved, Move{App: app, From: q, To: r.defaultQueue})
		}
		if apps, err = r.scheduler.AppsInQueue(q); err != nil {
			r.fail("list applications of", q, err)
			return
		}
	}
	if len(apps) > 0 {
		for _, app := range apps {
			ended, err := r.scheduler.KillApp(app)
			if err != nil {
				r.fail("kill application "+app+" in", q, err)
				continue
			}
			r.res.Killed = append(r.res.Killed, app)
			r.res.Ended = append(r.res.Ended, ended...)
		}
		return
	}
	if err := r.scheduler.RemoveReservationQueue(q); err != nil {
		r.fail("remove reservation queue", q, err)
		return
	}
	r.res.Removed = append(r.res.Removed, q)
}

// String summarizes a result on one line, for logs and examples.
func (r Result) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "plan %s at %d: resources %v, reserved %v", r.PlanQueue, r.Now, r.PlanResources, r.Reserved)
	if r.Replanned {
		b.WriteString(", replanned")
	}
	if r.Resized {
		b.WriteString(", resized")
	}
	if len(r.Created) > 0 {
		fmt.Fprintf(&b, ", created %v", r.Created)
	}
	if len(r.Removed) > 0 {
		fmt.Fprintf(&b, ", removed %v", r.Removed)
	}
	if len(r.Moved) > 0 {
		fmt.Fprintf(&b, ", moved %d apps", len(r.Moved))
	}
	if len(r.Killed) > 0 {
		fmt.Fprintf(&b, ", killed %v", r.Killed)
	}
	return b.String()
}
