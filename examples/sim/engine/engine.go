package engine

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/capacity"
	"github.com/berthsched/berth/examples/sim/metrics"
	"github.com/berthsched/berth/examples/sim/trace"
	"github.com/berthsched/berth/fair"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/preempt"
	"github.com/berthsched/berth/queue"
)

// Scheduler is what the engine needs from a queue scheduler: nodes join
// and leave, applications are submitted, ask and finish, and every node
// heartbeat hands out containers. *capacity.Scheduler and *fair.Scheduler
// satisfy it as they are, so switching schedulers needs no branch here.
type Scheduler interface {
	AddNode(n queue.NodeSpec) error
	RemoveNode(id string) ([]queue.Ended, error)
	SubmitApp(spec queue.AppSpec) (string, error)
	Allocate(appID string, asks []queue.Ask, release []queue.ContainerID) (berth.Resource, error)
	Heartbeat(nodeID string, completed []queue.ContainerID) ([]queue.Allocation, error)
	FinishApp(appID string) ([]queue.Ended, error)
	// SetObserver: the engine's metrics are the scheduler's events.
	SetObserver(o queue.Observer)
}

var (
	_ Scheduler = (*capacity.Scheduler)(nil)
	_ Scheduler = (*fair.Scheduler)(nil)
)

// WaitRecorder is a Scheduler that records, on demand, why its walk
// gives applications nothing (*capacity.Scheduler and *fair.Scheduler
// do): the engine asks it to record every application and counts the
// reasons per queue.
type WaitRecorder interface {
	RecordApp(appID string, keep int) error
}

// Stats reads per-queue figures for the metrics samples. CapacityStats and
// FairStats adapt the two schedulers.
type Stats interface {
	// Queues lists the queues to report (full paths), in a fixed order.
	Queues() []string
	// Read fills dst[i] for Queues()[i].
	Read(dst []metrics.QueueSample)
}

// Preemptor is the seam for a preemption policy (package preempt's, through
// package scenario's adapters): the engine calls Round at Config.PreemptionInterval, and the
// policy preempts through the scheduler (PreemptContainer, KillContainer)
// and returns the containers it ended, which the engine hands back to
// their application masters to be asked for again. Nil turns preemption
// off.
type Preemptor interface {
	Round(now berth.Time) ([]queue.Ended, error)
}

// Rounder is the seam for YARN's asynchronous scheduling
// (capacity.Scheduler.ScheduleRound): the engine runs a round every
// Config.RoundInterval while asks are pending, and heartbeats only
// report completions. Nil: heartbeats allocate.
type Rounder interface {
	ScheduleRound() ([]queue.Allocation, error)
}

// Expirer is the seam for YARN's application lifetimes
// (capacity.Scheduler.ExpireApps, as RMAppLifetimeMonitor): the engine
// calls ExpireApps every Config.LifetimeInterval and ends the applications
// it names as killed, with the containers that ended with them. Nil:
// lifetimes are not enforced.
type Expirer interface {
	ExpireApps() (apps []string, ended []queue.Ended, err error)
}

// ObservedPreemptor is a Preemptor whose policy reports its decisions
// (both of package preempt's policies do, through package scenario's
// adapters): the engine observes it and counts the containers marked per
// queue (metrics.QueueSample.Marked).
type ObservedPreemptor interface {
	Preemptor
	SetObserver(o preempt.Observer)
}

// NodeEvent takes a node out of the cluster (Down) or brings it back.
type NodeEvent struct {
	At   berth.Time
	Node string
	Down bool
}

// capKey is a container size, as a comparable key.
type capKey struct{ mem, vc int64 }

func keyOf(r berth.Resource) capKey { return capKey{r.Memory, r.VCores} }

