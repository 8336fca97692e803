// Package scenario turns the simulator's input files into a configured engine.
//
// It turns the inputs — a trace (SLS JSON,
// Rumen or SYNTH), an optional node file, the scheduler's configuration
// (capacity-scheduler.xml or fair-scheduler.xml), the yarn-site /
// sls-runner files the run needs (loaded in order as Hadoop's
// Configuration loads them, see Site) and an optional node-events file —
// into a configured engine: the scheduler, one plan per reservable queue with
// YARN's default agent, sharing policy and replanner, the reservation
// system and the plan follower. Everything is parsed and validated before
// anything runs. Default returns the embedded default scenario.
//
// The site files may set (defaults in parentheses):
// yarn.resourcemanager.scheduler.class (CapacityScheduler; it chooses the
// scheduler when Inputs.Scheduler is empty),
// yarn.scheduler.fair.allocation.file (fair-scheduler.xml; the command
// finds the file with Site.SchedulerFile), yarn.sls.nm.memory.mb
// and yarn.sls.nm.vcores (10240, 10), yarn.sls.container.memory.mb and
// .vcores (1024, 1), yarn.sls.am.container.memory and .vcores (1024, 1),
// yarn.sls.nm.heartbeat.interval.ms (1000),
// yarn.sls.metrics.record.interval.ms (unset: adaptive sampling, a point
// a second, SLS's default, thinned to about a thousand over a long run),
// yarn.resourcemanager.reservation-system.enable (false),
// yarn.resourcemanager.reservation-system.planfollower.time-step (1000),
// yarn.resourcemanager.scheduler.monitor.enable (false; on whatever it
// says with Inputs.SLSMonitor, as in SLS),
// yarn.resourcemanager.scheduler.monitor.policies,
// yarn.resourcemanager.monitor.capacity.preemption.* (YARN's defaults;
// monitoring_interval 3000), yarn.scheduler.fair.preemption (false) and
// the fair preemption keys of package preempt, and
// yarn.scheduler.fair.update-interval-ms (500).
//
// Jobs are read as SLS reads them and checked as YARN checks them, before
// anything runs: a trace's am.type names its AM through SLS's
// yarn.sls.am.type.<type> keys (MRAMSimulator and StreamAMSimulator are
// modelled; DAGAMSimulator refuses the run); a job whose queue the
// scheduler refuses (unknown, a parent, an ACL) or whose AM or task ask
// exceeds the maximum allocation is left out with the reason
// (Scenario.Dropped), as are the jobs the trace readers leave out. How
// the inputs were read where a user may not expect it (a node record {}
// as host "null", node labels not simulated) is in Scenario.Notes. Both
// reach the report through Run.
//
// The scheduler's configuration is parsed with its report
// (capacity.ParseXMLReport, fair.ParseAllocationFileReport):
// Scenario.ConfigReport lists what Berth does not model, what no one knows
// (with a suggestion) and what other components read; with
// Inputs.StrictConfig a report with entries of the first two kinds
// refuses the run.
//
// The site files get the same report (Scenario.SiteReport, see
// SiteReport): keys SLS or YARN knows that the simulator does not model
// (SLS's thread pools and metrics server, the fair scheduler's yarn-site
// tuning, the RM's server addresses, ...) with what it does instead, keys
// package preempt reads, and unknown keys in the simulator's namespaces
// (yarn.sls., yarn.scheduler., yarn.resourcemanager.scheduler.,
// yarn.resourcemanager.monitor., yarn.resourcemanager.reservation-system.)
// with the closest known key. Keys outside those namespaces are ignored
// without a note: a real yarn-site.xml has hundreds the simulation cannot
// act on. Inputs.StrictConfig refuses the site file too.
//
// # Differences from SLS
//
//   - Plans are built by package examples/rm from the reservation keys
//     of the scheduler's file (reservation-agent, average-capacity, ...;
//     the fair file's reservation-agent, -policy, -planner), with YARN's
//     defaults for the keys not set.
//   - Application lifetimes (the capacity scheduler's
//     maximum-application-lifetime and default-application-lifetime;
//     trace jobs ask for none) are enforced every 3 s, as YARN's
//     RMAppLifetimeMonitor does: an expired job is killed, its record's
//     Expired set and Finished left 0.
//   - Preemption as the configuration switches it on, as in YARN, unless
//     Inputs.SLSMonitor asks for SLS's behaviour (SLS's RMRunner turns the
//     capacity scheduler's monitor on with ProportionalCapacityPreemptionPolicy
//     in every run; the command does so for trace runs unless
//     --sls-monitor=false): under the capacity scheduler package preempt's
//     proportional policy runs every monitoring_interval when
//     yarn.resourcemanager.scheduler.monitor.enable is true (and
//     yarn.resourcemanager.scheduler.monitor.policies, if set, names
//     ProportionalCapacityPreemptionPolicy); its
//     yarn.resourcemanager.monitor.capacity.preemption.* keys come from the
//     site file and capacity-scheduler.xml, the latter winning, as YARN's
//     CapacitySchedulerConfiguration does. Under the fair scheduler,
//     yarn.scheduler.fair.preemption turns its starvation preemption on
//     (with its yarn-site keys; the per-queue timeouts are in the
//     allocation file); it runs every yarn.scheduler.fair.update-interval-ms
//     (500), after the scheduler's update, where YARN's preemption thread
//     wakes whenever the update finds a starved application. Killed
//     containers go back to their application masters, which ask again;
//     the AMs do not react to marks (SLS's do not either).
//   - The fair scheduler's Config.UpdateInterval is the same
//     yarn.scheduler.fair.update-interval-ms.
//   - SYNTH tasks ask for any host (SLS picks a random node as the
//     preferred host, which with relaxed locality is an any-host ask
//     that delays scheduling by its locality wait).
//   - Node events are a Berth addition (SLS has no node failures).
//   - Node labels of the node file are the capacity scheduler's
//     partitions: each label is declared with the exclusivity the file
//     gives, and a node with one label joins its partition (one with
//     several runs unlabelled, as YARN refuses them, with a note); a
//     job's job.label.expression is its application's label expression.
//     The reservation system plans on the default partition. The fair
//     scheduler, as YARN's, has no partitions.
package scenario

