package queue

import (
	"fmt"
	"iter"
	"math"
	"slices"
	"strings"

	"github.com/berthsched/berth"
)

// Queue is one node of a [Tree]: its configuration (capacities, state,
// ACLs), its role (leaf, parent, plan, reservation), its accounting and the
// scheduler's payload. Queues are created and removed only by the Tree; a
// *Queue stays the same object across [Tree.Reconfigure] while its path
// survives, so schedulers may keep pointers to queues (apps to their leaf).
type Queue[T any] struct {
	path     Path
	kind     Kind
	parent   *Queue[T]
	children []*Queue[T]

	capacity, maxCapacity Capacity // configured (for reservation queues: the entitlement as percentages)
	capFrac, maxFrac      float32  // YARN's capacity and maximum capacity, fractions of the parent
	childWeights          float32  // sum of the children's weights (weight capacities)
	absCap, absMax        float32  // fractions of the cluster
	confState             State
	stopped               bool // effective: this queue or an ancestor is configured STOPPED
	submitACL, adminACL   ACL
	submitSet, adminSet   bool
	forcedParent          bool
	dynamic               bool // added at run time (reservation or ad-hoc)

	acct    Usage
	users   map[string]*userEntry
	spare   *userEntry // a zeroed entry kept for reuse
	removed bool

	// Payload is the scheduler's per-queue data: its typed settings (from
	// Config.Settings) and, if it likes, its run-time state. The tree never
	// reads it; see [TreeConfig.Merge] for what happens on Reconfigure.
	Payload T
}

// Path returns the queue's full path.
func (q *Queue[T]) Path() Path { return q.path }

// Name returns the queue's short name.
func (q *Queue[T]) Name() string { return q.path.Name() }

// Kind returns the queue's role.
func (q *Queue[T]) Kind() Kind { return q.kind }

// IsLeaf reports whether applications can be submitted here (a leaf or a
// reservation queue).
func (q *Queue[T]) IsLeaf() bool { return q.kind.IsLeaf() }

// IsRoot reports whether q is the root.
func (q *Queue[T]) IsRoot() bool { return q.parent == nil }

// IsDynamic reports whether q was added at run time: a reservation queue,
// or an ad-hoc queue made by [Tree.AddDynamicQueue] or [Tree.EnsureLeaf]
// that no configuration has adopted since.
func (q *Queue[T]) IsDynamic() bool { return q.dynamic }

// Removed reports whether q is no longer part of its tree (dropped by a
// Reconfigure or RemoveReservationQueue). Accounting on a removed queue
// fails with berth.ErrNotFound.
func (q *Queue[T]) Removed() bool { return q.removed }

// Parent returns the parent queue, nil for root.
func (q *Queue[T]) Parent() *Queue[T] { return q.parent }

// NumChildren returns the number of children.
func (q *Queue[T]) NumChildren() int { return len(q.children) }

// Child returns the i-th child in iteration order (configuration order,
// then dynamic queues in order of addition); nil when i is out of range.
func (q *Queue[T]) Child(i int) *Queue[T] {
	if i < 0 || i >= len(q.children) {
		return nil
	}
	return q.children[i]
}

// Children returns a copy of the children in iteration order.
func (q *Queue[T]) Children() []*Queue[T] { return slices.Clone(q.children) }

// ChildNamed returns the child with the given short name, or nil.
func (q *Queue[T]) ChildNamed(name string) *Queue[T] {
	for _, c := range q.children {
		if c.path.Name() == name {
			return c
		}
	}
	return nil
}

// Capacity returns the configured capacity (for a reservation queue, its
// entitlement as a percentage).
func (q *Queue[T]) Capacity() Capacity { return q.capacity }

// MaxCapacity returns the configured maximum capacity (for a reservation
// queue, its entitlement as a percentage). When a queue has an absolute
// capacity, no maximum, and an absolute-maximum parent, this is the
// parent's maximum, as YARN fills it in.
func (q *Queue[T]) MaxCapacity() Capacity { return q.maxCapacity }

// CapacityFraction is YARN's getCapacity: the guaranteed fraction of the
// parent (0 for an absolute capacity, 1 for root).
func (q *Queue[T]) CapacityFraction() float32 { return q.capFrac }

