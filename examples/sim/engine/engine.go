package engine

import (
	"cmp"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/capacity"
	"github.com/berthsched/berth/examples/sim/metrics"
	"github.com/berthsched/berth/examples/sim/trace"
	"github.com/berthsched/berth/fair"
	"github.com/berthsched/berth/follower"
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

// Config is one simulation. The scheduler, the reservation system, the
// follower and the preemptor must all read Clock, which the engine moves.
// The engine observes the scheduler, the reservation system's plans and
// the preemptor (an ObservedPreemptor): New replaces their observers with
// its own, which record the run's metrics.
type Config struct {
	// Clock is the virtual clock every component reads. Required.
	Clock *berth.ManualClock
	// Scheduler and Stats (for the samples). Required.
	Scheduler Scheduler
	Stats     Stats
	// SchedulerName labels the run ("capacity", "fair").
	SchedulerName string
	// Nodes is the cluster at time 0; Jobs the trace.
	Nodes []trace.Node
	Jobs  []trace.Job
	// NodeHeartbeat is yarn.sls.nm.heartbeat.interval.ms (default 1000).
	NodeHeartbeat berth.Duration
	// Seed draws each node's heartbeat phase, its first heartbeat in
	// [0, NodeHeartbeat), as SLS's NMRunner draws random.nextInt(interval)
	// per node, and each job's submission offset (ExactSubmissions): the
	// same seed gives the same run.
	Seed int64
	// ExactSubmissions submits every application at its trace time. By
	// default each is submitted at an offset drawn per job from Seed
	// within one NodeHeartbeat after it: SLS rebases each AM simulator's
	// clock when SLSRunner schedules it, so a job's submission falls at an
	// arbitrary point of the nodes' heartbeat cycle. Without the offset,
	// jobs submitted on the same instant of the cycle (SYNTH's whole
	// seconds) all meet the same node's heartbeat first and their AMs pile
	// up on it. The wait and runtime of a job count from its submission.
	ExactSubmissions bool
	// Reservations, when set, receives the deadline jobs' reservation
	// requests; Follower publishes its plans at FollowerInterval
	// (yarn.resourcemanager.reservation-system.planfollower.time-step,
	// default 1000). Nil runs deadline jobs as ordinary jobs.
	Reservations     *plan.System
	Follower         *follower.Follower
	FollowerInterval berth.Duration
	// Preemptor runs at PreemptionInterval
	// (yarn.resourcemanager.monitor.capacity.preemption.monitoring_interval,
	// default 3000); nil is off.
	Preemptor          Preemptor
	PreemptionInterval berth.Duration
	// Rounds, when set, allocates in asynchronous rounds every
	// RoundInterval (schedule-asynchronously.scheduling-interval-ms; at
	// least 1 ms).
	Rounds        Rounder
	RoundInterval berth.Duration
	// Lifetimes, when set, kills applications past their lifetime every
	// LifetimeInterval (yarn.resourcemanager.application-timeouts.
	// monitor.interval-ms, 3000).
	Lifetimes        Expirer
	LifetimeInterval berth.Duration
	// NodeEvents are node losses and returns.
	NodeEvents []NodeEvent
	// SampleInterval, when positive, samples the metrics at this fixed
	// period (SLS's yarn.sls.metrics.record.interval.ms). Zero samples
	// adaptively: every 1,000 ms (SLS's default), or the shortest
	// doubling of it that keeps the inputs' span under 2 × SampleBudget
	// samples, and whenever the run holds 2 × SampleBudget samples every
	// other one is dropped and the period doubles: a four-minute run
	// keeps a point a second, a day between SampleBudget and twice as
	// many, evenly spaced.
	SampleInterval berth.Duration
	// SampleBudget bounds the adaptive samples (default 1,000: between
	// 1,000 and 2,000 points once the run is long enough).
	SampleBudget int
	// End stops the run at this time; 0 runs until every job finished.
	End berth.Time
	// StallTimeout stops a run that cannot progress: jobs are unfinished,
	// no input or container event is to come (no submission, node event,
	// delayed ask or task end), and nothing changed (no allocation,
	// release, ask, application or node event) for this long, e.g. jobs a
	// queue will never run or asks no node can hold. The run is then
	// marked metrics.Run.Stalled and its jobs unfinished. Default 1 h
	// (the grace covers what changes with time alone: preemption
	// timeouts, delay scheduling, reservations).
	StallTimeout berth.Duration
	// Progress, when set, is called every ProgressEvery events (default
	// 65,536) with the simulated time and the events processed.
	Progress      func(now berth.Time, events uint64)
	ProgressEvery uint64
	// IdleBackoff, when positive, elides futile heartbeats: a node whose
	// heartbeat neither reported nor allocated anything waits until
	// something in the cluster changes (an allocation, a release, an ask,
	// an application, a node, an entitlement) or IdleBackoff heartbeat
	// intervals pass. Decisions that depend on time only are unchanged;
	// delay scheduling sees fewer missed opportunities, so locality
	// relaxes later than in YARN. 0 delivers every heartbeat a node with
	// room for a pending ask would send (exact).
	IdleBackoff int
	// ExactHeartbeats delivers every heartbeat of a node with room for a
	// pending ask. By default a heartbeat is skipped when, since the last
	// change in the cluster and less than one heartbeat interval ago, a
	// node with at least as much room heartbeat without effect (only while no application asks for hosts or racks,
	// where heartbeats of different nodes differ): the scheduler would
	// answer the same, so outputs do not change, only the run is faster.
	ExactHeartbeats bool
	// NoWaitReasons leaves the scheduler's reasons unrecorded: by default
	// a scheduler that records why its walk skips applications (a
	// WaitRecorder) records them for every application, and the run
	// counts them per queue (metrics.Run.Waits), at a few percent of the
	// run's time.
	NoWaitReasons bool
	// Logger receives warnings (refused calls the run goes past); nil
	// logs nothing.
	Logger *slog.Logger
}

// ConfigError is a Config the engine refuses before running.
type ConfigError struct {
	Field, Reason string
}

func (e *ConfigError) Error() string { return "engine config: " + e.Field + ": " + e.Reason }

// Unwrap makes it an invalid argument.
func (e *ConfigError) Unwrap() error { return berth.ErrInvalidArgument }

// phaseStream separates the phase draws from any other stream of the seed.
const phaseStream = 0x4e4d_5048_4153_4553 // "NMPHASES"

// submitStream draws the jobs' submission offsets.
const submitStream = 0x5355_424d_4954_4a54 // "SUBMITJT"

// capKey is a container size, as a comparable key.
type capKey struct{ mem, vc int64 }

func keyOf(r berth.Resource) capKey { return capKey{r.Memory, r.VCores} }

type node struct {
	spec      queue.NodeSpec
	idx       int
	phase     berth.Time
	down      bool
	armed     bool
	armedAt   berth.Time
	gen       uint32 // heartbeat events of older generations are stale
	parked    bool
	futile    bool // parked after a heartbeat that changed nothing
	lastBeat  berth.Time
	free      capKey
	completed []queue.ContainerID
}

type ctr struct {
	id       queue.ContainerID
	app      *app
	node     *node
	task     int // −1 for the AM container
	res      capKey
	finished bool // its work ended (reported at the node's next heartbeat)
	gone     bool // killed, preempted, lost or reported
}

type appState uint8

const (
	waiting appState = iota
	submitted
	running
	finished
)

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

// New validates cfg and prepares the run; nothing runs yet.
func New(cfg Config) (*Engine, error) {
	if cfg.Clock == nil {
		return nil, &ConfigError{"Clock", "required"}
	}
	if cfg.Scheduler == nil || cfg.Stats == nil {
		return nil, &ConfigError{"Scheduler", "a scheduler and its stats are required"}
	}
	if len(cfg.Nodes) == 0 {
		return nil, &ConfigError{"Nodes", "the cluster has no nodes"}
	}
	def := func(d *berth.Duration, v berth.Duration, name string) error {
		if *d == 0 {
			*d = v
		}
		if *d < 0 {
			return &ConfigError{name, fmt.Sprintf("must be positive, got %d", *d)}
		}
		return nil
	}
	for _, d := range []struct {
		p    *berth.Duration
		v    berth.Duration
		name string
	}{{&cfg.NodeHeartbeat, 1000, "NodeHeartbeat"}, {&cfg.FollowerInterval, 1000, "FollowerInterval"},
		{&cfg.PreemptionInterval, 3000, "PreemptionInterval"}, {&cfg.StallTimeout, 3_600_000, "StallTimeout"}} {
		if err := def(d.p, d.v, d.name); err != nil {
			return nil, err
		}
	}
	if cfg.SampleInterval < 0 {
		return nil, &ConfigError{"SampleInterval", fmt.Sprintf("must not be negative, got %d", cfg.SampleInterval)}
	}
	if cfg.SampleBudget < 0 {
		return nil, &ConfigError{"SampleBudget", fmt.Sprintf("must not be negative, got %d", cfg.SampleBudget)}
	}
	if cfg.SampleBudget == 0 {
		cfg.SampleBudget = 1000
	}
	if cfg.ProgressEvery == 0 {
		cfg.ProgressEvery = 1 << 16
	}
	if (cfg.Reservations == nil) != (cfg.Follower == nil) {
		return nil, &ConfigError{"Follower", "a reservation system needs a plan follower and the reverse"}
	}
	e := &Engine{cfg: cfg, clock: cfg.Clock, s: cfg.Scheduler, nodeByID: map[string]*node{}, appByID: map[string]*app{},
		ctrs: map[queue.ContainerID]*ctr{}, pending: map[capKey]int{}, resIdx: map[string]int{}, log: cfg.Logger,
		wakeAt: -1, lastEnt: map[string]map[string]queue.Entitlement{}, overCommitted: map[string]bool{}, planRes: map[string]berth.Resource{}}
	if cfg.IdleBackoff < 0 {
		return nil, &ConfigError{"IdleBackoff", "must not be negative"}
	}
	e.sampleEvery = cfg.SampleInterval
	if e.sampleEvery == 0 {
		e.sampleEvery = firstSamplePeriod(cfg)
	}
	if e.log == nil {
		e.log = slog.New(slog.DiscardHandler)
	}
	phases := rand.New(rand.NewPCG(uint64(cfg.Seed), phaseStream))
	offsets := rand.New(rand.NewPCG(uint64(cfg.Seed), submitStream))
	for i, n := range cfg.Nodes {
		if _, dup := e.nodeByID[n.ID]; dup {
			return nil, &ConfigError{"Nodes", "duplicate node " + n.ID}
		}
		nd := &node{spec: queue.NodeSpec{ID: n.ID, Rack: n.Rack, Capability: n.Resource, Label: n.Partition()}, idx: i,
			phase: phases.Int64N(cfg.NodeHeartbeat), down: true, lastBeat: -1}
		e.nodes = append(e.nodes, nd)
		e.nodeByID[n.ID] = nd
	}
	e.byPhase = slices.Clone(e.nodes)
	slices.SortStableFunc(e.byPhase, func(a, b *node) int { return cmp.Compare(a.phase, b.phase) })
	for i, ne := range cfg.NodeEvents {
		if _, ok := e.nodeByID[ne.Node]; !ok {
			return nil, &ConfigError{fmt.Sprintf("NodeEvents[%d].Node", i), "unknown node " + ne.Node}
		}
		if ne.At < 0 {
			return nil, &ConfigError{fmt.Sprintf("NodeEvents[%d].At", i), "negative time"}
		}
	}
	if cfg.Reservations != nil {
		e.plans = cfg.Reservations.Plans()
		for _, p := range e.plans {
			e.run.Plans = append(e.run.Plans, p.QueueName())
		}
	}
	e.run.Scheduler = cfg.SchedulerName
	e.run.Queues = cfg.Stats.Queues()
	e.qMarked, e.qPreempted = make([]int, len(e.run.Queues)), make([]int, len(e.run.Queues))
	e.queueIdx = make(map[string]int, len(e.run.Queues))
	for i, q := range e.run.Queues {
		e.queueIdx[q] = i
	}
	e.run.Jobs = make([]metrics.Job, len(cfg.Jobs))
	seen := map[string]bool{}
	for i := range cfg.Jobs {
		j := &cfg.Jobs[i]
		if seen[j.ID] {
			return nil, &ConfigError{fmt.Sprintf("Jobs[%d].ID", i), "duplicate job id " + j.ID}
		}
		seen[j.ID] = true
		if len(j.Tasks) == 0 {
			return nil, &ConfigError{fmt.Sprintf("Jobs[%d].Tasks", i), "a job needs tasks"}
		}
		e.run.Jobs[i] = metrics.Job{ID: j.ID, Queue: j.Queue, User: j.User, AMType: j.AMType,
			TraceStart: j.Start, TraceEnd: j.End, Deadline: j.Deadline}
		a := &app{job: j, rec: &e.run.Jobs[i], idx: i, id: j.ID, done: make([]bool, len(j.Tasks)),
			tgen: make([]uint32, len(j.Tasks)), tflag: make([]uint8, len(j.Tasks))}
		for _, t := range j.Tasks {
			if q := a.asksOf(t.Priority); q != nil {
				q.capab = berth.ComponentwiseMax(q.capab, t.Resource)
			} else {
				q = newPrioAsks(t.Priority)
				q.capab = t.Resource
				a.asks = append(a.asks, q)
			}
			if t.Type == trace.TypeReduce {
				a.reducesLeft++
			} else {
				a.mapsLeft++
			}
		}
		slices.SortFunc(a.asks, func(x, y *prioAsks) int { return int(x.prio) - int(y.prio) })
		a.submitAt = j.Start
		if !cfg.ExactSubmissions {
			a.submitAt += offsets.Int64N(cfg.NodeHeartbeat)
		}
		e.apps = append(e.apps, a)
	}
	e.observe()
	if wr, ok := cfg.Scheduler.(WaitRecorder); ok && !cfg.NoWaitReasons {
		if err := wr.RecordApp("", 1); err != nil {
			return nil, err
		}
		e.waits = make([]map[queue.Reason]int, len(e.run.Queues))
	}
	return e, nil
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
	e.clock.Set(0)
	for _, n := range e.nodes {
		if err := e.nodeUp(n, 0); err != nil {
			return nil, err
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
			e.run.Stalled, e.run.StalledSince = true, e.lastChange
			e.record(metrics.Event{Time: e.lastChange, Kind: metrics.Stalled, Containers: e.open,
				Detail: fmt.Sprintf("nothing could progress: no input or task end to come and nothing changed for %s, with %d jobs unfinished",
					time.Duration(e.cfg.StallTimeout)*time.Millisecond, e.open)})
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
		ended, err := e.cfg.Preemptor.Round(now)
		if err != nil {
			e.log.Warn("preemption round", "time", now, "err", err)
		}
		e.ended(ended, now)
		e.flushKills()
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
		n := e.nodes[ev.i]
		if !n.down {
			e.bump()
			// What ran on the node goes with it.
			e.used.mem -= n.spec.Capability.Memory - n.free.mem
			e.used.vc -= n.spec.Capability.VCores - n.free.vc
			n.down = true
			n.armed = false
			e.liveNodes--
			e.cluster = e.cluster.Sub(n.spec.Capability)
			n.completed = n.completed[:0]
			ended, err := e.s.RemoveNode(n.spec.ID)
			if err != nil {
				e.log.Warn("remove node", "node", n.spec.ID, "err", err)
			}
			e.nodeLost(n, ended, now)
			e.ended(ended, now)
		}
	case evNodeUp:
		if n := e.nodes[ev.i]; n.down {
			if err := e.nodeUp(n, now); err != nil {
				e.log.Warn("add node", "node", n.spec.ID, "err", err)
			} else {
				e.record(metrics.Event{Time: now, Kind: metrics.NodeReturned, Node: n.spec.ID, Rack: n.spec.Rack, Resource: n.spec.Capability})
			}
		}
	}
	return nil
}

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

// ---- nodes

func (e *Engine) nodeUp(n *node, now berth.Time) error {
	if err := e.s.AddNode(n.spec); err != nil {
		return fmt.Errorf("node %s: %w", n.spec.ID, err)
	}
	n.down = false
	e.bump()
	n.free = keyOf(n.spec.Capability)
	e.liveNodes++
	e.cluster = e.cluster.Add(n.spec.Capability)
	e.arm(n, now)
	return nil
}

// arm schedules the node's next heartbeat at its phase, at or after t.
func (e *Engine) arm(n *node, t berth.Time) {
	if n.down {
		return
	}
	iv := e.cfg.NodeHeartbeat
	k := (t - n.phase + iv - 1) / iv
	if t <= n.phase {
		k = 0
	}
	at := n.phase + k*iv
	if n.armed && n.armedAt <= at {
		return
	}
	n.armed, n.parked, n.futile = true, false, false
	n.armedAt = at
	n.gen++
	e.push(event{at: at, kind: evHeartbeat, i: int32(n.idx), gen: n.gen})
}

// bump records a change that may make a futile heartbeat useful again:
// the nodes parked after one are woken (once per instant).
func (e *Engine) bump() {
	e.epoch++
	e.lastChange = e.clock.Now()
	if len(e.futile) == 0 || e.wakeAt >= 0 {
		return
	}
	e.wakeAt = e.clock.Now()
	e.push(event{at: e.wakeAt, kind: evWake})
}

func (e *Engine) wake(now berth.Time) {
	e.wakeAt = -1
	for _, n := range e.futile {
		if n.futile && !n.down {
			n.futile = false
			if e.fits(n.free) {
				e.arm(n, now+1)
			}
		}
	}
	e.futile = e.futile[:0]
}

// dominated tells whether a heartbeat of a node with this much room is
// known to be futile: in the current epoch a node with at least as much
// room heartbeat without effect, less than a heartbeat interval ago (a
// scheduler may act on time alone, as the fair scheduler's periodic
// update does). Locality asks make heartbeats of
// different nodes differ (and count missed opportunities), so then every
// heartbeat is delivered.
func (e *Engine) dominated(free capKey) bool {
	if e.memoEpoch != e.epoch || e.localApps > 0 || e.cfg.ExactHeartbeats || e.clock.Now()-e.memoTime >= e.cfg.NodeHeartbeat {
		return false
	}
	for _, m := range e.memo {
		if free.mem <= m.mem && free.vc <= m.vc {
			return true
		}
	}
	return false
}

// startSweep wakes the parked nodes one at a time, in the order their
// heartbeats come: each is armed at its next heartbeat and the sweep
// resumes after it, until no parked node has room for a pending ask. The
// scheduler sees the same heartbeats, in the same order, as if every
// parked node had been heartbeating, minus those that would have come
// after the asks were served; waking them all would cost an event per
// node for every new kind of ask.
func (e *Engine) startSweep() {
	if e.sweeping {
		return
	}
	e.sweeping = true
	e.push(event{at: e.clock.Now(), kind: evSweep})
}

func (e *Engine) sweep(now berth.Time) {
	n := len(e.byPhase)
	off := now % e.cfg.NodeHeartbeat
	i0, _ := slices.BinarySearchFunc(e.byPhase, off, func(nd *node, t berth.Time) int { return cmp.Compare(nd.phase, t) })
	var last *node // a node that heartbeat at now comes last, an interval on
	for k := range n {
		nd := e.byPhase[(i0+k)%n]
		if nd.parked && !nd.down && !nd.armed && e.fits(nd.free) {
			if nd.lastBeat >= now {
				if last == nil {
					last = nd
				}
				continue
			}
			e.arm(nd, now)
			e.push(event{at: nd.armedAt, kind: evSweep})
			return
		}
	}
	if last != nil {
		e.arm(last, now+1)
		e.push(event{at: last.armedAt, kind: evSweep})
		return
	}
	e.sweeping = false
}

// fits tells whether some pending ask fits in free.
func (e *Engine) fits(free capKey) bool {
	for k, c := range e.pending {
		if c > 0 && k.mem <= free.mem && k.vc <= free.vc {
			return true
		}
	}
	return false
}

// heartbeat delivers one node update. A node stays on its heartbeat
// schedule while it has completions to report or room for a pending ask;
// otherwise it parks and is woken by a completion, a new kind of ask or a
// kill on it: a heartbeat that can neither report nor allocate changes
// nothing, so eliding it keeps the run exact while idle and full nodes
// cost nothing.
func (e *Engine) heartbeat(n *node, gen uint32, now berth.Time) error {
	if n.down || !n.armed || gen != n.gen {
		return nil
	}
	n.armed = false
	n.lastBeat = now
	completed := n.completed
	n.completed = nil
	if len(completed) == 0 && e.dominated(n.free) {
		// Nothing changed since a node with at least this much room
		// heartbeat in vain: this one would too.
		e.run.SkippedHeartbeats++
		if e.fits(n.free) {
			e.arm(n, now+1)
		} else {
			n.parked = true
		}
		return nil
	}
	allocs, err := e.s.Heartbeat(n.spec.ID, completed)
	if err != nil {
		e.log.Warn("heartbeat", "node", n.spec.ID, "err", err)
	}
	// The allocations first: they served the asks as they were before
	// this heartbeat, and an AM re-asking after a completion must count
	// them (its ask is a total).
	for i := range allocs {
		// With multi-node placement a heartbeat may allocate on any node.
		e.allocated(&allocs[i], e.nodeByID[allocs[i].Node], now)
	}
	for _, id := range completed {
		e.reported(id, now)
	}
	e.run.Heartbeats++
	idle := len(allocs) == 0 && len(completed) == 0
	if idle {
		e.run.IdleHeartbeats++
		if e.memoEpoch != e.epoch {
			e.memoEpoch, e.memo, e.memoTime = e.epoch, e.memo[:0], now
		}
		if len(e.memo) < 8 {
			e.memo = append(e.memo, n.free)
		}
	}
	switch {
	case !e.fits(n.free):
		n.parked = true
	case idle && e.cfg.IdleBackoff > 0:
		e.arm(n, now+berth.Duration(e.cfg.IdleBackoff)*e.cfg.NodeHeartbeat)
		n.futile = true
		e.futile = append(e.futile, n)
	default:
		e.arm(n, now+1)
	}
	return nil
}

// ---- applications

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

// ---- containers

func (e *Engine) allocated(al *queue.Allocation, n *node, now berth.Time) {
	a := e.appByIDOrNil(al.App)
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

func (e *Engine) appByIDOrNil(id string) *app {
	if a, ok := e.appByID[id]; ok {
		return a
	}
	return nil
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

// ---- reservations

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
		if a := e.appByIDOrNil(app); a != nil && a.state != finished {
			e.clearPending(a)
			a.state = finished
			e.open--
		}
	}
	e.ended(r.Ended, now)
}

// ---- metrics

// firstSamplePeriod is where adaptive sampling starts: a second, doubled
// while the inputs' last time (the latest submission, trace end or node
// event, or Config.End) would take 2 × SampleBudget samples, so a long
// run does not sample densely only to thin the samples out later.
func firstSamplePeriod(cfg Config) berth.Duration {
	horizon := cfg.End
	if horizon == 0 {
		for _, j := range cfg.Jobs {
			horizon = max(horizon, j.Start, j.End)
		}
		for _, ne := range cfg.NodeEvents {
			horizon = max(horizon, ne.At)
		}
	}
	every := berth.Duration(1000)
	for horizon/every >= berth.Duration(2*cfg.SampleBudget) {
		every *= 2
	}
	return every
}

// sampleTick records a sample at the current period's grid points and
// schedules the next; adaptively, a full budget halves the samples and
// doubles the period (a pending tick off the new grid records nothing).
func (e *Engine) sampleTick(now berth.Time) {
	if now%e.sampleEvery == 0 {
		e.sample(now)
		if e.cfg.SampleInterval == 0 && len(e.run.Samples) >= 2*e.cfg.SampleBudget {
			e.sampleEvery *= 2
			kept := e.run.Samples[:0]
			for _, s := range e.run.Samples {
				if s.Time%e.sampleEvery == 0 {
					kept = append(kept, s)
				}
			}
			clear(e.run.Samples[len(kept):])
			e.run.Samples = kept
		}
	}
	e.push(event{at: (now/e.sampleEvery + 1) * e.sampleEvery, kind: evSample})
}

func (e *Engine) sample(now berth.Time) {
	s := metrics.Sample{Time: now, Capacity: e.cluster, Pending: e.pendingRes, Nodes: e.liveNodes,
		RunningApps: e.runApps, RunningContainers: e.running, Preempted: e.preempted, Lost: e.lost, Marked: e.marked,
		Queues: make([]metrics.QueueSample, len(e.run.Queues))}
	e.cfg.Stats.Read(s.Queues)
	for i := range s.Queues {
		s.Queues[i].Marked, s.Queues[i].Preempted = e.qMarked[i], e.qPreempted[i]
	}
	s.Allocated = berth.New(e.used.mem, e.used.vc)
	for _, p := range e.plans {
		s.PlanCapacity = append(s.PlanCapacity, p.Capacity())
		s.PlanCommitted = append(s.PlanCommitted, p.TotalCommitted(now))
	}
	e.run.Samples = append(e.run.Samples, s)
}

// queueOf finds the reported queue a container's queue path counts for:
// itself, or its nearest reported ancestor (a reservation queue counts for
// its plan).
func (e *Engine) queueOf(path string) (int, bool) {
	for {
		if i, ok := e.queueIdx[path]; ok {
			return i, true
		}
		dot := strings.LastIndexByte(path, '.')
		if dot < 0 {
			return 0, false
		}
		path = path[:dot]
	}
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

// Scheduler returns the scheduler the engine drives (for tests and hosts
// that inspect it after a run).
func (e *Engine) Scheduler() Scheduler { return e.s }

// roundEvery is the round interval, at least 1 ms.
// round runs an asynchronous scheduling round while asks are pending.
func (e *Engine) round(now berth.Time) {
	if e.pendingRes.IsZero() {
		return
	}
	allocs, err := e.cfg.Rounds.ScheduleRound()
	if err != nil {
		e.log.Warn("scheduling round", "time", now, "err", err)
	}
	for i := range allocs {
		e.allocated(&allocs[i], e.nodeByID[allocs[i].Node], now)
	}
}

func (e *Engine) roundEvery() berth.Duration { return max(e.cfg.RoundInterval, 1) }

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
		if a := e.appByIDOrNil(id); a != nil && a.state != finished {
			e.bump()
			e.clearPending(a)
			a.state = finished
			a.rec.Expired = now
			e.open--
		}
	}
	e.ended(ended, now)
}
