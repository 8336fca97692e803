package rle

import (
	"fmt"

	"github.com/berthsched/berth"
)

// Periodic is a pattern of resources that repeats every period: YARN's
// PeriodicRLESparseResourceAllocation. The pattern lives on [0, period); the
// value at any time t is the pattern's value at t mod period (the floor
// modulo, so negative times work too).
//
// Like [Series], a Periodic is a value owned by its caller: not safe for
// concurrent mutation, and Clone needs exclusive access. Only
// [NewPeriodic] and [NewPeriodicFrom] make a usable Periodic: the zero
// value has no period and is not one (its methods panic).
type Periodic struct {
	period  berth.Duration
	pattern Series
}

// NewPeriodic returns an empty pattern of the given period (> 0).
func NewPeriodic(period berth.Duration) (*Periodic, error) {
	if period <= 0 {
		return nil, berth.InvalidField("period", period, "must be positive")
	}
	return &Periodic{period: period}, nil
}

// NewPeriodicFrom folds a series into a pattern of the given period (YARN's
// PeriodicRLESparseResourceAllocation(rle, period) constructor): every
// defined piece [a, b) of s adds its value at [a mod p, b mod p), wrapping
// around the period end, and a piece longer than the period adds to the
// whole period once per full period. YARN loses the part that wraps around
// (bug); this keeps it. Negative values and a non-zero value that never ends
// are errors.
func NewPeriodicFrom(s *Series, period berth.Duration) (*Periodic, error) {
	if s == nil {
		return nil, berth.InvalidField("series", nil, "must not be nil")
	}
	p, err := NewPeriodic(period)
	if err != nil {
		return nil, err
	}
	for st := range s.Steps() {
		if st.Value.IsZero() {
			continue
		}
		if st.Interval.End == berth.MaxTime || st.Interval.Start == berth.MinTime {
			return nil, berth.InvalidField("series", st.Interval, "a periodic pattern needs bounded pieces")
		}
		if err := p.fold(st.Interval, st.Value); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// fold adds r over the image of iv modulo the period.
func (p *Periodic) fold(iv berth.Interval, r berth.Resource) error {
	l := iv.Len()
	if l < 0 { // the length overflowed int64: more than 2^63 ms
		return berth.InvalidField("interval", iv, "too long to fold")
	}
	if full := l / p.period; full > 0 {
		if err := p.pattern.Add(berth.Interval{Start: 0, End: p.period}, r.MulInt(full)); err != nil {
			return err
		}
	}
	rem := l % p.period
	if rem == 0 {
		return nil
	}
	a := p.mod(iv.Start)
	if a+rem <= p.period {
		return p.pattern.Add(berth.Interval{Start: a, End: a + rem}, r)
	}
	if err := p.pattern.Add(berth.Interval{Start: a, End: p.period}, r); err != nil {
		return err
	}
	return p.pattern.Add(berth.Interval{Start: 0, End: a + rem - p.period}, r)
}

// Period returns the period.
func (p *Periodic) Period() berth.Duration { return p.period }

func (p *Periodic) mod(t berth.Time) berth.Time {
	m := t % p.period
	if m < 0 {
		m += p.period
	}
	return m
}

func (p *Periodic) checkInPeriod(iv berth.Interval) error {
	if err := checkInterval(iv); err != nil {
		return err
	}
	if iv.Start < 0 || iv.End > p.period {
		return berth.InvalidField("interval", iv, fmt.Sprintf("must lie within the period [0, %d)", p.period))
	}
	return nil
}

// Add adds r over iv, which must lie within [0, period] (YARN returns false
// there; this is an error).
func (p *Periodic) Add(iv berth.Interval, r berth.Resource) error {
	if err := p.checkInPeriod(iv); err != nil {
		return err
	}
	return p.pattern.Add(iv, r)
}

// Remove subtracts r over iv, which must lie within [0, period]. Removing
// more than present is a *[RemoveError] (YARN returns false).
func (p *Periodic) Remove(iv berth.Interval, r berth.Resource) error {
	if err := p.checkInPeriod(iv); err != nil {
		return err
	}
	return p.pattern.Remove(iv, r)
}

// At returns the value at t mod period. YARN uses Java's remainder, so a
// negative t reads before the pattern (zero); this uses the floor modulo.
func (p *Periodic) At(t berth.Time) berth.Resource { return p.pattern.At(p.mod(t)) }

// IsEmpty reports whether the pattern is zero everywhere.
func (p *Periodic) IsEmpty() bool { return p.pattern.IsEmpty() }

// Pattern returns a copy of one period of the pattern, on [0, period).
func (p *Periodic) Pattern() *Series { return p.pattern.Clip(berth.Interval{Start: 0, End: p.period}) }

// MaxOver returns the componentwise maximum of the values over the absolute
// half-open window (zero for an empty window).
func (p *Periodic) MaxOver(iv berth.Interval) berth.Resource {
	return p.over(iv, (*Series).Max, berth.ComponentwiseMax)
}

// MinOver returns the componentwise minimum of the values over the absolute
// half-open window (zero for an empty window).
func (p *Periodic) MinOver(iv berth.Interval) berth.Resource {
	return p.over(iv, (*Series).Min, berth.ComponentwiseMin)
}

func (p *Periodic) over(iv berth.Interval, f func(*Series, berth.Interval) berth.Resource, join func(a, b berth.Resource) berth.Resource) berth.Resource {
	if !iv.Valid() {
		return berth.Resource{}
	}
	l := iv.Len()
	if l < 0 || l >= p.period {
		return f(&p.pattern, berth.Interval{Start: 0, End: p.period})
	}
	a := p.mod(iv.Start)
	if a+l <= p.period {
		return f(&p.pattern, berth.Interval{Start: a, End: a + l})
	}
	return join(f(&p.pattern, berth.Interval{Start: a, End: p.period}), f(&p.pattern, berth.Interval{Start: 0, End: a + l - p.period}))
}

// MaxSampled is YARN's periodic getMaximumPeriodicCapacity(tick, every):
// with every < period, the maximum of the pattern sampled at tick mod
// period, then every `every` ms up to the pattern's last breakpoint;
// otherwise the value at tick.
func (p *Periodic) MaxSampled(tick berth.Time, every berth.Duration) (berth.Resource, error) {
	if every <= 0 {
		return berth.Resource{}, berth.InvalidField("every", every, "must be positive")
	}
	if every < p.period {
		return p.pattern.MaxSampled(p.mod(tick), every)
	}
	return p.At(tick), nil
}

// Unroll returns the pattern repeated over the absolute window iv, zero
// outside it (YARN's periodic getRangeOverlapping; YARN takes the phase 0
// for a negative start, this uses the true phase). Its size, and so its
// cost, is proportional to the number of periods in iv times the pattern's
// breakpoints: a window of more than MaxUnrolledPeriods periods is refused
// (a *berth.FieldError naming "window") rather than unrolled until memory
// runs out.
func (p *Periodic) Unroll(iv berth.Interval) (*Series, error) {
	var bd builder
	if !iv.Valid() || p.pattern.IsEmpty() {
		return bd.done(), nil
	}
	if periods := floorDiv(iv.End-1, p.period) - floorDiv(iv.Start, p.period); periods < 0 || periods >= MaxUnrolledPeriods {
		return nil, berth.InvalidField("window", iv, fmt.Sprintf("spans more than %d periods of %d ms", MaxUnrolledPeriods, p.period))
	}
	steps := make([]Step, 0, p.pattern.Len()+1)
	for st := range p.pattern.StepsIn(berth.Interval{Start: 0, End: p.period}) {
		steps = append(steps, st)
	}
	// The rest of the period holding iv.Start, mapped from its phase (no
	// period start is computed, so nothing saturates near MinTime) ...
	phase := p.mod(iv.Start)
	for st := range p.pattern.StepsIn(berth.Interval{Start: phase, End: p.period}) {
		a := satAdd(iv.Start, st.Interval.Start-phase)
		if a >= iv.End {
			break
		}
		bd.push(Breakpoint{Time: a, Value: st.Value})
	}
	// ... then whole periods.
	for off := satAdd(iv.Start, p.period-phase); off < iv.End && off != berth.MaxTime; off = satAdd(off, p.period) {
		for _, st := range steps {
			a := satAdd(off, st.Interval.Start)
			if a >= iv.End {
				break
			}
			bd.push(Breakpoint{Time: a, Value: st.Value})
		}
	}
	bd.push(Breakpoint{Time: iv.End})
	return bd.done(), nil
}

// MaxUnrolledPeriods bounds the periods [Periodic.Unroll] repeats.
const MaxUnrolledPeriods = 1 << 20

// floorDiv is t / d rounded toward −∞ (d > 0).
func floorDiv(t berth.Time, d berth.Duration) int64 {
	q := t / d
	if t%d != 0 && t < 0 {
		q--
	}
	return q
}

// Clone returns a copy sharing storage until either changes (copy on
// write); like [Series.Clone] it needs exclusive access to p.
func (p *Periodic) Clone() *Periodic {
	return &Periodic{period: p.period, pattern: *p.pattern.Clone()}
}

// Equal reports whether both have the same period and pattern (nil equals
// only nil).
func (p *Periodic) Equal(o *Periodic) bool {
	if p == nil || o == nil {
		return p == o
	}
	return p.period == o.period && p.pattern.Equal(&o.pattern)
}

// String formats the period and the pattern.
func (p *Periodic) String() string {
	return fmt.Sprintf("Period: %d %s", p.period, p.pattern.String())
}
