package agent

import (
	"sort"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/rle"
)

// loadsMemo is the view of one portfolio decision over a definition of
// several stages. Its planners (and every stage tried of an R_ANY
// definition) read the same unchanged plan over the same contract again
// and again: the availability of each stage's window for each planner
// tried, the load the low-cost allocator costs against, the stretch tests
// of hopeless. The memo reads the plan's load steps over the contract
// once and answers those reads from them, with the same profiles and
// answers a read of the plan gives; what it cannot answer exactly that way
// (a period, a plan holding periodic reservations, an update, a policy
// that changes availability, an over-committed plan, a window reaching
// beyond the contract) goes to the plan as before. Profiles it hands out
// are the caller's, as the plan's are, except the one of planLoads, which
// it keeps and its users only read.
type loadsMemo struct {
	planView
	id   plan.ReservationID
	span berth.Interval // the contract and the instant after it
	// state is memoUnread until the first read, then memoNone when the
	// steps cannot stand for the plan's reads or memoSteps when they can.
	state   int8
	adapter planAdapter
	buf     *[]rle.Step // the load steps over span, in time order
	// free is capacity minus the load at each step (free.ts[i] starts
	// step i), built on first use; over reports an over-committed step.
	free *profile
	over bool
	// cachedCapacity is the plan's capacity, once capacityKnown.
	cachedCapacity berth.Resource
	capacityKnown  bool
	// The planLoads memo.
	old      plan.ReservationID
	contract berth.Interval
	memo     *profile
}

// answers reports whether the memo stands for the plan's reads for the
// reservation id (the policy leaves availability as it is, id is not
// held, no periodic reservation).
func (m *loadsMemo) answers(id plan.ReservationID) bool {
	if m.state == memoUnread {
		m.read()
	}
	return m.state == memoSteps && id == m.id
}

// capacity is the plan's, read once per decision.
func (m *loadsMemo) capacity() berth.Resource {
	if !m.capacityKnown {
		m.cachedCapacity, m.capacityKnown = m.planView.capacity(), true
	}
	return m.cachedCapacity
}

const (
	memoUnread int8 = iota
	memoNone
	memoSteps
)

// newLoadsMemo returns the memo of the decision placing def under id in v.
func newLoadsMemo(v planView, id plan.ReservationID, def plan.Definition) *loadsMemo {
	m := &loadsMemo{planView: v, id: id}
	m.span = berth.Interval{Start: def.Arrival, End: def.Deadline}
	if def.Period != 0 || !m.span.Valid() {
		m.state = memoNone
	} else if m.span.End < berth.MaxTime {
		// yarnPlanLoads reads the instant at the deadline too.
		m.span.End++
	}
	return m
}

// steps returns the load steps meeting w (from index i of the memo's), when the memo answers reads of
// the plan for the reservation old over w (with no period): w valid and
// inside the contract, the plan's own availability (no policy changing
// it, old not held) and its load a plain series (no periodic
// reservation). The first step may start before w.Start (the plan's read
// starts it at w.Start); every step meets w.
func (m *loadsMemo) steps(old plan.ReservationID, w berth.Interval, period berth.Duration) (steps []rle.Step, i int, ok bool) {
	if !m.answers(old) || period != 0 || !w.Valid() || w.Start < m.span.Start || w.End > m.span.End {
		return nil, 0, false
	}
	all := *m.buf
	// The step holding w.Start, up to the last one starting before w.End.
	i = sort.Search(len(all), func(k int) bool { return all[k].Interval.Start > w.Start }) - 1
	if i < 0 {
		return nil, 0, false
	}
	k := i + sort.Search(len(all)-i, func(k int) bool { return all[i+k].Interval.Start >= w.End })
	if k <= i {
		return nil, 0, false
	}
	return all[i:k], i, true
}

// read decides whether the steps can stand for the plan and reads them.
func (m *loadsMemo) read() {
	m.state = memoNone
	pa, ok := m.planView.(planAdapter)
	if !ok {
		return
	}
	p := pa.p
	if !physicalFor(p, m.id) || p.HoldsPeriodic() {
		return
	}
	buf := pa.bufs.get()
	steps, err := p.AppendLoadSteps((*buf)[:0], m.span, "")
	if err != nil || len(steps) == 0 || steps[0].Interval.Start != m.span.Start {
		*buf = steps
		pa.bufs.put(buf)
		return
	}
	*buf = steps
	m.adapter, m.buf, m.state = pa, buf, memoSteps
}

