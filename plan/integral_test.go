package plan

import (
	"encoding/binary"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/rle"
	"github.com/stretchr/testify/require"
)

// areaStep is one step of the reference model: r held on [s, e).
type areaStep struct {
	s, e berth.Time
	m, v int64
}

// bruteArea is the reference: Σ r·|[s, e) ∩ w| in arbitrary precision.
func bruteArea(steps []areaStep, w berth.Interval) (m, v *big.Int) {
	m, v = new(big.Int), new(big.Int)
	for _, st := range steps {
		lo, hi := max(st.s, w.Start), min(st.e, w.End)
		if lo >= hi {
			continue
		}
		d := new(big.Int).Sub(big.NewInt(hi), big.NewInt(lo))
		m.Add(m, new(big.Int).Mul(big.NewInt(st.m), d))
		v.Add(v, new(big.Int).Mul(big.NewInt(st.v), d))
	}
	return m, v
}

// areaOps applies steps added and removed (in a random order) to an
// areaIndex and checks, after each, the tree and a few window integrals
// against the reference.
func checkAreaOps(t testing.TB, next func(max int64) int64, big bool, n int) {
	var x areaIndex
	o := new(owner)
	var live []areaStep
	draw := func(limit int64) int64 {
		if big && next(3) == 0 {
			return []int64{math.MaxInt64 / 2, math.MinInt64 / 2, math.MaxInt64 - 1, math.MinInt64 + 1}[next(3)]
		}
		return next(2*limit) - limit
	}
	for i := 0; i < n; i++ {
		if len(live) > 0 && next(2) == 0 {
			k := int(next(int64(len(live) - 1)))
			st := live[k]
			live = append(live[:k], live[k+1:]...)
			x.change([]rle.Step{{Interval: berth.Interval{Start: st.s, End: st.e}, Value: berth.New(st.m, st.v)}}, -1, o)
		} else if !big || len(live) < 2 { // two huge steps at most: every integral fits 128 bits
			s, e := draw(1000), draw(1000)
			s, e = min(s, e), max(s, e)
			if s == e {
				e++
			}
			st := areaStep{s: s, e: e, m: draw(1 << 20), v: draw(64)}
			if big {
				st.m, st.v = draw(math.MaxInt64/4), draw(math.MaxInt64/4)
			}
			live = append(live, st)
			run := []rle.Step{{Interval: berth.Interval{Start: st.s, End: st.e}, Value: berth.New(st.m, st.v)}}
			for k := 0; !big && k < 3 && next(2) == 0; k++ {
				// An allocation's steps: sorted, disjoint, often touching.
				s := st.e + next(1)*next(20)
				st = areaStep{s: s, e: s + 1 + next(30), m: draw(1 << 20), v: draw(64)}
				live = append(live, st)
				run = append(run, rle.Step{Interval: berth.Interval{Start: st.s, End: st.e}, Value: berth.New(st.m, st.v)})
			}
			x.change(run, 1, o)
		}
		require.NoError(t, checkAreaTree(x.root, map[berth.Time][2]rle.Int128{}))
		for q := 0; q < 4; q++ {
			a, b := draw(1200), draw(1200)
			w := berth.Interval{Start: min(a, b), End: max(a, b)}
			if big {
				// Huge values and times, a short window: the integral fits
				// 128 bits (two steps of |r| < 2⁶³ over < 2¹¹ ms) while the
				// prefix sums (change × time ~ 2¹²⁶ a node) wrap.
				w = berth.Interval{Start: a, End: a + min(next(2000), math.MaxInt64-a)}
			}
			got := x.integral(w)
			wm, wv := bruteArea(live, w)
			require.Equal(t, wm.String(), got.Memory.Big().String(), "memory over %v of %v", w, live)
			require.Equal(t, wv.String(), got.VCores.Big().String(), "vcores over %v", w)
		}
	}
	for _, st := range live {
		x.change([]rle.Step{{Interval: berth.Interval{Start: st.s, End: st.e}, Value: berth.New(st.m, st.v)}}, -1, o)
	}
	require.Nil(t, x.root, "every change removed: nothing is left")
}

