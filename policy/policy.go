package policy

import (
	"errors"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/rle"
)

// NoOverCommit admits a reservation when the plan can hold it at every
// instant: YARN's NoOverCommitPolicy. It imposes no per-user limit and
// keeps no history. The zero value is ready to use.
type NoOverCommit struct{}

var _ plan.SharingPolicy = NoOverCommit{}

// Validate rejects a when, at some time of its window, it needs more than
// the plan has left (componentwise, every resource type). The error is a
// *RejectionError wrapping ErrOverCommitted and berth.ErrCapacityExceeded.
func (NoOverCommit) Validate(view *plan.Plan, a *plan.Allocation) error {
	if err := checkArgs(view, a); err != nil {
		return err
	}
	if err := checkFits(view, a, nil, nil); err != nil {
		err.Policy = "NoOverCommit"
		return err
	}
	return nil
}

// Available returns avail unchanged.
func (NoOverCommit) Available(avail *rle.Series, _ *plan.Plan, _ string, _ plan.ReservationID, _ berth.Interval) (*rle.Series, error) {
	return avail, nil
}

// ValidWindow is 0: the policy needs no history.
func (NoOverCommit) ValidWindow() berth.Duration { return 0 }

// checkArgs refuses a validation without a plan or an allocation.
func checkArgs(view *plan.Plan, a *plan.Allocation) error {
	switch {
	case view == nil:
		return berth.InvalidField("plan", nil, "must not be nil")
	case a == nil:
		return berth.InvalidField("allocation", nil, "must not be nil")
	}
	return nil
}

// userCap lowers the physical availability at one instant given what the
// user already holds there (CapacityOverTime's instantaneous cap); nil
// imposes nothing.
type userCap func(avail, used berth.Resource) berth.Resource

// checkFits is NoOverCommitPolicy.validate: the allocation must fit, at
// every time of its window, in what the plan makes available to its user
// (lowered by limit). A plan already over-committed inside the window
// rejects as well, as YARN's availability computation throws there. The
// plan's load is read into buffers of bufs (nil: fresh ones).
func checkFits(view *plan.Plan, a *plan.Allocation, limit userCap, bufs *stepBuffers) *RejectionError {
	w := a.Window()
	if !w.Valid() {
		return nil
	}
	if a.IsPeriodic() {
		return checkFitsPeriodic(view, a)
	}
	capacity := view.Capacity()
	ask, err := allocSteps(a, w)
	if err != nil {
		return brokenPlan(a, w.Start, err)
	}
	span, asks := spanToRead(view, w, ask, capacity)
	if !asks {
		return nil
	}
	loadBuffer := bufs.get()
	defer bufs.put(loadBuffer)
	load, err := loadSteps(view, loadBuffer, span, "")
	if err != nil {
		return brokenPlan(a, w.Start, err)
	}
	for _, g := range load {
		if !g.Value.FitsIn(capacity) {
			return rejection(a, g.Interval.Start, capacity.Sub(g.Value), CheckCapacity)
		}
	}
	used := []rle.Step{{Interval: span}}
	if limit != nil {
		usedBuffer := bufs.get()
		defer bufs.put(usedBuffer)
		if used, err = loadSteps(view, usedBuffer, span, a.User); err != nil {
			return brokenPlan(a, w.Start, err)
		}
	}
	return fitWalk(a, ask, load, used, capacity, limit)
}

// spanToRead is the part of the window w whose load checkFits reads. The
// load matters everywhere in w only to find an over-commitment; the plan's
// peak over w rules that out in one range query (block bounds), and then
// only the span of the allocation's own steps is read (none, and asks
// false, when it asks for nothing). A plan over-committed somewhere in w
// is scanned in full to report the first such time.
func spanToRead(view *plan.Plan, w berth.Interval, ask []rle.Step, capacity berth.Resource) (span berth.Interval, asks bool) {
	peak, err := view.PeakLoad(w)
	if err != nil || !peak.FitsIn(capacity) {
		return w, true
	}
	if len(ask) == 0 {
		return w, false
	}
	return berth.Interval{Start: ask[0].Interval.Start, End: ask[len(ask)-1].Interval.End}, true
}

