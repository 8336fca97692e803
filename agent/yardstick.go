package agent

import (
	"container/heap"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/plan"
)

// Request is one submission of a request stream: a definition for a user
// under an id.
type Request struct {
	ID         plan.ReservationID
	User       string
	Definition plan.Definition
}

// Episode is a plan configuration and the requests submitted, in order, to
// one fresh plan built from it. A stream is a list of episodes.
type Episode struct {
	Config   plan.Config
	Requests []Request
}

// Area is resource × time: memory in MB·ms and vcores in vcore·ms.
type Area struct {
	Memory, VCores float64
}

func (a Area) add(o Area) Area { return Area{a.Memory + o.Memory, a.VCores + o.VCores} }

// Ratio divides a by b componentwise (0 where b is 0).
func (a Area) Ratio(b Area) Area {
	var out Area
	if b.Memory != 0 {
		out.Memory = a.Memory / b.Memory
	}
	if b.VCores != 0 {
		out.VCores = a.VCores / b.VCores
	}
	return out
}

// Report is what [Measure] finds when an agent serves a stream.
type Report struct {
	// Requests counts the submissions; Accepted those the agent placed.
	Requests, Accepted int
	// Offered is the area the stream asks for ([OfferedArea] summed),
	// Reserved the area the accepted reservations hold in their plans, and
	// Bound the [UpperBound] of the stream: no agent reserves more.
	Offered, Reserved, Bound Area
	// MeanDecision and P99Decision are the mean and the 99th percentile
	// (nearest rank) of the time one CreateReservation takes; zero when
	// Measure was given no clock.
	MeanDecision, P99Decision time.Duration
	// Fragmentation is the mean over the episodes of each final plan's
	// [Fragmentation] over its requests' horizon.
	Fragmentation float64
}

// Measure submits every request of every episode, in order, with ag's
// CreateReservation to a fresh plan built from the episode's Config, and
// reports what was accepted. A rejection is an error wrapping
// berth.ErrNoPlacement or berth.ErrCapacityExceeded (the plan's policy
// refused); any other error stops the run and is returned, wrapped with
// the request's position. elapsed reads the host's monotonic clock (for
// instance a closure over time.Since); nil skips the timing, so Measure
// itself never reads a clock.
func Measure(ag plan.Agent, stream []Episode, elapsed func() time.Duration) (Report, error) {
	var r Report
	var times []time.Duration
	for ei, ep := range stream {
		p, err := plan.New(ep.Config)
		if err != nil {
			return r, fmt.Errorf("episode %d: %w", ei, err)
		}
		for ri, q := range ep.Requests {
			var t0 time.Duration
			if elapsed != nil {
				t0 = elapsed()
			}
			err := ag.CreateReservation(p, q.ID, q.User, q.Definition)
			if elapsed != nil {
				times = append(times, elapsed()-t0)
			}
			r.Requests++
			r.Offered = r.Offered.add(OfferedArea(q.Definition, p.Step()))
			switch {
			case err == nil:
				r.Accepted++
				a, ok := p.Reservation(q.ID)
				if !ok {
					return r, fmt.Errorf("episode %d request %d: accepted %v is not in the plan", ei, ri, q.ID)
				}
				r.Reserved = r.Reserved.add(ReservedArea(a))
			case errors.Is(err, berth.ErrNoPlacement), errors.Is(err, berth.ErrCapacityExceeded):
			default:
				return r, fmt.Errorf("episode %d request %d: %w", ei, ri, err)
			}
		}
		r.Bound = r.Bound.add(UpperBound(ep))
		f, err := Fragmentation(p, horizon(ep.Requests))
		if err != nil {
			return r, fmt.Errorf("episode %d: %w", ei, err)
		}
		r.Fragmentation += f
	}
	if len(stream) > 0 {
		r.Fragmentation /= float64(len(stream))
	}
	if len(times) > 0 {
		var sum time.Duration
		for _, d := range times {
			sum += d
		}
		r.MeanDecision = sum / time.Duration(len(times))
		slices.Sort(times)
		r.P99Decision = times[(len(times)*99+99)/100-1]
	}
	return r, nil
}

