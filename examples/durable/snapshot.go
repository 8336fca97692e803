package durable

import (
	"bufio"
	"fmt"
	"io"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/examples/rm"
	"github.com/berthsched/berth/fair"
	"github.com/berthsched/berth/follower"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/preempt"
)

// SnapshotKind is the kind of the header snapshot a [Cluster] writes
// first in its snapshot stream.
const SnapshotKind = "durable.Cluster"

// snapshotVersion is the header's body version.
const snapshotVersion = 1

// The snapshot stream of a Cluster is a header, itself a Berth snapshot
// of kind "durable.Cluster" (version 1):
//
//	scheduler  uvarint  the SchedulerKind
//	plans      uvarint  the number of plans (checked against the Config)
//	preemption bool     whether the preemption policy is on
//	seq        uvarint  commands applied since genesis
//	now        varint   the clock
//	mode       uvarint  0: the parts' snapshots follow (the only mode of
//	                    version 1; the field leaves room for others)
//
// The header is followed by the parts' own snapshots one after another
// (berth.NewStateDecoder reads each and nothing past it): the
// reservation system (when there are plans), the scheduler, the follower
// (when there are plans) and the preemption policy (when it is on).
const modeParts = 0

// saver is a part that writes its own snapshot (the SaveState methods of
// plan.System, the schedulers, follower.Follower and the preemption
// policies).
type saver interface {
	SaveState(w io.Writer) error
}

// findSavers lists the parts in snapshot order.
func (c *Cluster) findSavers() {
	c.savers = c.savers[:0]
	if c.sys != nil {
		c.savers = append(c.savers, c.sys)
	}
	if c.capS != nil {
		c.savers = append(c.savers, c.capS)
	} else {
		c.savers = append(c.savers, c.fairS)
	}
	if c.fol != nil {
		c.savers = append(c.savers, c.fol)
	}
	if c.prop != nil {
		c.savers = append(c.savers, c.prop)
	}
	if c.fairPr != nil {
		c.savers = append(c.savers, c.fairPr)
	}
}

// WriteSnapshot writes the Cluster's state to w as one stream (see the
// format above). It holds the Cluster's lock while writing, so the
// snapshot is a consistent cut between two commands.
func (c *Cluster) WriteSnapshot(w io.Writer) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := berth.NewStateEncoder(w, SnapshotKind, snapshotVersion)
	e.Uvarint(uint64(c.cfg.Scheduler))
	e.Len(len(c.cfg.Plans))
	e.Bool(c.cfg.Preemption)
	e.Uvarint(c.seq)
	e.Varint(c.clock.Now())
	e.Uvarint(modeParts)
	if err := e.Finish(); err != nil {
		return err
	}
	for _, p := range c.savers {
		if err := p.SaveState(w); err != nil {
			return fmt.Errorf("durable: snapshot: %w", err)
		}
	}
	return nil
}

// Restore reads a snapshot written by [Cluster.WriteSnapshot] and returns
// a Cluster in that state, built from cfg (the same Config the snapshot's
// Cluster was built from: what a snapshot cannot hold, such as agents,
// policies and the groups mapping, comes from it). It reads nothing past
// the snapshot when r is a [*bufio.Reader]. Nothing is returned unless the
// whole snapshot checked out; errors wrap [berth.ErrCorruptState],
// [berth.ErrUnsupportedVersion] or [berth.ErrInvalidArgument] (a Config
// that does not match).
func Restore(r io.Reader, cfg Config) (*Cluster, error) {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReader(r)
	}
	d, err := berth.NewStateDecoder(br, SnapshotKind, snapshotVersion)
	if err != nil {
		return nil, err
	}
	d.Field("scheduler")
	kind := SchedulerKind(d.Uvarint())
	d.Field("plans")
	nplans := d.Len(1 << 20)
	d.Field("preemption")
	pre := d.Bool()
	d.Field("seq")
	seq := d.Uvarint()
	d.Field("now")
	now := d.Varint()
	d.Field("mode")
	mode := d.Uvarint()
	if mode != modeParts {
		d.Fail(fmt.Errorf("%w: mode %d", berth.ErrUnsupportedVersion, mode))
	}
	if err := d.Finish(); err != nil {
		return nil, err
	}
	if kind != cfg.Scheduler || nplans != len(cfg.Plans) || pre != cfg.Preemption {
		return nil, fmt.Errorf("durable: %w: snapshot of a %s cluster with %d plans (preemption %t), Config has %s with %d plans (preemption %t)",
			berth.ErrInvalidArgument, kind, nplans, pre, cfg.Scheduler, len(cfg.Plans), cfg.Preemption)
	}
	return restoreParts(br, cfg, seq, now)
}

