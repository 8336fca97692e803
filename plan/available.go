package plan

import (
	"fmt"
	"math"
	"slices"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/rle"
)

// AvailableResources returns what user may still reserve over window
// (YARN's getAvailableResourceOverTime): capacity minus every reservation,
// with the reservation oldID (if any, for an update) added back, lowered by
// the sharing policy. For period > 0 it is the pointwise minimum (under the
// calculator) over the instances window + i·period, i < MaxPeriodicity/period,
// expressed over window. The result is defined inside window only.
//
// Errors: an over-committed plan inside window (*rle.NegativeError, kind
// berth.ErrCapacityExceeded), a period that does not divide
// MaxPeriodicity or is shorter than the window (berth.ErrInvalidArgument).
func (p *Plan) AvailableResources(user string, oldID ReservationID, window berth.Interval, period berth.Duration) (*rle.Series, error) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.available(p.st, user, oldID, window, period)
}

func (p *Plan) available(st *state, user string, oldID ReservationID, window berth.Interval, period berth.Duration) (*rle.Series, error) {
	if period < 0 {
		return nil, berth.InvalidField("period", period, "must not be negative")
	}
	if period == 0 || window.Start >= window.End {
		// An empty or reversed window answers the same for every
		// instance: no need to count them (up to a day's worth of
		// milliseconds) first.
		return p.availableOnce(st, user, oldID, window)
	}
	maxP := p.cfg.MaxPeriodicity
	if maxP%period != 0 {
		return nil, berth.InvalidField("period", period,
			fmt.Sprintf("The reservation periodicity (%d) must be an exact divider of the system maxPeriod (%d)", period, maxP))
	}
	if period < window.Len() {
		return nil, berth.InvalidField("window", window,
			fmt.Sprintf("Invalid input: (end - start) = (%d - %d) = %d > period = %d", window.End, window.Start, window.Len(), period))
	}
	// YARN takes the instances i = 0 … MaxPeriodicity/period − 1. The
	// periodic part of the plan repeats every MaxPeriodicity, so that covers
	// it; but non-periodic reservations before the window (or beyond one
	// MaxPeriodicity) would meet the request's earlier or later occurrences
	// unchecked and the plan could over-commit. Berth adds the instances
	// that meet a non-periodic reservation.
	instances, err := periodicInstances(st.total, window, period, maxP)
	if err != nil {
		return nil, err
	}
	out, err := p.availableOnce(st, user, oldID, window)
	if err != nil {
		return nil, err
	}
	for _, i := range instances {
		if i == 0 {
			continue
		}
		d := i * period
		shifted := berth.Interval{Start: window.Start + d, End: window.End + d}
		if d/period != i || satAddDur(window.Start, d) != shifted.Start || satAddDur(window.End, d) != shifted.End {
			return nil, berth.InvalidField("window", window,
				fmt.Sprintf("instance %d of the %d ms period lies beyond the range of time", i, period))
		}
		snap, err := p.availableOnce(st, user, oldID, shifted)
		if err != nil {
			return nil, err
		}
		if p.cfg.ExactPeriodicMin {
			if out, err = componentwiseMin(out, snap.Shift(-d), window); err != nil {
				return nil, err
			}
			continue
		}
		if out, err = rle.Merge(p.cfg.Calculator, st.capacity, out, snap.Shift(-d), rle.OpMin, window); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (p *Plan) availableOnce(st *state, user string, oldID ReservationID, window berth.Interval) (*rle.Series, error) {
	if window.Start > window.End {
		return nil, berth.InvalidField("window", window, "start must not be after end")
	}
	if window.Start == window.End {
		// YARN's merges give {start: null}: nothing is available.
		return rle.Undefined(), nil
	}
	net, err := physicalAvailable(st, oldID, window)
	if err != nil {
		return nil, err
	}
	if p.cfg.Policy == nil {
		return net, nil
	}
	return p.cfg.Policy.Available(net, p.viewOf(st), user, oldID, window)
}

// physicalAvailable is capacity minus the plan's load over the valid
// window, the reservation oldID (if any) added back, undefined outside
// window: YARN's merges (subtract-test-non-negative of the non-periodic
// load, then of the periodic one, then add), in one walk of the steps.
// Over-commit inside window is an *rle.NegativeError at the first time the
// non-periodic load, else the whole load, exceeds the capacity, as YARN's
// successive merges report it.
func physicalAvailable(st *state, oldID ReservationID, window berth.Interval) (*rle.Series, error) {
	capacity := st.capacity
	if len(st.patterns) > 0 {
		for s := range st.total.StepsIn(window) {
			if !s.Value.FitsIn(capacity) {
				return nil, &rle.NegativeError{Time: s.Interval.Start, Value: capacity.Sub(s.Value)}
			}
		}
	}
	steps, err := loadSteps(nil, st.total, st.patterns, window)
	if err != nil {
		return nil, err
	}
	for i, s := range steps {
		if !s.Value.FitsIn(capacity) {
			return nil, &rle.NegativeError{Time: s.Interval.Start, Value: capacity.Sub(s.Value)}
		}
		steps[i].Value = capacity.Sub(s.Value)
	}
	if old, ok := st.get(oldID); ok && !oldID.IsZero() {
		if steps, err = addBack(steps, old, window); err != nil {
			return nil, err
		}
	}
	return seriesOver(steps, window, func(r berth.Resource) berth.Resource { return r })
}

// addBack adds old's resources over window to steps (covering window).
func addBack(steps []rle.Step, old *Allocation, window berth.Interval) ([]rle.Step, error) {
	back, err := old.ResourcesOver(window)
	if err != nil {
		return nil, err
	}
	out := make([]rle.Step, 0, len(steps)+4)
	emit := func(iv berth.Interval, r berth.Resource) {
		if n := len(out); n > 0 && out[n-1].Value.Equal(r) {
			out[n-1].Interval.End = iv.End
			return
		}
		out = append(out, rle.Step{Interval: iv, Value: r})
	}
	for _, s := range steps {
		for b := range back.StepsIn(s.Interval) {
			if sumOverflows(s.Value, b.Value) {
				return nil, berth.InvalidField("operand", b.Interval.Start, "add overflows int64 at this time")
			}
			emit(b.Interval, s.Value.Add(b.Value))
		}
	}
	return out, nil
}

// componentwiseMin is the pointwise, componentwise minimum of a and b over
// window, undefined elsewhere; where only one is defined it is taken, as
// rle.Merge does.
func componentwiseMin(a, b *rle.Series, window berth.Interval) (*rle.Series, error) {
	var times []berth.Time
	for _, s := range []*rle.Series{a, b} {
		for st := range s.StepsIn(window) {
			times = append(times, st.Interval.Start, st.Interval.End)
		}
	}
	slices.Sort(times)
	times = slices.Compact(times)
	bps := make([]rle.Breakpoint, 0, len(times)+1)
	for _, t := range times {
		if t >= window.End {
			break
		}
		va, da := a.Lookup(t)
		vb, db := b.Lookup(t)
		p := rle.Breakpoint{Time: t}
		switch {
		case da && db:
			p.Value = berth.ComponentwiseMin(va, vb)
		case da:
			p.Value = va
		case db:
			p.Value = vb
		default:
			p.Undefined = true
		}
		bps = append(bps, p)
	}
	bps = append(bps, rle.Breakpoint{Time: window.End, Undefined: true})
	return rle.FromBreakpoints(bps...)
}

// periodicInstances lists, in order, the instances i whose windows
// window + i·period a periodic request must be checked on: YARN's
// 0 … maxP/period − 1 (the periodic part of the plan repeats every maxP),
// plus those meeting a non-zero step of the non-periodic load outside
// [window.Start, window.Start + maxP). The cost is in the steps of that
// load outside the base range, not in time.
func periodicInstances(total *rle.Series, window berth.Interval, period, maxP berth.Duration) ([]int64, error) {
	if maxP/period > maxUnrolledPeriods { // YARN's instances alone are too many
		return nil, berth.InvalidField("period", period,
			fmt.Sprintf("the request meets more than %d instances of its %d ms period", maxUnrolledPeriods, period))
	}
	type span struct{ lo, hi int64 } // inclusive
	spans := []span{{0, maxP/period - 1}}
	base := berth.Interval{Start: window.Start, End: window.Start + maxP}
	var tooFar error
	visit := func(iv berth.Interval) {
		if !iv.Valid() {
			return
		}
		for st := range total.StepsIn(iv) {
			if st.Value.IsZero() {
				continue
			}
			// window + i·period meets [a, b) iff floor((a−e)/p) < i < ceil((b−s)/p).
			da, ok1 := subChecked(st.Interval.Start, window.End)
			db, ok2 := subChecked(st.Interval.End, window.Start)
			if !ok1 || !ok2 {
				// The occurrence meeting this step is further than int64
				// can offset: refuse rather than skip it.
				tooFar = berth.InvalidField("window", window,
					fmt.Sprintf("a reservation at %d is too far from the request for its %d ms period", st.Interval.Start, period))
				return
			}
			lo, hi := floorDiv(da, period)+1, ceilDiv(db, period)-1
			if lo <= hi {
				spans = append(spans, span{lo, hi})
			}
		}
	}
	if es, ok := total.EarliestStart(); ok {
		visit(berth.Interval{Start: es, End: base.Start})
	}
	if le, ok := total.LatestEnd(); ok {
		visit(berth.Interval{Start: base.End, End: le})
	}
	if tooFar != nil {
		return nil, tooFar
	}
	slices.SortFunc(spans, func(a, b span) int { return cmpInt(a.lo, b.lo) })
	var out []int64
	next := int64(math.MinInt64)
	for _, sp := range spans {
		for i := max(sp.lo, next); i <= sp.hi; i++ {
			if len(out) >= maxUnrolledPeriods {
				return nil, berth.InvalidField("period", period,
					fmt.Sprintf("the request meets more than %d instances of its %d ms period", maxUnrolledPeriods, period))
			}
			out = append(out, i)
		}
		next = max(next, sp.hi+1)
	}
	return out, nil
}

// ceilDiv is ⌈t / p⌉ for p > 0.
func ceilDiv(t berth.Time, p berth.Duration) int64 {
	q := t / p
	if t%p != 0 && t > 0 {
		q++
	}
	return q
}

// subChecked is a − b and whether it fits in int64.
func subChecked(a, b int64) (int64, bool) {
	d := a - b
	return d, (b >= 0 && d <= a) || (b < 0 && d > a)
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// constant is capacity over window, undefined elsewhere.
func constant(window berth.Interval, r berth.Resource) (*rle.Series, error) {
	return rle.FromBreakpoints(rle.Breakpoint{Time: window.Start, Value: r}, rle.Breakpoint{Time: window.End, Undefined: true})
}