// Property: the change tree's window integrals equal the brute-force sum
// over its steps, for ordinary loads and for huge values and times whose
// intermediate sums wrap around 2¹²⁸.
func TestAreaIndexAgainstBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 5))
	next := func(max int64) int64 {
		if max <= 0 {
			return 0
		}
		return r.Int64N(max + 1)
	}
	for round := 0; round < 60; round++ {
		checkAreaOps(t, next, round%3 == 2, 80)
	}
}

// Property: the tree's shape depends on its changes only, not on the order
// they came in (an undone change gives the same tree back).
func TestAreaIndexShapeIsCanonical(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 6))
	steps := make([]rle.Step, 40)
	for i := range steps {
		s := r.Int64N(500)
		steps[i] = rle.Step{Interval: berth.Interval{Start: s, End: s + 1 + r.Int64N(50)}, Value: berth.New(1+r.Int64N(9), r.Int64N(3))}
	}
	var a, b areaIndex
	a.change(steps, 1, new(owner))
	o := new(owner)
	for _, k := range r.Perm(len(steps)) {
		b.change(steps[k:k+1], 1, o)
	}
	extra := []rle.Step{{Interval: berth.Interval{Start: 7, End: 901}, Value: berth.New(5, 5)}}
	b.change(extra, 1, o)
	b.change(extra, -1, o)
	var same func(x, y *inode) bool
	same = func(x, y *inode) bool {
		if x == nil || y == nil {
			return x == y
		}
		return x.t == y.t && x.dm == y.dm && x.dv == y.dv && same(x.left, y.left) && same(x.right, y.right)
	}
	require.True(t, same(a.root, b.root))
}

// Copy on write: a change through one owner never reaches a tree that
// shares nodes under another.
func TestAreaIndexCopyOnWrite(t *testing.T) {
	o1 := new(owner)
	var x areaIndex
	x.change([]rle.Step{{Interval: berth.Interval{Start: 0, End: 10}, Value: berth.New(3, 1)}}, 1, o1)
	y := x // shares the nodes, which belong to o1
	x.change([]rle.Step{{Interval: berth.Interval{Start: 5, End: 20}, Value: berth.New(2, 2)}}, 1, new(owner))
	w := berth.Interval{Start: -5, End: 30}
	require.Equal(t, rle.Int128Of(30), y.integral(w).Memory)
	require.Equal(t, rle.Int128Of(60), x.integral(w).Memory)
}

func TestLoadIntegralPeriodicAndErrors(t *testing.T) {
	p := newTestPlan(t, func(cfg *Config) { cfg.MaxPeriodicity = 100; cfg.Policy = acceptAll{} })
	require.NoError(t, p.AddReservation(resAlloc(t, rid(1), "u", 10, []int64{2, 2}, false, 0))) // [10, 12): 2
	require.NoError(t, p.AddReservation(resAlloc(t, rid(2), "v", 30, []int64{1}, false, 100)))  // [30, 31) of every 100: 1
	cases := []struct {
		w    berth.Interval
		user string
		want int64 // memory, in units of c(1)
	}{
		{berth.Interval{Start: 0, End: 100}, "", 2*2 + 1},
		{berth.Interval{Start: 11, End: 11}, "", 0},
		{berth.Interval{Start: -1000, End: 1000}, "v", 20},
		{berth.Interval{Start: -1000, End: 1000}, "u", 4},
		{berth.Interval{Start: 31, End: 130}, "v", 0},
		{berth.Interval{Start: 31, End: 131}, "v", 1},
		{berth.Interval{Start: 0, End: 1000}, "nobody", 0},
		{berth.Interval{Start: berth.MinTime, End: berth.MaxTime}, "u", 4},
	}
	for _, tc := range cases {
		got, err := p.LoadIntegral(tc.w, tc.user)
		require.NoError(t, err)
		require.Equal(t, rle.Int128Of(tc.want*1024), got.Memory, "%q over %v", tc.user, tc.w)
		require.Equal(t, rle.Int128Of(tc.want), got.VCores, "%q over %v", tc.user, tc.w)
	}
	_, err := p.LoadIntegral(berth.Interval{Start: 5, End: 4}, "")
	require.ErrorIs(t, err, berth.ErrInvalidArgument)
}

