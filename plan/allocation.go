package plan

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/rle"
)

// IntervalResource is one entry of an allocation: Resource held over
// Interval. YARN keeps these in a map ReservationInterval → Resource.
type IntervalResource struct {
	// Interval is the half-open time span.
	Interval berth.Interval
	// Resource is held over the whole span.
	Resource berth.Resource
}

// StageInterval is a part of an allocation placed for one stage of its
// definition: Resource held over Interval by stage Stage, an index into
// Definition.Stages. A host running a multi-stage pipeline asks for each
// stage's containers over that stage's intervals. YARN's allocations do
// not say which stage a resource serves.
type StageInterval struct {
	// Stage indexes the definition's stages.
	Stage int
	// Interval is the half-open time span.
	Interval berth.Interval
	// Resource is held over the whole span for the stage.
	Resource berth.Resource
}

// NotAccepted is the [Allocation.AcceptedAt] of an allocation no plan has
// accepted yet (YARN's −1).
const NotAccepted berth.Time = -1

// maxUnrolledPeriods bounds how many occurrences of a periodic allocation
// one query may unroll, so that an unbounded window is an error instead of
// an endless loop.
const maxUnrolledPeriods = 1 << 20

// Allocation is a placed reservation: YARN's ReservationAllocation
// (InMemoryReservationAllocation). Build one with [NewAllocation]; the plan
// stores its own copy on [Plan.AddReservation] and stamps AcceptedAt and
// Queue there. Allocations returned by a plan are shared and must be
// treated as read-only.
//
// A periodic allocation (Definition.Period > 0) repeats its intervals every
// period for ever; its intervals may be given in absolute time (one
// occurrence) or relative to the period, since only their phase matters.
type Allocation struct {
	// ID names the reservation.
	ID ReservationID
	// Definition is the contract the allocation satisfies.
	Definition Definition
	// User owns the reservation.
	User string
	// Queue is the plan (reservable queue) holding it; set by the plan.
	Queue string
	// Start and End bound the reservation, [Start, End): the contract's
	// arrival and deadline as YARN agents set them, not the allocation span.
	Start, End berth.Time
	// Intervals are the resources placed over time, sorted by interval
	// (start, then end), equal intervals summed. Read-only.
	Intervals []IntervalResource
	// Stages says which stage of the definition each part of Intervals
	// serves: every placed stage's intervals, in stage order, then by
	// interval. Summed over time they are Intervals. R_ALL, R_ORDER and
	// R_ORDER_NO_GAP place every stage, R_ANY the one stage that was
	// placed. Berth's agents fill it; it is nil when the allocation's
	// maker did not say ([NewAllocation] takes no stages; a plan checks
	// stages set on the field before accepting them). Read-only.
	Stages []StageInterval
	// Gang records that the allocation holds gangs (YARN's containsGangs);
	// the plan follower caps gang reservations. Agents leave it false, as
	// YARN's do.
	Gang bool
	// AcceptedAt is when the plan accepted it ([NotAccepted] before).
	AcceptedAt berth.Time

	// steps are the allocation over time, canonical (sorted, disjoint,
	// non-zero, equal neighbours merged); for a periodic allocation, the
	// pattern of one period on [0, period). built is set once they are.
	steps []rle.Step
	built bool
	// frozen is a private copy of the intervals, period and window the
	// steps were built from, so the plan can reuse them when the caller did
	// not change them.
	frozen       []IntervalResource
	frozenPeriod berth.Duration
	frozenWindow berth.Interval
	// active is the span booked in the user's active-reservation count
	// when the plan accepted it (kept so removal undoes exactly that).
	active    berth.Interval
	hasActive bool
}