// horizon is [earliest arrival, latest deadline) of the requests.
func horizon(reqs []Request) berth.Interval {
	if len(reqs) == 0 {
		return berth.Interval{}
	}
	h := berth.Interval{Start: reqs[0].Definition.Arrival, End: reqs[0].Definition.Deadline}
	for _, q := range reqs[1:] {
		h.Start = min(h.Start, q.Definition.Arrival)
		h.End = max(h.End, q.Definition.Deadline)
	}
	return h
}

// ReservedArea is the area an allocation holds: the sum over its intervals
// of resource × length (one occurrence for a periodic allocation); zero
// for nil.
func ReservedArea(a *plan.Allocation) Area {
	var out Area
	if a == nil {
		return out
	}
	for _, e := range a.Intervals {
		l := float64(e.Interval.Len())
		out.Memory += float64(e.Resource.Memory) * l
		out.VCores += float64(e.Resource.VCores) * l
	}
	return out
}

// OfferedArea is the area a definition asks the plan to hold: each stage's
// capability × containers × duration rounded up to the plan step (as every
// agent places it), summed over the stages, except R_ANY, which offers its
// largest stage (by memory, then vcores). It is what an accepted
// reservation of def reserves at most in memory, and in vcores too except
// for an R_ANY whose placed stage has less memory and more vcores than
// that one (so [UpperBound], which takes the most of each type, may then
// exceed the offered vcores).
func OfferedArea(def plan.Definition, step berth.Duration) Area {
	var sum, best Area
	for _, s := range def.Stages {
		d := float64(stepRoundUp(s.Duration, step))
		a := Area{float64(s.Capability.Memory) * float64(s.Containers) * d,
			float64(s.Capability.VCores) * float64(s.Containers) * d}
		sum = sum.add(a)
		if a.Memory > best.Memory || (a.Memory == best.Memory && a.VCores > best.VCores) {
			best = a
		}
	}
	if def.Interpreter == plan.RAny {
		return best
	}
	return sum
}

// heldAtOnce is the most of one resource type a placement of def holds at
// any time: the sum over its stages of capability × containers, or the
// largest stage for R_ANY.
func heldAtOnce(def plan.Definition, get func(berth.Resource) float64) float64 {
	var sum, most float64
	for _, s := range def.Stages {
		v := get(s.Capability) * float64(s.Containers)
		sum += v
		most = max(most, v)
	}
	if def.Interpreter == plan.RAny {
		return most
	}
	return sum
}

// fluidBound is the yardstick's first, looser bound for one resource type:
// every request's work spread over its window at a total rate no faster
// than the smaller of the capacity and the sum of the open requests' rates
// (earliest deadline first is optimal for it). The tests check that
// [UpperBound] never exceeds it where both apply.
func fluidBound(ep Episode, capacity float64, get func(berth.Resource) float64, work func(Area) float64) float64 {
	if capacity <= 0 {
		return 0
	}
	jobs, changes := fluidJobs(ep, get, work)
	at, limit := rateLimit(changes, capacity)
	return edfWork(jobs, at, limit)
}

// fluidJob is one request in the fluid bound: its window, its work and
// the most it can run at once.
type fluidJob struct {
	arrival, deadline berth.Time
	work, rate        float64
}

// rateChange is a change of the sum of the open requests' rates at t.
type rateChange struct {
	t    berth.Time
	rate float64
}

// fluidJobs returns the episode's requests with work and a rate, by
// arrival, and the changes of the open requests' total rate, by time.
func fluidJobs(ep Episode, get func(berth.Resource) float64, work func(Area) float64) ([]fluidJob, []rateChange) {
	jobs := make([]fluidJob, 0, len(ep.Requests))
	var changes []rateChange
	for _, q := range ep.Requests {
		d := q.Definition
		w := work(OfferedArea(d, ep.Config.Step))
		r := heldAtOnce(d, get)
		if w > 0 && r > 0 && d.Arrival < d.Deadline {
			jobs = append(jobs, fluidJob{d.Arrival, d.Deadline, w, r})
			changes = append(changes, rateChange{d.Arrival, r}, rateChange{d.Deadline, -r})
		}
	}
	slices.SortStableFunc(jobs, func(a, b fluidJob) int { return cmpTime(a.arrival, b.arrival) })
	slices.SortStableFunc(changes, func(a, b rateChange) int { return cmpTime(a.t, b.t) })
	return jobs, changes
}

