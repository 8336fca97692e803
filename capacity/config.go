package capacity

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

// AppOrdering is a leaf queue's application ordering policy
// (yarn.scheduler.capacity.<queue>.ordering-policy on a leaf).
type AppOrdering uint8

const (
	// OrderFIFO orders applications by application priority (higher first),
	// then submission order. YARN's "fifo", the default.
	OrderFIFO AppOrdering = iota
	// OrderFair orders applications by their used memory (smaller first),
	// then start time. YARN's "fair".
	OrderFair
)

// String returns YARN's spelling.
func (o AppOrdering) String() string {
	if o == OrderFair {
		return "fair"
	}
	return "fifo"
}

// ChildOrdering is a parent queue's child ordering policy
// (ordering-policy on a parent).
type ChildOrdering uint8

const (
	// OrderUtilization visits the least used child (relative to its
	// guarantee) first. YARN's "utilization", the default.
	OrderUtilization ChildOrdering = iota
	// OrderPriorityUtilization also respects queue priorities. YARN's
	// "priority-utilization".
	OrderPriorityUtilization
)

// String returns YARN's spelling.
func (o ChildOrdering) String() string {
	if o == OrderPriorityUtilization {
		return "priority-utilization"
	}
	return "utilization"
}

// QueueSettings are the capacity scheduler's own per-queue knobs; the
// queue tree (package queue) holds the rest (capacities, state, ACLs,
// reservable). Values are literal: start from [DefaultSettings].
type QueueSettings struct {
	// UserLimitFactor bounds one user to this multiple of the queue's
	// guarantee (leaf).
	UserLimitFactor float64
	// MinUserLimitPercent is the minimum share, in percent, a user gets
	// when users compete (leaf).
	MinUserLimitPercent float64
	// MaxApplications caps pending plus running applications in the leaf;
	// negative derives it from the system limit and the queue's capacity.
	MaxApplications int
	// MaxAMResourcePercent caps the share of the queue used by application
	// masters, as a fraction; negative uses the system value.
	MaxAMResourcePercent float64
	// AppOrdering applies to leaves.
	AppOrdering AppOrdering
	// AppOrderingPolicy, when set, is a host's application ordering for a
	// leaf; it takes precedence over AppOrdering.
	AppOrderingPolicy AppOrderingPolicy
	// FairSizeBasedWeight divides a fair-ordered app's usage by log2 of its
	// demand.
	FairSizeBasedWeight bool
	// ChildOrdering applies to parents.
	ChildOrdering ChildOrdering
	// ChildOrderingPolicy, when set, is a host's child ordering for a
	// parent; it takes precedence over ChildOrdering.
	ChildOrderingPolicy ChildOrderingPolicy
	// Priority of the queue among its siblings (priority-utilization).
	Priority int
	// UserWeights gives per-user weights (default 1).
	UserWeights map[string]float64
	// AccessibleNodeLabels are the node labels whose partitions the
	// queue's applications may ask for (accessible-node-labels): [AnyLabel]
	// for all; nil inherits the parent's; an empty list none but the
	// default partition. The root accesses every partition whatever it
	// says, as in YARN.
	AccessibleNodeLabels []string
	// DefaultNodeLabelExpression is the partition of the asks (and AMs) of
	// the queue's applications that name none
	// (default-node-label-expression); "" inherits the parent's when the
	// queue's accessible labels include the parent's, queue.NoLabel names
	// the default partition.
	DefaultNodeLabelExpression string
	// NodeLabels holds the queue's settings per node label
	// (accessible-node-labels.<label>.*). A label without an entry gives
	// the queue no guarantee and no maximum on that partition, even one it
	// may access, as in YARN (CSQueueUtils.loadCapacitiesByLabelsFromConf
	// loads only labels with a key; a missing one reads as 0). The root's
	// capacities are ignored: it holds every partition, as in YARN 3.4.
	NodeLabels map[string]LabelSettings
	// Reservation holds a reservable queue's reservation settings
	// (reservation-window, average-capacity, instantaneous-max-capacity,
	// reservation-agent, -policy, -planner, reservation-enforcement-window,
	// show-reservations-as-queues, reservation-move-on-expiry and the
	// acl_*_reservations keys); nil means YARN's defaults. The scheduler
	// only carries them: the host builds the queue's plan from them
	// (examples/rm does).
	Reservation *queue.ReservationSettings

	// The settings below are YARN 3.x's (maxapps.go, priority.go,
	// lifetime.go, limits.go, async.go, autoqueue.go tell how they act).

	// MaxParallelApps caps the applications of the queue's subtree that
	// run at once (max-parallel-apps); later ones are accepted but wait,
	// not activated, until one of them ends. Negative: the scheduler-wide
	// Config.MaxParallelApps.
	MaxParallelApps int
	// DefaultAppPriority is the priority of an application submitted to
	// the leaf without one (default-application-priority).
	DefaultAppPriority int32
	// PriorityACLs are the leaf's acl_application_max_priority groups:
	// who may submit up to which priority, and their default priority.
	// Nil lets anyone submit up to Config.MaxAppPriority; checked only
	// when Config.ACLEnable is set, as in YARN.
	PriorityACLs []PriorityACL
	// MaxAppLifetime and DefaultAppLifetime are the queue's
	// maximum-application-lifetime and default-application-lifetime in
	// seconds: negative inherits the parent's, 0 means none.
	MaxAppLifetime, DefaultAppLifetime int64
	// MaxAllocation is the queue's maximum-allocation (with -mb and
	// -vcores): the largest container its applications may ask for. Zero
	// amounts inherit the parent's, the root's Config.MaxAllocation.
	MaxAllocation berth.Resource
	// NodeSortingPolicy names the leaf's multi-node sorting policy
	// (multi-node-sorting.policy), one of Config.MultiNode.Policies; ""
	// uses Config.MultiNode.Policy.
	NodeSortingPolicy string
	// AutoCreate makes a parent create queues for submissions that name a
	// missing child (YARN's managed parents and auto-queue-creation-v2);
	// nil: none.
	AutoCreate *AutoCreate
}