// MaxCapacityFraction is YARN's getMaximumCapacity: the maximum fraction of
// the parent (1 when unset or absolute).
func (q *Queue[T]) MaxCapacityFraction() float32 { return q.maxFrac }

// AbsoluteCapacity is YARN's getAbsoluteCapacity: CapacityFraction times the
// parent's absolute capacity.
func (q *Queue[T]) AbsoluteCapacity() float32 { return q.absCap }

// AbsoluteMaxCapacity is YARN's getAbsoluteMaximumCapacity.
func (q *Queue[T]) AbsoluteMaxCapacity() float32 { return q.absMax }

// Entitlement returns the capacity and maximum capacity fractions of the
// queue (meaningful for reservation queues, whose entitlement is set at run
// time by [Tree.SetEntitlement]).
func (q *Queue[T]) Entitlement() Entitlement {
	return Entitlement{Capacity: q.capFrac, MaxCapacity: q.maxFrac}
}

// ConfiguredState returns the state as configured (StateUnset inherits).
func (q *Queue[T]) ConfiguredState() State { return q.confState }

// State returns the effective state: STOPPED when the queue or an ancestor
// is configured STOPPED (DRAINING while it still has applications), else
// RUNNING.
func (q *Queue[T]) State() State {
	if !q.stopped {
		return StateRunning
	}
	if q.acct.PendingApps+q.acct.ActiveApps > 0 {
		return StateDraining
	}
	return StateStopped
}

// IsRunning reports whether the queue accepts new applications (its
// effective state is RUNNING).
func (q *Queue[T]) IsRunning() bool { return !q.stopped }

// acl returns the queue's own ACL for an access.
func (q *Queue[T]) acl(a Access) ACL {
	if a == AdministerQueue {
		return q.adminACL
	}
	return q.submitACL
}

// ACL returns the queue's own ACL for access (not the walk-up result).
func (q *Queue[T]) ACL(access Access) ACL { return q.acl(access) }

// Tree is the queue hierarchy a scheduler works on: it builds and validates
// queues from typed [Config], swaps in new configurations atomically, keeps
// per-queue and per-user accounting consistent up the tree, manages dynamic
// reservation queues, answers lookups and produces snapshots.
//
// A Tree is not safe for concurrent use: it is owned by its scheduler,
// which serializes access under its own lock.
//
// Only [New] makes a usable Tree: the zero value has no root and is not
// one (its methods panic or find nothing).
type Tree[T any] struct {
	opts   TreeConfig[T] // the rules; Root is cleared (the queues are the tree)
	root   *Queue[T]
	byPath map[Path]*Queue[T]
	byName map[string][]*Queue[T] // short name → queues, sorted by path
}

// New builds and validates a tree from cfg.Root under cfg's rules. Errors
// are *Error values of kind berth.ErrInvalidArgument naming the queue path
// and field, first offending queue first (depth first, in configuration
// order).
func New[T any](cfg TreeConfig[T]) (*Tree[T], error) {
	root := cfg.Root
	cfg.Root = Config[T]{}
	t, err := build(root, &cfg)
	if err != nil {
		return nil, err
	}
	return t, nil
}

// Root returns the root queue.
func (t *Tree[T]) Root() *Queue[T] { return t.root }

// Len returns the number of queues, dynamic ones included.
func (t *Tree[T]) Len() int { return len(t.byPath) }

// Queue returns the queue at path p, or nil.
func (t *Tree[T]) Queue(p Path) *Queue[T] { return t.byPath[p] }

// Lookup finds a queue by full path ("root.a.b") or by short name ("b")
// when exactly one queue has it, as YARN's capacity scheduler resolves
// queue names. Unknown names fail with berth.ErrNotFound; a short name held
// by several queues fails with berth.ErrInvalidArgument ("ambiguous").
func (t *Tree[T]) Lookup(name string) (*Queue[T], error) {
	if name == RootName || strings.HasPrefix(name, RootName+Separator) {
		if q := t.byPath[Path{name}]; q != nil { // keys are valid paths
			return q, nil
		}
	}
	qs := t.byName[name]
	switch len(qs) {
	case 0:
		return nil, &Error{QueuePath: name, Field: "queue-name", Value: name, Reason: "unknown queue", Kind: berth.ErrNotFound}
	case 1:
		return qs[0], nil
	}
	return nil, invalid(name, "queue-name", name, "ambiguous queue name, use the full queue path")
}