import (
	"bytes"
	"cmp"
	"fmt"
	"log/slog"
	"strings"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/capacity"
	"github.com/berthsched/berth/examples/rm"
	"github.com/berthsched/berth/examples/sim/engine"
	"github.com/berthsched/berth/examples/sim/metrics"
	"github.com/berthsched/berth/examples/sim/trace"
	"github.com/berthsched/berth/fair"
	"github.com/berthsched/berth/preempt"
	"github.com/berthsched/berth/queue"
)

// Configuration keys read from the site file (SLS's and YARN's names).
const (
	KeyNMHeartbeat       = "yarn.sls.nm.heartbeat.interval.ms"
	KeyNMMemory          = "yarn.sls.nm.memory.mb"
	KeyNMVCores          = "yarn.sls.nm.vcores"
	KeyContainerMemory   = "yarn.sls.container.memory.mb"
	KeyContainerVCores   = "yarn.sls.container.vcores"
	KeyAMMemory          = "yarn.sls.am.container.memory"
	KeyAMVCores          = "yarn.sls.am.container.vcores"
	KeyMetricsInterval   = "yarn.sls.metrics.record.interval.ms"
	KeyReservationEnable = "yarn.resourcemanager.reservation-system.enable"
	KeyFollowerStep      = "yarn.resourcemanager.reservation-system.planfollower.time-step"
	KeyMonitorEnable     = "yarn.resourcemanager.scheduler.monitor.enable"
	KeyPreemptInterval   = "yarn.resourcemanager.monitor.capacity.preemption.monitoring_interval"
)

// File is one input file: its name (for errors) and content.
type File struct {
	Name string
	Data []byte
}