// NewAllocation builds an allocation of user for def under id, bounded by
// window ([Start, End)) and holding intervals. A definition whose
// interpreter is outside the enum is refused ([CheckInterpreter]). The
// intervals are copied,
// sorted, and checked: an inverted interval, a negative resource, a
// non-periodic interval outside window, or a periodic interval longer than
// the period is a *berth.FieldError naming the entry. Empty intervals
// (start == end) hold nothing and are dropped (YARN would record a stray
// zero breakpoint). Zero resources are kept, as YARN keeps them in its map.
func NewAllocation(id ReservationID, user string, def Definition, window berth.Interval, intervals []IntervalResource) (*Allocation, error) {
	if err := CheckInterpreter(def.Interpreter); err != nil {
		return nil, err
	}
	a := &Allocation{ID: id, Definition: def.Clone(), User: user, Start: window.Start, End: window.End,
		AcceptedAt: NotAccepted}
	if window.Start > window.End {
		return nil, berth.InvalidField("allocation.end", window.End, fmt.Sprintf("must not precede start %d", window.Start))
	}
	ivs := make([]IntervalResource, 0, len(intervals))
	for i, e := range intervals {
		switch {
		case e.Interval.Start > e.Interval.End:
			return nil, berth.InvalidField(intervalField(i, "interval"), e.Interval, "start must not exceed end")
		case e.Resource.AnyNegative():
			return nil, berth.InvalidField(intervalField(i, "resource"), e.Resource, "must not be negative")
		case e.Interval.Start == e.Interval.End:
			continue
		}
		ivs = append(ivs, e)
	}
	slices.SortStableFunc(ivs, func(x, y IntervalResource) int { return x.Interval.Compare(y.Interval) })
	// Sum equal intervals, as a map keyed by interval would hold one entry.
	out := ivs[:0]
	for _, e := range ivs {
		if n := len(out); n > 0 && out[n-1].Interval == e.Interval {
			out[n-1].Resource = out[n-1].Resource.Add(e.Resource)
			continue
		}
		out = append(out, e)
	}
	a.Intervals = slices.Clip(out)
	if err := a.build(); err != nil {
		return nil, err
	}
	return a, nil
}

// intervalField names entry i of an allocation's intervals (built only on
// error: formatting is costly on the hot path).
func intervalField(i int, sub string) string {
	return fmt.Sprintf("allocation.intervals[%d].%s", i, sub)
}

// build computes the steps from the intervals: a sweep over their ends,
// O(k log k) for k intervals. It checks what NewAllocation cannot when the
// caller filled the fields directly: non-periodic intervals inside the
// window, periodic ones no longer than the period, no negative resources,
// sums within int64.
func (a *Allocation) build() error {
	if _, err := a.buildSteps(nil); err != nil {
		return err
	}
	a.frozen = slices.Clone(a.Intervals)
	return nil
}

// buildEvent is a change of an allocation's sum: r starts (or ends, neg) at t.
type buildEvent struct {
	t   berth.Time
	r   berth.Resource
	neg bool
}

// buildSteps is build without the frozen copy of the intervals, which the
// caller makes (or shares, when the intervals are private already). evs is
// a scratch buffer, returned for reuse.
func (a *Allocation) buildSteps(evs []buildEvent) ([]buildEvent, error) {
	p := a.Definition.Period
	if p < 0 {
		return evs, berth.InvalidField(fieldRecurrence, p, "must not be negative")
	}
	type event = buildEvent
	evs = slices.Grow(evs[:0], 2*len(a.Intervals)+2)
	push := func(iv berth.Interval, r berth.Resource) {
		evs = append(evs, event{t: iv.Start, r: r}, event{t: iv.End, r: r, neg: true})
	}
	for i, e := range a.Intervals {
		if !e.Interval.Valid() || e.Resource.IsZero() {
			if e.Interval.Start > e.Interval.End {
				return evs, berth.InvalidField(intervalField(i, "interval"), e.Interval, "start must not exceed end")
			}
			continue
		}
		if e.Resource.AnyNegative() {
			return evs, berth.InvalidField(intervalField(i, "resource"), e.Resource, "must not be negative")
		}
		if p == 0 {
			if e.Interval.Start < a.Start || e.Interval.End > a.End {
				return evs, berth.InvalidField(intervalField(i, "interval"), e.Interval,
					fmt.Sprintf("must lie inside the reservation [%d, %d)", a.Start, a.End))
			}
			push(e.Interval, e.Resource)
			continue
		}
		if l := e.Interval.Len(); l < 0 || l > p { // l < 0: the length overflowed
			return evs, berth.InvalidField(intervalField(i, "interval"), e.Interval, fmt.Sprintf("is longer than the period %d", p))
		}
		for _, iv := range phase(e.Interval, p) {
			if iv.Valid() {
				push(iv, e.Resource)
			}
		}
	}
	slices.SortFunc(evs, func(x, y event) int { return cmpInt(x.t, y.t) })
	var steps []rle.Step
	var cur berth.Resource
	for i := 0; i < len(evs); {
		t := evs[i].t
		for ; i < len(evs) && evs[i].t == t; i++ {
			if evs[i].neg {
				cur = cur.Sub(evs[i].r)
				continue
			}
			if sumOverflows(cur, evs[i].r) {
				return evs, berth.InvalidField("allocation.intervals", evs[i].r,
					fmt.Sprintf("the sum at %d overflows int64", t))
			}
			cur = cur.Add(evs[i].r)
		}
		if i == len(evs) {
			break // cur is zero again
		}
		next := evs[i].t
		if n := len(steps); n > 0 && steps[n-1].Interval.End == t && steps[n-1].Value.Equal(cur) {
			steps[n-1].Interval.End = next
			continue
		}
		if !cur.IsZero() {
			steps = append(steps, rle.Step{Interval: berth.Interval{Start: t, End: next}, Value: cur})
		}
	}
	a.steps, a.built = slices.Clip(steps), true
	a.frozenPeriod, a.frozenWindow = p, a.Window()
	return evs, nil
}

