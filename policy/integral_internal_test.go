package policy

import (
	"math"
	"math/big"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/berthsched/berth/rle"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// yarnModel re-executes YARN's sampling walk literally: every sample point
// materialised, up and down maps, the windowed value checked at every key.
// (With the fix: the walk stops at the last breakpoint, before YARN's
// end-of-time sentinel.)
func yarnModel(segs []seg, from, to, w, limit int64) bool {
	temp := map[int64]int64{}
	for i, g := range segs {
		if i+1 == len(segs) {
			break
		}
		next := segs[i+1].t
		for k := int64(1); k <= (next-g.t)/w; k++ {
			temp[g.t+k*w] = g.v
		}
	}
	for _, g := range segs {
		temp[g.t] = g.v
	}
	keys := make([]int64, 0, len(temp))
	for k := range temp {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	up, down := map[int64]int64{}, map[int64]int64{}
	var tot, prev int64
	prevT := keys[0]
	for _, k := range keys {
		tot += prev * (k - prevT)
		n := int64(math.Floor(float64(tot)/float64(w) + 0.5))
		up[k] = n
		down[k+w] = n
		prev, prevT = temp[k], k
	}
	floor := func(m map[int64]int64, x int64) (int64, bool) {
		best, ok := int64(math.MinInt64), false
		for k := range m {
			if k <= x && k >= best {
				best, ok = k, true
			}
		}
		return m[best], ok
	}
	val := func(x int64) (int64, bool) {
		u, ok := floor(up, x)
		if !ok {
			return 0, false
		}
		d, _ := floor(down, x)
		return u - d, true
	}
	xs := []int64{from}
	for k := range up {
		xs = append(xs, k)
	}
	for k := range down {
		xs = append(xs, k)
	}
	for _, x := range xs {
		if x < from || x > to {
			continue
		}
		if v, ok := val(x); ok && v > limit {
			return true
		}
	}
	return false
}

func randSegs(r *rand.Rand) ([]seg, int64) {
	n := 1 + r.IntN(6)
	t := int64(r.IntN(20))
	var segs []seg
	for i := 0; i < n; i++ {
		segs = append(segs, seg{t: t, v: int64(r.IntN(6))})
		t += 1 + int64(r.IntN(30))
	}
	return segs, t + int64(r.IntN(10))
}

func TestYarnExceedsMatchesLiteralWalk(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 3000; i++ {
		segs, _ := randSegs(r)
		w := int64(1 + r.IntN(12))
		limit := int64(r.IntN(6))
		from := int64(r.IntN(40)) - 10
		to := from + int64(r.IntN(80))
		got, _, _ := yarnExceeds(segs, from, to, w, limit)
		want := yarnModel(segs, from, to, w, limit)
		require.Equal(t, want, got, "case %d segs=%v w=%d limit=%d [%d,%d]", i, segs, w, limit, from, to)
	}
}

func TestExactExceedsMatchesDenseModel(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 3000; i++ {
		segs, end := randSegs(r)
		w := int64(1 + r.IntN(12))
		limit := int64(r.IntN(6))
		from := int64(r.IntN(40)) - 10
		to := from + int64(r.IntN(80))
		at := func(x int64) int64 { // dense value at ms x
			if x < segs[0].t || x >= end {
				return 0
			}
			v := int64(0)
			for _, g := range segs {
				if g.t <= x {
					v = g.v
				}
			}
			return v
		}
		want := false
		for x := from; x <= to; x++ {
			var sum int64
			for y := x - w; y < x; y++ {
				sum += at(y)
			}
			if sum > limit*w {
				want = true
			}
		}
		got, _, _ := exactExceeds(segs, end, from, to, w, rle.Product(limit, w))
		require.Equal(t, want, got, "case %d segs=%v end=%d w=%d limit=%d [%d,%d]", i, segs, end, w, limit, from, to)
	}
}

func TestYarnExceedsPOLCOT19(t *testing.T) {
	// POL-COT-19: 25 h at 25 % of <1024000,1000>, window 24 h: the sample at
	// 90e6 sees 266,667 MB against a limit of 256,000.
	const w = 86_400_000
	segs := []seg{{0, 256000}, {90_000_000, 0}}
	bad, at, v := yarnExceeds(segs, -w, 90_000_000+w, w, 256000)
	assert.True(t, bad)
	assert.Equal(t, int64(90_000_000), at)
	assert.Equal(t, int64(266667), v)
}

func TestI128(t *testing.T) {
	a := rle.Product(math.MaxInt64, 4)
	assert.Equal(t, 1, a.Cmp(rle.Int128Of(math.MaxInt64)))
	assert.Equal(t, rle.Int128Of(-5), rle.Product(-1, 5))
	assert.Equal(t, -5.0, rle.Int128Of(-5).Float64())
	assert.Equal(t, 0, a.Sub(a).Cmp(rle.Int128{}))
	assert.InDelta(t, 4*float64(math.MaxInt64), a.Float64(), 1e4)
	assert.Equal(t, rle.Product(-3, 7), rle.Int128Of(-3).Scale(7))
}

func TestExactWindowBound(t *testing.T) {
	for _, c := range []struct {
		capacity int64
		percent  float32
		w        int64
		want     rle.Int128
	}{
		{6, 25, 50_000, rle.Int128Of(75_000)},         // 1.5 vcores, not 1
		{6144, 25, 50_000, rle.Product(1536, 50_000)}, // whole
		{7, 10, 3, rle.Int128Of(2)},                   // 2.1 rounds down
		{1, 12.5, 8, rle.Int128Of(1)},                 // 1/8 × 8 exactly
		{100, 0, 1000, rle.Int128{}},                  // no average at all
		{math.MaxInt64, 100, math.MaxInt64, rle.Product(math.MaxInt64, math.MaxInt64)},
		{math.MaxInt64, 1e30, math.MaxInt64, int128OfBig(new(big.Int).Lsh(big.NewInt(1), 200))},
	} {
		got := exactWindowBound(c.capacity, c.percent, c.w)
		assert.Equalf(t, 0, c.want.Cmp(got), "%d × %v %% × %d: want %v, got %v", c.capacity, c.percent, c.w, c.want, got)
	}
	// Saturation: the largest Int128.
	top := int128OfBig(new(big.Int).Lsh(big.NewInt(1), 200))
	assert.Equal(t, new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 127), big.NewInt(1)).String(), top.String())
	// Round trip below it.
	r := rand.New(rand.NewPCG(7, 7))
	for i := 0; i < 200; i++ {
		v := rle.Product(r.Int64N(math.MaxInt64), r.Int64N(math.MaxInt64))
		assert.Equal(t, 0, v.Cmp(int128OfBig(v.Big())))
	}
}

