package rm

import (
	"fmt"
	"strings"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/agent"
	"github.com/berthsched/berth/capacity"
	"github.com/berthsched/berth/fair"
	"github.com/berthsched/berth/follower"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/policy"
	"github.com/berthsched/berth/queue"
)

// PlanQueue is one plan to build: the reservable queue it serves and its
// reservation settings.
type PlanQueue struct {
	// Queue is the plan's queue as the follower names it: the short name
	// under the capacity scheduler ("dedicated"), the full path under the
	// fair scheduler ("root.dedicated").
	Queue string
	// Path is the queue's full path ("root.dedicated").
	Path string
	// KeyPrefix is what the queue's keys start with, for errors:
	// "yarn.scheduler.capacity.root.dedicated." or "allocations.".
	KeyPrefix string
	// Capacity is the plan's capacity until the follower changes it.
	Capacity berth.Resource
	// Settings are the queue's reservation settings.
	Settings queue.ReservationSettings
}

// AgentFactory builds a host's agent for a plan queue; o holds the
// reservation system's agent options (favor-early-allocation,
// smoothness-factor).
type AgentFactory func(q PlanQueue, o agent.Config) (plan.Agent, error)

// PolicyFactory builds a host's sharing policy for a plan queue.
type PolicyFactory func(q PlanQueue) (plan.SharingPolicy, error)

// ReplannerFactory builds a host's replanner for a plan queue.
type ReplannerFactory func(q PlanQueue) (plan.Replanner, error)

// FlavorFactory gives a host's plan follower flavor for the scheduler it
// follows (the *capacity.Scheduler or *fair.Scheduler, or the host's).
type FlavorFactory func(s follower.Scheduler) (follower.Flavor, error)

// SystemSpec is what a reservation system is built from: the scheduler it
// follows and what of its configuration the plans need.
type SystemSpec struct {
	// Scheduler is what the follower publishes the plans to. Required by
	// [NewReservations]; [PlanResolver] does not read it.
	Scheduler follower.Scheduler
	// Flavor is the scheduler's follower flavor, and Kind its name in the
	// reservation-system keys ("capacity" or "fair").
	Flavor follower.Flavor
	Kind   string
	// Settings are the reservation-system keys.
	Settings queue.ReservationSystemSettings
	// Calculator, MinAllocation and MaxAllocation are the scheduler's.
	Calculator                   berth.Calculator
	MinAllocation, MaxAllocation berth.Resource
	// Groups resolves users' groups for the reservation ACLs.
	Groups queue.Groups
	// Plans are the plan queues, in the scheduler's queue order.
	Plans []PlanQueue
}

// Reservations is a reservation system with its plans and follower.
type Reservations struct {
	// System holds the plans and takes the reservation calls.
	System *plan.System
	// Plans are the plans in the order of their queues.
	Plans []*plan.Plan
	// Follower publishes the plans to the scheduler: at each Run, and for
	// System.Submit (see [NewReservations]).
	Follower *follower.Follower
	// Settings are the reservation-system keys the system was built with.
	Settings queue.ReservationSystemSettings
}

// Step is the plan step, how often the host runs the follower (YARN's
// planfollower.time-step; a non-positive setting is the default 1 s).
func (r *Reservations) Step() berth.Duration {
	if r.Settings.Step <= 0 {
		return queue.DefaultPlanStep
	}
	return r.Settings.Step
}

// Plan returns the plan of queue.
func (r *Reservations) Plan(queue string) (*plan.Plan, bool) { return r.System.Plan(queue) }

// String names the plans, for logs.
func (r *Reservations) String() string {
	if r == nil {
		return "no reservation system"
	}
	names := make([]string, len(r.Plans))
	for i, p := range r.Plans {
		names[i] = p.QueueName()
	}
	return "reservation system with plans [" + strings.Join(names, " ") + "]"
}