// availableFor answers as the plan does (see planAdapter.availableFor).
func (m *loadsMemo) availableFor(user string, old plan.ReservationID, w berth.Interval, period berth.Duration, need *stretchNeed) (*profile, error) {
	steps, i, ok := m.steps(old, w, period)
	if !ok || m.overCommitted() {
		return m.planView.availableFor(user, old, w, period, need)
	}
	if need != nil && noStretch(steps, m.capacity(), need, w) {
		return nil, errNoStretch
	}
	// The steps' free capacity, the first step starting at w.Start.
	out := m.adapter.bufs.profile(len(steps), w.End)
	copy(out.ts[1:], m.free.ts[i+1:i+len(steps)])
	copy(out.rs, m.free.rs[i:i+len(steps)])
	out.ts[0] = w.Start
	return out, nil
}

func (m *loadsMemo) available(user string, old plan.ReservationID, w berth.Interval, period berth.Duration) (*profile, error) {
	return m.availableFor(user, old, w, period, nil)
}

// overCommitted builds free once and reports whether some step's load
// exceeds the capacity (the plan's reads then fail, which the memo leaves
// to the plan).
func (m *loadsMemo) overCommitted() bool {
	if m.free != nil {
		return m.over
	}
	all := *m.buf
	capacity := m.capacity()
	m.free = m.adapter.bufs.profile(len(all), m.span.End)
	for i, st := range all {
		if !st.Value.FitsIn(capacity) {
			m.over = true
		}
		m.free.ts[i], m.free.rs[i] = st.Interval.Start, capacity.Sub(st.Value)
	}
	return m.over
}

// planFreeShared is the plan's availability for the run, read-only and
// kept by the memo, when the run's view is a memo answering for w: a
// profile equal inside w to what [StageView.PlanAvailable] gives (its
// domain may reach beyond w), for a reader that looks inside w only.
func (j *job) planFreeShared(w berth.Interval) (*profile, bool) {
	m, ok := j.view.(*loadsMemo)
	if !ok {
		return nil, false
	}
	if _, _, ok := m.steps(j.id, w, j.period); !ok || m.overCommitted() {
		return nil, false
	}
	return m.free, true
}

// noRoom is noRoom of the plan (hopeless's stretch test) from the steps;
// ok is false when the memo does not answer for w.
func (m *loadsMemo) noRoom(id plan.ReservationID, w berth.Interval, need *stretchNeed) (none, ok bool) {
	steps, _, ok := m.steps(id, w, 0)
	if !ok {
		return false, false
	}
	return noStretch(steps, m.capacity(), need, w), true
}

// planLoads answers as the plan does (see yarnPlanLoads), once per
// decision.
func (m *loadsMemo) planLoads(old plan.ReservationID, contract berth.Interval) (*profile, error) {
	if m.memo != nil && old == m.old && contract == m.contract {
		return m.memo, nil
	}
	var p *profile
	// The steps stand for the plan's in yarnPlanLoads' unclipped case:
	// no periodic reservation, old not held.
	step := m.step()
	ja, jd := stepRoundUp(contract.Start, step), stepRoundDown(contract.End, step)
	if ja <= jd && jd < berth.MaxTime {
		if steps, _, ok := m.steps(old, berth.Interval{Start: contract.Start, End: jd + 1}, 0); ok {
			p = planLoadsOf(steps, m.adapter.bufs, contract, ja)
		}
	}
	if p == nil {
		var err error
		if p, err = m.planView.planLoads(old, contract); err != nil {
			return nil, err
		}
	}
	// A memo replaced (never within one decision) is handed back by the
	// run holding it, as any profile not the memo.
	m.old, m.contract, m.memo = old, contract, p
	return p, nil
}

// release hands p back unless it is the memo, which the memo keeps.
func (m *loadsMemo) release(p *profile) {
	if p != m.memo {
		m.planView.release(p)
	}
}

// done hands the memo's storage back once the decision is made.
func (m *loadsMemo) done() {
	if m.memo != nil {
		m.planView.release(m.memo)
		m.memo = nil
	}
	if m.free != nil {
		m.adapter.bufs.release(m.free)
		m.free = nil
	}
	if m.buf != nil {
		m.adapter.bufs.put(m.buf)
		m.buf = nil
	}
}
