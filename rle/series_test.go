package rle

import (
	"math"
	"math/big"
	"sync"
	"testing"

	"github.com/berthsched/berth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func ivl(a, b int64) berth.Interval { return berth.Interval{Start: a, End: b} }

func TestZeroValueUsable(t *testing.T) {
	var s Series
	assert.True(t, s.IsEmpty())
	assert.Equal(t, 0, s.Len())
	assert.True(t, s.At(5).IsZero())
	_, ok := s.EarliestStart()
	assert.False(t, ok)
	_, ok = s.LatestEnd()
	assert.False(t, ok)
	assert.Empty(t, collectSteps(&s))
	assert.Equal(t, "{}", s.String())
	assert.True(t, s.Equal(New()))
	c := s.Clone()
	require.NoError(t, s.Add(ivl(1, 2), xx(1)))
	assert.True(t, c.IsEmpty(), "a clone of the zero value is independent")
}

func TestQueries(t *testing.T) {
	s := New()
	require.NoError(t, s.Add(ivl(10, 20), xx(2)))
	require.NoError(t, s.Add(ivl(30, 40), xx(3)))
	es, _ := s.EarliestStart()
	le, _ := s.LatestEnd()
	assert.Equal(t, berth.Time(10), es)
	assert.Equal(t, berth.Time(40), le)
	assert.Equal(t, 4, s.Len())

	assert.Equal(t, []Step{{ivl(10, 20), xx(2)}, {ivl(20, 30), xx(0)}, {ivl(30, 40), xx(3)}}, collectSteps(s))
	var in []Step
	for st := range s.StepsIn(ivl(5, 35)) {
		in = append(in, st)
	}
	assert.Equal(t, []Step{{ivl(5, 10), xx(0)}, {ivl(10, 20), xx(2)}, {ivl(20, 30), xx(0)}, {ivl(30, 35), xx(3)}}, in)
	n := 0
	for range s.StepsIn(ivl(5, 35)) {
		n++
		break
	}
	assert.Equal(t, 1, n, "early stop")
	assert.Empty(t, collectStepsIn(s, ivl(5, 5)))

	assert.Equal(t, xx(0), s.Min(ivl(15, 35)))
	assert.Equal(t, xx(2), s.Min(ivl(15, 20)))
	assert.Equal(t, xx(3), s.Max(ivl(0, 100)))
	assert.Equal(t, xx(0), s.Max(ivl(20, 30)))
	assert.Equal(t, xx(0), s.Max(ivl(30, 30)), "empty window")

	a := s.Integral(ivl(0, 100))
	assert.Equal(t, Int128Of(2*10+3*10), a.Memory)
	assert.Equal(t, "<memory:50, vCores:50>", a.String())
	a = s.Integral(ivl(15, 35))
	assert.Equal(t, Int128Of(2*5+3*5), a.VCores)

	// an unbounded tail
	u, err := FromBreakpoints(Breakpoint{Time: 7, Value: xx(1)})
	require.NoError(t, err)
	le, ok := u.LatestEnd()
	require.True(t, ok)
	assert.Equal(t, berth.MaxTime, le)
	assert.Equal(t, []Step{{ivl(7, berth.MaxTime), xx(1)}}, collectSteps(u))
	v, def := u.Lookup(3)
	assert.False(t, def)
	assert.True(t, v.IsZero())
	assert.Equal(t, "{MIN: null, 7: <memory:1, vCores:1>}", u.String())
}

func collectStepsIn(s *Series, iv berth.Interval) []Step {
	var out []Step
	for st := range s.StepsIn(iv) {
		out = append(out, st)
	}
	return out
}

func TestIntegralCannotOverflow(t *testing.T) {
	s := New()
	require.NoError(t, s.Add(ivl(0, berth.MaxTime), berth.New(math.MaxInt64, 3)))
	a := s.Integral(ivl(0, berth.MaxTime))
	want := new(big.Int).Mul(big.NewInt(math.MaxInt64), big.NewInt(math.MaxInt64))
	assert.Equal(t, 0, want.Cmp(a.Memory.Big()), "%v", a.Memory)
	assert.Equal(t, want.String(), a.Memory.String())
	_, ok := a.Memory.Int64()
	assert.False(t, ok)
	assert.InDelta(t, 8.5e37, a.Memory.Float64(), 1e36)
	assert.Equal(t, 1, a.Memory.Cmp(a.VCores))
}

func TestInt128(t *testing.T) {
	for _, c := range [][2]int64{{3, 4}, {-3, 4}, {3, -4}, {-3, -4}, {math.MinInt64, math.MaxInt64}, {math.MinInt64, math.MinInt64}, {0, -1}} {
		p := mulInt128(c[0], c[1])
		want := new(big.Int).Mul(big.NewInt(c[0]), big.NewInt(c[1]))
		assert.Equal(t, want.String(), p.String(), "%d*%d", c[0], c[1])
		sum := p.Add(Int128Of(-7)).Sub(Int128Of(-7))
		assert.Equal(t, p, sum)
		assert.Equal(t, want.Sign(), p.Sign())
		assert.Equal(t, -want.Sign(), p.Neg().Sign())
	}
	v, ok := Int128Of(-5).Int64()
	assert.True(t, ok)
	assert.Equal(t, int64(-5), v)
	assert.Equal(t, -1, Int128Of(-5).Cmp(Int128Of(2)))
	assert.Equal(t, -5.0, Int128Of(-5).Float64())
}

func TestInt128Scale(t *testing.T) {
	for _, c := range []struct{ a, b, n int64 }{
		{3, 4, 5}, {-3, 4, 5}, {3, 4, -5}, {-3, -4, -5}, {math.MaxInt64, math.MaxInt64, 1}, {math.MaxInt64, 1 << 40, -(1 << 22)},
		{math.MinInt64, 7, -9}, {123, 456, 0}, {0, 0, math.MaxInt64},
	} {
		got := Product(c.a, c.b).Scale(c.n)
		want := new(big.Int).Mul(big.NewInt(c.a), big.NewInt(c.b))
		want.Mul(want, big.NewInt(c.n))
		assert.Equal(t, want.String(), got.String(), "%d*%d*%d", c.a, c.b, c.n)
	}
}

func TestExtendedResources(t *testing.T) {
	gpu := func(m, v, g int64) berth.Resource {
		return berth.NewWithExtras(m, v, berth.Quantity{Name: berth.ResourceGPU, Value: g})
	}
	s := New()
	require.NoError(t, s.Add(ivl(0, 100), gpu(10, 1, 2)))
	for i := int64(0); i < 90; i++ { // enough breakpoints for several blocks
		require.NoError(t, s.Add(ivl(i, i+5), xx(1)))
	}
	require.NoError(t, s.Add(ivl(20, 60), gpu(0, 0, 1)))
	checkInvariants(t, s)
	assert.True(t, s.At(30).Equal(gpu(15, 6, 3)), "%v", s.At(30))
	assert.True(t, s.Min(ivl(10, 80)).Equal(gpu(15, 6, 2)), "%v", s.Min(ivl(10, 80)))
	assert.True(t, s.Max(ivl(10, 80)).Equal(gpu(15, 6, 3)), "%v", s.Max(ivl(10, 80)))
	err := s.Remove(ivl(50, 70), gpu(0, 0, 3))
	var re *RemoveError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, berth.Time(60), re.Time)
	require.NoError(t, s.Remove(ivl(20, 60), gpu(0, 0, 1)))
	require.NoError(t, s.Remove(ivl(0, 100), gpu(10, 1, 2)))
	a := s.Integral(ivl(0, 100))
	assert.Equal(t, Int128Of(0), a.Extra(berth.ResourceGPU))
	assert.Equal(t, Int128Of(90*5), a.Extra(berth.ResourceMemory))
	for i := int64(0); i < 90; i++ {
		require.NoError(t, s.Remove(ivl(i, i+5), xx(1)))
	}
	assert.True(t, s.IsEmpty())
	assert.Equal(t, 0, s.Len())
	checkInvariants(t, s)
}