// Property: with a fractional limit (capacity × percent / 100 not whole),
// the exact check flags exactly the windows whose dense integral passes
// the real limit.
func TestExactExceedsRealLimitMatchesDenseModel(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 4))
	for i := 0; i < 2000; i++ {
		segs, end := randSegs(r)
		w := int64(1 + r.IntN(12))
		capacity := int64(1 + r.IntN(12))
		percent := float32(r.IntN(16)) * 6.25 // exact in binary: k/16 of 100 %
		from := int64(r.IntN(40)) - 10
		to := from + int64(r.IntN(80))
		at := func(x int64) int64 {
			if x < segs[0].t || x >= end {
				return 0
			}
			v := int64(0)
			for _, g := range segs {
				if g.t <= x {
					v = g.v
				}
			}
			return v
		}
		want := false
		for x := from; x <= to; x++ {
			var sum int64
			for y := x - w; y < x; y++ {
				sum += at(y)
			}
			// sum > capacity × percent/100 × w, percent = k × 6.25 = k × 100/16
			if float64(sum)*16*100 > float64(capacity)*float64(percent)*16*float64(w) {
				want = true
			}
		}
		got, _, _ := exactExceeds(segs, end, from, to, w, exactWindowBound(capacity, percent, w))
		require.Equal(t, want, got, "case %d segs=%v end=%d w=%d cap=%d percent=%v [%d,%d]", i, segs, end, w, capacity, percent, from, to)
	}
}