// LookupLeaf is [Tree.Lookup] for submissions: the queue must also be a
// leaf, else an *Error of kind berth.ErrInvalidArgument ("non-leaf queue").
func (t *Tree[T]) LookupLeaf(name string) (*Queue[T], error) {
	q, err := t.Lookup(name)
	if err != nil {
		return nil, err
	}
	if !q.IsLeaf() {
		return nil, invalid(q.path.s, "queue-name", name, "cannot submit to a non-leaf queue")
	}
	return q, nil
}

// All iterates over every queue depth first, parents before children,
// children in iteration order.
func (t *Tree[T]) All() iter.Seq[*Queue[T]] {
	return func(yield func(*Queue[T]) bool) { walk(t.root, yield) }
}

func walk[T any](q *Queue[T], yield func(*Queue[T]) bool) bool {
	if !yield(q) {
		return false
	}
	for _, c := range q.children {
		if !walk(c, yield) {
			return false
		}
	}
	return true
}

// BottomUp iterates over every queue children first (post-order), e.g. to
// aggregate values from leaves to root; siblings in iteration order.
func (t *Tree[T]) BottomUp() iter.Seq[*Queue[T]] {
	return func(yield func(*Queue[T]) bool) { walkPost(t.root, yield) }
}

func walkPost[T any](q *Queue[T], yield func(*Queue[T]) bool) bool {
	for _, c := range q.children {
		if !walkPost(c, yield) {
			return false
		}
	}
	return yield(q)
}

// Leaves returns the leaf and reservation queues, depth first.
func (t *Tree[T]) Leaves() []*Queue[T] {
	var out []*Queue[T]
	for q := range t.All() {
		if q.IsLeaf() {
			out = append(out, q)
		}
	}
	return out
}

// Paths returns every queue path sorted by [Path.Compare].
func (t *Tree[T]) Paths() []Path {
	out := make([]Path, 0, len(t.byPath))
	for p := range t.byPath {
		out = append(out, p)
	}
	slices.SortFunc(out, Path.Compare)
	return out
}

// index rebuilds the lookup maps from the structure.
func (t *Tree[T]) index() {
	t.byPath = make(map[Path]*Queue[T])
	t.byName = make(map[string][]*Queue[T])
	for q := range t.All() {
		t.byPath[q.path] = q
		n := q.path.Name()
		t.byName[n] = append(t.byName[n], q)
	}
	for _, qs := range t.byName {
		slices.SortFunc(qs, func(a, b *Queue[T]) int { return a.path.Compare(b.path) })
	}
}

func (t *Tree[T]) indexAdd(q *Queue[T]) {
	t.byPath[q.path] = q
	n := q.path.Name()
	qs := append(t.byName[n], q)
	slices.SortFunc(qs, func(a, b *Queue[T]) int { return a.path.Compare(b.path) })
	t.byName[n] = qs
}

func (t *Tree[T]) indexRemove(q *Queue[T]) {
	delete(t.byPath, q.path)
	n := q.path.Name()
	qs := slices.DeleteFunc(t.byName[n], func(x *Queue[T]) bool { return x == q })
	if len(qs) == 0 {
		delete(t.byName, n)
	} else {
		t.byName[n] = qs
	}
}