func TestShift(t *testing.T) {
	s := New()
	require.NoError(t, s.Add(ivl(10, 20), xx(1)))
	sh := s.Shift(5)
	assert.Equal(t, "{15:1, 25:0}", yarnMap(sh))
	assert.Equal(t, "{10:1, 20:0}", yarnMap(s), "the original is unchanged")
	// saturation at the ends of time
	far := s.Shift(berth.MaxTime - 15)
	assert.Equal(t, "{9223372036854775802:1, 9223372036854775807:0}", yarnMap(far))
	gone := s.Shift(berth.MaxTime)
	assert.Equal(t, "{}", yarnMap(gone), "both breakpoints saturate at MaxTime, the later (zero) wins")
	// the undefined head stays at MinTime
	u := direct(t, kv{10, 1}, kv{20, 0})
	assert.Equal(t, "{0:1, 10:0}", yarnMap(u.Shift(-10)))
	_, def := u.Shift(-10).Lookup(-5)
	assert.False(t, def)
}

func TestCloneIsolation(t *testing.T) {
	s := New()
	for i := int64(0); i < 300; i++ {
		require.NoError(t, s.Add(ivl(i*3, i*3+7), xx(1+i%3)))
	}
	orig := s.list()
	c := s.Clone()
	require.NoError(t, c.Add(ivl(100, 500), xx(5)))
	require.NoError(t, s.Remove(ivl(0, 3), xx(1)))
	c2 := c.Clone()
	require.NoError(t, c2.Remove(ivl(100, 500), xx(5)))
	assert.Equal(t, orig[1:], s.list()[0:len(orig)-1], "s: only its own removal")
	assert.True(t, c.At(200).Equal(s.At(200).Add(xx(5))), "c keeps its add")
	assert.Equal(t, orig, c2.list(), "c2 undid c's add")
	checkInvariants(t, s)
	checkInvariants(t, c)
	checkInvariants(t, c2)
}

