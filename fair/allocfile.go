package fair

import (
	"math"
	"strings"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

// Defaults of the allocation file (YARN's AllocationConfiguration).
const (
	// DefaultMaxAMShare is queueMaxAMShareDefault's default.
	DefaultMaxAMShare = 0.5
	// DefaultFairSharePreemptionThreshold is
	// defaultFairSharePreemptionThreshold's default.
	DefaultFairSharePreemptionThreshold = 0.5
	// NoTimeout is the "never" preemption timeout (Long.MAX_VALUE).
	NoTimeout berth.Duration = math.MaxInt64
	// Inherit marks a per-queue timeout or threshold that follows the parent.
	Inherit = -1
)

// AllocationFile is a parsed fair-scheduler.xml: the queue tree with each
// queue's settings as written, the per-user limits, the defaults that apply
// to everything the file does not set, and the placement policy. It is
// plain typed data; [ParseAllocationFile] builds it and [Scheduler.Reload]
// applies it.
type AllocationFile struct {
	// Root is the root queue; its Children are the top-level queues in
	// file order.
	Root QueueConfig
	// UserMaxApps holds per-user maxRunningApps from <user> elements.
	UserMaxApps map[string]int
	// UserMaxAppsDefault is userMaxAppsDefault (math.MaxInt32 when absent).
	UserMaxAppsDefault int
	// QueueMaxAppsDefault is queueMaxAppsDefault (math.MaxInt32).
	QueueMaxAppsDefault int
	// QueueMaxResourcesDefault is queueMaxResourcesDefault (unbounded).
	QueueMaxResourcesDefault ConfigurableResource
	// QueueMaxAMShareDefault is queueMaxAMShareDefault (0.5, clamped to 1).
	QueueMaxAMShareDefault float32
	// DefaultPolicy is defaultQueueSchedulingPolicy (fair; never FIFO).
	DefaultPolicy Policy
	// DefaultSchedulingPolicy, when set, is a host's policy named by
	// defaultQueueSchedulingPolicy through ParseOptions.Policies (or set in
	// Go); it takes precedence over DefaultPolicy.
	DefaultSchedulingPolicy SchedulingPolicy
	// DefaultMinSharePreemptionTimeout and DefaultFairSharePreemptionTimeout
	// are in milliseconds (the file gives seconds); NoTimeout when absent.
	DefaultMinSharePreemptionTimeout  berth.Duration // defaultMinSharePreemptionTimeout, ms
	DefaultFairSharePreemptionTimeout berth.Duration // defaultFairSharePreemptionTimeout, ms
	// DefaultFairSharePreemptionThreshold is in [0, 1] (0.5).
	DefaultFairSharePreemptionThreshold float32
	// Reservation holds the reservation settings every reservable queue
	// shares: the reservation-agent, reservation-policy and
	// reservation-planner elements over YARN's defaults, which the file
	// cannot change otherwise (YARN's fair scheduler reads no window,
	// average or instantaneous limit, enforcement window or move-on-expiry
	// from it; a host may set them here in Go). Nil when the file sets
	// none: YARN's defaults. The reservation ACLs are per queue
	// (QueueConfig); Reservation.ACLs is not used.
	Reservation *queue.ReservationSettings
	// Placement is the queuePlacementPolicy; nil means the implicit policy
	// built from the scheduler's Config.
	Placement *PlacementPolicy
}

// QueueConfig is one <queue> element. Pointer fields are nil when the
// element is absent, so that defaults and inheritance stay visible.
type QueueConfig struct {
	// Path is the full path, e.g. "root.a.b".
	Path string
	// Parent is true for type="parent" or a queue with child queues.
	Parent bool
	// MinResources is minResources (types not given are 0).
	MinResources *berth.Resource
	// MaxResources is maxResources (nil: queueMaxResourcesDefault).
	MaxResources *ConfigurableResource
	// MaxChildResources caps ad-hoc children created under this parent.
	MaxChildResources *ConfigurableResource
	// MaxContainerAllocation caps one container (nil: the parent's).
	MaxContainerAllocation *berth.Resource
	// MaxRunningApps (nil: queueMaxAppsDefault).
	MaxRunningApps *int
	// MaxAMShare, clamped to 1; -1 disables the check (nil: default).
	MaxAMShare *float32
	// Weight (nil: 1).
	Weight *float32
	// Policy is schedulingPolicy (nil: the default policy).
	Policy *Policy
	// SchedulingPolicy, when set, is a host's policy for this queue (a
	// registered schedulingPolicy name, or set in Go); it takes precedence
	// over Policy and the default.
	SchedulingPolicy SchedulingPolicy
	// SubmitACL and AdministerACL are aclSubmitApps and aclAdministerApps
	// (nil: root everyone, others nobody).
	SubmitACL, AdministerACL *queue.ACL
	// The reservation ACLs (nil when absent).
	AdministerReservationsACL, ListReservationsACL, SubmitReservationsACL *queue.ACL
	// MinSharePreemptionTimeout and FairSharePreemptionTimeout in ms (nil:
	// inherit); FairSharePreemptionThreshold in [0, 1] (nil: inherit).
	MinSharePreemptionTimeout, FairSharePreemptionTimeout *berth.Duration // ms; nil: inherit
	FairSharePreemptionThreshold                          *float32        // nil: inherit
	// AllowPreemptionFrom false makes the queue and its subtree
	// non-preemptable (nil: true).
	AllowPreemptionFrom *bool
	// Reservable marks a plan queue (<reservation/>); leaves only.
	Reservable bool
	// Children in file order.
	Children []QueueConfig
}

// QueueSettings are one queue's effective settings: the file's values with
// the file's defaults applied (inheritance of timeouts and thresholds is
// left to the scheduler, which knows the tree: they read Inherit here).
type QueueSettings struct {
	MinResources           berth.Resource        // minResources (zero when absent)
	MaxResources           ConfigurableResource  // maxResources or queueMaxResourcesDefault
	MaxChildResources      *ConfigurableResource // maxChildResources, nil when absent
	MaxContainerAllocation *berth.Resource       // nil: inherited from the parent
	MaxRunningApps         int                   // maxRunningApps or queueMaxAppsDefault
	MaxAMShare             float32               // maxAMShare or queueMaxAMShareDefault; -1 disables
	Weight                 float32               // weight (1)
	Policy                 Policy                // schedulingPolicy or the default policy
	SchedulingPolicy       SchedulingPolicy      // a host's policy; nil: Policy
	SubmitACL              queue.ACL             // aclSubmitApps (root: everyone, others: nobody)
	AdministerACL          queue.ACL             // aclAdministerApps (same defaults)

	MinSharePreemptionTimeout    berth.Duration // ms; Inherit when absent (root: the default)
	FairSharePreemptionTimeout   berth.Duration // ms; Inherit when absent (root: the default)
	FairSharePreemptionThreshold float32        // [0, 1]; Inherit when absent (root: the default)
	AllowPreemptionFrom          bool           // false: never preempt from this queue
	Reservable                   bool           // a plan queue
	// Configured is true when the file names the queue.
	Configured bool
}

// DefaultAllocationFile returns the configuration of an empty
// <allocations/> element.
func DefaultAllocationFile() *AllocationFile {
	return &AllocationFile{
		Root:                                QueueConfig{Path: queue.RootName, Parent: true},
		UserMaxApps:                         map[string]int{},
		UserMaxAppsDefault:                  math.MaxInt32,
		QueueMaxAppsDefault:                 math.MaxInt32,
		QueueMaxResourcesDefault:            UnboundedResource(),
		QueueMaxAMShareDefault:              DefaultMaxAMShare,
		DefaultPolicy:                       PolicyFair,
		DefaultMinSharePreemptionTimeout:    NoTimeout,
		DefaultFairSharePreemptionTimeout:   NoTimeout,
		DefaultFairSharePreemptionThreshold: DefaultFairSharePreemptionThreshold,
	}
}

// Queue returns the configuration of the queue at path, or nil when the
// file does not name it.
func (af *AllocationFile) Queue(path string) *QueueConfig {
	var find func(q *QueueConfig) *QueueConfig
	find = func(q *QueueConfig) *QueueConfig {
		if q.Path == path {
			return q
		}
		if !strings.HasPrefix(path, q.Path+".") {
			return nil
		}
		for i := range q.Children {
			if r := find(&q.Children[i]); r != nil {
				return r
			}
		}
		return nil
	}
	return find(&af.Root)
}

// UserMaxRunningApps returns the running-application limit of user.
func (af *AllocationFile) UserMaxRunningApps(user string) int {
	if n, ok := af.UserMaxApps[user]; ok {
		return n
	}
	return af.UserMaxAppsDefault
}

// Settings returns the effective settings of the queue at path (which need
// not be in the file: ad-hoc queues get the defaults).
func (af *AllocationFile) Settings(path string) QueueSettings {
	s := QueueSettings{
		MaxResources:                 af.QueueMaxResourcesDefault,
		MaxRunningApps:               af.QueueMaxAppsDefault,
		MaxAMShare:                   af.QueueMaxAMShareDefault,
		Weight:                       1,
		Policy:                       af.DefaultPolicy,
		SchedulingPolicy:             af.DefaultSchedulingPolicy,
		SubmitACL:                    queue.Nobody(),
		AdministerACL:                queue.Nobody(),
		MinSharePreemptionTimeout:    Inherit,
		FairSharePreemptionTimeout:   Inherit,
		FairSharePreemptionThreshold: Inherit,
		AllowPreemptionFrom:          true,
	}
	if path == queue.RootName {
		s.SubmitACL, s.AdministerACL = queue.Everyone(), queue.Everyone()
		s.MinSharePreemptionTimeout = af.DefaultMinSharePreemptionTimeout
		s.FairSharePreemptionTimeout = af.DefaultFairSharePreemptionTimeout
		s.FairSharePreemptionThreshold = af.DefaultFairSharePreemptionThreshold
	}
	q := af.Queue(path)
	if q == nil {
		return s
	}
	s.Configured = true
	if q.MinResources != nil {
		s.MinResources = *q.MinResources
	}
	if q.MaxResources != nil {
		s.MaxResources = *q.MaxResources
	}
	s.MaxChildResources = q.MaxChildResources
	s.MaxContainerAllocation = q.MaxContainerAllocation
	if q.MaxRunningApps != nil {
		s.MaxRunningApps = *q.MaxRunningApps
	}
	if q.MaxAMShare != nil {
		s.MaxAMShare = *q.MaxAMShare
	}
	if q.Weight != nil {
		s.Weight = *q.Weight
	}
	if q.Policy != nil {
		s.Policy, s.SchedulingPolicy = *q.Policy, nil
	}
	if q.SchedulingPolicy != nil {
		s.SchedulingPolicy = q.SchedulingPolicy
	}
	if q.SubmitACL != nil {
		s.SubmitACL = *q.SubmitACL
	}
	if q.AdministerACL != nil {
		s.AdministerACL = *q.AdministerACL
	}
	if q.MinSharePreemptionTimeout != nil {
		s.MinSharePreemptionTimeout = *q.MinSharePreemptionTimeout
	}
	if q.FairSharePreemptionTimeout != nil {
		s.FairSharePreemptionTimeout = *q.FairSharePreemptionTimeout
	}
	if q.FairSharePreemptionThreshold != nil {
		s.FairSharePreemptionThreshold = *q.FairSharePreemptionThreshold
	}
	if q.AllowPreemptionFrom != nil {
		s.AllowPreemptionFrom = *q.AllowPreemptionFrom
	}
	s.Reservable = q.Reservable
	return s
}

// validateReservation checks the reservation settings a host may have
// set in Go (the parser's are valid).
func (af *AllocationFile) validateReservation() error {
	if af.Reservation == nil {
		return nil
	}
	return af.Reservation.Validate("allocations.")
}