// Engine runs one simulation. Build it with New, run it with Run.
type Engine struct {
	cfg         Config
	clock       *berth.ManualClock
	s           Scheduler
	q           events
	nodes       []*node
	byPhase     []*node // the nodes in heartbeat order within an interval
	nodeByID    map[string]*node
	apps        []*app
	appByID     map[string]*app
	ctrs        map[queue.ContainerID]*ctr
	pending     map[capKey]int
	pendingRes  berth.Resource
	cluster     berth.Resource
	used        capKey         // allocated on live nodes
	sampleEvery berth.Duration // the current sampling period
	liveNodes   int
	open        int // jobs not finished
	run         metrics.Run
	// Counted from the components' events (observe.go): live
	// containers, applications in the scheduler, containers preempted,
	// lost and marked.
	running   int
	runApps   int
	preempted int
	lost      int
	marked    int
	kills     []metrics.Event // the current preemption round's, per queue
	// Per plan queue: the follower's last run found it over-committed,
	// and the plan's resources when it last went on the timeline.
	overCommitted map[string]bool
	planRes       map[string]berth.Resource
	// Per reported queue (run.Queues): containers marked and preempted so
	// far; queueIdx finds a queue's index, reservation queues counting
	// for their plan.
	qMarked, qPreempted []int
	queueIdx            map[string]int
	waits               []map[queue.Reason]int // per reported queue; nil: not recorded
	plans               []*plan.Plan
	resIdx              map[string]int // reservation id → run.Reservations index
	log                 *slog.Logger
	scratch             []queue.Ask
	futile              []*node
	epoch               uint64     // counts changes that can make a heartbeat useful
	memoEpoch           uint64     // the epoch memo belongs to
	memoTime            berth.Time // when the memo began: it holds for one heartbeat interval
	memo                []capKey   // free space of nodes whose heartbeat was futile in memoEpoch
	localApps           int        // applications with host or rack asks
	wakeAt              berth.Time // a wake event is pending at this time (−1: none)
	lastEnt             map[string]map[string]queue.Entitlement
	lastChange          berth.Time
	sweeping            bool // a sweep of parked nodes is under way
	work                int  // events queued that make progress by themselves (eventKind.work)
}

func (e *Engine) push(ev event) {
	if ev.kind.work() {
		e.work++
	}
	e.q.push(ev)
}

// Run runs the simulation to its end and returns what it recorded. An
// error means a component refused something the engine cannot go past
// (adding the initial nodes, for instance); refusals it can go past are
// logged and counted.
func (e *Engine) Run() (*metrics.Run, error) {
	if err := e.start(); err != nil {
		return nil, err
	}
	var now berth.Time
	for e.q.len() > 0 {
		ev := e.q.pop()
		if e.cfg.End > 0 && ev.at > e.cfg.End {
			now = e.cfg.End
			break
		}
		if e.open == 0 && e.cfg.End == 0 {
			break
		}
		if e.work == 0 && ev.at-e.lastChange > e.cfg.StallTimeout {
			e.stall()
			break
		}
		if ev.kind.work() {
			e.work--
			e.lastChange = ev.at // its effects may come a heartbeat later
		}
		now = ev.at
		e.clock.Set(now)
		e.run.Events++
		if e.cfg.Progress != nil && e.run.Events%e.cfg.ProgressEvery == 0 {
			e.cfg.Progress(now, e.run.Events)
		}
		if err := e.dispatch(ev, now); err != nil {
			return nil, err
		}
	}
	e.clock.Set(now)
	e.sample(now)
	e.run.End = now
	e.run.Waits = e.waitsOf()
	for i := range e.run.Jobs {
		if e.run.Jobs[i].Finished == 0 {
			e.run.Unfinished++
		}
	}
	return &e.run, nil
}