// CapacitySpec describes the reservation system of a capacity scheduler:
// a plan per reservable queue (by short name) with its settings, sized at
// the cluster × the queue's absolute capacity rounded down to the minimum
// allocation, as YARN's CapacityReservationSystem does.
func CapacitySpec(s *capacity.Scheduler) (SystemSpec, error) {
	if s == nil {
		return SystemSpec{}, berth.InvalidField("scheduler", nil, "must not be nil")
	}
	cfg := s.Config()
	spec := CapacityConfigSpec(cfg)
	spec.Scheduler = s
	sn := s.Snapshot()
	for i := range spec.Plans {
		path, err := queue.ParsePath(spec.Plans[i].Path)
		if err != nil {
			return SystemSpec{}, err
		}
		if q := sn.Queues.Get(path); q != nil {
			spec.Plans[i].Capacity = plan.PlanCapacity(cfg.Calculator, sn.Cluster, float64(q.AbsoluteCapacity), cfg.MinAllocation)
		}
	}
	return spec, nil
}

// CapacityConfigSpec is [CapacitySpec] from the configuration alone,
// without a scheduler: plans of zero capacity (the follower sizes them).
// A host restoring plans from a snapshot resolves them with it before its
// scheduler exists.
func CapacityConfigSpec(cfg capacity.Config) SystemSpec {
	spec := SystemSpec{Flavor: follower.CapacityFlavor, Kind: kindCapacity,
		Settings: cfg.ReservationSystem.Effective(), Calculator: cfg.Calculator,
		MinAllocation: cfg.MinAllocation, MaxAllocation: cfg.MaxAllocation, Groups: cfg.Groups}
	var walk func(q *capacity.QueueConfig, path string)
	walk = func(q *capacity.QueueConfig, path string) {
		if q.Reservable {
			spec.Plans = append(spec.Plans, PlanQueue{Queue: q.Name, Path: path, KeyPrefix: "yarn.scheduler.capacity." + path + ".",
				Settings: q.Settings.Reservation.Effective()})
		}
		for i := range q.Children {
			walk(&q.Children[i], path+"."+q.Children[i].Name)
		}
	}
	walk(&cfg.Root, "root")
	return spec
}

// FairSpec describes the reservation system of a fair scheduler: a plan
// per queue with <reservation/> (by full path) with the file's shared
// reservation settings and the queue's reservation ACLs, sized at the
// plan queue's resources now (PlanResources).
func FairSpec(s *fair.Scheduler, af *fair.AllocationFile) (SystemSpec, error) {
	if s == nil {
		return SystemSpec{}, berth.InvalidField("scheduler", nil, "must not be nil")
	}
	spec := FairConfigSpec(s.Config(), af)
	spec.Scheduler = s
	for i := range spec.Plans {
		if r, err := s.PlanResources(spec.Plans[i].Queue); err == nil {
			spec.Plans[i].Capacity = r
		}
	}
	return spec, nil
}

// FairConfigSpec is [FairSpec] from the configuration alone, without a
// scheduler: plans of zero capacity.
func FairConfigSpec(cfg fair.Config, af *fair.AllocationFile) SystemSpec {
	if af == nil {
		af = fair.DefaultAllocationFile()
	}
	spec := SystemSpec{Flavor: follower.FairFlavor, Kind: kindFair, Settings: cfg.ReservationSystem.Effective(),
		Calculator: berth.MemoryCalculator{}, MinAllocation: cfg.MinAllocation, MaxAllocation: cfg.MaxAllocation,
		Groups: cfg.Groups}
	shared := af.Reservation.Effective()
	var walk func(q *fair.QueueConfig)
	walk = func(q *fair.QueueConfig) {
		if q.Reservable {
			st := shared
			st.ACLs = nil
			if q.SubmitReservationsACL != nil || q.ListReservationsACL != nil || q.AdministerReservationsACL != nil {
				acls := queue.AllowAllReservations()
				for _, a := range []struct {
					src *queue.ACL
					dst *queue.ACL
				}{{q.SubmitReservationsACL, &acls.Submit}, {q.ListReservationsACL, &acls.List}, {q.AdministerReservationsACL, &acls.Administer}} {
					if a.src != nil {
						*a.dst = *a.src
					}
				}
				st.ACLs = &acls
			}
			spec.Plans = append(spec.Plans, PlanQueue{Queue: q.Path, Path: q.Path, KeyPrefix: "allocations.", Settings: st})
		}
		for i := range q.Children {
			walk(&q.Children[i])
		}
	}
	walk(&af.Root)
	return spec
}

