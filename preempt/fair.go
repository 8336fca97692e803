package preempt

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/fair"
)

// FairState is the read side of a fair scheduler: what the fair
// preemptor reads to choose victims. *fair.Scheduler satisfies it; a
// host may put its own scheduler (or a recording wrapper) behind it.
type FairState interface {
	// SnapshotOf copies parts of the scheduler's state: the preemptor
	// reads queues (policies, preemption settings), applications (fair
	// shares, starvation), nodes and container reservations.
	SnapshotOf(parts fair.SnapshotParts) *fair.Snapshot
	// NodeContainers lists the live containers on one node; the
	// preemptor asks only for the nodes it examines.
	NodeContainers(nodeID string) ([]fair.ContainerInfo, error)
	// PendingAsks lists an application's outstanding asks by priority.
	PendingAsks(appID string) ([]fair.Ask, error)
}

// FairActor is the act side of a fair scheduler: the marks, kills,
// earmarks and back-offs a round hands it. *fair.Scheduler satisfies it.
type FairActor interface {
	// MarkForPreemption tells a container's application it will be
	// preempted; UnmarkForPreemption takes that back.
	MarkForPreemption(id fair.ContainerID) error
	UnmarkForPreemption(id fair.ContainerID) error
	// PreemptContainer kills a container for preemption.
	PreemptContainer(id fair.ContainerID) (fair.Ended, error)
	// ReservePreempted earmarks room being preempted on a node for the
	// starved application, which the node's heartbeats then serve first.
	ReservePreempted(nodeID, appID string, res berth.Resource) error
	// PreemptionTriggered starts an application's starvation back-off.
	PreemptionTriggered(appID string, until berth.Time) error
}

// FairScheduler is both sides of a fair scheduler, as *fair.Scheduler
// has them.
type FairScheduler interface {
	FairState
	FairActor
}

var _ FairScheduler = (*fair.Scheduler)(nil)

// FairAction is what a round did to a container.
type FairAction uint8

const (
	// FairMarked: chosen for a starved application and marked; it will be
	// killed after the wait if still needed.
	FairMarked FairAction = iota + 1
	// FairKilled: killed (status Preempted) after the wait.
	FairKilled
	// FairReleased: the wait passed but the starved application no longer
	// needs it; unmarked and left running.
	FairReleased
	// FairForgotten: it ended by itself before the wait passed.
	FairForgotten
)

// String names the action.
func (a FairAction) String() string {
	switch a {
	case FairMarked:
		return "marked"
	case FairKilled:
		return "killed"
	case FairReleased:
		return "released"
	case FairForgotten:
		return "forgotten"
	}
	return fmt.Sprintf("FairAction(%d)", uint8(a))
}

// FairReason says why a round acted on a container.
type FairReason uint8

const (
	// FairForStarvedApp: its release lets one container of the starved
	// application fit on its node.
	FairForStarvedApp FairReason = iota + 1
	// FairWaitedStillNeeded: marked WaitTimeBeforeKill ago and the starved
	// application still has pending demand.
	FairWaitedStillNeeded
	// FairWaitedKillUnneeded: marked WaitTimeBeforeKill ago; killed
	// although no longer needed (FairConfig.KillUnneeded, YARN's timer).
	FairWaitedKillUnneeded
	// FairNoLongerNeeded: the starved application finished or no longer
	// has pending demand.
	FairNoLongerNeeded
	// FairContainerEnded: the container completed or was released.
	FairContainerEnded
)

// String describes the reason.
func (r FairReason) String() string {
	switch r {
	case FairForStarvedApp:
		return "makes room for a starved application"
	case FairWaitedStillNeeded:
		return "wait before kill passed, still needed"
	case FairWaitedKillUnneeded:
		return "wait before kill passed (killed unconditionally)"
	case FairNoLongerNeeded:
		return "the starved application no longer needs it"
	case FairContainerEnded:
		return "the container ended by itself"
	}
	return fmt.Sprintf("FairReason(%d)", uint8(r))
}

// FairDecision is one action of a round on one container.
type FairDecision struct {
	Container fair.Container // the victim as last seen
	ForApp    string         // the starved application it serves
	Action    FairAction
	Reason    FairReason
}