// Inputs are the files and choices of one run, as the command's flags give
// them.
type Inputs struct {
	// Scheduler is "capacity" or "fair"; "" takes the one the site files
	// name (Site.SchedulerName: yarn.resourcemanager.scheduler.class, the
	// capacity scheduler when unset).
	Scheduler string
	// SchedulerConf is the scheduler's file (capacity-scheduler.xml or the
	// fair scheduler's allocation file). Under the fair scheduler it may
	// be left empty (no Name, no Data): the fair scheduler then runs with
	// YARN's defaults, as YARN does when it finds no allocation file, and
	// the configuration report says so.
	SchedulerConf File
	// Sites are Hadoop configuration files with yarn-site and sls-runner
	// keys, loaded in order (later files override earlier ones unless
	// final, see Site); Overrides are applied last, as -D does.
	Sites     []File
	Overrides []Property
	// SLSMonitor turns the capacity scheduler's preemption monitor on
	// (ProportionalCapacityPreemptionPolicy) whatever the site files say,
	// as SLS's RMRunner does for every run; off, the monitor runs as
	// yarn.resourcemanager.scheduler.monitor.enable says, as in YARN.
	SLSMonitor bool
	// TraceType is SLS, RUMEN or SYNTH (case-insensitive); Traces the
	// files (SLS's --tracelocation, several allowed).
	TraceType string
	Traces    []File
	// Nodes is the node file (optional: else the trace's topology or
	// hosts).
	Nodes *File
	// NodeEvents lists node losses and returns (optional).
	NodeEvents *File
	// Seed overrides a SYNTH trace's rand_seed when set.
	Seed *int64
	// End stops the run (0: when every job finished).
	End berth.Time
	// StrictConfig refuses a scheduler configuration or site file with
	// keys Berth does not model or nobody knows (see Scenario.ConfigReport
	// and Scenario.SiteReport).
	StrictConfig bool
}

// Scenario is a validated set of inputs, ready to build engines from.
type Scenario struct {
	in    Inputs
	Jobs  []trace.Job
	Nodes []trace.Node
	// Dropped are the jobs left out, as SLS and YARN leave them out: a
	// Rumen job SLS cannot build, an am.type no key names, a queue the
	// scheduler refuses, an ask past the maximum allocation.
	Dropped []trace.Drop
	// Notes tell how the inputs were read where a user may not expect it
	// (SLS's "null" host names, node labels not simulated, ...).
	Notes      []trace.Note
	NodeEvents []engine.NodeEvent
	Defaults   trace.Defaults
	// Description is the scenario's own account of itself (the first
	// SYNTH trace's description), for the report.
	Description string
	// Settings from the site file.
	Heartbeat, FollowerStep, PreemptInterval, SampleInterval berth.Duration
	Reservations, Preemption                                 bool
	// Scheduler is the scheduler run, "capacity" or "fair"; Site the
	// configuration the site files and overrides make (nil: none given);
	// Seed the run's seed (Inputs.Seed, else a SYNTH trace's rand_seed,
	// else 0), which draws the nodes' heartbeat phases and the
	// submission offsets (engine.Config.Seed).
	Scheduler string
	Site      *Site
	Seed      int64
	// ConfigReport is what the scheduler's configuration file says that
	// Berth does not model, or that no one knows (with a suggestion), and
	// the keys other components read (capacity.ParseXMLReport,
	// fair.ParseAllocationFileReport).
	ConfigReport queue.ConfigReport
	// SiteReport is the same for the site files (--conf), each key's
	// note about the value that stands (Site.Source names its file): see
	// SiteReport.
	SiteReport  queue.ConfigReport
	capCfg      capacity.Config
	autoLeaves  []string // leaves the capacity scheduler creates for the jobs
	fairAF      *fair.AllocationFile
	capPreempt  preempt.ProportionalConfig
	fairPreempt preempt.FairConfig
}

// Load parses and validates every input, one step per input file: the
// site files, the scheduler's file, the traces, the node file, then the
// jobs against the scheduler and the node events.
func Load(in Inputs) (*Scenario, error) {
	sc := &Scenario{in: in, Defaults: trace.DefaultDefaults()}
	if in.End < 0 {
		return nil, &InputError{File: "flags", Field: "end-ms", Value: in.End, Reason: "must not be negative (0: run until every job finished)"}
	}
	site, err := sc.loadSites()
	if err != nil {
		return nil, err
	}
	if sc.in.Scheduler == "" {
		name, err := site.SchedulerName()
		if err != nil {
			return nil, err
		}
		sc.in.Scheduler = name
	}
	sc.Scheduler = sc.in.Scheduler
	if err := sc.siteSettings(site); err != nil {
		return nil, err
	}
	if err := sc.loadSchedulerFile(); err != nil {
		return nil, err
	}
	if err := sc.preemptionSettings(site); err != nil {
		return nil, err
	}
	traces, err := sc.loadTraces()
	if err != nil {
		return nil, err
	}
	if err := sc.loadNodes(traces); err != nil {
		return nil, err
	}
	if err := sc.resolveAMTypes(site); err != nil {
		return nil, err
	}
	if err := sc.admitJobs(); err != nil {
		return nil, err
	}
	if sc.in.NodeEvents != nil {
		if sc.NodeEvents, err = readNodeEvents(sc.in.NodeEvents, sc.Nodes); err != nil {
			return nil, err
		}
	}
	return sc, nil
}

