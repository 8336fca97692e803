package capacity

import (
	"slices"
	"strings"

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
	// queue-auto-removal.enable, true), when the host calls ManageQueues.
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

// Auto-creation at run time.
//
// A submission whose queue is missing creates it when the deepest
// existing queue above it auto-creates (YARN's
// getOrCreateQueueFromPlacementContext and
// CapacitySchedulerAutoQueueHandler):
//
//   - under a v2 parent (auto-queue-creation-v2, or a parent v2 created),
//     up to two levels: the missing parents from the parent template,
//     the leaf from the leaf template, each with a weight (1w unless the
//     template says otherwise); the parent's children must all use
//     weights, and a parent may hold at most MaxQueues children;
//   - under a legacy managed parent (auto-create-child-queue), the leaf
//     only, and only for a submission a queue mapping placed there (YARN
//     needs the mapping's placement context; a submission naming an
//     existing auto-created leaf directly is refused too). The leaf gets
//     the template's capacity while the parent's guarantee lasts, else
//     none (GuaranteedOrZeroCapacityOverTimePolicy), and its submissions
//     skip the maximum-applications checks, as YARN's
//     AutoCreatedLeafQueue does.
//
// [Scheduler.ManageQueues] is the host's clock for what YARN's monitors
// do on theirs: it re-balances managed parents (a leaf without
// applications gives its guarantee back; leaves with applications get
// one, the earliest submission first, while the parent's guarantee
// lasts) and deletes v2 queues left idle for Config.AutoQueueExpiration
// (leaves without applications, then parents without children). YARN
// marks a queue on one pass and deletes it on the next; Berth deletes on
// the pass that finds it expired.

// autoKind says how a queue was auto-created.
type autoKind uint8

const (
	autoNone   autoKind = iota
	autoLegacy          // a managed parent's leaf
	autoV2              // a v2 queue, leaf or parent
)

// autoDepth is YARN's MAXIMUM_DEPTH_ALLOWED: levels v2 creates at once.
const autoDepth = 2

// autoCreate creates the missing queue name (a full path) and returns
// its leaf, or (nil, nil) when nothing above it auto-creates. mapped
// tells that a queue mapping chose name.
func (s *Scheduler) autoCreate(name string, mapped bool, user string, groups queue.Groups) (*qnode, error) {
	p, err := queue.ParsePath(name)
	if err != nil || !strings.HasPrefix(name, queue.RootName+queue.Separator) {
		return nil, nil
	}
	var missing []queue.Path
	var anc *qnode
	for cur := p; ; {
		par, ok := cur.Parent()
		if !ok {
			return nil, nil
		}
		missing = append(missing, cur)
		if anc = s.byPath[par.String()]; anc != nil {
			break
		}
		cur = par
	}
	ac := anc.set().AutoCreate
	if anc.leaf != nil || ac == nil {
		return nil, nil
	}
	field := func(reason string, args ...any) error {
		return fieldErr(berth.ErrInvalidArgument, "queue", name, reason, args...)
	}
	switch {
	case !ac.V2 && (len(missing) > 1 || !mapped):
		return nil, field("auto-creation of %s under managed parent %s needs a queue mapping to a leaf directly below it", name, anc.path)
	case ac.V2 && len(missing) > autoDepth:
		return nil, field("Could not auto create queue %s. In order to create the desired queue hierarchy, %d levels of queues would need to be created, which is above the limit.", name, len(missing))
	}
	if err := s.checkAutoParent(anc, name); err != nil {
		return nil, err
	}
	// What YARN checks before it creates anything: the ACL (of the
	// queues above, the new queue's own allowing nobody) and the
	// system's application limit.
	if !anc.tq.CanSubmit(user, groups) {
		return nil, fieldErr(berth.ErrPermissionDenied, "queue", name, "User %s does not have permission to submit to queue %s", user, name)
	}
	if len(s.apps) >= s.cfg.MaximumApplications {
		return nil, fieldErr(berth.ErrCapacityExceeded, prefix+"maximum-applications", s.cfg.MaximumApplications,
			"Maximum system application limit reached, cannot create queue %s", name)
	}
	s.flushAccounts() // the tree's accounting is read below
	parent := anc
	var leaf *qnode
	for i := len(missing) - 1; i >= 0; i-- {
		isLeaf := i == 0
		if !isLeaf {
			if err := s.checkAutoParent(parent, name); err != nil {
				return nil, err // unreachable: a new parent has no children
			}
		}
		q, err := s.addAutoQueue(parent, missing[i].Name(), isLeaf)
		if err != nil {
			return nil, err
		}
		parent, leaf = q, q
	}
	return leaf, nil
}

// checkAutoParent checks that parent may take one more auto-created
// child.
func (s *Scheduler) checkAutoParent(parent *qnode, name string) error {
	ac := parent.set().AutoCreate
	if n := len(parent.children); n >= ac.MaxQueues {
		return fieldErr(berth.ErrCapacityExceeded, "queue", name,
			"Cannot auto create queue %s. Max Child Queue limit exceeded which is configured as: %d and number of child queues is: %d", name, ac.MaxQueues, n)
	}
	if ac.V2 {
		for _, c := range parent.children {
			if c.tq.Capacity().Kind != queue.CapacityWeight {
				return fieldErr(berth.ErrInvalidArgument, "queue", name,
					"Failed to create queue %s: not all the queues under parent %s are using weight-based capacity", name, parent.path)
			}
		}
	}
	return nil
}

// addAutoQueue creates one queue under parent from parent's template.
func (s *Scheduler) addAutoQueue(parent *qnode, name string, isLeaf bool) (*qnode, error) {
	ac := parent.set().AutoCreate
	tmpl, kind := ac.Leaf, queue.KindLeaf
	if !isLeaf {
		tmpl, kind = ac.Parent, queue.KindParent
	}
	st := cloneSettings(tmpl.Settings)
	if !isLeaf && st.AutoCreate == nil {
		st.AutoCreate = DefaultAutoCreate(true) // a v2 parent creates in turn
	}
	capacity := tmpl.Capacity
	if !ac.V2 {
		capacity = queue.Percent(0)
		if s.legacyRoom(parent) >= templateFraction(ac) {
			capacity = ac.Leaf.Capacity
		} else if ac.FailOnExceedingCapacity {
			return nil, fieldErr(berth.ErrCapacityExceeded, "queue", parent.path+"."+name,
				"Could not auto-create leaf queue %s: its template's capacity would exceed parent %s's guarantee", name, parent.path)
		}
	}
	tq, err := s.tree.AddDynamicQueue(parent.tq, name, kind, st)
	if err != nil {
		return nil, argError(err, "queue", parent.path+"."+name)
	}
	if err := s.tree.SetDynamicCapacity(tq, capacity, tmpl.MaxCapacity); err != nil {
		_ = s.tree.RemoveAutoQueue(tq) // just added, empty: cannot fail
		return nil, keyError(err)
	}
	s.syncTree()
	q := s.byTQ[tq]
	q.auto = autoV2
	if !ac.V2 {
		q.auto = autoLegacy
	}
	q.lastSubmit = s.clock.Now()
	parent.lastSubmit = q.lastSubmit
	s.clusterChanged()
	if s.obs != nil {
		s.emitQueue(queue.QueueAdded, q.path, Entitlement{}, Entitlement{})
	}
	return q, nil
}

// templateFraction is a managed parent's leaf template capacity.
func templateFraction(ac *AutoCreate) float32 {
	if ac.Leaf.Capacity.Kind == queue.CapacityPercent {
		return ac.Leaf.Capacity.Percent / 100
	}
	return 0
}

// legacyRoom is what is left of a managed parent's guarantee for its
// leaves (a fraction of the parent).
func (s *Scheduler) legacyRoom(p *qnode) float32 {
	left := float32(1)
	for _, c := range p.children {
		left -= c.tq.CapacityFraction()
	}
	return left
}

// ManageQueues does what YARN's queue management monitors do at their
// interval, at the host's clock (see the package's auto-creation notes):
// managed parents' leaves are given or relieved of their guarantee, and
// expired v2 queues deleted. It returns the paths of the queues deleted.
func (s *Scheduler) ManageQueues() ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.flushAccounts()
	var parents []*qnode
	eachQueue(s.root, func(q *qnode) {
		if ac := q.set().AutoCreate; ac != nil && !ac.V2 && q.leaf == nil {
			parents = append(parents, q)
		}
	})
	changed := false
	for _, p := range parents {
		if s.rebalanceLegacy(p) {
			changed = true
		}
	}
	deleted, err := s.expireAutoQueues()
	if changed || len(deleted) > 0 {
		s.syncTree()
		s.clusterChanged()
	}
	return deleted, err
}

