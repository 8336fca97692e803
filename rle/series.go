package rle

import (
	"fmt"
	"iter"
	"math"
	"strings"

	"github.com/berthsched/berth"
	"github.com/google/btree"
)

// Series is a step function from time to resources: YARN's
// RLESparseResourceAllocation. At every time it holds either a resource or
// nothing ("undefined", YARN's null; see the package documentation).
//
// The zero value is an empty series, zero everywhere, ready to use; so is
// [New]. Series built by Add and Remove alone are defined everywhere.
//
// A Series is a value owned by its caller and is not safe for concurrent use:
// readers may run in parallel, but any mutation — and [Series.Clone], which
// marks the storage as shared — needs exclusive access (the plan's lock).
// Use it through a pointer and copy it with Clone, never by assigning the
// struct: two struct copies would change each other's storage. The zero
// value is ready to use: the empty series, zero everywhere, as [New]
// returns.
type Series struct {
	tree    *btree.BTreeG[item]
	own     *owner
	length  int
	scratch []item
	// bmax overrides the block capacity (tests only; 0 is maxBlock).
	bmax int
	// hiMem and hiVc bound the memory and vcores of every value from above
	// (a watermark that only Add raises), sparing the overflow check.
	hiMem, hiVc int64
}

// Breakpoint is one entry of a series' canonical form: from Time on, until
// the next breakpoint, the series is Value, or undefined when Undefined is
// set. Before the first breakpoint a series is zero.
type Breakpoint struct {
	Time      berth.Time
	Value     berth.Resource
	Undefined bool
}

// same reports whether two breakpoints carry the same value.
func (p Breakpoint) same(o Breakpoint) bool {
	if p.Undefined || o.Undefined {
		return p.Undefined == o.Undefined
	}
	return p.Value.Equal(o.Value)
}

// Step is a constant, defined piece of a series: Value over Interval.
type Step struct {
	Interval berth.Interval
	Value    berth.Resource
}

// New returns an empty series (zero everywhere).
func New() *Series { return &Series{} }

// Undefined returns a series that is undefined everywhere: YARN's empty
// allocation as seen by merge, where an operand with no data leaves the
// other operand's value.
func Undefined() *Series {
	s := &Series{}
	s.set(Breakpoint{Time: berth.MinTime, Undefined: true})
	return s
}

// FromBreakpoints builds a series from breakpoints in strictly increasing
// time, like YARN's map constructor: the series is undefined before the
// first breakpoint (unless it is at MinTime), and each value holds until the
// next breakpoint, the last one for ever. The result is canonical (repeated
// values are dropped). Non-increasing times are an error.
func FromBreakpoints(bps ...Breakpoint) (*Series, error) {
	var bd builder
	if len(bps) > 0 && bps[0].Time != berth.MinTime {
		bd.push(Breakpoint{Time: berth.MinTime, Undefined: true})
	}
	for i, p := range bps {
		if i > 0 && p.Time <= bps[i-1].Time {
			return nil, berth.InvalidField(fmt.Sprintf("breakpoints[%d].time", i), p.Time, "times must be strictly increasing")
		}
		bd.push(p)
	}
	return bd.done(), nil
}

// Constant returns a series that is r on [iv.Start, iv.End) and zero
// elsewhere (an empty series when r is zero). An invalid interval is an error.
func Constant(iv berth.Interval, r berth.Resource) (*Series, error) {
	s := New()
	if err := s.Add(iv, r); err != nil {
		return nil, err
	}
	return s, nil
}

// ---- mutation ----

func checkInterval(iv berth.Interval) error {
	if !iv.Valid() {
		return berth.InvalidField("interval", iv, "start must be before end")
	}
	return nil
}

func checkResource(r berth.Resource) error {
	if r.AnyNegative() {
		return berth.InvalidField("resource", r, "must not be negative")
	}
	return nil
}