// loadSites loads the site files and overrides (nil when there are none)
// and reports on them; in strict mode a report with keys not modelled or
// unknown refuses them.
func (sc *Scenario) loadSites() (*Site, error) {
	if len(sc.in.Sites) == 0 && len(sc.in.Overrides) == 0 {
		return nil, nil
	}
	site, err := LoadSites(sc.in.Sites, sc.in.Overrides)
	if err != nil {
		return nil, err
	}
	// Before anything is read from it: strict mode refuses the files
	// whole, and the report names every key at once.
	sc.Site, sc.SiteReport = site, SiteReport(site)
	if sc.in.StrictConfig {
		if err := sc.SiteReport.Err(site.File); err != nil {
			return nil, &InputError{File: site.File, Reason: "strict configuration: keys not modelled or unknown", Err: err}
		}
	}
	return site, nil
}

// siteSettings reads the run's intervals, the default node, container and
// AM sizes, and whether the reservation system runs, from the site.
func (sc *Scenario) siteSettings(site *Site) error {
	ints := []struct {
		key string
		dst *int64
		def int64
	}{
		{KeyNMHeartbeat, &sc.Heartbeat, 1000}, {KeyFollowerStep, &sc.FollowerStep, 1000},
		{KeyPreemptInterval, &sc.PreemptInterval, 3000},
		{KeyNMMemory, &sc.Defaults.Node.Memory, sc.Defaults.Node.Memory}, {KeyNMVCores, &sc.Defaults.Node.VCores, sc.Defaults.Node.VCores},
		{KeyContainerMemory, &sc.Defaults.Container.Memory, sc.Defaults.Container.Memory},
		{KeyContainerVCores, &sc.Defaults.Container.VCores, sc.Defaults.Container.VCores},
		{KeyAMMemory, &sc.Defaults.AM.Memory, sc.Defaults.AM.Memory}, {KeyAMVCores, &sc.Defaults.AM.VCores, sc.Defaults.AM.VCores},
	}
	for _, k := range ints {
		v, err := site.Int(k.key, k.def)
		if err != nil {
			return err
		}
		*k.dst = v
	}
	// Metrics are sampled at SLS's period when the site sets one, else
	// adaptively (engine.Config.SampleInterval).
	if _, ok := site.get(KeyMetricsInterval); ok {
		v, err := site.Int(KeyMetricsInterval, 0)
		if err != nil {
			return err
		}
		sc.SampleInterval = v
	}
	var err error
	sc.Reservations, err = site.Bool(KeyReservationEnable, false)
	return err
}

// loadSchedulerFile parses the scheduler's file with its report: the
// capacity scheduler's configuration, or the fair scheduler's allocation
// file (YARN's defaults when none is given).
func (sc *Scenario) loadSchedulerFile() error {
	in := sc.in
	var err error
	switch in.Scheduler {
	case "capacity":
		if sc.capCfg, sc.ConfigReport, err = capacity.ParseXMLReport(bytes.NewReader(in.SchedulerConf.Data), capacity.XMLOptions{Strict: in.StrictConfig}); err != nil {
			return configError(in, "bad capacity scheduler configuration", err)
		}
	case "fair":
		if in.SchedulerConf.Name == "" && in.SchedulerConf.Data == nil {
			// YARN's AllocationFileLoaderService runs on defaults when it
			// finds no allocation file; so does the simulation, saying so.
			sc.fairAF = fair.DefaultAllocationFile()
			sc.ConfigReport.Add(queue.ConfigNote{Kind: queue.NoteNotModelled, Key: KeyFairAllocationFile,
				Instead: "no allocation file: YARN's defaults (queues made as jobs name them, each under root, with fair sharing)"})
			return nil
		}
		if sc.fairAF, sc.ConfigReport, err = fair.ParseAllocationFileReport(in.SchedulerConf.Data, fair.ParseOptions{Strict: in.StrictConfig}); err != nil {
			return configError(in, "bad fair scheduler allocation file", err)
		}
	default:
		return &InputError{File: "flags", Field: "scheduler", Value: in.Scheduler, Reason: `must be "capacity" or "fair"`}
	}
	return nil
}

