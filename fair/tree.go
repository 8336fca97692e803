package fair

import (
	"slices"
	"strings"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/internal/order"
	"github.com/berthsched/berth/queue"
)

// fsQueue is one queue of the tree (YARN's FSParentQueue / FSLeafQueue).
type fsQueue struct {
	Schedulable

	// What a heartbeat reads of the queues on its path (the walk, an
	// allocation's charges, the re-keys) comes first, together: with many
	// leaves the one served is mostly out of cache.
	path     string
	npre     uint64 // namePrefix(Name), for the order's keys
	parent   *fsQueue
	children []*fsQueue // creation order
	leaf     bool
	ordBad   bool // whether ord's key is bad (see app.ordBad)
	// walkN counts the walkable applications (leaves) or children
	// (parents) below q; the walk skips queues with none (order.go).
	walkN int
	// idleBad: q is idle and its key is bad; idleBadN counts such
	// children (keptKids).
	idleBad  bool
	idleBadN int
	dirty    bool
	gone     bool // removed from the tree
	// kidOrd / appOrd lack members: they were small (sorted per visit)
	kidStale, appStale bool
	policy             SchedulingPolicy
	order              Orderer      // policy's or the default (setPolicy)
	shares             ShareDivider // policy's or the default (setPolicy)
	keyer              PolicyKeyer  // order's fast path, nil without one (setPolicy)
	room               Headroomer   // policy's or the calculator's default (setPolicy)
	tq                 *tqueue      // the queue's node in the shared tree
	runnableApps       []*app       // leaves
	// the walk's orders (order.go): q's place in its parent's, and the
	// order of q's children (parents) or applications (leaves)
	ord    order.Entry[sortKey, *fsQueue]
	appOrd ordSet[*app]
	kidOrd ordSet[*fsQueue]

	dynamic     bool    // created ad hoc, removed when empty
	plan        bool    // reservable: holds reservation queues
	reservation bool    // a reservation queue under a plan
	entitlement float64 // a reservation queue's weight (its capacity)

	settings     QueueSettings
	sharer       TypeSharer // shares' per-type fast path, nil without one (setPolicy)
	maxRes       ConfigurableResource
	maxContainer berth.Resource

	minShareTimeout, fairShareTimeout berth.Duration
	fairShareThreshold                float32
	preemptable                       bool

	numRunnable int // runnable applications in the subtree

	// scratch space for the heartbeat walk (one walk at a time, under the
	// scheduler's lock; a queue appears once on a walk's path)
	kidsBuf []*fsQueue
	appsBuf []*app

	inConfig bool // configured in the shared tree (named by a file)

	// leaves
	nonRunnableApps []*app
	amUsage         berth.Resource
	lastAtMinShare  berth.Time
}

func (q *fsQueue) maxRunningApps() int { return q.settings.MaxRunningApps }

func (q *fsQueue) isEmpty() bool {
	if q.leaf {
		return len(q.runnableApps)+len(q.nonRunnableApps) == 0 && q.Usage.IsZero()
	}
	return len(q.children) == 0
}

// subtreeEmpty reports whether no application sits anywhere below q.
func (q *fsQueue) subtreeEmpty() bool {
	if q.leaf {
		return q.isEmpty()
	}
	for _, c := range q.children {
		if !c.subtreeEmpty() {
			return false
		}
	}
	return true
}

func (q *fsQueue) child(name string) *fsQueue {
	for _, c := range q.children {
		if c.path == name {
			return c
		}
	}
	return nil
}

// fitsInMaxShare reports whether usage+extra fits the queue's and every
// ancestor's max share.
func (q *fsQueue) fitsInMaxShare(extra berth.Resource) bool {
	for p := q; p != nil; p = p.parent {
		if !p.Usage.Add(extra).FitsIn(p.MaxShare) {
			return false
		}
	}
	return true
}

// newQueue links a queue into the tree and the index.
func (s *Scheduler) newQueue(path string, parent *fsQueue, leaf bool, policy SchedulingPolicy) *fsQueue {
	q := &fsQueue{path: path, parent: parent, leaf: leaf}
	q.kidOrd.init()
	q.appOrd.init()
	q.setPolicy(policy)
	q.ord.Value = q
	s.ordStale = true
	q.Name = path
	q.npre = namePrefix(q.Name)
	q.Queue = true
	q.Priority = 1
	q.MaxShare = s.unbounded
	q.lastAtMinShare = s.clock.Now()
	if parent != nil {
		parent.children = append(parent.children, q)
	}
	s.queues[path] = q
	s.applySettings(q)
	if s.obs != nil {
		s.emitQueue(queue.QueueAdded, path, Entitlement{}, Entitlement{})
	}
	return q
}

