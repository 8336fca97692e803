package preempt

// Applying a proportional plan: marks, kills and reservation
// cancellations through the scheduler's act side, and the policy's own
// bookkeeping of marks.

import (
	"errors"
	"fmt"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

// ProportionalReport is what one round decided (its plan, with the
// candidates applied) and did to each candidate.
type ProportionalReport struct {
	ProportionalPlan
	// Decisions lists the candidates in selection order, each with what
	// was done to it.
	Decisions []Decision
	// Ended are the containers the round killed; the host stops them.
	Ended []queue.Ended
	// Forgotten lists marked containers the policy stopped tracking.
	Forgotten []ContainerID
}

// Evaluate computes a round without acting: the selection the next
// Round would make on the scheduler's current state (as with observe_only),
// each candidate with the time it was first marked, if it is.
func (p *Proportional) Evaluate(now berth.Time) (*ProportionalReport, error) {
	plan, err := p.Decide(now)
	if err != nil {
		return nil, err
	}
	return p.apply(plan, true)
}

// Round is one run of YARN's editSchedule at the host's time now:
// [Proportional.Decide] then [Proportional.Apply].
func (p *Proportional) Round(now berth.Time) (*ProportionalReport, error) {
	plan, err := p.Decide(now)
	if err != nil {
		return nil, err
	}
	return p.Apply(plan)
}

// Apply carries out a plan [Proportional.Decide] returned, at the plan's
// time: unless observe_only, it marks containers chosen for the first
// time, kills those chosen again after their kill wait, cancels chosen
// reservations, and forgets marks not renewed for twice
// max_wait_before_kill (or at once with ForgetUnselected; a vetoed
// candidate counts as not chosen). A container or reservation that ended
// meanwhile is reported as Vanished. Any other failure of the scheduler
// stops the round: the error wraps it, and the report returned with it
// lists what was done until then (the policy's marks agree with it).
// A plan is applied once, by the policy that decided it, before any later
// plan of that policy is applied: a nil plan, one not from this policy's
// Decide, or a stale one (a plan was applied since it was decided) is a
// *berth.FieldError naming "plan", and nothing is done.
func (p *Proportional) Apply(plan *ProportionalPlan) (*ProportionalReport, error) {
	switch {
	case plan == nil:
		return nil, berth.InvalidField("plan", nil, "required")
	case plan.owner == nil:
		return nil, berth.InvalidField("plan", plan.Time, "not returned by Decide")
	case plan.owner != p:
		return nil, berth.InvalidField("plan", plan.Time, "decided by another Proportional")
	case plan.round != p.applied+1:
		return nil, berth.InvalidField("plan", plan.Time, "stale: a plan was applied after it was decided")
	}
	p.applied++
	return p.apply(plan, p.cfg.ObserveOnly)
}

func (p *Proportional) apply(plan *ProportionalPlan, observe bool) (*ProportionalReport, error) {
	now := plan.Time
	rep := &ProportionalReport{ProportionalPlan: *plan, Decisions: make([]Decision, 0, len(plan.Candidates))}
	rep.owner, rep.round = nil, 0 // a report is not a plan to apply again
	for _, c := range plan.Candidates {
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
		p.forgetStale(rep, now)
	}
	p.logDecisions(rep)
	return rep, nil
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
		if err := p.actor.KillReservation(c.ID); err != nil {
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
		if err := p.actor.MarkForPreemption(c.ID); err != nil {
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
	ended, err := p.actor.PreemptContainer(d.ID)
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
func (p *Proportional) forgetStale(rep *ProportionalReport, now berth.Time) {
	var chosen map[ContainerID]bool
	if p.cfg.ForgetUnselected && len(p.marked) > 0 {
		chosen = make(map[ContainerID]bool, len(rep.Candidates))
		for _, c := range rep.Candidates {
			chosen[c.ID] = true
		}
	}
	for _, id := range sortedKeys(p.marked) {
		alive := p.state.HasContainer(id)
		// Twice the wait, without overflow for huge waits.
		age, w := now-p.marked[id], p.cfg.MaxWaitBeforeKill
		expired := age > w && age-w > w
		if !alive || expired || (p.cfg.ForgetUnselected && !chosen[id]) {
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
