package preempt

import (
	"errors"
	"fmt"
	"log/slog"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/capacity"
	"github.com/berthsched/berth/queue"
)

// CapacityScheduler is what the proportional policy reads from and does
// to a capacity scheduler: *capacity.Scheduler satisfies it as it is. A
// host with a scheduler of its own, or a test, can implement it.
type CapacityScheduler interface {
	// PreemptionState copies the queues (with each leaf's pending demand
	// within its users' limits), applications (with their live AM usage,
	// their users' limits and how many container priorities they hold),
	// reservations and the nodes holding them: everything a round reads
	// but the containers.
	PreemptionState() *capacity.PreemptionState
	// AppendAppContainers appends an application's live containers to dst,
	// by id; the round calls it only for the applications its selectors
	// search. An unknown application is an ErrNotFound error.
	AppendAppContainers(dst []capacity.Container, appID string) ([]capacity.Container, error)
	// AppendAppContainersBefore appends up to limit of an application's
	// live containers with an id below before (all when 0), newest first:
	// the FIFO selector pages through an application only as far as it
	// must.
	AppendAppContainersBefore(dst []capacity.Container, appID string, before queue.ContainerID, limit int) ([]capacity.Container, error)
	// AppendNodeContainers appends a node's live containers to dst, by id
	// (the node-level selectors); an unknown node is an ErrNotFound error.
	AppendNodeContainers(dst []capacity.Container, nodeID string) ([]capacity.Container, error)
	// HasContainer reports whether a container is live (a mark on a
	// container that ended is forgotten).
	HasContainer(id queue.ContainerID) bool
	// Config is the configuration in force: the calculator, the minimum
	// allocation, each queue's ordering policies and AM share.
	Config() capacity.Config
	// UserLimit is the limit of user in the leaf (the intra-queue
	// selector's user-limit fairness) for a user the state does not list.
	UserLimit(queue, user string) (berth.Resource, error)
	// MarkForPreemption tells the application a container will be
	// preempted (YARN's MARK_CONTAINER_FOR_PREEMPTION).
	MarkForPreemption(id queue.ContainerID) error
	// PreemptContainer kills a marked container (MARK_CONTAINER_FOR_KILLABLE).
	PreemptContainer(id queue.ContainerID) (queue.Ended, error)
	// KillReservation cancels a reserved container (KILL_RESERVED_CONTAINER).
	KillReservation(id queue.ContainerID) error
}

var _ CapacityScheduler = (*capacity.Scheduler)(nil)

// Action is what a round did with a chosen container.
type Action uint8

const (
	// Observed: chosen under observe_only; nothing was done.
	Observed Action = iota
	// Marked: chosen for the first time; the application was told.
	Marked
	// Waiting: chosen again, still within its kill wait.
	Waiting
	// Killed: chosen again after its kill wait; preempted.
	Killed
	// ReservationCancelled: a reserved container, cancelled at once.
	ReservationCancelled
	// Vanished: the container ended before the policy could act on it.
	Vanished
)

var actionNames = [...]string{"observed", "marked", "waiting", "killed", "reservation-cancelled", "vanished"}

// String names the action.
func (a Action) String() string {
	if int(a) < len(actionNames) {
		return actionNames[a]
	}
	return fmt.Sprintf("Action(%d)", a)
}

// Decision is one chosen container and what the round did with it.
type Decision struct {
	Candidate
	// Action taken; FirstMarked is when the container was first marked
	// (the kill wait runs from it).
	Action      Action
	FirstMarked berth.Time
}

// QueueReport is one queue's state and ideal assignment in a round.
type QueueReport struct {
	// Path of the queue and its guarantee, usage and pending demand.
	Path                      string
	Guaranteed, Used, Pending berth.Resource
	Assignment
}