// build constructs and validates a fresh tree.
func build[T any](cfg Config[T], opts *TreeConfig[T]) (*Tree[T], error) {
	if cfg.Name != "" && cfg.Name != RootName {
		return nil, invalid(cfg.Name, "name", cfg.Name, "the top queue must be named root")
	}
	t := &Tree[T]{opts: *opts}
	root, err := buildNode(&cfg, nil, RootPath(), opts)
	if err != nil {
		return nil, err
	}
	t.root = root
	t.index()
	if opts.Validate != nil {
		if err := opts.Validate(t); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// buildNode builds one queue and its subtree: per-queue checks first, then
// children, then the checks across siblings (YARN's order).
func buildNode[T any](c *Config[T], parent *Queue[T], path Path, opts *TreeConfig[T]) (*Queue[T], error) {
	q := &Queue[T]{path: path, parent: parent, Payload: c.Settings, confState: c.State, forcedParent: c.Parent}
	if err := q.setKind(c); err != nil {
		return nil, err
	}
	if err := q.setCapacities(c); err != nil {
		return nil, err
	}
	if err := q.setState(c.State); err != nil {
		return nil, err
	}
	q.submitACL, q.submitSet = defaultACL(q.IsRoot(), c.SubmitACL)
	q.adminACL, q.adminSet = defaultACL(q.IsRoot(), c.AdminACL)
	if err := q.buildChildren(c.Children, opts); err != nil {
		return nil, err
	}
	if q.kind == KindParent && len(q.children) > 0 && opts.CheckCapacitySums {
		if err := checkChildCapacities(q); err != nil {
			return nil, err
		}
	}
	if q.kind == KindPlan {
		q.children = append(q.children, newReservation(q, q.path.Name()+DefaultReservationSuffix, Entitlement{1, 1}, defaultPayload(q, opts)))
	}
	return q, nil
}

// setKind makes q a plan (reservable), parent or leaf queue; only a leaf
// may be reservable, and root must have children.
func (q *Queue[T]) setKind(c *Config[T]) error {
	isRoot := q.parent == nil
	switch {
	case c.Reservable && (len(c.Children) > 0 || c.Parent || isRoot):
		return invalid(q.path.s, "reservable", true, "only leaf queues can be reservable")
	case c.Reservable:
		q.kind = KindPlan
	case len(c.Children) > 0 || c.Parent:
		q.kind = KindParent
	case isRoot:
		return invalid(q.path.s, "queues", nil, "the root queue must have child queues")
	default:
		q.kind = KindLeaf
	}
	return nil
}

// setCapacities checks and sets q's configured capacities and derives
// its fractions and absolute capacities: root's are 100%.
func (q *Queue[T]) setCapacities(c *Config[T]) error {
	ps := q.path.s
	if err := checkCapacity(ps, "capacity", c.Capacity); err != nil {
		return err
	}
	if err := checkCapacity(ps, "maximum-capacity", c.MaxCapacity); err != nil {
		return err
	}
	q.capacity, q.maxCapacity = c.Capacity, c.MaxCapacity
	if q.parent != nil {
		return q.deriveCapacities(c)
	}
	if c.Capacity.Kind == CapacityAbsolute || (c.Capacity.Kind == CapacityPercent && c.Capacity.Percent != 100) {
		return invalid(ps, "capacity", c.Capacity, "illegal capacity for queue root, must be 100")
	}
	if c.MaxCapacity.Kind == CapacityAbsolute || (c.MaxCapacity.Kind == CapacityPercent && c.MaxCapacity.Percent != 100) {
		return invalid(ps, "maximum-capacity", c.MaxCapacity, "illegal maximum capacity for queue root, must be 100")
	}
	q.capFrac, q.maxFrac, q.absCap, q.absMax = 1, 1, 1, 1
	return nil
}

// deriveCapacities derives a child's fractions and absolute capacities
// from its parent's and refuses a maximum below the capacity or, in
// absolute resources, above the parent's maximum; a child with an
// absolute capacity and no maximum takes its parent's absolute maximum.
func (q *Queue[T]) deriveCapacities(c *Config[T]) error {
	ps, parent := q.path.s, q.parent
	q.capFrac = fraction(c.Capacity, 0)
	if c.Capacity.Kind == CapacityWeight {
		q.capFrac = parent.weightShare(c.Capacity.Weight)
	}
	q.maxFrac = fraction(c.MaxCapacity, 1)
	q.absCap = q.capFrac * parent.absCap
	q.absMax = q.maxFrac * parent.absMax
	if q.absMax < q.absCap-absCapacityEpsilon {
		return invalid(ps, "maximum-capacity", c.MaxCapacity,
			fmt.Sprintf("illegal queue capacity setting (abs-capacity=%g) > (abs-maximum-capacity=%g)", q.absCap, q.absMax))
	}
	if c.Capacity.IsAbsolute() && c.MaxCapacity.IsAbsolute() && !c.Capacity.Resource.FitsIn(c.MaxCapacity.Resource) {
		return invalid(ps, "capacity", c.Capacity.Resource,
			fmt.Sprintf("min resource configuration %v is greater than its max value %v", c.Capacity.Resource, c.MaxCapacity.Resource))
	}
	if pm := parent.maxCapacity; pm.IsAbsolute() {
		if c.MaxCapacity.IsAbsolute() && !c.MaxCapacity.Resource.FitsIn(pm.Resource) {
			return invalid(ps, "maximum-capacity", c.MaxCapacity.Resource,
				fmt.Sprintf("max resource configuration %v is greater than the parent's max value %v", c.MaxCapacity.Resource, pm.Resource))
		}
		if c.Capacity.IsAbsolute() && c.MaxCapacity.Kind == CapacityUnset {
			q.maxCapacity = pm
		}
	}
	return nil
}

// setState checks the configured state (RUNNING under a STOPPED parent
// is refused) and stops q if configured so or if it inherits its
// parent's STOPPED.
func (q *Queue[T]) setState(s State) error {
	switch s {
	case StateUnset, StateRunning, StateStopped:
	default:
		return invalid(q.path.s, "state", s, "invalid queue state, only RUNNING or STOPPED may be configured")
	}
	parentStopped := q.parent != nil && q.parent.stopped
	if s == StateRunning && parentStopped {
		return invalid(q.path.s, "state", s,
			fmt.Sprintf("the parent queue %s cannot be STOPPED as the child queue is RUNNING", q.parent.path.s))
	}
	q.stopped = s == StateStopped || (s == StateUnset && parentStopped)
	return nil
}

// buildChildren builds q's children in order, refusing a bad or
// duplicate name. Weights are shares of the siblings' sum, so the sum
// comes first.
func (q *Queue[T]) buildChildren(cs []Config[T], opts *TreeConfig[T]) error {
	q.childWeights = 0
	for i := range cs {
		if w := cs[i].Capacity; w.Kind == CapacityWeight {
			q.childWeights += w.Weight
		}
	}
	for i := range cs {
		cc := &cs[i]
		cp, err := q.path.Child(cc.Name)
		if err != nil {
			return invalid(q.path.s+Separator+cc.Name, "name", cc.Name, nameProblem(cc.Name))
		}
		if q.ChildNamed(cc.Name) != nil {
			return &Error{QueuePath: cp.s, Field: "name", Value: cc.Name, Reason: "duplicate queue name under the same parent",
				Kind: berth.ErrInvalidArgument, Err: berth.ErrAlreadyExists}
		}
		child, err := buildNode(cc, q, cp, opts)
		if err != nil {
			return err
		}
		q.children = append(q.children, child)
	}
	return nil
}

// defaultPayload is the payload of a plan's default reservation queue: the
// plan's own settings.
func defaultPayload[T any](plan *Queue[T], _ *TreeConfig[T]) T { return plan.Payload }

// defaultACL applies YARN's defaults: root allows everyone, others nobody.
func defaultACL(isRoot bool, a *ACL) (ACL, bool) {
	if a != nil {
		return *a, true
	}
	if isRoot {
		return Everyone(), false
	}
	return Nobody(), false
}

// checkCapacity validates one configured capacity value.
func checkCapacity(path, field string, c Capacity) error {
	switch c.Kind {
	case CapacityUnset:
	case CapacityPercent:
		if !validPercent(c.Percent) {
			return invalid(path, field, c.Percent, "illegal capacity, must be a percentage in [0, 100]")
		}
	case CapacityAbsolute:
		if c.Resource.AnyNegative() {
			return invalid(path, field, c.Resource, "illegal capacity, resource amounts must not be negative")
		}
	case CapacityWeight:
		if field != "capacity" {
			return invalid(path, field, c.Weight, "a maximum capacity cannot be a weight")
		}
		if w := c.Weight; math.IsNaN(float64(w)) || w < 0 || w > 10000 {
			return invalid(path, field, c.Weight, "illegal weight, acceptable values are in [0, 10000]")
		}
	default:
		return invalid(path, field, c.Kind, "unknown capacity kind")
	}
	return nil
}

// hasAbsoluteMin reports whether a queue has a non-zero absolute capacity
// (YARN tests the configured min resource against none).
func hasAbsoluteMin[T any](q *Queue[T]) bool {
	return q.capacity.IsAbsolute() && !q.capacity.Resource.IsZero()
}

// weightShare is a child's share of q for weight w: w over the sum of
// the children's weights (0 when they sum to 0).
func (q *Queue[T]) weightShare(w float32) float32 {
	if q.childWeights <= 0 {
		return 0
	}
	return w / q.childWeights
}

// checkChildCapacities is the capacity scheduler's check across siblings.
func checkChildCapacities[T any](p *Queue[T]) error {
	var sum float32
	var minSum berth.Resource
	anyAbs := false
	if err := checkCapacityModes(p); err != nil {
		return err
	}
	if p.childWeights > 0 || anyWeight(p) {
		return nil // weight children: no sum rule
	}
	for _, c := range p.children {
		if hasAbsoluteMin(c) {
			anyAbs = true
			minSum = minSum.Add(c.capacity.Resource)
			if !p.IsRoot() && p.capFrac > 0 {
				return invalid(p.path.s, "capacity", c.path.s,
					fmt.Sprintf("parent queue %s and child queue %s should use either percentage based capacity configuration or absolute resource together",
						p.path.s, c.path.s))
			}
		}
		sum += c.capFrac
	}
	delta := 1 - sum
	if delta < 0 {
		delta = -delta
	}
	if p.capacity.Kind == CapacityWeight && !anyAbs && (delta <= capacitySumEpsilon || sum <= capacitySumEpsilon) {
		// Percentages under a weight parent: YARN 3.4 accepts 100% or 0.
		return nil
	}
	if (!anyAbs && p.capFrac > 0 && delta > capacitySumEpsilon) || (p.capFrac == 0 && sum > 0) {
		return invalid(p.path.s, "capacity", sum*100,
			fmt.Sprintf("illegal capacity of %g for children of queue %s (children's capacities must sum to 100%% under a non-zero parent, 0 under a zero parent)",
				sum, p.path.Name()))
	}
	if !p.IsRoot() && p.capacity.IsAbsolute() && !minSum.FitsIn(p.capacity.Resource) {
		return invalid(p.path.s, "capacity", p.capacity.Resource,
			fmt.Sprintf("parent queue's capacity %v is less than its children's %v", p.capacity.Resource, minSum))
	}
	return nil
}

// newReservation makes a dynamic reservation queue under plan (not linked).
func newReservation[T any](plan *Queue[T], name string, e Entitlement, payload T) *Queue[T] {
	q := &Queue[T]{
		path:    Path{plan.path.s + Separator + name},
		kind:    KindReservation,
		dynamic: true,
		parent:  plan,
		stopped: plan.stopped,
		Payload: payload,
	}
	q.submitACL, q.adminACL = Nobody(), Nobody()
	q.setEntitlement(e)
	return q
}

// setEntitlement sets a dynamic queue's capacities.
func (q *Queue[T]) setEntitlement(e Entitlement) {
	q.capFrac, q.maxFrac = e.Capacity, e.MaxCapacity
	q.capacity, q.maxCapacity = Percent(e.Capacity*100), Percent(e.MaxCapacity*100)
	q.absCap = q.capFrac * q.parent.absCap
	q.absMax = q.maxFrac * q.parent.absMax
}

func anyWeight[T any](p *Queue[T]) bool {
	for _, c := range p.children {
		if c.capacity.Kind == CapacityWeight {
			return true
		}
	}
	return false
}

// checkCapacityModes is YARN 3.4's legacy-mode rule across siblings
// below the root: children use one of percentages, weights and absolute
// resources (unset counts as a percentage), and neither weights under an
// absolute parent nor absolute resources under a weight parent.
func checkCapacityModes[T any](p *Queue[T]) error {
	var pct, weight, abs bool
	for _, c := range p.children {
		switch {
		case c.capacity.Kind == CapacityWeight:
			weight = true
		case hasAbsoluteMin(c):
			abs = true
		default:
			pct = true
		}
	}
	n := 0
	for _, b := range []bool{pct, weight, abs} {
		if b {
			n++
		}
	}
	if n > 1 && !p.IsRoot() {
		return invalid(p.path.s, "capacity", nil,
			fmt.Sprintf("parent queue %s has children using a mix of weight, percentage and absolute capacities, which is not allowed", p.path.s))
	}
	if p.IsRoot() {
		return nil // YARN checks no mode under the root
	}
	if weight && p.capacity.IsAbsolute() {
		return invalid(p.path.s, "capacity", nil,
			fmt.Sprintf("parent queue %s uses an absolute capacity: its children must use absolute capacities too", p.path.s))
	}
	if abs && p.capacity.Kind == CapacityWeight {
		return invalid(p.path.s, "capacity", nil,
			fmt.Sprintf("parent queue %s uses a weight: its children cannot use absolute capacities", p.path.s))
	}
	return nil
}
