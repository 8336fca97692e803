package preempt

// Deciding a proportional round: a function of the scheduler's read side,
// the settings and the selector chain alone. Nothing here holds a
// CapacityActor, so nothing a round decides with (the host's selectors
// included) can mark, kill or cancel.

import (
	"fmt"

	"github.com/berthsched/berth"
)

// ProportionalPlan is what a round decided, before anything is done: each
// queue's ideal assignment and the chosen containers, computed from the
// scheduler's [CapacityState] only. [Proportional.Apply] carries it out;
// in between the host may inspect it and veto candidates by removing
// them from Candidates (it must not add or change any).
type ProportionalPlan struct {
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
	// Candidates are the chosen containers and reservations in selection
	// order: what applying the plan acts on.
	Candidates []Candidate
	// owner is the policy that decided the plan (nil: not from Decide) and
	// round 1 + the number of plans it had applied then: Apply takes only
	// a plan of its own decided since its last Apply.
	owner *Proportional
	round uint64
}

// Queue returns the plan's report of the queue at path, or nil.
func (r *ProportionalPlan) Queue(path string) *QueueReport {
	for i := range r.Queues {
		if r.Queues[i].Path == path {
			return &r.Queues[i]
		}
	}
	return nil
}

// Decide computes a round at the host's time now without acting: it reads
// the scheduler's state, computes each queue's ideal assignment and runs
// the selectors. Nothing is marked, killed or forgotten until the plan is
// given to [Proportional.Apply].
func (p *Proportional) Decide(now berth.Time) (*ProportionalPlan, error) {
	plan, err := decide(p.state, &p.cfg, p.selectors, now)
	if plan != nil {
		plan.owner, plan.round = p, p.applied+1
	}
	return plan, err
}

// decide reads state into a view and runs the selectors over it in order.
func decide(state CapacityState, cfg *ProportionalConfig, selectors []Selector, now berth.Time) (*ProportionalPlan, error) {
	view, err := buildCluster(state.PreemptionState(), state.Config(), cfg, state)
	if err != nil {
		return nil, fmt.Errorf("preempt: reading the scheduler: %w", err)
	}
	r := newRound(view, cfg)
	r.userLimit = state.UserLimit
	plan := &ProportionalPlan{Time: now, Budget: r.budget}
	for _, s := range selectors {
		r.cur = s
		if err := s.Select(r); err != nil {
			return nil, fmt.Errorf("preempt: selector %s: %w", s.Name(), err)
		}
	}
	r.cur = nil
	plan.Left, plan.Candidates = r.budget, r.selected
	reportQueues(plan, r)
	return plan, nil
}

// reportQueues lists every queue's state and assignment, per partition.
func reportQueues(plan *ProportionalPlan, r *ProportionalRound) {
	view := r.Cluster
	for p := range view.Partitions {
		qs := make([]QueueReport, len(view.Queues))
		for i, v := range view.Queues {
			qp := v.On(p)
			qs[i] = QueueReport{Path: v.Path, Guaranteed: qp.Guaranteed, Used: qp.Used, Pending: qp.Pending, Assignment: r.AssignmentOn(v, p)}
		}
		if p == 0 {
			plan.Queues = qs
		} else {
			plan.Partitions = append(plan.Partitions, PartitionReport{Label: view.Partitions[p].Label, Queues: qs})
		}
	}
}