// ProportionalReport is what one round computed and did.
type ProportionalReport struct {
	// Time is the host's time of the round.
	Time berth.Time
	// Budget is the round's total allowance (total_preemption_per_round of
	// the cluster); Left what remained after selection.
	Budget, Left berth.Resource
	// Queues lists every queue, depth first, with the last ideal
	// assignment computed in the round on the default partition;
	// Partitions does the same for each labelled partition.
	Queues     []QueueReport
	Partitions []PartitionReport
	// Decisions lists the chosen containers in selection order.
	Decisions []Decision
	// Ended are the containers the round killed; the host stops them.
	Ended []queue.Ended
	// Forgotten lists marked containers the policy stopped tracking.
	Forgotten []ContainerID
}

// PartitionReport is the queues' state and ideal assignment on one
// labelled partition in a round.
type PartitionReport struct {
	Label  string
	Queues []QueueReport
}

// Queue returns the report of the queue at path, or nil.
func (r *ProportionalReport) Queue(path string) *QueueReport {
	for i := range r.Queues {
		if r.Queues[i].Path == path {
			return &r.Queues[i]
		}
	}
	return nil
}

// Proportional is the capacity scheduler's proportional preemption
// policy (YARN's ProportionalCapacityPreemptionPolicy). The host calls
// [Proportional.Round] every monitoring interval with its clock's time.
// It is not safe for concurrent use: one host loop drives it. Only
// [NewProportional] makes a usable Proportional: the zero value has no
// scheduler and is not one (a round with it panics).
type Proportional struct {
	sched     CapacityScheduler
	cfg       ProportionalConfig
	selectors []Selector
	custom    bool
	log       *slog.Logger
	marked    map[ContainerID]berth.Time
	obs       Observer // the host's observer (observe.go); nil: none
}

// ProportionalOption configures a [Proportional] policy.
type ProportionalOption func(*Proportional)

// WithSelectors replaces the built-in selector chain (see
// [DefaultSelectors]) with sels, run in order.
func WithSelectors(sels ...Selector) ProportionalOption {
	return func(p *Proportional) { p.selectors, p.custom = sels, true }
}

// WithLogger sets a logger for the policy's decisions (none by default).
func WithLogger(l *slog.Logger) ProportionalOption { return func(p *Proportional) { p.log = l } }

// DefaultSelectors is YARN's selector chain for cfg: the queue-priority
// selector (underutilized-preemption), the reserved-container selector
// (select_based_on_reserved_containers), the FIFO selector, the balance
// FIFO selector (preemption-to-balance-queue-after-satisfied) and the
// intra-queue selector (intra-queue-preemption), each when enabled.
func DefaultSelectors(cfg ProportionalConfig) []Selector {
	var out []Selector
	if cfg.PriorityPreemption {
		out = append(out, PrioritySelector{})
	}
	if cfg.SelectBasedOnReservedContainers {
		out = append(out, ReservedSelector{})
	}
	out = append(out, FIFOSelector{IncludeReserved: cfg.AdditionalBalanceBasedOnReserved})
	if cfg.BalanceAfterSatisfied {
		out = append(out, FIFOSelector{Balance: true, Wait: cfg.BalanceMaxWaitBeforeKill})
	}
	if cfg.IntraQueueEnabled {
		out = append(out, IntraQueueSelector{})
	}
	return out
}

