package policy

import (
	"github.com/berthsched/berth"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/rle"
)

// CapacityOverTime is YARN's CapacityOverTimePolicy, the default policy of
// reservable queues. On top of NoOverCommit it bounds each user: at any
// instant a user may hold at most InstantaneousMaxPercent of the plan, and
// over any window of Window ms at most AveragePercent on average. Build it
// with [NewCapacityOverTime]. It holds no mutable state and is safe for
// concurrent use.
type CapacityOverTime struct {
	cfg     CapacityOverTimeConfig
	maxInst float64 // YARN computes percent / 100 in float
	maxAvg  float64
}

var _ plan.SharingPolicy = (*CapacityOverTime)(nil)

// NewCapacityOverTime returns the policy for cfg, or the first invalid
// field of cfg as a *berth.FieldError.
func NewCapacityOverTime(cfg CapacityOverTimeConfig) (*CapacityOverTime, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &CapacityOverTime{cfg: cfg,
		maxInst: float64(cfg.InstantaneousMaxPercent / 100),
		maxAvg:  float64(cfg.AveragePercent / 100)}, nil
}

// Config returns the policy's configuration.
func (c *CapacityOverTime) Config() CapacityOverTimeConfig { return c.cfg }

// ValidWindow is the averaging window: the plan keeps that much history.
func (c *CapacityOverTime) ValidWindow() berth.Duration { return c.cfg.Window }

// Available lowers avail to what user may still hold at each instant:
// InstantaneousMaxPercent of the plan minus what the user's reservations
// already hold (the old version oldID not counted), taking at each time the
// smaller of the two under the plan's calculator (YARN's
// availableResources).
func (c *CapacityOverTime) Available(avail *rle.Series, view *plan.Plan, user string, oldID plan.ReservationID, w berth.Interval) (*rle.Series, error) {
	if c.maxInst >= 1 {
		// The user's cap minus the user's use is never below the plan's
		// capacity minus everyone's use, so YARN's minimum always picks
		// avail: skip the three merges.
		return avail, nil
	}
	calc, capacity := view.Calculator(), view.Capacity()
	used, err := view.UserConsumption(user, w)
	if err != nil {
		return nil, err
	}
	if old, ok := view.Reservation(oldID); ok && !oldID.IsZero() {
		back, err := old.ResourcesOver(w)
		if err != nil {
			return nil, err
		}
		if used, err = rle.Merge(calc, capacity, used, back, rle.OpSubtract, w); err != nil {
			return nil, err
		}
	}
	quota, err := rle.FromBreakpoints(rle.Breakpoint{Time: w.Start, Value: capacity.Mul(c.maxInst)})
	if err != nil {
		return nil, err
	}
	if quota, err = rle.Merge(calc, capacity, quota, used, rle.OpSubtract, w); err != nil {
		return nil, err
	}
	return rle.Merge(calc, capacity, avail, quota, rle.OpMin, w)
}

// Validate admits a when it fits the plan and the user's instantaneous cap
// at every instant of its window, and when the user's average over every
// window of Window ms that overlaps it stays within AveragePercent. Errors
// are *RejectionError values wrapping ErrQuotaExceeded and
// berth.ErrCapacityExceeded (and ErrOverCommitted for a physical
// over-commit), as YARN reports every rejection of this policy as a
// PlanningQuotaException.
//
// The average is checked as YARN samples it (see the package doc) unless
// ExactAverage is set. Unlike YARN, the running integral stops at the end
// of the checked range instead of running to the end-of-time sentinel,
// where it overflowed.
func (c *CapacityOverTime) Validate(view *plan.Plan, a *plan.Allocation) error {
	if err := checkFits(view, a); err != nil {
		err.Policy, err.Quota = "CapacityOverTime", true
		return err
	}
	return c.checkAverage(view, a)
}