// DefaultSettings returns YARN's defaults: user-limit-factor 1,
// minimum-user-limit-percent 100, derived maximum-applications and AM
// percent, FIFO, utilization, the scheduler-wide max-parallel-apps, and
// lifetimes and maximum allocation inherited from the parent.
func DefaultSettings() QueueSettings {
	return QueueSettings{UserLimitFactor: 1, MinUserLimitPercent: 100, MaxApplications: -1, MaxAMResourcePercent: -1,
		MaxParallelApps: -1, MaxAppLifetime: -1, DefaultAppLifetime: -1}
}

// QueueConfig is one queue of the tree with the capacity scheduler's
// settings as its payload.
type QueueConfig = queue.Config[QueueSettings]

// Queue returns a queue with a percentage capacity, the given children and
// default settings: the short way to write a tree in Go.
func Queue(name string, capacityPercent float32, children ...QueueConfig) QueueConfig {
	return QueueConfig{Name: name, Capacity: queue.Percent(capacityPercent), Children: children, Settings: DefaultSettings()}
}

// Config is the typed configuration of the capacity scheduler: the global
// `yarn.scheduler.capacity.*` knobs and the queue tree. Start from
// [DefaultConfig]; load a capacity-scheduler.xml with [ParseXML].
type Config struct {
	// Clock is the host's clock, the scheduler's only source of time;
	// required. It is the host's, not part of capacity-scheduler.xml:
	// snapshots do not hold it (RestoreEnv.Clock supplies it) and
	// [Scheduler.Reconfigure] keeps the one the scheduler was built with.
	Clock berth.Clock
	// Root is the queue tree; its name must be "root".
	Root QueueConfig
	// MaximumApplications is the system-wide limit of applications.
	MaximumApplications int
	// GlobalQueueMaxApplications, when positive, is every leaf's default
	// maximum-applications.
	GlobalQueueMaxApplications int
	// MaximumAMResourcePercent is the default AM share of a queue (fraction).
	MaximumAMResourcePercent float64
	// NodeLocalityDelay is the number of missed scheduling opportunities
	// before a rack-local container is accepted; -1 accepts one at once.
	NodeLocalityDelay int
	// RackLocalityAdditionalDelay adds missed opportunities before
	// off-switch; -1 uses the wait-factor formula.
	RackLocalityAdditionalDelay int
	// RackLocalityFullReset resets missed opportunities after a rack-local
	// allocation.
	RackLocalityFullReset bool
	// MaxOffSwitchAssignments per heartbeat (values below 1 count as 1).
	MaxOffSwitchAssignments int
	// MultipleAssignments allows more than one container per heartbeat.
	MultipleAssignments bool
	// MaxContainerAssignments per heartbeat; -1 is unlimited.
	MaxContainerAssignments int
	// ContinueLooking is reservations-continue-look-all-nodes: a queue or
	// user at its limit may still allocate by giving up a reservation.
	ContinueLooking bool
	// Calculator is the resource calculator (YARN's resource-calculator).
	Calculator berth.Calculator
	// MinAllocation and MaxAllocation bound and normalize asks.
	MinAllocation, MaxAllocation berth.Resource
	// Placement holds the queue mappings applied at submission
	// (queue-mappings, the app-name mappings, the override switch); the
	// zero value places every application where it asks.
	Placement Placement
	// NodeLabels are the cluster's partitions (YARN's cluster node
	// labels): a node carrying one (NodeSpec.Label) belongs to it, the
	// others to the default partition. [Scheduler.Reconfigure] may add
	// labels and change their exclusivity, not drop them.
	NodeLabels []NodeLabel
	// Groups tells the users' groups to the queue mappings and the ACLs
	// for submissions whose AppSpec.Groups is nil (as fair.Config.Groups
	// does); nil means such users have no groups. It is the host's, not
	// part of capacity-scheduler.xml.
	Groups queue.Groups
	// ReservationSystem holds the ResourceManager's reservation-system
	// keys (yarn.resourcemanager.reservation-system.*, yarn.acl.enable,
	// yarn.acl.reservation-enable) when the file sets any, as YARN's
	// capacity scheduler configuration is read over yarn-site.xml; nil
	// means YARN's defaults (the system is off). The scheduler only
	// carries them, for the host that builds the reservation system.
	ReservationSystem *queue.ReservationSystemSettings

	// MaxParallelApps is every queue's max-parallel-apps unless the queue
	// sets its own (yarn.scheduler.capacity.max-parallel-apps); negative:
	// no limit, YARN's default.
	MaxParallelApps int
	// UserMaxParallelApps caps the applications one user runs at once
	// across the cluster (user.max-parallel-apps), and
	// UserMaxParallelAppsFor per user (user.<name>.max-parallel-apps);
	// negative: no limit.
	UserMaxParallelApps    int
	UserMaxParallelAppsFor map[string]int
	// MaxAppPriority is yarn.cluster.max-application-priority: a higher
	// application priority is lowered to it. YARN's default, 0, makes
	// every non-negative priority 0.
	MaxAppPriority int32
	// ACLEnable is yarn.acl.enable: the leaves' priority ACLs are checked
	// only when it is set, as in YARN (off by default).
	ACLEnable bool
	// WorkflowPriorities are the workflow-priority-mappings: applications
	// tagged with a workflow id (WorkflowTagPrefix, "workflowid:") run
	// at the mapped priority in the queue (or below) the mapping names,
	// when WorkflowPriorityOverride
	// (workflow-priority-mappings-override.enable) is set.
	WorkflowPriorities       []WorkflowPriority
	WorkflowPriorityOverride bool
	WorkflowTagPrefix        string
	// Async is asynchronous scheduling (schedule-asynchronously.*): node
	// heartbeats allocate nothing and the host runs scheduling rounds.
	Async AsyncScheduling
	// MultiNode is multi-node placement (multi-node-placement-enabled and
	// the multi-node sorting policies).
	MultiNode MultiNodePlacement
	// AutoQueueExpiration is how long an auto-created (v2) queue may stay
	// idle before ManageQueues deletes it
	// (auto-queue-creation-v2.queue-expiration-time, 300 s).
	AutoQueueExpiration berth.Duration
	// NonLegacyQueueMode records legacy-queue-mode.enabled=false. Berth
	// validates every tree with the legacy rules: a tree they accept is
	// scheduled as YARN's non-legacy mode does.
	NonLegacyQueueMode bool
}