// NewProportional returns the policy over s with cfg.
func NewProportional(s CapacityScheduler, cfg ProportionalConfig, opts ...ProportionalOption) (*Proportional, error) {
	if s == nil {
		return nil, berth.InvalidField("scheduler", nil, "required")
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	p := &Proportional{sched: s, cfg: cloneConfig(cfg), marked: map[ContainerID]berth.Time{}}
	for _, o := range opts {
		if o != nil { // a nil option changes nothing
			o(p)
		}
	}
	if !p.custom {
		p.selectors = DefaultSelectors(p.cfg)
	}
	for i, sel := range p.selectors {
		if sel == nil {
			return nil, berth.InvalidField(fmt.Sprintf("selectors[%d]", i), nil, "nil selector")
		}
	}
	return p, nil
}

func cloneConfig(c ProportionalConfig) ProportionalConfig {
	if c.Queues != nil {
		m := make(map[string]QueuePreemption, len(c.Queues))
		for k, v := range c.Queues {
			m[k] = v
		}
		c.Queues = m
	}
	return c
}

// Config returns the configuration in force.
func (p *Proportional) Config() ProportionalConfig { return cloneConfig(p.cfg) }

// Reconfigure replaces the configuration (YARN re-reads it every round);
// the built-in selector chain follows it, a custom one stays. Marked
// containers keep their marks. An invalid configuration changes nothing.
func (p *Proportional) Reconfigure(cfg ProportionalConfig) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	p.cfg = cloneConfig(cfg)
	if !p.custom {
		p.selectors = DefaultSelectors(p.cfg)
	}
	return nil
}

// Marked lists the containers currently marked and when each was first
// marked.
func (p *Proportional) Marked() map[ContainerID]berth.Time {
	out := make(map[ContainerID]berth.Time, len(p.marked))
	for k, v := range p.marked {
		out[k] = v
	}
	return out
}

// Evaluate computes a round without acting: the selection the next
// Round would make on the scheduler's current state (as with observe_only).
func (p *Proportional) Evaluate(now berth.Time) (*ProportionalReport, error) {
	return p.round(now, true)
}

// Round is one run of YARN's editSchedule at the host's time now: it
// reads the scheduler's state, computes each queue's ideal assignment, runs
// the selectors and then, unless observe_only, marks containers chosen
// for the first time, kills those chosen again after their kill wait,
// cancels chosen reservations, and forgets marks not renewed for twice
// max_wait_before_kill (or at once with ForgetUnselected). A container
// or reservation that ended meanwhile is reported as Vanished. Any other
// failure of the scheduler stops the round: the error wraps it, and the
// report returned with it lists what was done until then (the policy's
// marks agree with it).
func (p *Proportional) Round(now berth.Time) (*ProportionalReport, error) {
	return p.round(now, p.cfg.ObserveOnly)
}

func (p *Proportional) round(now berth.Time, observe bool) (*ProportionalReport, error) {
	r, budget, err := p.decide()
	if err != nil {
		return nil, err
	}
	rep := &ProportionalReport{Time: now, Budget: budget, Left: r.budget}
	reportQueues(rep, r)
	rep.Decisions = make([]Decision, 0, len(r.selected))
	for _, c := range r.selected {
		d, err := p.act(rep, c, now, observe)
		if err != nil {
			return rep, err
		}
		rep.Decisions = append(rep.Decisions, d)
		if p.obs != nil && !observe && !c.Reservation {
			p.emit(d, now)
		}
	}
	if !observe {
		p.forgetStale(rep, r, now)
	}
	p.logDecisions(rep)
	return rep, nil
}

// decide reads the scheduler into a view and runs the selectors over it
// in order: the round's candidates, nothing acted on yet, and the budget
// the round started with.
func (p *Proportional) decide() (*ProportionalRound, berth.Resource, error) {
	cl, err := buildCluster(p.sched.PreemptionState(), p.sched.Config(), &p.cfg, p.sched)
	if err != nil {
		return nil, berth.Resource{}, fmt.Errorf("preempt: reading the scheduler: %w", err)
	}
	r := newRound(cl, &p.cfg)
	r.userLimit = p.sched.UserLimit
	budget := r.budget
	for _, s := range p.selectors {
		r.cur = s
		if err := s.Select(r); err != nil {
			return nil, berth.Resource{}, fmt.Errorf("preempt: selector %s: %w", s.Name(), err)
		}
	}
	r.cur = nil
	return r, budget, nil
}

