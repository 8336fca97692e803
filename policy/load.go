package policy

import (
	"slices"
	"sync"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/rle"
)

// Reads of a plan's load.
//
// Plan.LoadSteps returns the load of the plan (or of one user) over a
// window as canonical steps, walking the plan's aggregate series without
// building a series or visiting the reservations; the checks read the load
// through it and add the checked allocation themselves.

// stepBuffers recycles the buffers the plan's load is read into, so that
// a check allocates little; a nil *stepBuffers allocates a buffer per read.
// It holds no state that a check's answer depends on.
type stepBuffers struct{ pool sync.Pool }

// maxKeptSteps bounds the buffers kept for reuse (a few MB).
const maxKeptSteps = 1 << 16

func (b *stepBuffers) get() *[]rle.Step {
	if b != nil {
		if buf, ok := b.pool.Get().(*[]rle.Step); ok {
			return buf
		}
	}
	return new([]rle.Step)
}

func (b *stepBuffers) put(buf *[]rle.Step) {
	if b != nil && cap(*buf) <= maxKeptSteps {
		*buf = (*buf)[:0]
		b.pool.Put(buf)
	}
}

// loadSteps reads what the plan (user's reservations, when user is not
// empty) holds over the valid window w into buf: consecutive steps
// covering w.
func loadSteps(view *plan.Plan, buf *[]rle.Step, w berth.Interval, user string) ([]rle.Step, error) {
	steps, err := view.AppendLoadSteps((*buf)[:0], w, user)
	if err != nil {
		return nil, err
	}
	*buf = steps
	if len(steps) == 0 {
		return []rle.Step{{Interval: w}}, nil
	}
	return steps, nil
}

// loadSegs returns what the plan (user's reservations, when user is not
// empty) holds over the valid window w, as canonical pieces covering w.
func loadSegs(view *plan.Plan, w berth.Interval, user string) ([]rseg, error) {
	steps, err := view.LoadSteps(w, user)
	if err != nil {
		return nil, err
	}
	if len(steps) == 0 {
		return []rseg{{t: w.Start}}, nil
	}
	out := make([]rseg, len(steps))
	for i, st := range steps {
		out[i] = rseg{t: st.Interval.Start, r: st.Value}
	}
	return out, nil
}

// allocSteps returns the non-zero steps of a over w (unrolled when
// periodic), in time order.
func allocSteps(a *plan.Allocation, w berth.Interval) ([]rle.Step, error) {
	return a.AppendSteps(nil, w)
}

// plus returns f + g as canonical pieces, where f is canonical pieces
// covering [f[0].t, end) and g sorted, disjoint steps (zero outside them);
// g is counted inside [f[0].t, end) only.
func plus(f []rseg, end berth.Time, g []rle.Step) []rseg {
	if len(g) == 0 {
		return f
	}
	out := make([]rseg, 0, len(f)+2*len(g))
	push := func(t berth.Time, r berth.Resource) {
		n := len(out) - 1
		switch {
		case n >= 0 && out[n].r.Equal(r):
		case n >= 0 && out[n].t == t:
			out[n].r = r
			if n > 0 && out[n-1].r.Equal(r) {
				out = out[:n]
			}
		default:
			out = append(out, rseg{t: t, r: r})
		}
	}
	i, j := 0, 0
	for t := f[0].t; t < end; {
		for i+1 < len(f) && f[i+1].t <= t {
			i++
		}
		for j < len(g) && g[j].Interval.End <= t {
			j++
		}
		next := end
		if i+1 < len(f) {
			next = min(next, f[i+1].t)
		}
		cur := f[i].r
		if j < len(g) {
			if g[j].Interval.Start <= t {
				cur = addRes(cur, g[j].Value)
				next = min(next, g[j].Interval.End)
			} else {
				next = min(next, g[j].Interval.Start)
			}
		}
		push(t, cur)
		t = next
	}
	return out
}

// allocationsOver returns the allocations whose resources may fall in w
// (of user, when not empty): those overlapping it and every periodic one. A
// window longer than any period matches every periodic reservation under
// the plan's filter; the one used ends where no ordinary reservation does.
func allocationsOver(p *plan.Plan, w berth.Interval, user string) []*plan.Allocation {
	as := p.Reservations(plan.Filter{Window: &w, User: user})
	for _, a := range periodicOf(p, user) {
		if !slices.ContainsFunc(as, func(x *plan.Allocation) bool { return x.ID == a.ID }) {
			as = append(as, a)
		}
	}
	return as
}

// periodicOf returns the periodic reservations of p (of user, when not
// empty). It walks only the right spine of the plan's interval index and
// its periodic set.
func periodicOf(p *plan.Plan, user string) []*plan.Allocation {
	pw := berth.Interval{Start: berth.MaxTime - 2*p.MaxPeriodicity() - 2, End: berth.MaxTime}
	return slices.DeleteFunc(p.Reservations(plan.Filter{Window: &pw, User: user}),
		func(a *plan.Allocation) bool { return !a.IsPeriodic() })
}

// addRes returns cur + r; plain memory+vcores resources take a path
// without calls.
func addRes(cur, r berth.Resource) berth.Resource {
	if !r.HasExtras() && !cur.HasExtras() {
		cur.Memory += r.Memory
		cur.VCores += r.VCores
		return cur
	}
	return cur.Add(r)
}