// sumOverflows reports whether a + d overflows int64 in some component
// (d is not negative).
func sumOverflows(a, d berth.Resource) bool { return a.AddOverflows(d) }

// builtFromCurrent reports whether the series still matches the exported
// fields (the caller may have changed them since NewAllocation).
func (a *Allocation) builtFromCurrent() bool {
	return a.built && a.frozenPeriod == a.Definition.Period && a.frozenWindow == a.Window() &&
		slices.EqualFunc(a.Intervals, a.frozen, func(x, y IntervalResource) bool {
			return x.Interval == y.Interval && x.Resource.Equal(y.Resource)
		})
}

// phase maps iv (no longer than p) onto [0, p), split in two where it wraps.
func phase(iv berth.Interval, p berth.Duration) []berth.Interval {
	s := floorMod(iv.Start, p)
	e := s + iv.Len()
	if e <= p {
		return []berth.Interval{{Start: s, End: e}}
	}
	return []berth.Interval{{Start: s, End: p}, {Start: 0, End: e - p}}
}

// floorMod is t mod p in [0, p) for p > 0.
func floorMod(t berth.Time, p berth.Duration) berth.Time {
	m := t % p
	if m < 0 {
		m += p
	}
	return m
}

// floorDiv is ⌊t / p⌋ for p > 0.
func floorDiv(t berth.Time, p berth.Duration) int64 {
	q := t / p
	if t%p != 0 && t < 0 {
		q--
	}
	return q
}

// Period is the recurrence of the allocation in ms (0: not periodic).
func (a *Allocation) Period() berth.Duration { return a.Definition.Period }

// IsPeriodic reports whether the allocation repeats.
func (a *Allocation) IsPeriodic() bool { return a.Definition.Period > 0 }

// ContainsGangs reports the Gang flag (YARN's containsGangs).
func (a *Allocation) ContainsGangs() bool { return a.Gang }

// Window returns [Start, End).
func (a *Allocation) Window() berth.Interval { return berth.Interval{Start: a.Start, End: a.End} }

// ResourcesAt returns what the allocation holds at t: zero outside
// [Start, End), else its value at t (at t mod period when periodic), as
// YARN's getResourcesAtTime. O(log k) for k steps.
func (a *Allocation) ResourcesAt(t berth.Time) berth.Resource {
	if t < a.Start || t >= a.End {
		return berth.Resource{}
	}
	if p := a.Period(); p > 0 {
		t = floorMod(t, p)
	}
	return stepAt(a.steps, t)
}

// stepAt is the value of canonical steps at t (zero between them).
func stepAt(steps []rle.Step, t berth.Time) berth.Resource {
	i, _ := slices.BinarySearchFunc(steps, t, func(s rle.Step, t berth.Time) int {
		if s.Interval.End <= t {
			return -1
		}
		if s.Interval.Start > t {
			return 1
		}
		return 0
	})
	if i < len(steps) && steps[i].Interval.Contains(t) {
		return steps[i].Value
	}
	return berth.Resource{}
}

// seriesOfSteps returns canonical steps as a series, zero elsewhere.
func seriesOfSteps(steps []rle.Step) *rle.Series {
	s := rle.New()
	for _, st := range steps {
		_ = s.Add(st.Interval, st.Value) // canonical steps: cannot fail
	}
	return s
}

