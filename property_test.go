package berth_test

import (
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"sort"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/berthsched/berth"
)

// model is the reference model of a Resource: a plain map from type name to
// amount, absent meaning 0.
type model map[string]int64

var extPool = []string{"a", "test", berth.ResourceGPU}

func toModel(r berth.Resource) model {
	m := model{berth.ResourceMemory: r.Memory, berth.ResourceVCores: r.VCores}
	for _, q := range r.Extras() {
		m[q.Name] = q.Value
	}
	return m
}

func (m model) get(n string) int64 { return m[n] }

// names lists memory, vcores, then every pool type: the "configured" types.
func allNames() []string {
	return append([]string{berth.ResourceMemory, berth.ResourceVCores}, extPool...)
}

func modelOp(a, b model, f func(x, y int64) int64) model {
	out := model{}
	for _, n := range allNames() {
		out[n] = f(a.get(n), b.get(n))
	}
	return out
}

// sameAs checks r against the model on every configured type.
func sameAs(t *testing.T, m model, r berth.Resource, msg string, args ...any) {
	t.Helper()
	for _, n := range allNames() {
		if m.get(n) != r.Extra(n) { // plain compare first: assert is slow in hot loops
			assert.Equal(t, m.get(n), r.Extra(n), append([]any{msg + " type %s"}, append(args, n)...)...)
			return
		}
	}
}

// randResource draws small amounts (with negatives and zeros) over the pool.
func randResource(rng *rand.Rand, lo, hi int64) berth.Resource {
	draw := func() int64 {
		if rng.IntN(4) == 0 {
			return 0
		}
		return lo + rng.Int64N(hi-lo+1)
	}
	r := berth.New(draw(), draw())
	for _, n := range extPool {
		if rng.IntN(2) == 0 {
			r = r.With(n, draw())
		}
	}
	return r
}

// checkInvariants asserts the representation invariants visible through the
// API: extended types sorted by name, unique, non-zero, not memory/vcores.
func checkInvariants(t *testing.T, r berth.Resource) {
	t.Helper()
	ex := r.Extras()
	for i, q := range ex {
		assert.NotZero(t, q.Value, "zero extended amount in %v", r)
		assert.NotEqual(t, berth.ResourceMemory, q.Name)
		assert.NotEqual(t, berth.ResourceVCores, q.Name)
		if i > 0 {
			assert.Less(t, ex[i-1].Name, q.Name, "extended types not sorted/unique in %v", r)
		}
	}
	assert.Equal(t, len(ex) > 0, r.HasExtras())
}

func TestResourceArithmeticMatchesModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 2000; i++ {
		a, b := randResource(rng, -50, 50), randResource(rng, -50, 50)
		ma, mb := toModel(a), toModel(b)
		k := rng.Int64N(7) - 3
		f := []float64{0, 0.5, 1.5, -1.5, 2.5, 1.0 / 3}[rng.IntN(6)]

		results := map[string]struct {
			got  berth.Resource
			want model
		}{
			"add":  {a.Add(b), modelOp(ma, mb, func(x, y int64) int64 { return x + y })},
			"sub":  {a.Sub(b), modelOp(ma, mb, func(x, y int64) int64 { return x - y })},
			"neg":  {a.Neg(), modelOp(ma, mb, func(x, _ int64) int64 { return -x })},
			"mulI": {a.MulInt(k), modelOp(ma, mb, func(x, _ int64) int64 { return x * k })},
			"mul":  {a.Mul(f), modelOp(ma, mb, func(x, _ int64) int64 { return int64(float64(x) * f) })},
			"mulUp": {a.MulRoundUp(f), modelOp(ma, mb, func(x, _ int64) int64 {
				return int64(math.Ceil(float64(x) * f))
			})},
			"mulAdd": {a.MulAdd(b, f), modelOp(ma, mb, func(x, y int64) int64 { return x + int64(float64(y)*f) })},
			"min":    {berth.ComponentwiseMin(a, b), modelOp(ma, mb, func(x, y int64) int64 { return min(x, y) })},
			"max":    {berth.ComponentwiseMax(a, b), modelOp(ma, mb, func(x, y int64) int64 { return max(x, y) })},
		}
		nn := modelOp(ma, mb, func(x, y int64) int64 { return x - y })
		nn[berth.ResourceMemory] = max(nn[berth.ResourceMemory], 0)
		nn[berth.ResourceVCores] = max(nn[berth.ResourceVCores], 0)
		results["subNonNeg"] = struct {
			got  berth.Resource
			want model
		}{a.SubNonNegative(b), nn}

		for name, res := range results {
			sameAs(t, res.want, res.got, "%s(%v, %v)", name, a, b)
			checkInvariants(t, res.got)
		}

		// predicates
		eq, fits, neg, zero := true, true, false, true
		for _, n := range allNames() {
			eq = eq && ma.get(n) == mb.get(n)
			fits = fits && ma.get(n) <= mb.get(n)
			neg = neg || ma.get(n) < 0
			zero = zero && ma.get(n) == 0
		}
		assert.Equal(t, eq, a.Equal(b))
		assert.Equal(t, fits, a.FitsIn(b))
		assert.Equal(t, neg, a.AnyNegative())
		assert.Equal(t, zero, a.IsZero())

		// natural order: lexicographic over memory, vcores, then names
		want := 0
		order := append([]string{berth.ResourceMemory, berth.ResourceVCores}, slices.Sorted(slices.Values(extPool))...)
		for _, n := range order {
			if x, y := ma.get(n), mb.get(n); x != y {
				want = map[bool]int{true: -1, false: 1}[x < y]
				break
			}
		}
		assert.Equal(t, want, a.Compare(b), "compare %v %v", a, b)

		// algebra
		assert.True(t, a.Add(b).Sub(b).Equal(a))
		assert.True(t, a.Add(a.Neg()).IsZero())
		assert.True(t, a.Add(b).Equal(b.Add(a)))

		// With / Extra round trip
		n := allNames()[rng.IntN(len(allNames()))]
		v := rng.Int64N(11) - 5
		w := a.With(n, v)
		mw := toModel(a)
		mw[n] = v
		sameAs(t, mw, w, "with(%s, %d) on %v", n, v, a)
		checkInvariants(t, w)
		sameAs(t, ma, a, "With must not change its receiver")
	}
}

func TestNewWithExtrasSumsDuplicatesAndDropsZeros(t *testing.T) {
	r := berth.NewWithExtras(1, 2,
		berth.Quantity{Name: "x", Value: 2}, berth.Quantity{Name: "x", Value: 3},
		berth.Quantity{Name: "y", Value: 0}, berth.Quantity{Name: berth.ResourceMemory, Value: 5})
	assert.Equal(t, int64(6), r.Memory)
	assert.Equal(t, []berth.Quantity{{Name: "x", Value: 5}}, r.Extras())
	assert.Equal(t, []string{berth.ResourceMemory, berth.ResourceVCores, "x", "z"},
		berth.TypeNames(r, berth.NewWithExtras(0, 0, berth.Quantity{Name: "z", Value: 1}), r))
	assert.Equal(t, "<memory:6, vCores:2, x: 5>", r.String())
	assert.Equal(t, "<memory:1024, vCores:1>", berth.New(1024, 1).String())
}

func TestFloatScalingSaturatesLikeJava(t *testing.T) {
	u := berth.Unbounded()
	got := u.Mul(2)
	assert.Equal(t, int64(math.MaxInt64), got.Memory, "(long) of a too-large double saturates")
	assert.Equal(t, int64(math.MinInt64), u.Mul(-2).Memory)
	assert.Equal(t, int64(0), berth.New(5, 5).Mul(math.NaN()).Memory, "(long) NaN is 0")
	assert.Equal(t, int64(math.MaxInt64), berth.New(1, 1).MulRoundUp(math.Inf(1)).VCores)
}