// restoreParts reads the parts' snapshots that follow the header, in
// the order WriteSnapshot wrote them, into a Cluster at seq and now.
func restoreParts(br *bufio.Reader, cfg Config, seq uint64, now berth.Time) (*Cluster, error) {
	c := &Cluster{cfg: cfg, clock: berth.NewManualClock(now), seq: seq}
	if len(cfg.Plans) > 0 {
		// The system publishes through the follower, restored below, as
		// rm wired the original (a snapshot cannot hold the function).
		publish := func(p *plan.Plan, now berth.Time) { c.fol.Publish(p, now) }
		sys, err := plan.RestoreSystem(br, plan.RestoreEnv{Clock: c.clock, Resolver: c.planResolver(), Publish: publish})
		if err != nil {
			return nil, fmt.Errorf("durable: restoring the reservation system: %w", err)
		}
		c.sys = sys
		for i, ps := range cfg.Plans {
			p, ok := sys.Plan(ps.Queue)
			if !ok {
				return nil, fmt.Errorf("durable: %w: Config.Plans[%d] (%s) is not in the snapshot", berth.ErrInvalidArgument, i, ps.Queue)
			}
			c.plans = append(c.plans, p)
		}
	}
	var fs follower.Scheduler
	switch cfg.Scheduler {
	case Capacity:
		s, err := restoreCapacity(br, c)
		if err != nil {
			return nil, fmt.Errorf("durable: restoring the capacity scheduler: %w", err)
		}
		c.capS, c.sched, fs = s, s, s
	case Fair:
		s, err := fair.RestoreScheduler(br, fair.RestoreOptions{Clock: c.clock, Groups: cfg.FairConfig.Groups,
			Logger: cfg.FairConfig.Logger, Rules: cfg.FairParse.Rules, Policies: cfg.FairParse.Policies})
		if err != nil {
			return nil, fmt.Errorf("durable: restoring the fair scheduler: %w", err)
		}
		c.fairS, c.sched, fs = s, s, s
	default:
		// A snapshot names the scheduler its Config had; New refuses any
		// other value, and so does Restore rather than return a Cluster
		// without a scheduler.
		return nil, &berth.FieldError{Field: "Config.Scheduler", Value: cfg.Scheduler.String(), Err: berth.ErrInvalidArgument}
	}
	if len(cfg.Plans) > 0 {
		f, err := follower.RestoreFollower(br, follower.Config{Scheduler: fs, Plans: follower.Plans(c.plans), Logger: cfg.Logger})
		if err != nil {
			return nil, fmt.Errorf("durable: restoring the follower: %w", err)
		}
		c.fol = f
	}
	if cfg.Preemption {
		var err error
		switch cfg.Scheduler {
		case Capacity:
			c.prop, err = restoreProportional(br, c)
		case Fair:
			c.fairPr, err = preempt.RestoreFairPreemptor(br, preempt.FairPreemptorSetup{State: c.fairS, Actor: c.fairS})
		}
		if err != nil {
			return nil, fmt.Errorf("durable: restoring the preemption policy: %w", err)
		}
	}
	c.findSavers()
	return c, nil
}

// planResolver gives each restored plan the agent, policy and replanner
// its PlanSpec builds, fresh.
func (c *Cluster) planResolver() plan.Resolver {
	return rm.PlanResolver(c.configSpec(), c.clock, c.rmOptions())
}