// FairStarvedApp is one starved application a round served.
type FairStarvedApp struct {
	App, Queue string
	// Starvation as the scheduler computed it at its last update.
	FairShareStarvation, MinShareStarvation berth.Resource
	// Requests are its asks matching the starvation (YARN's
	// getStarvedResourceRequests), counts cut to what the starvation
	// covers.
	Requests []fair.Ask
	// Marked counts the containers marked for it this round; Fit the
	// requested containers that fit without preemption; Unmet those no
	// node could make room for.
	Marked, Fit, Unmet int
}

// FairRound is everything one round decided, in order.
type FairRound struct {
	Seq  uint64     // 1 for the first round
	Time berth.Time // the host's time
	// Utilization is the larger of the cluster's memory and vcores usage
	// ratios; starved applications are served only above the threshold.
	Utilization float64
	// Skipped says why no starved application was considered ("" when
	// they were).
	Skipped string
	// Starved lists the starved applications served, in service order.
	Starved []FairStarvedApp
	// Decisions: first the kills and releases of containers marked in
	// earlier rounds, then the new marks.
	Decisions []FairDecision
	// Ended are the containers the round killed, as the scheduler returned
	// them, in kill order: the host stops them (as ProportionalReport.Ended).
	Ended []fair.Ended
}

// Count returns how many decisions took action a.
func (r *FairRound) Count(a FairAction) int {
	n := 0
	for i := range r.Decisions {
		if r.Decisions[i].Action == a {
			n++
		}
	}
	return n
}

type fairPending struct {
	c        fair.Container
	forApp   string
	markedAt berth.Time
}

type fairOwed struct {
	res   berth.Resource
	since berth.Time // allocations to the app on the node from then on pay it back
}

// FairPreemptor is YARN's fair-scheduler preemption (FSPreemptionThread,
// 3.x design) as a round the host calls at its own interval with its own
// clock's time: [FairPreemptor.Round]. It keeps the containers it marked
// and the applications in back-off between rounds. It starts no goroutine
// and is not safe for concurrent use: one host loop drives it.
type FairPreemptor struct {
	state FairState // what victims are chosen from
	actor FairActor // what marks, kills, earmarks and back-offs go to
	cfg   FairConfig
	sel   FairVictimSelector

	seq uint64
	// marks are the containers marked and not yet killed or released, in
	// a slice so that marking a container allocates nothing (a map of such
	// large values would box each one); pending indexes marks[:indexed] by
	// container id, extended only when a lookup needs it (a round that
	// marks thousands of containers looks none of them up).
	marks   []fairPending
	pending map[fair.ContainerID]int32
	indexed int
	owed    map[string]map[string]*fairOwed // node → starved app → preempted for it, not yet handed over
	backoff map[string]berth.Time           // app → next starvation check

	scratch fairScratch // buffers reused from round to round
	obs     Observer    // the host's observer (observe.go); nil: none
}

func (p *FairPreemptor) addPending(e fairPending) { p.marks = append(p.marks, e) }

// indexMarks brings pending up to date with marks.
func (p *FairPreemptor) indexMarks() {
	for ; p.indexed < len(p.marks); p.indexed++ {
		p.pending[p.marks[p.indexed].c.ID] = int32(p.indexed)
	}
}

// dropPending forgets the mark of id: the last mark takes its slot.
func (p *FairPreemptor) dropPending(id fair.ContainerID) {
	p.indexMarks()
	i, ok := p.pending[id]
	if !ok {
		return
	}
	delete(p.pending, id)
	last := len(p.marks) - 1
	if int(i) != last {
		p.marks[i] = p.marks[last]
		p.pending[p.marks[i].c.ID] = i
	}
	p.marks[last] = fairPending{}
	p.marks = p.marks[:last]
	p.indexed = len(p.marks)
}

// FairPreemptorSetup is what [NewFairPreemptor] builds a preemptor from:
// the scheduler's two sides, the preemption settings and the victim
// selector. The settings are a field of their own, as in
// [ProportionalSetup]: they are what a snapshot saves and the yarn-site
// keys parse into.
type FairPreemptorSetup struct {
	// State is the scheduler's read side (required): a *fair.Scheduler,
	// or the host's own.
	State FairState
	// Actor is the scheduler's act side (required), usually the same
	// value as State.
	Actor FairActor
	// Config is the preemption settings; the zero value means
	// [DefaultFairConfig] (which leaves preemption disabled, as YARN).
	Config FairConfig
	// Selector finds victims; nil means YARN's identification
	// ([FairYARNSelector]).
	Selector FairVictimSelector
}

