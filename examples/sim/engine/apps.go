package engine

import (
	"fmt"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/examples/sim/metrics"
	"github.com/berthsched/berth/examples/sim/trace"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/queue"
)

// ctr is a container the scheduler allocated, an AM's or a task's.
type ctr struct {
	id       queue.ContainerID
	app      *app
	node     *node
	task     int // −1 for the AM container
	res      capKey
	finished bool // its work ended (reported at the node's next heartbeat)
	gone     bool // killed, preempted, lost or reported
}

// appState is where an application is in its life.
type appState uint8

const (
	waiting appState = iota
	submitted
	running
	finished
)

// app is one job of the trace as its application master runs it: the
// current attempt, its asks and its tasks' progress.
type app struct {
	job     *trace.Job
	rec     *metrics.Job
	idx     int
	id      string // current attempt's application id
	gen     uint32
	state   appState
	am      *ctr
	done    []bool // per task: its work is done
	running int    // task containers running
	// asks holds the pending tasks per priority of the job, in priority
	// order (pending.go); tgen and tflag are per task: the generation of
	// its latest ask and whether it is pending and located.
	asks  []*prioAsks
	tgen  []uint32
	tflag []uint8
	// MapReduce phases: maps (everything but reduces) first, then reduces.
	mapsLeft, reducesLeft int
	reducesAsked          bool
	resID                 string
	submitAt              berth.Time // when the AM submits (the trace's start, plus the offset)
	recorded              bool       // the submission time is recorded
	local                 bool       // sent host or rack asks
	planQueue             *plan.Plan
}

func (e *Engine) submit(a *app, now berth.Time, reservation string) {
	e.appByID[a.id] = a
	spec := queue.AppSpec{ID: a.id, Queue: a.job.Queue, User: a.job.User, AMResource: a.job.AMResource, ReservationID: reservation,
		NodeLabelExpression: a.job.LabelExpression}
	q, err := e.s.SubmitApp(spec)
	if err != nil && reservation != "" {
		// The reservation's queue may not be published yet: synchronize
		// its plan now, as a host submitting at the reservation's start
		// would, then fall back to the plan's default queue.
		if a.planQueue != nil {
			res, ferr := e.cfg.Follower.Synchronize(a.planQueue, now)
			if ferr != nil {
				e.log.Warn("follower", "plan", a.planQueue.QueueName(), "err", ferr)
			}
			e.followed(&res, now)
		}
		if q, err = e.s.SubmitApp(spec); err != nil {
			e.log.Warn("submit under reservation refused; submitting without", "app", a.id, "reservation", reservation, "err", err)
			spec.ReservationID = ""
			q, err = e.s.SubmitApp(spec)
		}
	}
	if !a.recorded {
		a.rec.Submitted, a.recorded = now, true
	}
	a.rec.Attempts++
	if err != nil {
		e.log.Warn("submit refused", "app", a.id, "queue", a.job.Queue, "err", err)
		a.state = finished
		e.open--
		return
	}
	a.rec.RanIn = q
	a.state = submitted
	e.bump()
	e.addPendingKey(keyOf(a.job.AMResource), 1)
}

func (e *Engine) addPendingKey(k capKey, n int) {
	e.bump()
	before := e.pending[k]
	e.pending[k] = before + n
	e.pendingRes = e.pendingRes.Add(berth.New(k.mem*int64(n), k.vc*int64(n)))
	if before <= 0 && before+n > 0 {
		// A new kind of ask: the parked nodes it fits must heartbeat again.
		if e.localApps > 0 || e.cfg.ExactHeartbeats {
			for _, nd := range e.nodes {
				if nd.parked && !nd.down && k.mem <= nd.free.mem && k.vc <= nd.free.vc {
					e.arm(nd, e.clock.Now()+1)
				}
			}
		} else {
			e.startSweep()
		}
	}
	if e.pending[k] == 0 {
		delete(e.pending, k)
	}
}

