package engine

import (
	"github.com/berthsched/berth"
	"github.com/berthsched/berth/examples/sim/trace"
	"github.com/berthsched/berth/queue"
)

// Per-task flags of an application's current attempt.
const (
	taskPending uint8 = 1 << iota // asked for, not allocated
	taskLocated                   // counted in its host's and rack's asks
)

// taskRef is a pending task in a queue; it is stale once the task was
// allocated or asked for again (its generation moved on), and is then
// skipped when it reaches the head.
type taskRef struct {
	task int32
	gen  uint32
}

// taskFIFO is a queue of task references with lazy deletion.
type taskFIFO struct {
	refs []taskRef
	head int
}

func (q *taskFIFO) push(r taskRef) { q.refs = append(q.refs, r) }

// pop returns the first live reference, dropping the stale ones before it.
func (q *taskFIFO) pop(a *app) (int, bool) {
	for q.head < len(q.refs) {
		r := q.refs[q.head]
		q.head++
		if a.tflag[r.task]&taskPending != 0 && a.tgen[r.task] == r.gen {
			if q.head == len(q.refs) {
				q.refs, q.head = q.refs[:0], 0
			}
			return int(r.task), true
		}
	}
	q.refs, q.head = q.refs[:0], 0
	return 0, false
}

func (q *taskFIFO) reset() { q.refs, q.head = q.refs[:0], 0 }

// prioAsks is what an application master tracks for one priority of its
// job: the pending tasks in the order they were asked for, those that
// prefer each node (so an allocation on a node takes a task that wants
// it), and the outstanding count per host and rack of the tasks asked for
// with locality. Every operation is amortised O(1), so a job of a million
// tasks costs a million times one of ten.
type prioAsks struct {
	prio   int32
	capab  berth.Resource // the largest task of the priority: the ask's size
	n      int            // pending tasks
	fifo   taskFIFO
	byNode map[string]*taskFIFO
	// counts holds the located pending tasks per host and rack; dirty the
	// names whose count changed since the last ask (sent then, as YARN's
	// AMRMClient sends only the requests it changed).
	counts map[string]int
	dirty  []string
	isDirt map[string]bool
}

func newPrioAsks(p int32) *prioAsks {
	return &prioAsks{prio: p, byNode: map[string]*taskFIFO{}, counts: map[string]int{}, isDirt: map[string]bool{}}
}

func (q *prioAsks) touch(name string, d int) {
	q.counts[name] += d
	if !q.isDirt[name] {
		q.isDirt[name] = true
		q.dirty = append(q.dirty, name)
	}
}

// where returns the task's preferred rack and node when the node exists.
func (e *Engine) where(t *trace.Task) (rack, host string, ok bool) {
	if t.Host == "" {
		return "", "", false
	}
	rack, host, err := trace.SplitHost(t.Host)
	if err != nil {
		return "", "", false
	}
	_, ok = e.nodeByID[host]
	return rack, host, ok
}

// asksOf returns the priority's record (the job's priorities are known
// from the start).
func (a *app) asksOf(p int32) *prioAsks {
	for _, q := range a.asks {
		if q.prio == p {
			return q
		}
	}
	return nil
}

// addPending makes tasks pending. Located ones count for their host and
// rack in the next ask (a first ask, as SLS's packageRequests); the
// others (re-asks after a failure) ask for any host only.
func (e *Engine) addPending(a *app, tasks []int, located bool) {
	for _, t := range tasks {
		k := &a.job.Tasks[t]
		q := a.asksOf(k.Priority)
		a.tgen[t]++
		a.tflag[t] = taskPending
		ref := taskRef{task: int32(t), gen: a.tgen[t]}
		q.fifo.push(ref)
		q.n++
		if rack, host, ok := e.where(k); ok {
			f := q.byNode[host]
			if f == nil {
				f = &taskFIFO{}
				q.byNode[host] = f
			}
			f.push(ref)
			if located {
				a.tflag[t] |= taskLocated
				q.touch(host, 1)
				q.touch(rack, 1)
			}
		}
		e.addPendingKey(keyOf(q.capab), 1)
	}
}

// takePending picks the pending task an allocation on node serves: the
// first that prefers the node, else the first asked for. False when the
// priority has none pending (a stale count handed out one too many).
func (e *Engine) takePending(a *app, p int32, node string) (int, bool) {
	q := a.asksOf(p)
	if q == nil || q.n == 0 {
		return 0, false
	}
	t, ok := 0, false
	if f := q.byNode[node]; f != nil {
		t, ok = f.pop(a)
	}
	if !ok {
		if t, ok = q.fifo.pop(a); !ok {
			return 0, false // unreachable while n > 0
		}
	}
	if a.tflag[t]&taskLocated != 0 {
		rack, host, _ := e.where(&a.job.Tasks[t])
		q.touch(host, -1)
		q.touch(rack, -1)
	}
	a.tflag[t] = 0
	q.n--
	e.addPendingKey(keyOf(q.capab), -1)
	return t, true
}

// clearPending forgets every pending task of the application (its attempt
// ended).
func (e *Engine) clearPending(a *app) {
	e.bump()
	if a.local {
		a.local = false
		e.localApps--
	}
	for _, q := range a.asks {
		if q.n > 0 {
			e.addPendingKey(keyOf(q.capab), -q.n)
		}
		for _, r := range q.fifo.refs[q.fifo.head:] {
			a.tflag[r.task] = 0
		}
		q.n = 0
		q.fifo.reset()
		clear(q.byNode)
		clear(q.counts)
		clear(q.isDirt)
		q.dirty = q.dirty[:0]
	}
	if a.state == submitted {
		e.addPendingKey(keyOf(a.job.AMResource), -1)
	}
}

// ask sends the application's outstanding totals: per priority, the hosts
// and racks whose count changed since the last ask, then the any-host
// total.
func (e *Engine) ask(a *app) {
	var asks []queue.Ask // fresh: a scheduler may keep the slice
	for _, q := range a.asks {
		for _, name := range q.dirty {
			c := q.counts[name]
			asks = append(asks, queue.Ask{Priority: q.prio, ResourceName: name, Capability: q.capab, Count: c})
			if c > 0 && !a.local {
				a.local = true
				e.localApps++
			}
			if c == 0 {
				delete(q.counts, name)
			}
			delete(q.isDirt, name)
		}
		q.dirty = q.dirty[:0]
		asks = append(asks, queue.Ask{Priority: q.prio, ResourceName: queue.AnyResource, Capability: q.capab, Count: q.n})
	}
	if _, err := e.s.Allocate(a.id, asks, nil); err != nil {
		e.log.Warn("allocate refused", "app", a.id, "err", err)
	}
}
