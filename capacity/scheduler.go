package capacity

import (
	"fmt"
	"slices"
	"sync"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

// Scheduler is YARN's CapacityScheduler driven by its host: the host adds
// nodes, submits applications and their asks, and calls [Scheduler.Heartbeat]
// for every node update; each heartbeat returns the containers allocated on
// that node. Time comes from the host's clock.
//
// A Scheduler is safe for concurrent use; one mutex serializes every call,
// as YARN's scheduler lock does.
//
// Only [New] makes a usable Scheduler: the zero value has no queues and is
// not one (its methods panic).
type Scheduler struct {
	mu    sync.Mutex
	clock berth.Clock
	cfg   Config
	rc    berth.Calculator
	mem   bool // rc is the memory calculator (calc.go)

	tree   *qtree
	root   *qnode
	byTQ   map[*tqueue]*qnode
	byPath map[string]*qnode
	bug    error // set if the mirror and the tree's accounting ever disagree

	obs Observer // the host's observer (observe.go); nil: none
	// acts records the walk's activities on demand (explain.go)
	acts queue.ActivityLog

	nodes   map[string]*node
	racks   queue.Racks    // nodes per rack
	cluster berth.Resource // the default partition's resource (all nodes without labels)
	total   berth.Resource // every node's
	// parts are the partitions, the default one first; partOf finds a
	// label's; partBuf is scratch for per-partition sums (partition.go)
	parts   []part
	partOf  map[string]int
	partBuf []berth.Resource
	apps    map[string]*app
	// pendingAll is the outstanding demand of every application: Allocate
	// refuses asks that would make it overflow, so no sum of pending
	// demand the books keep (per user, queue, the root) can wrap.
	pendingAll berth.Resource
	live       queue.IDIndex[container]
	resvByID   map[ContainerID]*reservation

	nextID  ContainerID
	nextSeq uint64

	// For the walk in progress (walk_labels.go; its partition is the
	// attempt's): the resource its comparisons are made against (the
	// default partition's outside labelled walks), and per-depth buffers
	// of sorted children.
	wcl     berth.Resource
	kidBufs [][]*qnode

	// allocBuf collects a heartbeat's allocations; the caller gets an
	// exact-size copy, so a heartbeat that fills a node allocates once
	// instead of growing a slice of large values step by step.
	allocBuf []Allocation

	// users whose allocations the tree's accounting has not been charged
	// yet (deferAccount)
	acctDirty []dirtyAcct

	// max-parallel-apps per user: runnable counts and the applications
	// waiting, by submission (maxapps.go)
	userRunnable map[string]int
	userWaiting  map[string][]*app

	// asynchronous and multi-node scheduling (async.go)
	walk                  *multiWalk // the multi-node walk under way
	sorters               map[string]*nodeSorter
	rounds                uint64 // rounds run: the next round's start node
	nodeList              []*node
	nodeListGen, nodesGen uint64
	walkGen               uint64

	// tests: sort children on every visit, as YARN does (the reference
	// the kept orders of order.go are checked against)
	sortWalk bool
	// tests: compare the kept child orders with sorts on every visit
	checkOrder bool
	// parents with at most sortFan children sort them on each visit (see
	// smallFan); tests lower it
	sortFan int
	// tests: the eager reference of the lazy values: charge the tree's
	// accounting at once (deferAccount), compute every visit's headroom
	// before trying the application (assignLeaf), recompute the user limit
	// on every read (userLimit)
	eagerAcct, eagerHeadroom, eagerLimits bool
}

// New builds a scheduler from a validated copy of cfg. cfg.Clock must not
// be nil.
func New(cfg Config) (*Scheduler, error) {
	clock := cfg.Clock
	if berth.CheckNotNil("clock", clock) != nil {
		return nil, berth.InvalidField("clock", nil, "a clock is required")
	}
	cfg = cfg.clone()
	if err := cfg.validateGlobal(); err != nil {
		return nil, err
	}
	tree, err := queue.New(treeConfig(cfg.Root))
	if err != nil {
		return nil, keyError(err)
	}
	if err := cfg.Placement.validate(newConfigIndex(cfg.Root)); err != nil {
		return nil, err
	}
	s := &Scheduler{tree: tree, sortFan: smallFan,
		clock: clock, cfg: cfg,
		nodes: map[string]*node{}, apps: map[string]*app{},
		resvByID: map[ContainerID]*reservation{},
	}
	s.setCalc(cfg.Calculator)
	if err := s.setParts(cfg.NodeLabels); err != nil {
		return nil, err
	}
	s.syncTree()
	s.clusterChanged()
	return s, nil
}

// Config returns a copy of the configuration in force.
func (s *Scheduler) Config() Config {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cfg.clone()
}

// clusterChanged recomputes everything that depends on the cluster
// resource: effective capacities, child order, limits, activations.
func (s *Scheduler) clusterChanged() {
	s.nodesGen++ // the node set may have changed (async.go)
	s.applyCapacities(s.root)
	s.refreshRatios(s.root)
	s.resortAll(s.root)
	s.refreshLimits(s.root, s.cluster)
	s.activateAll(s.root)
}

func (s *Scheduler) resortAll(q *qnode) {
	s.setKeyed(q)
	s.keepSorted(q)
	for _, c := range q.children {
		s.rekeyChild(c)
		s.resortAll(c)
	}
}

// keepSorted maintains the sorted slice of children of the walks that sort
// (the reference, and parents with few children); q.kids is kept instead
// where it is used.
func (s *Scheduler) keepSorted(q *qnode) {
	if s.sortWalk || !q.keyed {
		sortChildren(q, !s.sortWalk)
	}
}

func (s *Scheduler) activateAll(q *qnode) {
	if q.leaf != nil {
		s.activate(q)
	}
	for _, c := range q.children {
		s.activateAll(c)
	}
}

// AddNode adds a node to the cluster.
func (s *Scheduler) AddNode(n NodeSpec) error { return s.AddNodes(n) }

// AddNodes adds several nodes at once, all or none; the cluster-wide
// recomputation (guarantees, limits, activation) happens once.
func (s *Scheduler) AddNodes(nodes ...NodeSpec) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	seen := make(map[string]bool, len(nodes))
	total := s.cluster
	for i, n := range nodes {
		if err := s.checkNode(n); err != nil {
			return fmt.Errorf("nodes[%d]: %w", i, err)
		}
		if seen[n.ID] {
			return fieldErr(berth.ErrAlreadyExists, fmt.Sprintf("nodes[%d].id", i), n.ID, "node listed twice")
		}
		seen[n.ID] = true
		// The cluster total must stay representable, as the fair
		// scheduler requires: YARN's long arithmetic wraps to a negative
		// cluster, and every guarantee and limit with it.
		if total.AddOverflows(n.Capability) {
			return fmt.Errorf("nodes[%d]: %w", i, fieldErr(berth.ErrCapacityExceeded, "node.capability", n.Capability,
				"the cluster's total would overflow int64"))
		}
		total = total.Add(n.Capability)
	}
	for _, n := range nodes {
		p, _ := s.nodePart(n.Label) // checkNode checked it
		nd := &node{id: n.ID, rack: n.Rack, total: n.Capability, part: p, lastBeat: s.clock.Now()}
		s.nodes[n.ID] = nd
		s.racks.Add(n.Rack)
		s.nodeJoined(nd)
	}
	s.clusterChanged()
	return nil
}

