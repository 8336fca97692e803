package policy

import (
	"slices"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/rle"
)

// CapacityOverTime is YARN's CapacityOverTimePolicy, the default policy of
// reservable queues. On top of NoOverCommit it bounds each user: at any
// instant a user may hold at most InstantaneousMaxPercent of the plan, and
// over any window of Window ms at most AveragePercent on average. Build it
// with [NewCapacityOverTime]: the zero value has no limits to check, and its
// checks fail with berth.ErrInvalidState rather than admit anything. Its
// answers depend on no mutable state (it
// only recycles scratch buffers) and it is safe for concurrent use.
type CapacityOverTime struct {
	cfg     CapacityOverTimeConfig
	maxInst float64 // YARN computes percent / 100 in float
	maxAvg  float64
	bufs    *stepBuffers // scratch buffers reused across checks
}

var _ plan.SharingPolicy = (*CapacityOverTime)(nil)

// NewCapacityOverTime returns the policy for cfg, or the first invalid
// field of cfg as a *berth.FieldError.
func NewCapacityOverTime(cfg CapacityOverTimeConfig) (*CapacityOverTime, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &CapacityOverTime{cfg: cfg, bufs: &stepBuffers{},
		maxInst: float64(cfg.InstantaneousMaxPercent / 100),
		maxAvg:  float64(cfg.AveragePercent / 100)}, nil
}

// built refuses a policy not made by NewCapacityOverTime (a zero value, whose
// limits of 0 % would otherwise read as "no quota checked").
func (c *CapacityOverTime) built() error {
	if c == nil || c.bufs == nil {
		return &berth.FieldError{Field: "policy", Value: "CapacityOverTime", Kind: berth.ErrInvalidState,
			Reason: "not built by NewCapacityOverTime"}
	}
	return nil
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
	if err := c.built(); err != nil {
		return nil, err
	}
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
// ExactAverage is set (see CapacityOverTimeConfig.ExactAverage for what it
// compares). Unlike YARN, the running integral stops at the end
// of the checked range instead of running to the end-of-time sentinel,
// where it overflowed.
func (c *CapacityOverTime) Validate(view *plan.Plan, a *plan.Allocation) error {
	if err := c.built(); err != nil {
		return err
	}
	if err := checkArgs(view, a); err != nil {
		return err
	}
	if err := checkFits(view, a, c.userCap(view), c.bufs); err != nil {
		err.Policy, err.Quota = "CapacityOverTime", true
		return err
	}
	return c.checkAverage(view, a)
}

// userCap is the instantaneous cap as a function of what the user holds:
// the smaller (under the calculator, whole operand, ties to avail) of the
// physical availability and the user's quota left; nil when the cap can
// never bind.
func (c *CapacityOverTime) userCap(view *plan.Plan) userCap {
	if c.maxInst >= 1 {
		return nil
	}
	calc, capacity := view.Calculator(), view.Capacity()
	quota := capacity.Mul(c.maxInst)
	return func(avail, used berth.Resource) berth.Resource {
		return berth.Min(calc, capacity, avail, quota.Sub(used))
	}
}

// checkAverage is the integral part of CapacityOverTimePolicy.validate.
func (c *CapacityOverTime) checkAverage(view *plan.Plan, a *plan.Allocation) error {
	w := c.cfg.Window
	from, to := satAdd(a.Start, -w), satAdd(a.End, w)
	if from >= to {
		return nil
	}
	limit := view.Capacity().Mul(c.maxAvg)
	if ok, err := c.averageSurelyFits(view, a, from, to, limit); err == nil && ok {
		return nil
	}
	segs, err := c.consumption(view, a, from, to)
	if err != nil {
		return &RejectionError{Policy: "CapacityOverTime", Check: CheckAverage, Reservation: a.ID.String(),
			User: a.User, At: from, Limit: limit, Quota: true, Err: err}
	}
	capacity := view.Capacity()
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
			bound := exactWindowBound(comp.get(capacity), c.cfg.AveragePercent, w)
			bad, at, _ = exactExceeds(one, to, from, to, w, bound)
		} else {
			bad, at, _ = yarnExceeds(one, from, to, w, comp.limit)
		}
		if bad {
			return &RejectionError{Policy: "CapacityOverTime", Check: CheckAverage, Reservation: a.ID.String(),
				User: a.User, At: at, Limit: limit, Quota: true}
		}
	}
	return nil
}

// averageSurelyFits is a cheap sufficient condition for the average check.
// Every windowed value the check compares at x in [from, to] is, at most,
// the integral of the user's use over a stretch inside [x − 2·window, x]
// divided by the window, plus 1 for YARN's rounding (the exact value over
// [x − window, x]). So if the user's whole integral over
// [from − 2·window, to], divided by the window, plus 1, is within the limit,
// the check passes: no need to build the step function. The plan answers
// that integral in O(log n) ([plan.Plan.LoadIntegral]); a's own part is a
// sum over its intervals. The sums are exact, so no margin is needed.
func (c *CapacityOverTime) averageSurelyFits(view *plan.Plan, a *plan.Allocation, from, to berth.Time, limit berth.Resource) (bool, error) {
	w := c.cfg.Window
	win := berth.Interval{Start: satAdd(from, -2*w), End: to}
	area, err := view.LoadIntegral(win, a.User)
	if err != nil {
		return false, err
	}
	mem, vc := area.Memory, area.VCores
	if a.IsPeriodic() {
		s, err := a.ResourcesOver(win)
		if err != nil {
			return false, err
		}
		own := s.Integral(win)
		mem, vc = mem.Add(own.Memory), vc.Add(own.VCores)
	} else {
		for _, e := range a.Intervals {
			if iv, ok := e.Interval.Intersect(win); ok {
				mem = mem.Add(rle.Product(e.Resource.Memory, iv.Len()))
				vc = vc.Add(rle.Product(e.Resource.VCores, iv.Len()))
			}
		}
	}
	// integral/w + 1 ≤ limit, that is integral + w ≤ limit·w.
	fits := func(sum rle.Int128, lim int64) bool {
		return sum.Add(rle.Int128Of(w)).Cmp(rle.Product(lim, w)) <= 0
	}
	return fits(mem, limit.Memory) && fits(vc, limit.VCores), nil
}

