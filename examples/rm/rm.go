package rm

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"strings"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/capacity"
	"github.com/berthsched/berth/fair"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/preempt"
	"github.com/berthsched/berth/queue"
)

// Files are a ResourceManager's configuration files.
type Files struct {
	// Scheduler is capacity-scheduler.xml ([LoadCapacity]) or
	// fair-scheduler.xml ([LoadFair]). Required.
	Scheduler []byte
	// Site is yarn-site.xml; nil when the host has none (every key at
	// YARN's default). Under the capacity scheduler, keys of the
	// scheduler's file override the site's, as YARN reads
	// capacity-scheduler.xml over yarn-site.xml.
	Site []byte
}

// Options tune what is built; every constructor of this package takes
// its input and Options. Apart from the clock, the zero value builds
// YARN's defaults.
type Options struct {
	// Clock is every piece's clock. Required, except by [NewCapacity] and
	// [NewFair], which may take it from the scheduler's configuration.
	Clock berth.Clock
	// ClusterTimestamp stamps every reservation id (YARN's RM start time).
	ClusterTimestamp int64
	// Logger receives the follower's diagnostics; nil logs nothing.
	Logger *slog.Logger
	// Agents, Policies and Replanners build the host's own components by
	// the name a reservation-agent, reservation-policy or
	// reservation-planner key gives; the built-in names always win. Nil
	// registries hold nothing.
	Agents     *queue.Registry[AgentFactory]
	Policies   *queue.Registry[PolicyFactory]
	Replanners *queue.Registry[ReplannerFactory]
	// Flavors are the host's plan followers by the name
	// yarn.resourcemanager.reservation-system.plan.follower gives.
	Flavors *queue.Registry[FlavorFactory]
	// ConfigurePlan, when set, edits each plan's configuration after it
	// is built from the keys and before the plan is: a host replaces a
	// component or fixes a capacity there. The clock is set back to the
	// ResourceManager's afterwards.
	ConfigurePlan func(PlanQueue, *plan.Config) error
	// Plans, when not nil, are the plans to build instead of one per
	// reservable queue, and the reservation system is built for them
	// whatever yarn.resourcemanager.reservation-system.enable says (the
	// host asked for them).
	Plans []PlanQueue

	// CapacityXML parses capacity-scheduler.xml ([LoadCapacity]): the
	// host's ordering policies, strict mode.
	CapacityXML capacity.XMLOptions
	// FairParse parses fair-scheduler.xml ([LoadFair]).
	FairParse fair.ParseOptions
	// Fair is the fair scheduler's configuration ([LoadFair]); nil is
	// fair.DefaultConfig(). yarn-site.xml's yarn.scheduler.fair.* keys
	// other than preemption's are not read into it (the report says so).
	Fair *fair.Config

	// Proportional and FairPreemption configure the preemption policy of
	// [NewCapacity] and [NewFair]; nil leaves preemption off. [LoadCapacity]
	// and [LoadFair] set them from the files.
	Proportional   *preempt.ProportionalConfig
	FairPreemption *preempt.FairConfig
}

// Capacity is a ResourceManager with the capacity scheduler.
type Capacity struct {
	// Clock is every piece's clock.
	Clock berth.Clock
	// Scheduler is the capacity scheduler.
	Scheduler *capacity.Scheduler
	// Reservations is the reservation system with its plans and
	// follower; nil when it is off.
	Reservations *Reservations
	// Preemption is the proportional preemption policy; nil when off.
	Preemption *preempt.Proportional
	// Report covers both files ([LoadCapacity] only): what is not
	// modelled or not known, and in Read every key read.
	Report queue.ConfigReport
}

// Fair is a ResourceManager with the fair scheduler.
type Fair struct {
	// Clock is every piece's clock.
	Clock berth.Clock
	// Scheduler is the fair scheduler.
	Scheduler *fair.Scheduler
	// Allocation is the allocation file the scheduler runs with.
	Allocation *fair.AllocationFile
	// Reservations is the reservation system; nil when off.
	Reservations *Reservations
	// Preemption is the fair preemption policy; nil when off.
	Preemption *preempt.FairPreemptor
	// Report covers both files ([LoadFair] only).
	Report queue.ConfigReport
}

