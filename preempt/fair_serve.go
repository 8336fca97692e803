package preempt

// Serving starved applications: the round's reusable view, the starved
// requests each application's starvation covers, and the victims marked
// for them, handed to the scheduler in batches.

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/fair"
)

// fairScratch is what a round builds and the next reuses: the view, its
// per-node books and the containers it reads, so that a steady host loop
// allocates per round only what the round reports.
type fairScratch struct {
	view   FairView
	states []fairAppState
	ci     chunks[fair.ContainerInfo]
	ptrs   chunks[*fair.ContainerInfo]
	sts    chunks[*fairAppState]
	batch  markBatch
	marks  fairMarks
}

// markBatch is victim sets of one application on one node not yet handed
// to the scheduler.
type markBatch struct {
	active    bool
	node, app string
	ids       []fair.ContainerID
	total     berth.Resource
}

// chunks hands out slices of fixed blocks that never move (pointers into
// them stay valid for the round) and are reused the next round.
type chunks[T any] struct {
	blocks   [][]T
	cur, off int
}

const chunkLen = 4096

func (c *chunks[T]) reset() { c.cur, c.off = 0, 0 }

// room returns an empty slice with at least n free places (more when the
// block has them), for the caller to fill and then commit.
func (c *chunks[T]) room(n int) []T {
	if c.cur < len(c.blocks) && len(c.blocks[c.cur])-c.off < n {
		c.cur, c.off = c.cur+1, 0
	}
	if c.cur == len(c.blocks) {
		c.blocks = append(c.blocks, make([]T, max(n, chunkLen)))
	} else if len(c.blocks[c.cur]) < n { // a reused block too small for n
		c.blocks[c.cur] = make([]T, n)
	}
	return c.blocks[c.cur][c.off:c.off:len(c.blocks[c.cur])]
}

// commit takes the first n places of the last room.
func (c *chunks[T]) commit(n int) []T {
	b := c.blocks[c.cur][c.off : c.off+n : c.off+n]
	c.off += n
	return b
}

// setMarker is the optional one-call form of marking a victim set and
// earmarking its room (*fair.Scheduler has it): MarkForPreemption of each
// container, then ReservePreempted.
type setMarker interface {
	MarkForPreemptionOn(nodeID, appID string, ids []fair.ContainerID, res berth.Resource) error
}

// nodeAppender is the optional allocation-free form of NodeContainers
// (*fair.Scheduler has it).
type nodeAppender interface {
	AppendNodeContainers(dst []fair.ContainerInfo, nodeID string) ([]fair.ContainerInfo, error)
}

func (p *FairPreemptor) newView(now berth.Time, snap *fair.Snapshot) *FairView {
	n := len(snap.Nodes)
	sc := &p.scratch
	p.indexMarks() // the view looks up the earlier rounds' marks
	v := &sc.view
	*v = FairView{seq: p.seq, snap: snap, now: now, nodeIdx: v.nodeIdx, idxBuilt: false, allNodes: v.allNodes[:0],
		earmark: resize(v.earmark, n), reserved: resize(v.reserved, n), byNode: resize(v.byNode, n), loaded: resize(v.loaded, n),
		byNodeSt: resize(v.byNodeSt, n),
		apps:     v.apps, pending: p.pending, earlierMarks: len(p.marks) > 0, sc: sc}
	if v.apps == nil {
		v.apps = make(map[string]*fairAppState, len(snap.Apps))
	} else {
		clear(v.apps)
	}
	sc.ci.reset()
	sc.ptrs.reset()
	sc.sts.reset()
	for i := range snap.Nodes {
		v.allNodes = append(v.allNodes, i)
	}
	for _, reservation := range snap.Reservations {
		if i, ok := v.nodeIndex(reservation.Node); ok {
			v.reserved[i] = v.reserved[i].Add(reservation.Resource)
		}
	}
	policies := make(map[string]fair.Policy, len(snap.Queues))
	for i := range snap.Queues {
		policies[snap.Queues[i].Path] = snap.Queues[i].Policy
	}
	sc.states = resize(sc.states, len(snap.Apps))
	for i := range snap.Apps {
		a := &snap.Apps[i]
		sc.states[i] = fairAppState{info: a, calc: policies[a.Queue].Calculator(), left: a.Usage}
		v.apps[a.ID] = &sc.states[i]
	}
	if ap, ok := p.state.(nodeAppender); ok {
		v.appendLoad = ap.AppendNodeContainers
	} else {
		v.load = p.state.NodeContainers
	}
	for i := range p.marks {
		e := &p.marks[i]
		if a := v.apps[e.c.App]; a != nil {
			a.toBePreempted = a.toBePreempted.Add(e.c.Resource)
			a.left = a.info.Usage.Sub(a.toBePreempted)
		}
		if n, ok := v.nodeIndex(e.c.Node); ok {
			v.earmark[n] = v.earmark[n].Add(e.c.Resource)
		}
	}
	for node, m := range p.owed {
		if i, ok := v.nodeIndex(node); ok {
			for _, o := range m {
				v.earmark[i] = v.earmark[i].Add(o.res)
			}
		}
	}
	return v
}

