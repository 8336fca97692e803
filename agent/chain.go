package agent

import (
	"slices"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/plan"
)

// chain places every stage of def as one block of all its gangs, each
// block starting where the previous one ends: a placement valid for every
// interpreter but R_ANY (for R_ORDER_NO_GAP the only shape allowed). It
// looks for the latest start s in [arrival, deadline − Σ durations] where
// every block fits the availability, and returns ok = false when there is
// none. The blocks are fixed relative to s, so the feasible starts are a
// union of intervals whose right ends are the window's last start or a
// breakpoint minus a block's end offset: only those are tried, latest
// first, each checked in time linear in the breakpoints it covers, and a
// failed check skips every start that would meet the same refusal.
func chain(v planView, id plan.ReservationID, user string, def plan.Definition) ([]placement, bool, error) {
	// The result holds one placement per stage, in stage order.
	step := v.step()
	n := len(def.Stages)
	if n == 0 {
		return nil, false, nil
	}
	off := make([]berth.Duration, n+1) // off[k]: start of block k relative to s
	need := make([]berth.Resource, n)
	for k, s := range def.Stages {
		if err := validateStage(k, s, v.capacity(), v.maxAllocation(), v.calculator()); err != nil {
			return nil, false, err
		}
		d := stepRoundUp(s.Duration, step)
		if d > berth.MaxTime-off[k] {
			return nil, false, nil
		}
		off[k+1] = off[k] + d
		need[k] = s.Capability.MulInt(s.Containers)
	}
	total := off[n]
	if !fitsIn(def.Arrival, total, def.Deadline) {
		return nil, false, nil
	}
	lastStart := def.Deadline - total
	net, err := v.available(user, id, berth.Interval{Start: def.Arrival, End: def.Deadline}, def.Period)
	if err != nil {
		return nil, false, err
	}
	defer v.release(net)
	// Candidates: the last start, and every start that ends a block at a
	// breakpoint, descending.
	cands := []berth.Time{lastStart}
	for _, t := range net.ts {
		for k := 0; k < n; k++ {
			if s := t - off[k+1]; s >= def.Arrival && s < lastStart {
				cands = append(cands, s)
			}
		}
	}
	slices.SortFunc(cands, func(a, b berth.Time) int { return cmpTime(b, a) })
	cands = slices.Compact(cands)
	skipTo := lastStart
	for _, s := range cands {
		if s > skipTo {
			continue
		}
		ok, limit := chainFits(net, s, off, need)
		skipTo = limit
		if ok {
			out := make([]placement, n)
			for k := range out {
				out[k] = placement{iv: berth.Interval{Start: s + off[k], End: s + off[k+1]}, r: need[k]}
			}
			return out, true, nil
		}
	}
	return nil, false, nil
}

// chainFits reports whether every block k, [s+off[k], s+off[k+1]), fits
// need[k] componentwise wherever it lies. When not, limit is a start at or
// before which the search may resume: every start in (limit, s] still
// meets the segment that refused a block (its start t, the block k: the
// block clears it only once it ends by t).
func chainFits(net *profile, s berth.Time, off []berth.Duration, need []berth.Resource) (ok bool, limit berth.Time) {
	i := max(net.floor(s), 0)
	for k := range need {
		bs, be := s+off[k], s+off[k+1]
		for ; i < len(net.ts) && net.ts[i] < be; i++ {
			e := net.end
			if i+1 < len(net.ts) {
				e = net.ts[i+1]
			}
			if e <= bs {
				continue
			}
			if !need[k].FitsIn(net.rs[i]) {
				return false, net.ts[i] - off[k+1]
			}
		}
		if i > 0 {
			i-- // the segment holding be starts the next block
		}
	}
	return true, s
}