func (s *Scheduler) checkNode(n NodeSpec) error {
	if n.ID == "" || n.ID == AnyResource {
		return berth.InvalidField("node.id", n.ID, "must be a non-empty host name")
	}
	if n.Rack == "" || n.Rack == AnyResource {
		return berth.InvalidField("node.rack", n.Rack, "must be a non-empty rack name")
	}
	if n.Capability.AnyNegative() {
		return berth.InvalidField("node.capability", n.Capability, "must not be negative")
	}
	if _, ok := s.nodes[n.ID]; ok {
		return fieldErr(berth.ErrAlreadyExists, "node.id", n.ID, "node already exists")
	}
	_, err := s.nodePart(n.Label)
	return err
}

// RemoveNode takes a node out of the cluster; its containers end as Lost
// and its reservation is cancelled.
func (s *Scheduler) RemoveNode(id string) ([]Ended, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, ok := s.nodes[id]
	if !ok {
		return nil, notFound("node.id", id)
	}
	var out []Ended
	for c := n.head; c != nil; {
		next := c.nNext
		out = append(out, Ended{Container: c.c, Status: Lost})
		s.releaseContainer(c)
		c = next
	}
	if n.reserved != nil {
		s.unreserve(n.reserved)
	}
	delete(s.nodes, id)
	s.acts.ForgetNode(id)
	s.racks.Remove(n.rack)
	s.nodeLeft(n)
	slices.SortFunc(out, func(a, b Ended) int { return cmpID(a.ID, b.ID) })
	if s.obs != nil {
		s.emitEndedAll(out)
	}
	s.clusterChanged()
	return out, nil
}

