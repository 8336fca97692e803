package fair

import (
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

// Scheduler is YARN's FairScheduler driven by its host: the host adds
// nodes, submits applications (placed by the placement policy) and their
// asks, and calls [Scheduler.Heartbeat] for every node update; each
// heartbeat returns the containers allocated on that node. Fair shares are
// recomputed by [Scheduler.Update], which a heartbeat runs by itself when
// Config.UpdateInterval has passed on the host's clock.
//
// A Scheduler is safe for concurrent use; one mutex serializes every call.
//
// Only [New] makes a usable Scheduler: the zero value has no queues and is
// not one (its methods panic).
type Scheduler struct {
	mu    sync.Mutex
	clock berth.Clock
	cfg   Config

	alloc     *AllocationFile
	placement *PlacementPolicy
	unbounded berth.Resource

	root              *fsQueue
	queues            map[string]*fsQueue
	pendingTypeChange map[string]bool

	nodes   map[string]*node
	nodeIDs []string    // the nodes' ids, sorted (snapshots list nodes in id order)
	byID    []*node     // the nodes in nodeIDs' order: snapshots read them without a lookup
	racks   queue.Racks // nodes per rack
	cluster berth.Resource

	apps     map[string]*app
	users    map[string]*userApps
	live     queue.IDIndex[container] // by id
	resvByID map[ContainerID]*reservation

	nextID     ContainerID
	nextSeq    uint64
	lastUpdate berth.Time
	updated    bool

	shareBuf shareBuf
	keyBuf   SortKey // policyKey's scratch
	keyOut   sortKey // placeApp's and placeQueue's key, written in place

	tree    *queue.Tree[*fsQueue] // the shared tree (package queue)
	obs     Observer              // the host's observer (observe.go); nil: none
	acts    queue.ActivityLog     // the walk's record, kept on demand (explain.go)
	bug     error                 // first inconsistency with it, for Check
	polErr  error                 // first result of a scheduling policy rejected (PolicyError)
	loading bool                  // inside loadAllocation: sync once at the end
	// the applications with changes the tree has not been charged yet
	// (accountApp)
	acctDirty []*app
	eagerAcct bool // tests: charge the tree at once (the reference of the deferral)

	// the walk's orders (order.go)
	dirtyApps   []*app
	dirtyQueues []*fsQueue
	ordStale    bool // re-key everything before the next walk
	sortWalk    bool // tests: sort on every visit (YARN's way, the reference)
	checkOrder  bool // tests: compare the kept orders with sorts on every walk
	sortSmall   int  // sets of at most this many are sorted per visit (smallSet); tests lower it
}

// New builds a scheduler from cfg and its allocation file (cfg.Allocation,
// nil: an empty <allocations/>). cfg.Clock must not be nil.
func New(cfg Config) (*Scheduler, error) {
	clock, af := cfg.Clock, cfg.Allocation
	if berth.CheckNotNil("clock", clock) != nil {
		return nil, berth.InvalidField("clock", nil, "a clock is required")
	}
	cfg = cfg.clone()
	cfg.Clock, cfg.Allocation = nil, nil // kept as s.clock and s.alloc
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.UpdateInterval <= 0 {
		cfg.UpdateInterval = 500
	}
	if af == nil {
		af = DefaultAllocationFile()
	}
	if err := af.validateReservation(); err != nil {
		return nil, err
	}
	s := &Scheduler{sortSmall: smallSet,
		clock: clock, cfg: cfg, alloc: af, unbounded: Unbounded(cfg.ResourceTypes...),
		queues: map[string]*fsQueue{}, pendingTypeChange: map[string]bool{},
		nodes: map[string]*node{},
		apps:  map[string]*app{}, users: map[string]*userApps{},
		resvByID: map[ContainerID]*reservation{},
	}
	// root and root.default exist from the start with the fair policy,
	// as in YARN, before the file is applied.
	s.root = s.newQueue(queue.RootName, nil, false, builtinPolicy{PolicyFair})
	s.newQueue(defaultQueue, s.root, true, builtinPolicy{PolicyFair})
	s.root.inConfig, s.queues[defaultQueue].inConfig = true, true
	s.loadAllocation(af)
	return s, nil
}

// Reload applies a new allocation file (YARN's reload). A file that failed
// to parse never reaches here, so a reload is all or nothing at the file
// level; within it, YARN's rules apply: if any existing queue's new policy
// is not allowed where it sits, every existing queue keeps its old policy;
// configured queues that cannot be created (policy, or an ancestor that is
// a leaf) are skipped; a queue changing between leaf and parent while it
// holds applications changes once it is empty. The result lists what was
// kept, skipped or deferred.
func (s *Scheduler) Reload(af *AllocationFile) (ReloadResult, error) {
	if af == nil {
		return ReloadResult{}, berth.InvalidField("allocations", nil, "allocation file is required")
	}
	if err := af.validateReservation(); err != nil {
		return ReloadResult{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.loadAllocation(af), nil
}

// Config returns a copy of the configuration in force, with the scheduler's
// clock and the allocation file last loaded (by New or Reload).
func (s *Scheduler) Config() Config {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.cfg.clone()
	c.Clock, c.Allocation = s.clock, s.alloc
	return c
}

// ClusterResource returns the sum of the nodes' capabilities.
func (s *Scheduler) ClusterResource() berth.Resource {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cluster
}

func (s *Scheduler) clusterChanged() {
	s.resolveMaxShares(s.root)
	s.ordStale = true // DRF keys read the cluster
	s.recomputeSteady()
}

// resolveMaxShares re-resolves every queue's maximum share against the
// cluster, the one setting that depends on its size (a maximum given as a
// share of the cluster). The settings themselves are those applySettings
// took from the allocation file; looking them up again for every queue on
// every node added or removed made a node event cost O(queues) lookups.
func (s *Scheduler) resolveMaxShares(q *fsQueue) {
	s.resolveMaxShare(q)
	for _, c := range q.children {
		s.resolveMaxShares(c)
	}
}

// AddNode adds a node to the cluster.
func (s *Scheduler) AddNode(n NodeSpec) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n.ID == "" {
		return berth.InvalidField("node.id", n.ID, "must not be empty")
	}
	if _, ok := s.nodes[n.ID]; ok {
		return kindErr(berth.ErrAlreadyExists, "node.id", n.ID, "node already exists")
	}
	if n.Capability.AnyNegative() {
		return berth.InvalidField("node.capability", n.Capability, "must not be negative")
	}
	// The cluster total must stay representable: YARN's long arithmetic
	// wraps to a negative cluster, and every share with it.
	for _, t := range berth.TypeNames(n.Capability) {
		if n.Capability.Get(t) > math.MaxInt64-s.cluster.Get(t) {
			return kindErr(berth.ErrCapacityExceeded, "node.capability", n.Capability,
				"the cluster's %s would overflow int64", t)
		}
	}
	if n.Rack == "" {
		n.Rack = "/default-rack"
	}
	nd := &node{NodeSpec: n}
	s.nodes[n.ID] = nd
	i, _ := slices.BinarySearch(s.nodeIDs, n.ID)
	s.nodeIDs = slices.Insert(s.nodeIDs, i, n.ID)
	s.byID = slices.Insert(s.byID, i, nd)
	s.racks.Add(n.Rack)
	s.cluster = s.cluster.Add(n.Capability)
	s.clusterChanged()
	return nil
}

// RemoveNode takes a node out of the cluster; its containers end as Lost
// (in id order) and its reservation is dropped.
func (s *Scheduler) RemoveNode(id string) ([]Ended, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, ok := s.nodes[id]
	if !ok {
		return nil, notFound("node.id", id)
	}
	if n.reserved != nil {
		s.unreserve(n.reserved)
	}
	var out []Ended
	for _, c := range n.live.all(nodeList) {
		s.releaseContainer(c)
		out = append(out, Ended{Container: c.Container, Status: Lost})
		if s.obs != nil {
			s.emitEnded(c.Container, Lost)
		}
	}
	delete(s.nodes, id)
	s.acts.ForgetNode(id)
	if i, ok := slices.BinarySearch(s.nodeIDs, id); ok {
		s.nodeIDs = slices.Delete(s.nodeIDs, i, i+1)
		s.byID = slices.Delete(s.byID, i, i+1)
	}
	s.racks.Remove(n.Rack)
	s.cluster = s.cluster.Sub(n.Capability)
	s.clusterChanged()
	return out, nil
}

func sortedIDs[V any](m map[ContainerID]V) []ContainerID {
	out := make([]ContainerID, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// LookupQueue implements [QueueLookup] over the live tree.
func (s *Scheduler) lookupQueue(path string) (exists, leaf, configured bool) {
	q := s.queues[path]
	if q == nil {
		return false, false, false
	}
	return true, q.leaf, !q.dynamic
}

type queueInfoFunc func(string) (bool, bool, bool)

// LookupQueue calls f.
func (f queueInfoFunc) LookupQueue(p string) (bool, bool, bool) { return f(p) }

// Place runs the placement policy for a submission without submitting:
// the queue the application would land in ("" when rejected).
func (s *Scheduler) Place(requested, user string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.placement.Place(requested, user, s.cfg.Groups, queueInfoFunc(s.lookupQueue))
}

// SubmitApp places and submits an application and returns the full path of
// the leaf queue it runs in. Following YARN: the placement policy chooses
// the queue (rejection: ErrNoPlacement); a plan queue sends it to its
// reservation queue (or the plan's default queue); the leaf is created if
// needed (a parent: ErrInvalidArgument); the user needs the submit or
// administer ACL (ErrPermissionDenied). Placement rules and ACLs see the
// user's groups from AppSpec.Groups, or from Config.Groups when nil; an AM asking for a type whose queue
// maximum is 0 is refused. The application then runs at once or waits for
// maxRunningApps (queue and user).
func (s *Scheduler) SubmitApp(spec AppSpec) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := spec.Validate(); err != nil {
		return "", err
	}
	if _, ok := s.apps[spec.ID]; ok {
		return "", kindErr(berth.ErrAlreadyExists, "app.id", spec.ID, "application already exists")
	}
	groups := s.cfg.Groups
	if spec.Groups != nil { // the host resolved them for this submission
		groups = queue.StaticGroups{spec.User: spec.Groups}
	}
	qname, err := s.placement.PlaceApp(PlacementRequest{Requested: spec.Queue, User: spec.User,
		Groups: groupsOf(groups, spec.User), Tags: spec.Tags, AppID: spec.ID}, queueInfoFunc(s.lookupQueue))
	if err != nil {
		return "", berth.Wrap(err, "submitting application", spec.ID)
	}
	if qname == "" {
		return "", kindErr(berth.ErrNoPlacement, "queue", spec.Queue, "Application %s submitted by user %s with an empty queue name or rejected by placement rules.", spec.ID, spec.User)
	}
	if q := s.queues[qname]; q != nil && q.plan {
		if qname, err = s.resolveReservationQueue(q, spec); err != nil {
			return "", err
		}
	}
	q := s.getQueue(qname, true, true)
	if q == nil {
		return "", kindErr(berth.ErrInvalidArgument, "queue", qname, "%s is not a leaf queue", qname)
	}
	if q.tq == nil || !q.tq.CanSubmit(spec.User, groups) {
		s.dropIfEmptyDynamic(q)
		return "", kindErr(berth.ErrPermissionDenied, "queue", q.path, "User %s does not have permission to submit %s to queue %s", spec.User, spec.ID, q.path)
	}
	var amAsk berth.Resource
	if !spec.AMResource.IsZero() {
		amAsk, err = s.normalize(q, spec.AMResource, "app.am-resource")
		if err != nil {
			s.dropIfEmptyDynamic(q)
			return "", err
		}
		for _, t := range berth.TypeNames(amAsk) {
			if amAsk.Get(t) > 0 && q.MaxShare.Get(t) == 0 {
				s.dropIfEmptyDynamic(q)
				return "", kindErr(berth.ErrCapacityExceeded, "app.am-resource", spec.AMResource,
					"Cannot submit application %s to queue %s because it has zero amount of resource for a requested resource! Invalid requested AM resources: %v, maximum queue resources: %v", spec.ID, q.path, amAsk, q.MaxShare)
			}
		}
	}
	s.nextSeq++
	a := &app{id: spec.ID, user: spec.User, seq: s.nextSeq, appPrio: spec.Priority, resID: spec.ReservationID,
		reservedOn: map[string]*reservation{}}
	a.Name = spec.ID
	a.npre = namePrefix(a.Name)
	a.ord.Value = a
	a.asks = queue.RequestsIn(&a.askBlk)
	a.StartTime = s.clock.Now()
	a.Priority = 1
	a.Weight = 1
	a.MaxShare = s.unbounded
	a.lastTimeAtFairShare = a.StartTime
	if !amAsk.IsZero() {
		a.managedAM = true
		// the AM ask is valid: amAsk is normalized and non-negative
		_, _ = a.asks.Update(Ask{Priority: 0, ResourceName: AnyResource, Capability: amAsk, Count: 1}, false)
	}
	s.apps[a.id] = a
	s.addAppToQueue(a, q)
	return q.path, nil
}

// dropIfEmptyDynamic removes an ad-hoc queue a failed submission created.
func (s *Scheduler) dropIfEmptyDynamic(q *fsQueue) {
	for q != nil && q.dynamic && q.isEmpty() && q.numRunnable == 0 {
		p := q.parent
		s.removeQueue(q)
		q = p
	}
	s.recomputeSteady()
	s.syncTree()
}

// addAppToQueue runs the max-running-apps check and files the app.
func (s *Scheduler) addAppToQueue(a *app, q *fsQueue) {
	a.q = q
	s.account(q, a.user, queue.Delta{PendingApps: 1})
	if s.obs != nil {
		s.emitApp(queue.AppAdded, a, "")
	}
	if s.canAppBeRunnable(q, a) {
		s.account(q, a.user, queue.Delta{PendingApps: -1, ActiveApps: 1})
		a.runnable = true
		q.runnableApps = append(q.runnableApps, a)
		s.trackRunnable(a)
		if s.obs != nil {
			s.emitApp(queue.AppActivated, a, "")
		}
	} else {
		q.nonRunnableApps = append(q.nonRunnableApps, a)
		u := s.user(a.user)
		u.nonRunnable = append(u.nonRunnable, a)
	}
}

// normalize rounds an ask up to the increment within [min, max] as the
// fair scheduler does, refusing asks above the maximum allocation.
// The limit is the queue's maxContainerAllocation within the scheduler's
// maximum (YARN's getMaximumResourceCapability(queue)).
func (s *Scheduler) normalize(q *fsQueue, r berth.Resource, field string) (berth.Resource, error) {
	if r.AnyNegative() {
		return r, berth.InvalidField(field, r, "must not be negative")
	}
	lim := withExtraLimits(s.cfg.MaxAllocation, s.unbounded, r)
	if q != nil {
		lim = berth.ComponentwiseMin(lim, withExtraLimits(q.maxContainer, s.unbounded, r))
	}
	if !r.FitsIn(lim) {
		return r, berth.InvalidField(field, r, "exceeds the maximum allocation "+lim.String())
	}
	return berth.DominantCalculator{}.Normalize(r, s.cfg.MinAllocation, lim, s.cfg.Increment), nil
}

// withExtraLimits returns lim with every extended type of r that
// lim does not mention taken from fallback (so types without a configured
// maximum are unlimited).
func withExtraLimits(lim, fallback, r berth.Resource) berth.Resource {
	for _, t := range berth.TypeNames(r)[2:] {
		if lim.Get(t) == 0 {
			v := fallback.Get(t)
			if v == 0 {
				v = math.MaxInt64
			}
			lim = lim.With(t, v)
		}
	}
	return lim
}

// Allocate is the application's side of YARN's allocate call: it replaces
// asks (by priority and resource name) and releases containers. It returns
// the application's headroom. The call is all-or-nothing.
func (s *Scheduler) Allocate(appID string, asks []Ask, release []ContainerID) (berth.Resource, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.apps[appID]
	if !ok {
		return berth.Resource{}, notFound("app.id", appID)
	}
	norm := make([]Ask, len(asks))
	for i, k := range asks {
		f := fmt.Sprintf("asks[%d]", i)
		if err := k.Validate(f); err != nil {
			return berth.Resource{}, err
		}
		c, err := s.normalize(a.q, k.Capability, f+".capability")
		if err != nil {
			return berth.Resource{}, err
		}
		k.Capability = c
		norm[i] = k
	}
	if _, ok := a.asks.PendingAfter(norm); !ok {
		i := 0
		for i < len(norm)-1 {
			if _, ok := a.asks.PendingAfter(norm[:i+1]); !ok {
				break
			}
			i++
		}
		return berth.Resource{}, kindErr(berth.ErrCapacityExceeded, fmt.Sprintf("asks[%d].count", i), norm[i].Count,
			"the application's outstanding demand would overflow int64")
	}
	if err := queue.CheckRelease(release, func(id ContainerID) bool {
		c, live := s.live.Get(id)
		r, reserved := s.resvByID[id]
		return live && c.app == a || reserved && r.app == a
	}); err != nil {
		return berth.Resource{}, err
	}
	for _, k := range norm {
		s.setAsk(a, k)
	}
	for _, id := range release {
		if c, ok := s.live.Get(id); ok {
			s.releaseContainer(c)
			if s.obs != nil {
				s.emitEnded(c.Container, Released)
			}
		} else if r, ok := s.resvByID[id]; ok {
			s.unreserve(r)
		}
	}
	return s.headroom(a), nil
}

// setAsk stores one validated ask in a's request table.
func (s *Scheduler) setAsk(a *app, k Ask) {
	_, _ = a.asks.Update(k, s.isRack(k.ResourceName))
}

// isRack tells a rack name from a host name ([queue.Racks.IsRack]).
func (s *Scheduler) isRack(name string) bool {
	_, isNode := s.nodes[name]
	return s.racks.IsRack(name, isNode)
}

// headroom is the policy's headroom of the app's queue against the
// cluster's unallocated resource.
func (s *Scheduler) headroom(a *app) berth.Resource {
	q := a.q
	avail := s.cluster.Sub(s.root.Usage)
	maxAvail := berth.ComponentwiseMin(avail, q.MaxShare.Sub(q.Usage).SubNonNegative(berth.None()))
	return q.room.Headroom(q.FairShare, q.Usage, maxAvail)
}

// FinishApp ends an application normally: its live containers end as
// Killed, reservations are cancelled and waiting applications may start.
func (s *Scheduler) FinishApp(appID string) ([]Ended, error) {
	return s.removeApp(appID, queue.AppFinished)
}

// KillApp kills an application (YARN's kill); same effect as FinishApp.
func (s *Scheduler) KillApp(appID string) ([]Ended, error) {
	return s.removeApp(appID, queue.AppKilled)
}

// removeApp removes an application; how is AppFinished or AppKilled (its
// containers end as Killed either way).
func (s *Scheduler) removeApp(appID string, how queue.AppEventKind) ([]Ended, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.apps[appID]
	if !ok {
		return nil, notFound("app.id", appID)
	}
	var out []Ended
	for _, c := range a.live.all(appList) {
		s.releaseContainer(c)
		out = append(out, Ended{Container: c.Container, Status: Killed})
		if s.obs != nil {
			s.emitEnded(c.Container, Killed)
		}
	}
	for _, nid := range sortedKeys(a.reservedOn) {
		s.unreserve(a.reservedOn[nid])
	}
	q := a.q
	if a.amRunning {
		q.amUsage = q.amUsage.Sub(a.amRes)
	}
	wasRunnable := a.runnable
	s.detachApp(a)
	a.gone = true
	delete(s.apps, appID)
	s.acts.ForgetApp(appID)
	if s.obs != nil {
		s.emitApp(how, a, "")
	}
	if wasRunnable {
		s.updateRunnabilityOnRemoval(a, q)
	}
	return out, nil
}

// detachApp takes a out of its queue lists and counts.
func (s *Scheduler) detachApp(a *app) {
	q := a.q
	s.unplaceApp(a)
	s.walkable(a, false)
	if a.runnable {
		s.account(q, a.user, queue.Delta{ActiveApps: -1})
	} else {
		s.account(q, a.user, queue.Delta{PendingApps: -1})
	}
	if a.runnable {
		q.runnableApps = slices.DeleteFunc(q.runnableApps, func(x *app) bool { return x == a })
		s.untrackRunnable(a)
		a.runnable = false
	} else {
		q.nonRunnableApps = slices.DeleteFunc(q.nonRunnableApps, func(x *app) bool { return x == a })
		u := s.user(a.user)
		u.nonRunnable = slices.DeleteFunc(u.nonRunnable, func(x *app) bool { return x == a })
	}
	if u := s.users[a.user]; u != nil && u.runnable == 0 && len(u.nonRunnable) == 0 {
		delete(s.users, a.user)
	}
}

func commonAncestor(a, b *fsQueue) *fsQueue {
	seen := map[*fsQueue]bool{}
	for p := a; p != nil; p = p.parent {
		seen[p] = true
	}
	for p := b; p != nil; p = p.parent {
		if seen[p] {
			return p
		}
	}
	return nil
}

func byStart(x, y *app) int {
	if c := cmpInt64(x.StartTime, y.StartTime); c != 0 {
		return c
	}
	return cmpInt64(int64(x.seq), int64(y.seq))
}
