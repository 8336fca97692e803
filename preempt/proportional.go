package preempt

import (
	"fmt"
	"log/slog"
	"reflect"
	"slices"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/capacity"
	"github.com/berthsched/berth/queue"
)

// CapacityState is the read side of a capacity scheduler: the state a
// proportional round decides from. *capacity.Scheduler satisfies it; a
// host with a scheduler of its own, or a test, can implement it.
type CapacityState interface {
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
}

// CapacityActor is the act side of a capacity scheduler: what applying a
// plan does to it. *capacity.Scheduler satisfies it.
type CapacityActor interface {
	// MarkForPreemption tells the application a container will be
	// preempted (YARN's MARK_CONTAINER_FOR_PREEMPTION).
	MarkForPreemption(id queue.ContainerID) error
	// PreemptContainer kills a marked container (MARK_CONTAINER_FOR_KILLABLE).
	PreemptContainer(id queue.ContainerID) (queue.Ended, error)
	// KillReservation cancels a reserved container (KILL_RESERVED_CONTAINER).
	KillReservation(id queue.ContainerID) error
}

// CapacityScheduler is both sides of a capacity scheduler, as
// *capacity.Scheduler has them.
type CapacityScheduler interface {
	CapacityState
	CapacityActor
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

// PartitionReport is the queues' state and ideal assignment on one
// labelled partition in a round.
type PartitionReport struct {
	Label  string
	Queues []QueueReport
}

// Proportional is the capacity scheduler's proportional preemption
// policy (YARN's ProportionalCapacityPreemptionPolicy). The host calls
// [Proportional.Round] every monitoring interval with its clock's time,
// or [Proportional.Decide] and then [Proportional.Apply] to look at a
// round's plan before it is carried out. It is not safe for concurrent
// use: one host loop drives it. Only [NewProportional] makes a usable
// Proportional: the zero value has no scheduler and is not one (a round
// with it panics).
type Proportional struct {
	state     CapacityState // what a round decides from
	actor     CapacityActor // what applying a plan acts on
	cfg       ProportionalConfig
	selectors []Selector
	custom    bool
	log       *slog.Logger
	marked    map[ContainerID]berth.Time
	obs       Observer // the host's observer (observe.go); nil: none
	applied   uint64   // how many plans Apply has taken (a plan's round is one more)
}

// ProportionalSetup is what [NewProportional] builds a policy from: the
// scheduler's two sides, YARN's settings and the host's collaborators.
// The settings are a field of their own, not the place for the
// collaborators, because every selector sees them
// ([ProportionalRound].Config) and must not reach the act side.
type ProportionalSetup struct {
	// State is the scheduler's read side (required): a *capacity.Scheduler,
	// or the host's own.
	State CapacityState
	// Actor is the scheduler's act side (required), usually the same
	// value as State.
	Actor CapacityActor
	// Config is YARN's settings; the zero value means
	// [DefaultProportionalConfig].
	Config ProportionalConfig
	// Selectors replaces the built-in chain ([DefaultSelectors], which
	// follows the settings) with the host's, run in order; empty means
	// the built-in chain.
	Selectors []Selector
	// Logger logs each decision; nil logs nothing.
	Logger *slog.Logger
}

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

// NewProportional returns the policy setup describes. A nil State or
// Actor, or a nil selector, is a *berth.FieldError naming the field; an
// invalid Config is its Validate error.
func NewProportional(setup ProportionalSetup) (*Proportional, error) {
	if reflect.ValueOf(setup.Config).IsZero() {
		setup.Config = DefaultProportionalConfig()
	}
	return newProportional(setup)
}

// newProportional builds the policy with setup.Config as it is (a
// restored policy's may be the zero value).
func newProportional(setup ProportionalSetup) (*Proportional, error) {
	// A typed nil (a nil *capacity.Scheduler) is refused too: it would
	// panic at the first round.
	if err := berth.CheckNotNil("ProportionalSetup.State", setup.State); err != nil {
		return nil, err
	}
	if err := berth.CheckNotNil("ProportionalSetup.Actor", setup.Actor); err != nil {
		return nil, err
	}
	cfg := setup.Config
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	p := &Proportional{state: setup.State, actor: setup.Actor, cfg: cloneConfig(cfg), log: setup.Logger,
		marked: map[ContainerID]berth.Time{}}
	p.custom = len(setup.Selectors) > 0
	p.selectors = DefaultSelectors(p.cfg)
	if p.custom {
		p.selectors = slices.Clone(setup.Selectors)
	}
	for i, sel := range p.selectors {
		if sel == nil {
			return nil, berth.InvalidField(fmt.Sprintf("ProportionalSetup.Selectors[%d]", i), nil, "nil selector")
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