// rebalanceLegacy is GuaranteedOrZeroCapacityOverTimePolicy for managed
// parent p: leaves without applications give their guarantee back, then
// leaves with applications and none get one, the earliest submission
// first, while the parent's guarantee lasts.
func (s *Scheduler) rebalanceLegacy(p *qnode) bool {
	ac := p.set().AutoCreate
	tf := templateFraction(ac)
	changed := false
	for _, c := range p.children {
		if c.auto == autoLegacy && c.tq.CapacityFraction() > 0 && c.numApps() == 0 {
			_ = s.tree.SetDynamicCapacity(c.tq, queue.Percent(0), ac.Leaf.MaxCapacity) // lowering cannot fail
			changed = true
		}
	}
	if tf <= 0 {
		return changed
	}
	type cand struct {
		q     *qnode
		first *app
	}
	var cands []cand
	for _, c := range p.children {
		if c.auto == autoLegacy && c.tq.CapacityFraction() == 0 && c.leaf != nil && len(c.leaf.apps) > 0 {
			cands = append(cands, cand{c, c.leaf.apps[0]})
		}
	}
	slices.SortFunc(cands, func(x, y cand) int {
		if x.first.start != y.first.start {
			if x.first.start < y.first.start {
				return -1
			}
			return 1
		}
		return cmpSeq(x.first.seq, y.first.seq)
	})
	for _, c := range cands {
		if s.legacyRoom(p) < tf {
			break
		}
		if s.tree.SetDynamicCapacity(c.q.tq, ac.Leaf.Capacity, ac.Leaf.MaxCapacity) == nil {
			changed = true
		}
	}
	return changed
}

// expireAutoQueues deletes the v2 queues idle for longer than
// AutoQueueExpiration: leaves without applications, then parents left
// without children.
func (s *Scheduler) expireAutoQueues() ([]string, error) {
	now := s.clock.Now()
	var out []string
	for {
		var victims []*qnode
		eachQueue(s.root, func(q *qnode) {
			if q.auto != autoV2 || !q.tq.IsDynamic() || now-q.lastSubmit <= s.cfg.AutoQueueExpiration {
				return
			}
			if ac := q.parent.set().AutoCreate; ac != nil && !ac.AutoRemoval {
				return
			}
			if (q.leaf != nil && q.numApps() == 0 && q.used.IsZero()) || (q.leaf == nil && len(q.children) == 0) {
				victims = append(victims, q)
			}
		})
		if len(victims) == 0 {
			return out, nil
		}
		for _, q := range victims {
			if err := s.tree.RemoveAutoQueue(q.tq); err != nil {
				return out, keyError(err)
			}
			out = append(out, q.path)
			if s.obs != nil {
				s.emitQueue(queue.QueueRemoved, q.path, Entitlement{}, Entitlement{})
			}
		}
		s.syncTree()
	}
}