// loadTraces reads each trace file in turn into the scenario's jobs, drops
// and notes, and checks that no job id appears twice.
func (sc *Scenario) loadTraces() ([]*trace.Trace, error) {
	in := sc.in
	if len(in.Traces) == 0 {
		return nil, &InputError{File: "flags", Field: "tracelocation", Reason: "no trace given"}
	}
	if in.Seed != nil {
		sc.Seed = *in.Seed
	}
	var traces []*trace.Trace
	seen := map[string]string{} // job id → the trace file it came from
	for _, f := range in.Traces {
		t, err := sc.readTrace(f)
		if err != nil {
			return nil, err
		}
		for _, j := range t.Jobs {
			if first, dup := seen[j.ID]; dup {
				return nil, &InputError{File: f.Name, Field: "job id", Value: j.ID, Reason: "the same job id appears twice across the traces (first in " + first + ")"}
			}
			seen[j.ID] = f.Name
		}
		traces = append(traces, t)
		sc.Jobs = append(sc.Jobs, t.Jobs...)
		sc.Dropped = append(sc.Dropped, t.Dropped...)
		sc.Notes = append(sc.Notes, t.Notes...)
	}
	return traces, nil
}

// readTrace reads one trace file of the run's trace type; a SYNTH file's
// jobs are generated, and its seed and description become the run's
// unless given.
func (sc *Scenario) readTrace(f File) (*trace.Trace, error) {
	switch strings.ToUpper(sc.in.TraceType) {
	case "SLS":
		return trace.ReadSLS(bytes.NewReader(f.Data), f.Name, sc.Defaults)
	case "RUMEN":
		return trace.ReadRumen(bytes.NewReader(f.Data), f.Name, sc.Defaults)
	case "SYNTH":
		s, err := trace.ReadSynth(bytes.NewReader(f.Data), f.Name)
		if err != nil {
			return nil, err
		}
		if sc.in.Seed == nil {
			sc.Seed = s.Seed
		}
		sc.Description = cmp.Or(sc.Description, s.Description)
		return s.Generate(sc.Defaults, sc.in.Seed), nil
	}
	return nil, &InputError{File: "flags", Field: "tracetype", Value: sc.in.TraceType, Reason: "must be SLS, RUMEN or SYNTH"}
}

// loadNodes reads the node file, its labels becoming the capacity
// scheduler's partitions, or, without one, builds the nodes the traces
// name as SLS does.
func (sc *Scenario) loadNodes(traces []*trace.Trace) error {
	in := sc.in
	var notes []trace.Note
	if in.Nodes != nil {
		var err error
		if sc.Nodes, notes, err = trace.ReadNodes(bytes.NewReader(in.Nodes.Data), in.Nodes.Name, sc.Defaults); err != nil {
			return err
		}
		var labelNotes []trace.Note
		sc.capCfg.NodeLabels, labelNotes = clusterLabels(sc.capCfg.NodeLabels, sc.Nodes, in.Nodes.Name, in.Scheduler)
		notes = append(notes, labelNotes...)
	} else {
		sc.Nodes, notes = trace.ClusterNodes(traces, sc.Defaults)
	}
	sc.Notes = append(sc.Notes, notes...)
	if len(sc.Nodes) == 0 {
		return &InputError{File: "flags", Field: "nodes", Reason: "no nodes: give a node file, or a trace with hosts or a topology"}
	}
	return nil
}

// Options tune a built engine.
type Options struct {
	Progress func(now berth.Time, events uint64)
	Logger   *slog.Logger
	// Preemptor, when set and the configuration turns preemption on,
	// replaces the policy the configuration names (package preempt's
	// proportional policy or fair preemption) at the preemption interval.
	Preemptor func(s engine.Scheduler) engine.Preemptor
	// NoPreemption runs without preemption whatever the configuration
	// says (to compare a run with and without it).
	NoPreemption bool
}

