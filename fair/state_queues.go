package fair

import (
	"fmt"
	"slices"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

// The queue records of the body (see "Durable state" in state.go): the
// queues, the deferred type changes, the applications filed in their
// leaves and the users' waiting lists, each writer beside its reader. The
// later records index the queues and applications.

// queuesPreOrder returns the queues in pre-order, children in creation
// order: the order of the queue records.
func (s *Scheduler) queuesPreOrder() []*fsQueue {
	var qs []*fsQueue
	var walk func(q *fsQueue)
	walk = func(q *fsQueue) {
		qs = append(qs, q)
		for _, c := range q.children {
			walk(c)
		}
	}
	walk(s.root)
	return qs
}

// writeQueues writes the queues qs (in pre-order), and their indexes to
// queueIx.
func writeQueues(e *berth.StateEncoder, qs []*fsQueue, queueIx map[*fsQueue]int) {
	e.Len(len(qs))
	for i, q := range qs {
		queueIx[q] = i
		parent := -1
		if q.parent != nil {
			parent = queueIx[q.parent]
		}
		writeQueue(e, q, parent)
	}
}

// writeQueue writes a queue record: what readQueue reads.
func writeQueue(e *berth.StateEncoder, q *fsQueue, parent int) {
	e.String(q.path)
	e.Int(parent)
	e.Bool(q.leaf)
	e.Bool(q.dynamic)
	e.Bool(q.plan)
	e.Bool(q.reservation)
	e.Float64(q.entitlement)
	e.Bool(q.inConfig)
	e.Bool(q.tq != nil && !q.tq.Removed() && !q.tq.IsDynamic())
	writePolicy(e, q.policy)
	e.Resource(q.Demand)
	e.Resource(q.FairShare)
	e.Resource(q.SteadyFairShare)
	e.Bool(q.Active)
	e.Varint(q.lastAtMinShare)
}

// queueRecord is a queue as the body holds it, before it is made.
type queueRecord struct {
	path                             string
	parent                           int // index of an earlier queue; -1 for the root
	leaf, dynamic, plan, reservation bool
	entitlement                      float64
	policy                           SchedulingPolicy
	saved                            queueState
}

// queueState is what a queue record holds of the last update, set once
// the settings are applied again (settleQueues).
type queueState struct {
	demand, fair, steady berth.Resource
	active               bool
	lastAtMin            berth.Time
	tqConfigured         bool // the shared tree held it as configured
	inConfig             bool
}

func (r *restorer) readQueue() queueRecord {
	d := r.d
	q := queueRecord{path: d.String(), parent: d.Int()}
	q.leaf, q.dynamic, q.plan, q.reservation = d.Bool(), d.Bool(), d.Bool(), d.Bool()
	q.entitlement = d.Float64()
	q.saved.inConfig = d.Bool()
	q.saved.tqConfigured = d.Bool()
	q.policy = r.readPolicy("queues[" + q.path + "].policy")
	q.saved.demand, q.saved.fair, q.saved.steady = d.Resource(), d.Resource(), d.Resource()
	q.saved.active = d.Bool()
	q.saved.lastAtMin = d.Varint()
	return q
}

// readQueues reads the queues in pre-order and makes each through
// newQueue, as every queue is made; settleQueues applies their settings
// once the tree is whole.
func (r *restorer) readQueues() bool {
	d := r.d
	d.Field("queues")
	n := d.Len(maxStateItems)
	r.queues = make([]*fsQueue, 0, min(n, 1024))
	r.saved = make([]queueState, 0, min(n, 1024))
	for i := 0; i < n && d.Err() == nil; i++ {
		rec := r.readQueue()
		if d.Err() != nil || !r.addQueue(i, &rec) {
			break
		}
	}
	if d.Err() != nil || len(r.queues) == 0 {
		if d.Err() == nil {
			r.fail("no root queue")
		}
		return false
	}
	if r.s.queues[defaultQueue] == nil {
		r.fail("no %s queue", defaultQueue)
		return false
	}
	return true
}

// addQueue checks queue record i against the queues before it and makes
// the queue.
func (r *restorer) addQueue(i int, rec *queueRecord) bool {
	s := r.s
	switch {
	case rec.policy == nil:
		r.fail("queue %q without a policy", rec.path)
	case i == 0 && (rec.parent != -1 || rec.path != queue.RootName || rec.leaf):
		r.fail("first queue %q is not the root", rec.path)
	case i > 0 && (rec.parent < 0 || rec.parent >= i):
		r.fail("queue %q: parent index %d", rec.path, rec.parent)
	case s.queues[rec.path] != nil:
		r.fail("queue %q twice", rec.path)
	}
	if r.d.Err() != nil {
		return false
	}
	var p *fsQueue
	if i > 0 {
		p = r.queues[rec.parent]
		pp, err := queue.ParsePath(rec.path)
		pa, _ := pp.Parent()
		if err != nil || p.leaf || pa.String() != p.path {
			r.fail("queue %q does not fit under %q", rec.path, p.path)
			return false
		}
	}
	q := s.newQueue(rec.path, p, rec.leaf, rec.policy)
	q.dynamic, q.plan, q.reservation, q.entitlement = rec.dynamic, rec.plan, rec.reservation, rec.entitlement
	if i == 0 {
		s.root = q
	}
	r.queues = append(r.queues, q)
	r.saved = append(r.saved, rec.saved)
	return true
}

// settleQueues applies the settings top-down and computes the steady
// shares, exactly as a reload does, then sets what the records saved of
// the last update and the scalars' PolicyError.
func (r *restorer) settleQueues() bool {
	s := r.s
	for i, q := range r.queues {
		s.applySettings(q)
		q.inConfig = r.saved[i].inConfig || r.saved[i].tqConfigured
	}
	for _, q := range r.queues {
		switch {
		case q.parent == nil && (q.dynamic || q.plan || q.reservation):
			r.fail("root marked dynamic, plan or reservation")
		case q.reservation && (!q.leaf || !q.parent.plan):
			r.fail("reservation queue %q not a leaf of a plan", q.path)
		case leafOnly(q.policy) && !q.leaf:
			r.fail("parent queue %q with leaf-only policy %s", q.path, q.policy.Name())
		}
		if r.d.Err() != nil {
			return false
		}
	}
	s.recomputeSteady()
	s.syncTree()
	for i, q := range r.queues {
		x := &r.saved[i]
		q.inConfig = x.inConfig
		q.Demand, q.FairShare, q.SteadyFairShare = x.demand, x.fair, x.steady
		q.Active = x.active
		q.lastAtMinShare = x.lastAtMin
	}
	s.polErr = nil
	if r.polErr != nil {
		s.polErr = r.polErr
	}
	s.ordStale = true
	return true
}

// writeTypeChanges writes the leaf/parent changes a reload deferred.
func (s *Scheduler) writeTypeChanges(e *berth.StateEncoder) {
	paths := sortedKeys(s.pendingTypeChange)
	e.Len(len(paths))
	for _, p := range paths {
		e.String(p)
		e.Bool(s.pendingTypeChange[p])
	}
}

func (r *restorer) readTypeChanges() {
	d := r.d
	d.Field("type changes")
	n := d.Len(maxStateItems)
	for i := 0; i < n && d.Err() == nil; i++ {
		p := d.String()
		r.s.pendingTypeChange[p] = d.Bool()
	}
}

// writeApps writes the applications leaf by leaf in queue order, runnable
// then waiting, each list in its order, and their indexes to appIx.
func (s *Scheduler) writeApps(e *berth.StateEncoder, qs []*fsQueue, queueIx map[*fsQueue]int, appIx map[*app]int) {
	e.Len(len(s.apps))
	for _, q := range qs {
		if !q.leaf {
			continue
		}
		for _, list := range [][]*app{q.runnableApps, q.nonRunnableApps} {
			for _, a := range list {
				appIx[a] = len(appIx)
				writeApp(e, a, queueIx[q])
			}
		}
	}
	if len(appIx) != len(s.apps) {
		e.Fail(fmt.Errorf("%w: %d applications in queues, %d known", berth.ErrInvalidState, len(appIx), len(s.apps)))
	}
}

// writeApp writes an application record, in queue q: what readAppRecord
// reads.
func writeApp(e *berth.StateEncoder, a *app, q int) {
	e.String(a.id)
	e.String(a.user)
	e.Int(q)
	e.Bool(a.runnable)
	e.Uvarint(a.seq)
	e.Varint(int64(a.appPrio))
	e.String(a.resID)
	e.Varint(a.StartTime)
	e.Resource(a.Demand)
	e.Resource(a.FairShare)
	e.Float64(a.Weight)
	e.Bool(a.Active)
	e.Bool(a.managedAM)
	e.Bool(a.amRunning)
	e.Resource(a.amRes)
	e.Varint(a.lastTimeAtFairShare)
	e.Resource(a.fairStarvation)
	e.Resource(a.minStarvation)
	e.Varint(a.nextStarvationCheck)
	a.asks.WriteState(e, writeDelay)
}

// readAppRecord reads an application record into a new application and
// returns it with its queue's index.
func (r *restorer) readAppRecord() (*app, int) {
	d := r.d
	a := &app{reservedOn: map[string]*reservation{}}
	a.id = d.String()
	a.user = d.String()
	qi := r.index(len(r.queues), "queue")
	a.runnable = d.Bool()
	a.seq = d.Uvarint()
	a.appPrio = r.int32()
	a.resID = d.String()
	a.StartTime = d.Varint()
	a.Demand = d.Resource()
	a.FairShare = d.Resource()
	a.Weight = d.Float64()
	a.Active = d.Bool()
	a.managedAM = d.Bool()
	a.amRunning = d.Bool()
	a.amRes = d.Resource()
	a.lastTimeAtFairShare = d.Varint()
	a.fairStarvation = d.Resource()
	a.minStarvation = d.Resource()
	a.nextStarvationCheck = d.Varint()
	a.asks = *queue.ReadRequestsIn(d, readDelay, &a.askBlk)
	return a, qi
}

func writeDelay(e *berth.StateEncoder, d *delayState) {
	e.Uvarint(uint64(d.allowed))
	e.Bool(d.allowedSet)
	e.Int(d.opps)
	e.Varint(d.lastAt)
	e.Bool(d.lastAtSet)
}

func readDelay(d *berth.StateDecoder, s *delayState) {
	s.allowed = Locality(d.Uvarint())
	s.allowedSet = d.Bool()
	s.opps = d.Int()
	s.lastAt = d.Varint()
	s.lastAtSet = d.Bool()
	if d.Err() == nil && (s.allowed > OffSwitch || s.opps < 0) {
		d.Fail(fmt.Errorf("delay state: level %d, %d opportunities", s.allowed, s.opps))
	}
}

// readApps reads the applications and files each in its leaf's list, in
// the saved order.
func (r *restorer) readApps() bool {
	d := r.d
	d.Field("apps")
	n := d.Len(maxStateItems)
	r.apps = make([]*app, 0, min(n, 1<<16))
	for i := 0; i < n && d.Err() == nil; i++ {
		a := r.readApp()
		if a == nil {
			break
		}
		r.apps = append(r.apps, a)
	}
	return d.Err() == nil
}

// readApp reads one application and files it at the end of its leaf's
// runnable or waiting list, with the counts addAppToQueue keeps.
func (r *restorer) readApp() *app {
	d, s := r.d, r.s
	a, qi := r.readAppRecord()
	if d.Err() != nil {
		return nil
	}
	q := r.queues[qi]
	switch {
	case a.id == "" || s.apps[a.id] != nil:
		r.fail("application %q empty or twice", a.id)
	case !q.leaf:
		r.fail("application %q in parent queue %q", a.id, q.path)
	case a.seq == 0 || a.seq > s.nextSeq:
		r.fail("application %q: sequence %d", a.id, a.seq)
	case a.runnable && len(q.nonRunnableApps) > 0:
		r.fail("application %q: runnable after waiting ones in %q", a.id, q.path)
	}
	if d.Err() != nil {
		return nil
	}
	// The fields SubmitApp sets and the snapshot does not hold; keep the
	// two in step (TestStateRestoresEveryField names a field left out).
	a.Name = a.id
	a.npre = namePrefix(a.Name)
	a.ord.Value = a
	a.Priority = 1
	a.MaxShare = s.unbounded
	a.q = q
	s.apps[a.id] = a
	if a.runnable {
		s.account(q, a.user, queue.Delta{ActiveApps: 1})
		q.runnableApps = append(q.runnableApps, a)
		for p := q; p != nil; p = p.parent {
			p.numRunnable++
		}
		s.user(a.user).runnable++
	} else {
		s.account(q, a.user, queue.Delta{PendingApps: 1})
		q.nonRunnableApps = append(q.nonRunnableApps, a)
	}
	if a.amRunning {
		q.amUsage = q.amUsage.Add(a.amRes)
	}
	return a
}

// writeUsers writes, by user name, each user's waiting applications in
// order.
func (s *Scheduler) writeUsers(e *berth.StateEncoder, appIx map[*app]int) {
	users := sortedKeys(s.users)
	n := 0
	for _, u := range users {
		if len(s.users[u].nonRunnable) > 0 {
			n++
		}
	}
	e.Len(n)
	for _, u := range users {
		wait := s.users[u].nonRunnable
		if len(wait) == 0 {
			continue
		}
		e.String(u)
		e.Len(len(wait))
		for _, a := range wait {
			e.Int(appIx[a])
		}
	}
}

// readUsers reads the users' waiting lists, which must hold every waiting
// application once.
func (r *restorer) readUsers() {
	d := r.d
	d.Field("users")
	n := d.Len(maxStateItems)
	waiting := 0
	for i := 0; i < n && d.Err() == nil; i++ {
		name := d.String()
		k := d.Len(len(r.apps))
		u := r.s.user(name)
		if len(u.nonRunnable) > 0 {
			r.fail("user %q twice", name)
		}
		for j := 0; j < k && d.Err() == nil; j++ {
			a := r.app()
			if a == nil {
				break
			}
			if a.user != name || a.runnable || slices.Contains(u.nonRunnable, a) {
				r.fail("user %q: waiting application %q misfiled", name, a.id)
			}
			u.nonRunnable = append(u.nonRunnable, a)
			waiting++
		}
	}
	if d.Err() == nil {
		for _, a := range r.apps {
			if !a.runnable {
				waiting--
			}
		}
		if waiting != 0 {
			r.fail("users' waiting lists do not hold every waiting application")
		}
	}
}