func cmpID(a, b ContainerID) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// ClusterResource returns the sum of the nodes' capabilities, labelled
// or not.
func (s *Scheduler) ClusterResource() berth.Resource {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.total
}

// lookupQueue resolves a full path or a unique short name; an error names
// the "queue" argument.
func (s *Scheduler) lookupQueue(name string) (*qnode, error) {
	tq, err := s.tree.Lookup(name)
	if err != nil {
		return nil, argError(err, "queue", name)
	}
	return s.byTQ[tq], nil
}

// groupSource is where a submission's groups come from: the groups the
// host gave with it, else Config.Groups, else none.
func (s *Scheduler) groupSource(user string, given []string) queue.Groups {
	if given == nil && s.cfg.Groups != nil {
		return s.cfg.Groups
	}
	return groupList(given)
}

// place runs the queue mappings for a submission. It returns the queue to
// resolve (the requested one when no mapping applies) and the mapping
// that chose it, if any.
func (s *Scheduler) place(spec AppSpec, groups queue.Groups) (string, *placed, error) {
	in := placeInput{user: spec.User, app: spec.Name, requested: spec.Queue,
		groups: func() []string { return groups.GroupsOf(spec.User) }}
	res, ok, err := s.cfg.Placement.place(in, treeIndex{s.tree})
	if err != nil {
		return "", nil, fmt.Errorf("application %s rejected by queue placement: %w", spec.ID, err)
	}
	if !ok {
		return spec.Queue, nil, nil
	}
	return res.queue, &res, nil
}

// Place returns the queue a submission of spec would be resolved in
// after the queue mappings (Config.Placement): the mapped queue's path,
// or spec.Queue when no mapping applies. It changes nothing; an error is
// a rejection by the mappings (kind berth.ErrNoPlacement). Resolution of
// the queue itself (unknown, plan queues) is SubmitApp's.
func (s *Scheduler) Place(spec AppSpec) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	name, _, err := s.place(spec, s.groupSource(spec.User, spec.Groups))
	return name, err
}

// groupList adapts the submitter's groups to the tree's ACL check.
type groupList []string

// GroupsOf returns the submitter's groups, whoever asks.
func (g groupList) GroupsOf(string) []string { return g }

// resolveReservation is YARN's resolveReservationQueueName: applications
// submitted to a plan queue run in the reservation's queue, or in the
// plan's default queue when they name none.
func (s *Scheduler) resolveReservation(q *qnode, appID, resID string) (*qnode, error) {
	if q.kind != queue.KindPlan {
		return q, nil
	}
	if resID == "" {
		return s.byPath[q.path+"."+q.name+queue.DefaultReservationSuffix], nil
	}
	// As YARN: a missing queue is an inactive reservation (ErrNotFound,
	// as the fair scheduler answers); an existing queue that is not a
	// child of this plan (a reservation queue of another plan, or any
	// other queue) does not belong to it.
	r, err := s.lookupQueue(resID)
	if err != nil {
		return nil, fieldErr(berth.ErrNotFound, "app.reservation-id", resID,
			"Application %s submitted to a reservation which is not currently active: %s", appID, resID)
	}
	if r.parent != q {
		return nil, fieldErr(berth.ErrConflict, "app.reservation-id", resID,
			"Application: %s submitted to a reservation %s which does not belong to the specified queue: %s", appID, resID, q.name)
	}
	return r, nil
}