// Readers may share a series; run with -race.
func TestParallelReaders(t *testing.T) {
	s := New()
	for i := int64(0); i < 500; i++ {
		require.NoError(t, s.Add(ivl(i*2, i*2+50), xx(1)))
	}
	var wg sync.WaitGroup
	sums := make([]int64, 4)
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int64(0); i < 200; i++ {
				sums[g] += s.At(i*5).Memory + s.Min(ivl(i, i+100)).Memory + s.Max(ivl(i, i+100)).Memory
				for st := range s.StepsIn(ivl(i, i+10)) {
					sums[g] += st.Value.VCores
				}
				_ = s.Integral(ivl(i, i+10))
				_ = s.Clip(ivl(i, i+10))
				_, _ = Merge(calc, cluster, s, s, OpAdd, ivl(i, i+20))
			}
		}()
	}
	wg.Wait()
	for g := 1; g < 4; g++ {
		assert.Equal(t, sums[0], sums[g])
	}
	assert.NotZero(t, sums[0])
}

func TestPeriodicQueries(t *testing.T) {
	p, err := NewPeriodic(10)
	require.NoError(t, err)
	assert.Equal(t, berth.Duration(10), p.Period())
	require.NoError(t, p.Add(ivl(2, 4), xx(3)))
	require.NoError(t, p.Add(ivl(8, 10), xx(5)))
	assert.True(t, p.At(-2).Equal(xx(5)), "floor modulo: -2 ≡ 8")
	assert.True(t, p.At(-7).Equal(xx(3)))
	assert.Equal(t, xx(5), p.MaxOver(ivl(7, 12)), "wraps around")
	assert.Equal(t, xx(3), p.MaxOver(ivl(12, 14)))
	assert.Equal(t, xx(0), p.MaxOver(ivl(4, 8)))
	assert.Equal(t, xx(5), p.MaxOver(ivl(0, 100)))
	assert.Equal(t, xx(0), p.MaxOver(ivl(5, 5)))
	assert.Equal(t, xx(0), p.MinOver(ivl(9, 12)))
	assert.Equal(t, xx(5), p.MinOver(ivl(8, 10)))
	u, err := p.Unroll(ivl(-5, 13))
	require.NoError(t, err)
	assert.Equal(t, "{-2:5, 0:0, 2:3, 4:0, 8:5, 10:0, 12:3, 13:0}", yarnMap(u))
	for tm := int64(-5); tm < 13; tm++ {
		assert.True(t, u.At(tm).Equal(p.At(tm)), "unroll at %d", tm)
	}
	assert.True(t, u.At(-6).IsZero())
	empty, err := p.Unroll(ivl(5, 5))
	require.NoError(t, err)
	assert.Equal(t, 0, empty.Len())
	_, err = p.Unroll(ivl(berth.MinTime, berth.MaxTime))
	assert.ErrorIs(t, err, berth.ErrInvalidArgument, "a window of 2^60 periods is refused, not unrolled")
	assert.Equal(t, "Period: 10 {2: <memory:3, vCores:3>, 4: <memory:0, vCores:0>, 8: <memory:5, vCores:5>, 10: <memory:0, vCores:0>}", p.String())
	c := p.Clone()
	require.NoError(t, c.Remove(ivl(2, 4), xx(3)))
	assert.False(t, c.Equal(p))
	assert.True(t, p.At(3).Equal(xx(3)))
	got, err := p.MaxSampled(12, 20)
	require.NoError(t, err)
	assert.Equal(t, xx(3), got, "every ≥ period: the value at tick")
	assert.False(t, p.IsEmpty())
}