// DefaultConfig returns YARN 3.3's defaults and the queue tree of the
// capacity-scheduler.xml YARN ships: a root with one leaf, "default", at
// 100 %. It is a working scheduler as it stands; to build your own tree,
// replace Root.Children (or Root) before calling [New].
func DefaultConfig() Config {
	return Config{
		Root:                        QueueConfig{Name: "root", Settings: DefaultSettings(), Children: []QueueConfig{Queue("default", 100)}},
		MaximumApplications:         10000,
		GlobalQueueMaxApplications:  -1,
		MaximumAMResourcePercent:    0.1,
		NodeLocalityDelay:           40,
		RackLocalityAdditionalDelay: -1,
		RackLocalityFullReset:       true,
		MaxOffSwitchAssignments:     1,
		MultipleAssignments:         true,
		MaxContainerAssignments:     100,
		ContinueLooking:             true,
		Calculator:                  berth.MemoryCalculator{},
		MinAllocation:               berth.New(1024, 1),
		MaxAllocation:               berth.New(8192, 4),
		MaxParallelApps:             -1,
		UserMaxParallelApps:         -1,
		Async:                       DefaultAsyncScheduling(),
		MultiNode:                   DefaultMultiNodePlacement(),
		AutoQueueExpiration:         300_000,
		WorkflowTagPrefix:           "workflowid:",
	}
}

