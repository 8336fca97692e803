package queue

import (
	"slices"
	"strings"

	"github.com/berthsched/berth"
)

// MaxKeptActivities bounds how many attempts one application keeps
// (RecordApp of either scheduler).
const MaxKeptActivities = 1 << 16

// ActivityLog is the record a scheduler keeps of its walk on demand, as
// YARN's ActivitiesManager keeps scheduler activities (the next heartbeat
// of chosen nodes) and application activities (the last attempts of
// chosen applications), without its threads or wall clock. Both
// schedulers hold one and serialize every call with their lock; hosts use
// the schedulers' methods (RecordHeartbeat, RecordApp, Explain, …).
//
// The walk asks Begin once per heartbeat; when nothing is recorded (the
// zero value, and whenever no node or application is selected) Begin
// returns false and the walk records nothing at all: the whole cost is a
// boolean test per heartbeat. Otherwise the walk reports each queue it
// does not enter (Skip), each request it passes over (PassOver) and each
// application's result (Record), and End files them: as the node's last
// recorded heartbeat, as attempts of the applications recorded, and as
// events for an [ActivityObserver] (which also gets the queues skipped
// when applications are recorded: why those below them waited).
type ActivityLog struct {
	on      bool                  // some node or application is selected
	anyNode bool                  // record the next heartbeat of any node
	nodes   map[string]bool       // record their next heartbeat
	beats   map[string][]Activity // each node's last recorded heartbeat
	last    string                // the node recorded last
	keepAll int                   // every application keeps its last keepAll attempts
	apps    map[string]*appLog
	named   int // applications in apps selected by name
	obs     ActivityObserver

	// the heartbeat being recorded
	beat  uint64
	node  string // the node whose record it is ("" a round's candidates)
	at    string // the node its activities name by default
	part  string // the partition walked
	now   berth.Time
	whole bool // the node's whole walk is recorded
	cur   []Activity
	reqs  []RequestActivity
	req0  int // the first request of the application being tried
	spare []Activity
}

// appLog is one application's recorded attempts, a ring of its last keep.
type appLog struct {
	keep  int  // attempts kept
	named bool // selected by name (else by keepAll)
	ring  []Activity
	next  int    // where the next attempt goes once the ring is full
	seen  uint64 // the last heartbeat that recorded an attempt
}

func (l *ActivityLog) refresh() {
	l.on = l.anyNode || len(l.nodes) > 0 || l.keepAll > 0 || l.named > 0
}

// SetObserver makes o receive the recorded activities if it implements
// [ActivityObserver]; any other observer (or nil) receives none.
func (l *ActivityLog) SetObserver(o Observer) {
	l.obs, _ = o.(ActivityObserver)
}

// RecordNode records the next heartbeat of node; "" records the next
// heartbeat of any node.
func (l *ActivityLog) RecordNode(node string) {
	if node == "" {
		l.anyNode = true
	} else {
		if l.nodes == nil {
			l.nodes = map[string]bool{}
		}
		l.nodes[node] = true
	}
	l.refresh()
}

// NodeRecord returns the last recorded heartbeat of node ("": the last
// heartbeat recorded of any node), nil if none was.
func (l *ActivityLog) NodeRecord(node string) []Activity {
	if node == "" {
		node = l.last
	}
	return cloneActivities(l.beats[node])
}

// ForgetNode drops what the log holds for node (it left the cluster).
func (l *ActivityLog) ForgetNode(node string) {
	delete(l.beats, node)
	delete(l.nodes, node)
	if l.last == node {
		l.last = ""
	}
	l.refresh()
}

// RecordApp keeps the last keep attempts of app, or of every application
// when app is ""; keep 0 stops (the attempts kept so far go too). An
// application selected by name keeps its own count whatever "" says.
func (l *ActivityLog) RecordApp(app string, keep int) {
	keep = min(max(keep, 0), MaxKeptActivities)
	if app == "" {
		l.keepAll = keep
		for id, r := range l.apps {
			if !r.named {
				if keep == 0 {
					delete(l.apps, id)
				} else {
					r.resize(keep)
				}
			}
		}
		l.refresh()
		return
	}
	r := l.apps[app]
	switch {
	case keep == 0 && r != nil && r.named:
		l.named--
		delete(l.apps, app)
	case keep > 0 && r == nil:
		if l.apps == nil {
			l.apps = map[string]*appLog{}
		}
		l.apps[app] = &appLog{keep: keep, named: true}
		l.named++
	case keep > 0:
		if !r.named {
			l.named++
		}
		r.named = true
		r.resize(keep)
	}
	l.refresh()
}

