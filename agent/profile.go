package agent

import (
	"sort"

	"github.com/berthsched/berth"
)

// profile is a step function of resources on [ts[0], end): rs[i] holds on
// [ts[i], ts[i+1]) and the last value until end, where the function stops
// (YARN's null terminator). It is the agents' private working copy of the
// available resources of one stage window; allocators edit it in place as
// they place batches, so that each batch sees the ones placed before it.
//
// Breakpoints are kept canonical (no two consecutive equal values), which is
// the shape YARN's merges produce and which its greedy scans depend on.
type profile struct {
	ts  []berth.Time
	rs  []berth.Resource
	end berth.Time
}

// newFlat returns the profile holding r on [start, end).
func newFlat(start, end berth.Time, r berth.Resource) *profile {
	return &profile{ts: []berth.Time{start}, rs: []berth.Resource{r}, end: end}
}

// empty reports whether the profile covers no time.
func (p *profile) empty() bool { return len(p.ts) == 0 || p.ts[0] >= p.end }

// floor returns the index of the last breakpoint ≤ t, or -1.
func (p *profile) floor(t berth.Time) int {
	return sort.Search(len(p.ts), func(i int) bool { return p.ts[i] > t }) - 1
}

// holds reports whether t lies in the domain [ts[0], end), where at
// answers ok.
func (p *profile) holds(t berth.Time) bool {
	return len(p.ts) > 0 && t >= p.ts[0] && t < p.end
}

// at returns the value at t; ok is false outside [ts[0], end).
func (p *profile) at(t berth.Time) (berth.Resource, bool) {
	if t >= p.end {
		return berth.Resource{}, false
	}
	i := p.floor(t)
	if i < 0 {
		return berth.Resource{}, false
	}
	return p.rs[i], true
}

// split makes t a breakpoint (when inside the domain) and returns its
// index; t before the domain returns 0 and t at or after end len(ts).
func (p *profile) split(t berth.Time) int {
	if t >= p.end {
		return len(p.ts)
	}
	i := p.floor(t)
	if i < 0 {
		return 0
	}
	if p.ts[i] == t {
		return i
	}
	p.ts = append(p.ts, 0)
	p.rs = append(p.rs, berth.Resource{})
	copy(p.ts[i+2:], p.ts[i+1:])
	copy(p.rs[i+2:], p.rs[i+1:])
	p.ts[i+1] = t
	p.rs[i+1] = p.rs[i]
	return i + 1
}

// add adds r (which may be negative) on [s, e) ∩ domain.
func (p *profile) add(s, e berth.Time, r berth.Resource) {
	if s >= e || r.IsZero() || p.empty() {
		return
	}
	i := p.split(s)
	j := p.split(e)
	for k := i; k < j; k++ {
		p.rs[k] = p.rs[k].Add(r)
	}
	p.compact(max(i-1, 0), min(j+1, len(p.ts)))
}

// sub subtracts r on [s, e) ∩ domain.
func (p *profile) sub(s, e berth.Time, r berth.Resource) { p.add(s, e, r.Neg()) }

// compact removes breakpoints in [from, to) whose value equals the previous
// one.
func (p *profile) compact(from, to int) {
	w := from
	for k := from; k < len(p.ts); k++ {
		if k < to && k > 0 && w > 0 && p.rs[k].Equal(p.rs[w-1]) {
			continue
		}
		p.ts[w], p.rs[w] = p.ts[k], p.rs[k]
		w++
	}
	p.ts, p.rs = p.ts[:w], p.rs[:w]
}

// clone returns an independent copy.
func (p *profile) clone() *profile {
	return &profile{ts: append([]berth.Time(nil), p.ts...), rs: append([]berth.Resource(nil), p.rs...), end: p.end}
}

// placement is one block of a stage's allocation: r held on iv.
type placement struct {
	iv berth.Interval
	r  berth.Resource
}

// canonical sums placements into a step function and returns its maximal
// runs of equal, non-zero value in time order: the shape of YARN's
// toIntervalMap (minus the zero gaps between blocks, which change nothing).
func canonical(ps []placement) []placement {
	if len(ps) == 0 {
		return nil
	}
	// Sized once: each placement adds at most two breakpoints.
	n := 2*len(ps) + 1
	acc := &profile{ts: make([]berth.Time, 0, n), rs: make([]berth.Resource, 0, n), end: berth.MaxTime}
	acc.ts = append(acc.ts, berth.MinTime)
	acc.rs = append(acc.rs, berth.Resource{})
	for _, p := range ps {
		acc.add(p.iv.Start, p.iv.End, p.r)
	}
	out := make([]placement, 0, len(acc.ts))
	for i := range acc.ts {
		if acc.rs[i].IsZero() {
			continue
		}
		end := acc.end
		if i+1 < len(acc.ts) {
			end = acc.ts[i+1]
		}
		out = append(out, placement{iv: berth.Interval{Start: acc.ts[i], End: end}, r: acc.rs[i]})
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// concat returns p followed by q, which must start where p ends. p's
// storage is reused: p must not be used afterwards.
func (p *profile) concat(q *profile) *profile {
	out := &profile{ts: append(p.ts, q.ts...), rs: append(p.rs, q.rs...), end: q.end}
	if n := len(p.ts); n > 0 && n < len(out.ts) {
		out.compact(n, n+1)
	}
	return out
}