// prefix is the capacity-scheduler.xml key prefix, used to name fields.
const prefix = "yarn.scheduler.capacity."

// validateGlobal checks the scheduler-wide settings.
func (c *Config) validateGlobal() error {
	if c.MaximumApplications < 0 {
		return berth.InvalidField(prefix+"maximum-applications", c.MaximumApplications, "must be non-negative")
	}
	// YARN reads the AM share unchecked: above 1 the AM limit exceeds
	// the queue, and no AM is held back.
	if bad(c.MaximumAMResourcePercent) || c.MaximumAMResourcePercent < 0 {
		return berth.InvalidField(prefix+"maximum-am-resource-percent", c.MaximumAMResourcePercent, "must be a non-negative number")
	}
	if c.NodeLocalityDelay < -1 {
		// -1 is YARN's documented "no delay": rack-local at once.
		return berth.InvalidField(prefix+"node-locality-delay", c.NodeLocalityDelay, "must be -1 (no delay) or non-negative")
	}
	if c.RackLocalityAdditionalDelay < -1 {
		return berth.InvalidField(prefix+"rack-locality-additional-delay", c.RackLocalityAdditionalDelay, "must be -1 or non-negative")
	}
	if c.MaxContainerAssignments < -1 || c.MaxContainerAssignments == 0 {
		return berth.InvalidField(prefix+"per-node-heartbeat.maximum-container-assignments", c.MaxContainerAssignments, "must be -1 or positive")
	}
	if c.Calculator == nil {
		return berth.InvalidField(prefix+"resource-calculator", nil, "a calculator is required")
	}
	if c.MinAllocation.AnyNegative() || c.Calculator.AnyMajorZeroOrNegative(c.MinAllocation) {
		return berth.InvalidField("yarn.scheduler.minimum-allocation-mb", c.MinAllocation, "must be positive")
	}
	if !c.MinAllocation.FitsIn(c.MaxAllocation) {
		return berth.InvalidField("yarn.scheduler.maximum-allocation-mb", c.MaxAllocation, "must be at least the minimum allocation")
	}
	if c.ReservationSystem != nil {
		if err := c.ReservationSystem.Validate(); err != nil {
			return err
		}
	}
	if err := c.validateFeatures(); err != nil {
		return err
	}
	if err := c.validateQueueFeatures(); err != nil {
		return err
	}
	return validateNodeLabels(c.NodeLabels)
}

func bad(f float64) bool { return math.IsNaN(f) || math.IsInf(f, 0) }