// validateSubmit is LeafQueue.validateSubmitApplication plus the parents'.
func (s *Scheduler) validateSubmit(q *qnode, appID, userName string) error {
	lf := q.leaf
	if !q.tq.IsRunning() {
		return fieldErr(berth.ErrInvalidState, "queue", q.path, "Queue %s is STOPPED. Cannot accept submission of application: %s", q.path, appID)
	}
	// A managed parent's leaves (YARN's AutoCreatedLeafQueue) skip the
	// application limits.
	if q.auto == autoLegacy {
		return nil
	}
	if q.numApps() >= lf.maxApps {
		return fieldErr(berth.ErrCapacityExceeded, "queue", q.path, "Queue %s already has %d applications, cannot accept submission of application: %s", q.path, q.numApps(), appID)
	}
	// An application waiting for a max-parallel-apps slot is not the
	// user's yet (YARN counts it only once it is runnable).
	if u := lf.users[userName]; u != nil && u.apps-u.waiting >= lf.maxAppsPerUser {
		return fieldErr(berth.ErrCapacityExceeded, "user", userName, "Queue %s already has %d applications from user %s cannot accept submission of application: %s", q.path, u.apps-u.waiting, userName, appID)
	} else if u == nil && lf.maxAppsPerUser <= 0 {
		return fieldErr(berth.ErrCapacityExceeded, "user", userName, "Queue %s already has 0 applications from user %s cannot accept submission of application: %s", q.path, userName, appID)
	}
	return nil
}

// SubmitApp submits an application and returns the full path of the leaf
// queue it runs in. The checks follow YARN's order: queue resolution, ACL,
// system limit, reservation resolution, leaf, queue limits.
func (s *Scheduler) SubmitApp(spec AppSpec) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := spec.Validate(); err != nil {
		return "", err
	}
	if _, ok := s.apps[spec.ID]; ok {
		return "", fieldErr(berth.ErrAlreadyExists, "app.id", spec.ID, "application already exists")
	}
	groups := s.groupSource(spec.User, spec.Groups)
	q, err := s.submitQueue(spec, groups)
	if err != nil {
		return "", err
	}
	if !q.tq.CanSubmit(spec.User, groups) {
		return "", fieldErr(berth.ErrPermissionDenied, "queue", q.path, "User %s does not have permission to submit %s to queue %s", spec.User, spec.ID, q.path)
	}
	if len(s.apps) >= s.cfg.MaximumApplications {
		return "", fieldErr(berth.ErrCapacityExceeded, prefix+"maximum-applications", s.cfg.MaximumApplications,
			"Maximum system application limit reached,cannot accept submission of application: %s", spec.ID)
	}
	if q, err = s.resolveReservation(q, spec.ID, spec.ReservationID); err != nil {
		return "", err
	}
	if !q.isLeaf() {
		return "", fieldErr(berth.ErrInvalidArgument, "queue", q.path, "Application %s submitted by user %s to non-leaf queue : %s", spec.ID, spec.User, q.path)
	}
	if err := s.validateSubmit(q, spec.ID, spec.User); err != nil {
		return "", err
	}
	prio, err := s.submitPriority(q, spec, groups)
	if err != nil {
		return "", err
	}
	var amAsk *Ask
	amPart := 0
	if !spec.AMResource.IsZero() {
		norm, err := s.normalize(q, spec.AMResource, "app.am-resource")
		if err != nil {
			return "", err
		}
		// The AM's label: its own, else the application's, else the
		// queue's default (YARN's RMAppManager and normalizeAndValidateRequest).
		if amPart, err = s.resolveExpr(q, "app.am-node-label-expression", spec.AMNodeLabelExpression, spec.NodeLabelExpression); err != nil {
			return "", err
		}
		amAsk = &Ask{Priority: 0, ResourceName: AnyResource, Capability: norm, Count: 1}
		if s.pendingAll.AddOverflows(norm) {
			return "", fieldErr(berth.ErrCapacityExceeded, "app.am-resource", spec.AMResource,
				"the outstanding demand of the applications would overflow int64")
		}
	}
	s.nextSeq++
	a := &app{id: spec.ID, seq: s.nextSeq, userName: spec.User, groups: slices.Clone(spec.Groups),
		priority: prio, start: s.clock.Now(), resID: spec.ReservationID,
		lp: growTo[apart](nil, len(s.parts)-1), amPart: amPart, expr: spec.NodeLabelExpression, amExpr: spec.AMNodeLabelExpression}
	a.deadline = deadline(a.start, appLifetime(q, spec.LifetimeSeconds))
	a.runnable = s.canRun(q, spec.User)
	if amAsk != nil {
		a.amRes = amAsk.Capability
		a.waitingAM = true
	}
	s.apps[a.id] = a
	s.attach(q, a)
	if amAsk != nil {
		s.setAsk(a, *amAsk, amPart)
		s.pendingChanged(a)
	}
	if s.obs != nil {
		s.emitApp(queue.AppAdded, a, "")
	}
	q.lastSubmit = a.start
	s.activate(q)
	return q.path, nil
}