// NewReservations builds the reservation system spec describes on clock:
// a plan per spec.Plans (or Options.Plans, when set) with its agent,
// policy and replanner, the system holding them (with the reservation
// ACLs when yarn.acl.enable and yarn.acl.reservation-enable are on), and
// the follower, through which the system publishes a reservation that
// arrives within one plan step when Submit accepts it
// (SystemConfig.Publish is Follower.Publish), as YARN's ClientRMService
// does: its applications may be submitted at once. What such a
// publication ends comes with the follower's next Run (or its
// TakePublished). It builds it whatever spec.Settings.Enabled says: the
// caller decided.
func NewReservations(spec SystemSpec, clock berth.Clock, opts Options) (*Reservations, error) {
	if clock == nil {
		return nil, berth.InvalidField("clock", nil, "a clock is required")
	}
	if spec.Scheduler == nil {
		return nil, berth.InvalidField("spec.Scheduler", nil, "a scheduler is required")
	}
	if err := spec.Settings.Validate(); err != nil {
		return nil, err
	}
	if err := checkClass(spec); err != nil {
		return nil, err
	}
	flavor, err := resolveFlavor(spec, opts)
	if err != nil {
		return nil, err
	}
	if opts.Plans != nil {
		spec.Plans = opts.Plans
	}
	// The follower first: the system publishes through it (YARN's
	// ClientRMService synchronizes a plan when a reservation it accepted
	// arrives within one step), and it follows the plans once they exist.
	fol, err := follower.New(follower.Config{Scheduler: spec.Scheduler, Flavor: flavor, Logger: opts.Logger})
	if err != nil {
		return nil, err
	}
	sc := plan.SystemConfig{ClusterTimestamp: opts.ClusterTimestamp, Clock: clock, Publish: fol.Publish}
	if spec.Settings.ACLs() {
		per := map[string]queue.ReservationQueueACLs{}
		for _, q := range spec.Plans {
			if q.Settings.ACLs != nil {
				per[q.Queue] = *q.Settings.ACLs
			}
		}
		sc.Authorizer = queue.NewReservationACLs(spec.Groups, per)
	}
	sys, err := plan.NewSystem(sc)
	if err != nil {
		return nil, err
	}
	out := &Reservations{System: sys, Follower: fol, Settings: spec.Settings}
	for _, q := range spec.Plans {
		pc, err := PlanConfig(spec, q, clock, opts)
		if err != nil {
			return nil, err
		}
		p, err := plan.New(pc)
		if err != nil {
			return nil, fmt.Errorf("plan %s: %w", q.Queue, err)
		}
		if err := sys.AddPlan(p); err != nil {
			return nil, fmt.Errorf("plan %s: %w", q.Queue, err)
		}
		out.Plans = append(out.Plans, p)
	}
	fol.SetPlans(follower.Plans(out.Plans))
	return out, nil
}

// PlanConfig is the configuration of the plan of q: the reservation
// system's step and periodicity, the scheduler's calculator and
// allocation bounds, the queue's move-on-expiry, and the agent, sharing
// policy and replanner its keys name, built fresh; then
// Options.ConfigurePlan. A name neither built in nor registered is a
// *berth.FieldError naming the key that also matches
// *queue.UnknownNameError.
func PlanConfig(spec SystemSpec, q PlanQueue, clock berth.Clock, opts Options) (plan.Config, error) {
	cfg := plan.DefaultConfig(q.Queue, q.Capacity, clock)
	cfg.Step, cfg.MaxPeriodicity = spec.Settings.Step, spec.Settings.MaxPeriodicity
	if spec.Calculator != nil {
		cfg.Calculator = spec.Calculator
	}
	if !spec.MinAllocation.IsZero() || !spec.MaxAllocation.IsZero() {
		cfg.MinAllocation, cfg.MaxAllocation = spec.MinAllocation, spec.MaxAllocation
	}
	cfg.MoveOnExpiry = q.Settings.MoveOnExpiry
	if err := q.Settings.Validate(q.KeyPrefix); err != nil {
		return cfg, err
	}
	ao := agent.DefaultConfig()
	ao.FavorEarlyAllocation, ao.SmoothnessFactor = spec.Settings.FavorEarlyAllocation, spec.Settings.SmoothnessFactor
	var err error
	if cfg.Agent, err = newAgent(q, ao, opts.Agents); err != nil {
		return cfg, err
	}
	if cfg.Policy, err = newPolicy(q, opts.Policies); err != nil {
		return cfg, err
	}
	if cfg.Replanner, err = newReplanner(q, opts.Replanners); err != nil {
		return cfg, err
	}
	if opts.ConfigurePlan != nil {
		if err := opts.ConfigurePlan(q, &cfg); err != nil {
			return cfg, fmt.Errorf("plan %s: %w", q.Queue, err)
		}
	}
	cfg.Clock = clock
	return cfg, nil
}