// SelectNode is RecordNode for a scheduler's RecordHeartbeat: known says
// whether the scheduler holds node ("" needs none); an unknown node is an
// error of kind berth.ErrNotFound.
func (l *ActivityLog) SelectNode(node string, known bool) error {
	if !known && node != "" {
		return &berth.FieldError{Field: "node.id", Value: node, Reason: "not found", Kind: berth.ErrNotFound}
	}
	l.RecordNode(node)
	return nil
}

// SelectApp is RecordApp for a scheduler's RecordApp: known says whether
// the scheduler holds app ("" needs none). keep outside [0,
// MaxKeptActivities] is an error of kind berth.ErrInvalidArgument, an
// unknown application one of kind berth.ErrNotFound; either changes
// nothing.
func (l *ActivityLog) SelectApp(app string, keep int, known bool) error {
	if keep < 0 || keep > MaxKeptActivities {
		return berth.InvalidField("keep", keep, "must be between 0 and queue.MaxKeptActivities")
	}
	if !known && app != "" {
		return &berth.FieldError{Field: "app.id", Value: app, Reason: "not found", Kind: berth.ErrNotFound}
	}
	l.RecordApp(app, keep)
	return nil
}

// Attempts returns app's last n recorded attempts (n <= 0: all kept),
// oldest first.
func (l *ActivityLog) Attempts(app string, n int) []Activity {
	r := l.apps[app]
	if r == nil {
		return nil
	}
	all := r.inOrder()
	if n > 0 && n < len(all) {
		all = all[len(all)-n:]
	}
	return cloneActivities(all)
}

// ForgetApp drops app's attempts and selection (it left the scheduler).
func (l *ActivityLog) ForgetApp(app string) {
	if r := l.apps[app]; r != nil {
		if r.named {
			l.named--
		}
		delete(l.apps, app)
		l.refresh()
	}
}

// Begin starts a heartbeat of node, on the default partition, at now and
// reports whether its walk must record; when it returns false the walk
// records nothing and does not call End.
func (l *ActivityLog) Begin(node string, now berth.Time) bool {
	if !l.on {
		return false
	}
	return l.begin(node, node, "", now)
}

// BeginOn is Begin for a walk on partition part ("" the default).
func (l *ActivityLog) BeginOn(node, part string, now berth.Time) bool {
	if !l.on {
		return false
	}
	return l.begin(node, node, part, now)
}

// BeginCandidates is Begin for a walk over a set of candidate nodes of
// partition part (multi-node placement), started by node's heartbeat
// ("" for a scheduling round, recorded when any node's next heartbeat
// is): its activities name no node unless the walk names the candidate
// it allocated or reserved on (Record).
func (l *ActivityLog) BeginCandidates(node, part string, now berth.Time) bool {
	if !l.on {
		return false
	}
	return l.begin(node, "", part, now)
}

func (l *ActivityLog) begin(node, at, part string, now berth.Time) bool {
	l.whole = l.anyNode || l.nodes[node]
	if !l.whole && l.keepAll == 0 && l.named == 0 {
		return false
	}
	l.beat++
	l.node, l.at, l.part, l.now = node, at, part, now
	l.cur, l.reqs, l.req0 = l.cur[:0], l.reqs[:0], 0
	return true
}

// Skip records that the walk did not enter queue (and so none of the
// applications below it) for reason r.
func (l *ActivityLog) Skip(queue string, r Reason) {
	l.cur = append(l.cur, Activity{Time: l.now, Node: l.at, Partition: l.part, Queue: queue, Result: Result{Skipped, r}})
}

// PassOver records that the application being tried passed over its
// request at prio (of size res) for reason r.
func (l *ActivityLog) PassOver(prio int32, res berth.Resource, r Reason) {
	l.reqs = append(l.reqs, RequestActivity{Priority: prio, Resource: res, Reason: r})
}

// Record records an application's result on the node; the requests
// passed over since the last Record become its Requests, Time and
// Partition are the heartbeat's, and so is Node unless a walk over
// candidates set it.
func (l *ActivityLog) Record(a Activity) {
	a.Time, a.Partition = l.now, l.part
	if a.Node == "" {
		a.Node = l.at
	}
	if len(l.reqs) > l.req0 {
		a.Requests = l.reqs[l.req0:len(l.reqs):len(l.reqs)]
		l.req0 = len(l.reqs)
	}
	l.cur = append(l.cur, a)
}