// yarnDRCCompare is a direct model of YARN 3.3's DominantResourceCalculator
// compare over an explicit list of configured types.
func yarnDRCCompare(types []string, cluster, l, r model) int {
	eq, allZero := true, true
	for _, n := range types {
		eq = eq && l.get(n) == r.get(n)
		allZero = allZero && cluster.get(n) == 0
	}
	if eq {
		return 0
	}
	if allZero {
		lg, rg := false, false
		for _, n := range types {
			if l.get(n) > r.get(n) {
				lg = true
			} else if l.get(n) < r.get(n) {
				rg = true
			}
		}
		switch {
		case lg && !rg:
			return 1
		case rg && !lg:
			return -1
		}
		return 0
	}
	share := func(v, c int64) float64 {
		if c == 0 {
			return math.Inf(1)
		}
		return float64(v) / float64(c)
	}
	ls, rs := make([]float64, len(types)), make([]float64, len(types))
	for i, n := range types {
		ls[i], rs[i] = share(l.get(n), cluster.get(n)), share(r.get(n), cluster.get(n))
	}
	if len(types) == 2 {
		ld, lsub := ls[0], ls[1]
		if ls[1] > ls[0] {
			ld, lsub = ls[1], ls[0]
		}
		rd, rsub := rs[0], rs[1]
		if rs[1] > rs[0] {
			rd, rsub = rs[1], rs[0]
		}
		switch {
		case ld > rd:
			return 1
		case ld < rd:
			return -1
		case lsub > rsub:
			return 1
		case lsub < rsub:
			return -1
		}
		return 0
	}
	sort.Float64s(ls)
	sort.Float64s(rs)
	for i := len(ls) - 1; i >= 0; i-- {
		if math.IsInf(ls[i], 1) || math.IsInf(rs[i], 1) {
			continue
		}
		if d := ls[i] - rs[i]; d != 0 {
			if d > 0 {
				return 1
			}
			return -1
		}
	}
	return 0
}

func TestDominantCompareMatchesYARNForAnyConfiguredTypes(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	two := []string{berth.ResourceMemory, berth.ResourceVCores}
	for i := 0; i < 5000; i++ {
		var cl, l, r berth.Resource
		if i%2 == 0 { // memory and vcores only, with zeros in the cluster
			cl, l, r = berth.New(rng.Int64N(4), rng.Int64N(4)), berth.New(rng.Int64N(5)-1, rng.Int64N(5)-1), berth.New(rng.Int64N(5)-1, rng.Int64N(5)-1)
		} else {
			cl, l, r = randResource(rng, 0, 4), randResource(rng, -1, 4), randResource(rng, -1, 4)
		}
		got := domCalc.Compare(cl, l, r)
		// YARN with every pool type configured…
		require.Equal(t, yarnDRCCompare(allNames(), toModel(cl), toModel(l), toModel(r)), got,
			"configured=all cluster=%v l=%v r=%v", cl, l, r)
		// …and, when nothing uses an extended type, with only memory and vcores
		// configured (YARN's two-type fast path).
		if !cl.HasExtras() && !l.HasExtras() && !r.HasExtras() {
			require.Equal(t, yarnDRCCompare(two, toModel(cl), toModel(l), toModel(r)), got,
				"configured=2 cluster=%v l=%v r=%v", cl, l, r)
		}
	}
}

func TestDominantCompareZeroClusterComponentIsInfNotNaN(t *testing.T) {
	// vcores absent from the cluster: both sides' vcores shares are +Inf, so
	// memory decides. A NaN share for 0/0 would have made <1,0> > <1,1>.
	cl := berth.New(4, 0)
	assert.Equal(t, 0, domCalc.Compare(cl, r2(1, 0), r2(1, 1)))
	assert.Equal(t, 0, domCalc.Compare(cl, r2(1, 1), r2(1, 0)))
	assert.Equal(t, -1, domCalc.Compare(cl, r2(1, 5), r2(2, 0)))
	assert.Equal(t, 1, domCalc.Compare(cl, r2(1, -3), r2(0, 0)))
	// the same with an extended type (sorted-share rule)
	assert.Equal(t, 0, domCalc.Compare(r3(4, 4, 0), r3(1, 1, 0), r3(1, 1, 7)))
}

