package scenario

import (
	"errors"
	"fmt"
	"strings"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/capacity"
	"github.com/berthsched/berth/examples/sim/engine"
	"github.com/berthsched/berth/fair"
	"github.com/berthsched/berth/preempt"
	"github.com/berthsched/berth/queue"
)

// Keys that switch preemption on, as a YARN user sets them.
const (
	// KeyMonitorPolicies lists the scheduling edit policies the monitor
	// runs; the capacity scheduler's preemption is
	// ProportionalCapacityPreemptionPolicy (YARN's default).
	KeyMonitorPolicies = "yarn.resourcemanager.scheduler.monitor.policies"
	// KeyFairUpdateInterval is the fair scheduler's update period, which
	// is also how often its starvation (and so preemption) is checked.
	KeyFairUpdateInterval = "yarn.scheduler.fair.update-interval-ms"
)

// proportionalPolicy is the class name the monitor must list for the
// capacity scheduler's preemption to run.
const proportionalPolicy = "ProportionalCapacityPreemptionPolicy"

// preemptionSettings reads the keys that turn preemption on and configure
// it. Under the capacity scheduler YARN reads the policy's keys from its
// CapacitySchedulerConfiguration, which is capacity-scheduler.xml loaded
// over yarn-site.xml: so the site's keys come first and the scheduler
// file's override them. The monitor runs when
// yarn.resourcemanager.scheduler.monitor.enable is true and its policies
// include ProportionalCapacityPreemptionPolicy. Under the fair scheduler,
// preemption is yarn.scheduler.fair.preemption (the monitor keys play no
// part, as in YARN).
func (sc *Scenario) preemptionSettings(site *Site) error {
	props := map[string]string{}
	if site != nil {
		for k, v := range site.Values {
			props[k] = v
		}
	}
	switch sc.in.Scheduler {
	case "capacity":
		// The capacity-scheduler.xml parsed fine already; read it again as
		// plain properties for the policy's keys.
		conf, err := ParseSite(sc.in.SchedulerConf.Data, sc.in.SchedulerConf.Name)
		if err != nil {
			return err
		}
		for k, v := range conf.Values {
			props[k] = v
		}
		monitor, err := site.Bool(KeyMonitorEnable, false)
		if err != nil {
			return err
		}
		if sc.in.SLSMonitor {
			// SLS's RMRunner sets the monitor on, with this one policy,
			// whatever the configuration says.
			monitor = true
			delete(props, KeyMonitorPolicies)
		}
		if p, ok := props[KeyMonitorPolicies]; ok && monitor && !strings.Contains(p, proportionalPolicy) {
			return &InputError{File: siteName(site), Field: KeyMonitorPolicies, Value: p,
				Reason: "the simulator models only " + proportionalPolicy + " as a monitor policy"}
		}
		cfg, err := preempt.ParseProportionalProperties(props)
		if err != nil {
			return &InputError{File: siteName(site) + ", " + sc.in.SchedulerConf.Name, Reason: "bad preemption setting", Err: err}
		}
		sc.Preemption, sc.capPreempt = monitor, cfg
		sc.PreemptInterval = cfg.MonitoringInterval
	case "fair":
		cfg, err := preempt.ParseFairConfig(props)
		if err != nil {
			return &InputError{File: siteName(site), Reason: "bad fair preemption setting", Err: err}
		}
		// The preemptor's back-off counts the nodes' heartbeats: use the
		// simulated ones unless the site names the RM's key itself.
		if _, ok := props[preempt.FairKeyNMHeartbeatInterval]; !ok {
			cfg.NMHeartbeatInterval = sc.Heartbeat
		}
		if sc.PreemptInterval, err = site.Int(KeyFairUpdateInterval, 500); err != nil {
			return err
		}
		sc.Preemption, sc.fairPreempt = cfg.Enabled, cfg
	}
	return nil
}

func siteName(s *Site) string {
	if s == nil {
		return "site"
	}
	return s.File
}

// defaultPreemptor builds the policy the configuration asks for over the
// scheduler the engine drives.
func (sc *Scenario) defaultPreemptor(s engine.Scheduler) (engine.Preemptor, error) {
	switch s := s.(type) {
	case *capacity.Scheduler:
		p, err := preempt.NewProportional(preempt.ProportionalSetup{State: s, Actor: s, Config: sc.capPreempt})
		if err != nil {
			return nil, fmt.Errorf("preemption policy: %w", err)
		}
		return NewCapacityPreemptor(p), nil
	case *fair.Scheduler:
		p, err := preempt.NewFairPreemptor(preempt.FairPreemptorSetup{State: s, Actor: s, Config: sc.fairPreempt})
		if err != nil {
			return nil, fmt.Errorf("fair preemption: %w", err)
		}
		return NewFairPreemptor(s, p), nil
	}
	return nil, fmt.Errorf("no preemption policy for scheduler %T", s)
}

// CapacityPreemptor runs the capacity scheduler's proportional policy as
// the engine's Preemptor: the containers a round kills go back to their
// application masters, which ask for them again; the engine observes the
// policy's marks (engine.ObservedPreemptor). Last is the last round's
// report.
type CapacityPreemptor struct {
	p    *preempt.Proportional
	Last *preempt.ProportionalReport
}

// NewCapacityPreemptor adapts p.
func NewCapacityPreemptor(p *preempt.Proportional) *CapacityPreemptor {
	return &CapacityPreemptor{p: p}
}

// Round implements engine.Preemptor.
func (c *CapacityPreemptor) Round(now berth.Time) ([]queue.Ended, error) {
	r, err := c.p.Round(now)
	c.Last = r
	if r == nil {
		return nil, err
	}
	return r.Ended, err
}

// SetObserver implements engine.ObservedPreemptor: o observes the policy.
func (c *CapacityPreemptor) SetObserver(o preempt.Observer) { c.p.SetObserver(o) }

// FairPreemptor runs the fair scheduler's starvation preemption as the
// engine's Preemptor. Each round first runs the scheduler's update (YARN's
// update thread, which finds the starved applications) so that a round
// sees fresh starvation even when the engine skipped futile heartbeats.
// Last is the last round's record.
type FairPreemptor struct {
	s    *fair.Scheduler
	p    *preempt.FairPreemptor
	Last *preempt.FairRound
}

// NewFairPreemptor adapts p, which preempts in s.
func NewFairPreemptor(s *fair.Scheduler, p *preempt.FairPreemptor) *FairPreemptor {
	return &FairPreemptor{s: s, p: p}
}

// Round implements engine.Preemptor.
func (f *FairPreemptor) Round(now berth.Time) ([]queue.Ended, error) {
	f.s.Update()
	r, err := f.p.Round(now)
	f.Last = r
	if r == nil {
		return nil, err
	}
	var ended []queue.Ended
	for _, d := range r.Decisions {
		if d.Action == preempt.FairKilled {
			ended = append(ended, queue.Ended{Container: d.Container, Status: queue.Preempted})
		}
	}
	return ended, err
}

// SetObserver implements engine.ObservedPreemptor: o observes the policy.
func (f *FairPreemptor) SetObserver(o preempt.Observer) { f.p.SetObserver(o) }

// configError wraps a scheduler configuration's parse error; strict
// mode's refusal keeps its report (a *queue.ConfigReportError) in the
// chain.
func configError(in Inputs, reason string, err error) error {
	var re *queue.ConfigReportError
	if errors.As(err, &re) {
		reason = "strict configuration: keys not modelled or unknown"
	}
	return &InputError{File: in.SchedulerConf.Name, Reason: reason, Err: err}
}
