package engine

import (
	"cmp"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/examples/sim/metrics"
	"github.com/berthsched/berth/examples/sim/trace"
	"github.com/berthsched/berth/follower"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/queue"
)

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

// New validates cfg and prepares the run; nothing runs yet.
func New(cfg Config) (*Engine, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	e := &Engine{cfg: cfg, clock: cfg.Clock, s: cfg.Scheduler, nodeByID: map[string]*node{}, appByID: map[string]*app{},
		ctrs: map[queue.ContainerID]*ctr{}, pending: map[capKey]int{}, resIdx: map[string]int{}, log: cfg.Logger,
		wakeAt: -1, lastEnt: map[string]map[string]queue.Entitlement{}, overCommitted: map[string]bool{}, planRes: map[string]berth.Resource{}}
	e.sampleEvery = cfg.SampleInterval
	if e.sampleEvery == 0 {
		e.sampleEvery = firstSamplePeriod(cfg)
	}
	if e.log == nil {
		e.log = slog.New(slog.DiscardHandler)
	}
	if err := e.addNodes(); err != nil {
		return nil, err
	}
	e.addQueues()
	if err := e.addJobs(); err != nil {
		return nil, err
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

// check validates the configuration and fills in its defaults.
func (cfg *Config) check() error {
	if cfg.Clock == nil {
		return &ConfigError{"Clock", "required"}
	}
	if cfg.Scheduler == nil || cfg.Stats == nil {
		return &ConfigError{"Scheduler", "a scheduler and its stats are required"}
	}
	if len(cfg.Nodes) == 0 {
		return &ConfigError{"Nodes", "the cluster has no nodes"}
	}
	for _, d := range []struct {
		p    *berth.Duration
		v    berth.Duration
		name string
	}{{&cfg.NodeHeartbeat, 1000, "NodeHeartbeat"}, {&cfg.FollowerInterval, 1000, "FollowerInterval"},
		{&cfg.PreemptionInterval, 3000, "PreemptionInterval"}, {&cfg.StallTimeout, 3_600_000, "StallTimeout"}} {
		if *d.p == 0 {
			*d.p = d.v
		}
		if *d.p < 0 {
			return &ConfigError{d.name, fmt.Sprintf("must be positive, got %d", *d.p)}
		}
	}
	if cfg.SampleInterval < 0 {
		return &ConfigError{"SampleInterval", fmt.Sprintf("must not be negative, got %d", cfg.SampleInterval)}
	}
	if cfg.SampleBudget < 0 {
		return &ConfigError{"SampleBudget", fmt.Sprintf("must not be negative, got %d", cfg.SampleBudget)}
	}
	if cfg.SampleBudget == 0 {
		cfg.SampleBudget = 1000
	}
	if cfg.ProgressEvery == 0 {
		cfg.ProgressEvery = 1 << 16
	}
	if (cfg.Reservations == nil) != (cfg.Follower == nil) {
		return &ConfigError{"Follower", "a reservation system needs a plan follower and the reverse"}
	}
	if cfg.IdleBackoff < 0 {
		return &ConfigError{"IdleBackoff", "must not be negative"}
	}
	return nil
}

// addNodes adds the cluster's nodes, down until Run brings them up, each
// with its heartbeat phase drawn from the seed, and checks that the node
// events name them.
func (e *Engine) addNodes() error {
	phases := rand.New(rand.NewPCG(uint64(e.cfg.Seed), phaseStream))
	for i, n := range e.cfg.Nodes {
		if _, dup := e.nodeByID[n.ID]; dup {
			return &ConfigError{"Nodes", "duplicate node " + n.ID}
		}
		nd := &node{spec: queue.NodeSpec{ID: n.ID, Rack: n.Rack, Capability: n.Resource, Label: n.Partition()}, idx: i,
			phase: phases.Int64N(e.cfg.NodeHeartbeat), down: true, lastBeat: -1}
		e.nodes = append(e.nodes, nd)
		e.nodeByID[n.ID] = nd
	}
	e.byPhase = slices.Clone(e.nodes)
	slices.SortStableFunc(e.byPhase, func(a, b *node) int { return cmp.Compare(a.phase, b.phase) })
	for i, ne := range e.cfg.NodeEvents {
		if _, ok := e.nodeByID[ne.Node]; !ok {
			return &ConfigError{fmt.Sprintf("NodeEvents[%d].Node", i), "unknown node " + ne.Node}
		}
		if ne.At < 0 {
			return &ConfigError{fmt.Sprintf("NodeEvents[%d].At", i), "negative time"}
		}
	}
	return nil
}

// addQueues names the run's plans and reported queues.
func (e *Engine) addQueues() {
	if e.cfg.Reservations != nil {
		e.plans = e.cfg.Reservations.Plans()
		for _, p := range e.plans {
			e.run.Plans = append(e.run.Plans, p.QueueName())
		}
	}
	e.run.Scheduler = e.cfg.SchedulerName
	e.run.Queues = e.cfg.Stats.Queues()
	e.qMarked, e.qPreempted = make([]int, len(e.run.Queues)), make([]int, len(e.run.Queues))
	e.queueIdx = make(map[string]int, len(e.run.Queues))
	for i, q := range e.run.Queues {
		e.queueIdx[q] = i
	}
}

// addJobs prepares an application and a record per job, each submitted at
// its trace start plus an offset drawn from the seed (unless
// ExactSubmissions).
func (e *Engine) addJobs() error {
	offsets := rand.New(rand.NewPCG(uint64(e.cfg.Seed), submitStream))
	e.run.Jobs = make([]metrics.Job, len(e.cfg.Jobs))
	seen := map[string]bool{}
	for i := range e.cfg.Jobs {
		j := &e.cfg.Jobs[i]
		if seen[j.ID] {
			return &ConfigError{fmt.Sprintf("Jobs[%d].ID", i), "duplicate job id " + j.ID}
		}
		seen[j.ID] = true
		if len(j.Tasks) == 0 {
			return &ConfigError{fmt.Sprintf("Jobs[%d].Tasks", i), "a job needs tasks"}
		}
		e.run.Jobs[i] = metrics.Job{ID: j.ID, Queue: j.Queue, User: j.User, AMType: j.AMType,
			TraceStart: j.Start, TraceEnd: j.End, Deadline: j.Deadline}
		a := newApp(j, &e.run.Jobs[i], i)
		if !e.cfg.ExactSubmissions {
			a.submitAt += offsets.Int64N(e.cfg.NodeHeartbeat)
		}
		e.apps = append(e.apps, a)
	}
	return nil
}

// newApp is job j's application before it is submitted: its asks per
// priority, each at the largest of its tasks' sizes, in priority order,
// and its maps and reduces to run.
func newApp(j *trace.Job, rec *metrics.Job, i int) *app {
	a := &app{job: j, rec: rec, idx: i, id: j.ID, done: make([]bool, len(j.Tasks)),
		tgen: make([]uint32, len(j.Tasks)), tflag: make([]uint8, len(j.Tasks)), submitAt: j.Start}
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
	return a
}
