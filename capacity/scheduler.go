package capacity

import (
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
	mu         sync.Mutex
	clock      berth.Clock
	cfg        Config
	calculator berth.Calculator
	mem        bool // calculator is the memory calculator (calc.go)

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
	walkCluster berth.Resource
	kidBufs     [][]*qnode

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
	// the kept orders of walk_order.go are checked against)
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