// LoadCapacity builds a ResourceManager with the capacity scheduler from
// capacity-scheduler.xml and yarn-site.xml, on Options.Clock. The reservation
// system is built when yarn.resourcemanager.reservation-system.enable is
// true (in either file), with a plan per reservable queue; the
// proportional preemption policy when
// yarn.resourcemanager.scheduler.monitor.enable is true. Errors are
// *berth.FieldError naming the file's key; nothing is returned on error.
func LoadCapacity(files Files, opts Options) (*Capacity, error) {
	site, err := readConf(files.Site, "yarn-site.xml")
	if err != nil {
		return nil, err
	}
	sched, err := readConf(files.Scheduler, "capacity-scheduler.xml")
	if err != nil {
		return nil, err
	}
	cfg, rep, err := capacity.ParseXMLReport(bytes.NewReader(files.Scheduler), opts.CapacityXML)
	if err != nil {
		return nil, err
	}
	// CapacitySchedulerConfiguration is capacity-scheduler.xml loaded over
	// yarn-site.xml: the scheduler file's keys win.
	merged := overlay(site, sched)
	if cfg.ReservationSystem, err = queue.ParseReservationSystem(merged); err != nil {
		return nil, err
	}
	opts.Proportional = nil
	if on, err := monitorEnabled(merged); err != nil {
		return nil, err
	} else if on {
		pc, err := preempt.ParseProportionalProperties(merged)
		if err != nil {
			return nil, err
		}
		opts.Proportional = &pc
	}
	out, err := NewCapacity(cfg, opts)
	if err != nil {
		return nil, err
	}
	rep.Merge(siteReport(site, kindCapacity))
	rep.Sort()
	out.Report = rep
	return out, nil
}

// LoadFair builds a ResourceManager with the fair scheduler from
// fair-scheduler.xml and yarn-site.xml, on Options.Clock: the scheduler runs with
// Options.Fair, the reservation system is built when
// yarn.resourcemanager.reservation-system.enable is true, with a plan per
// queue that has <reservation/>, and the fair preemption policy when
// yarn.scheduler.fair.preemption is true.
func LoadFair(files Files, opts Options) (*Fair, error) {
	site, err := readConf(files.Site, "yarn-site.xml")
	if err != nil {
		return nil, err
	}
	af, rep, err := fair.ParseAllocationFileReport(files.Scheduler, opts.FairParse)
	if err != nil {
		return nil, err
	}
	cfg := fair.DefaultConfig()
	if opts.Fair != nil {
		cfg = *opts.Fair
	}
	rs, err := queue.ParseReservationSystem(site)
	if err != nil {
		return nil, err
	}
	if rs != nil { // the site's keys; without any, Options.Fair's settings stay
		cfg.ReservationSystem = rs
	}
	fp, err := preempt.ParseFairConfig(site)
	if err != nil {
		return nil, err
	}
	opts.FairPreemption = nil
	if fp.Enabled {
		opts.FairPreemption = &fp
	}
	cfg.Allocation = af
	out, err := NewFair(cfg, opts)
	if err != nil {
		return nil, err
	}
	rep.Merge(siteReport(site, kindFair))
	rep.Sort()
	out.Report = rep
	return out, nil
}