// End files the heartbeat. resolve tells, for an application selected by
// name that has no activity in it, its leaf queue and whether it waited:
// ReasonNone when it did not (not runnable, or no demand), ReasonOrder
// when the walk could have offered it the node, another reason when the
// node is of no use to it (ReasonPartition: its demand is for another
// partition). Such an application gets an activity saying why it was not
// offered the node: that other reason, else a queue skipped above it,
// else ReasonOrder.
func (l *ActivityLog) End(resolve func(app string) (leaf string, why Reason)) {
	stored := l.spare[:0]
	for i := range l.cur {
		a := &l.cur[i]
		a.Requests = slices.Clone(a.Requests) // the stored copy, never handed out
		kept := l.file(a)
		// A queue skipped tells why every application below it waited:
		// it goes to the observer when any application is recorded.
		if l.whole || kept || a.App == "" && (l.keepAll > 0 || l.named > 0) {
			stored = append(stored, *a)
		}
	}
	if l.named > 0 && resolve != nil {
		stored = l.unreached(resolve, stored)
	}
	if l.whole {
		if l.beats == nil {
			l.beats = map[string][]Activity{}
		}
		l.beats[l.node] = append([]Activity{}, l.cur...) // recorded, even if empty
		l.last = l.node
		l.anyNode = false
		delete(l.nodes, l.node)
		l.refresh()
	}
	if l.obs != nil {
		for _, a := range stored {
			a.Requests = slices.Clone(a.Requests)
			l.obs.ObserveActivity(a)
		}
	}
	clear(stored)
	l.spare = stored[:0]
	clear(l.cur)
	l.cur = l.cur[:0]
}

// file keeps a among its application's attempts when the application is
// recorded, and reports whether it is.
func (l *ActivityLog) file(a *Activity) bool {
	if a.App == "" {
		return false
	}
	r := l.apps[a.App]
	if r == nil {
		if l.keepAll == 0 {
			return false
		}
		if l.apps == nil {
			l.apps = map[string]*appLog{}
		}
		r = &appLog{keep: l.keepAll}
		l.apps[a.App] = r
	}
	r.add(*a)
	r.seen = l.beat
	return true
}

// unreached records, for each application selected by name that the
// heartbeat did not offer the node, why not.
func (l *ActivityLog) unreached(resolve func(string) (string, Reason), stored []Activity) []Activity {
	for _, id := range l.namedIDs() {
		r := l.apps[id]
		if r.seen == l.beat {
			continue
		}
		leaf, why := resolve(id)
		if why == ReasonNone {
			continue
		}
		a := Activity{Time: l.now, Node: l.at, Partition: l.part, Queue: leaf, App: id, Result: Result{Skipped, why}}
		for _, q := range l.cur {
			if why != ReasonOrder {
				break
			}
			if q.App == "" && (q.Queue == leaf || strings.HasPrefix(leaf, q.Queue+".")) {
				a.Reason, a.Limited = q.Reason, q.Queue
				break
			}
		}
		r.add(a)
		r.seen = l.beat
		stored = append(stored, a)
	}
	return stored
}

// namedIDs lists the applications selected by name, sorted (events go out
// in a deterministic order).
func (l *ActivityLog) namedIDs() []string {
	ids := make([]string, 0, l.named)
	for id, r := range l.apps {
		if r.named {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

func (r *appLog) add(a Activity) {
	if len(r.ring) < r.keep {
		r.ring = append(r.ring, a)
		return
	}
	r.ring[r.next] = a
	r.next = (r.next + 1) % r.keep
}

func (r *appLog) inOrder() []Activity {
	return append(slices.Clone(r.ring[r.next:]), r.ring[:r.next]...)
}

// resize keeps the last keep attempts.
func (r *appLog) resize(keep int) {
	all := r.inOrder()
	if len(all) > keep {
		all = all[len(all)-keep:]
	}
	r.ring, r.next, r.keep = all, 0, keep
}

func cloneActivities(as []Activity) []Activity {
	if as == nil {
		return nil
	}
	out := slices.Clone(as)
	for i := range out {
		out[i].Requests = slices.Clone(out[i].Requests)
	}
	return out
}