// Series returns a copy of the allocation over time; for a periodic
// allocation, the pattern of one period on [0, period).
func (a *Allocation) Series() *rle.Series { return seriesOfSteps(a.steps) }

// ResourcesOver returns the allocation over window, zero elsewhere; a
// periodic allocation is unrolled over the window (YARN's
// getResourcesOverTime(start, end)). Unrolling more than 2^20 periods is an
// error of kind berth.ErrInvalidArgument.
func (a *Allocation) ResourcesOver(window berth.Interval) (*rle.Series, error) {
	if p := a.Period(); p > 0 {
		return unrollSteps(a.steps, p, window)
	}
	s := rle.New()
	if !window.Valid() {
		return s, nil
	}
	i, _ := slices.BinarySearchFunc(a.steps, window.Start, func(s rle.Step, t berth.Time) int { return cmpInt(s.Interval.End, t+1) })
	for _, st := range a.steps[i:] {
		iv, ok := st.Interval.Intersect(window)
		if !ok {
			if st.Interval.Start >= window.End {
				break
			}
			continue
		}
		_ = s.Add(iv, st.Value)
	}
	return s, nil
}

// AppendSteps appends to dst the allocation's non-zero steps inside
// window, in time order (unrolled when periodic): the steps of
// [Allocation.ResourcesOver], without building a series for a
// non-periodic allocation (O(log k + m) for the m steps appended). Errors
// are those of ResourcesOver; on error dst is returned as it was.
func (a *Allocation) AppendSteps(dst []rle.Step, window berth.Interval) ([]rle.Step, error) {
	if !window.Valid() {
		return dst, nil
	}
	if a.IsPeriodic() {
		s, err := a.ResourcesOver(window)
		if err != nil {
			return dst, err
		}
		for st := range s.StepsIn(window) {
			if !st.Value.IsZero() {
				dst = append(dst, st)
			}
		}
		return dst, nil
	}
	i, _ := slices.BinarySearchFunc(a.steps, window.Start, func(s rle.Step, t berth.Time) int { return cmpInt(s.Interval.End, t+1) })
	for _, st := range a.steps[i:] {
		if st.Interval.Start >= window.End {
			break
		}
		if iv, ok := st.Interval.Intersect(window); ok && !st.Value.IsZero() {
			dst = append(dst, rle.Step{Interval: iv, Value: st.Value})
		}
	}
	return dst, nil
}

// unroll repeats pattern (defined on [0, p)) every p over window.
func unroll(pattern *rle.Series, p berth.Duration, window berth.Interval) (*rle.Series, error) {
	if !window.Valid() || pattern.IsEmpty() {
		return rle.New(), nil
	}
	return unrollSteps(slices.Collect(pattern.StepsIn(berth.Interval{Start: 0, End: p})), p, window)
}

// unrollSteps repeats steps (on [0, p)) every p over window, zero elsewhere.
func unrollSteps(steps []rle.Step, p berth.Duration, window berth.Interval) (*rle.Series, error) {
	if !window.Valid() || len(steps) == 0 {
		return rle.New(), nil
	}
	k0, k1 := floorDiv(window.Start, p), floorDiv(window.End-1, p)
	if k1-k0+1 > maxUnrolledPeriods || k1-k0 < 0 {
		return nil, berth.InvalidField("window", window,
			fmt.Sprintf("spans more than %d periods of %d ms", maxUnrolledPeriods, p))
	}
	bps := make([]rle.Breakpoint, 1, 2*len(steps)*int(min(k1-k0+1, 64))+2)
	bps[0] = rle.Breakpoint{Time: berth.MinTime}
	for k := k0; k <= k1; k++ {
		base := k * p
		for _, st := range steps {
			iv, ok := berth.Interval{Start: base + st.Interval.Start, End: base + st.Interval.End}.Intersect(window)
			if !ok {
				continue
			}
			if last := &bps[len(bps)-1]; last.Time == iv.Start {
				last.Value = st.Value
			} else {
				bps = append(bps, rle.Breakpoint{Time: iv.Start, Value: st.Value})
			}
			bps = append(bps, rle.Breakpoint{Time: iv.End})
		}
	}
	if last := bps[len(bps)-1]; last.Time != window.End {
		bps = append(bps, rle.Breakpoint{Time: window.End})
	}
	return rle.FromBreakpoints(bps...)
}

