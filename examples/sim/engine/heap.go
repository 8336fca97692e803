package engine

import (
	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

type eventKind uint8

const (
	evSubmit    eventKind = iota // a job's application is submitted (i: job)
	evReserve                    // a deadline job asks for its reservation (i: job)
	evHeartbeat                  // node heartbeat (i: node)
	evDone                       // a container's work ends (c: container)
	evAsk                        // a delayed task is asked for (i: app, j: task)
	evStreamEnd                  // a streaming AM's lifetime ends (i: app)
	evFollower                   // plan follower round
	evPreempt                    // preemption round
	evSample                     // metrics sample
	evNodeDown                   // node lost (i: node)
	evNodeUp                     // node back (i: node)
	evWake                       // wake the nodes parked after futile heartbeats
	evSweep                      // wake the next parked node with room for a pending ask
	evRound                      // asynchronous scheduling round (Config.Rounds)
	evLifetime                   // application lifetime check (Config.Lifetimes)
)

// work tells whether an event of the kind makes progress by itself (an
// input arrives, a task's work ends, a delayed ask or a stream's lifetime
// comes), as opposed to the periodic heartbeats, rounds and samples that
// only act on what changed: a run with none of them queued and nothing
// changing is stalled.
func (k eventKind) work() bool {
	switch k {
	case evSubmit, evReserve, evDone, evAsk, evStreamEnd, evNodeDown, evNodeUp:
		return true
	}
	return false
}

// event is one scheduled happening. Events run in (at, seq) order: seq
// grows with scheduling order, so ties never depend on anything else.
type event struct {
	at   berth.Time
	seq  uint64
	kind eventKind
	i, j int32
	c    queue.ContainerID
	gen  uint32 // the app attempt an app event belongs to
}

// events is a binary min-heap of events, by value (no per-push
// allocation, unlike container/heap's interface boxing).
type events struct {
	h   []event
	seq uint64
}

func (q *events) less(a, b int) bool {
	x, y := &q.h[a], &q.h[b]
	if x.at != y.at {
		return x.at < y.at
	}
	return x.seq < y.seq
}

func (q *events) push(e event) {
	q.seq++
	e.seq = q.seq
	q.h = append(q.h, e)
	i := len(q.h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !q.less(i, p) {
			break
		}
		q.h[i], q.h[p] = q.h[p], q.h[i]
		i = p
	}
}

func (q *events) pop() event {
	top := q.h[0]
	last := len(q.h) - 1
	q.h[0] = q.h[last]
	q.h = q.h[:last]
	i := 0
	for {
		l, r, m := 2*i+1, 2*i+2, i
		if l < last && q.less(l, m) {
			m = l
		}
		if r < last && q.less(r, m) {
			m = r
		}
		if m == i {
			break
		}
		q.h[i], q.h[m] = q.h[m], q.h[i]
		i = m
	}
	return top
}

func (q *events) len() int { return len(q.h) }