// reportQueues lists every queue's state and assignment, per partition.
func reportQueues(rep *ProportionalReport, r *ProportionalRound) {
	cl := r.Cluster
	for p := range cl.Partitions {
		qs := make([]QueueReport, len(cl.Queues))
		for i, v := range cl.Queues {
			qp := v.On(p)
			qs[i] = QueueReport{Path: v.Path, Guaranteed: qp.Guaranteed, Used: qp.Used, Pending: qp.Pending, Assignment: r.AssignmentOn(v, p)}
		}
		if p == 0 {
			rep.Queues = qs
		} else {
			rep.Partitions = append(rep.Partitions, PartitionReport{Label: cl.Partitions[p].Label, Queues: qs})
		}
	}
}

// act turns one candidate into its decision: observed only, a reservation
// cancelled, or a container marked, left waiting or killed.
func (p *Proportional) act(rep *ProportionalReport, c Candidate, now berth.Time, observe bool) (Decision, error) {
	d := Decision{Candidate: c, Action: Observed}
	switch {
	case observe:
		if t, ok := p.marked[c.ID]; ok {
			d.FirstMarked = t
		}
		return d, nil
	case c.Reservation:
		d.Action = ReservationCancelled
		if err := p.sched.KillReservation(c.ID); err != nil {
			if !errors.Is(err, berth.ErrNotFound) {
				return d, fmt.Errorf("preempt: cancelling reservation %d: %w", c.ID, err)
			}
			d.Action = Vanished
		}
		return d, nil
	}
	first, seen := p.marked[c.ID]
	switch {
	case seen && now-first >= c.wait:
		return p.kill(rep, d, first)
	case seen:
		d.FirstMarked, d.Action = first, Waiting
	default:
		d.FirstMarked, d.Action = now, Marked
		if err := p.sched.MarkForPreemption(c.ID); err != nil {
			if !errors.Is(err, berth.ErrNotFound) {
				return d, fmt.Errorf("preempt: marking container %d: %w", c.ID, err)
			}
			d.Action = Vanished
		} else {
			p.marked[c.ID] = now
		}
	}
	return d, nil
}

// kill preempts a container marked at first whose wait is over, listing
// it among the report's ended containers.
func (p *Proportional) kill(rep *ProportionalReport, d Decision, first berth.Time) (Decision, error) {
	d.FirstMarked = first
	d.Action = Killed
	ended, err := p.sched.PreemptContainer(d.ID)
	if err != nil {
		if !errors.Is(err, berth.ErrNotFound) {
			return d, fmt.Errorf("preempt: killing container %d: %w", d.ID, err)
		}
		d.Action = Vanished
	} else {
		rep.Ended = append(rep.Ended, ended)
	}
	delete(p.marked, d.ID)
	return d, nil
}

// forgetStale drops the marks of containers that ended, were marked more
// than twice the wait ago, or (with ForgetUnselected) were not chosen
// again.
func (p *Proportional) forgetStale(rep *ProportionalReport, r *ProportionalRound, now berth.Time) {
	for _, id := range sortedKeys(p.marked) {
		_, chosen := r.selIdx[id]
		alive := p.sched.HasContainer(id)
		// Twice the wait, without overflow for huge waits.
		age, w := now-p.marked[id], p.cfg.MaxWaitBeforeKill
		expired := age > w && age-w > w
		if !alive || expired || (p.cfg.ForgetUnselected && !chosen) {
			delete(p.marked, id)
			rep.Forgotten = append(rep.Forgotten, id)
			if p.obs != nil {
				p.obs.ObservePreemption(PreemptionEvent{Kind: PreemptionUnmarked, Container: queue.Container{ID: id}, Time: now})
			}
		}
	}
}

// logDecisions logs each decision to the host's logger, if any.
func (p *Proportional) logDecisions(rep *ProportionalReport) {
	if p.log == nil {
		return
	}
	for _, d := range rep.Decisions {
		p.log.Info("preemption", "container", d.ID, "app", d.App, "queue", d.Container.Queue,
			"selector", d.Selector, "action", d.Action.String())
	}
}
