package plan

import (
	"fmt"
	"slices"
	"sync"

	"github.com/berthsched/berth"
)

// Plan is the reservations of one reservable queue over time: YARN's
// InMemoryPlan. It records accepted allocations, answers the queries agents,
// policies and the plan follower need, and applies every change as one
// all-or-nothing step after the sharing policy admitted it.
//
// A Plan is safe for concurrent use: reads share a read lock, changes take
// the write lock. Every change is a journaled transaction undone on
// failure, and storage is copy-on-write, so [Plan.Snapshot] is cheap and a
// rejected change leaves no trace.
//
// Only [New] makes a usable Plan: the zero value is not one (its methods
// panic).
type Plan struct {
	cfg Config
	mu  sync.RWMutex
	st  *state
	// view marks a read-only view handed to a policy during a call: its
	// state may be shared with a plan that is being changed, so it never
	// clones series (clones touch the source).
	view bool
	// policyView is the plan's read-only view, made once (st never changes).
	policyView *Plan
	// observer is the host's observer (observe.go); nil: none. Snapshots
	// and views never have one.
	observer Observer
	// transaction is the current change's (under the write lock), kept
	// so that its journal buffer is reused.
	transaction txn
	// ids tells the System holding the plan what it holds and removed.
	ids idLedger
}

// New returns an empty plan with the given context (see [Config]).
func New(cfg Config) (*Plan, error) {
	cfg, err := cfg.normalize()
	if err != nil {
		return nil, err
	}
	return newPlan(cfg, newState(cfg.Capacity)), nil
}

// newPlan returns a plan of st with its read-only view.
func newPlan(cfg Config, st *state) *Plan {
	p := &Plan{cfg: cfg, st: st}
	p.policyView = &Plan{cfg: cfg, st: st, view: true}
	p.policyView.policyView = p.policyView
	return p
}

// viewOf returns st as a read-only plan for a policy call.
func (p *Plan) viewOf(st *state) *Plan {
	if p.policyView != nil && p.policyView.st == st {
		return p.policyView
	}
	return &Plan{cfg: p.cfg, st: st, view: true}
}

// ---- context (YARN's PlanContext) ----

// QueueName returns the queue the plan serves.
func (p *Plan) QueueName() string { return p.cfg.Queue }

// Step returns the plan step in ms.
func (p *Plan) Step() berth.Duration { return p.cfg.Step }

// Agent returns the plan's reservation agent (may be nil).
func (p *Plan) Agent() Agent { return p.cfg.Agent }

// Replanner returns the plan's replanner (may be nil).
func (p *Plan) Replanner() Replanner { return p.cfg.Replanner }

// Policy returns the plan's sharing policy (may be nil).
func (p *Plan) Policy() SharingPolicy { return p.cfg.Policy }

// Calculator returns the plan's resource calculator.
func (p *Plan) Calculator() berth.Calculator { return p.cfg.Calculator }

// MinAllocation returns the smallest container size.
func (p *Plan) MinAllocation() berth.Resource { return p.cfg.MinAllocation }

// MaxAllocation returns the largest container size.
func (p *Plan) MaxAllocation() berth.Resource { return p.cfg.MaxAllocation }

// MoveOnExpiry reports whether expired reservations' applications move to
// the default reservation queue (else they are killed).
func (p *Plan) MoveOnExpiry() bool { return p.cfg.MoveOnExpiry }

// MaxPeriodicity returns the largest recurrence; every period divides it.
func (p *Plan) MaxPeriodicity() berth.Duration { return p.cfg.MaxPeriodicity }

// Clock returns the plan's clock.
func (p *Plan) Clock() berth.Clock { return p.cfg.Clock }

// Config returns a copy of the plan's context.
func (p *Plan) Config() Config { return p.cfg }

// Snapshot returns an independent copy of the plan with the same context:
// changes to either never reach the other. Agents use it to plan
// speculatively. It is cheap: storage is shared copy-on-write, the cost is
// in the number of users and periods, not of reservations or time steps.
func (p *Plan) Snapshot() *Plan {
	if p.view {
		return newPlan(p.cfg, p.st.deepCopy(false))
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return newPlan(p.cfg, p.st.deepCopy(true))
}

// Equal reports whether two plans hold the same reservations (by
// [Allocation.Equal]) and the same capacity. It reads both under their
// read locks; comparing a plan with itself is true, with nil false.
func (p *Plan) Equal(o *Plan) bool {
	if p == o {
		return true
	}
	if p == nil || o == nil {
		return false
	}
	a, b := p.All(), o.All()
	return p.Capacity().Equal(o.Capacity()) && slices.EqualFunc(a, b, (*Allocation).Equal)
}

// String summarises the plan for logs, as YARN's toString: queue, capacity,
// step and the number of reservations.
func (p *Plan) String() string {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return fmt.Sprintf("In-memory Plan: Parent Queue: %s Total Capacity: %v Step: %d Reservations: %d",
		p.cfg.Queue, p.st.capacity, p.cfg.Step, p.st.table.Len())
}