// PlanResolver gives plans restored from a snapshot (plan.RestoreSystem)
// the components [PlanConfig] builds for their queue in spec.Plans (or
// Options.Plans), fresh. A saved plan whose queue is not listed is an
// error.
func PlanResolver(spec SystemSpec, clock berth.Clock, opts Options) plan.Resolver {
	if opts.Plans != nil {
		spec.Plans = opts.Plans
	}
	return plan.ResolverFunc(func(saved plan.PlanSpec) (plan.PlanParts, error) {
		for _, q := range spec.Plans {
			if q.Queue != saved.Queue {
				continue
			}
			pc, err := PlanConfig(spec, q, clock, opts)
			if err != nil {
				return plan.PlanParts{}, err
			}
			parts := plan.PlanParts{Agent: pc.Agent, Policy: pc.Policy, Replanner: pc.Replanner}
			switch pc.Calculator.(type) {
			case nil, berth.MemoryCalculator, *berth.MemoryCalculator, berth.DominantCalculator, *berth.DominantCalculator:
			default:
				parts.Calculator = pc.Calculator
			}
			return parts, nil
		}
		return plan.PlanParts{}, berth.InvalidField("plan", saved.Queue, "not a plan queue of the configuration")
	})
}

// yarnPackages are the Java packages of YARN's reservation classes: a
// built-in is named by its simple name alone or within one of them.
var yarnPackages = []string{
	"org.apache.hadoop.yarn.server.resourcemanager.reservation.",
	"org.apache.hadoop.yarn.server.resourcemanager.reservation.planning.",
	"org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.",
	"org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.",
}

// simpleName returns the class's simple name when name is a simple name
// or a class of one of YARN's packages, "" otherwise.
func simpleName(name string) string {
	name = strings.TrimSpace(name)
	if !strings.Contains(name, ".") {
		return name
	}
	for _, p := range yarnPackages {
		if s, ok := strings.CutPrefix(name, p); ok && !strings.Contains(s, ".") {
			return s
		}
	}
	return ""
}

// unknownName is the error of a name neither built in nor registered.
func unknownName(field, kind, name string, builtins, registered []string) error {
	return &berth.FieldError{Field: field, Value: name, Reason: "unknown " + kind,
		Err: &queue.UnknownNameError{Field: field, Kind: kind, Name: name, Known: append(builtins, registered...)}}
}

var builtinAgents = []string{"AlignedPlannerWithGreedy", "GreedyReservationAgent",
	agent.GreedyName, agent.PortfolioName, agent.LegacyGreedyName, agent.LeastWasteName}

func newAgent(q PlanQueue, o agent.Config, reg *queue.Registry[AgentFactory]) (plan.Agent, error) {
	name := q.Settings.Agent
	switch simpleName(name) {
	case "AlignedPlannerWithGreedy":
		return agent.NewAlignedPlannerWithGreedy(o)
	case "GreedyReservationAgent", agent.GreedyName:
		return agent.NewGreedy(o)
	case agent.PortfolioName:
		return agent.NewPortfolio(o)
	case agent.LegacyGreedyName:
		return &agent.LegacyGreedy{}, nil
	case agent.LeastWasteName:
		return agent.NewLeastWaste(agent.LeastWasteConfig{Config: o})
	}
	if f, ok := reg.Lookup(name); ok && f != nil {
		return f(q, o)
	}
	return nil, unknownName(q.KeyPrefix+"reservation-agent", "reservation agent", name, builtinAgents, reg.Names())
}

