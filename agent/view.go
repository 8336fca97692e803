package agent

import (
	"github.com/berthsched/berth"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/rle"
)

// planAdapter reads a *plan.Plan for the planners, for one placement.
type planAdapter struct {
	p *plan.Plan
	// bufs recycles the buffers the load is read into (nil: none).
	bufs *stepBuffers
}

func newView(p *plan.Plan) planView { return planAdapter{p: p} }

func (v planAdapter) capacity() berth.Resource      { return v.p.Capacity() }
func (v planAdapter) step() berth.Duration          { return v.p.Step() }
func (v planAdapter) calculator() berth.Calculator  { return v.p.Calculator() }
func (v planAdapter) maxAllocation() berth.Resource { return v.p.MaxAllocation() }
func (v planAdapter) minAllocation() berth.Resource { return v.p.MinAllocation() }

// unchangedAvailability is an optional interface of sharing policies:
// AvailableUnchanged reports that Available always returns its input, so
// an agent need not build a series to ask (package policy implements it).
type unchangedAvailability interface {
	AvailableUnchanged() bool
}

// physicalFor reports whether the plan's availability for the reservation
// id is its free capacity as the load steps give it: no policy changing
// availability, and no old version of id held (a zero id holds none).
// The shortcuts that read the load steps directly apply only then.
func physicalFor(p *plan.Plan, id plan.ReservationID) bool {
	if pol := p.Policy(); pol != nil {
		if u, ok := pol.(unchangedAvailability); !ok || !u.AvailableUnchanged() {
			return false
		}
	}
	_, held := p.Reservation(id)
	return !held || id.IsZero()
}

func (v planAdapter) available(user string, old plan.ReservationID, w berth.Interval, period berth.Duration) (*profile, error) {
	return v.availableFor(user, old, w, period, nil)
}

// availableFor is available that may answer errNoStretch when need (nil:
// none) finds no stretch in the plan's physical availability. The test is
// only made where that availability bounds the answer: no period, the old
// version not in the plan, and a policy that leaves availability as it is.
func (v planAdapter) availableFor(user string, old plan.ReservationID, w berth.Interval, period berth.Duration, need *stretchNeed) (*profile, error) {
	if !w.Valid() {
		return &profile{end: w.Start}, nil
	}
	if period != 0 {
		s, err := v.p.AvailableResources(user, old, w, period)
		if err != nil {
			return nil, err
		}
		return profileOf(s, w), nil
	}
	pol := v.p.Policy()
	if need != nil && !physicalFor(v.p, old) {
		need = nil
	}
	prof, err := physicalAvailable(v.p, v.bufs, old, w, need)
	if err != nil {
		return nil, err
	}
	if pol == nil {
		return prof, nil
	}
	if u, ok := pol.(unchangedAvailability); ok && u.AvailableUnchanged() {
		return prof, nil
	}
	in, err := seriesOf(prof)
	if err != nil {
		return nil, err
	}
	out, err := pol.Available(in, v.p, user, old, w)
	if err != nil {
		return nil, err
	}
	if out == in {
		return prof, nil
	}
	return profileOf(out, w), nil
}

func (v planAdapter) loads(old plan.ReservationID, w berth.Interval) (*profile, error) {
	if !w.Valid() {
		return &profile{end: w.Start}, nil
	}
	load, err := loadProfile(v.p, v.bufs, w, false, nil)
	if err != nil {
		return nil, err
	}
	if err := addOld(v.p, old, w, load, true); err != nil {
		return nil, err
	}
	return load, nil
}

func (v planAdapter) planLoads(old plan.ReservationID, contract berth.Interval) (*profile, error) {
	return yarnPlanLoads(v.p, v.bufs, old, contract)
}

func (v planAdapter) release(p *profile) { v.bufs.release(p) }

func (v planAdapter) leastFree(_ string, old plan.ReservationID, w berth.Interval, period berth.Duration) (berth.Resource, bool) {
	if period != 0 || !w.Valid() {
		return berth.Resource{}, false
	}
	if !physicalFor(v.p, old) {
		return berth.Resource{}, false
	}
	peak, err := v.p.PeakLoad(w)
	capacity := v.p.Capacity()
	if err != nil || !peak.FitsIn(capacity) {
		return berth.Resource{}, false
	}
	return capacity.Sub(peak), true
}

func (v planAdapter) freeAt(old plan.ReservationID, t berth.Time) berth.Resource {
	free := v.p.Capacity().Sub(v.p.TotalCommitted(t))
	if a, ok := v.p.Reservation(old); ok && !old.IsZero() {
		free = free.Add(a.ResourcesAt(t))
	}
	return free
}

// seriesOf builds the series of a profile, undefined outside its domain.
func seriesOf(p *profile) (*rle.Series, error) {
	bps := make([]rle.Breakpoint, 0, len(p.ts)+1)
	for i, t := range p.ts {
		bps = append(bps, rle.Breakpoint{Time: t, Value: p.rs[i]})
	}
	bps = append(bps, rle.Breakpoint{Time: p.end, Undefined: true})
	return rle.FromBreakpoints(bps...)
}

// profileOf copies s over w into a profile; undefined stretches inside w
// (which the plan does not produce) count as nothing available.
func profileOf(s *rle.Series, w berth.Interval) *profile {
	p := &profile{end: w.End}
	at := w.Start
	push := func(t berth.Time, r berth.Resource) {
		if n := len(p.ts); n > 0 && p.rs[n-1].Equal(r) {
			return
		}
		p.ts = append(p.ts, t)
		p.rs = append(p.rs, r)
	}
	for st := range s.StepsIn(w) {
		if st.Interval.Start > at {
			push(at, berth.Resource{})
		}
		push(st.Interval.Start, st.Value)
		at = st.Interval.End
	}
	if at < w.End {
		push(at, berth.Resource{})
	}
	return p
}