// Add adds r over iv. Undefined parts of iv count as zero. An empty or
// inverted interval, a negative resource, or a sum that would overflow int64
// is an error and leaves the series unchanged; a zero resource is a no-op.
func (s *Series) Add(iv berth.Interval, r berth.Resource) error {
	if err := checkInterval(iv); err != nil {
		return err
	}
	if err := checkResource(r); err != nil {
		return err
	}
	if r.IsZero() {
		return nil
	}
	// The watermark bounds every value from above, so the exact (slower)
	// overflow check runs only near the int64 limit.
	exact := r.HasExtras() || s.hiMem > math.MaxInt64-r.Memory || s.hiVc > math.MaxInt64-r.VCores
	if exact {
		var bad Breakpoint
		over := false
		s.scan(iv.Start, iv.End, func(b *block) bool {
			return b.nDef() == 0 || (b.plain() && !overflows(b.hiR(), r))
		}, func(p Breakpoint) bool {
			if !p.Undefined && overflows(p.Value, r) {
				bad, over = p, true
				return false
			}
			return true
		})
		if over {
			return &berth.FieldError{Field: "resource", Value: r, Reason: fmt.Sprintf("adding it at time %d to %v would overflow", bad.Time, bad.Value)}
		}
	}
	s.apply(iv, r)
	if exact {
		s.rewater()
	} else {
		s.hiMem += r.Memory
		s.hiVc += r.VCores
	}
	return nil
}

// rewater recomputes the watermark exactly.
func (s *Series) rewater() {
	s.hiMem, s.hiVc = 0, 0
	if s.tree == nil {
		return
	}
	s.tree.Ascend(func(it item) bool {
		if b := it.b; b.nDef() > 0 {
			h := b.hiR()
			s.hiMem, s.hiVc = max(s.hiMem, h.Memory), max(s.hiVc, h.VCores)
		}
		return true
	})
}

// Remove subtracts r over iv. Removing more than is present anywhere in iv
// (undefined counts as zero) is a *[RemoveError] naming the first such time;
// like every other error it leaves the series unchanged. A zero resource is
// a no-op.
func (s *Series) Remove(iv berth.Interval, r berth.Resource) error {
	if err := checkInterval(iv); err != nil {
		return err
	}
	if err := checkResource(r); err != nil {
		return err
	}
	if r.IsZero() {
		return nil
	}
	if err := s.applyRange(iv, r.Neg(), true); err != nil {
		return err
	}
	return nil
}

// apply adds d (validated, non-zero) over iv and restores canonical form.
func (s *Series) apply(iv berth.Interval, d berth.Resource) { s.applyRange(iv, d, false) }

// canonicalize drops every redundant breakpoint with time in [from, to].
func (s *Series) canonicalize(from, to berth.Time) {
	var drop []berth.Time
	prev := s.before(from)
	for p := range s.Breakpoints() {
		if p.Time < from {
			continue
		}
		if p.Time > to {
			break
		}
		if p.same(prev) {
			drop = append(drop, p.Time)
			continue
		}
		prev = p
	}
	for _, t := range drop {
		s.del(t)
	}
}

// ---- queries ----

// At returns the value at t: zero where the series is undefined (YARN's
// getCapacityAtTime). It allocates nothing for memory+vcores resources.
func (s *Series) At(t berth.Time) berth.Resource {
	v, _ := s.lookup(t)
	return v
}

// Lookup returns the value at t and whether the series is defined there.
func (s *Series) Lookup(t berth.Time) (berth.Resource, bool) { return s.lookup(t) }

// Len returns the number of breakpoints.
func (s *Series) Len() int { return s.length }

// IsEmpty reports whether the series is zero wherever it is defined (so At
// is zero everywhere), as YARN's isEmpty does for a fully removed allocation.
func (s *Series) IsEmpty() bool {
	if s.tree == nil {
		return true
	}
	empty := true
	s.tree.Ascend(func(it item) bool {
		b := it.b
		if b.nDef() == 0 {
			return true
		}
		if !b.plain() {
			for i := range b.times {
				if b.defined(i) && !b.value(i).IsZero() {
					empty = false
				}
			}
		} else if !b.loR().IsZero() || !b.hiR().IsZero() {
			empty = false
		}
		return empty
	})
	return empty
}

