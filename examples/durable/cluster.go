package durable

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/capacity"
	"github.com/berthsched/berth/examples/rm"
	"github.com/berthsched/berth/fair"
	"github.com/berthsched/berth/follower"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/preempt"
	"github.com/berthsched/berth/queue"
)

// SchedulerKind chooses the queue scheduler of a [Cluster].
type SchedulerKind uint8

// The schedulers.
const (
	Capacity SchedulerKind = 1 // capacity.Scheduler with preempt.Proportional
	Fair     SchedulerKind = 2 // fair.Scheduler with preempt.FairPreemptor
)

// String names the scheduler ("capacity", "fair").
func (k SchedulerKind) String() string {
	switch k {
	case Capacity:
		return "capacity"
	case Fair:
		return "fair"
	}
	return fmt.Sprintf("SchedulerKind(%d)", uint8(k))
}

// PlanSpec is one reservation plan of a [Cluster]: the reservable queue it
// serves and its capacity. Configure, when set, edits the plan's
// configuration (agent, sharing policy, replanner, step, …) before the plan
// is built; it is called for every Cluster built from the Config,
// restores included, so it must build fresh values each time. Nil uses
// YARN's defaults: AlignedPlannerWithGreedy, CapacityOverTimePolicy and
// SimpleCapacityReplanner.
type PlanSpec struct {
	// Queue is the plan queue as the follower names it: the short name
	// under the capacity scheduler ("dedicated"), the full path under the
	// fair scheduler ("root.dedicated").
	Queue     string
	Capacity  berth.Resource
	Configure func(*plan.Config) error
}

// Config is what a [Cluster] is built from. Everything in it is the
// host's, not the journal's: a journal or a snapshot is replayed onto a
// Cluster built from the same Config. The clock is the Cluster's own and
// starts at Start; only [AdvanceClock] commands move it.
type Config struct {
	// Scheduler chooses Capacity (reads CapacityConfig) or Fair (reads
	// FairConfig and FairAllocation).
	Scheduler      SchedulerKind
	CapacityConfig capacity.Config
	// CapacityParse parses every capacity-scheduler.xml of a
	// [ReloadConfig]; its ordering registries also resolve the host's
	// ordering policies when a snapshot is restored.
	CapacityParse capacity.XMLOptions
	FairConfig    fair.Config
	// FairAllocation is the fair-scheduler.xml the fair scheduler starts
	// with (nil: empty); FairParse parses it and every later
	// [ReloadConfig].
	FairAllocation []byte
	FairParse      fair.ParseOptions
	// Plans are the reservation plans; none leaves the reservation system
	// and the follower out ([RunFollower] then does nothing).
	Plans []PlanSpec
	// ClusterTimestamp stamps reservation ids (YARN's RM start time).
	ClusterTimestamp int64
	// Preemption turns the preemption policy on, configured by
	// Proportional (capacity) or FairPreemption (fair);
	// [PreemptionRound] does nothing when it is off.
	Preemption     bool
	Proportional   preempt.ProportionalConfig
	FairPreemption preempt.FairConfig
	// Start is the clock's initial time.
	Start berth.Time
	// Logger receives the follower's diagnostics; nil logs nothing.
	Logger *slog.Logger
}

// scheduler is the part of both schedulers the commands call.
type scheduler interface {
	AddNode(queue.NodeSpec) error
	RemoveNode(string) ([]queue.Ended, error)
	SubmitApp(queue.AppSpec) (string, error)
	Allocate(string, []queue.Ask, []queue.ContainerID) (berth.Resource, error)
	Heartbeat(string, []queue.ContainerID) ([]queue.Allocation, error)
	FinishApp(string) ([]queue.Ended, error)
	KillApp(string) ([]queue.Ended, error)
	KillContainer(queue.ContainerID) (queue.Ended, error)
	MoveApp(appID, target string) (string, error)
}

// Result is what one command's call returned; only the fields of that
// command's kind are set (each command's documentation names them).
type Result struct {
	// Kind is the command's kind; Seq its sequence number (1 for the
	// first command applied since the Cluster's genesis); Now the clock
	// when it was applied.
	Kind Kind
	Seq  uint64
	Now  berth.Time
	// Queue is where SubmitApp placed the application, or MoveApp moved
	// it.
	Queue string
	// Headroom is Allocate's answer.
	Headroom berth.Resource
	// Allocations are the containers a Heartbeat handed out.
	Allocations []queue.Allocation
	// Ended are the containers the call stopped.
	Ended []queue.Ended
	// Reservation is NewReservationID's id.
	Reservation plan.ReservationID
	// Follower has RunFollower's results: those of the publications
	// SubmitReservation made since the last run (a reservation arriving
	// within a plan step is published at once, and what that ended is
	// handed over here), then one per plan. Ended has their containers.
	Follower []follower.Result
	// Proportional and FairRound are PreemptionRound's report.
	Proportional *preempt.ProportionalReport
	FairRound    *preempt.FairRound
	// CapacityChange and FairReload are ReloadConfig's answer.
	CapacityChange capacity.Change
	FairReload     fair.ReloadResult
}

