package queue

import (
	"fmt"
	"math"

	"github.com/berthsched/berth"
)

// CapacityKind tells how a capacity is expressed.
type CapacityKind uint8

const (
	// CapacityUnset: not configured; the default applies (capacity 0%, root
	// 100%; maximum capacity 100%).
	CapacityUnset CapacityKind = iota
	// CapacityPercent: a percentage of the parent, in [0, 100].
	CapacityPercent
	// CapacityAbsolute: an absolute resource ("[memory=…,vcores=…]").
	CapacityAbsolute
	// CapacityWeight: a weight ("2w", YARN 3.4): the queue's share of its
	// parent is its weight over the sum of its siblings' weights.
	CapacityWeight
)

// Capacity is a configured capacity or maximum capacity: unset, a
// percentage of the parent, or an absolute resource. Build one with
// [Percent] or [Absolute]; the zero value is unset. A queue's absolute
// capacity is its fraction times its parent's, and likewise its absolute
// maximum, which may not fall below its absolute capacity (by more than
// 0.0001).
type Capacity struct {
	Kind CapacityKind
	// Percent is the percentage when Kind is CapacityPercent. It is a
	// float32 because YARN reads and sums capacities in single precision,
	// and the sum rule must round as YARN does to accept the same trees.
	Percent float32
	// Resource is the amount when Kind is CapacityAbsolute.
	Resource berth.Resource
	// Weight is the weight when Kind is CapacityWeight, in [0, 10000]
	// (float32, as YARN reads it).
	Weight float32
}

// Percent returns a percentage capacity.
func Percent(p float32) Capacity { return Capacity{Kind: CapacityPercent, Percent: p} }

// Absolute returns an absolute-resource capacity.
func Absolute(r berth.Resource) Capacity { return Capacity{Kind: CapacityAbsolute, Resource: r} }

// Weight returns a weight capacity.
func Weight(w float32) Capacity { return Capacity{Kind: CapacityWeight, Weight: w} }

// IsAbsolute reports whether c is an absolute resource.
func (c Capacity) IsAbsolute() bool { return c.Kind == CapacityAbsolute }

// Equal reports whether both capacities are configured the same way.
func (c Capacity) Equal(o Capacity) bool {
	if c.Kind != o.Kind {
		return false
	}
	switch c.Kind {
	case CapacityPercent:
		return c.Percent == o.Percent
	case CapacityAbsolute:
		return c.Resource.Equal(o.Resource)
	case CapacityWeight:
		return c.Weight == o.Weight
	}
	return true
}

// String formats c as the configuration would: "unset", "37.5%",
// "[memory=1024,vcores=2]" or "2w".
func (c Capacity) String() string {
	switch c.Kind {
	case CapacityPercent:
		return fmt.Sprintf("%g%%", c.Percent)
	case CapacityWeight:
		return fmt.Sprintf("%gw", c.Weight)
	case CapacityAbsolute:
		s := fmt.Sprintf("[memory=%d,vcores=%d", c.Resource.Memory, c.Resource.VCores)
		for _, q := range c.Resource.Extras() {
			s += fmt.Sprintf(",%s=%d", q.Name, q.Value)
		}
		return s + "]"
	}
	return "unset"
}

// State is a queue state. Configuration uses StateUnset (inherit the
// parent's, root: running), StateRunning and StateStopped; [Queue.State]
// also reports StateDraining, for a stopped queue that still has
// applications. A child of a stopped parent is stopped too, and
// configuring it RUNNING is an error.
type State uint8

const (
	// StateUnset: not configured, inherit the parent's state.
	StateUnset State = iota
	// StateRunning: the queue accepts applications.
	StateRunning
	// StateStopped: the queue accepts no new applications.
	StateStopped
	// StateDraining: stopped, but applications are still pending or running
	// (reported, never configured).
	StateDraining
)

// String returns YARN's name (RUNNING, STOPPED, DRAINING) or "UNSET".
func (s State) String() string {
	switch s {
	case StateRunning:
		return "RUNNING"
	case StateStopped:
		return "STOPPED"
	case StateDraining:
		return "DRAINING"
	}
	return "UNSET"
}

// Kind is the role of a queue in the tree.
type Kind uint8

const (
	// KindLeaf is a configured leaf: applications run here.
	KindLeaf Kind = iota
	// KindParent is a configured parent.
	KindParent
	// KindPlan is a reservable queue: configured as a leaf, built as a
	// parent of dynamic reservation queues (YARN's PlanQueue).
	KindPlan
	// KindReservation is a dynamic leaf under a plan queue, added and
	// removed at run time (YARN's ReservationQueue), including the plan's
	// "<plan>-default" queue.
	KindReservation
)

// String names the kind.
func (k Kind) String() string {
	switch k {
	case KindLeaf:
		return "leaf"
	case KindParent:
		return "parent"
	case KindPlan:
		return "plan"
	case KindReservation:
		return "reservation"
	}
	return "unknown"
}