// EarliestStart returns the first time at which the series is defined and
// not zero; ok is false when the series is empty.
func (s *Series) EarliestStart() (berth.Time, bool) {
	for p := range s.Breakpoints() {
		if !p.Undefined && !p.Value.IsZero() {
			return p.Time, true
		}
	}
	return 0, false
}

// LatestEnd returns the end of the last defined, non-zero piece (MaxTime if
// it never ends); ok is false when the series is empty.
func (s *Series) LatestEnd() (berth.Time, bool) {
	if s.tree == nil {
		return 0, false
	}
	end, found := berth.MaxTime, false
	s.tree.Descend(func(it item) bool {
		b := it.b
		for i := len(b.times) - 1; i >= 0; i-- {
			p := b.at(i)
			if !p.Undefined && !p.Value.IsZero() {
				found = true
				return false
			}
			end = p.Time
		}
		return true
	})
	if !found {
		return 0, false
	}
	return end, true
}

// Breakpoints iterates over the canonical breakpoints in time order.
func (s *Series) Breakpoints() iter.Seq[Breakpoint] {
	return func(yield func(Breakpoint) bool) {
		if s.tree == nil {
			return
		}
		s.tree.Ascend(func(it item) bool {
			b := it.b
			for i := range b.times {
				if !yield(b.at(i)) {
					return false
				}
			}
			return true
		})
	}
}

// Steps iterates, in time order, over the defined pieces between
// breakpoints, zero pieces between allocations included (YARN's
// toIntervalMap). The implicit zero before the first breakpoint and after a
// last breakpoint of zero are not steps; a non-zero last value gives a step
// ending at MaxTime.
func (s *Series) Steps() iter.Seq[Step] {
	return func(yield func(Step) bool) {
		var prev Breakpoint
		has := false
		for p := range s.Breakpoints() {
			if has && !prev.Undefined {
				if !yield(Step{Interval: berth.Interval{Start: prev.Time, End: p.Time}, Value: prev.Value}) {
					return
				}
			}
			prev, has = p, true
		}
		if has && !prev.Undefined && !prev.Value.IsZero() && prev.Time < berth.MaxTime {
			yield(Step{Interval: berth.Interval{Start: prev.Time, End: berth.MaxTime}, Value: prev.Value})
		}
	}
}

// StepsIn iterates over the defined pieces of the series inside iv, clipped
// to iv, zero pieces included: together they cover every point of iv where
// the series is defined. An empty or inverted iv yields nothing.
func (s *Series) StepsIn(iv berth.Interval) iter.Seq[Step] {
	return func(yield func(Step) bool) { s.eachStep(iv, yield) }
}

// Min returns the componentwise minimum of the defined values over the
// half-open iv (zero if iv is empty or the series is undefined on all of it).
// YARN's getMinimumCapacityInInterval also counts the value starting at the
// end of the interval; this one does not.
func (s *Series) Min(iv berth.Interval) berth.Resource {
	return s.bound(iv, true)
}

// Max returns the componentwise maximum of the defined values over the
// half-open iv (zero if iv is empty or the series is undefined on all of it).
func (s *Series) Max(iv berth.Interval) berth.Resource {
	return s.bound(iv, false)
}