// Engine builds the scheduler, the reservation system and the follower
// and returns an engine ready to run. Each call builds fresh components,
// so runs are independent.
func (sc *Scenario) Engine(o Options) (*engine.Engine, error) {
	clock := berth.NewManualClock(0)
	cluster := berth.None()
	for _, n := range sc.Nodes {
		// The capacity scheduler's reservation system plans on the
		// default partition.
		if n.Partition() == "" || sc.in.Scheduler != "capacity" {
			cluster = cluster.Add(n.Resource)
		}
	}
	cfg := engine.Config{Clock: clock, SchedulerName: sc.in.Scheduler, Nodes: sc.Nodes, Jobs: sc.Jobs,
		NodeHeartbeat: sc.Heartbeat, FollowerInterval: sc.FollowerStep, PreemptionInterval: sc.PreemptInterval, Seed: sc.Seed,
		SampleInterval: sc.SampleInterval, NodeEvents: sc.NodeEvents, End: sc.in.End,
		Progress: o.Progress, Logger: o.Logger}
	var planQueues []planQueue
	switch sc.in.Scheduler {
	case "capacity":
		qs, err := sc.capacityScheduler(&cfg, clock, cluster)
		if err != nil {
			return nil, err
		}
		planQueues = qs
	case "fair":
		fcfg := fair.DefaultConfig()
		fcfg.AssignMultiple = true
		if sc.Preemption {
			sc.fairPreempt.ApplyTo(&fcfg)
		}
		fcfg.UpdateInterval = sc.PreemptInterval
		fcfg.Allocation = sc.fairAF
		fcfg.Clock = clock
		s, err := fair.New(fcfg)
		if err != nil {
			return nil, &InputError{File: sc.in.SchedulerConf.Name, Reason: "fair scheduler refused the allocation file", Err: err}
		}
		st := engine.NewFairStats(s)
		st.Expect(sc.Jobs)
		cfg.Scheduler, cfg.Stats = s, st
		// FairReservationSystem's plan: the queue's plan resources (its
		// steady fair share), which rm.FairSpec reads and the follower keeps
		// up to date.
		for _, name := range s.PlanQueues() {
			planQueues = append(planQueues, planQueue{name: name})
		}
	}
	if sc.Reservations && len(planQueues) > 0 {
		res, err := sc.reservations(cfg.Scheduler, planQueues, clock, o)
		if err != nil {
			return nil, err
		}
		cfg.Reservations, cfg.Follower = res.System, res.Follower
	}
	if sc.Preemption {
		if o.Preemptor != nil {
			cfg.Preemptor = o.Preemptor(cfg.Scheduler)
		} else if !o.NoPreemption {
			p, err := sc.defaultPreemptor(cfg.Scheduler)
			if err != nil {
				return nil, err
			}
			cfg.Preemptor = p
		}
	}
	return engine.New(cfg)
}

// capacityScheduler builds the capacity scheduler into cfg, with its
// asynchronous rounds and lifetime monitor when the configuration asks
// for them, and returns its plan queues sized on cluster (the default
// partition's resource).
func (sc *Scenario) capacityScheduler(cfg *engine.Config, clock *berth.ManualClock, cluster berth.Resource) ([]planQueue, error) {
	var planQueues []planQueue
	ccfg := sc.capCfg
	if ccfg.Async.Enabled {
		// Simulated NodeManagers never miss a heartbeat: no node is
		// skipped, as YARN skips none of its live nodes.
		ccfg.Async.SkipNodeAfter = 0
	}
	ccfg.Clock = clock
	s, err := capacity.New(ccfg)
	if err != nil {
		return nil, &InputError{File: sc.in.SchedulerConf.Name, Reason: "capacity scheduler refused the configuration", Err: err}
	}
	st := engine.NewCapacityStats(s)
	st.Expect(sc.autoLeaves)
	cfg.Scheduler, cfg.Stats = s, st
	if ccfg.Async.Enabled {
		cfg.Rounds, cfg.RoundInterval = s, ccfg.Async.Interval
	}
	if usesLifetimes(&ccfg.Root) {
		cfg.Lifetimes, cfg.LifetimeInterval = capacityLifetimes{s}, lifetimeMonitorInterval
	}
	for _, q := range s.Snapshot().Queues.Queues {
		if q.Kind == queue.KindPlan {
			// The cluster × the queue's share, memory rounded down to
			// the minimum allocation. (plan.PlanCapacity gives one
			// vcore, as YARN's CS does until its follower runs; both
			// types are scaled here.)
			abs := float64(q.AbsoluteCapacity)
			capa := berth.New(int64(float64(cluster.Memory)*abs)/1024*1024, int64(float64(cluster.VCores)*abs))
			planQueues = append(planQueues, planQueue{name: q.Path.Name(), capacity: &capa})
		}
	}
	return planQueues, nil
}