// Cluster is a host's Berth: a reservation system with its plans, one
// queue scheduler, the plan follower and the preemption policy on one
// clock, changed only through [Cluster.Apply]. Because every decision is a
// function of the commands applied, two Clusters built from the same
// Config that apply the same commands are in the same state: that is what
// the journal and the replicas rely on.
//
// A Cluster is safe for concurrent use: one mutex serialises Apply and
// the snapshot writer.
type Cluster struct {
	mu    sync.Mutex
	cfg   Config
	clock *berth.ManualClock
	seq   uint64

	sys    *plan.System
	plans  []*plan.Plan
	capS   *capacity.Scheduler
	fairS  *fair.Scheduler
	sched  scheduler
	fol    *follower.Follower
	prop   *preempt.Proportional
	fairPr *preempt.FairPreemptor

	// savers are the parts in snapshot order.
	savers []saver
}

// New builds a Cluster at genesis from cfg.
func New(cfg Config) (*Cluster, error) {
	c := &Cluster{cfg: cfg, clock: berth.NewManualClock(cfg.Start)}
	if err := c.build(); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *Cluster) build() error {
	cfg := &c.cfg
	opts := c.rmOptions()
	switch cfg.Scheduler {
	case Capacity:
		if cfg.Preemption {
			opts.Proportional = &cfg.Proportional
		}
		r, err := rm.NewCapacity(cfg.CapacityConfig, opts)
		if err != nil {
			return fmt.Errorf("durable: capacity scheduler: %w", err)
		}
		c.capS, c.sched, c.prop = r.Scheduler, r.Scheduler, r.Preemption
		c.takeReservations(r.Reservations)
	case Fair:
		var af *fair.AllocationFile
		if cfg.FairAllocation != nil {
			var err error
			if af, err = fair.ParseAllocationFile(cfg.FairAllocation, cfg.FairParse); err != nil {
				return fmt.Errorf("durable: fair allocation file: %w", err)
			}
		}
		if cfg.Preemption {
			opts.FairPreemption = &cfg.FairPreemption
		}
		fcfg := cfg.FairConfig
		fcfg.Allocation = af // the file the journal holds, nothing else
		r, err := rm.NewFair(fcfg, opts)
		if err != nil {
			return fmt.Errorf("durable: fair scheduler: %w", err)
		}
		c.fairS, c.sched, c.fairPr = r.Scheduler, r.Scheduler, r.Preemption
		c.takeReservations(r.Reservations)
	default:
		return &berth.FieldError{Field: "Config.Scheduler", Value: cfg.Scheduler.String(), Err: berth.ErrInvalidArgument}
	}
	c.findSavers()
	return nil
}

// takeReservations keeps the reservation system rm built (none without
// plans).
func (c *Cluster) takeReservations(r *rm.Reservations) {
	if r != nil {
		c.sys, c.plans, c.fol = r.System, r.Plans, r.Follower
	}
}

// rmOptions are how the cluster's pieces are built: the plans of
// Config.Plans (none: no reservation system), each edited by its
// Configure, on the cluster's clock.
func (c *Cluster) rmOptions() rm.Options {
	cfg := &c.cfg
	opts := rm.Options{Clock: c.clock, ClusterTimestamp: cfg.ClusterTimestamp, Logger: cfg.Logger}
	if len(cfg.Plans) == 0 {
		return opts
	}
	settings := map[string]queue.ReservationSettings{}
	for _, q := range c.configSpec().Plans {
		settings[q.Queue] = q.Settings
	}
	opts.Plans = make([]rm.PlanQueue, len(cfg.Plans))
	for i, ps := range cfg.Plans {
		st, ok := settings[ps.Queue]
		if !ok {
			st = queue.DefaultReservationSettings()
		}
		opts.Plans[i] = rm.PlanQueue{Queue: ps.Queue, Path: ps.Queue, KeyPrefix: fmt.Sprintf("Config.Plans[%d].", i),
			Capacity: ps.Capacity, Settings: st}
	}
	opts.ConfigurePlan = func(q rm.PlanQueue, pc *plan.Config) error {
		for _, ps := range cfg.Plans {
			if ps.Queue == q.Queue && ps.Configure != nil {
				return ps.Configure(pc)
			}
		}
		return nil
	}
	return opts
}

// configSpec describes the reservation system from the Config alone (a
// restore resolves plans with it before the scheduler exists).
func (c *Cluster) configSpec() rm.SystemSpec {
	if c.cfg.Scheduler == Fair {
		var af *fair.AllocationFile
		if c.cfg.FairAllocation != nil {
			af, _ = fair.ParseAllocationFile(c.cfg.FairAllocation, c.cfg.FairParse) // New has parsed it already
		}
		return rm.FairConfigSpec(c.cfg.FairConfig, af)
	}
	return rm.CapacityConfigSpec(c.cfg.CapacityConfig)
}

// Now returns the cluster's time.
func (c *Cluster) Now() berth.Time { return c.clock.Now() }

// Seq returns the number of commands applied since genesis (the sequence
// number of the last one).
func (c *Cluster) Seq() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.seq
}