func (e *Engine) amStarted(a *app, now berth.Time) {
	a.state = running
	if a.rec.AMStarted == 0 {
		a.rec.AMStarted = now
	}
	var first, delayed []int
	for t, k := range a.job.Tasks {
		if a.done[t] || (a.job.AMType == trace.AMMapReduce && k.Type == trace.TypeReduce) {
			continue
		}
		if k.RequestDelay > 0 {
			delayed = append(delayed, t)
		} else {
			first = append(first, t)
		}
	}
	if a.job.AMType == trace.AMStream {
		e.push(event{at: now + max(a.job.End-a.job.Start, 1), kind: evStreamEnd, i: int32(a.idx), gen: a.gen})
	}
	for _, t := range delayed {
		e.push(event{at: now + a.job.Tasks[t].RequestDelay, kind: evAsk, i: int32(a.idx), j: int32(t), gen: a.gen})
	}
	e.addPending(a, first, true)
	a.reducesAsked = false
	e.maybeReduces(a)
	e.ask(a)
	e.maybeFinish(a, now)
}

// maybeReduces asks for the reduces once every map is done (SLS's
// MRAMSimulator).
func (e *Engine) maybeReduces(a *app) {
	if a.job.AMType != trace.AMMapReduce || a.mapsLeft > 0 || a.reducesAsked || a.state != running {
		return
	}
	a.reducesAsked = true
	var reds []int
	for t, k := range a.job.Tasks {
		if k.Type == trace.TypeReduce && !a.done[t] {
			reds = append(reds, t)
		}
	}
	if len(reds) > 0 {
		e.addPending(a, reds, true)
		e.ask(a)
	}
}

func (e *Engine) maybeFinish(a *app, now berth.Time) {
	if a.state == running && a.job.AMType == trace.AMMapReduce && a.mapsLeft == 0 && a.reducesLeft == 0 {
		e.finish(a, now)
	}
}

// finish ends the application: its remaining containers are released.
func (e *Engine) finish(a *app, now berth.Time) {
	ended, err := e.s.FinishApp(a.id)
	if err != nil {
		e.log.Warn("finish refused", "app", a.id, "err", err)
	}
	e.clearPending(a)
	a.state = finished
	a.rec.Finished = now
	e.open--
	e.ended(ended, now)
}

func (e *Engine) allocated(al *queue.Allocation, n *node, now berth.Time) {
	a := e.appByID[al.App]
	c := &ctr{id: al.ID, app: a, node: n, task: -1, res: keyOf(al.Resource)}
	e.ctrs[al.ID] = c
	e.bump()
	n.free.mem -= c.res.mem
	n.free.vc -= c.res.vc
	e.used.mem += c.res.mem
	e.used.vc += c.res.vc
	if a == nil || a.state == finished {
		e.release(c, now)
		return
	}
	if al.AM {
		if a.state != submitted {
			e.release(c, now)
			return
		}
		a.am = c
		a.rec.Containers++
		a.rec.AMNode = n.spec.ID
		e.addPendingKey(keyOf(a.job.AMResource), -1)
		e.amStarted(a, now)
		return
	}
	t, ok := e.takePending(a, al.Priority, n.spec.ID)
	if !ok {
		e.release(c, now) // more than asked (a stale count): give it back
		e.run.Released++
		return
	}
	c.task = t
	a.running++
	a.rec.Containers++
	if a.rec.FirstTask == 0 {
		a.rec.FirstTask = now
	}
	e.push(event{at: now + a.job.Tasks[t].Duration, kind: evDone, c: c.id})
}

// release gives a container back at once (the AM does not need it).
func (e *Engine) release(c *ctr, now berth.Time) {
	if c.app != nil {
		if _, err := e.s.Allocate(c.app.id, nil, []queue.ContainerID{c.id}); err != nil {
			e.log.Warn("release refused", "container", c.id, "err", err)
		}
	}
	e.gone(c)
}

func (e *Engine) gone(c *ctr) {
	if c.gone {
		return
	}
	c.gone = true
	e.bump()
	delete(e.ctrs, c.id)
	if !c.node.down {
		c.node.free.mem += c.res.mem
		c.node.free.vc += c.res.vc
		e.used.mem -= c.res.mem
		e.used.vc -= c.res.vc
		if c.node.parked && e.fits(c.node.free) {
			e.arm(c.node, e.clock.Now()+1)
		}
	}
}

