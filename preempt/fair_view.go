package preempt

import (
	"github.com/berthsched/berth"
	"github.com/berthsched/berth/fair"
)

// FairRequest is one container a starved application waits for: the
// selector must find room for Ask.Capability on a node Ask.ResourceName
// names (a host, a rack or fair.AnyResource). Ask.Count is always 1.
type FairRequest struct {
	App string   // the starved application
	Ask fair.Ask // one container of one of its starved asks
}

// FairVictimSet is the containers one selection preempts, all on Node.
// An empty set with a node means the request fits there without
// preempting anything. Containers may be the selector's own buffer: the
// round reads it before the next call and keeps no reference.
type FairVictimSet struct {
	Node       int                   // index in FairView's nodes
	Containers []*fair.ContainerInfo // the victims, in selection order
	AMs        int                   // how many of them are AM containers

	states []*fairAppState // FairYARNSelector's: the containers' applications
}

// FairVictimSelector identifies the containers to preempt so that one
// container of a starved application fits on a node. It is the extension
// point of fair preemption: [FairPreemptor] asks it once per container of
// every starved request and then marks what it returns, so later calls of
// the same round see those containers as taken. ok is false when no node
// can make room. [FairYARNSelector] is YARN's identification. A set of
// another selector that takes a container twice, one already taken, one
// off the set's node or one whose application would drop below its fair
// share fails the round with berth.ErrInvalidArgument.
type FairVictimSelector interface {
	SelectVictims(v *FairView, req FairRequest) (set FairVictimSet, ok bool)
}

// FairView is the state of one preemption round as a selector sees it:
// the scheduler's snapshot plus what the round has already chosen. Its
// methods are cheap (no allocation on the hot path); the slices it
// returns are its own and must not be modified. A view and the containers
// it hands out are valid during the round that passes it: the preemptor
// reuses their storage for the next round. The zero FairView sees no
// node: its methods return zero values.
type FairView struct {
	seq  uint64
	snap *fair.Snapshot
	now  berth.Time

	nodeIdx   map[string]int // node id → index, built on first use (idxBuilt)
	idxBuilt  bool
	allNodes  []int
	rackNodes map[string][]int
	byNode    [][]*fair.ContainerInfo // candidates per node: non-AM newest first, then AMs
	loaded    []bool                  // byNode[i] was read from the scheduler
	byNodeSt  [][]*fairAppState       // byNode's applications, in step
	load      func(node string) ([]fair.ContainerInfo, error)
	// appendLoad, when the scheduler has it, reads into the round's
	// reused blocks instead.
	appendLoad func(dst []fair.ContainerInfo, node string) ([]fair.ContainerInfo, error)
	sc         *fairScratch
	earmark    []berth.Resource // per node: resources preempted for starved apps, not yet handed over
	reserved   []berth.Resource // per node: the reserved container

	apps         map[string]*fairAppState
	pending      map[fair.ContainerID]int32 // marked by the preemptor (the preemptor's index)
	earlierMarks bool                       // pending held marks when the round began

	lastApp   string // one-entry cache of app: containers come in runs of one app
	lastState *fairAppState
}

func (v *FairView) app(id string) *fairAppState {
	if v.lastState != nil && id == v.lastApp {
		return v.lastState
	}
	a := v.apps[id]
	if a != nil {
		v.lastApp, v.lastState = id, a
	}
	return a
}

type fairAppState struct {
	info *fair.AppInfo
	calc berth.Calculator
	// toBePreempted: resources of the app's containers already marked;
	// left is its usage less those.
	toBePreempted, left berth.Resource
}

// Seq numbers the round (1 for the first); a selector that caches per
// round resets when it changes.
func (v *FairView) Seq() uint64 { return v.seq }

// Time is the round's time.
func (v *FairView) Time() berth.Time { return v.now }

// Snapshot is the scheduler's state the round reads: queues,
// applications, nodes and container reservations (containers are read
// per node, by [FairView.Candidates]).
func (v *FairView) Snapshot() *fair.Snapshot { return v.snap }

// NumNodes is the number of nodes; indices run from 0 in node id order.
func (v *FairView) NumNodes() int {
	if v == nil || v.snap == nil {
		return 0
	}
	return len(v.snap.Nodes)
}

// Node returns node i, nil when i is not in [0, NumNodes).
func (v *FairView) Node(i int) *fair.NodeInfo {
	if i < 0 || i >= v.NumNodes() {
		return nil
	}
	return &v.snap.Nodes[i]
}