// IsLeaf reports whether applications can be submitted to queues of this
// kind (leaf or reservation).
func (k Kind) IsLeaf() bool { return k == KindLeaf || k == KindReservation }

// Config is the typed, scheduler-neutral configuration of one queue and its
// subtree, with the scheduler's own per-queue settings in Settings. A
// scheduler parses its file (capacity-scheduler.xml, fair-scheduler.xml) at
// the edge into a Config tree and hands it to [New] or [Tree.Reconfigure].
type Config[T any] struct {
	// Name is the queue's short name; the root's is "root" (or empty).
	Name string
	// Capacity is the guaranteed share: unset (0%, root 100%), a
	// percentage of the parent or an absolute resource.
	Capacity Capacity
	// MaxCapacity is the ceiling: unset (100%), a percentage or absolute.
	MaxCapacity Capacity
	// State is the configured state; StateUnset inherits the parent's.
	State State
	// SubmitACL and AdminACL are the queue's ACLs; nil means the default:
	// everyone for root, nobody for other queues (access is still granted
	// by any ancestor, see [Queue.HasAccess]).
	SubmitACL, AdminACL *ACL
	// Parent forces a parent queue even without children (the fair
	// scheduler's type="parent").
	Parent bool
	// Reservable makes a leaf a plan queue (KindPlan) holding dynamic
	// reservation queues; a "<name>-default" reservation queue with
	// entitlement 100%/100% is created with it. Only leaves may be
	// reservable.
	Reservable bool
	// Children are the child queues, in configuration order (which is the
	// iteration order).
	Children []Config[T]
	// Settings is the scheduler's payload for this queue; it becomes
	// [Queue.Payload].
	Settings T
}

// Entitlement is the capacity of a dynamic reservation queue, as fractions
// of its plan queue, set at run time by the plan follower.
type Entitlement struct {
	Capacity    float32 // guaranteed fraction, in [0, 1]
	MaxCapacity float32 // maximum fraction, in [0, 1]
}

// TreeConfig is what [New] builds a [Tree] from: the root queue's
// configuration and the tree-wide rules of its scheduler. The zero rules
// suit the fair scheduler; the capacity scheduler sets CheckCapacitySums
// and RequireStoppedToRemove.
type TreeConfig[T any] struct {
	// Root is the root queue's configuration, its children within.
	Root Config[T]
	// CheckCapacitySums enables the capacity scheduler's rules across
	// siblings (YARN's ParentQueue.setChildQueues): children's percentage
	// capacities must sum to 100% (±0.05%) under a parent with a non-zero
	// capacity and to 0 under a zero-capacity parent (or either under a
	// weight parent); percentage parents may not have absolute children;
	// absolute children must fit in an absolute parent; siblings may not
	// mix weights with percentages or absolute resources (YARN 3.4's
	// legacy queue mode).
	CheckCapacitySums bool
	// RequireStoppedToRemove makes Reconfigure refuse to remove a queue that
	// is not STOPPED (the capacity scheduler's rule). Queues with
	// applications or usage are refused regardless.
	RequireStoppedToRemove bool
	// Validate, when set, checks a candidate tree's scheduler-specific rules
	// (its Settings are in Payload) after the common validation and before
	// it is installed; an error refuses the tree. It sees configuration,
	// not accounting, and must not keep the tree.
	Validate func(candidate *Tree[T]) error
	// Merge, when set, computes the payload of a queue that survives a
	// Reconfigure from its old payload and its new configured Settings
	// (e.g. keep run-time state, take new settings). When nil the new
	// Settings replace the payload. Dynamic queues keep their payload.
	Merge func(path Path, old, settings T) T
	// SettingsEqual, when set, lets Reconfigure report a queue whose
	// Settings alone changed in Diff.Changed.
	SettingsEqual func(a, b T) bool
}

// YARN's tolerances.
const (
	// capacitySumEpsilon is ParentQueue's PRECISION: children's capacity
	// fractions may miss 1.0 by this much.
	capacitySumEpsilon float32 = 0.0005
	// absCapacityEpsilon is CSQueueUtils.EPSILON, used when comparing
	// absolute capacity with absolute maximum capacity.
	absCapacityEpsilon float32 = 0.0001
	// entitlementSumEpsilon bounds the sum of a plan's entitlements
	// (AbstractManagedParentQueue: newSum < 1 + 0.0001).
	entitlementSumEpsilon float32 = 0.0001
)

// DefaultReservationSuffix is appended to a plan queue's name to name its
// default reservation queue ("<plan>-default").
const DefaultReservationSuffix = "-default"

// fraction returns a percentage capacity as a fraction in single precision,
// as YARN stores it (percent/100); absolute and unset read as def.
func fraction(c Capacity, def float32) float32 {
	if c.Kind == CapacityPercent {
		return c.Percent / 100
	}
	return def
}

// validPercent reports whether p is a number in [0, 100].
func validPercent(p float32) bool {
	return !math.IsNaN(float64(p)) && p >= 0 && p <= 100
}