func (s *Series) bound(iv berth.Interval, lowest bool) berth.Resource {
	var acc berth.Resource
	has := false
	take := func(v berth.Resource) {
		switch {
		case !has:
			acc, has = v, true
		case v.HasExtras() || acc.HasExtras():
			if lowest {
				acc = berth.ComponentwiseMin(acc, v)
			} else {
				acc = berth.ComponentwiseMax(acc, v)
			}
		case lowest:
			acc.Memory = min(acc.Memory, v.Memory)
			acc.VCores = min(acc.VCores, v.VCores)
		default:
			acc.Memory = max(acc.Memory, v.Memory)
			acc.VCores = max(acc.VCores, v.VCores)
		}
	}
	s.scanBlocks(iv.Start, iv.End, func() bool {
		take(berth.Resource{})
		return true
	}, func(b *block) bool {
		if b.undefinedCount > 0 || !b.plain() {
			return false
		}
		if lowest {
			take(b.loR())
		} else {
			take(b.hiR())
		}
		return true
	}, func(b *block, i, j int) bool {
		if b.undefined == nil && b.plain() {
			// bound the stored values first, then add lazy once
			r := b.values[i]
			for _, v := range b.values[i+1 : j] {
				if lowest {
					r.m, r.v = min(r.m, v.m), min(r.v, v.v)
				} else {
					r.m, r.v = max(r.m, v.m), max(r.v, v.v)
				}
			}
			take(berth.Resource{Memory: r.m + b.lazy.m, VCores: r.v + b.lazy.v})
			return true
		}
		for k := i; k < j; k++ {
			if b.defined(k) {
				take(b.value(k))
			}
		}
		return true
	})
	return acc
}

// Integral returns the area under the series over iv, in resource × ms,
// undefined parts counting zero. It is exact: see [Area].
func (s *Series) Integral(iv berth.Interval) Area {
	var a Area
	for st := range s.StepsIn(iv) {
		a = a.addProduct(st.Value, st.Interval.Len())
	}
	return a
}

// MaxSampled is YARN's getMaximumPeriodicCapacity(tick, every): the
// componentwise maximum of the values at tick, tick+every, … up to the last
// breakpoint (zero when tick is after it). Undefined samples are skipped.
// Samples are not visited one by one: the cost is in the breakpoints.
func (s *Series) MaxSampled(tick berth.Time, every berth.Duration) (berth.Resource, error) {
	if every <= 0 {
		return berth.Resource{}, berth.InvalidField("every", every, "must be positive")
	}
	var acc berth.Resource
	if s.length == 0 {
		return acc, nil
	}
	last, _ := s.tree.Max()
	lastT := last.b.times[len(last.b.times)-1]
	if tick > lastT {
		return acc, nil
	}
	// Every piece [a, b) holding a sample point contributes its value; the
	// range ends just after the last breakpoint.
	for st := range s.StepsIn(berth.Interval{Start: tick, End: satAdd(lastT, 1)}) {
		// the first sample at or after the piece's start (a ≥ tick)
		a, first := st.Interval.Start, st.Interval.Start
		if rem := (a - tick) % every; rem != 0 {
			first = satAdd(a, every-rem)
		}
		if first < st.Interval.End {
			acc = berth.ComponentwiseMax(acc, st.Value)
		}
	}
	return acc, nil
}

// ---- copies ----

// Clone returns a copy that shares storage with s until either is changed
// (copy on write, O(1)). Clone marks the storage of s as shared, so it needs
// the same exclusive access as a mutation of s.
func (s *Series) Clone() *Series {
	c := &Series{length: s.length, hiMem: s.hiMem, hiVc: s.hiVc, bmax: s.bmax}
	if s.tree != nil {
		c.tree = s.tree.Clone()
		c.own = new(owner)
		s.own = new(owner)
	}
	return c
}

// Clip returns a copy of s over iv and zero elsewhere (YARN's
// getRangeOverlapping, without its extra breakpoints outside iv). An empty or
// inverted iv gives an empty series.
func (s *Series) Clip(iv berth.Interval) *Series {
	var bd builder
	if !iv.Valid() {
		return bd.done()
	}
	s.scan(iv.Start, iv.End, nil, func(p Breakpoint) bool {
		bd.push(p)
		return true
	})
	bd.push(Breakpoint{Time: iv.End})
	return bd.done()
}