// nodeIndex finds a node's index by id. The index is built on first use:
// a round whose starved applications ask anywhere and that has no marks,
// earmarks or reservations to place never hashes every node id.
func (v *FairView) nodeIndex(id string) (int, bool) {
	if !v.idxBuilt {
		v.idxBuilt = true
		if v.nodeIdx == nil {
			v.nodeIdx = make(map[string]int, len(v.snap.Nodes))
		} else {
			clear(v.nodeIdx)
		}
		for i := range v.snap.Nodes {
			v.nodeIdx[v.snap.Nodes[i].ID] = i
		}
	}
	i, ok := v.nodeIdx[id]
	return i, ok
}

// NodesFor returns the indices of the nodes resourceName names: every
// node for fair.AnyResource, the node of that id, or the nodes of that
// rack, in node id order; nil for an unknown name.
func (v *FairView) NodesFor(resourceName string) []int {
	if v.NumNodes() == 0 {
		return nil
	}
	if resourceName == fair.AnyResource {
		return v.allNodes
	}
	if i, ok := v.nodeIndex(resourceName); ok {
		return []int{i}
	}
	if v.rackNodes == nil {
		v.rackNodes = map[string][]int{}
		for i := range v.snap.Nodes {
			r := v.snap.Nodes[i].Rack
			v.rackNodes[r] = append(v.rackNodes[r], i)
		}
	}
	return v.rackNodes[resourceName]
}

// Candidates returns the containers running on node i in the order YARN
// considers them: non-AM containers first, then AM containers; within
// each, the most recently allocated first (least work lost). Containers
// at the front that can no longer be preempted this round are left out;
// others that cannot may remain: [FairView.CanPreempt] refuses those.
func (v *FairView) Candidates(i int) []*fair.ContainerInfo {
	if i < 0 || i >= v.NumNodes() {
		return nil
	}
	cs, _ := v.candidates(i)
	return cs
}

// candidates is Candidates with each container's application.
func (v *FairView) candidates(i int) ([]*fair.ContainerInfo, []*fairAppState) {
	if !v.loaded[i] {
		v.loaded[i] = true
		var cs []fair.ContainerInfo
		if v.appendLoad != nil {
			room := v.sc.ci.room(64)                       // a node rarely holds more
			cs, _ = v.appendLoad(room, v.snap.Nodes[i].ID) // a node that left has none
			if len(cs) > 0 && len(cs) <= cap(room) {
				cs = v.sc.ci.commit(len(cs)) // it stayed in the block
			}
		} else {
			cs, _ = v.load(v.snap.Nodes[i].ID)
		}
		out := v.sc.ptrs.room(len(cs))
		for _, am := range [2]bool{false, true} {
			for k := len(cs) - 1; k >= 0; k-- {
				if cs[k].AM == am {
					out = append(out, &cs[k])
				}
			}
		}
		out = v.sc.ptrs.commit(len(out))
		if v.earlierMarks {
			for _, c := range out {
				if _, ok := v.pending[c.ID]; ok {
					c.MarkedForPreemption = true
				}
			}
		}
		v.byNode[i] = out
		sts := v.sc.sts.room(len(out))
		for _, c := range out {
			sts = append(sts, v.app(c.App))
		}
		v.byNodeSt[i] = v.sc.sts.commit(len(sts))
	}
	// Containers that cannot be preempted now never can again this round
	// (marks and amounts to be preempted only grow): drop them from the
	// front so that repeated searches on a node stay linear.
	cs, sts := v.byNode[i], v.byNodeSt[i]
	k := 0
	for k < len(cs) && !v.canPreempt(cs[k], sts[k], berth.Resource{}) {
		k++
	}
	v.byNode[i], v.byNodeSt[i] = cs[k:], sts[k:]
	return v.byNode[i], v.byNodeSt[i]
}

// Potential is what node i offers before any preemption: its unallocated
// resource minus its reserved container and the resources already
// preempted there for starved applications, never negative (YARN's
// unallocated − totalReserved).
func (v *FairView) Potential(i int) berth.Resource {
	if i < 0 || i >= v.NumNodes() {
		return berth.Resource{}
	}
	n := &v.snap.Nodes[i]
	return n.Capability.Sub(n.Allocated).SubNonNegative(v.reserved[i].Add(v.earmark[i]))
}

// CanPreempt is YARN's canContainerBePreempted: the container's queue and
// its ancestors allow preemption, it is not already marked (its
// MarkedForPreemption, which the round sets on the containers it
// chooses), and its
// application stays at or above its fair share (under its queue policy's
// calculator) after losing it, what is already marked and already (the
// containers of the same application chosen so far in the set being
// built).
func (v *FairView) CanPreempt(c *fair.ContainerInfo, already berth.Resource) bool {
	if c == nil || !c.Preemptable || c.MarkedForPreemption {
		return false
	}
	return v.canPreempt(c, v.app(c.App), already)
}