// applySettings refreshes q's settings from the allocation file and
// derives the inherited values from its parent (which must be current).
func (s *Scheduler) applySettings(q *fsQueue) {
	st := s.alloc.Settings(q.path)
	q.settings = st
	s.ordStale = true // weight, min share, policy
	q.Weight = float64(st.Weight)
	q.MinShare = st.MinResources
	q.maxRes = st.MaxResources
	if !st.Configured && q.parent != nil && q.parent.settings.MaxChildResources != nil {
		q.maxRes = *q.parent.settings.MaxChildResources
	}
	if q.reservation {
		q.maxRes = UnboundedResource()
		q.MinShare = berth.None()
		q.Weight = q.entitlement
	}
	// A plan stays a plan while it holds reservation queues, even when a
	// reload drops it; it goes once they are empty.
	// A leaf waiting to become a plan (it still holds applications) is not
	// one yet.
	q.plan = !q.leaf && ((st.Reservable && st.Configured) || (q.plan && len(q.children) > 0))
	q.maxContainer = s.cfg.MaxAllocation
	if st.MaxContainerAllocation != nil {
		q.maxContainer = *st.MaxContainerAllocation
	} else if q.parent != nil {
		q.maxContainer = q.parent.maxContainer
	}
	q.minShareTimeout, q.fairShareTimeout, q.fairShareThreshold = st.MinSharePreemptionTimeout, st.FairSharePreemptionTimeout, st.FairSharePreemptionThreshold
	q.preemptable = st.AllowPreemptionFrom
	if p := q.parent; p != nil {
		if q.minShareTimeout == Inherit {
			q.minShareTimeout = p.minShareTimeout
		}
		if q.fairShareTimeout == Inherit {
			q.fairShareTimeout = p.fairShareTimeout
		}
		if q.fairShareThreshold == Inherit {
			q.fairShareThreshold = p.fairShareThreshold
		}
		q.preemptable = q.preemptable && p.preemptable
	}
	// The one value read from the cluster; resolveMaxShares redoes it alone
	// when only the cluster changes.
	s.resolveMaxShare(q)
}

// resolveMaxShare resolves q's maximum share against the cluster.
func (s *Scheduler) resolveMaxShare(q *fsQueue) {
	q.MaxShare = berth.ComponentwiseMax(q.maxRes.Resolve(s.cluster, s.cfg.ResourceTypes), q.MinShare)
}

// reinit re-applies settings top-down (after a reload or cluster change).
func (s *Scheduler) reinit(q *fsQueue) {
	s.applySettings(q)
	for _, c := range q.children {
		s.reinit(c)
	}
}

// policyAllowed checks a queue's policy against its position.
func policyAllowed(parent *fsQueue, leaf bool, p SchedulingPolicy) bool {
	if !leaf && leafOnly(p) {
		return false
	}
	return parent == nil || allowsChild(parent.policy, p)
}

// getQueue returns the queue at path, creating it (and missing parents)
// when create is set, as YARN's QueueManager.getQueue does. It returns nil
// when the queue cannot exist: an ancestor is a leaf, the queue exists with
// the other type, a name is invalid, or a policy is not allowed.
func (s *Scheduler) getQueue(path string, leaf, create bool) *fsQueue {
	if q := s.queues[path]; q != nil {
		if q.leaf != leaf {
			return nil
		}
		return q
	}
	if !create {
		return nil
	}
	p, err := queue.ParsePath(path)
	if err != nil {
		return nil
	}
	parts := p.Parts()
	// Check the whole chain before creating anything (all or nothing).
	cur := s.root
	var missing []string
	for i := 1; i < len(parts); i++ {
		name := strings.Join(parts[:i+1], ".")
		if len(missing) > 0 {
			missing = append(missing, name)
			continue
		}
		next := s.queues[name]
		if next == nil {
			missing = append(missing, name)
			continue
		}
		if next.leaf {
			return nil
		}
		cur = next
	}
	parentPolicy := cur
	for i, name := range missing {
		isLeaf := leaf && i == len(missing)-1
		pol := s.alloc.Settings(name).policyOf()
		if !policyAllowed(parentPolicy, isLeaf, pol) {
			return nil
		}
		parentPolicy = &fsQueue{policy: pol}
	}
	for i, name := range missing {
		isLeaf := leaf && i == len(missing)-1
		q := s.newQueue(name, cur, isLeaf, s.alloc.Settings(name).policyOf())
		q.dynamic = !q.settings.Configured
		cur = q
	}
	s.recomputeSteady()
	if !s.loading {
		s.syncTree()
	}
	return cur
}