// rseg is one canonical piece of a resource step function.
type rseg struct {
	t berth.Time
	r berth.Resource
}

// consumption returns the user's use with a over the checked range as
// canonical pieces. For the exact check they cover [from − window, to).
// For YARN's check they end with the last breakpoint at or before to (YARN's
// view of the user stops there) and start where YARN's running integral
// starts: at the breakpoint in force at from, which may be earlier than
// from, when the user has only non-periodic reservations (the sample points
// depend on it, so it is searched for); at from when the user has periodic
// ones (YARN then merges two views, which clamps them to from).
func (c *CapacityOverTime) consumption(view *plan.Plan, a *plan.Allocation, from, to berth.Time) ([]rseg, error) {
	w := c.cfg.Window
	if c.cfg.ExactAverage {
		win := berth.Interval{Start: satAdd(from, -w), End: to}
		return userPlus(view, a, win, win)
	}
	end := satAdd(to, 1)
	if a.IsPeriodic() {
		hist := berth.Interval{Start: berth.MinTime, End: end}
		if len(allocationsOver(view, hist, a.User)) == 0 {
			// The user holds nothing: YARN's merge returns the new
			// reservation's unrolled view as it is, breakpoints at every
			// period included, and those are sample points.
			return rawPeriodic(a, from, to)
		}
	}
	// YARN's view of the new reservation starts at from; only the user's
	// non-periodic consumption reaches back to its breakpoint in force at
	// from. A short look-back finds it in most plans; go further back only
	// when it started earlier still.
	mine := berth.Interval{Start: from, End: end}
	if len(periodicOf(view, a.User)) > 0 {
		return userPlus(view, a, mine, mine)
	}
	for back := max(w/64, 1); ; back *= 2 {
		lo := satAdd(from, -back)
		win := berth.Interval{Start: lo, End: end}
		user, err := loadSegs(view, win, a.User)
		if err != nil {
			return nil, err
		}
		k := 0
		for k+1 < len(user) && user[k+1].t <= from {
			k++
		}
		if user[k].r.IsZero() || k > 0 || lo == berth.MinTime || back > berth.MaxTime/4 {
			ask, err := allocSteps(a, mine)
			if err != nil {
				return nil, err
			}
			return plus(user[k:], end, ask), nil
		}
	}
}

// userPlus returns what a's user holds over the valid window win plus a
// inside mine (⊂ win), as canonical pieces covering win.
func userPlus(view *plan.Plan, a *plan.Allocation, win, mine berth.Interval) ([]rseg, error) {
	user, err := loadSegs(view, win, a.User)
	if err != nil {
		return nil, err
	}
	ask, err := allocSteps(a, mine)
	if err != nil {
		return nil, err
	}
	return plus(user, win.End, ask), nil
}

// rawPeriodic is YARN's unrolled view of a periodic allocation over
// [from, to] (PeriodicRLESparseResourceAllocation.getRangeOverlapping): the
// pattern's breakpoints repeated every period, not merged where equal, with
// YARN's phase (a negative from is taken as phase 0).
func rawPeriodic(a *plan.Allocation, from, to berth.Time) ([]rseg, error) {
	per := a.Period()
	if n := (to - from) / per; n > maxUnrolled {
		return nil, berth.InvalidField("window", berth.Interval{Start: from, End: to},
			"spans more than 2^20 periods of the reservation")
	}
	type key struct {
		k berth.Time
		v berth.Resource
	}
	var keys []key
	pattern := a.Series()
	var last berth.Time = -1
	for st := range pattern.StepsIn(berth.Interval{Start: 0, End: per}) {
		if st.Value.IsZero() && len(keys) == 0 {
			continue // YARN's pattern starts at its first block
		}
		keys = append(keys, key{st.Interval.Start, st.Value})
		last = st.Interval.End
	}
	if len(keys) == 0 {
		return nil, nil
	}
	if n := len(keys); !keys[n-1].v.IsZero() || last < per {
		keys = append(keys, key{last, berth.Resource{}})
	}
	rel := berth.Time(0)
	if from >= 0 {
		rel = from % per
	}
	prev := berth.Time(0)
	for _, k := range keys {
		if k.k <= rel {
			prev = k.k
		}
	}
	out := map[berth.Time]berth.Resource{}
	var order []berth.Time
	for i := int64(0); i <= (to-from)/per; i++ {
		for _, k := range keys {
			ck := k.k + i*per
			if ck >= prev && from+ck-rel <= to {
				if _, ok := out[ck]; !ok {
					order = append(order, ck)
				}
				out[ck] = k.v
			}
		}
	}
	slices.Sort(order)
	segs := make([]rseg, 0, len(order))
	for _, ck := range order {
		segs = append(segs, rseg{t: ck + from - rel, r: out[ck]})
	}
	return segs, nil
}

// maxUnrolled bounds how many periods one check unrolls, as the plan does.
const maxUnrolled = 1 << 20

// AvailableUnchanged reports whether Available returns its input as it is,
// which holds when the instantaneous cap is 100 % or more (agents use it to
// skip building a series).
func (c *CapacityOverTime) AvailableUnchanged() bool { return c.maxInst >= 1 }
