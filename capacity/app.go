package capacity

import (
	"math"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/internal/order"
	"github.com/berthsched/berth/queue"
)

type appState uint8

const (
	appPending appState = iota // submitted, waiting for activation (AM limits)
	appActive
)

// app is the scheduler's view of one application attempt. Fields are laid
// out by use: a walk reads the first few cache lines of the applications
// it visits (their order entry, user, asks and reservations), a commit the
// next; with 10,000 applications each visit is a cache miss per line.
type app struct {
	sent     order.Entry[appKey, *app] // a's place in its leaf's order
	u        *user
	q        *qnode
	asks     queue.Requests[keyState] // outstanding asks by priority (YARN's AppSchedulingInfo)
	reserved berth.Resource
	pending  berth.Resource
	used     berth.Resource // allocated, without reservations

	inSched              bool
	state                appState
	waitingAM            bool       // the next container is the AM
	sortUsed, sortDemand int64      // fair-ordering key captured at insertion
	head                 *container // live containers (intrusive list)
	n                    int
	prios                []prioCount // live containers per request priority (preemption.go)
	headroom             berth.Resource
	id                   string
	userName             string

	seq      uint64 // submission order: FIFO tie-break, YARN's application id order
	groups   []string
	priority int32
	start    berth.Time
	resID    string
	amRes    berth.Resource
	amLive   berth.Resource // the live AM container's resource (preemption.go)
	resv     []*reservation // in reservation order

	runnable bool       // within max-parallel-apps (maxapps.go)
	deadline berth.Time // when its lifetime runs out (lifetime.go); MaxTime: none

	// Partitions (partition.go): usage and demand per labelled partition
	// (used, reserved and pending above are totals), the AM's partition,
	// the label expressions the host gave, and the live containers of its
	// default-partition asks on labelled nodes.
	lp           []apart
	amPart       int
	expr, amExpr string
	borrowed     int
}

func (a *app) hasPending() bool { return !a.pending.IsZero() }

// skey is a scheduler key: one request priority of one application with
// its asks by locality (package queue's shared request table) and, as its
// payload, the capacity scheduler's per-key counters.
type skey = queue.RequestKey[keyState]

// keyState is what YARN's SchedulerApplicationAttempt counts per
// scheduler key: missed scheduling opportunities (delay scheduling) and
// re-reservations, plus the containers reserved for the key.
type keyState struct {
	missed int64 // scheduling opportunities (YARN counts them per key)
	reRes  int   // re-reservations
	nRes   int   // containers reserved for this key
	// missedNP counts the key's missed opportunities for the
	// non-exclusive walk (YARN's missedNonPartitionedRequestSchedulingOpportunity):
	// a default-partition ask takes a labelled node's idle room only
	// after missing as many as there are nodes.
	missedNP int64
	part     int // the partition of the key's ANY ask (its label expression)
}

// container is a live allocated container, linked into its node's and its
// application's lists so that neither needs a map.
type container struct {
	c            Container
	node         *node
	app          *app
	nPrev, nNext *container
	aPrev, aNext *container
	preempt      bool
	borrowed     bool // a default-partition ask's, on a labelled node
}

// reservation is a container reserved on a node for an application's key.
type reservation struct {
	id   ContainerID
	node *node
	app  *app
	key  *skey
	res  berth.Resource
	loc  Locality
	time berth.Time
}

type node struct {
	part      int // its partition (0: the default)
	id, rack  string
	total     berth.Resource
	allocated berth.Resource
	head      *container
	n         int
	reserved  *reservation
	lastBeat  berth.Time // last heartbeat (or addition), for rounds (async.go)
	candGen   uint64     // marks the candidates of a multi-node walk (async.go)
}

func (n *node) link(c *container) {
	c.nPrev, c.nNext = nil, n.head
	if n.head != nil {
		n.head.nPrev = c
	}
	n.head = c
	n.n++
}

func (n *node) unlink(c *container) {
	if c.nPrev != nil {
		c.nPrev.nNext = c.nNext
	} else {
		n.head = c.nNext
	}
	if c.nNext != nil {
		c.nNext.nPrev = c.nPrev
	}
	c.nPrev, c.nNext = nil, nil
	n.n--
}

func (a *app) link(c *container) {
	c.aPrev, c.aNext = nil, a.head
	if a.head != nil {
		a.head.aPrev = c
	}
	a.head = c
	a.n++
	a.track(c, 1)
}

func (a *app) unlink(c *container) {
	if c.aPrev != nil {
		c.aPrev.aNext = c.aNext
	} else {
		a.head = c.aNext
	}
	if c.aNext != nil {
		c.aNext.aPrev = c.aPrev
	}
	c.aPrev, c.aNext = nil, nil
	a.n--
	a.track(c, -1)
}

// appBefore is the leaf's application ordering.
func appBefore(pol AppOrdering, sizeWeight bool) func(a, b *app) bool {
	if pol == OrderFair {
		return func(a, b *app) bool { return cmpFair(a, b, sizeWeight) < 0 }
	}
	return fifoBefore
}

// fifoBefore: higher application priority first, then submission order.
func fifoBefore(a, b *app) bool {
	if a.priority != b.priority {
		return a.priority > b.priority
	}
	return a.seq < b.seq
}

func fairMagnitude(a *app, sizeWeight bool) float64 {
	m := float64(a.sortUsed)
	if sizeWeight && a.sortUsed != 0 && a.sortDemand != 0 {
		m /= math.Log1p(float64(a.sortDemand)) / math.Ln2
	}
	return m
}

// cmpFair is YARN's FairOrderingPolicy comparator: usage, then start time,
// then demand, then submission order.
func cmpFair(a, b *app, sizeWeight bool) int {
	ma, mb := fairMagnitude(a, sizeWeight), fairMagnitude(b, sizeWeight)
	if ma != mb {
		if ma < mb {
			return -1
		}
		return 1
	}
	if a.start != b.start {
		if a.start < b.start {
			return -1
		}
		return 1
	}
	da, db := a.sortDemand > 0, b.sortDemand > 0
	if da != db {
		if da {
			return -1
		}
		return 1
	}
	switch {
	case a.seq < b.seq:
		return -1
	case a.seq > b.seq:
		return 1
	}
	return 0
}

// schedInsert adds a to its leaf's schedulable list, keeping order.
func schedInsert(q *qnode, a *app) {
	lf := q.leaf
	a.sortUsed = a.used.Memory
	a.sortDemand = a.used.Memory + a.pending.Memory
	a.sent.Value = a
	lf.sched.Insert(&a.sent, leafAppKey(q, a))
	a.inSched = true
}

// resched is the "key changed" notification for a in its leaf's order:
// the fair key is re-captured from a's usage and demand.
func resched(q *qnode, a *app) {
	a.sortUsed = a.used.Memory
	a.sortDemand = a.used.Memory + a.pending.Memory
	q.leaf.sched.Rekey(&a.sent, leafAppKey(q, a))
}

// schedRemove takes a out of its leaf's schedulable list.
func schedRemove(q *qnode, a *app) {
	q.leaf.sched.Remove(&a.sent)
	a.inSched = false
}