// removeQueue unlinks an empty queue.
func (s *Scheduler) removeQueue(q *fsQueue) {
	if q.parent == nil {
		return
	}
	p := q.parent
	p.children = slices.DeleteFunc(p.children, func(c *fsQueue) bool { return c == q })
	p.kidOrd.drop(&q.ord)
	s.ordStale = true
	delete(s.queues, q.path)
	q.gone = true
	if s.obs != nil {
		s.emitQueue(queue.QueueRemoved, q.path, Entitlement{}, Entitlement{})
	}
}

// removeEmptyDynamicQueues drops ad-hoc queues without applications, leaves
// first; it reports whether any went.
func (s *Scheduler) removeEmptyDynamicQueues() bool {
	removed := false
	var walk func(q *fsQueue)
	walk = func(q *fsQueue) {
		for _, c := range slices.Clone(q.children) {
			walk(c)
		}
		// Reservation queues go only with their plan (a plan the file
		// no longer names).
		gone := q.dynamic && !q.reservation
		if q.reservation {
			gone = q.parent.dynamic
		}
		if gone && q.isEmpty() && q.numRunnable == 0 {
			s.removeQueue(q)
			removed = true
		}
	}
	walk(s.root)
	return removed
}

// recomputeSteady recomputes steady fair shares top-down from the cluster.
func (s *Scheduler) recomputeSteady() {
	s.ordStale = true // called after every change of the tree or the cluster
	s.root.SteadyFairShare = s.cluster
	var walk func(q *fsQueue)
	walk = func(q *fsQueue) {
		if q.leaf || len(q.children) == 0 {
			return
		}
		ss := make([]*Schedulable, len(q.children))
		for i, c := range q.children {
			ss[i] = &c.Schedulable
		}
		s.divide(q, ss, q.SteadyFairShare, true)
		for _, c := range q.children {
			walk(c)
		}
	}
	walk(s.root)
}

// loadAllocation installs af: policies of existing queues (all or none),
// configured queues created, settings re-applied, removed queues made
// dynamic. It never fails: YARN logs and skips what it cannot apply.
func (s *Scheduler) loadAllocation(af *AllocationFile) ReloadResult {
	var res ReloadResult
	s.loading = true
	defer func() { s.loading = false; s.syncTree() }()
	s.alloc = af
	clear(s.pendingTypeChange) // recomputed against the new file below
	if af.Placement != nil {
		s.placement = af.Placement
	} else {
		s.placement = ImplicitPlacementPolicy(s.cfg.UserAsDefaultQueue, s.cfg.AllowUndeclaredPools)
	}
	if !s.setPolicies(af) {
		res.PoliciesKept = true
		if s.cfg.Logger != nil {
			s.cfg.Logger.Warn("fair: setting scheduling policies for existing queues failed; keeping the old ones")
		}
	}
	s.markUnconfigured(af)
	leaves, parents := configuredQueues(af)
	for _, c := range leaves {
		s.installConfigured(af, c, &res)
	}
	for _, c := range parents {
		s.installConfigured(af, c, &res)
	}
	// Every configured plan has its default reservation queue.
	for _, path := range sortedKeys(s.queues) {
		if q := s.queues[path]; q.plan && !q.dynamic {
			s.ensureDefaultReservationQueue(q)
		}
	}
	s.reinit(s.root)
	s.recomputeSteady()
	s.updateRunnabilityOnReload()
	slices.Sort(res.Skipped)
	slices.Sort(res.Deferred)
	return res
}

// setPolicies gives the existing queues the file's scheduling policies:
// all of them when every one is allowed where it stands (a parent's policy
// admits its children's, no leaf-only policy on a parent), else none (it
// returns false, as YARN keeps the old ones).
func (s *Scheduler) setPolicies(af *AllocationFile) bool {
	newPol := map[*fsQueue]SchedulingPolicy{}
	if !verifyPolicies(af, s.root, nil, true, newPol) {
		return false
	}
	for q, p := range newPol {
		q.setPolicy(p)
	}
	return true
}