// resize returns s with length n, zeroed, reusing its array when it can.
func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// fairMarks is the new marks a round decided, before any reaches the
// scheduler; its slices are reused round to round.
type fairMarks struct {
	victims []fair.Container // every set's containers, back to back
	sets    []plannedSet
	served  []FairStarvedApp // one per starved application decided in full
}

// plannedSet is one victim set: victims[from:to] on node, for the starved
// application of index app.
type plannedSet struct {
	app      int
	node     string
	from, to int
	total    berth.Resource
}

// decideMarks asks sel for victims for every starved request, taking them
// in the view only: it holds no FairActor, so nothing reaches the
// scheduler. A set a host's selector must not return stops it with an
// error; what was decided before stays in m, to be applied.
func decideMarks(sel FairVictimSelector, v *FairView, starved []*fair.AppInfo, reqs [][]fair.Ask, m *fairMarks) error {
	m.victims, m.sets, m.served = m.victims[:0], m.sets[:0], m.served[:0]
	_, trusted := sel.(*FairYARNSelector) // its sets are checked as they are built
	for i, a := range starved {
		sa := FairStarvedApp{App: a.ID, Queue: a.Queue, FairShareStarvation: a.FairShareStarvation,
			MinShareStarvation: a.MinShareStarvation, Requests: reqs[i]}
		for _, rr := range sa.Requests {
			one := rr
			one.Count = 1
			for range rr.Count {
				set, ok := sel.SelectVictims(v, FairRequest{App: a.ID, Ask: one})
				switch {
				case !ok || set.Node < 0 || set.Node >= v.NumNodes():
					sa.Unmet++
					continue
				case len(set.Containers) == 0:
					sa.Fit++
					continue
				}
				if err := checkSet(v, set, trusted); err != nil {
					return err
				}
				m.plan(v, i, set)
				sa.Marked += len(set.Containers)
			}
		}
		m.served = append(m.served, sa)
	}
	return nil
}

// checkSet refuses what a custom selector must not return: containers
// already taken, off the set's node, or whose application would drop
// below its fair share.
func checkSet(v *FairView, set FairVictimSet, trusted bool) error {
	if trusted {
		return nil
	}
	node := v.Node(set.Node).ID
	for k, c := range set.Containers {
		if c == nil || c.Node != node || slices.Contains(set.Containers[:k], c) || !v.CanPreempt(c, sameApp(set.Containers[:k], c.App)) {
			return berth.InvalidField("victims", c, "selector returned a container that cannot be preempted for this request")
		}
	}
	return nil
}

// plan records a set for the starved application of index app and takes
// its containers in the view, so that later requests see them taken.
func (m *fairMarks) plan(v *FairView, app int, set FairVictimSet) {
	ps := plannedSet{app: app, node: v.Node(set.Node).ID, from: len(m.victims)}
	for _, c := range set.Containers {
		m.victims = append(m.victims, c.Container)
		ps.total = ps.total.Add(c.Resource)
	}
	ps.to = len(m.victims)
	m.sets = append(m.sets, ps)
	v.mark(set)
}

// applyMarks hands the decided sets to the scheduler in order and starts
// the back-off of each application decided in full. It stops at the first
// failure: what was marked stays marked and recorded. decideErr is why
// the decision stopped early, returned once the sets before it are marked.
func (p *FairPreemptor) applyMarks(starved []*fair.AppInfo, m *fairMarks, markedAt, until berth.Time, decideErr error, r *FairRound) error {
	next := 0
	for i, a := range starved[:min(len(starved), len(m.served)+1)] {
		for ; next < len(m.sets) && m.sets[next].app == i; next++ {
			if err := p.markSet(a.ID, &m.sets[next], m.victims, markedAt, r); err != nil {
				if ferr := p.flushMarks(); ferr != nil { // what was marked stays marked
					return errors.Join(err, ferr)
				}
				return err
			}
		}
		if i == len(m.served) { // the application whose decision failed
			if ferr := p.flushMarks(); ferr != nil {
				return errors.Join(decideErr, ferr)
			}
			return decideErr
		}
		if err := p.flushMarks(); err != nil {
			return err
		}
		r.Starved = append(r.Starved, m.served[i])
		if err := p.actor.PreemptionTriggered(a.ID, until); err != nil && !errors.Is(err, berth.ErrNotFound) {
			return fmt.Errorf("preempt: back-off of %s: %w", a.ID, err)
		}
		p.backoff[a.ID] = until
	}
	return nil
}

