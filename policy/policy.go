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
	if err := checkFits(view, a); err != nil {
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

// checkFits is NoOverCommitPolicy.validate: the allocation must fit, at
// every time of its window, in what the plan makes available to its user
// (through the plan's policy, so CapacityOverTime's instantaneous cap
// applies too).
func checkFits(view *plan.Plan, a *plan.Allocation) *RejectionError {
	w := a.Window()
	reject := func(at berth.Time, limit berth.Resource) *RejectionError {
		e := &RejectionError{Check: CheckCapacity, Reservation: a.ID.String(), User: a.User, At: at, Limit: limit, OverCommit: true}
		// Tell the user's cap from the plan's capacity where we can.
		if !w.Valid() {
			return e
		}
		free := view.Capacity().Sub(view.TotalCommitted(at))
		if ask := a.ResourcesAt(at); ask.FitsIn(free) {
			e.Check, e.OverCommit = CheckInstantaneous, false
		}
		return e
	}
	if !w.Valid() {
		return nil
	}
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
		return reject(at, limit)
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