// A reservation with extended types is integrated from the series, the
// extended types included.
func TestLoadIntegralExtendedTypes(t *testing.T) {
	p := newTestPlan(t, func(cfg *Config) { cfg.Policy = acceptAll{} })
	gpu := berth.NewWithExtras(1024, 1, berth.Quantity{Name: "gpu", Value: 2})
	a, err := NewAllocation(rid(1), "u", simpleDef(0, 10, 10, 0), berth.Interval{Start: 0, End: 10},
		[]IntervalResource{{Interval: berth.Interval{Start: 0, End: 10}, Resource: gpu}})
	require.NoError(t, err)
	require.NoError(t, p.AddReservation(a))
	require.NoError(t, p.AddReservation(resAlloc(t, rid(2), "u", 5, []int64{1}, false, 0)))
	got, err := p.LoadIntegral(berth.Interval{Start: 0, End: 100}, "u")
	require.NoError(t, err)
	require.Equal(t, rle.Int128Of(10*1024+1024), got.Memory)
	require.Equal(t, rle.Int128Of(20), got.Extra("gpu"))
	require.NoError(t, p.DeleteReservation(rid(1)))
	got, err = p.LoadIntegral(berth.Interval{Start: 0, End: 100}, "u")
	require.NoError(t, err)
	require.Equal(t, rle.Int128Of(1024), got.Memory, "back on the tree once the extended types are gone")
	require.NoError(t, checkState(p))
}

func FuzzAreaIndex(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8}, false)
	f.Add([]byte{0, 0, 0, 0, 255, 255, 9, 9, 9, 1, 1, 1, 40, 200}, true)
	f.Add(make([]byte, 48), true)
	f.Fuzz(func(t *testing.T, b []byte, big bool) {
		next := func(max int64) int64 {
			if max <= 0 || len(b) < 2 {
				b = nil
				return 0
			}
			v := int64(binary.LittleEndian.Uint16(b))
			b = b[2:]
			return v % (max + 1)
		}
		checkAreaOps(t, next, big, 1+len(b)/6)
	})
}

// Property: an allocation's AppendSteps over a window are sorted, disjoint,
// non-zero steps inside the window that hold, at every instant, what the
// dense model holds (contribution: a periodic allocation repeats over the
// whole window, as ResourcesOver unrolls it), and nothing elsewhere.
func TestAllocationAppendSteps(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 9))
	for i := 0; i < 400; i++ {
		a := randomAlloc(t, rng, rid(int64(i+1)))
		s := berth.Time(rng.IntN(horizon+100)) - 50
		w := berth.Interval{Start: s, End: s + berth.Time(rng.IntN(300))}
		prefix := []rle.Step{{Interval: berth.Interval{Start: -9, End: -8}, Value: c(1)}}
		steps, err := a.AppendSteps(prefix, w)
		require.NoError(t, err)
		require.Equal(t, prefix[0], steps[0], "dst is appended to")
		steps = steps[1:]
		at := w.Start
		for k, st := range steps {
			require.False(t, st.Value.IsZero())
			require.GreaterOrEqual(t, st.Interval.Start, at, "sorted and disjoint")
			require.LessOrEqual(t, st.Interval.End, w.End)
			for tt := at; tt < st.Interval.Start; tt++ {
				require.True(t, contribution(a, tt).IsZero(), "alloc %d at %d: a gap", i, tt)
			}
			for tt := st.Interval.Start; tt < st.Interval.End; tt++ {
				require.True(t, contribution(a, tt).Equal(st.Value), "alloc %d step %d at %d", i, k, tt)
			}
			at = st.Interval.End
		}
		for tt := at; tt < w.End; tt++ {
			require.True(t, contribution(a, tt).IsZero())
		}
	}
}