// containerDone: the task's work ended; its node reports it at its next
// heartbeat.
func (e *Engine) containerDone(id queue.ContainerID, now berth.Time) {
	c, ok := e.ctrs[id]
	if !ok || c.gone || c.finished {
		return
	}
	c.finished = true
	c.node.completed = append(c.node.completed, id)
	e.arm(c.node, now)
}

// reported: the scheduler has been told; the AM learns it now.
func (e *Engine) reported(id queue.ContainerID, now berth.Time) {
	c, ok := e.ctrs[id]
	if !ok || c.gone {
		return
	}
	e.gone(c)
	e.taskEnded(c, true, now)
}

// taskEnded updates the AM after one of its task containers ended, done
// or not.
func (e *Engine) taskEnded(c *ctr, success bool, now berth.Time) {
	a := c.app
	if a == nil || c.task < 0 || a.state != running {
		return
	}
	a.running--
	t := c.task
	k := a.job.Tasks[t]
	if a.job.AMType == trace.AMStream {
		// Streams are kept running until the job's lifetime ends.
		e.addPending(a, []int{t}, false)
		e.ask(a)
		return
	}
	if !success {
		e.addPending(a, []int{t}, false)
		e.ask(a)
		return
	}
	a.done[t] = true
	if k.Type == trace.TypeReduce {
		a.reducesLeft--
	} else {
		a.mapsLeft--
	}
	e.maybeReduces(a)
	e.maybeFinish(a, now)
}

// ended handles containers the scheduler ended on its own: killed with
// their application, preempted, or lost with their node.
func (e *Engine) ended(list []queue.Ended, now berth.Time) {
	for _, en := range list {
		c, ok := e.ctrs[en.ID]
		if !ok || c.gone {
			continue
		}
		work := c.finished // the work was done, only the report was missing
		e.gone(c)
		if a := c.app; a != nil && a.state != finished {
			if c.task < 0 && c == a.am {
				e.amLost(a, now, en.Status == queue.Lost)
				continue
			}
			e.taskEnded(c, work, now)
		}
	}
}

// amLost restarts an application whose AM container ended: the attempt
// is finished and a new one submitted; finished tasks stay finished (the
// MapReduce AM recovers them). When the AM was lost with its node, the
// attempt's other containers, ended with it, count as lost too: the node
// loss ended them.
func (e *Engine) amLost(a *app, now berth.Time, withNode bool) {
	ended, err := e.s.FinishApp(a.id)
	if err != nil {
		e.log.Warn("finish lost attempt", "app", a.id, "err", err)
	}
	e.clearPending(a)
	a.state = waiting
	for _, en := range ended {
		if c, ok := e.ctrs[en.ID]; ok && !c.gone {
			e.gone(c)
			if withNode {
				e.lost++
				e.run.LostWithAM++
				a.rec.Lost++
			}
		}
	}
	a.running = 0
	a.gen++
	delete(e.appByID, a.id)
	a.id = fmt.Sprintf("%s_attempt%d", a.job.ID, a.gen+1)
	e.appByID[a.id] = a
	e.submit(a, now, a.resID)
}

// lifetimeEvery is the lifetime check's interval, at least 1 ms.
func (e *Engine) lifetimeEvery() berth.Duration { return max(e.cfg.LifetimeInterval, 1) }

// expire kills the applications whose lifetime ran out. They are marked
// finished before their containers are handed back, so an AM container
// among them ends the application instead of starting a new attempt.
func (e *Engine) expire(now berth.Time) {
	apps, ended, err := e.cfg.Lifetimes.ExpireApps()
	if err != nil {
		e.log.Warn("lifetime check", "time", now, "err", err)
	}
	for _, id := range apps {
		if a := e.appByID[id]; a != nil && a.state != finished {
			e.bump()
			e.clearPending(a)
			a.state = finished
			a.rec.Expired = now
			e.open--
		}
	}
	e.ended(ended, now)
}