func TestPeriodicAgainstModel(t *testing.T) {
	// every absolute time agrees with the pattern read at t mod period
	p, _ := NewPeriodic(24)
	r := []struct{ a, b, v int64 }{{0, 5, 1}, {3, 9, 2}, {20, 24, 4}, {10, 11, 7}}
	dense := make([]int64, 24)
	for _, x := range r {
		require.NoError(t, p.Add(ivl(x.a, x.b), xx(x.v)))
		for i := x.a; i < x.b; i++ {
			dense[i] += x.v
		}
	}
	mod := func(t int64) int64 { return ((t % 24) + 24) % 24 }
	for a := int64(-50); a < 50; a += 7 {
		for l := int64(1); l < 60; l += 5 {
			wantMax, wantMin := int64(math.MinInt64), int64(math.MaxInt64)
			for tm := a; tm < a+l; tm++ {
				wantMax, wantMin = max(wantMax, dense[mod(tm)]), min(wantMin, dense[mod(tm)])
			}
			assert.Equal(t, wantMax, p.MaxOver(ivl(a, a+l)).Memory, "max [%d,%d)", a, a+l)
			assert.Equal(t, wantMin, p.MinOver(ivl(a, a+l)).Memory, "min [%d,%d)", a, a+l)
			u, err := p.Unroll(ivl(a, a+l))
			require.NoError(t, err)
			checkInvariants(t, u)
			for tm := a - 1; tm <= a+l; tm++ {
				want := int64(0)
				if tm >= a && tm < a+l {
					want = dense[mod(tm)]
				}
				require.Equal(t, want, u.At(tm).Memory, "unroll [%d,%d) at %d", a, a+l, tm)
			}
		}
	}
}