var builtinPolicies = []string{"CapacityOverTimePolicy", "NoOverCommitPolicy", policy.CapacityOverTimeName, policy.NoOverCommitName}

func newPolicy(q PlanQueue, reg *queue.Registry[PolicyFactory]) (plan.SharingPolicy, error) {
	name := q.Settings.Policy
	switch simpleName(name) {
	case "CapacityOverTimePolicy", policy.CapacityOverTimeName:
		return policy.NewCapacityOverTime(policy.CapacityOverTimeConfig{Window: q.Settings.Window,
			InstantaneousMaxPercent: q.Settings.InstantaneousMaxPercent, AveragePercent: q.Settings.AveragePercent})
	case "NoOverCommitPolicy", policy.NoOverCommitName:
		return policy.NoOverCommit{}, nil
	}
	if f, ok := reg.Lookup(name); ok && f != nil {
		return f(q)
	}
	return nil, unknownName(q.KeyPrefix+"reservation-policy", "sharing policy", name, builtinPolicies, reg.Names())
}

func newReplanner(q PlanQueue, reg *queue.Registry[ReplannerFactory]) (plan.Replanner, error) {
	name := q.Settings.Planner
	if simpleName(name) == policy.SimpleCapacityReplannerName {
		return policy.NewSimpleCapacityReplanner(policy.ReplannerConfig{EnforcementWindow: q.Settings.EnforcementWindow})
	}
	if f, ok := reg.Lookup(name); ok && f != nil {
		return f(q)
	}
	return nil, unknownName(q.KeyPrefix+"reservation-planner", "replanner", name,
		[]string{policy.SimpleCapacityReplannerName}, reg.Names())
}

// The scheduler kinds, as the reservation-system keys name them.
const (
	kindCapacity = "capacity"
	kindFair     = "fair"
)

// systemClasses and followerClasses are YARN's reservation system and plan
// follower of each scheduler.
var (
	systemClasses   = map[string]string{kindCapacity: "CapacityReservationSystem", kindFair: "FairReservationSystem"}
	followerClasses = map[string]string{kindCapacity: "CapacitySchedulerPlanFollower", kindFair: "FairSchedulerPlanFollower"}
)

// checkClass refuses a reservation-system class other than the
// scheduler's own: YARN would fail to start with it.
func checkClass(spec SystemSpec) error {
	c := spec.Settings.Class
	if c == "" {
		return nil
	}
	if want := systemClasses[spec.Kind]; want != "" && simpleName(c) == want {
		return nil
	}
	return berth.InvalidField(queue.KeyReservationSystemClass, c,
		fmt.Sprintf("the %s scheduler's reservation system is %s", spec.Kind, systemClasses[spec.Kind]))
}

// resolveFlavor gives the follower's flavor: the scheduler's own unless
// plan.follower names another, which must be the scheduler's class or
// the host's.
func resolveFlavor(spec SystemSpec, opts Options) (follower.Flavor, error) {
	name := spec.Settings.PlanFollower
	if name == "" {
		if spec.Flavor == nil {
			return nil, berth.InvalidField("spec.Flavor", nil, "a flavor is required")
		}
		return spec.Flavor, nil
	}
	if want := followerClasses[spec.Kind]; want != "" && simpleName(name) == want && spec.Flavor != nil {
		return spec.Flavor, nil
	}
	if f, ok := opts.Flavors.Lookup(name); ok && f != nil {
		return f(spec.Scheduler)
	}
	for kind, class := range followerClasses {
		if simpleName(name) == class && kind != spec.Kind {
			return nil, berth.InvalidField(queue.KeyPlanFollower, name, "it follows the "+kind+" scheduler, not the "+spec.Kind+" one")
		}
	}
	return nil, unknownName(queue.KeyPlanFollower, "plan follower", name, []string{followerClasses[spec.Kind]}, opts.Flavors.Names())
}