// rateLimit is the rate limit c(t) as steps: limit[k] holds on
// [at[k], at[k+1]), the smaller of the capacity and the open requests'
// total rate.
func rateLimit(changes []rateChange, capacity float64) (at, limit []float64) {
	active := 0.0
	for k := 0; k < len(changes); {
		t := changes[k].t
		for ; k < len(changes) && changes[k].t == t; k++ {
			active += changes[k].rate
		}
		at = append(at, float64(t))
		limit = append(limit, min(capacity, max(active, 0)))
	}
	return at, limit
}

// edfWork is the work done running the jobs earliest deadline first at
// the rate limit's pace, each within its window.
func edfWork(jobs []fluidJob, at, limit []float64) float64 {
	segment := 0
	h := &edfHeap{}
	var done, now float64
	next := 0
	for next < len(jobs) || h.Len() > 0 {
		if h.Len() == 0 {
			now = max(now, float64(jobs[next].arrival))
		}
		for next < len(jobs) && float64(jobs[next].arrival) <= now {
			heap.Push(h, edfJob{deadline: jobs[next].deadline, work: jobs[next].work})
			next++
		}
		// Run the earliest deadline until the next arrival.
		until := math.Inf(1)
		if next < len(jobs) {
			until = float64(jobs[next].arrival)
		}
		for h.Len() > 0 && now < until {
			top := &(*h)[0]
			deadline := float64(top.deadline)
			if deadline <= now {
				heap.Pop(h)
				continue
			}
			for segment+1 < len(at) && at[segment+1] <= now {
				segment++
			}
			end := min(until, deadline)
			if segment+1 < len(at) {
				end = min(end, at[segment+1])
			}
			rate := limit[segment]
			if rate <= 0 {
				now = end
				continue
			}
			room := rate * (end - now)
			if top.work <= room {
				// It finishes early: the rest of the span goes on.
				done += top.work
				now += top.work / rate
				heap.Pop(h)
				continue
			}
			done += room
			top.work -= room
			now = end
		}
	}
	return done
}

type edfJob struct {
	deadline berth.Time
	work     float64
}

type edfHeap []edfJob

func (h edfHeap) Len() int           { return len(h) }
func (h edfHeap) Less(i, j int) bool { return h[i].deadline < h[j].deadline }
func (h edfHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *edfHeap) Push(x any)        { *h = append(*h, x.(edfJob)) }
func (h *edfHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func cmpTime(a, b berth.Time) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Fragmentation measures how scattered a plan's free memory is over
// window: 1 − R / F, where F is the free area (capacity − load, in MB·ms,
// summed over window) and R the area of the largest rectangle [t0, t1) ×
// [0, m) lying under the free memory (m ≤ capacity − load(t) for every t in
// [t0, t1)): the biggest request of one block that could still be placed.
// 0 means the free area is one such block (an empty plan, or one full plan
// edge); values near 1 mean it is scattered in slivers too short or too
// thin to hold much. A window with no free area has fragmentation 0.
func Fragmentation(p *plan.Plan, window berth.Interval) (float64, error) {
	if err := checkPlan(p); err != nil {
		return 0, err
	}
	steps, err := p.LoadSteps(window, "")
	if err != nil {
		return 0, err
	}
	capacity := p.Capacity().Memory
	var free float64
	// Largest rectangle under a histogram of variable-width bars, with a
	// stack of (start, height).
	type bar struct {
		start berth.Time
		h     int64
	}
	var stack []bar
	var best float64
	flush := func(t berth.Time, h int64) {
		start := t
		for len(stack) > 0 && stack[len(stack)-1].h >= h {
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			best = max(best, float64(top.h)*float64(t-top.start))
			start = top.start
		}
		stack = append(stack, bar{start, h})
	}
	for _, s := range steps {
		h := max(capacity-s.Value.Memory, 0)
		free += float64(h) * float64(s.Interval.Len())
		flush(s.Interval.Start, h)
	}
	flush(window.End, 0)
	if free == 0 {
		return 0, nil
	}
	return 1 - best/free, nil
}
