package capacity

import (
	"fmt"
	"slices"

	"github.com/berthsched/berth"
)

// applySettings derives a queue's effective YARN 3.x settings from its
// parent's, top down with applyCapacities: the maximum allocation, the
// lifetimes and a leaf's priority ACLs. The configuration was validated,
// so inheritLifetimes cannot fail here.
func (s *Scheduler) applySettings(q *qnode) {
	st := q.set()
	var parentLife *lifetimes
	parentMax := s.cfg.MaxAllocation
	if p := q.parent; p != nil {
		parentLife, parentMax = &p.life, p.maxAlloc
	}
	q.maxAlloc = overrideAllocation(parentMax, st.MaxAllocation)
	q.life, _ = inheritLifetimes(parentLife, st)
	if lf := q.leaf; lf != nil {
		lf.priorityACLs = priorityACLsByMax(st.PriorityACLs, s.cfg.MaxAppPriority)
	}
}

// overrideAllocation is QueueAllocationSettings.setupMaximumAllocation:
// the parent's maximum allocation, with each amount the queue sets.
func overrideAllocation(parent, own berth.Resource) berth.Resource {
	out := parent
	if own.Memory > 0 {
		out.Memory = own.Memory
	}
	if own.VCores > 0 {
		out.VCores = own.VCores
	}
	for _, e := range own.Extras() {
		if e.Value > 0 {
			out = out.With(e.Name, e.Value)
		}
	}
	return out
}

// validateQueueFeatures checks the YARN 3.x settings of a configured
// tree that need the scheduler-wide configuration: maximum allocations
// within the cluster's, lifetimes, multi-node policy names and the
// auto-creation templates.
func (c *Config) validateQueueFeatures() error {
	if err := validateLifetimes(&c.Root, "root", nil); err != nil {
		return err
	}
	return c.walkQueues(&c.Root, "root", func(q *QueueConfig, path string) error {
		key := prefix + path + "."
		st := &q.Settings
		if err := c.checkMaxAllocation(key, st.MaxAllocation); err != nil {
			return err
		}
		if err := validatePriorityACLs(key, st.PriorityACLs); err != nil {
			return err
		}
		if n := st.NodeSortingPolicy; n != "" {
			if _, ok := c.MultiNode.Policies[n]; !ok {
				return berth.InvalidField(key+"multi-node-sorting.policy", n, "not one of multi-node-sorting.policy.names")
			}
		}
		if st.AutoCreate != nil {
			return st.AutoCreate.validate(c, key, q)
		}
		return nil
	})
}

// checkMaxAllocation refuses a queue maximum allocation above the
// cluster's (YARN: "Queue maximum allocation cannot be larger than the
// cluster setting").
func (c *Config) checkMaxAllocation(key string, own berth.Resource) error {
	if own.AnyNegative() {
		return berth.InvalidField(key+"maximum-allocation", own, "must not be negative")
	}
	if own.Memory > c.MaxAllocation.Memory || own.VCores > c.MaxAllocation.VCores {
		return berth.InvalidField(key+"maximum-allocation", own,
			fmt.Sprintf("queue maximum allocation cannot be larger than the cluster setting %v", c.MaxAllocation))
	}
	for _, e := range own.Extras() {
		if e.Value > c.MaxAllocation.Extra(e.Name) {
			return berth.InvalidField(key+"maximum-allocation", own,
				fmt.Sprintf("queue maximum allocation cannot be larger than the cluster setting %v", c.MaxAllocation))
		}
	}
	return nil
}

// walkQueues calls f on every configured queue, depth first.
func (c *Config) walkQueues(q *QueueConfig, path string, f func(*QueueConfig, string) error) error {
	if err := f(q, path); err != nil {
		return err
	}
	for i := range q.Children {
		if err := c.walkQueues(&q.Children[i], path+"."+q.Children[i].Name, f); err != nil {
			return err
		}
	}
	return nil
}

// cloneSettings deep-copies a queue's settings (maps, slices, templates).
func cloneSettings(st QueueSettings) QueueSettings {
	out := st
	if st.UserWeights != nil {
		out.UserWeights = make(map[string]float64, len(st.UserWeights))
		for k, v := range st.UserWeights {
			out.UserWeights[k] = v
		}
	}
	out.PriorityACLs = slices.Clone(st.PriorityACLs)
	out.AutoCreate = st.AutoCreate.clone()
	out.Reservation = st.Reservation.Clone()
	cloneLabelSettings(&out, &st)
	return out
}

// validateFeatures checks the scheduler-wide YARN 3.x settings.
func (c *Config) validateFeatures() error {
	for _, u := range sortedKeys(c.UserMaxParallelAppsFor) {
		if c.UserMaxParallelAppsFor[u] < 0 {
			return berth.InvalidField(prefix+"user."+u+".max-parallel-apps", c.UserMaxParallelAppsFor[u], "must not be negative")
		}
	}
	a := &c.Async
	switch {
	case a.Interval < 0:
		return berth.InvalidField(prefix+asyncPrefix+"scheduling-interval-ms", a.Interval, "must not be negative")
	case a.SkipNodeAfter < 0:
		return berth.InvalidField(keyNMHeartbeat, a.SkipNodeAfter, "must not be negative")
	case c.AutoQueueExpiration < 0:
		return berth.InvalidField(prefix+autoV2Prefix+"queue-expiration-time", c.AutoQueueExpiration, "must not be negative")
	}
	m := &c.MultiNode
	for _, name := range sortedKeys(m.Policies) {
		ns := m.Policies[name]
		key := prefix + nodeSortingPrefix + "." + name
		if ns.Policy == nil {
			return berth.InvalidField(key+".class", nil, "a policy is required")
		}
		if ns.Interval < 0 {
			return berth.InvalidField(key+".sorting-interval.ms", ns.Interval, "must not be negative")
		}
	}
	if m.Policy != "" {
		if _, ok := m.Policies[m.Policy]; !ok {
			return berth.InvalidField(prefix+nodeSortingPrefix, m.Policy, "not one of multi-node-sorting.policy.names")
		}
	}
	return nil
}

// checkAllocationShrink refuses a reconfiguration that lowers a leaf's
// maximum allocation: its applications were told the old one (YARN's
// "the maximum allocation size can not be decreased").
func (s *Scheduler) checkAllocationShrink(cfg *Config) error {
	var walk func(q *QueueConfig, path string, parent berth.Resource) error
	walk = func(q *QueueConfig, path string, parent berth.Resource) error {
		eff := overrideAllocation(parent, q.Settings.MaxAllocation)
		if old := s.byPath[path]; old != nil && old.leaf != nil && len(q.Children) == 0 && !old.maxAlloc.FitsIn(eff) {
			return berth.InvalidField(prefix+path+".maximum-allocation", eff,
				fmt.Sprintf("the maximum allocation of a queue cannot be decreased (now %v)", old.maxAlloc))
		}
		for i := range q.Children {
			if err := walk(&q.Children[i], path+"."+q.Children[i].Name, eff); err != nil {
				return err
			}
		}
		return nil
	}
	return walk(&cfg.Root, "root", cfg.MaxAllocation)
}