func TestMergeOverflowIsAnError(t *testing.T) {
	a, _ := FromBreakpoints(Breakpoint{Time: 0, Value: berth.New(math.MaxInt64, 1)})
	b, _ := FromBreakpoints(Breakpoint{Time: 5, Value: berth.New(1, 1)})
	_, err := Merge(calc, cluster, a, b, OpAdd, ivl(0, 10))
	var fe *berth.FieldError
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, berth.Time(5), fe.Value)
	neg, _ := FromBreakpoints(Breakpoint{Time: 0, Value: berth.New(math.MinInt64, 1)})
	_, err = Merge(calc, cluster, neg, b, OpSubtract, ivl(0, 10))
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)
	_, err = Merge(calc, cluster, Undefined(), neg, OpSubtract, ivl(0, 10))
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)
	got, err := Merge(calc, cluster, a, b, OpMax, ivl(0, 10))
	require.NoError(t, err)
	assert.Equal(t, int64(math.MaxInt64), got.At(7).Memory)
}

func TestExtremeTimes(t *testing.T) {
	all := ivl(berth.MinTime, berth.MaxTime)
	s := New()
	require.NoError(t, s.Add(all, xx(2)))
	require.NoError(t, s.Add(ivl(-5, 5), xx(1)))
	assert.Equal(t, "{MIN: <memory:2, vCores:2>, -5: <memory:3, vCores:3>, 5: <memory:2, vCores:2>, MAX: <memory:0, vCores:0>}", s.String())
	assert.Equal(t, xx(2), s.At(berth.MinTime))
	assert.Equal(t, xx(0), s.At(berth.MaxTime), "MaxTime itself is outside every half-open interval")
	assert.Equal(t, xx(2), s.Min(all))
	assert.Equal(t, xx(3), s.Max(all))
	es, _ := s.EarliestStart()
	assert.Equal(t, berth.MinTime, es)
	c := s.Clip(ivl(berth.MinTime, 0))
	assert.Equal(t, xx(2), c.At(berth.MinTime))
	assert.Equal(t, xx(0), c.At(0))
	m, err := Merge(calc, cluster, s, s, OpAdd, all)
	require.NoError(t, err)
	assert.Equal(t, xx(6), m.At(0))
	_, def := m.Lookup(berth.MaxTime)
	assert.False(t, def)
	require.NoError(t, s.Remove(ivl(-5, 5), xx(1)))
	require.NoError(t, s.Remove(all, xx(2)))
	assert.Equal(t, 0, s.Len())
	p, _ := NewPeriodic(10)
	require.NoError(t, p.Add(ivl(0, 3), xx(1)))
	u, err := p.Unroll(ivl(berth.MaxTime-25, berth.MaxTime))
	require.NoError(t, err)
	for tm := berth.MaxTime - 25; tm < berth.MaxTime; tm++ {
		require.Equal(t, p.At(tm), u.At(tm), "at %d", tm)
	}
	checkInvariants(t, u)
}

func TestUnrollNearMinTime(t *testing.T) {
	p, _ := NewPeriodic(10)
	require.NoError(t, p.Add(ivl(0, 3), xx(1)))
	require.NoError(t, p.Add(ivl(6, 8), xx(2)))
	w := ivl(berth.MinTime, berth.MinTime+37)
	u, err := p.Unroll(w)
	require.NoError(t, err)
	for tm := w.Start; tm < w.End; tm++ {
		require.Equal(t, p.At(tm), u.At(tm), "at %d", tm)
	}
	checkInvariants(t, u)
}

func TestUpperLower(t *testing.T) {
	for n := range 12 {
		ts := make([]berth.Time, n)
		for i := range ts {
			ts[i] = berth.Time(2 * i)
		}
		for q := berth.Time(-2); q <= berth.Time(2*n+1); q++ {
			wantU, wantL := 0, 0
			for _, x := range ts {
				if x <= q {
					wantU++
				}
				if x < q {
					wantL++
				}
			}
			assert.Equal(t, wantU, upper(ts, q), "upper n=%d q=%d", n, q)
			assert.Equal(t, wantL, lower(ts, q), "lower n=%d q=%d", n, q)
		}
	}
}