// attach puts a (not yet activated) into leaf q.
func (s *Scheduler) attach(q *qnode, a *app) {
	lf := q.leaf
	a.q = q
	u := lf.users[a.userName]
	if u == nil {
		u = s.newUser(a.userName)
		lf.users[a.userName] = u
		s.setUserWeight(q, u)
	}
	a.u = u
	u.apps++
	s.accountUser(q, u, queue.Delta{PendingApps: 1})
	a.state = appPending
	if a.runnable {
		insertPending(lf, a)
	}
	s.trackParallel(a)
	i, _ := slices.BinarySearchFunc(lf.apps, a, bySeq)
	lf.apps = slices.Insert(lf.apps, i, a)
	// usage held by a moved application follows it
	if a.lp != nil {
		s.chargeApp(q, u, a, false)
		lf.borrowed += a.borrowed
	} else {
		if !a.used.IsZero() {
			s.charge(q, u, a.used, false)
		}
		if !a.reserved.IsZero() {
			s.charge(q, u, a.reserved, true)
		}
	}
	if a.hasPending() {
		s.userActiveApp(q, u, +1)
	}
}

// bySeq orders applications by submission.
func bySeq(x, y *app) int { return cmpSeq(x.seq, y.seq) }

func cmpSeq(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// detach takes a out of its leaf, with its usage; the inverse of attach
// plus activation.
func (s *Scheduler) detach(a *app) {
	q, lf, u := a.q, a.q.leaf, a.u
	if a.state == appActive {
		if a.inSched {
			schedRemove(q, a)
		}
		s.addAppPending(q, u, a, true)
		lf.numActive--
		s.amUsage(q, u, a, true)
	} else if i := slices.Index(lf.pendingAct, a); i >= 0 {
		lf.pendingAct = slices.Delete(lf.pendingAct, i, i+1)
	}
	if a.hasPending() {
		s.userActiveApp(q, u, -1)
	}
	if a.lp != nil {
		s.chargeApp(q, u, a, true)
		lf.borrowed -= a.borrowed
	} else {
		if !a.used.IsZero() {
			s.charge(q, u, a.used.Neg(), false)
		}
		if !a.reserved.IsZero() {
			s.charge(q, u, a.reserved.Neg(), true)
		}
	}
	if i, ok := slices.BinarySearchFunc(lf.apps, a, bySeq); ok {
		lf.apps = slices.Delete(lf.apps, i, i+1)
	}
	s.untrackParallel(a)
	u.apps--
	if a.state == appActive {
		s.accountUser(q, u, queue.Delta{ActiveApps: -1})
	} else {
		s.accountUser(q, u, queue.Delta{PendingApps: -1})
	}
	if u.apps == 0 && u.used.IsZero() {
		lf.allWeights -= u.weight
		delete(lf.users, u.name)
	}
	a.state = appPending
}

// normalize applies YARN's request normalization and rejects asks above the
// maximum allocation.
func (s *Scheduler) normalize(q *qnode, r berth.Resource, field string) (berth.Resource, error) {
	if r.AnyNegative() {
		return r, berth.InvalidField(field, r, "must not be negative")
	}
	// The leaf's maximum allocation (maximum-allocation), the cluster's
	// unless the queue lowers it.
	maxA := q.maxAlloc
	if !r.FitsIn(maxA) {
		return r, berth.InvalidField(field, r, "exceeds the maximum allocation "+maxA.String())
	}
	return s.rc.Normalize(r, s.cfg.MinAllocation, maxA, s.cfg.MinAllocation), nil
}

// Allocate is the application's side of YARN's allocate call: it replaces
// asks (by priority and resource name) and releases containers. It returns
// the application's current headroom. The call is all-or-nothing.
func (s *Scheduler) Allocate(appID string, asks []Ask, release []ContainerID) (berth.Resource, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.apps[appID]
	if !ok {
		return berth.Resource{}, notFound("app.id", appID)
	}
	norm := make([]Ask, len(asks))
	var parts []int // the ANY asks' partitions, when the cluster has labels
	if a.lp != nil {
		parts = make([]int, len(asks))
	}
	for i, k := range asks {
		f := fmt.Sprintf("asks[%d]", i)
		if err := k.Validate(f); err != nil {
			return berth.Resource{}, err
		}
		c, err := s.normalize(a.q, k.Capability, f+".capability")
		if err != nil {
			return berth.Resource{}, err
		}
		if k.ResourceName == AnyResource && k.Count > 0 && s.rc.AnyMajorZeroOrNegative(c) {
			return berth.Resource{}, berth.InvalidField(f+".capability", k.Capability, "must be positive")
		}
		if k.ResourceName == AnyResource && (parts != nil || k.NodeLabelExpression != "") {
			// YARN reads a priority's label from its ANY ask: the ask's
			// own, else the application's, else the queue's default.
			p, err := s.resolveExpr(a.q, f+".node-label-expression", k.NodeLabelExpression, a.expr)
			if err != nil {
				return berth.Resource{}, err
			}
			if parts != nil {
				parts[i] = p
			}
		}
		k.Capability = c
		norm[i] = k
	}
	if err := s.checkDemand(a, norm); err != nil {
		return berth.Resource{}, err
	}
	if err := queue.CheckRelease(release, func(id ContainerID) bool {
		c, live := s.live.Get(id)
		r, reserved := s.resvByID[id]
		return live && c.app == a || reserved && r.app == a
	}); err != nil {
		return berth.Resource{}, err
	}
	for i, k := range norm {
		p := 0
		if parts != nil {
			p = parts[i]
		}
		s.setAsk(a, k, p)
	}
	for _, id := range release {
		if c, ok := s.live.Get(id); ok {
			s.releaseContainer(c)
			if s.obs != nil {
				s.emitEnded(c.c, Released)
			}
		} else if r, ok := s.resvByID[id]; ok {
			s.unreserve(r)
		}
	}
	s.pendingChanged(a)
	return s.refreshHeadroom(a), nil
}

// checkDemand refuses asks (valid and normalized) after which the
// outstanding demand of a, or of all applications together, would not be
// representable in int64: an error of kind berth.ErrCapacityExceeded
// naming the first ask that passes the bound. YARN's long arithmetic
// wraps instead (a pending memory of −9.2e18 after an ask of 2^53
// containers).
func (s *Scheduler) checkDemand(a *app, asks []Ask) error {
	fits := func(asks []Ask) bool {
		p, ok := a.asks.PendingAfter(asks)
		return ok && !s.pendingAll.Sub(a.pending).AddOverflows(p)
	}
	if fits(asks) {
		return nil
	}
	i := 0
	for i < len(asks)-1 && fits(asks[:i+1]) {
		i++
	}
	return fieldErr(berth.ErrCapacityExceeded, fmt.Sprintf("asks[%d].count", i), asks[i].Count,
		"the outstanding demand of the applications would overflow int64")
}

// refreshHeadroom recomputes a's headroom (YARN's
// computeUserLimitAndSetHeadroom) and returns it.
func (s *Scheduler) refreshHeadroom(a *app) berth.Resource {
	if a.lp != nil {
		a.headroom = s.appHeadroom(a)
	} else {
		a.headroom = s.headroom(a.q, a.u, s.userLimit(a.q, a.u))
	}
	return a.headroom
}

// Headroom returns the application's headroom as computed now: what its
// user and queue may still get, within the free cluster.
func (s *Scheduler) Headroom(appID string) (berth.Resource, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.apps[appID]
	if !ok {
		return berth.Resource{}, notFound("app.id", appID)
	}
	return s.refreshHeadroom(a), nil
}

// setAsk stores one validated ask in a's request table, an ANY ask with
// its key's partition p; pendingChanged must follow.
func (s *Scheduler) setAsk(a *app, k Ask, p int) {
	key, _ := a.asks.Update(k, s.isRack(k.ResourceName)) // k passed Ask.Validate
	if key != nil && k.ResourceName == AnyResource {
		key.Payload.part = p
	}
}

// isRack tells a rack name from a host name ([queue.Racks.IsRack]).
func (s *Scheduler) isRack(name string) bool {
	_, isNode := s.nodes[name]
	return s.racks.IsRack(name, isNode)
}

// pendingChanged recomputes a's outstanding demand and propagates it to
// the user (active users), the queue chain and the schedulable list.
func (s *Scheduler) pendingChanged(a *app) {
	if a.lp != nil {
		s.pendingChangedParts(a)
		return
	}
	s.setPending(a, a.asks.Pending())
}

// setPending sets a's total demand to p, the change being on the default
// partition.
func (s *Scheduler) setPending(a *app, p berth.Resource) {
	was := a.hasPending()
	delta := p.Sub(a.pending)
	a.pending = p
	s.pendingAll = s.pendingAll.Add(delta)
	if a.state == appActive && !delta.IsZero() {
		s.addPending(a.q, a.u, delta)
	}
	s.pendingMoved(a, was)
}

// pendingMoved follows a change of a's demand (was: it had some before):
// its user's activity, its fair key, its place in the schedulable list.
func (s *Scheduler) pendingMoved(a *app, was bool) {
	now := a.hasPending()
	if was != now {
		if now {
			s.userActiveApp(a.q, a.u, +1)
		} else {
			s.userActiveApp(a.q, a.u, -1)
		}
	}
	if a.inSched && appKeyMoves(a.q) {
		resched(a.q, a) // the fair key includes the demand
	}
	s.syncSched(a)
}

// syncSched keeps a in the schedulable list exactly when it is active with
// outstanding asks.
func (s *Scheduler) syncSched(a *app) {
	want := a.state == appActive && a.hasPending()
	if want && !a.inSched {
		schedInsert(a.q, a)
	} else if !want && a.inSched {
		schedRemove(a.q, a)
	}
}

// releaseContainer ends a live container, returning its resources.
func (s *Scheduler) releaseContainer(c *container) {
	a, n := c.app, c.node
	s.live.Delete(c.c.ID)
	n.unlink(c)
	a.unlink(c)
	n.allocated = n.allocated.Sub(c.c.Resource)
	if n.part == 0 {
		s.appUsage(a, c.c.Resource.Neg())
		s.charge(a.q, a.u, c.c.Resource.Neg(), false)
		return
	}
	if c.borrowed {
		a.borrowed--
		a.q.leaf.borrowed--
	}
	s.appUsageOn(a, n.part, c.c.Resource.Neg())
	s.chargeOn(n.part, a.q, a.u, c.c.Resource.Neg(), false)
}

// appUsage changes an application's used resource, keeping fair order.
func (s *Scheduler) appUsage(a *app, delta berth.Resource) {
	a.used = a.used.Add(delta)
	if a.inSched && appKeyMoves(a.q) {
		resched(a.q, a)
	}
}

// unreserve cancels a container reservation.
func (s *Scheduler) unreserve(r *reservation) {
	a := r.app
	r.node.reserved = nil
	delete(s.resvByID, r.id)
	if i := slices.Index(a.resv, r); i >= 0 {
		a.resv = slices.Delete(a.resv, i, i+1)
	}
	ks := &r.key.Payload
	ks.nRes--
	ks.reRes = 0 // YARN resets it on every unreservation
	a.reserved = a.reserved.Sub(r.res)
	if p := r.node.part; p != 0 {
		a.lp[p-1].reserved = a.lp[p-1].reserved.Sub(r.res)
	}
	s.chargeOn(r.node.part, a.q, a.u, r.res.Neg(), true)
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

// KillAppsInQueue kills every application of a leaf queue (YARN's
// killAllAppsInQueue), in submission order, and returns their containers.
func (s *Scheduler) KillAppsInQueue(queueName string) ([]Ended, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	q, err := s.lookupQueue(queueName)
	if err != nil {
		return nil, err
	}
	if !q.isLeaf() {
		return nil, fieldErr(berth.ErrInvalidArgument, "queue", q.path, "%s is not a leaf queue", q.path)
	}
	victims := slices.Clone(q.leaf.apps) // removal edits the leaf's list
	var out []Ended
	for _, a := range victims {
		e, err := s.removeAppLocked(a.id, queue.AppKilled)
		if err != nil {
			return out, err
		}
		out = append(out, e...)
	}
	return out, nil
}

// removeApp removes an application; how is AppFinished or AppKilled (its
// containers end as Killed either way).
func (s *Scheduler) removeApp(appID string, how queue.AppEventKind) ([]Ended, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.removeAppLocked(appID, how)
}

func (s *Scheduler) removeAppLocked(appID string, how queue.AppEventKind) ([]Ended, error) {
	a, ok := s.apps[appID]
	if !ok {
		return nil, notFound("app.id", appID)
	}
	var out []Ended
	for c := a.head; c != nil; {
		next := c.aNext
		out = append(out, Ended{Container: c.c, Status: Killed})
		s.releaseContainer(c)
		c = next
	}
	slices.SortFunc(out, func(x, y Ended) int { return cmpID(x.ID, y.ID) })
	if s.obs != nil {
		s.emitEndedAll(out)
	}
	for len(a.resv) > 0 {
		s.unreserve(a.resv[0])
	}
	a.asks.Clear()
	s.setPending(a, berth.Resource{})
	q, wasRunnable := a.q, a.runnable
	s.detach(a)
	delete(s.apps, appID)
	s.acts.ForgetApp(appID)
	if s.obs != nil {
		s.emitApp(how, a, "")
	}
	s.activate(q)
	if wasRunnable {
		s.runnableAfterRemoval(q, a.userName)
	}
	return out, nil
}

// MoveApp moves an application to another leaf queue (a plan queue means
// its default reservation queue), with its containers, reservations and
// asks. The target must accept the application as a submission would.
func (s *Scheduler) MoveApp(appID, target string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.apps[appID]
	if !ok {
		return "", notFound("app.id", appID)
	}
	q, err := s.lookupQueue(target)
	if err != nil {
		return "", berth.Wrap(err, "moving application", appID)
	}
	if q.kind == queue.KindPlan {
		q = s.byPath[q.path+"."+q.name+queue.DefaultReservationSuffix]
	}
	if !q.isLeaf() {
		return "", fieldErr(berth.ErrInvalidArgument, "queue", q.path, "The specified Queue: %s is not a Leaf Queue.", q.path)
	}
	if q == a.q {
		return q.path, nil
	}
	if !q.tq.CanSubmit(a.userName, s.groupSource(a.userName, a.groups)) {
		return "", fieldErr(berth.ErrPermissionDenied, "queue", q.path, "User %s does not have permission to move %s to queue %s", a.userName, a.id, q.path)
	}
	if err := s.validateSubmit(q, a.id, a.userName); err != nil {
		return "", err
	}
	if err := s.checkMovePartitions(a, q); err != nil {
		return "", err
	}
	src := a.q
	s.detach(a)
	s.attach(q, a)
	for c := a.head; c != nil; c = c.aNext {
		c.c.Queue = q.path
	}
	if s.obs != nil {
		s.emitApp(queue.AppMoved, a, src.path)
	}
	s.activate(src)
	s.activate(q)
	return q.path, nil
}
