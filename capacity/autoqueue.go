package capacity

import (
	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

// AutoCreate is a parent queue's auto-creation of queues: a submission
// to a missing queue under it creates the queue (and, in v2, missing
// parents) from its template.
type AutoCreate struct {
	// V2 is YARN 3.4's flexible auto-creation (auto-queue-creation-v2):
	// up to two levels of missing queues are created under this parent,
	// with weight capacities (1w unless the template says otherwise), and
	// an auto-created parent creates queues in turn. Its children must
	// all use weights. Otherwise the parent is a legacy managed parent
	// (auto-create-child-queue): it creates leaves only, each with the
	// leaf template's capacity while the parent's guarantee lasts.
	V2 bool
	// MaxQueues caps the parent's children (auto-create-child-queue.
	// max-queues, auto-queue-creation-v2.max-queues; 1000).
	MaxQueues int
	// Leaf is the template of created leaves (leaf-queue-template.*;
	// v2: auto-queue-creation-v2.template.* and .leaf-template.*).
	Leaf QueueTemplate
	// Parent is the template of parents created by v2
	// (auto-queue-creation-v2.template.* and .parent-template.*).
	Parent QueueTemplate
	// FailOnExceedingCapacity (legacy) refuses to create a leaf once the
	// templates' capacities would exceed the parent's guarantee
	// (auto-create-child-queue.fail-on-exceeding-parent-capacity); by
	// default the leaf is created with no guarantee.
	FailOnExceedingCapacity bool
	// AutoRemoval (v2) deletes created queues left idle for
	// Config.AutoQueueExpiration (auto-queue-creation-v2.
	// queue-auto-removal.enable, true), when the host calls ExpireQueues.
	AutoRemoval bool
}

// QueueTemplate is the configuration an auto-created queue starts with.
type QueueTemplate struct {
	// Capacity and MaxCapacity of the created queue (v2: 1w and 100%
	// unless set; legacy: a percentage of the parent).
	Capacity, MaxCapacity queue.Capacity
	// Settings of the created queue.
	Settings QueueSettings
}

// DefaultAutoCreate returns YARN's defaults for a parent that enables
// auto-creation: at most 1000 children, the templates' default settings,
// auto-removal on (v2).
func DefaultAutoCreate(v2 bool) *AutoCreate {
	a := &AutoCreate{V2: v2, MaxQueues: 1000, AutoRemoval: true,
		Leaf: QueueTemplate{Settings: DefaultSettings()}, Parent: QueueTemplate{Settings: DefaultSettings()}}
	if v2 {
		a.Leaf.Capacity, a.Parent.Capacity = queue.Weight(1), queue.Weight(1)
	}
	return a
}

// validate checks a parent's auto-creation.
func (a *AutoCreate) validate(c *Config, key string, q *QueueConfig) error {
	switch {
	case a.MaxQueues < 0:
		return berth.InvalidField(key+"auto-queue-creation-v2.max-queues", a.MaxQueues, "must not be negative")
	case q.Reservable:
		return berth.InvalidField(key+"auto-create-child-queue.enabled", true, "a reservable queue cannot auto-create queues")
	}
	for _, t := range []*QueueTemplate{&a.Leaf, &a.Parent} {
		if err := c.checkMaxAllocation(key+"leaf-queue-template.", t.Settings.MaxAllocation); err != nil {
			return err
		}
	}
	return nil
}

func (a *AutoCreate) clone() *AutoCreate {
	if a == nil {
		return nil
	}
	out := *a
	out.Leaf.Settings = cloneSettings(a.Leaf.Settings)
	out.Parent.Settings = cloneSettings(a.Parent.Settings)
	return &out
}