func TestCalculatorLaws(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 3000; i++ {
		cl := randResource(rng, 0, 20)
		if i%3 == 0 {
			cl = berth.New(rng.Int64N(20), rng.Int64N(20))
		}
		a, b, c := randResource(rng, -5, 20), randResource(rng, -5, 20), randResource(rng, -5, 20)
		for _, bc := range bothCalcs {
			calc := bc.c
			ab, ba := calc.Compare(cl, a, b), calc.Compare(cl, b, a)
			require.Contains(t, []int{-1, 0, 1}, ab)
			assert.Equal(t, -ab, ba, "%s antisymmetry %v %v | %v", bc.name, a, b, cl)
			assert.Equal(t, 0, calc.Compare(cl, a, a), "%s reflexive", bc.name)
			// transitivity of ≤, except DRC's dominance fallback (a partial order)
			if !cl.IsZero() || bc.name == "DefRC" {
				if calc.Compare(cl, a, b) <= 0 && calc.Compare(cl, b, c) <= 0 {
					assert.LessOrEqual(t, calc.Compare(cl, a, c), 0, "%s transitivity %v %v %v | %v", bc.name, a, b, c, cl)
				}
			}
			// Min/Max: one whole operand; ties return a.
			mn, mx := berth.Min(calc, cl, a, b), berth.Max(calc, cl, a, b)
			switch ab {
			case 0:
				assert.True(t, mn.Equal(a) && mx.Equal(a), "%s ties return a", bc.name)
			case -1:
				assert.True(t, mn.Equal(a) && mx.Equal(b))
			case 1:
				assert.True(t, mn.Equal(b) && mx.Equal(a))
			}
			assert.Equal(t, ab < 0, berth.LessThan(calc, cl, a, b))
			assert.Equal(t, ab <= 0, berth.LessOrEqual(calc, cl, a, b))
			assert.Equal(t, ab > 0, berth.GreaterThan(calc, cl, a, b))
			assert.Equal(t, ab >= 0, berth.GreaterOrEqual(calc, cl, a, b))

			// FitsIn: DRC is the static componentwise test, DefRC memory only.
			if bc.name == "DRC" {
				assert.Equal(t, a.FitsIn(b), calc.FitsIn(a, b))
			} else {
				assert.Equal(t, a.Memory <= b.Memory, calc.FitsIn(a, b))
			}
		}
	}
}

func TestNormalizeBounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for i := 0; i < 3000; i++ {
		r := randResource(rng, 0, 10000)
		lo := randResource(rng, 0, 2048)
		hi := lo.Add(randResource(rng, 0, 10000))
		step := randResource(rng, 0, 1024)

		// DRC: per type, ≤ max always; when the rounded value is not capped it
		// is ≥ max(r, min) and a multiple of a non-zero step.
		got := domCalc.Normalize(r, lo, hi, step)
		checkInvariants(t, got)
		for _, n := range allNames() {
			v, floor, s, cap := got.Extra(n), max(r.Extra(n), lo.Extra(n)), step.Extra(n), hi.Extra(n)
			require.LessOrEqual(t, v, cap, "DRC %s: %v ≤ max %v", n, got, hi)
			if v < cap {
				assert.GreaterOrEqual(t, v, floor, "DRC %s raised to min", n)
				if s != 0 {
					assert.Zero(t, v%s, "DRC %s multiple of step", n)
					assert.Less(t, v-floor, s, "DRC %s rounds up by less than a step", n)
				} else {
					assert.Equal(t, floor, v, "DRC %s: zero step means no rounding", n)
				}
			}
		}
		// DefRC: memory only, a zero step falls back to min.
		gm := memCalc.Normalize(r, lo, hi, step)
		assert.LessOrEqual(t, gm.Memory, hi.Memory)
		s := step.Memory
		if s == 0 {
			s = lo.Memory
		}
		if gm.Memory < hi.Memory {
			if s != 0 {
				assert.Zero(t, gm.Memory%s)
				assert.GreaterOrEqual(t, gm.Memory, max(r.Memory, lo.Memory))
			} else {
				assert.Zero(t, gm.Memory, "roundUp with a zero step is 0, as in YARN")
			}
		}
		assert.Equal(t, berth.FromMemory(gm.Memory), gm)

		// RoundDown ≤ r ≤ RoundUp for non-negative r and positive steps.
		pos := berth.NewWithExtras(1+rng.Int64N(512), 1+rng.Int64N(8), berth.Quantity{Name: "test", Value: 1 + rng.Int64N(4)})
		up, down := domCalc.RoundUp(r, pos), domCalc.RoundDown(r, pos)
		assert.True(t, down.FitsIn(r) && r.FitsIn(up), "%v ≤ %v ≤ %v", down, r, up)
	}
}