// Shift returns a copy of s moved by d in time. A breakpoint at MinTime
// (the series' head) stays there; times that would overflow saturate at
// MinTime or MaxTime, where the later breakpoint wins.
func (s *Series) Shift(d berth.Duration) *Series {
	ps := make([]Breakpoint, 0, s.length)
	for p := range s.Breakpoints() {
		if p.Time != berth.MinTime {
			p.Time = satAdd(p.Time, d)
		}
		if len(ps) > 0 && ps[len(ps)-1].Time == p.Time {
			ps[len(ps)-1] = p
			continue
		}
		ps = append(ps, p)
	}
	var bd builder
	for _, p := range ps {
		bd.push(p)
	}
	return bd.done()
}

// Equal reports whether s and o are the same function (definedness
// included). Thanks to the canonical form this compares breakpoints. A nil
// o is an empty series.
func (s *Series) Equal(o *Series) bool {
	if o == nil {
		o = &Series{}
	}
	if s.length != o.length {
		return false
	}
	a, b := s.list(), o.list()
	for i := range a {
		if a[i].Time != b[i].Time || !a[i].same(b[i]) {
			return false
		}
	}
	return true
}

func (s *Series) list() []Breakpoint {
	out := make([]Breakpoint, 0, s.length)
	for p := range s.Breakpoints() {
		out = append(out, p)
	}
	return out
}

// String formats the breakpoints as YARN's map notation, e.g.
// "{10: <memory:5, vCores:5>, 20: null}"; long series are summarised.
func (s *Series) String() string {
	if s.length > 100 {
		first, _ := s.tree.Min()
		last, _ := s.tree.Max()
		return fmt.Sprintf("{%d breakpoints from %d to %d}", s.length, first.first, last.b.times[len(last.b.times)-1])
	}
	var b strings.Builder
	b.WriteByte('{')
	i := 0
	for p := range s.Breakpoints() {
		if i > 0 {
			b.WriteString(", ")
		}
		i++
		switch p.Time {
		case berth.MinTime:
			b.WriteString("MIN")
		case berth.MaxTime:
			b.WriteString("MAX")
		default:
			fmt.Fprintf(&b, "%d", p.Time)
		}
		b.WriteString(": ")
		if p.Undefined {
			b.WriteString("null")
		} else {
			b.WriteString(p.Value.String())
		}
	}
	b.WriteByte('}')
	return b.String()
}

// ---- helpers ----

// builder appends breakpoints in increasing time into a new series, in
// canonical form.
type builder struct {
	series  *Series
	current *block
	last    Breakpoint
	started bool
}

func (bd *builder) push(p Breakpoint) {
	prev := bd.last
	if !bd.started {
		prev = Breakpoint{} // the default before any breakpoint: zero
	}
	if p.same(prev) {
		return
	}
	if bd.series == nil {
		bd.series = &Series{}
		bd.series.ensure()
	}
	if bd.current == nil || len(bd.current.times) >= buildBlock {
		bd.current = &block{own: bd.series.own, times: make([]berth.Time, 0, 8), values: make([]mv, 0, 8)}
		bd.series.tree.ReplaceOrInsert(item{first: p.Time, b: bd.current})
	}
	bd.current.insertAt(len(bd.current.times), p)
	bd.series.length++
	if !p.Undefined {
		bd.series.hiMem, bd.series.hiVc = max(bd.series.hiMem, p.Value.Memory), max(bd.series.hiVc, p.Value.VCores)
	}
	bd.last, bd.started = p, true
}

func (bd *builder) done() *Series {
	if bd.series == nil {
		return &Series{}
	}
	return bd.series
}

// overflows reports whether a + d overflows some component, for d ≥ 0.
func overflows(a, d berth.Resource) bool {
	if a.Memory > math.MaxInt64-d.Memory || a.VCores > math.MaxInt64-d.VCores {
		return true
	}
	for _, q := range d.Extras() {
		if a.Extra(q.Name) > math.MaxInt64-q.Value {
			return true
		}
	}
	return false
}

// satAdd returns t + d saturated to [MinTime, MaxTime].
func satAdd(t berth.Time, d berth.Duration) berth.Time {
	r := t + d
	if d > 0 && r < t {
		return berth.MaxTime
	}
	if d < 0 && r > t {
		return berth.MinTime
	}
	return r
}