// NewFairPreemptor builds the preemptor setup describes. A nil State or
// Actor is a *berth.FieldError naming the field; an invalid Config is its
// Validate error.
func NewFairPreemptor(setup FairPreemptorSetup) (*FairPreemptor, error) {
	if setup.Config == (FairConfig{}) {
		setup.Config = DefaultFairConfig()
	}
	return newFairPreemptor(setup)
}

// newFairPreemptor builds the preemptor with setup.Config as it is (a
// restored preemptor's may be the zero value).
func newFairPreemptor(setup FairPreemptorSetup) (*FairPreemptor, error) {
	// A typed nil (a nil *capacity.Scheduler) is refused too: it would
	// panic at the first round.
	if err := berth.CheckNotNil("FairPreemptorSetup.State", setup.State); err != nil {
		return nil, err
	}
	if err := berth.CheckNotNil("FairPreemptorSetup.Actor", setup.Actor); err != nil {
		return nil, err
	}
	if err := setup.Config.Validate(); err != nil {
		return nil, err
	}
	sel := setup.Selector
	if sel == nil {
		sel = &FairYARNSelector{}
	}
	return &FairPreemptor{state: setup.State, actor: setup.Actor, cfg: setup.Config, sel: sel,
		pending: map[fair.ContainerID]int32{}, owed: map[string]map[string]*fairOwed{}, backoff: map[string]berth.Time{}}, nil
}

// Config returns the configuration in force.
func (p *FairPreemptor) Config() FairConfig { return p.cfg }

