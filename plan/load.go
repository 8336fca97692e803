package plan

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/rle"
)

// LoadSteps returns what the plan (or user's reservations, when user is not
// empty) holds over window as consecutive steps covering window exactly,
// zero steps included, equal neighbours merged; periodic reservations are
// unrolled. It is [Plan.CumulativeLoad] / [Plan.UserConsumption] without
// building a series: the cost is O(k log k) for the k steps inside window,
// and nothing is shared with the plan. An empty window gives no steps.
func (p *Plan) LoadSteps(window berth.Interval, user string) ([]rle.Step, error) {
	if !window.Valid() {
		return nil, nil
	}
	p.mu.RLock()
	defer p.mu.RUnlock()
	total, patterns := p.st.total, p.st.patterns
	if user != "" {
		us := p.st.users[user]
		if us == nil {
			return []rle.Step{{Interval: window}}, nil
		}
		total, patterns = us.total, us.patterns
	}
	type event struct {
		t   berth.Time
		r   berth.Resource
		neg bool
	}
	var evs []event
	push := func(iv berth.Interval, r berth.Resource) {
		if r.IsZero() {
			return
		}
		evs = append(evs, event{t: iv.Start, r: r}, event{t: iv.End, r: r, neg: true})
	}
	if total != nil {
		for st := range total.StepsIn(window) {
			push(st.Interval, st.Value)
		}
	}
	for _, per := range sortedPeriods(patterns) {
		k0, k1 := floorDiv(window.Start, per), floorDiv(window.End-1, per)
		if k1-k0+1 > maxUnrolledPeriods {
			return nil, berth.InvalidField("window", window,
				fmt.Sprintf("spans more than %d periods of %d ms", maxUnrolledPeriods, per))
		}
		steps := slices.Collect(patterns[per].StepsIn(berth.Interval{Start: 0, End: per}))
		for k := k0; k <= k1; k++ {
			for _, st := range steps {
				if iv, ok := (berth.Interval{Start: k*per + st.Interval.Start, End: k*per + st.Interval.End}).Intersect(window); ok {
					push(iv, st.Value)
				}
			}
		}
	}
	slices.SortStableFunc(evs, func(a, b event) int { return cmp.Compare(a.t, b.t) })
	out := make([]rle.Step, 0, len(evs)/2+2)
	emit := func(iv berth.Interval, r berth.Resource) {
		if !iv.Valid() {
			return
		}
		if n := len(out); n > 0 && out[n-1].Value.Equal(r) {
			out[n-1].Interval.End = iv.End
			return
		}
		out = append(out, rle.Step{Interval: iv, Value: r})
	}
	var cur berth.Resource
	at := window.Start
	for i := 0; i < len(evs); {
		t := evs[i].t
		emit(berth.Interval{Start: at, End: t}, cur)
		for ; i < len(evs) && evs[i].t == t; i++ {
			if evs[i].neg {
				cur = cur.Sub(evs[i].r)
			} else {
				cur = cur.Add(evs[i].r)
			}
		}
		at = t
	}
	emit(berth.Interval{Start: at, End: window.End}, cur)
	return out, nil
}
