package engine

import (
	"cmp"
	"slices"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/examples/sim/metrics"
	"github.com/berthsched/berth/follower"
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
	_ queue.Observer         = recorder{}
	_ queue.ActivityObserver = recorder{}
	_ plan.Observer          = recorder{}
	_ preempt.Observer       = recorder{}
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
	a := e.appByID[ev.Container.App]
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
	q := ev.Container.Queue
	if i, ok := e.queueOf(q); ok {
		e.qPreempted[i]++
		q = e.run.Queues[i]
	}
	e.killed(q, ev.Container.Resource)
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

// ObserveActivity counts why the walk gave an application nothing, per
// reported queue (the scheduler reports it when the engine asked it to
// record, see WaitRecorder). A reported queue the walk did not enter (at
// its maximum, say) counts once: its applications waited for that reason.
func (r recorder) ObserveActivity(a queue.Activity) {
	e := r.e
	if a.Outcome != queue.Skipped || e.waits == nil {
		return
	}
	var i int
	var ok bool
	if a.App != "" {
		i, ok = e.queueOf(a.Queue)
	} else {
		i, ok = e.queueIdx[a.Queue]
	}
	if ok {
		if e.waits[i] == nil {
			e.waits[i] = map[queue.Reason]int{}
		}
		e.waits[i][a.Reason]++
	}
}

// waitsOf is the run's reasons per queue, the most frequent first (ties in
// the reasons' order), nil when they were not recorded.
func (e *Engine) waitsOf() []metrics.QueueWaits {
	if e.waits == nil {
		return nil
	}
	out := []metrics.QueueWaits{}
	for i, counts := range e.waits {
		if len(counts) == 0 {
			continue
		}
		w := metrics.QueueWaits{Queue: e.run.Queues[i]}
		for _, r := range queue.Reasons() {
			if n := counts[r]; n > 0 {
				w.Attempts += n
				w.Reasons = append(w.Reasons, metrics.ReasonCount{Reason: r.String(), Text: r.Text(), Attempts: n})
			}
		}
		slices.SortStableFunc(w.Reasons, func(a, b metrics.ReasonCount) int { return cmp.Compare(b.Attempts, a.Attempts) })
		out = append(out, w)
	}
	return out
}

// ObserveQueue records reconfigurations on the timeline; the follower's
// results tell the engine the rest (reservation queues come and go).
func (r recorder) ObserveQueue(ev queue.QueueEvent) {
	if ev.Kind == queue.QueueReconfigured {
		r.e.record(metrics.Event{Time: ev.Time, Kind: metrics.QueueReconfigured, Queue: r.e.reportedQueue(ev.Queue)})
	}
}

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
	tl := metrics.Event{Time: ev.Time, Queue: e.reportedQueue(rec.Queue), Reservation: rec.ID}
	switch ev.Kind {
	case plan.ReservationAccepted:
		rec.Accepted = true
		rec.Start, rec.End = span(ev.Allocation)
		tl.Kind, tl.Resource = metrics.ReservationAccepted, peak(ev.Allocation)
	case plan.ReservationRejected:
		rec.Reason = ev.Err.Error()
		tl.Kind, tl.Detail = metrics.ReservationRejected, rec.Reason
	case plan.ReservationDeleted:
		if rec.Removed == 0 && rec.End > ev.Time {
			rec.Removed = ev.Time
			tl.Kind = metrics.ReservationRemoved
		}
	}
	if tl.Kind != 0 {
		e.record(tl)
	}
}

// peak is the most an allocation holds at one time.
func peak(a *plan.Allocation) berth.Resource {
	var m berth.Resource
	for _, iv := range a.Intervals {
		m = berth.ComponentwiseMax(m, iv.Resource)
	}
	return m
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

// record appends an event to the run's timeline. The clock only moves
// forward, so the timeline is in time order, and in the order of the
// engine's steps within one instant.
func (e *Engine) record(ev metrics.Event) { e.run.Timeline = append(e.run.Timeline, ev) }

// nodeLost records a node's loss with what it ended: its containers, and
// among them the application masters whose attempts restart.
func (e *Engine) nodeLost(n *node, ended []queue.Ended, now berth.Time) {
	ams := 0
	for _, en := range ended {
		if c, ok := e.ctrs[en.ID]; ok && c.app != nil && c == c.app.am {
			ams++
		}
	}
	e.record(metrics.Event{Time: now, Kind: metrics.NodeLost, Node: n.spec.ID, Rack: n.spec.Rack,
		Containers: len(ended), AMs: ams, Resource: n.spec.Capability})
}

// killed counts a container a preemption policy killed into the current
// round's tally of its queue; flushKills turns the tally into timeline
// events when the round is over, one per victim queue.
func (e *Engine) killed(queueName string, r berth.Resource) {
	for i := range e.kills {
		if e.kills[i].Queue == queueName {
			e.kills[i].Containers++
			e.kills[i].Resource = e.kills[i].Resource.Add(r)
			return
		}
	}
	e.kills = append(e.kills, metrics.Event{Time: e.clock.Now(), Kind: metrics.Preempted, Queue: queueName, Containers: 1, Resource: r})
}

func (e *Engine) flushKills() {
	for _, k := range e.kills {
		e.record(k)
	}
	e.kills = e.kills[:0]
}

// replanned counts a follower run that replanned or resized a plan and
// records it on the timeline. A
// plan that stays over-committed is replanned or resized at every
// follower step: such a run goes on the timeline only when it starts a
// stretch of them or the plan's resources changed, so that the timeline
// says what happened, not how often the follower ran.
func (e *Engine) replanned(r *follower.Result, now berth.Time) {
	was := e.overCommitted[r.PlanQueue]
	e.overCommitted[r.PlanQueue] = r.Replanned || r.Resized
	if !r.Replanned && !r.Resized {
		return
	}
	e.run.Replans++
	if was && e.planRes[r.PlanQueue].Equal(r.PlanResources) {
		return
	}
	how := "replanned"
	if !r.Replanned {
		how = "resized"
	}
	e.planRes[r.PlanQueue] = r.PlanResources
	e.record(metrics.Event{Time: now, Kind: metrics.PlanReplanned, Queue: e.reportedQueue(r.PlanQueue), Resource: r.PlanResources, Detail: how})
}

// reportedQueue names a queue as the run reports it (Run.Queues): a
// reservation queue as its plan, a plan's short name by its path.
func (e *Engine) reportedQueue(name string) string {
	for _, q := range []string{name, queue.RootName + queue.Separator + name} {
		if i, ok := e.queueOf(q); ok {
			return e.run.Queues[i]
		}
	}
	return name
}