// start brings the nodes up at time 0 and queues the first events: each
// job's submission (or its reservation), the node events, and the first
// tick of each periodic component.
func (e *Engine) start() error {
	e.clock.Set(0)
	for _, n := range e.nodes {
		if err := e.nodeUp(n, 0); err != nil {
			return err
		}
	}
	for i, a := range e.apps {
		kind, at := evSubmit, a.submitAt
		if a.job.Deadline > 0 && a.job.AMType == trace.AMMapReduce && e.cfg.Reservations != nil {
			if p, ok := e.planOf(a.job.Queue); ok {
				a.planQueue = p
				kind, at = evReserve, a.job.Start
			}
		}
		e.push(event{at: at, kind: kind, i: int32(i)})
	}
	e.open = len(e.apps)
	for i, ne := range e.cfg.NodeEvents {
		k := evNodeUp
		if ne.Down {
			k = evNodeDown
		}
		e.push(event{at: ne.At, kind: k, i: int32(e.nodeByID[ne.Node].idx), j: int32(i)})
	}
	if e.cfg.Follower != nil {
		e.push(event{at: 0, kind: evFollower})
	}
	if e.cfg.Preemptor != nil {
		e.push(event{at: e.cfg.PreemptionInterval, kind: evPreempt})
	}
	if e.cfg.Rounds != nil {
		e.push(event{at: e.roundEvery(), kind: evRound})
	}
	if e.cfg.Lifetimes != nil {
		e.push(event{at: e.lifetimeEvery(), kind: evLifetime})
	}
	e.push(event{at: 0, kind: evSample})
	return nil
}

// stall marks the run stalled since the last change.
func (e *Engine) stall() {
	e.run.Stalled, e.run.StalledSince = true, e.lastChange
	e.record(metrics.Event{Time: e.lastChange, Kind: metrics.Stalled, Containers: e.open,
		Detail: fmt.Sprintf("nothing could progress: no input or task end to come and nothing changed for %s, with %d jobs unfinished",
			time.Duration(e.cfg.StallTimeout)*time.Millisecond, e.open)})
}

// dispatch hands an event to its handler; periodic events queue their
// next tick.
func (e *Engine) dispatch(ev event, now berth.Time) error {
	switch ev.kind {
	case evSubmit:
		a := e.apps[ev.i]
		e.submit(a, now, a.resID)
	case evReserve:
		e.reserve(e.apps[ev.i], now)
	case evHeartbeat:
		return e.heartbeat(e.nodes[ev.i], ev.gen, now)
	case evWake:
		e.wake(now)
	case evSweep:
		e.sweep(now)
	case evDone:
		e.containerDone(ev.c, now)
	case evAsk:
		a := e.apps[ev.i]
		if a.gen == ev.gen && a.state == running {
			e.addPending(a, []int{int(ev.j)}, true)
			e.ask(a)
		}
	case evStreamEnd:
		a := e.apps[ev.i]
		if a.gen == ev.gen && a.state == running {
			e.finish(a, now)
		}
	case evFollower:
		e.followerRound(now)
		e.push(event{at: now + e.cfg.FollowerInterval, kind: evFollower})
	case evPreempt:
		e.preemptRound(now)
		e.push(event{at: now + e.cfg.PreemptionInterval, kind: evPreempt})
	case evRound:
		e.round(now)
		e.push(event{at: now + e.roundEvery(), kind: evRound})
	case evLifetime:
		e.expire(now)
		e.push(event{at: now + e.lifetimeEvery(), kind: evLifetime})
	case evSample:
		e.sampleTick(now)
	case evNodeDown:
		e.nodeDown(e.nodes[ev.i], now)
	case evNodeUp:
		e.nodeReturned(e.nodes[ev.i], now)
	}
	return nil
}

// preemptRound runs the preemption policy and hands the containers it
// ended back to their applications.
func (e *Engine) preemptRound(now berth.Time) {
	ended, err := e.cfg.Preemptor.Round(now)
	if err != nil {
		e.log.Warn("preemption round", "time", now, "err", err)
	}
	e.ended(ended, now)
	e.flushKills()
}

// Scheduler returns the scheduler the engine drives (for tests and hosts
// that inspect it after a run).
func (e *Engine) Scheduler() Scheduler { return e.s }
