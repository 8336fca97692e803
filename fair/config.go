package fair

import (
	"log/slog"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

// Config holds the scheduler-wide settings of yarn-site.xml (prefix
// yarn.scheduler.fair.) in typed form. Start from [DefaultConfig]: the
// zero value is not YARN's default (several defaults are true or -1).
type Config struct {
	// Clock is the host's clock, the scheduler's only source of time;
	// required. Snapshots do not hold it (RestoreEnv.Clock supplies it).
	Clock berth.Clock
	// Allocation is the allocation file (fair-scheduler.xml) the
	// scheduler starts with; nil is an empty <allocations/>.
	// [Scheduler.Reload] replaces it.
	Allocation *AllocationFile

	// ResourceTypes are the extended resource types configured besides
	// memory and vcores, in order (yarn.resource-types). DRF shares and
	// compares them; resource strings may name them.
	ResourceTypes []string
	// MinAllocation, MaxAllocation and Increment normalize asks
	// (yarn.scheduler.minimum-allocation-*, maximum-allocation-*, and the
	// fair scheduler's increment-allocation).
	MinAllocation, MaxAllocation, Increment berth.Resource

	// UserAsDefaultQueue and AllowUndeclaredPools build the implicit
	// placement policy when the allocation file has none.
	UserAsDefaultQueue   bool // user-as-default-queue (true)
	AllowUndeclaredPools bool // allow-undeclared-pools (true)

	// AssignMultiple lets one heartbeat assign several containers;
	// DynamicMaxAssign then caps them at about half of the node's
	// unallocated resource, otherwise MaxAssign (≤ 0: unlimited) caps the
	// count.
	AssignMultiple   bool // assignmultiple (false)
	DynamicMaxAssign bool // dynamic.max.assign (true)
	MaxAssign        int  // max.assign (-1)

	// LocalityThresholdNode and LocalityThresholdRack are the delay
	// scheduling thresholds as fractions of the cluster size (< 0
	// disables delay scheduling, > 1 is capped at 1).
	LocalityThresholdNode, LocalityThresholdRack float64
	// TimeBasedLocality switches delay scheduling to elapsed time
	// (YARN does so under continuous scheduling) with these delays.
	TimeBasedLocality                    bool           // continuous-scheduling style delay
	LocalityDelayNode, LocalityDelayRack berth.Duration // locality-delay-node-ms / -rack-ms (-1)

	// UpdateInterval is the period of the fair-share update (ms): a
	// heartbeat runs [Scheduler.Update] first when this much host time has
	// passed since the last one. ≤ 0 means the default, 500.
	UpdateInterval berth.Duration

	// SizeBasedWeight gives applications weight log2(1 + demand MB).
	SizeBasedWeight bool

	// Preemption enables starvation tracking (and with it container
	// reservations, which YARN grants only to starved applications);
	// PreemptionUtilizationThreshold gates it on cluster utilization.
	Preemption                     bool    // preemption (false)
	PreemptionUtilizationThreshold float64 // preemption.cluster-utilization-threshold (0.8)

	// ReservableNodes is the fraction of nodes (per rack or cluster) an
	// application may hold reservations on for non-node-local asks.
	ReservableNodes float64
	// ReservationThresholdIncrementMultiple: a container may reserve a node
	// only if it is at least Increment × this.
	ReservationThresholdIncrementMultiple float64

	// Groups maps users to groups for placement rules and ACLs, for
	// submissions whose AppSpec.Groups is nil.
	Groups queue.Groups
	// Logger receives diagnostics (nil: silent).
	Logger *slog.Logger
	// ReservationSystem holds the ResourceManager's reservation-system
	// keys (yarn.resourcemanager.reservation-system.*, yarn.acl.enable,
	// yarn.acl.reservation-enable; queue.ParseReservationSystem reads
	// them from yarn-site.xml properties); nil means YARN's defaults (the
	// system is off). The scheduler only carries them, for the host that
	// builds the reservation system.
	ReservationSystem *queue.ReservationSystemSettings
}

// DefaultConfig returns YARN's defaults: allocations 1024 MB/1 vcore up
// to 8192 MB/4 vcores in steps of 1024 MB/1 vcore, user queues by default,
// undeclared pools allowed, one container per heartbeat, no delay
// scheduling, a 500 ms update interval, no preemption.
func DefaultConfig() Config {
	return Config{
		MinAllocation:                         berth.New(1024, 1),
		MaxAllocation:                         berth.New(8192, 4),
		Increment:                             berth.New(1024, 1),
		UserAsDefaultQueue:                    true,
		AllowUndeclaredPools:                  true,
		DynamicMaxAssign:                      true,
		MaxAssign:                             -1,
		LocalityThresholdNode:                 -1,
		LocalityThresholdRack:                 -1,
		LocalityDelayNode:                     -1,
		LocalityDelayRack:                     -1,
		UpdateInterval:                        500,
		PreemptionUtilizationThreshold:        0.8,
		ReservableNodes:                       0.05,
		ReservationThresholdIncrementMultiple: 2,
	}
}

// Validate checks the allocation sizes as YARN does at start-up.
func (c *Config) Validate() error {
	if c.MinAllocation.Memory < 0 || c.MinAllocation.Memory > c.MaxAllocation.Memory {
		return berth.InvalidField("yarn.scheduler.minimum-allocation-mb", c.MinAllocation.Memory,
			"Invalid resource scheduler memory allocation configuration: minimum must be ≥ 0 and ≤ maximum")
	}
	if c.MinAllocation.VCores < 0 || c.MinAllocation.VCores > c.MaxAllocation.VCores {
		return berth.InvalidField("yarn.scheduler.minimum-allocation-vcores", c.MinAllocation.VCores,
			"Invalid resource scheduler vcores allocation configuration: minimum must be ≥ 0 and ≤ maximum")
	}
	if c.Increment.Memory <= 0 {
		return berth.InvalidField("yarn.scheduler.increment-allocation-mb", c.Increment.Memory, "Values must be greater than 0.")
	}
	if c.Increment.VCores <= 0 {
		return berth.InvalidField("yarn.scheduler.increment-allocation-vcores", c.Increment.VCores, "Values must be greater than 0.")
	}
	for i, t := range c.ResourceTypes {
		if t == "" || t == berth.ResourceMemory || t == berth.ResourceVCores {
			return berth.InvalidField("yarn.resource-types", t, "must name an extended type")
		}
		for _, u := range c.ResourceTypes[:i] {
			if u == t {
				return berth.InvalidField("yarn.resource-types", t, "listed twice")
			}
		}
	}
	if c.ReservableNodes < 0 {
		return berth.InvalidField("yarn.scheduler.fair.reservable-nodes", c.ReservableNodes, "must not be negative")
	}
	if c.ReservationSystem != nil {
		return c.ReservationSystem.Validate()
	}
	return nil
}

func (c *Config) clone() Config {
	out := *c
	out.ResourceTypes = append([]string(nil), c.ResourceTypes...)
	if c.ReservationSystem != nil {
		rs := *c.ReservationSystem
		out.ReservationSystem = &rs
	}
	return out
}
