package engine

import (
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/preempt"
	"github.com/berthsched/berth/queue"
)

// recorder turns the decisions of the scheduler, the plans and the
// preemption policy into the run's metrics, as a host's metrics exporter
// would: running containers and applications, containers preempted, lost
// and marked (per queue and per job), and each reservation's outcome.
// The components call it synchronously, under their locks, so it only
// records: the engine's application masters act on the calls' results.
type recorder struct{ e *Engine }

var (
	_ queue.Observer   = recorder{}
	_ plan.Observer    = recorder{}
	_ preempt.Observer = recorder{}
)

// observe makes the recorder observe every component of the run.
func (e *Engine) observe() {
	r := recorder{e}
	e.s.SetObserver(r)
	for _, p := range e.plans {
		p.SetObserver(r)
	}
	if op, ok := e.cfg.Preemptor.(ObservedPreemptor); ok {
		op.SetObserver(r)
	}
}

// ObserveContainer counts live containers, and those preempted or lost
// per queue and per job (of a job still running).
func (r recorder) ObserveContainer(ev queue.ContainerEvent) {
	e := r.e
	if ev.Kind == queue.ContainerAllocated {
		e.running++
		return
	}
	e.running--
	if ev.Status != queue.Preempted && ev.Status != queue.Lost {
		return
	}
	a := e.appByIDOrNil(ev.Container.App)
	if a == nil || a.state == finished {
		return
	}
	if ev.Status == queue.Lost {
		a.rec.Lost++
		e.lost++
		return
	}
	a.rec.Preempted++
	e.preempted++
	if i, ok := e.queueOf(ev.Container.Queue); ok {
		e.qPreempted[i]++
	}
}

// ObserveApp counts the applications in the scheduler.
func (r recorder) ObserveApp(ev queue.AppEvent) {
	switch ev.Kind {
	case queue.AppAdded:
		r.e.runApps++
	case queue.AppFinished, queue.AppKilled:
		r.e.runApps--
	}
}

// ObserveQueue ignores queue changes: the follower's results tell the
// engine what it needs.
func (recorder) ObserveQueue(queue.QueueEvent) {}

// ObserveReservation records a deadline job's reservation: accepted with
// where the plan placed it, refused with why, deleted by the replanner
// before it ended.
func (r recorder) ObserveReservation(ev plan.ReservationEvent) {
	e := r.e
	i, ok := e.resIdx[ev.ID.String()]
	if !ok {
		return
	}
	rec := &e.run.Reservations[i]
	switch ev.Kind {
	case plan.ReservationAccepted:
		rec.Accepted = true
		rec.Start, rec.End = span(ev.Allocation)
	case plan.ReservationRejected:
		rec.Reason = ev.Err.Error()
	case plan.ReservationDeleted:
		if rec.Removed == 0 && rec.End > ev.Time {
			rec.Removed = ev.Time
		}
	}
}

// ObservePreemption counts the containers a preemption policy marked, per
// queue.
func (r recorder) ObservePreemption(ev preempt.PreemptionEvent) {
	e := r.e
	if ev.Kind != preempt.PreemptionMarked {
		return
	}
	e.marked++
	if i, ok := e.queueOf(ev.Container.Queue); ok {
		e.qMarked[i]++
	}
}