// planQueue is a reservable queue and, when the scenario sizes its plan
// rather than the scheduler (capacity), the plan's starting capacity.
type planQueue struct {
	name     string
	capacity *berth.Resource
}

// reservations builds the reservation system of the scheduler with
// package rm: a plan per reservable queue with the agent, policy and
// replanner its keys name, and the follower. A plan starts at its
// planQueue's capacity where it has one (capacity scheduler), else at what
// rm's spec gives (the fair scheduler's PlanResources).
func (sc *Scenario) reservations(s engine.Scheduler, pqs []planQueue, clock berth.Clock, o Options) (*rm.Reservations, error) {
	var spec rm.SystemSpec
	var err error
	switch s := s.(type) {
	case *capacity.Scheduler:
		spec, err = rm.CapacitySpec(s)
	case *fair.Scheduler:
		spec, err = rm.FairSpec(s, sc.fairAF)
	default:
		err = fmt.Errorf("no reservation system for scheduler %T", s)
	}
	if err != nil {
		return nil, err
	}
	sized := make(map[string]berth.Resource, len(pqs))
	for _, pq := range pqs {
		if pq.capacity != nil {
			sized[pq.name] = *pq.capacity
		}
	}
	for i := range spec.Plans {
		if c, ok := sized[spec.Plans[i].Queue]; ok {
			spec.Plans[i].Capacity = c
		}
	}
	if sc.FollowerStep > 0 {
		spec.Settings.Step = sc.FollowerStep // the site's planfollower.time-step is the plans' step too
	}
	res, err := rm.NewReservations(spec, rm.Options{Clock: clock, ClusterTimestamp: 1, Logger: o.Logger})
	if err != nil {
		return nil, fmt.Errorf("reservation system: %w", err)
	}
	return res, nil
}

// Run builds an engine and runs it.
func (sc *Scenario) Run(o Options) (*metrics.Run, error) {
	e, err := sc.Engine(o)
	if err != nil {
		return nil, err
	}
	r, err := e.Run()
	if err != nil {
		return nil, err
	}
	r.Config = append(sc.ConfigNotes(), sc.InputNotes()...)
	r.Description = sc.Description
	return r, nil
}

// ConfigNotes is the configuration report as the metrics record it: the
// scheduler file's notes, then the site file's.
func (sc *Scenario) ConfigNotes() []metrics.ConfigNote {
	var out []metrics.ConfigNote
	add := func(file string, r queue.ConfigReport) {
		for _, n := range r.Notes {
			c := metrics.ConfigNote{File: file, Kind: n.Kind.String(), Key: n.Key, Value: n.Value, Detail: n.Instead}
			if n.Kind == queue.NoteUnknown {
				c.Detail = ""
				if n.Suggestion != "" {
					c.Detail = "did you mean " + n.Suggestion + "?"
				}
			}
			out = append(out, c)
		}
	}
	conf := sc.in.SchedulerConf.Name
	if conf == "" {
		conf = sc.Scheduler + " scheduler"
	}
	add(conf, sc.ConfigReport)
	for _, n := range sc.SiteReport.Notes {
		add(sc.Site.source(n.Key), queue.ConfigReport{Notes: []queue.ConfigNote{n}})
	}
	if sc.in.SLSMonitor && sc.Scheduler == "capacity" {
		out = append(out, metrics.ConfigNote{File: "run", Kind: "set as SLS does", Key: KeyMonitorEnable, Value: "true",
			Detail: "SLS's RMRunner runs the capacity scheduler's preemption monitor (ProportionalCapacityPreemptionPolicy) in every run, whatever the configuration says (the command's --sls-monitor=false follows the configuration)"})
	}
	if sc.Site != nil {
		for _, o := range sc.Site.Ignored {
			out = append(out, metrics.ConfigNote{File: o.File, Kind: "final elsewhere", Key: o.Key, Value: o.Value,
				Detail: "ignored: " + o.KeptFrom + " marks the key final (Hadoop's Configuration keeps its value)"})
		}
	}
	return out
}