func TestAvailableContainersLaw(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for i := 0; i < 3000; i++ {
		avail := randResource(rng, 0, 100)
		req := berth.New(1+rng.Int64N(10), 1+rng.Int64N(5))
		if rng.IntN(2) == 0 {
			req = req.With("test", 1+rng.Int64N(3))
		}
		n := domCalc.AvailableContainers(avail, req)
		require.GreaterOrEqual(t, n, int64(0))
		assert.True(t, req.MulInt(n).FitsIn(avail), "%d × %v fits in %v", n, req, avail)
		assert.False(t, req.MulInt(n+1).FitsIn(avail), "%d × %v does not fit in %v", n+1, req, avail)

		m := memCalc.AvailableContainers(avail, req)
		assert.Equal(t, avail.Memory/req.Memory, m)
	}
	// Nothing requested bounds nothing: capped at MaxInt32 by both.
	assert.Equal(t, int64(math.MaxInt32), domCalc.AvailableContainers(r2(10, 10), r2(0, 0)))
	assert.Equal(t, int64(math.MaxInt32), memCalc.AvailableContainers(r2(10, 10), r2(0, 3)))
	assert.Equal(t, int64(math.MaxInt32), domCalc.AvailableContainers(berth.Unbounded(), r2(1, 1)))
	assert.Equal(t, int64(math.MaxInt64/2), memCalc.AvailableContainers(berth.Unbounded(), r2(2, 1)), "DefRC does not cap")
	// A type the request asks for that avail lacks: none fit.
	assert.Equal(t, int64(0), domCalc.AvailableContainers(r2(10, 10), r3(1, 1, 1)))
}

// Resources and calculators are documented as safe to share between
// goroutines: many readers of the same values (including the shared
// extended-type slices) must see consistent results under -race.
func TestSharedResourcesParallel(t *testing.T) {
	cl := berth.NewWithExtras(1000, 100, berth.Quantity{Name: berth.ResourceGPU, Value: 8})
	base := berth.NewWithExtras(10, 1, berth.Quantity{Name: berth.ResourceGPU, Value: 1})
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int64) {
			defer wg.Done()
			acc := berth.None()
			for i := 0; i < 200; i++ {
				acc = acc.Add(base)                // shares base's slice when acc has none
				_ = acc.With("test", w).Sub(base)  // copies, never mutates
				_ = domCalc.Compare(cl, acc, base) // reads cl, acc, base
				_ = berth.Max(domCalc, cl, base, acc)
			}
			if !acc.Equal(base.MulInt(200)) {
				t.Errorf("worker %d: %v", w, acc)
			}
		}(int64(w))
	}
	wg.Wait()
	assert.True(t, base.Equal(berth.NewWithExtras(10, 1, berth.Quantity{Name: berth.ResourceGPU, Value: 1})), "base unchanged")
}

// AddOverflows, SubOverflows and AddSat agree with exact arithmetic in
// big integers, extended types included.
func TestResourceOverflowChecksMatchExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	vals := []int64{0, 1, -1, 7, math.MaxInt64, math.MinInt64, math.MaxInt64 / 2, math.MinInt64 / 2, math.MaxInt64 - 1}
	pick := func() berth.Resource {
		r := berth.New(vals[rng.IntN(len(vals))], vals[rng.IntN(len(vals))])
		if rng.IntN(2) == 0 {
			r = r.With("gpu", vals[rng.IntN(len(vals))])
		}
		return r
	}
	for range 2000 {
		a, b := pick(), pick()
		addOver, subOver := false, false
		want := berth.Resource{}
		for _, n := range berth.TypeNames(a, b) {
			x, y := big.NewInt(a.Get(n)), big.NewInt(b.Get(n))
			sum := new(big.Int).Add(x, y)
			if !sum.IsInt64() {
				addOver = true
				if sum.Sign() > 0 {
					sum.SetInt64(math.MaxInt64)
				} else {
					sum.SetInt64(math.MinInt64)
				}
			}
			want = want.With(n, sum.Int64())
			if !new(big.Int).Sub(x, y).IsInt64() {
				subOver = true
			}
		}
		require.Equal(t, addOver, a.AddOverflows(b), "%v + %v", a, b)
		require.Equal(t, subOver, a.SubOverflows(b), "%v - %v", a, b)
		require.True(t, want.Equal(a.AddSat(b)), "%v +sat %v = %v, want %v", a, b, a.AddSat(b), want)
	}
}