// fitWalk checks each of the allocation's steps against every piece of
// the plan's load and of the user's use that overlaps it: the step must
// fit in the capacity less the load, and in what limit leaves of that
// given the user's use. The three step lists are in time order and the
// load and use cover every step.
func fitWalk(a *plan.Allocation, ask, load, used []rle.Step, capacity berth.Resource, limit userCap) *RejectionError {
	i, j := 0, 0
	for _, g := range ask {
		start, end := g.Interval.Start, g.Interval.End
		for i+1 < len(load) && load[i+1].Interval.Start <= start {
			i++
		}
		for j+1 < len(used) && used[j+1].Interval.Start <= start {
			j++
		}
		// every load and use piece overlapping [start, end)
		for li, ui := i, j; ; {
			at := max(start, load[li].Interval.Start, used[ui].Interval.Start)
			avail := capacity.Sub(load[li].Value)
			if !g.Value.FitsIn(avail) {
				return rejection(a, at, avail, CheckCapacity)
			}
			if limit != nil {
				if eff := limit(avail, used[ui].Value); !g.Value.FitsIn(eff) {
					return rejection(a, at, eff, CheckInstantaneous)
				}
			}
			loadEnd, usedEnd := load[li].Interval.End, used[ui].Interval.End
			next := min(loadEnd, usedEnd)
			if next >= end {
				break
			}
			if loadEnd == next {
				li++
			}
			if usedEnd == next {
				ui++
			}
		}
	}
	return nil
}

// rejection is a's rejection by check at time at, where limit was
// available.
func rejection(a *plan.Allocation, at berth.Time, limit berth.Resource, check Check) *RejectionError {
	return &RejectionError{Check: check, Reservation: a.ID.String(), User: a.User, At: at, Limit: limit,
		OverCommit: check == CheckCapacity}
}

// brokenPlan is a's rejection when the plan's load could not be read at
// time at: YARN turns every such failure into an over-commit.
func brokenPlan(a *plan.Allocation, at berth.Time, err error) *RejectionError {
	return &RejectionError{Check: CheckCapacity, Reservation: a.ID.String(), User: a.User, At: at, OverCommit: true, Err: err}
}

// checkFitsPeriodic checks a periodic allocation against the plan's own
// availability (the minimum over every instance of the period).
func checkFitsPeriodic(view *plan.Plan, a *plan.Allocation) *RejectionError {
	w := a.Window()
	avail, err := view.AvailableResources(a.User, a.ID, w, a.Period())
	if err != nil {
		e := brokenPlan(a, w.Start, err)
		var neg *rle.NegativeError
		if errors.As(err, &neg) {
			e.At = neg.Time
		}
		return e
	}
	ask, err := a.ResourcesOver(w)
	if err != nil {
		return brokenPlan(a, w.Start, err)
	}
	if at, limit, bad := firstMisfit(ask, avail, w); bad {
		e := rejection(a, at, limit, CheckCapacity)
		free := view.Capacity().Sub(view.TotalCommitted(at))
		if a.ResourcesAt(at).FitsIn(free) {
			e.Check, e.OverCommit = CheckInstantaneous, false
		}
		return e
	}
	return nil
}

// firstMisfit walks two series over w and returns the first time at which
// need does not fit (componentwise) in have, where have is defined.
func firstMisfit(need, have *rle.Series, w berth.Interval) (berth.Time, berth.Resource, bool) {
	var hs []rle.Step
	for st := range have.StepsIn(w) {
		hs = append(hs, st)
	}
	i := 0
	for st := range need.StepsIn(w) {
		if st.Value.IsZero() {
			continue
		}
		for i < len(hs) && hs[i].Interval.End <= st.Interval.Start {
			i++
		}
		for k := i; k < len(hs) && hs[k].Interval.Start < st.Interval.End; k++ {
			if !st.Value.FitsIn(hs[k].Value) {
				return max(st.Interval.Start, hs[k].Interval.Start), hs[k].Value, true
			}
		}
	}
	return 0, berth.Resource{}, false
}

// AvailableUnchanged reports that Available returns its input as it is
// (agents use it to skip building a series).
func (NoOverCommit) AvailableUnchanged() bool { return true }
