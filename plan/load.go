package plan

import (
	"fmt"
	"slices"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/rle"
)

// LoadSteps returns what the plan (or user's reservations, when user is not
// empty) holds over window as consecutive steps covering window exactly,
// zero steps included, equal neighbours merged; periodic reservations are
// unrolled. It is [Plan.CumulativeLoad] / [Plan.UserConsumption] without
// building a series, and nothing is shared with the plan. Without periodic
// reservations it costs O(log n + k) for the k steps inside window (a walk
// of the aggregate series); each period adds O(u log u) for the u pattern
// steps it unrolls inside window. An empty window gives no steps.
func (p *Plan) LoadSteps(window berth.Interval, user string) ([]rle.Step, error) {
	return p.AppendLoadSteps(nil, window, user)
}

// AppendLoadSteps is [Plan.LoadSteps] appending to dst, so that a caller
// in a hot loop (an agent's search, a policy's check) can reuse one buffer:
// without periodic reservations it then allocates nothing. On error dst is
// returned as it was.
func (p *Plan) AppendLoadSteps(dst []rle.Step, window berth.Interval, user string) ([]rle.Step, error) {
	if !window.Valid() {
		return dst, nil
	}
	p.mu.RLock()
	defer p.mu.RUnlock()
	total, patterns := p.st.total, p.st.patterns
	if user != "" {
		us := p.st.users[user]
		if us == nil {
			return append(dst, rle.Step{Interval: window}), nil
		}
		total, patterns = us.total, us.patterns
	}
	out, err := loadSteps(dst, total, patterns, window)
	if err != nil {
		return dst, err
	}
	return out, nil
}

// PeakLoad returns the componentwise maximum of what the plan holds over
// window (zero for an empty window): the largest value of each type among
// the steps of [Plan.LoadSteps]. Without periodic reservations it costs
// O(log n + k) with a small constant for the k breakpoints inside window
// (whole blocks of the series answer from their bounds); with them it
// walks the load steps.
func (p *Plan) PeakLoad(window berth.Interval) (berth.Resource, error) {
	if window.Start > window.End {
		return berth.Resource{}, berth.InvalidField("window", window, "start must not be after end")
	}
	if window.Start == window.End {
		return berth.Resource{}, nil
	}
	p.mu.RLock()
	defer p.mu.RUnlock()
	if len(p.st.patterns) == 0 {
		return p.st.total.Max(window), nil
	}
	steps, err := loadSteps(nil, p.st.total, p.st.patterns, window)
	if err != nil {
		return berth.Resource{}, err
	}
	var peak berth.Resource
	for _, st := range steps {
		peak = berth.ComponentwiseMax(peak, st.Value)
	}
	return peak, nil
}

// loadSteps appends to dst the steps of total plus the unrolled patterns
// over the valid window, covering it exactly, equal neighbours merged.
func loadSteps(dst []rle.Step, total *rle.Series, patterns map[berth.Duration]*rle.Series, window berth.Interval) ([]rle.Step, error) {
	if len(patterns) == 0 {
		// The series is canonical and defined everywhere: its steps inside
		// window are the answer, in order.
		return total.AppendSteps(dst, window), nil
	}
	type event struct {
		t   berth.Time
		r   berth.Resource
		neg bool
	}
	var evs []event
	var peak berth.Resource // the sum of each pattern's largest values bounds their sum
	for _, per := range sortedPeriods(patterns) {
		k0, k1 := floorDiv(window.Start, per), floorDiv(window.End-1, per)
		if k1-k0+1 > maxUnrolledPeriods || k1-k0 < 0 {
			return nil, berth.InvalidField("window", window,
				fmt.Sprintf("spans more than %d periods of %d ms", maxUnrolledPeriods, per))
		}
		steps := slices.Collect(patterns[per].StepsIn(berth.Interval{Start: 0, End: per}))
		var top berth.Resource
		for _, st := range steps {
			top = berth.ComponentwiseMax(top, st.Value)
		}
		if sumOverflows(peak, top) {
			return nil, berth.InvalidField("load", window.Start, "the plan's periodic load overflows int64")
		}
		peak = peak.Add(top)
		for k := k0; k <= k1; k++ {
			for _, st := range steps {
				if st.Value.IsZero() {
					continue
				}

				if iv, ok := (berth.Interval{Start: k*per + st.Interval.Start, End: k*per + st.Interval.End}).Intersect(window); ok {
					evs = append(evs, event{t: iv.Start, r: st.Value}, event{t: iv.End, r: st.Value, neg: true})
				}
			}
		}
	}
	slices.SortStableFunc(evs, func(a, b event) int { return cmpInt(a.t, b.t) })
	n0 := len(dst)
	emit := func(iv berth.Interval, r berth.Resource) {
		if !iv.Valid() {
			return
		}
		if n := len(dst); n > n0 && dst[n-1].Value.Equal(r) {
			dst[n-1].Interval.End = iv.End
			return
		}
		dst = append(dst, rle.Step{Interval: iv, Value: r})
	}
	// Merge the sorted pattern events with the series' steps.
	var per berth.Resource // the periodic part in force
	i := 0
	for st := range total.StepsIn(window) {
		at := st.Interval.Start
		for at < st.Interval.End {
			for ; i < len(evs) && evs[i].t <= at; i++ {
				if evs[i].neg {
					per = per.Sub(evs[i].r)
				} else {
					per = per.Add(evs[i].r)
				}
			}
			next := st.Interval.End
			if i < len(evs) && evs[i].t < next {
				next = evs[i].t
			}
			if sumOverflows(st.Value, per) {
				return nil, berth.InvalidField("load", at, "the plan's load overflows int64 at this time")
			}
			emit(berth.Interval{Start: at, End: next}, st.Value.Add(per))
			at = next
		}
	}
	return dst, nil
}

// loadSeries is the series of total plus the unrolled patterns over window,
// undefined outside it, as the merges YARN uses give it.
func loadSeries(total *rle.Series, patterns map[berth.Duration]*rle.Series, window berth.Interval) (*rle.Series, error) {
	switch {
	case window.Start > window.End:
		return nil, berth.InvalidField("window", window, "start must not be after end")
	case window.Start == window.End:
		return rle.Undefined(), nil
	}
	steps, err := loadSteps(nil, total, patterns, window)
	if err != nil {
		return nil, err
	}
	return seriesOver(steps, window, func(r berth.Resource) berth.Resource { return r })
}

// seriesOver builds the series of f over steps covering window, undefined
// outside window.
func seriesOver(steps []rle.Step, window berth.Interval, f func(berth.Resource) berth.Resource) (*rle.Series, error) {
	bps := make([]rle.Breakpoint, 0, len(steps)+1)
	for _, st := range steps {
		bps = append(bps, rle.Breakpoint{Time: st.Interval.Start, Value: f(st.Value)})
	}
	bps = append(bps, rle.Breakpoint{Time: window.End, Undefined: true})
	return rle.FromBreakpoints(bps...)
}