// canPreempt is CanPreempt with c's application (nil: unknown) at hand.
func (v *FairView) canPreempt(c *fair.ContainerInfo, a *fairAppState, already berth.Resource) bool {
	if !c.Preemptable || c.MarkedForPreemption || a == nil {
		return false
	}
	after := a.left.Sub(c.Resource)
	if !already.IsZero() {
		after = after.Sub(already)
	}
	return a.calc.Compare(v.snap.Cluster, after, a.info.FairShare) >= 0
}

// mark records a chosen set: its containers are taken and their room is
// earmarked on the node for the starved application.
func (v *FairView) mark(set FairVictimSet) {
	for k, c := range set.Containers {
		c.MarkedForPreemption = true
		var a *fairAppState
		if len(set.states) == len(set.Containers) {
			a = set.states[k]
		} else {
			a = v.app(c.App)
		}
		if a != nil {
			a.toBePreempted = a.toBePreempted.Add(c.Resource)
			a.left = a.info.Usage.Sub(a.toBePreempted)
		}
		v.earmark[set.Node] = v.earmark[set.Node].Add(c.Resource)
	}
}

// FairYARNSelector is YARN 3.x's identification (FSPreemptionThread):
// the nodes the request names are tried in node id order; on each, the
// candidates are taken while CanPreempt allows until the request fits in
// the node's potential; the first set without AM containers wins,
// otherwise the set with the fewest. When that set holds AMs and the
// request names a host or rack with relaxed locality, every node is
// searched again. Unlike YARN, a node whose potential already fits the
// request yields an empty set at once rather than one needless victim.
//
// Within a round it remembers, per container size, the nodes that could
// not make room even with AMs allowed, and skips them: the round only
// takes containers away and only raises earmarks, so such a node stays
// useless for that size. The zero value is ready to use; give each
// preemptor its own (the cache is keyed by the round's sequence number),
// and it is not safe for concurrent use.
type FairYARNSelector struct {
	seq    uint64
	dead   map[[2]int64]*nodeLists
	buf    []*fair.ContainerInfo
	best   []*fair.ContainerInfo
	bufSt  []*fairAppState // buf's applications
	bestSt []*fairAppState

	last    *nodeLists // dead[lastKey]
	lastKey [2]int64
}

// SelectVictims implements [FairVictimSelector].
func (s *FairYARNSelector) SelectVictims(v *FairView, req FairRequest) (FairVictimSet, bool) {
	if v.NumNodes() == 0 { // a nil or zero view: nothing to preempt
		return FairVictimSet{}, false
	}
	if s.dead == nil {
		s.dead = map[[2]int64]*nodeLists{}
	}
	if s.seq != v.Seq() {
		for k, l := range s.dead { // keep the last round's sizes only
			if l.seq != s.seq {
				delete(s.dead, k)
			}
		}
		s.last = nil
		s.seq = v.Seq()
	}
	set, ok := s.search(v, v.NodesFor(req.Ask.ResourceName), req.Ask.ResourceName == fair.AnyResource, req.Ask.Capability)
	if ok && set.AMs > 0 && req.Ask.ResourceName != fair.AnyResource && !req.Ask.StrictLocality {
		// Rather than an AM for locality's sake, look everywhere.
		set, ok = s.search(v, v.NodesFor(fair.AnyResource), true, req.Ask.Capability)
	}
	return set, ok
}

const noLimit = int(^uint(0) >> 1)

func (s *FairYARNSelector) search(v *FairView, nodes []int, all bool, want berth.Resource) (FairVictimSet, bool) {
	if !all || want.HasExtras() {
		return s.scan(v, nodes, nil, want)
	}
	key := [2]int64{want.Memory, want.VCores}
	l := s.last
	if l == nil || s.lastKey != key { // requests come in runs of one size
		l = s.dead[key]
		if l == nil {
			l = &nodeLists{}
			s.dead[key] = l
		}
		s.last, s.lastKey = l, key
	}
	if l.seq != s.seq || l.n != len(nodes) { // lists of an earlier round: reuse their arrays
		l.seq, l.n = s.seq, len(nodes)
		l.none.reset(len(nodes))
		l.withAM.reset(len(nodes))
	}
	// The first node that can make room without an AM wins, as in YARN's
	// scan; nodes known unable to are skipped.
	for i := l.withAM.next(0); i < len(nodes); i = l.withAM.next(i + 1) {
		set, ams, ok := s.onNode(v, i, want, noLimit)
		switch {
		case !ok:
			l.none.kill(i)
			l.withAM.kill(i)
		case ams == 0:
			s.best, s.bestSt = append(s.best[:0], set...), append(s.bestSt[:0], s.bufSt[:len(set)]...)
			return FairVictimSet{Node: i, Containers: s.best, states: s.bestSt}, true
		default:
			l.withAM.kill(i)
		}
	}
	// Every node needs an AM: YARN's scan for the fewest.
	return s.scan(v, nil, &l.none, want)
}