// Capacity returns the capacity scheduler (nil under the fair scheduler),
// for reading; changing it other than through Apply breaks replay.
func (c *Cluster) Capacity() *capacity.Scheduler { return c.capS }

// Fair returns the fair scheduler (nil under the capacity scheduler), for
// reading; changing it other than through Apply breaks replay.
func (c *Cluster) Fair() *fair.Scheduler { return c.fairS }

// Reservations returns the reservation system (nil without plans), for
// reading (List); changing it other than through Apply breaks replay.
func (c *Cluster) Reservations() *plan.System { return c.sys }

// Apply applies one command and returns what the call returned. The
// call's own error (a refused submission, an unknown node) is returned
// with the result, and the command still counts: a refused call changes
// nothing, and replaying it refuses it again. Apply is all that changes a
// Cluster.
func (c *Cluster) Apply(cmd Command) (Result, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cmd == nil {
		return Result{}, errInvalid(0, "command", "nil command")
	}
	c.seq++
	r := Result{Kind: cmd.Kind(), Seq: c.seq, Now: c.clock.Now()}
	err := c.apply(cmd, &r)
	return r, err
}

func (c *Cluster) apply(cmd Command, r *Result) error {
	// The reservation commands all need the reservation system.
	switch cmd.(type) {
	case NewReservationID, SubmitReservation, UpdateReservation, DeleteReservation:
		if c.sys == nil {
			return errInvalid(cmd.Kind(), "Config.Plans", "the cluster has no reservation system")
		}
	}
	var err error
	switch cmd := cmd.(type) {
	case AdvanceClock:
		if cmd.To < c.clock.Now() {
			return errInvalid(KindAdvanceClock, "To", "%d is before the clock's %d", cmd.To, c.clock.Now())
		}
		c.clock.Set(cmd.To)
		r.Now = cmd.To
	case AddNode:
		err = c.sched.AddNode(cmd.Node)
	case RemoveNode:
		r.Ended, err = c.sched.RemoveNode(cmd.ID)
	case Heartbeat:
		r.Allocations, err = c.sched.Heartbeat(cmd.Node, cmd.Completed)
	case SubmitApp:
		r.Queue, err = c.sched.SubmitApp(cmd.Spec)
	case Allocate:
		r.Headroom, err = c.sched.Allocate(cmd.App, cmd.Asks, cmd.Release)
	case FinishApp:
		r.Ended, err = c.sched.FinishApp(cmd.App)
	case KillApp:
		r.Ended, err = c.sched.KillApp(cmd.App)
	case MoveApp:
		r.Queue, err = c.sched.MoveApp(cmd.App, cmd.Target)
	case KillContainer:
		var e queue.Ended
		if e, err = c.sched.KillContainer(cmd.ID); err == nil {
			r.Ended = []queue.Ended{e}
		}
	case NewReservationID:
		r.Reservation = c.sys.NewReservationID()
	case SubmitReservation:
		err = c.sys.Submit(cmd.Request)
	case UpdateReservation:
		err = c.sys.Update(cmd.Request)
	case DeleteReservation:
		err = c.sys.Delete(cmd.Request)
	case RunFollower:
		if c.fol == nil {
			return nil
		}
		r.Follower, err = c.fol.Run(c.clock.Now())
		for i := range r.Follower {
			r.Ended = append(r.Ended, r.Follower[i].Ended...)
		}
	case PreemptionRound:
		err = c.preemptionRound(r)
	case ReloadConfig:
		err = c.reload(cmd.File, r)
	default:
		return errInvalid(cmd.Kind(), "command", "unknown command type %T", cmd)
	}
	if err != nil {
		return fmt.Errorf("durable: %s: %w", cmd.Kind(), err)
	}
	return nil
}

func (c *Cluster) preemptionRound(r *Result) error {
	now := c.clock.Now()
	switch {
	case c.prop != nil:
		rep, err := c.prop.Round(now)
		r.Proportional = rep
		if rep != nil {
			r.Ended = rep.Ended
		}
		return err
	case c.fairPr != nil:
		// The fair scheduler's update finds the starved applications
		// (YARN's update thread runs before the preemption thread).
		c.fairS.Update()
		rep, err := c.fairPr.Round(now)
		r.FairRound = rep
		if rep != nil {
			for _, d := range rep.Decisions {
				if d.Action == preempt.FairKilled {
					r.Ended = append(r.Ended, queue.Ended{Container: d.Container, Status: queue.Preempted})
				}
			}
		}
		return err
	}
	return nil
}

func (c *Cluster) reload(file []byte, r *Result) error {
	switch {
	case c.capS != nil:
		cfg, _, err := capacity.ParseXMLReport(bytes.NewReader(file), c.cfg.CapacityParse)
		if err != nil {
			return err
		}
		// The groups mapping is the host's, not the file's.
		cfg.Groups = c.capS.Config().Groups
		r.CapacityChange, err = c.capS.Reconfigure(cfg)
		return err
	case c.fairS != nil:
		af, err := fair.ParseAllocationFile(file, c.cfg.FairParse)
		if err != nil {
			return err
		}
		r.FairReload, err = c.fairS.Reload(af)
		return err
	}
	return errors.New("no scheduler")
}