// NewCapacity builds a ResourceManager with the capacity scheduler from a
// typed configuration, on Options.Clock (or cfg.Clock when Options has
// none): the scheduler, the reservation system
// when cfg.ReservationSystem enables it (or Options.Plans lists plans),
// and the proportional policy when Options.Proportional is set.
func NewCapacity(cfg capacity.Config, opts Options) (*Capacity, error) {
	clock, err := oneClock(cfg.Clock, &opts)
	if err != nil {
		return nil, err
	}
	cfg.Clock = clock
	s, err := capacity.New(cfg)
	if err != nil {
		return nil, err
	}
	out := &Capacity{Clock: clock, Scheduler: s}
	if cfg.ReservationSystem.Effective().Enabled || opts.Plans != nil {
		spec, err := CapacitySpec(s)
		if err != nil {
			return nil, err
		}
		if out.Reservations, err = NewReservations(spec, opts); err != nil {
			return nil, err
		}
	}
	if opts.Proportional != nil {
		if out.Preemption, err = preempt.NewProportional(preempt.ProportionalSetup{State: s, Actor: s, Config: *opts.Proportional}); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// NewFair builds a ResourceManager with the fair scheduler from a typed
// configuration and its allocation file (nil: an empty one), on
// Options.Clock (or cfg.Clock when Options has none): the
// scheduler (with the preemption switches of Options.FairPreemption
// applied to cfg), the reservation system when cfg.ReservationSystem
// enables it (or Options.Plans lists plans), and the fair preemption
// policy when Options.FairPreemption is set.
func NewFair(cfg fair.Config, opts Options) (*Fair, error) {
	clock, err := oneClock(cfg.Clock, &opts)
	if err != nil {
		return nil, err
	}
	af := cfg.Allocation
	if af == nil {
		af = fair.DefaultAllocationFile()
	}
	if opts.FairPreemption != nil {
		opts.FairPreemption.ApplyTo(&cfg)
	}
	cfg.Allocation = af
	cfg.Clock = clock
	s, err := fair.New(cfg)
	if err != nil {
		return nil, err
	}
	out := &Fair{Clock: clock, Scheduler: s, Allocation: af}
	if cfg.ReservationSystem.Effective().Enabled || opts.Plans != nil {
		spec, err := FairSpec(s, af)
		if err != nil {
			return nil, err
		}
		if out.Reservations, err = NewReservations(spec, opts); err != nil {
			return nil, err
		}
	}
	if opts.FairPreemption != nil {
		if out.Preemption, err = preempt.NewFairPreemptor(preempt.FairPreemptorSetup{State: s, Actor: s, Config: *opts.FairPreemption}); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// oneClock is the clock a ResourceManager runs on: Options.Clock, or the
// scheduler configuration's when Options has none (then set in opts for
// the pieces built next). Two different clocks are refused: every piece
// must read the same time.
func oneClock(configured berth.Clock, opts *Options) (berth.Clock, error) {
	switch {
	case opts.Clock == nil && configured == nil:
		return nil, berth.InvalidField("Options.Clock", nil, "a clock is required")
	case opts.Clock == nil:
		opts.Clock = configured
	case configured != nil && !sameClock(configured, opts.Clock):
		return nil, berth.InvalidField("Options.Clock", opts.Clock, "differs from (or cannot be compared with) the scheduler configuration's Clock: every piece must run on one clock")
	}
	return opts.Clock, nil
}

// sameClock reports whether a and b are one clock. Clocks of a type ==
// cannot compare (a berth.ClockFunc) are never the same: comparing them
// with == would panic.
func sameClock(a, b berth.Clock) bool {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	return va.Type() == vb.Type() && va.Comparable() && va.Equal(vb)
}

// The keys that turn the capacity scheduler's preemption on.
const (
	keyMonitorEnable   = "yarn.resourcemanager.scheduler.monitor.enable"
	keyMonitorPolicies = "yarn.resourcemanager.scheduler.monitor.policies"
	proportionalPolicy = "ProportionalCapacityPreemptionPolicy"
)

// monitorEnabled reports whether the scheduler monitor runs YARN's
// proportional preemption policy: the monitor is on and its policies
// (ProportionalCapacityPreemptionPolicy by default) name it. A monitor on
// with only policies Berth does not model is refused.
func monitorEnabled(props map[string]string) (bool, error) {
	v, ok := props[keyMonitorEnable]
	if !ok {
		return false, nil
	}
	on, err := queue.PropBool(keyMonitorEnable, v)
	if err != nil || !on {
		return false, err
	}
	if p, ok := props[keyMonitorPolicies]; ok && !strings.Contains(p, proportionalPolicy) {
		return false, &berth.FieldError{Field: keyMonitorPolicies, Value: p, Kind: berth.ErrInvalidArgument,
			Reason: "Berth models only " + proportionalPolicy + " as a monitor policy"}
	}
	return true, nil
}

// errNoFile is the error of a required file that is missing.
var errNoFile = errors.New("no such file")

// readConf reads a Hadoop configuration file into properties (nil data:
// none). Names and values are trimmed; a later property wins.
func readConf(data []byte, file string) (map[string]string, error) {
	if data == nil {
		if file == "yarn-site.xml" {
			return map[string]string{}, nil
		}
		return nil, &berth.FieldError{Field: file, Reason: "the scheduler's file is required", Err: errNoFile}
	}
	props, err := queue.ReadHadoopConf(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return props, nil
}

// overlay returns base with top's properties over it.
func overlay(base, top map[string]string) map[string]string {
	out := make(map[string]string, len(base)+len(top))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range top {
		out[k] = v
	}
	return out
}

// String names the pieces built, for logs.
func (c *Capacity) String() string {
	return fmt.Sprintf("capacity scheduler, %s, preemption %t", c.Reservations, c.Preemption != nil)
}

// String names the pieces built, for logs.
func (f *Fair) String() string {
	return fmt.Sprintf("fair scheduler, %s, preemption %t", f.Reservations, f.Preemption != nil)
}
