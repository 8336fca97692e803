package queue

import (
	"fmt"
	"slices"
)

// EventLog is an [Observer] that keeps one line of text per event, in
// order: a trace for a debugging session, a golden file or a test that
// asserts an exact sequence of decisions. The lines leave out the time
// and the resources, so that they read the same across runs that differ
// only in those:
//
//	container allocated <id> <app> <queue>
//	container ended <id> <app> <queue> <STATUS>
//	app <kind> <app> <queue> [from <queue>]
//	queue <kind> <queue> [<capacity>/<max> was <capacity>/<max>]
//
// A host that observes more families (a plan's reservations, a
// preemption policy's marks) embeds EventLog and appends its own lines to
// Lines. The zero value is ready to use. Like every observer it runs
// under the scheduler's lock: read Lines only between calls to the
// scheduler.
type EventLog struct {
	// Lines holds one line per event, oldest first.
	Lines []string
}

var _ Observer = (*EventLog)(nil)

// ObserveContainer appends "container <kind> <id> <app> <queue>", and the
// exit status of an ended container.
func (l *EventLog) ObserveContainer(e ContainerEvent) {
	s := fmt.Sprintf("container %s %d %s %s", e.Kind, e.Container.ID, e.Container.App, e.Container.Queue)
	if e.Kind == ContainerEnded {
		s += " " + e.Status.String()
	}
	l.Lines = append(l.Lines, s)
}

// ObserveApp appends "app <kind> <app> <queue>", and the queue a moved
// application left.
func (l *EventLog) ObserveApp(e AppEvent) {
	s := fmt.Sprintf("app %s %s %s", e.Kind, e.App, e.Queue)
	if e.From != "" {
		s += " from " + e.From
	}
	l.Lines = append(l.Lines, s)
}

// ObserveQueue appends "queue <kind> <queue>", and the new and previous
// entitlement of a changed one.
func (l *EventLog) ObserveQueue(e QueueEvent) {
	s := fmt.Sprintf("queue %s %s", e.Kind, e.Queue)
	if e.Kind == QueueEntitlementChanged {
		s += fmt.Sprintf(" %g/%g was %g/%g", e.Entitlement.Capacity, e.Entitlement.MaxCapacity, e.Previous.Capacity, e.Previous.MaxCapacity)
	}
	l.Lines = append(l.Lines, s)
}

// EventState is an [Observer] that rebuilds, from a scheduler's events
// alone, the state they describe: the live containers, the applications
// with their queue and activation, the queues, and the entitlements
// reported. A host uses it to mirror a scheduler it cannot query (events
// shipped from another process, a replayed log), or to check that an
// event stream is consistent.
//
// It checks each event against what came before: a container allocated
// twice or to an application that is not active, an event of an unknown
// application or queue, an application removed with live containers, an
// entitlement change whose Previous is not the last one reported. The
// first contradiction is kept (see [EventState.Err]) and every later event
// is ignored, since the mirror no longer describes the scheduler.
//
// Start it with the queues the scheduler has when the observer is set
// (events report only changes). It is not safe for concurrent use; a
// scheduler calls it under its own lock.
type EventState struct {
	live   map[ContainerID]Container
	apps   map[string]*AppState
	queues map[string]bool
	ent    map[string]Entitlement
	events int
	err    error
}

// AppState is what [EventState] knows of an application.
type AppState struct {
	// Queue is the full path of its leaf queue.
	Queue string
	// Active tells whether it may be scheduled.
	Active bool
	// Containers is the number of its live containers: allocated − ended.
	Containers int
}

var _ Observer = (*EventState)(nil)

// NewEventState returns a mirror of a scheduler whose queues (full paths)
// are queues and that has no applications yet.
func NewEventState(queues []string) *EventState {
	s := &EventState{live: map[ContainerID]Container{}, apps: map[string]*AppState{},
		queues: map[string]bool{}, ent: map[string]Entitlement{}}
	for _, q := range queues {
		s.queues[q] = true
	}
	return s
}

// Err is the first contradiction seen, an [*Error] wrapping
// berth.ErrInvalidArgument that names the event; nil while the events
// agree.
func (s *EventState) Err() error { return s.err }

// Events counts the events observed, including any after an error.
func (s *EventState) Events() int { return s.events }

func (s *EventState) contradict(queue, family string, kind any, format string, args ...any) {
	s.err = &Error{QueuePath: queue, Field: family + " event", Value: kind, Reason: fmt.Sprintf(format, args...)}
}

