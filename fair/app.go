package fair

import (
	"math"
	"slices"

	"github.com/berthsched/berth"
)

// app is one application attempt (YARN's FSAppAttempt).
type app struct {
	Schedulable
	id      string
	user    string
	q       *fsQueue
	seq     uint64
	appPrio int32 // the submitted priority (reported; YARN's FS orders every app as priority 1)

	runnable bool
	resID    string

	keys []*skey // by priority, most important (lowest number) first

	amRes     berth.Resource // the AM container size once allocated
	managedAM bool           // the scheduler allocates the AM (AppSpec.AMResource set)
	amRunning bool

	live        map[ContainerID]*container
	reservedOn  map[string]*reservation // node id → reservation
	reservedRes berth.Resource

	// delay scheduling, per priority
	allowed map[int32]Locality
	opps    map[int32]int
	lastAt  map[int32]berth.Time

	// starvation (preemption enabled)
	lastTimeAtFairShare berth.Time
	fairStarvation      berth.Resource
	minStarvation       berth.Resource
}

// skey is one scheduler key (priority) of an application with its asks.
type skey struct {
	prio     int32
	capRes   berth.Resource
	any      int
	anyRelax bool
	racks    map[string]*locAsk
	hosts    map[string]*locAsk
}

// locAsk is a rack or host ask of a key.
type locAsk struct {
	count int
	relax bool
}

func (k *skey) uniqueAsks() int {
	n := 0
	if k.any > 0 {
		n++
	}
	for _, a := range k.racks {
		if a.count > 0 {
			n++
		}
	}
	for _, a := range k.hosts {
		if a.count > 0 {
			n++
		}
	}
	return n
}

func (k *skey) count(m map[string]*locAsk, name string) int {
	if a := m[name]; a != nil {
		return a.count
	}
	return 0
}

// canDelayTo is YARN's relax-locality flag of the ask at name (true when
// there is no such ask).
func (k *skey) canDelayTo(m map[string]*locAsk, name string) bool {
	if a := m[name]; a != nil {
		return a.relax
	}
	return true
}

func (a *app) key(prio int32) *skey {
	i, ok := slices.BinarySearchFunc(a.keys, prio, func(k *skey, p int32) int { return cmpInt64(int64(k.prio), int64(p)) })
	if ok {
		return a.keys[i]
	}
	return nil
}

func (a *app) addKey(prio int32) *skey {
	i, ok := slices.BinarySearchFunc(a.keys, prio, func(k *skey, p int32) int { return cmpInt64(int64(k.prio), int64(p)) })
	if ok {
		return a.keys[i]
	}
	k := &skey{prio: prio, anyRelax: true}
	a.keys = slices.Insert(a.keys, i, k)
	return k
}

// pendingAsks is Σ capability × ANY count over keys.
func (a *app) pendingAsks() berth.Resource {
	var r berth.Resource
	for _, k := range a.keys {
		if k.any > 0 {
			r = r.Add(k.capRes.MulInt(int64(k.any)))
		}
	}
	return r
}

// nextPendingAsk is the ANY ask of the most important key with one.
func (a *app) nextPendingAsk() (berth.Resource, int) {
	for _, k := range a.keys {
		if k.any > 0 {
			return k.capRes, k.any
		}
	}
	return berth.Resource{}, 0
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
	live      map[ContainerID]*container
	reserved  *reservation
}

func (n *node) unallocated() berth.Resource { return n.Capability.Sub(n.allocated) }
