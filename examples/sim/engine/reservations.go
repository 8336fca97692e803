package engine

import (
	"math"
	"strings"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/examples/sim/metrics"
	"github.com/berthsched/berth/examples/sim/trace"
	"github.com/berthsched/berth/follower"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/queue"
)

func (e *Engine) planOf(q string) (*plan.Plan, bool) {
	// The plan may be named by the short name (capacity) or the full
	// path (fair), and the trace may use either.
	for _, name := range []string{q, queue.RootName + queue.Separator + q} {
		if p, ok := e.cfg.Reservations.Plan(name); ok {
			return p, true
		}
	}
	if i := strings.LastIndexByte(q, '.'); i >= 0 {
		return e.cfg.Reservations.Plan(q[i+1:])
	}
	return nil, false
}

// reserve submits a deadline job's reservation as SLS does for MapReduce
// jobs (ReservationClientUtil.createMRReservation): the maps then the
// reduces, each stage a gang of all its tasks at the largest task size
// for the longest task duration, R_ORDER_NO_GAP, between the job's start
// and its deadline. Accepted, the job counts as submitted under the
// reservation at once, and enters the scheduler when the reservation's
// resources start; refused, it is submitted at once without one.
func (e *Engine) reserve(a *app, now berth.Time) {
	e.appByID[a.id] = a
	p := a.planQueue
	def := plan.Definition{Arrival: a.job.Start, Deadline: a.job.Deadline, Name: "reservation_" + a.job.ID,
		Interpreter: plan.ROrderNoGap}
	for _, reduce := range []bool{false, true} {
		var st plan.Stage
		for _, t := range a.job.Tasks {
			if (t.Type == trace.TypeReduce) != reduce {
				continue
			}
			st.Containers++
			st.Capability = berth.ComponentwiseMax(st.Capability, t.Resource)
			st.Duration = max(st.Duration, t.Duration)
		}
		if st.Containers > 0 {
			st.Concurrency = st.Containers
			def.Stages = append(def.Stages, st)
		}
	}
	id := e.cfg.Reservations.NewReservationID()
	// The record is filled by the plan's decision (observe.go).
	ri := len(e.run.Reservations)
	e.resIdx[id.String()] = ri
	e.run.Reservations = append(e.run.Reservations, metrics.Reservation{ID: id.String(), Job: a.job.ID, Queue: p.QueueName(),
		User: a.job.User, Arrival: def.Arrival, Deadline: def.Deadline})
	err := e.cfg.Reservations.Submit(plan.SubmissionRequest{Queue: p.QueueName(), ID: id, Definition: &def, User: a.job.User})
	rec := &e.run.Reservations[ri]
	// The AM submits its application right after its reservation, with
	// the reservation's id (SLS's AMSimulator): the job waits for its
	// reservation from then on, in the scheduler as YARN holds it, here
	// until the reservation's queue exists.
	at := a.submitAt
	a.rec.Submitted, a.recorded = at, true
	if rec.Accepted {
		// At the job's own offset into the heartbeat cycle, as its
		// submission: reservations start on the follower's steps, and
		// applications entering on the same instant of the cycle would
		// all meet the same node first.
		at = max(at, rec.Start+a.submitAt-a.job.Start)
		a.resID = id.String()
		a.rec.Reservation = a.resID
		e.refreshed(p, rec.Start, now)
	} else if err != nil && rec.Reason == "" {
		rec.Reason = err.Error() // refused before it reached the plan
	}
	e.push(event{at: at, kind: evSubmit, i: int32(a.idx)})
}

// span returns where the allocation holds resources.
func span(a *plan.Allocation) (berth.Time, berth.Time) {
	start, end := berth.Time(math.MaxInt64), berth.Time(math.MinInt64)
	for _, iv := range a.Intervals {
		if iv.Resource.IsZero() {
			continue
		}
		start = min(start, iv.Interval.Start)
		end = max(end, iv.Interval.End)
	}
	if start > end {
		return a.Start, a.Start
	}
	return start, end
}

// refreshed publishes plan p after the engine's Submit accepted a
// reservation starting at start, as YARN's ClientRMService does: the
// system published it already when its Publish is the follower's (rm
// wires it so), and the engine takes what that did; otherwise the engine
// refreshes the plan itself. Either way the synchronization's ended
// containers and killed applications are handled as a run's.
func (e *Engine) refreshed(p *plan.Plan, start, now berth.Time) {
	published, err := e.cfg.Follower.TakePublished()
	if err != nil {
		e.log.Warn("follower publish", "plan", p.QueueName(), "err", err)
	}
	if len(published) == 0 {
		res, done, err := e.cfg.Follower.Refresh(p, start, now)
		if err != nil {
			e.log.Warn("follower refresh", "plan", p.QueueName(), "err", err)
		}
		if done {
			published = append(published, res)
		}
	}
	for i := range published {
		e.followed(&published[i], now)
	}
}

func (e *Engine) followerRound(now berth.Time) {
	results, err := e.cfg.Follower.Run(now)
	if err != nil {
		e.log.Warn("follower", "time", now, "err", err)
	}
	for i := range results {
		e.followed(&results[i], now)
	}
}

// followed records what one synchronization of a plan did and stops what
// it ended: a run's, a publication's or a refresh's alike.
func (e *Engine) followed(r *follower.Result, now berth.Time) {
	ent := r.Entitlements()
	if len(r.Created)+len(r.Expired)+len(r.Removed)+len(r.Moved)+len(r.Killed) > 0 || !sameEnt(ent, e.lastEnt[r.PlanQueue]) {
		e.bump()
	}
	e.lastEnt[r.PlanQueue] = ent
	e.replanned(r, now)
	// The killed applications first: their containers end with them, and
	// an AM container that ends with its killed application is no lost AM
	// to restart (YARN kills the application, it makes no new attempt).
	for _, app := range r.Killed {
		if a := e.appByID[app]; a != nil && a.state != finished {
			e.clearPending(a)
			a.state = finished
			e.open--
		}
	}
	e.ended(r.Ended, now)
}

func sameEnt(a, b map[string]queue.Entitlement) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}