// markSet marks one set and earmarks its room on its node for app.
func (p *FairPreemptor) markSet(app string, set *plannedSet, victims []fair.Container, markedAt berth.Time, r *FairRound) error {
	cs := victims[set.from:set.to]
	if _, ok := p.actor.(setMarker); ok {
		// Consecutive sets of one application on one node are marked and
		// earmarked in one call: the scheduler ends in the same state.
		b := &p.scratch.batch
		if b.active && (b.node != set.node || b.app != app) {
			if err := p.flushMarks(); err != nil {
				return err
			}
		}
		b.active, b.node, b.app, b.total = true, set.node, app, b.total.Add(set.total)
		for i := range cs {
			b.ids = append(b.ids, cs[i].ID)
		}
	} else {
		for i := range cs {
			if err := p.actor.MarkForPreemption(cs[i].ID); err != nil && !errors.Is(err, berth.ErrNotFound) {
				return fmt.Errorf("preempt: mark container %d: %w", cs[i].ID, err)
			}
		}
		if err := p.actor.ReservePreempted(set.node, app, set.total); err != nil && !errors.Is(err, berth.ErrNotFound) {
			return fmt.Errorf("preempt: earmark %v on %s for %s: %w", set.total, set.node, app, err)
		}
	}
	for i := range cs {
		p.addPending(fairPending{c: cs[i], forApp: app, markedAt: markedAt})
		p.record(r, FairDecision{Container: cs[i], ForApp: app, Action: FairMarked, Reason: FairForStarvedApp})
	}
	return nil
}

// flushMarks hands the batched victim sets to the scheduler.
func (p *FairPreemptor) flushMarks() error {
	b := &p.scratch.batch
	if !b.active {
		return nil
	}
	node, app, total := b.node, b.app, b.total
	err := p.actor.(setMarker).MarkForPreemptionOn(node, app, b.ids, total)
	b.active, b.node, b.app, b.ids, b.total = false, "", "", b.ids[:0], berth.Resource{}
	if err != nil && !errors.Is(err, berth.ErrNotFound) {
		return fmt.Errorf("preempt: earmark %v on %s for %s: %w", total, node, app, err)
	}
	return nil
}

// starvedRequests is YARN's getStarvedResourceRequests: the asks, one
// locality level per priority (the most specific first: hosts, racks, then
// ANY, as YARN's visited-request tracker allows), each cut to the number
// of containers the remaining starvation covers (by memory, the
// scheduler's calculator), until the starvation is used up. Asks for
// nothing (zero capability) are skipped.
func starvedRequests(v *FairView, asks []fair.Ask, starvation berth.Resource) []fair.Ask {
	pending := starvation
	var out []fair.Ask
	for start := 0; start < len(asks); {
		end := start
		for end < len(asks) && asks[end].Priority == asks[start].Priority {
			end++
		}
		out = appendStarvedKey(v, out, asks[start:end], &pending)
		start = end
	}
	return out
}

func appendStarvedKey(v *FairView, out []fair.Ask, key []fair.Ask, pending *berth.Resource) []fair.Ask {
	// Visit hosts, then racks, then ANY (PendingAsks lists ANY, racks,
	// hosts).
	order := make([]fair.Ask, 0, len(key))
	for _, kind := range []int{2, 1, 0} {
		for _, a := range key {
			if askKind(v, a.ResourceName) == kind {
				order = append(order, a)
			}
		}
	}
	var racksWithNodes, racks map[string]bool
	anyVisited := false
	visit := func(a fair.Ask) bool {
		switch askKind(v, a.ResourceName) {
		case 0:
			if len(racks) == 0 && len(racksWithNodes) == 0 {
				anyVisited = true
			}
			return anyVisited
		case 2:
			i, _ := v.nodeIndex(a.ResourceName)
			rack := v.Node(i).Rack
			if anyVisited || racks[rack] {
				return false
			}
			if racksWithNodes == nil {
				racksWithNodes = map[string]bool{}
			}
			racksWithNodes[rack] = true
			return true
		case 1:
			if anyVisited || racksWithNodes[a.ResourceName] {
				return false
			}
			if racks == nil {
				racks = map[string]bool{}
			}
			racks[a.ResourceName] = true
			return true
		}
		return false // a name no node carries
	}
	mem := berth.MemoryCalculator{}
	for _, a := range order {
		if pending.IsZero() {
			break
		}
		if !visit(a) || a.Capability.IsZero() || a.Count <= 0 {
			continue
		}
		ratio := float64(mem.Ratio(*pending, a.Capability))
		n := a.Count
		if f := math.Floor(ratio); !(f >= float64(n)) { // NaN counts as 0
			if !(f >= 1) {
				continue
			}
			n = int(f)
		}
		a.Count = n
		out = append(out, a)
		*pending = pending.SubNonNegative(a.Capability.MulInt(int64(n)))
	}
	return out
}

// askKind: 0 ANY, 1 rack, 2 host, -1 unknown.
func askKind(v *FairView, name string) int {
	if name == fair.AnyResource {
		return 0
	}
	if _, ok := v.nodeIndex(name); ok {
		return 2
	}
	if len(v.NodesFor(name)) > 0 {
		return 1
	}
	return -1
}
