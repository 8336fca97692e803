package fair

import (
	"math"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/internal/order"
	"github.com/berthsched/berth/queue"
)

// app is one application attempt (YARN's FSAppAttempt).
//
// The fields are laid out by use: with thousands of applications the one a
// heartbeat serves is cold, a cache miss per line, and the walk's misses
// come one after another (each read finds the next address). The leaf's
// order hands the walk the record itself (an order.Set keeps its values
// beside its slots), so the first lines hold what the walk reads first —
// the flags, the asks' table and, in place, its first key (most
// applications ask at one priority) — then the order entry (the re-key
// reads its header, prefix and key), what an allocation reads, and
// Schedulable, whose front holds the key's inputs; what only updates,
// submissions, reservations and preemption read comes last.
type app struct {
	runnable  bool
	managedAM bool // the scheduler allocates the AM (AppSpec.AMResource set)
	amRunning bool
	// ordBad is whether ord's key is bad (kept apart: reading it through
	// the entry copies the whole key).
	ordBad    bool
	dirty     bool
	gone      bool                           // removed from the scheduler
	acctDirty bool                           // in Scheduler.acctDirty
	asks      queue.Requests[delayState]     // outstanding asks by priority (YARN's AppSchedulingInfo)
	askBlk    queue.RequestBlock[delayState] // asks' first key (queue.RequestsIn)
	ord       order.Entry[sortKey, *app]     // the leaf walk's order (order.go)

	// read on every allocation and re-key
	q     *fsQueue
	live  liveList      // in id order (live.go)
	set   *ordSet[*app] // the order a is in, nil when none
	walkQ *fsQueue      // the leaf counting a as walkable, nil when not (order.go)
	id    string
	user  string
	npre  uint64 // namePrefix(Name), for the order's keys
	// What the shared tree has not been charged yet (accountApp).
	acctUsed berth.Resource

	// Its front (name, demand, usage, min share, max share, weight,
	// start) is read by every re-key, the rest by updates.
	Schedulable

	acctReserved berth.Resource          // as acctUsed
	uref         queue.UserRef[*fsQueue] // a's user's entries in the shared tree (flushApp)

	seq     uint64
	appPrio int32 // the submitted priority (reported; YARN's FS orders every app as priority 1)
	resID   string
	amRes   berth.Resource // the AM container size once allocated

	reservedOn  map[string]*reservation // node id → reservation
	reservedRes berth.Resource

	// starvation (preemption enabled)
	lastTimeAtFairShare berth.Time
	fairStarvation      berth.Resource
	minStarvation       berth.Resource
	// nextStarvationCheck: a preemption policy acted for the application;
	// its starvation is not reconsidered before then (YARN's
	// preemptionTriggered back-off).
	nextStarvationCheck berth.Time
}

// skey is one scheduler key (priority) of an application with its asks,
// from the shared request table, carrying the key's delay-scheduling state
// (YARN's per-SchedulerRequestKey maps of FSAppAttempt) so the walk needs
// no map lookup per offer. Keys live as long as the application's table,
// as the map entries did.
type skey = queue.RequestKey[delayState]

// delayState is one scheduler key's delay scheduling: the locality level
// allowed (set once the key was first considered), the scheduling
// opportunities missed at it, and when the level last changed (set with
// the level in time-based mode; unset means the application's start).
type delayState struct {
	allowed    Locality
	allowedSet bool
	opps       int
	lastAt     berth.Time
	lastAtSet  bool
}

// weightFor returns YARN's application weight.
func appWeight(a *app, sizeBased bool) float64 {
	if !sizeBased {
		return 1
	}
	return float64(float32(math.Log1p(float64(a.Demand.Memory)) / math.Ln2))
}

// container is a live container.
type container struct {
	Container
	app    *app
	node   *node
	marked bool
	links  [2]liveLink // in its application's and its node's lists
}

// reservation is a container reserved on a node for an application.
type reservation struct {
	id   ContainerID
	app  *app
	node *node
	prio int32
	res  berth.Resource
	time berth.Time
}

// node is a cluster node (YARN's FSSchedulerNode).
type node struct {
	NodeSpec
	allocated berth.Resource
	live      liveList // in id order (live.go)
	reserved  *reservation
	// preempted: resources a preemption policy freed (or is freeing) on
	// the node for starved applications, in the order they were claimed
	// (YARN's FSSchedulerNode.resourcesPreemptedForApp).
	preempted []*preemptedFor
}

// preemptedFor is what a node still owes a starved application.
type preemptedFor struct {
	app *app
	res berth.Resource
}

func (n *node) unallocated() berth.Resource { return n.Capability.Sub(n.allocated) }
