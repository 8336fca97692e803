package preempt

import (
	"fmt"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

// Observer receives a preemption policy's decisions as a round makes
// them: containers marked, killed, unmarked, reservations cancelled. A
// host sets one per policy ([Proportional.SetObserver],
// [FairPreemptor.SetObserver]).
//
// The policy calls it synchronously during Round, in decision order (the
// order of the round's report). A policy is driven by one
// host loop and holds no lock: an observer must not call the policy's
// methods (Round, Reconfigure, …) but may read the scheduler; it may
// record, count, or enqueue the event. Events are values: an observer may
// keep them. The scheduler's own observer (queue.Observer) sees a kill
// too, as a container ended Preempted, just before the policy's event.
// Observe-only rounds report nothing; without an observer each decision
// costs one nil check.
//
// Embed [NopObserver] to implement only what you need.
type Observer interface {
	// ObservePreemption reports one decision on one container.
	ObservePreemption(PreemptionEvent)
}

// NopObserver implements [Observer] and ignores every event.
type NopObserver struct{}

// ObservePreemption does nothing.
func (NopObserver) ObservePreemption(PreemptionEvent) {}

var _ Observer = NopObserver{}

// PreemptionEventKind says what a round did to a container.
type PreemptionEventKind uint8

const (
	// PreemptionMarked: chosen for the first time and marked (the
	// application is told); it will be killed after the wait if still
	// chosen (Proportional) or still needed (FairPreemptor).
	PreemptionMarked PreemptionEventKind = iota + 1
	// PreemptionKilled: killed for preemption (status Preempted).
	PreemptionKilled
	// PreemptionUnmarked: the policy stopped tracking a mark without a
	// kill: the container ended by itself, is no longer needed
	// (FairPreemptor's released), or its mark was not renewed in time
	// (Proportional's forgotten; such an event carries only
	// Container.ID).
	PreemptionUnmarked
	// PreemptionReservationCancelled: a reserved container was cancelled
	// (Proportional, at once, without a mark).
	PreemptionReservationCancelled
)

// String names the kind.
func (k PreemptionEventKind) String() string {
	switch k {
	case PreemptionMarked:
		return "marked"
	case PreemptionKilled:
		return "killed"
	case PreemptionUnmarked:
		return "unmarked"
	case PreemptionReservationCancelled:
		return "reservation-cancelled"
	}
	return fmt.Sprintf("PreemptionEventKind(%d)", uint8(k))
}

// PreemptionEvent is one decision of a preemption round.
type PreemptionEvent struct {
	Kind PreemptionEventKind
	// Container is the victim as the policy last saw it.
	Container queue.Container
	// Selector names the Proportional selector that chose it; ForApp is
	// the starved application a FairPreemptor decision serves.
	Selector, ForApp string
	// Time is the round's time (the host's).
	Time berth.Time
}

// SetObserver makes o receive the policy's decisions from now on; nil
// (untyped) removes it.
func (p *Proportional) SetObserver(o Observer) { p.obs = o }

// emit reports a decision a round carried out (not observe-only
// choices, containers still waiting, or vanished ones).
func (p *Proportional) emit(d Decision, now berth.Time) {
	var k PreemptionEventKind
	switch d.Action {
	case Marked:
		k = PreemptionMarked
	case Killed:
		k = PreemptionKilled
	case ReservationCancelled:
		k = PreemptionReservationCancelled
	default:
		return
	}
	p.obs.ObservePreemption(PreemptionEvent{Kind: k, Container: d.Container, Selector: d.Selector, Time: now})
}

// SetObserver makes o receive the policy's decisions from now on; nil
// (untyped) removes it.
func (p *FairPreemptor) SetObserver(o Observer) { p.obs = o }

// record adds d to the round's report and tells the observer.
func (p *FairPreemptor) record(r *FairRound, d FairDecision) {
	r.Decisions = append(r.Decisions, d)
	if p.obs == nil {
		return
	}
	var k PreemptionEventKind
	switch d.Action {
	case FairMarked:
		k = PreemptionMarked
	case FairKilled:
		k = PreemptionKilled
	case FairReleased, FairForgotten:
		k = PreemptionUnmarked
	default:
		return
	}
	p.obs.ObservePreemption(PreemptionEvent{Kind: k, Container: d.Container, ForApp: d.ForApp, Time: r.Time})
}