// Pending returns the containers marked and not yet killed or released,
// by id.
func (p *FairPreemptor) Pending() []fair.Container {
	out := make([]fair.Container, 0, len(p.marks))
	for i := range p.marks {
		out = append(out, p.marks[i].c)
	}
	slices.SortFunc(out, func(a, b fair.Container) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

// Round runs one preemption round at the host's time now:
//
//  1. containers marked WaitTimeBeforeKill or longer ago are killed if the
//     application they were chosen for still has pending demand (else
//     unmarked; with KillUnneeded killed anyway); those that ended by
//     themselves are forgotten;
//  2. if the cluster's utilization is above the threshold, every starved
//     application (fair-share or min-share starvation from the
//     scheduler's last update, not in back-off) is served, the least
//     starved first: its starved requests are computed, and for each
//     container of them the selector finds victims on one node, which are
//     marked and earmarked on that node for the application; the
//     application then enters its back-off (FairConfig.StarvationBackoff).
//
// Step 2 decides every victim from the read side first (the selector
// holds no FairActor) and then applies the marks, earmarks and back-offs
// in order. Step 1 acts before it because its kills change the usage
// step 2 decides from, so a fair round has no plan for the host to
// inspect.
//
// An error from the scheduler other than a vanished container or
// application stops the round; what was done before stays done and
// recorded (the returned round is never nil).
func (p *FairPreemptor) Round(now berth.Time) (*FairRound, error) {
	p.seq++
	r := &FairRound{Seq: p.seq, Time: now}
	if !p.cfg.Enabled {
		r.Skipped = "preemption disabled"
		return r, nil
	}
	// Applications first: on a quiet cluster nothing else is read.
	snap := p.state.SnapshotOf(fair.SnapshotApps | fair.SnapshotQueues)
	changed, err := p.killDue(now, snap, r)
	if err != nil {
		return r, err
	}
	if changed {
		snap = p.state.SnapshotOf(fair.SnapshotApps | fair.SnapshotQueues)
	}
	if len(p.marks) > 0 || len(p.owed) > 0 {
		live := p.nodeLister()
		p.forgetEnded(live, r)
		p.settleOwed(snap, live)
	}
	r.Utilization = utilization(snap)
	if !(r.Utilization > p.cfg.UtilizationThreshold) {
		r.Skipped = "cluster utilization at or below the threshold"
		return r, nil
	}
	starved := p.starvedApps(now, snap)
	if len(starved) == 0 {
		r.Skipped = "no starved application"
		return r, nil
	}
	rest := p.state.SnapshotOf(fair.SnapshotNodes | fair.SnapshotReservations)
	snap.Nodes, snap.Reservations = rest.Nodes, rest.Reservations
	v := p.newView(now, snap)
	until := now + min(p.cfg.StarvationBackoff(), math.MaxInt64-max(now, 0))
	// The starved requests first, so that the books are sized once.
	reqs := make([][]fair.Ask, len(starved))
	want := 0
	for i, a := range starved {
		asks, err := p.state.PendingAsks(a.ID)
		if err != nil && !errors.Is(err, berth.ErrNotFound) {
			return r, fmt.Errorf("preempt: asks of %s: %w", a.ID, err)
		}
		reqs[i] = starvedRequests(v, asks, a.FairShareStarvation.Add(a.MinShareStarvation))
		for _, rr := range reqs[i] {
			want += rr.Count
		}
	}
	r.Decisions = slices.Grow(r.Decisions, want)
	p.marks = slices.Grow(p.marks, want)
	m := &p.scratch.marks
	m.victims = slices.Grow(m.victims[:0], want) // a set holds one victim or more
	m.sets = slices.Grow(m.sets[:0], want)
	decideErr := decideMarks(p.sel, v, starved, reqs, m)
	return r, p.applyMarks(starved, m, now, until, decideErr, r)
}

// nodeLister finds live containers by node, asking the scheduler once per
// node.
type nodeLister struct {
	state FairState
	nodes map[string][]fair.ContainerInfo
}

func (p *FairPreemptor) nodeLister() *nodeLister {
	return &nodeLister{state: p.state, nodes: map[string][]fair.ContainerInfo{}}
}

func (l *nodeLister) list(node string) []fair.ContainerInfo {
	cs, ok := l.nodes[node]
	if !ok {
		cs, _ = l.state.NodeContainers(node) // a node that left has none
		l.nodes[node] = cs
	}
	return cs
}

// find returns the live container id on node, or nil.
func (l *nodeLister) find(node string, id fair.ContainerID) *fair.ContainerInfo {
	cs := l.list(node)
	i, ok := slices.BinarySearchFunc(cs, id, func(c fair.ContainerInfo, id fair.ContainerID) int { return cmp.Compare(c.ID, id) })
	if !ok {
		return nil
	}
	return &cs[i]
}

func utilization(snap *fair.Snapshot) float64 {
	if len(snap.Queues) == 0 {
		return 0
	}
	used := snap.Queues[0].Usage // the root comes first
	ratio := func(a, b int64) float64 {
		if b == 0 {
			return 0
		}
		return float64(a) / float64(b)
	}
	return max(ratio(used.Memory, snap.Cluster.Memory), ratio(used.VCores, snap.Cluster.VCores))
}

// stillNeeded: the application the container was chosen for is there
// and still waits for resources.
func stillNeeded(snap *fair.Snapshot, apps map[string]*fair.AppInfo, app string) bool {
	a := apps[app]
	return a != nil && !a.Demand.Sub(a.Usage).SubNonNegative(berth.None()).IsZero()
}

func appIndex(snap *fair.Snapshot) map[string]*fair.AppInfo {
	m := make(map[string]*fair.AppInfo, len(snap.Apps))
	for i := range snap.Apps {
		m[snap.Apps[i].ID] = &snap.Apps[i]
	}
	return m
}

func (p *FairPreemptor) killDue(now berth.Time, snap *fair.Snapshot, r *FairRound) (bool, error) {
	var due []fairPending
	for _, e := range p.marks {
		if now-e.markedAt >= p.cfg.WaitTimeBeforeKill {
			due = append(due, e)
		}
	}
	if len(due) == 0 {
		return false, nil
	}
	slices.SortFunc(due, func(a, b fairPending) int {
		return cmp.Or(cmp.Compare(a.markedAt, b.markedAt), cmp.Compare(a.c.ID, b.c.ID))
	})
	apps := appIndex(snap)
	live := p.nodeLister()
	changed := false
	for _, e := range due {
		c := live.find(e.c.Node, e.c.ID)
		if c == nil {
			p.dropPending(e.c.ID)
			p.record(r, FairDecision{Container: e.c, ForApp: e.forApp, Action: FairForgotten, Reason: FairContainerEnded})
			continue
		}
		need := stillNeeded(snap, apps, e.forApp)
		if need || p.cfg.KillUnneeded {
			ended, err := p.actor.PreemptContainer(e.c.ID)
			if err != nil && !errors.Is(err, berth.ErrNotFound) {
				return changed, fmt.Errorf("preempt: kill container %d: %w", e.c.ID, err)
			}
			if err == nil {
				r.Ended = append(r.Ended, ended)
			}
			changed = true
			p.dropPending(e.c.ID)
			reason := FairWaitedStillNeeded
			if !need {
				reason = FairWaitedKillUnneeded
			}
			p.record(r, FairDecision{Container: c.Container, ForApp: e.forApp, Action: FairKilled, Reason: reason})
			if apps[e.forApp] != nil {
				p.addOwed(c.Node, e.forApp, c.Resource, now)
			}
			continue
		}
		if err := p.actor.UnmarkForPreemption(e.c.ID); err != nil && !errors.Is(err, berth.ErrNotFound) {
			return changed, fmt.Errorf("preempt: release container %d: %w", e.c.ID, err)
		}
		changed = true
		p.dropPending(e.c.ID)
		p.record(r, FairDecision{Container: c.Container, ForApp: e.forApp, Action: FairReleased, Reason: FairNoLongerNeeded})
	}
	return changed, nil
}

func (p *FairPreemptor) addOwed(node, app string, res berth.Resource, now berth.Time) {
	m := p.owed[node]
	if m == nil {
		m = map[string]*fairOwed{}
		p.owed[node] = m
	}
	o := m[app]
	if o == nil {
		o = &fairOwed{since: now}
		m[app] = o
	}
	o.res = o.res.Add(res)
}

// forgetEnded drops marked containers that ended before their kill.
func (p *FairPreemptor) forgetEnded(live *nodeLister, r *FairRound) {
	var gone []fairPending
	for _, e := range p.marks {
		if live.find(e.c.Node, e.c.ID) == nil {
			gone = append(gone, e)
		}
	}
	slices.SortFunc(gone, func(a, b fairPending) int { return cmp.Compare(a.c.ID, b.c.ID) })
	for _, e := range gone {
		p.dropPending(e.c.ID)
		p.record(r, FairDecision{Container: e.c, ForApp: e.forApp, Action: FairForgotten, Reason: FairContainerEnded})
	}
}

// settleOwed is YARN's bookkeeping of resources preempted on a node for
// an application: allocations to the application on that node pay the
// debt back, and it is dropped when the application is gone or no longer
// starved (below its fair share, or min-share starved).
func (p *FairPreemptor) settleOwed(snap *fair.Snapshot, live *nodeLister) {
	if len(p.owed) == 0 {
		return
	}
	apps := appIndex(snap)
	queues := make(map[string]fair.Policy, len(snap.Queues))
	for i := range snap.Queues {
		queues[snap.Queues[i].Path] = snap.Queues[i].Policy
	}
	for _, node := range sortedKeys(p.owed) {
		for _, c := range live.list(node) {
			if o := p.owed[node][c.App]; o != nil && c.Time >= o.since {
				o.res = o.res.SubNonNegative(c.Resource)
			}
		}
	}
	for _, node := range sortedKeys(p.owed) {
		m := p.owed[node]
		for _, app := range sortedKeys(m) {
			o := m[app]
			a := apps[app]
			starved := a != nil && (queues[a.Queue].Calculator().Compare(snap.Cluster, a.Usage, a.FairShare) < 0 || !a.MinShareStarvation.IsZero())
			if !starved || o.res.IsZero() {
				delete(m, app)
				continue
			}
			o.since = snap.Time + 1 // containers seen here have paid already
		}
		if len(m) == 0 {
			delete(p.owed, node)
		}
	}
}

// starvedApps are the applications with starvation and out of back-off,
// the least starved first (YARN's starvation comparator: an application
// whose starvation fits in another's goes first), ties in submission
// order.
func (p *FairPreemptor) starvedApps(now berth.Time, snap *fair.Snapshot) []*fair.AppInfo {
	var out []*fair.AppInfo
	live := make(map[string]bool, len(p.backoff))
	for i := range snap.Apps {
		a := &snap.Apps[i]
		if _, ok := p.backoff[a.ID]; ok {
			live[a.ID] = true
		}
		if a.FairShareStarvation.IsZero() && a.MinShareStarvation.IsZero() {
			continue
		}
		if until, ok := p.backoff[a.ID]; ok && now < until {
			continue
		}
		out = append(out, a)
	}
	for id := range p.backoff {
		if !live[id] {
			delete(p.backoff, id)
		}
	}
	slices.SortStableFunc(out, func(a, b *fair.AppInfo) int {
		return a.FairShareStarvation.Add(a.MinShareStarvation).Compare(b.FairShareStarvation.Add(b.MinShareStarvation))
	})
	return out
}