// verifyPolicies collects the policies q and its subtree would have under
// af in newPol, and reports whether all are allowed.
func verifyPolicies(af *AllocationFile, q *fsQueue, parentPol SchedulingPolicy, isRoot bool, newPol map[*fsQueue]SchedulingPolicy) bool {
	p := af.Settings(q.path).policyOf()
	if q.reservation {
		p = q.policy
	}
	ok := (q.leaf || !leafOnly(p)) && (isRoot || allowsChild(parentPol, p))
	newPol[q] = p
	for _, c := range q.children {
		ok = verifyPolicies(af, c, p, false, newPol) && ok
	}
	return ok
}

// markUnconfigured makes dynamic the queues the file no longer names
// (root, the default queue and reservation queues aside).
func (s *Scheduler) markUnconfigured(af *AllocationFile) {
	for path, q := range s.queues {
		if path == queue.RootName || path == defaultQueue || q.reservation {
			continue
		}
		q.dynamic = af.Queue(path) == nil
	}
}

// configuredQueues are the file's queues below root in YARN's creation
// order: leaves, then parents (reservable queues count as parents), each
// in file order.
func configuredQueues(af *AllocationFile) (leaves, parents []*QueueConfig) {
	var collect func(c *QueueConfig)
	collect = func(c *QueueConfig) {
		if c.Path != queue.RootName {
			if c.Parent || c.Reservable {
				parents = append(parents, c)
			} else {
				leaves = append(leaves, c)
			}
		}
		for i := range c.Children {
			collect(&c.Children[i])
		}
	}
	collect(&af.Root)
	return leaves, parents
}

// installConfigured creates (or keeps) the configured queue c and marks
// it and its configured ancestors static. A queue that changes between
// leaf and parent is rebuilt when its subtree is empty, else deferred
// until it empties; one that cannot be created is skipped.
func (s *Scheduler) installConfigured(af *AllocationFile, c *QueueConfig, res *ReloadResult) {
	leaf := !c.Parent && !c.Reservable
	if q := s.queues[c.Path]; q != nil && q.leaf != leaf {
		if !q.subtreeEmpty() {
			s.pendingTypeChange[c.Path] = leaf
			res.Deferred = append(res.Deferred, c.Path)
			return
		}
		s.removeSubtree(q)
	}
	q := s.getQueue(c.Path, leaf, true)
	if q == nil {
		res.Skipped = append(res.Skipped, c.Path)
		if s.cfg.Logger != nil {
			s.cfg.Logger.Warn("fair: configured queue cannot be created", "queue", c.Path)
		}
		return
	}
	q.dynamic, q.inConfig = false, true
	for p := q.parent; p != nil; p = p.parent {
		if af.Queue(p.path) != nil || p.path == queue.RootName {
			p.dynamic, p.inConfig = false, true
		}
	}
}

// ReloadResult tells what of an allocation file could not be applied as
// written; YARN logs these and carries on, and so does Berth.
type ReloadResult struct {
	// PoliciesKept: some existing queue's new policy is not allowed where
	// it sits (a DRF child of a fair parent, FIFO on a parent), so every
	// existing queue kept its old policy.
	PoliciesKept bool
	// Skipped lists configured queues that could not be created: their
	// policy is not allowed under their parent, or an ancestor is a leaf
	// that still holds applications.
	Skipped []string
	// Deferred lists queues that change between leaf and parent once they
	// hold no applications.
	Deferred []string
}

// removeSubtree unlinks q and everything below it (all empty).
func (s *Scheduler) removeSubtree(q *fsQueue) {
	for _, c := range slices.Clone(q.children) {
		s.removeSubtree(c)
	}
	s.removeQueue(q)
}

// retryTypeChanges applies deferred leaf/parent changes whose queues have
// become empty.
func (s *Scheduler) retryTypeChanges() bool {
	changed := false
	for _, path := range sortedKeys(s.pendingTypeChange) {
		leaf := s.pendingTypeChange[path]
		q := s.queues[path]
		if q != nil && q.leaf != leaf && !q.subtreeEmpty() {
			continue
		}
		delete(s.pendingTypeChange, path)
		if q != nil && q.leaf != leaf {
			s.removeSubtree(q)
		}
		s.loading = true // the caller syncs the shared tree once
		if nq := s.getQueue(path, leaf, true); nq != nil {
			nq.dynamic = s.alloc.Queue(path) == nil
			nq.inConfig = !nq.dynamic
			s.applySettings(nq)
			if nq.plan {
				s.ensureDefaultReservationQueue(nq)
			}
			changed = true
		}
		s.loading = false
	}
	return changed
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

const defaultQueue = "root.default"
