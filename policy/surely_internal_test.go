package policy

import (
	"math/rand/v2"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/plan"
	"github.com/stretchr/testify/require"
)

// fullAverageBad is the average check without its quick bound (as
// checkAverage runs it when the bound does not settle it).
func fullAverageBad(t *testing.T, c *CapacityOverTime, view *plan.Plan, a *plan.Allocation, from, to berth.Time, limit berth.Resource) bool {
	segs, err := c.consumption(view, a, from, to)
	require.NoError(t, err)
	w := c.cfg.Window
	capacity := view.Capacity()
	for _, comp := range []struct {
		get   func(berth.Resource) int64
		limit int64
	}{
		{func(r berth.Resource) int64 { return r.Memory }, limit.Memory},
		{func(r berth.Resource) int64 { return r.VCores }, limit.VCores},
	} {
		one := make([]seg, len(segs))
		for i, s := range segs {
			one[i] = seg{t: s.t, v: comp.get(s.r)}
		}
		var bad bool
		if c.cfg.ExactAverage {
			bound := exactWindowBound(comp.get(capacity), c.cfg.AveragePercent, w)
			bad, _, _ = exactExceeds(one, to, from, to, w, bound)
		} else {
			bad, _, _ = yarnExceeds(one, from, to, w, comp.limit)
		}
		if bad {
			return true
		}
	}
	return false
}

// Property: the quick bound is sound. Whenever averageSurelyFits (the
// plan's O(log n) integral plus the new allocation) says the average check
// passes, the full check, YARN's sampled one and the exact one, finds no
// window over the limit; and on these plans it settles many cases both
// ways, so the property is not vacuous.
func TestAverageQuickBoundIsSound(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 8))
	var sure, unsure, tight int
	for round := 0; round < 300; round++ {
		cfg := DefaultCapacityOverTimeConfig()
		cfg.Window = 20 + r.Int64N(60)
		cfg.AveragePercent = float32(5 + r.IntN(60))
		cfg.ExactAverage = round%2 == 1
		c, err := NewCapacityOverTime(cfg)
		require.NoError(t, err)
		pc := plan.DefaultConfig("q", berth.New(10*1024, 10), berth.NewManualClock(0))
		pc.Policy = NoOverCommit{}
		pc.MaxPeriodicity = 400
		p, err := plan.New(pc)
		require.NoError(t, err)
		next := func(max int64) int64 { return r.Int64N(max + 1) }
		for k := int64(1); k <= 20; k++ {
			a := boundAlloc(t, k, []string{"a", "b"}[next(1)], next)
			_ = p.AddReservation(a) // over-commits refused
		}
		for q := 0; q < 20; q++ {
			a := boundAlloc(t, 100+int64(q), []string{"a", "b"}[next(1)], next)
			w := c.cfg.Window
			from, to := satAdd(a.Start, -w), satAdd(a.End, w)
			limit := p.Capacity().Mul(c.maxAvg)
			ok, err := c.averageSurelyFits(p, a, from, to, limit)
			require.NoError(t, err)
			if !ok {
				unsure++
				continue
			}
			sure++
			require.False(t, fullAverageBad(t, c, p, a, from, to, limit), "round %d: the bound passed what the check rejects", round)
			// Tight: the user's whole integral within one window of the
			// limit.
			area, err := p.LoadIntegral(berth.Interval{Start: satAdd(from, -2*w), End: to}, a.User)
			require.NoError(t, err)
			if area.Memory.Float64() > float64(limit.Memory*w)-float64(3*1024*w) {
				tight++
			}
		}
	}
	require.Positive(t, sure)
	require.Positive(t, unsure)
	require.Positive(t, tight, "some passes must be close to the limit")
}

// boundAlloc draws a reservation of one to three blocks of 1–5 containers
// within [0, 60), sometimes periodic (every 400 ms).
func boundAlloc(t *testing.T, seq int64, user string, next func(int64) int64) *plan.Allocation {
	var ivs []plan.IntervalResource
	lo, hi := int64(1<<62), int64(-1<<62)
	for i := int64(0); i <= next(2); i++ {
		s := next(45)
		iv := berth.Interval{Start: s, End: s + 1 + next(15)}
		ivs = append(ivs, plan.IntervalResource{Interval: iv, Resource: berth.New(1024, 1).MulInt(1 + next(4))})
		lo, hi = min(lo, iv.Start), max(hi, iv.End)
	}
	def := plan.Definition{}
	if next(6) == 0 {
		def.Period = 400
	}
	a, err := plan.NewAllocation(plan.ReservationID{ClusterTimestamp: 3, Sequence: seq}, user, def, berth.Interval{Start: lo, End: hi}, ivs)
	require.NoError(t, err)
	return a
}