// scan is YARN's identifyContainersToPreemptForOneContainer over nodes
// (or, with sl, over the nodes sl has not ruled out): the first set with
// no AM, else the first with the fewest.
func (s *FairYARNSelector) scan(v *FairView, nodes []int, sl *skipList, want berth.Resource) (FairVictimSet, bool) {
	best := FairVictimSet{Node: -1}
	maxAM := noLimit
	visit := func(i int) bool { // true: stop
		set, ams, ok := s.onNode(v, i, want, maxAM)
		if !ok {
			if sl != nil && maxAM == noLimit {
				sl.kill(i)
			}
			return false
		}
		s.best, s.bestSt = append(s.best[:0], set...), append(s.bestSt[:0], s.bufSt[:len(set)]...)
		best.Node, best.Containers, best.AMs, best.states = i, s.best, ams, s.bestSt
		maxAM = ams
		return ams == 0
	}
	if sl != nil {
		for i := sl.next(0); i < v.NumNodes(); i = sl.next(i + 1) {
			if visit(i) {
				break
			}
		}
	} else {
		for _, i := range nodes {
			if visit(i) {
				break
			}
		}
	}
	return best, best.Node >= 0
}

// nodeLists are, for one container size in one round, the nodes that
// cannot make room at all and those that cannot without an AM.
type nodeLists struct {
	seq          uint64 // the round they are for
	n            int
	none, withAM skipList
}

// onNode is identifyContainersToPreemptOnNode: a set with fewer than
// maxAM AM containers whose release makes want fit on node i.
func (s *FairYARNSelector) onNode(v *FairView, i int, want berth.Resource, maxAM int) ([]*fair.ContainerInfo, int, bool) {
	potential := v.Potential(i)
	if want.FitsIn(potential) {
		return nil, 0, true
	}
	s.buf, s.bufSt = s.buf[:0], s.bufSt[:0]
	ams := 0
	cs, sts := v.candidates(i)
	for k, c := range cs {
		// candidates leaves at its front a container CanPreempt allows
		// alone: the first needs no second look.
		if k > 0 && !v.canPreempt(c, sts[k], sameState(s.buf, s.bufSt, sts[k])) {
			continue
		}
		if c.AM {
			if ams++; ams >= maxAM {
				return nil, 0, false
			}
		}
		s.buf, s.bufSt = append(s.buf, c), append(s.bufSt, sts[k])
		potential = potential.Add(c.Resource)
		if want.FitsIn(potential) {
			return s.buf, ams, true
		}
	}
	return nil, 0, false
}

// sameApp sums the resources of app's containers in set (sets are a
// handful of containers: a scan beats a map).
func sameApp(set []*fair.ContainerInfo, app string) berth.Resource {
	var r berth.Resource
	for _, c := range set {
		if c.App == app {
			r = r.Add(c.Resource)
		}
	}
	return r
}

// sameState is sameApp by application state.
func sameState(set []*fair.ContainerInfo, sts []*fairAppState, a *fairAppState) berth.Resource {
	var r berth.Resource
	for k, c := range set {
		if sts[k] == a {
			r = r.Add(c.Resource)
		}
	}
	return r
}

// skipList finds the next live index past dead ones in amortized near
// constant time (path-halving union-find over "next live at or after").
type skipList struct{ parent []int32 }

func newSkipList(n int) *skipList {
	s := &skipList{}
	s.reset(n)
	return s
}

// reset makes indices 0..n live, reusing the array.
func (s *skipList) reset(n int) {
	if cap(s.parent) < n+1 {
		s.parent = make([]int32, n+1)
	}
	s.parent = s.parent[:n+1]
	for i := range s.parent {
		s.parent[i] = int32(i)
	}
}

func (s *skipList) next(i int) int {
	if i >= len(s.parent) {
		return len(s.parent) - 1
	}
	for int(s.parent[i]) != i {
		s.parent[i] = s.parent[s.parent[i]]
		i = int(s.parent[i])
	}
	return i
}

func (s *skipList) kill(i int) { s.parent[i] = int32(i + 1) }
