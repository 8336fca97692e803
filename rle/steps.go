package rle

import "github.com/berthsched/berth"

// AppendSteps appends to dst the steps [Series.StepsIn] yields for iv, in
// the same order, and returns the extended slice. It is the allocation-free
// form for hot loops: with a dst of enough capacity it allocates nothing,
// and each step costs a few loads (no iterator or closure per step).
func (s *Series) AppendSteps(dst []Step, iv berth.Interval) []Step {
	from, to := iv.Start, iv.End
	if from >= to {
		return dst
	}
	// eachStep with the append written in: no call per step. Every
	// breakpoint inside iv opens a step; each step is closed by the next
	// one (or by to) and dropped when undefined.
	start, ok := s.startItem(from)
	n0 := len(dst)
	if !ok || start.first > from {
		dst = append(dst, Step{Interval: berth.Interval{Start: from}})
	}
	undef := false // the open step (the last of dst) is undefined
	if ok {
		s.tree.AscendGreaterOrEqual(start, func(it item) bool {
			if it.first >= to {
				return false
			}
			b := it.b
			ts := b.times
			i, j := 0, len(ts)
			if it.first < from {
				i = upper(ts, from) - 1 // the breakpoint in force at from
			}
			if ts[j-1] >= to {
				j = lower(ts, to)
			}
			if b.undefined == nil && b.plain() && !undef {
				vs := b.values[:len(ts)]
				lm, lv := b.lazy.m, b.lazy.v
				for k := i; k < j; k++ {
					t := max(ts[k], from)
					if len(dst) > n0 {
						dst[len(dst)-1].Interval.End = t
					}
					dst = append(dst, Step{Interval: berth.Interval{Start: t}, Value: berth.Resource{Memory: vs[k].m + lm, VCores: vs[k].v + lv}})
				}
				return true
			}
			for k := i; k < j; k++ {
				t := max(ts[k], from)
				if undef {
					dst = dst[:len(dst)-1]
				} else if len(dst) > n0 {
					dst[len(dst)-1].Interval.End = t
				}
				st := Step{Interval: berth.Interval{Start: t}}
				undef = !b.defined(k)
				if !undef {
					st.Value = b.value(k)
				}
				dst = append(dst, st)
			}
			return true
		})
	}
	if undef {
		return dst[:len(dst)-1]
	}
	if len(dst) > n0 {
		dst[len(dst)-1].Interval.End = to
	}
	return dst
}

// eachStep calls f with every step of StepsIn(iv), in order, until f
// returns false. It walks the blocks directly: the value in force at
// iv.Start, then every breakpoint inside iv, each closing the step before.
func (s *Series) eachStep(iv berth.Interval, f func(Step) bool) {
	from, to := iv.Start, iv.End
	if from >= to {
		return
	}
	start, ok := s.startItem(from)
	// cur is the step being built: it starts at from with the default zero
	// when no breakpoint precedes from.
	cur := Step{Interval: berth.Interval{Start: from}}
	has := !ok || start.first > from
	def := true
	stopped := false
	if ok {
		s.tree.AscendGreaterOrEqual(start, func(it item) bool {
			if it.first >= to {
				return false
			}
			b := it.b
			ts := b.times
			i, j := 0, len(ts)
			if it.first < from {
				i = upper(ts, from) - 1 // the breakpoint in force at from
			}
			if ts[j-1] >= to {
				j = lower(ts, to)
			}
			if b.undefined == nil && b.plain() {
				vs := b.values[:len(ts)]
				lm, lv := b.lazy.m, b.lazy.v
				for k := i; k < j; k++ {
					t := max(ts[k], from)
					if has && def {
						cur.Interval.End = t
						if !f(cur) {
							stopped = true
							return false
						}
					}
					cur = Step{Interval: berth.Interval{Start: t}, Value: berth.Resource{Memory: vs[k].m + lm, VCores: vs[k].v + lv}}
					has, def = true, true
				}
				return true
			}
			for k := i; k < j; k++ {
				t := max(ts[k], from)
				if has && def {
					cur.Interval.End = t
					if !f(cur) {
						stopped = true
						return false
					}
				}
				has, def = true, b.defined(k)
				cur = Step{Interval: berth.Interval{Start: t}}
				if def {
					cur.Value = b.value(k)
				}
			}
			return true
		})
	}
	if !stopped && has && def {
		cur.Interval.End = to
		f(cur)
	}
}