// checkAverage is the integral part of CapacityOverTimePolicy.validate.
func (c *CapacityOverTime) checkAverage(view *plan.Plan, a *plan.Allocation) error {
	w := c.cfg.Window
	from, to := satAdd(a.Start, -w), satAdd(a.End, w)
	if from >= to {
		return nil
	}
	limit := view.Capacity().Mul(c.maxAvg)
	segs, err := c.consumption(view, a, from, to)
	if err != nil {
		return &RejectionError{Policy: "CapacityOverTime", Check: CheckAverage, Reservation: a.ID.String(),
			User: a.User, At: from, Limit: limit, Quota: true, Err: err}
	}
	for _, comp := range []struct {
		get   func(berth.Resource) int64
		limit int64
	}{
		{func(r berth.Resource) int64 { return r.Memory }, limit.Memory},
		{func(r berth.Resource) int64 { return r.VCores }, limit.VCores},
	} {
		one := make([]seg, len(segs))
		for i, s := range segs {
			one[i] = seg{t: s.t, v: comp.get(s.r)}
		}
		var bad bool
		var at berth.Time
		if c.cfg.ExactAverage {
			bad, at, _ = exactExceeds(one, to, from, to, w, comp.limit)
		} else {
			bad, at, _ = yarnExceeds(one, to, from, to, w, comp.limit)
		}
		if bad {
			return &RejectionError{Policy: "CapacityOverTime", Check: CheckAverage, Reservation: a.ID.String(),
				User: a.User, At: at, Limit: limit, Quota: true}
		}
	}
	return nil
}

// rseg is one canonical piece of a resource step function.
type rseg struct {
	t berth.Time
	r berth.Resource
}

// consumption returns the user's use with a over [from, to) as canonical
// pieces. YARN starts its running integral at the breakpoint in force at
// from, which may be earlier than from; where the user holds something at
// from, that breakpoint is searched for (the plan's series are clipped to
// the window asked for), because the sample points depend on it. For the
// exact check the pieces start a window earlier instead.
func (c *CapacityOverTime) consumption(view *plan.Plan, a *plan.Allocation, from, to berth.Time) ([]rseg, error) {
	w := c.cfg.Window
	start := from
	if c.cfg.ExactAverage {
		start = satAdd(from, -w)
	} else if view.UserConsumptionAt(a.User, from).IsZero() == false {
		f, err := pieceStart(view, a.User, from, w)
		if err != nil {
			return nil, err
		}
		start = f
	}
	win := berth.Interval{Start: start, End: to}
	cons, err := view.UserConsumption(a.User, win)
	if err != nil {
		return nil, err
	}
	mine, err := a.ResourcesOver(win)
	if err != nil {
		return nil, err
	}
	sum, err := rle.Merge(view.Calculator(), view.Capacity(), cons, mine, rle.OpAdd, win)
	if err != nil {
		return nil, err
	}
	var out []rseg
	for st := range sum.StepsIn(win) {
		if n := len(out); n > 0 && out[n-1].r.Equal(st.Value) {
			continue
		}
		out = append(out, rseg{t: st.Interval.Start, r: st.Value})
	}
	return out, nil
}

// pieceStart finds when the user's consumption piece in force at t began,
// looking back one window, then two, four, … .
func pieceStart(view *plan.Plan, user string, t berth.Time, w berth.Duration) (berth.Time, error) {
	v := view.UserConsumptionAt(user, t)
	for back := w; ; back *= 2 {
		lo := satAdd(t, -back)
		s, err := view.UserConsumption(user, berth.Interval{Start: lo, End: t + 1})
		if err != nil {
			return 0, err
		}
		start := lo
		for st := range s.StepsIn(berth.Interval{Start: lo, End: t + 1}) {
			if !st.Value.Equal(v) {
				start = st.Interval.End
			}
		}
		if start > lo || lo == berth.MinTime || back > berth.MaxTime/4 {
			return start, nil
		}
	}
}

// AvailableUnchanged reports whether Available returns its input as it is,
// which holds when the instantaneous cap is 100 % or more (agents use it to
// skip building a series).
func (c *CapacityOverTime) AvailableUnchanged() bool { return c.maxInst >= 1 }
