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
	reject := func(at berth.Time, lim berth.Resource, check Check) *RejectionError {
		return &RejectionError{Check: check, Reservation: a.ID.String(), User: a.User, At: at, Limit: lim,
			OverCommit: check == CheckCapacity}
	}
	broken := func(err error) *RejectionError {
		return &RejectionError{Check: CheckCapacity, Reservation: a.ID.String(), User: a.User, At: w.Start, OverCommit: true, Err: err}
	}
	capacity := view.Capacity()
	ask, err := allocSteps(a, w)
	if err != nil {
		return broken(err)
	}
	// The load matters everywhere in w only to find an over-commitment;
	// the plan's peak over w rules that out in one range query (block
	// bounds), and then only the span of the allocation's own steps is
	// read. A plan over-committed somewhere in w is scanned in full to
	// report the first such time.
	span := w
	if peak, err := view.PeakLoad(w); err == nil && peak.FitsIn(capacity) {
		if len(ask) == 0 {
			return nil
		}
		span = berth.Interval{Start: ask[0].Interval.Start, End: ask[len(ask)-1].Interval.End}
	}
	lbuf := bufs.get()
	defer bufs.put(lbuf)
	load, err := loadSteps(view, lbuf, span, "")
	if err != nil {
		return broken(err)
	}
	for _, g := range load {
		if !g.Value.FitsIn(capacity) {
			return reject(g.Interval.Start, capacity.Sub(g.Value), CheckCapacity)
		}
	}
	used := []rle.Step{{Interval: span}}
	if limit != nil {
		ubuf := bufs.get()
		defer bufs.put(ubuf)
		if used, err = loadSteps(view, ubuf, span, a.User); err != nil {
			return broken(err)
		}
	}
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
		for ii, jj := i, j; ; {
			at := max(start, load[ii].Interval.Start, used[jj].Interval.Start)
			avail := capacity.Sub(load[ii].Value)
			if !g.Value.FitsIn(avail) {
				return reject(at, avail, CheckCapacity)
			}
			if limit != nil {
				if eff := limit(avail, used[jj].Value); !g.Value.FitsIn(eff) {
					return reject(at, eff, CheckInstantaneous)
				}
			}
			nl, nu := load[ii].Interval.End, used[jj].Interval.End
			next := min(nl, nu)
			if next >= end {
				break
			}
			if nl == next {
				ii++
			}
			if nu == next {
				jj++
			}
		}
	}
	return nil
}

// checkFitsPeriodic checks a periodic allocation against the plan's own
// availability (the minimum over every instance of the period).
func checkFitsPeriodic(view *plan.Plan, a *plan.Allocation) *RejectionError {
	w := a.Window()
	avail, err := view.AvailableResources(a.User, a.ID, w, a.Period())
	if err != nil {
		// YARN turns every failure here into an over-commit.
		e := &RejectionError{Check: CheckCapacity, Reservation: a.ID.String(), User: a.User, At: w.Start, OverCommit: true, Err: err}
		var neg *rle.NegativeError
		if errors.As(err, &neg) {
			e.At = neg.Time
		}
		return e
	}
	ask, err := a.ResourcesOver(w)
	if err != nil {
		return &RejectionError{Check: CheckCapacity, Reservation: a.ID.String(), User: a.User, At: w.Start, OverCommit: true, Err: err}
	}
	if at, limit, bad := firstMisfit(ask, avail, w); bad {
		e := &RejectionError{Check: CheckCapacity, Reservation: a.ID.String(), User: a.User, At: at, Limit: limit, OverCommit: true}
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