// ObserveContainer applies a container event.
func (s *EventState) ObserveContainer(e ContainerEvent) {
	s.events++
	if s.err != nil {
		return
	}
	c := e.Container
	a := s.apps[c.App]
	if a == nil {
		s.contradict(c.Queue, "container", e.Kind, "container %d of unknown application %q", c.ID, c.App)
		return
	}
	switch e.Kind {
	case ContainerAllocated:
		switch _, dup := s.live[c.ID]; {
		case dup:
			s.contradict(c.Queue, "container", e.Kind, "container %d allocated twice", c.ID)
		case !a.Active:
			s.contradict(c.Queue, "container", e.Kind, "container %d allocated to inactive application %q", c.ID, c.App)
		case a.Queue != c.Queue:
			s.contradict(c.Queue, "container", e.Kind, "container %d charged to another queue than application %q's (%s)", c.ID, c.App, a.Queue)
		default:
			s.live[c.ID] = c
			a.Containers++
		}
	case ContainerEnded:
		switch was, ok := s.live[c.ID]; {
		case !ok:
			s.contradict(c.Queue, "container", e.Kind, "container %d ended but is not live", c.ID)
		case was.App != c.App:
			s.contradict(c.Queue, "container", e.Kind, "container %d ended for application %q, allocated to %q", c.ID, c.App, was.App)
		default:
			delete(s.live, c.ID)
			a.Containers--
		}
	default:
		s.contradict(c.Queue, "container", e.Kind, "unknown kind")
	}
}

// ObserveApp applies an application event.
func (s *EventState) ObserveApp(e AppEvent) {
	s.events++
	if s.err != nil {
		return
	}
	if !s.queues[e.Queue] {
		s.contradict(e.Queue, "app", e.Kind, "application %q in an unknown queue", e.App)
		return
	}
	a := s.apps[e.App]
	if a == nil && e.Kind != AppAdded {
		s.contradict(e.Queue, "app", e.Kind, "unknown application %q", e.App)
		return
	}
	switch e.Kind {
	case AppAdded:
		switch {
		case a != nil:
			s.contradict(e.Queue, "app", e.Kind, "application %q added twice", e.App)
		case e.Active:
			s.contradict(e.Queue, "app", e.Kind, "application %q added active", e.App)
		default:
			s.apps[e.App] = &AppState{Queue: e.Queue}
		}
	case AppActivated:
		switch {
		case a.Active:
			s.contradict(e.Queue, "app", e.Kind, "application %q activated twice", e.App)
		case a.Queue != e.Queue:
			s.contradict(e.Queue, "app", e.Kind, "application %q activated outside its queue %s", e.App, a.Queue)
		case !e.Active:
			s.contradict(e.Queue, "app", e.Kind, "application %q activated but not active", e.App)
		default:
			a.Active = true
		}
	case AppMoved:
		if a.Queue != e.From {
			s.contradict(e.Queue, "app", e.Kind, "application %q moved from %s, but it was in %s", e.App, e.From, a.Queue)
			return
		}
		a.Queue, a.Active = e.Queue, e.Active
		for id, c := range s.live {
			if c.App == e.App {
				c.Queue = e.Queue
				s.live[id] = c
			}
		}
	case AppFinished, AppKilled:
		if a.Containers != 0 {
			s.contradict(e.Queue, "app", e.Kind, "application %q removed with %d live containers", e.App, a.Containers)
			return
		}
		delete(s.apps, e.App)
	default:
		s.contradict(e.Queue, "app", e.Kind, "unknown kind")
	}
}

// ObserveQueue applies a queue event.
func (s *EventState) ObserveQueue(e QueueEvent) {
	s.events++
	if s.err != nil {
		return
	}
	known := s.queues[e.Queue]
	if !known && e.Kind != QueueAdded {
		s.contradict(e.Queue, "queue", e.Kind, "unknown queue")
		return
	}
	switch e.Kind {
	case QueueAdded:
		if known {
			s.contradict(e.Queue, "queue", e.Kind, "queue added twice")
			return
		}
		s.queues[e.Queue] = true
	case QueueRemoved:
		delete(s.queues, e.Queue)
		delete(s.ent, e.Queue)
	case QueueEntitlementChanged:
		if prev, ok := s.ent[e.Queue]; ok && prev != e.Previous {
			s.contradict(e.Queue, "queue", e.Kind, "previous entitlement %v, last reported %v", e.Previous, prev)
			return
		}
		if e.Previous == e.Entitlement {
			s.contradict(e.Queue, "queue", e.Kind, "entitlement %v reported as a change", e.Entitlement)
			return
		}
		s.ent[e.Queue] = e.Entitlement
	case QueueReconfigured:
	default:
		s.contradict(e.Queue, "queue", e.Kind, "unknown kind")
	}
}

// Container returns live container id as last reported (its Queue follows
// its application's moves).
func (s *EventState) Container(id ContainerID) (Container, bool) {
	c, ok := s.live[id]
	return c, ok
}

// NumContainers is the number of live containers.
func (s *EventState) NumContainers() int { return len(s.live) }

// App returns what the events said of application id, which has been
// added and not yet finished or killed.
func (s *EventState) App(id string) (AppState, bool) {
	a, ok := s.apps[id]
	if !ok {
		return AppState{}, false
	}
	return *a, true
}

// NumApps is the number of applications added and not yet removed.
func (s *EventState) NumApps() int { return len(s.apps) }

// Queues returns the full paths of the queues, sorted.
func (s *EventState) Queues() []string {
	qs := make([]string, 0, len(s.queues))
	for q := range s.queues {
		qs = append(qs, q)
	}
	slices.Sort(qs)
	return qs
}

// Entitlement returns the last entitlement reported for queue q; false if
// none was (a queue's configured capacity is not an event).
func (s *EventState) Entitlement(q string) (Entitlement, bool) {
	e, ok := s.ent[q]
	return e, ok
}