// validateSettings checks every queue's QueueSettings on a candidate tree.
func validateSettings(t *queue.Tree[QueueSettings]) error {
	for q := range t.All() {
		st := &q.Payload
		key := prefix + q.Path().String() + "."
		switch {
		case bad(st.UserLimitFactor) || (st.UserLimitFactor < 0 && st.UserLimitFactor != -1):
			// -1 lifts the user limit to the queue's maximum (YARN 3.4).
			return berth.InvalidField(key+"user-limit-factor", st.UserLimitFactor, "must be non-negative, or -1 (no user limit)")
		case bad(st.MinUserLimitPercent) || st.MinUserLimitPercent <= 0 || st.MinUserLimitPercent > 100:
			return berth.InvalidField(key+"minimum-user-limit-percent", st.MinUserLimitPercent, "must be in (0, 100]")
		case bad(st.MaxAMResourcePercent):
			return berth.InvalidField(key+"maximum-am-resource-percent", st.MaxAMResourcePercent, "must be a number (negative: the system value)")
		case st.AppOrdering > OrderFair:
			return berth.InvalidField(key+"ordering-policy", st.AppOrdering, "unknown ordering policy")
		case st.ChildOrdering > OrderPriorityUtilization:
			return berth.InvalidField(key+"ordering-policy", st.ChildOrdering, "unknown ordering policy")
		}
		if st.Reservation != nil {
			if err := st.Reservation.Validate(key); err != nil {
				return err
			}
		}
		maxW := 100 / math.Min(100, st.MinUserLimitPercent)
		for _, u := range sortedKeys(st.UserWeights) {
			if w := st.UserWeights[u]; bad(w) || w < 0 || w > maxW {
				return berth.InvalidField(key+"user-settings."+u+".weight", w, fmt.Sprintf("must be in [0, %v]", maxW))
			}
		}
	}
	return validateLabelSettings(t)
}

// keyError turns a queue-tree error into a FieldError naming the
// capacity-scheduler.xml key. The queue error is translated, not wrapped:
// its path and field become the key, its kind and cause carry over, so the
// text says everything once.
func keyError(err error) error {
	var qe *queue.Error
	if !errors.As(err, &qe) {
		return err
	}
	field := prefix + qe.QueuePath
	if qe.Field != "" {
		field += "." + qe.Field
	}
	return &berth.FieldError{Field: field, Value: qe.Value, Reason: qe.Reason, Kind: kindOf(qe), Err: qe.Err}
}

// argError turns a queue-tree error about a queue the caller named (an
// argument, not a configuration key) into a FieldError on field: the
// argument's name and the value the caller gave.
func argError(err error, field, name string) error {
	var qe *queue.Error
	if !errors.As(err, &qe) {
		return err
	}
	return &berth.FieldError{Field: field, Value: name, Reason: qe.Reason, Kind: kindOf(qe), Err: qe.Err}
}

func kindOf(e *queue.Error) error {
	if e.Kind != nil {
		return e.Kind
	}
	return berth.ErrInvalidArgument
}

// treeConfig is the queue tree of root under the capacity scheduler's rules.
func treeConfig(root QueueConfig) queue.TreeConfig[QueueSettings] {
	return queue.TreeConfig[QueueSettings]{
		Root:                   root,
		CheckCapacitySums:      true,
		RequireStoppedToRemove: true,
		Validate:               validateSettings,
		SettingsEqual:          settingsEqual,
	}
}

func settingsEqual(a, b QueueSettings) bool {
	wa, wb := a.UserWeights, b.UserWeights
	a.UserWeights, b.UserWeights = nil, nil
	if !reflect.DeepEqual(a, b) || len(wa) != len(wb) {
		return false
	}
	for k, v := range wa {
		if w, ok := wb[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// cloneQueueConfig deep-copies a tree configuration so the scheduler never
// shares slices or maps with its caller.
func cloneQueueConfig(q QueueConfig) QueueConfig {
	out := q
	if q.Children != nil {
		out.Children = make([]QueueConfig, len(q.Children))
		for i, c := range q.Children {
			out.Children[i] = cloneQueueConfig(c)
		}
	}
	out.Settings = cloneSettings(q.Settings)
	if q.SubmitACL != nil {
		a := *q.SubmitACL
		out.SubmitACL = &a
	}
	if q.AdminACL != nil {
		a := *q.AdminACL
		out.AdminACL = &a
	}
	return out
}

func (c Config) clone() Config {
	out := c
	out.Root = cloneQueueConfig(c.Root)
	out.Placement = c.Placement.clone()
	out.NodeLabels = slices.Clone(c.NodeLabels)
	if c.ReservationSystem != nil {
		rs := *c.ReservationSystem
		out.ReservationSystem = &rs
	}
	out.UserMaxParallelAppsFor = maps.Clone(c.UserMaxParallelAppsFor)
	out.MultiNode.Policies = maps.Clone(c.MultiNode.Policies)
	out.WorkflowPriorities = slices.Clone(c.WorkflowPriorities)
	return out
}