// Compare orders allocations as YARN's getAllReservations does: later
// acceptance first, then larger sequence first; Berth breaks the remaining
// ties on the larger cluster timestamp first, so distinct ids never compare
// equal (YARN's TreeSet would collapse them). A nil allocation sorts last.
func (a *Allocation) Compare(o *Allocation) int {
	switch {
	case a == nil || o == nil:
		return cmpNil(a == nil, o == nil)
	case a.AcceptedAt > o.AcceptedAt:
		return -1
	case a.AcceptedAt < o.AcceptedAt:
		return 1
	}
	return -a.ID.Compare(o.ID)
}

// cmpNil orders nil allocations after every other (two nil are equal).
func cmpNil(aNil, oNil bool) int {
	switch {
	case aNil && oNil:
		return 0
	case aNil:
		return 1
	}
	return -1
}

// Equal compares the identity and content of two allocations: id, user,
// queue, window, gang flag, acceptance time, definition, intervals and
// stages. A nil allocation equals only nil.
func (a *Allocation) Equal(o *Allocation) bool {
	if a == nil || o == nil {
		return a == o
	}
	return a.ID == o.ID && a.User == o.User && a.Queue == o.Queue && a.Start == o.Start &&
		a.End == o.End && a.Gang == o.Gang && a.AcceptedAt == o.AcceptedAt &&
		a.Definition.Equal(o.Definition) &&
		slices.EqualFunc(a.Intervals, o.Intervals, func(x, y IntervalResource) bool {
			return x.Interval == y.Interval && x.Resource.Equal(y.Resource)
		}) &&
		slices.EqualFunc(a.Stages, o.Stages, func(x, y StageInterval) bool {
			return x.Stage == y.Stage && x.Interval == y.Interval && x.Resource.Equal(y.Resource)
		})
}

// StagesAt returns the parts of Stages holding resources at t, in stage
// order (for a periodic allocation, those covering t's phase of the
// period): which stage to run, and with what, at t. Nil when the
// allocation does not say.
func (a *Allocation) StagesAt(t berth.Time) []StageInterval {
	var out []StageInterval
	p := a.Definition.Period
	for _, s := range a.Stages {
		if s.Resource.IsZero() {
			continue
		}
		if p <= 0 {
			if s.Interval.Start <= t && t < s.Interval.End {
				out = append(out, s)
			}
			continue
		}
		at := floorMod(t, p)
		for _, iv := range phase(s.Interval, p) {
			if iv.Start <= at && at < iv.End {
				out = append(out, s)
				break
			}
		}
	}
	return out
}

// checkStages checks a.Stages against the definition and the built
// intervals: stage indexes in range, intervals not inverted, resources not
// negative, and their sum over time the allocation's own (so the stages
// account for every resource, and for no more). O(k log k) for k parts;
// nothing to do without stages.
func (a *Allocation) checkStages() error {
	if len(a.Stages) == 0 {
		return nil
	}
	ivs := make([]IntervalResource, len(a.Stages))
	for i, s := range a.Stages {
		if s.Stage < 0 || s.Stage >= len(a.Definition.Stages) {
			return berth.InvalidField(stageField(i, "stage"), s.Stage,
				fmt.Sprintf("the definition has %d stages", len(a.Definition.Stages)))
		}
		ivs[i] = IntervalResource{Interval: s.Interval, Resource: s.Resource}
	}
	sum := Allocation{Definition: Definition{Period: a.Definition.Period}, Start: a.Start, End: a.End, Intervals: ivs}
	if _, err := sum.buildSteps(nil); err != nil {
		var fe *berth.FieldError
		if errors.As(err, &fe) {
			fe.Field = strings.Replace(fe.Field, "allocation.intervals", "allocation.stages", 1)
		}
		return err
	}
	if !slices.EqualFunc(sum.steps, a.steps, func(x, y rle.Step) bool { return x.Interval == y.Interval && x.Value.Equal(y.Value) }) {
		return berth.InvalidField("allocation.stages", len(a.Stages), "the stages' parts do not add up to the allocation's intervals")
	}
	return nil
}

func stageField(i int, sub string) string {
	return fmt.Sprintf("allocation.stages[%d].%s", i, sub)
}

// String is a short form for logs.
func (a *Allocation) String() string {
	return fmt.Sprintf("%v user %q [%d, %d) %d intervals", a.ID, a.User, a.Start, a.End, len(a.Intervals))
}
