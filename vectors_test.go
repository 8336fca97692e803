package berth_test

// Test vectors taken from Hadoop 3.3.2's TestResourceCalculator and
// TestResources, one table per vector.

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/berthsched/berth"
)

var (
	memCalc   = berth.MemoryCalculator{}
	domCalc   = berth.DominantCalculator{}
	bothCalcs = []struct {
		name string
		c    berth.Calculator
	}{{"DefRC", memCalc}, {"DRC", domCalc}}
)

func r2(m, v int64) berth.Resource { return berth.New(m, v) }

// r3 is a resource with the extended type "test" used by TestResourceCalculator.
func r3(m, v, t int64) berth.Resource {
	return berth.NewWithExtras(m, v, berth.Quantity{Name: "test", Value: t})
}

// rr is a resource with the extended type "resource2" used by TestResources.
func rr(m, v, x int64) berth.Resource {
	return berth.NewWithExtras(m, v, berth.Quantity{Name: "resource2", Value: x})
}

type cmpCase struct {
	cluster, l, r berth.Resource
	want          int
}

// checkCompare asserts compare(l, r) == want and, as the vectors require,
// compare(r, l) == -want.
func checkCompare(t *testing.T, c berth.Calculator, cases []cmpCase) {
	t.Helper()
	for _, tc := range cases {
		assert.Equal(t, tc.want, c.Compare(tc.cluster, tc.l, tc.r), "compare(%v, %v | %v)", tc.l, tc.r, tc.cluster)
		assert.Equal(t, -tc.want, c.Compare(tc.cluster, tc.r, tc.l), "compare(%v, %v | %v)", tc.r, tc.l, tc.cluster)
	}
}

func TestA01A02FitsIn(t *testing.T) {
	cases := []struct {
		small, big berth.Resource
		defRC, drc bool
	}{
		{r2(1, 2), r2(2, 1), true, false},
		{r2(1, 2), r2(2, 2), true, true},
		{r2(1, 2), r2(1, 2), true, true},
		{r2(1, 2), r2(1, 1), true, false},
		{r2(2, 1), r2(1, 2), false, false},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.defRC, memCalc.FitsIn(tc.small, tc.big), "A-01 %v in %v", tc.small, tc.big)
		assert.Equal(t, tc.drc, domCalc.FitsIn(tc.small, tc.big), "A-02 %v in %v", tc.small, tc.big)
	}
}

func TestA03CompareBoth(t *testing.T) {
	cl := r2(4, 4)
	for _, bc := range bothCalcs {
		t.Run(bc.name, func(t *testing.T) {
			checkCompare(t, bc.c, []cmpCase{
				{cl, r2(1, 1), r2(1, 1), 0},
				{cl, r2(0, 0), r2(0, 0), 0},
				{cl, r2(2, 2), r2(1, 1), 1},
				{cl, r2(2, 2), r2(0, 0), 1},
			})
		})
	}
}

func TestA04CompareDefRC(t *testing.T) {
	cl := r2(4, 4)
	checkCompare(t, memCalc, []cmpCase{
		{cl, r2(1, 1), r2(1, 1), 0},
		{cl, r2(1, 2), r2(1, 1), 0},
		{cl, r2(1, 1), r2(1, 0), 0},
		{cl, r2(2, 1), r2(1, 1), 1},
		{cl, r2(2, 1), r2(1, 2), 1},
		{cl, r2(2, 1), r2(1, 0), 1},
	})
}

func TestA05CompareDRC(t *testing.T) {
	cl := r2(4, 4)
	checkCompare(t, domCalc, []cmpCase{
		{cl, r2(2, 1), r2(2, 1), 0},
		{cl, r2(2, 1), r2(1, 2), 0},
		{cl, r2(2, 1), r2(1, 1), 1},
		{cl, r2(2, 2), r2(2, 1), 1},
		{cl, r2(2, 2), r2(1, 2), 1},
		{cl, r2(3, 1), r2(3, 0), 1},
	})
}

func TestA06CompareThreeTypesBoth(t *testing.T) {
	cl := r3(4, 4, 4)
	for _, bc := range bothCalcs {
		t.Run(bc.name, func(t *testing.T) {
			checkCompare(t, bc.c, []cmpCase{
				{cl, r3(1, 1, 1), r3(1, 1, 1), 0},
				{cl, r3(0, 0, 0), r3(0, 0, 0), 0},
				{cl, r3(2, 2, 2), r3(1, 1, 1), 1},
				{cl, r3(2, 2, 2), r3(0, 0, 0), 1},
			})
		})
	}
}

func TestA07CompareThreeTypesDefRC(t *testing.T) {
	cl := r3(4, 4, 4)
	checkCompare(t, memCalc, []cmpCase{
		{cl, r3(1, 1, 2), r3(1, 1, 1), 0},
		{cl, r3(1, 2, 1), r3(1, 1, 1), 0},
		{cl, r3(1, 2, 2), r3(1, 1, 1), 0},
		{cl, r3(1, 2, 2), r3(1, 0, 0), 0},
		{cl, r3(2, 1, 1), r3(1, 1, 1), 1},
		{cl, r3(2, 1, 1), r3(1, 2, 1), 1},
		{cl, r3(2, 1, 1), r3(1, 1, 2), 1},
		{cl, r3(2, 1, 1), r3(1, 2, 2), 1},
		{cl, r3(2, 1, 1), r3(1, 0, 0), 1},
	})
}

func TestA08CompareThreeTypesDRC(t *testing.T) {
	cl := r3(4, 4, 4)
	checkCompare(t, domCalc, []cmpCase{
		{cl, r3(2, 1, 1), r3(2, 1, 1), 0},
		{cl, r3(2, 1, 1), r3(1, 2, 1), 0},
		{cl, r3(2, 1, 1), r3(1, 1, 2), 0},
		{cl, r3(2, 1, 0), r3(0, 1, 2), 0},
		{cl, r3(2, 2, 1), r3(1, 2, 2), 0},
		{cl, r3(2, 2, 1), r3(2, 1, 2), 0},
		{cl, r3(2, 2, 1), r3(2, 2, 1), 0},
		{cl, r3(2, 2, 0), r3(2, 0, 2), 0},
		{cl, r3(3, 2, 1), r3(3, 2, 1), 0},
		{cl, r3(3, 2, 1), r3(3, 1, 2), 0},
		{cl, r3(3, 2, 1), r3(1, 2, 3), 0},
		{cl, r3(3, 2, 1), r3(1, 3, 2), 0},
		{cl, r3(3, 2, 1), r3(2, 1, 3), 0},
		{cl, r3(3, 2, 1), r3(2, 3, 1), 0},

		{cl, r3(2, 1, 1), r3(1, 1, 1), 1},
		{cl, r3(2, 1, 1), r3(1, 1, 0), 1},
		{cl, r3(2, 2, 1), r3(2, 1, 1), 1},
		{cl, r3(2, 2, 1), r3(1, 2, 1), 1},
		{cl, r3(2, 2, 1), r3(1, 1, 2), 1},
		{cl, r3(2, 2, 1), r3(0, 2, 2), 1},
		{cl, r3(2, 2, 2), r3(2, 1, 1), 1},
		{cl, r3(2, 2, 2), r3(1, 2, 1), 1},
		{cl, r3(2, 2, 2), r3(1, 1, 2), 1},
		{cl, r3(2, 2, 2), r3(2, 2, 1), 1},
		{cl, r3(2, 2, 2), r3(2, 1, 2), 1},
		{cl, r3(2, 2, 2), r3(1, 2, 2), 1},
		{cl, r3(3, 2, 1), r3(2, 2, 2), 1},
		{cl, r3(3, 1, 1), r3(2, 2, 2), 1},
		{cl, r3(3, 1, 1), r3(3, 1, 0), 1},
		{cl, r3(3, 1, 1), r3(3, 0, 0), 1},
	})
}

func TestA09CompareDRCZeroClusterType(t *testing.T) {
	cl := r3(4, 4, 0)
	checkCompare(t, domCalc, []cmpCase{
		{cl, r3(2, 1, 1), r3(1, 1, 2), 1},
		{cl, r3(2, 2, 1), r3(1, 2, 2), 1},
		{cl, r3(2, 2, 1), r3(2, 2, 2), 0},
		{cl, r3(0, 2, 1), r3(0, 2, 2), 0},
		{cl, r3(0, 1, 2), r3(1, 1, 2), -1},
		{cl, r3(1, 1, 2), r3(2, 1, 2), -1},
	})
}

func TestA10CompareDRCEmptyCluster(t *testing.T) {
	cl := r3(0, 0, 0)
	checkCompare(t, domCalc, []cmpCase{
		{cl, r3(2, 1, 1), r3(1, 1, 1), 1},
		{cl, r3(2, 2, 2), r3(1, 1, 1), 1},
		{cl, r3(2, 1, 1), r3(1, 2, 1), 0},
		{cl, r3(1, 1, 1), r3(1, 1, 1), 0},
		{cl, r3(1, 1, 1), r3(1, 1, 2), -1},
		{cl, r3(1, 1, 1), r3(1, 2, 1), -1},
	})
}

func TestA11EmptyClusterHelpers(t *testing.T) {
	type row struct {
		l, r           berth.Resource
		lt, le, gt, ge bool
		maxIsL, minIsL bool
	}
	both := []row{
		{r2(0, 0), r2(0, 0), false, true, false, true, true, true},
		{r2(1, 1), r2(0, 0), false, false, true, true, true, false},
		{r2(0, 0), r2(1, 1), true, true, false, false, false, true},
	}
	drcOnly := []row{
		{r2(1, 0), r2(0, 1), false, true, false, true, true, true},
		{r2(0, 1), r2(1, 0), false, true, false, true, true, true},
		{r2(1, 1), r2(1, 0), false, false, true, true, true, false},
		{r2(0, 1), r2(1, 1), true, true, false, false, false, true},
	}
	cl := berth.None()
	check := func(t *testing.T, c berth.Calculator, rows []row) {
		for _, tc := range rows {
			assert.Equal(t, tc.lt, berth.LessThan(c, cl, tc.l, tc.r), "lessThan %v %v", tc.l, tc.r)
			assert.Equal(t, tc.le, berth.LessOrEqual(c, cl, tc.l, tc.r), "lessOrEqual %v %v", tc.l, tc.r)
			assert.Equal(t, tc.gt, berth.GreaterThan(c, cl, tc.l, tc.r), "greaterThan %v %v", tc.l, tc.r)
			assert.Equal(t, tc.ge, berth.GreaterOrEqual(c, cl, tc.l, tc.r), "greaterOrEqual %v %v", tc.l, tc.r)
			wantMax, wantMin := tc.r, tc.r
			if tc.maxIsL {
				wantMax = tc.l
			}
			if tc.minIsL {
				wantMin = tc.l
			}
			assert.True(t, berth.Max(c, cl, tc.l, tc.r).Equal(wantMax), "max %v %v", tc.l, tc.r)
			assert.True(t, berth.Min(c, cl, tc.l, tc.r).Equal(wantMin), "min %v %v", tc.l, tc.r)
		}
	}
	for _, bc := range bothCalcs {
		t.Run(bc.name, func(t *testing.T) { check(t, bc.c, both) })
	}
	t.Run("DRC only", func(t *testing.T) { check(t, domCalc, drcOnly) })
}

func TestA12Normalize(t *testing.T) {
	cases := []struct {
		ask, lo, hi, step berth.Resource
		defMem            int64
		drc               berth.Resource
	}{
		{r2(1111, 2), r2(1024, 1), r2(8192, 8), r2(1024, 4), 2048, r2(2048, 4)},
		{r2(512, 0), r2(2048, 2), r2(8192, 8), r2(1024, 1), 2048, r2(2048, 2)},
		{r2(9216, 9), r2(2048, 2), r2(8192, 8), r2(1024, 1), 8192, r2(8192, 8)},
		{r2(1111, 2), r2(2048, 2), r2(8192, 8), r2(0, 0), 2048, r2(2048, 2)},
	}
	for _, tc := range cases {
		got := memCalc.Normalize(tc.ask, tc.lo, tc.hi, tc.step)
		// DefRC builds its result with createResource(mem): vcores 1.
		assert.Equal(t, berth.FromMemory(tc.defMem), got, "DefRC normalize %v", tc.ask)
		assert.True(t, domCalc.Normalize(tc.ask, tc.lo, tc.hi, tc.step).Equal(tc.drc), "DRC normalize %v", tc.ask)
	}
}

func TestA13A14Ratio(t *testing.T) {
	for _, bc := range bothCalcs {
		assert.Equal(t, float32(math.Inf(1)), bc.c.Ratio(r2(1, 1), r2(0, 0)), bc.name)
		assert.Equal(t, float32(0), bc.c.Ratio(r2(0, 0), r2(0, 0)), bc.name)
	}
	assert.Equal(t, float32(0.5), memCalc.Ratio(r2(1, 1), r2(2, 1)))
	assert.Equal(t, float32(1.0), domCalc.Ratio(r2(1, 1), r2(2, 1)))
	assert.Equal(t, float32(0.5), memCalc.Ratio(r3(1, 1, 2), r3(2, 1, 1)))
	assert.Equal(t, float32(2.0), domCalc.Ratio(r3(1, 1, 2), r3(2, 1, 1)))
}

func TestA15InsufficientResources(t *testing.T) {
	vals := []berth.Resource{r2(0, 0), r2(0, 1), r2(1, 0), r2(1, 1)}
	mem, vc := berth.ResourceMemory, berth.ResourceVCores
	// DRC expectations, keyed by (required, available) index into vals.
	drc := map[[2]int][]string{
		{1, 0}: {vc}, {1, 2}: {vc}, {2, 0}: {mem}, {2, 1}: {mem},
		{3, 0}: {mem, vc}, {3, 1}: {mem}, {3, 2}: {vc},
	}
	n := 0
	for i, req := range vals {
		for j, avail := range vals {
			n++
			var wantDef []string
			if req.Memory > avail.Memory {
				wantDef = []string{mem}
			}
			assert.Equal(t, wantDef, memCalc.InsufficientResources(req, avail), "DefRC %v %v", req, avail)
			assert.Equal(t, drc[[2]int{i, j}], domCalc.InsufficientResources(req, avail), "DRC %v %v", req, avail)
		}
	}
	require.Equal(t, 16, n)
	// The listed DefRC cases, spelled out.
	assert.Equal(t, []string{mem}, memCalc.InsufficientResources(r2(1, 0), r2(0, 1)))
	assert.Empty(t, memCalc.InsufficientResources(r2(0, 1), r2(0, 0)))
	assert.Empty(t, memCalc.InsufficientResources(r2(1, 1), r2(1, 0)))
}

func TestA16NaturalOrder(t *testing.T) {
	lmax, imax := int64(math.MaxInt64), int64(math.MaxInt32)
	u, none := berth.Unbounded(), berth.None()
	assert.Equal(t, 0, u.Compare(r2(lmax, imax)))
	assert.Equal(t, 1, u.Compare(r2(lmax, 0)))
	assert.Equal(t, 1, u.Compare(r2(0, imax)))
	assert.Equal(t, 0, none.Compare(r2(0, 0)))
	assert.Equal(t, -1, none.Compare(r2(1, 0)))
	assert.Equal(t, -1, none.Compare(r2(0, 1)))
	assert.Equal(t, 0, none.Compare(rr(0, 0, 0)))
	assert.Equal(t, -1, none.Compare(rr(1, 0, 0)))
	assert.Equal(t, -1, none.Compare(rr(0, 1, 0)))
	assert.Equal(t, -1, none.Compare(rr(0, 0, 1)))
	// and the mirror images
	assert.Equal(t, -1, r2(lmax, 0).Compare(u))
	assert.Equal(t, 1, rr(0, 0, 1).Compare(none))
}

func TestA17StaticFitsIn(t *testing.T) {
	cases := []struct {
		small, big berth.Resource
		want       bool
	}{
		{r2(1, 1), r2(2, 2), true},
		{r2(2, 2), r2(2, 2), true},
		{r2(2, 2), r2(1, 1), false},
		{r2(1, 2), r2(2, 1), false},
		{r2(2, 1), r2(1, 2), false},
		{rr(1, 1, 1), rr(2, 2, 2), true},
		{rr(1, 1, 0), rr(2, 2, 0), true},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.want, tc.small.FitsIn(tc.big), "%v ⊆ %v", tc.small, tc.big)
	}
}

func TestA18A19Componentwise(t *testing.T) {
	mins := []struct{ a, b, want berth.Resource }{
		{r2(1, 1), r2(2, 2), r2(1, 1)},
		{r2(2, 2), r2(1, 1), r2(1, 1)},
		{r2(1, 2), r2(2, 1), r2(1, 1)},
		{rr(1, 1, 1), rr(2, 2, 2), rr(1, 1, 1)},
		{rr(2, 2, 2), r2(1, 1), rr(1, 1, 0)},
		{rr(1, 2, 2), rr(2, 1, 3), rr(1, 1, 2)},
	}
	for _, tc := range mins {
		assert.True(t, berth.ComponentwiseMin(tc.a, tc.b).Equal(tc.want), "min(%v, %v) = %v", tc.a, tc.b, berth.ComponentwiseMin(tc.a, tc.b))
	}
	maxs := []struct{ a, b, want berth.Resource }{
		{r2(1, 1), r2(2, 2), r2(2, 2)},
		{r2(2, 2), r2(1, 1), r2(2, 2)},
		{r2(1, 2), r2(2, 1), r2(2, 2)},
		{rr(1, 1, 1), rr(2, 2, 2), rr(2, 2, 2)},
		{rr(2, 2, 2), r2(1, 1), rr(2, 2, 2)},
		{rr(1, 2, 2), rr(2, 1, 3), rr(2, 2, 3)},
		{rr(2, 2, 0), rr(2, 1, 1), rr(2, 2, 1)},
	}
	for _, tc := range maxs {
		assert.True(t, berth.ComponentwiseMax(tc.a, tc.b).Equal(tc.want), "max(%v, %v) = %v", tc.a, tc.b, berth.ComponentwiseMax(tc.a, tc.b))
	}
}

func TestA20A21AddSubtract(t *testing.T) {
	adds := []struct{ a, b, want berth.Resource }{
		{r2(1, 1), r2(1, 2), r2(2, 3)},
		{r2(1, 1), r2(2, 1), r2(3, 2)},
		{rr(1, 1, 0), rr(1, 1, 0), rr(2, 2, 0)},
		{rr(1, 1, 1), rr(1, 1, 2), rr(2, 2, 3)},
	}
	for _, tc := range adds {
		assert.True(t, tc.a.Add(tc.b).Equal(tc.want), "%v + %v = %v", tc.a, tc.b, tc.a.Add(tc.b))
	}
	subs := []struct{ a, b, want berth.Resource }{
		{r2(2, 1), r2(1, 1), r2(1, 0)},
		{r2(1, 2), r2(1, 1), r2(0, 1)},
		{rr(3, 3, 0), rr(1, 1, 0), rr(2, 2, 0)},
		{rr(2, 2, 3), rr(1, 1, 1), rr(1, 1, 2)},
	}
	for _, tc := range subs {
		assert.True(t, tc.a.Sub(tc.b).Equal(tc.want), "%v - %v = %v", tc.a, tc.b, tc.a.Sub(tc.b))
	}
}

func TestA22Clone(t *testing.T) {
	// A Resource is a value: a copy is a clone, and an absent type equals 0.
	a := r2(1, 1)
	clone := a
	assert.True(t, clone.Equal(rr(1, 1, 0)))
	assert.True(t, rr(1, 1, 0).Equal(r2(1, 1)))
	b := rr(1, 1, 2)
	clone = b
	assert.True(t, clone.Equal(rr(1, 1, 2)))
	assert.False(t, clone.Equal(r2(1, 1)))
}

func TestA23A24A25A26Multiply(t *testing.T) {
	muls := []struct {
		a    berth.Resource
		by   float64
		want berth.Resource
	}{
		{r2(2, 1), 2, r2(4, 2)},
		{r2(1, 2), 2, r2(2, 4)},
		{rr(3, 3, 0), 2, rr(6, 6, 0)},
		{rr(2, 2, 3), 2, rr(4, 4, 6)},
	}
	for _, tc := range muls {
		assert.True(t, tc.a.Mul(tc.by).Equal(tc.want), "A-23 %v × %v", tc.a, tc.by)
		assert.True(t, tc.a.MulInt(int64(tc.by)).Equal(tc.want), "A-23 MulInt %v × %v", tc.a, tc.by)
	}
	ups := []struct {
		a    berth.Resource
		by   float64
		want berth.Resource
	}{
		{r2(1, 1), 0.5, r2(1, 1)},
		{r2(2, 2), 0.5, r2(1, 1)},
		{r2(0, 0), 0.5, r2(0, 0)},
		{rr(3, 1, 5), 1.5, rr(5, 2, 8)},
		{rr(3, 1, 0), 1.5, rr(5, 2, 0)},
		{rr(3, 3, 0), 1.5, rr(5, 5, 0)},
		{rr(3, 1, 5), 2.5, rr(8, 3, 13)},
		{rr(3, 1, 0), 2.5, rr(8, 3, 0)},
		{rr(3, 3, 0), 2.5, rr(8, 8, 0)},
	}
	for _, tc := range ups {
		got := tc.a.MulRoundUp(tc.by)
		assert.True(t, got.Equal(tc.want), "A-24/25 %v × %v = %v", tc.a, tc.by, got)
	}
	downs := []struct {
		a    berth.Resource
		by   float64
		want berth.Resource
	}{
		{r2(3, 1), 1.5, r2(4, 1)},
		{r2(1, 3), 1.5, r2(1, 4)},
		{rr(3, 3, 0), 2.5, rr(7, 7, 0)},
		{rr(1, 1, 3), 2.5, rr(2, 2, 7)},
	}
	for _, tc := range downs {
		got := tc.a.Mul(tc.by)
		assert.True(t, got.Equal(tc.want), "A-26 %v × %v = %v", tc.a, tc.by, got)
	}
}

func TestA27MultiplyAndAdd(t *testing.T) {
	cases := []struct {
		l, r berth.Resource
		by   float64
		want berth.Resource
	}{
		{r2(3, 1), r2(2, 2), 1.5, r2(6, 4)},
		{r2(1, 1), r2(2, 4), 1.5, r2(4, 7)},
		{rr(3, 1, 0), rr(2, 2, 0), 1.5, rr(6, 4, 0)},
		{rr(3, 1, 2), rr(2, 2, 3), 1.5, rr(6, 4, 6)},
	}
	for _, tc := range cases {
		got := tc.l.MulAdd(tc.r, tc.by)
		assert.True(t, got.Equal(tc.want), "%v + %v×%v = %v", tc.l, tc.r, tc.by, got)
	}
}

func TestA28Uniform(t *testing.T) {
	u := berth.Uniform(11, "resource2", berth.ResourceGPU)
	assert.Equal(t, int64(11), u.Memory)
	assert.Equal(t, int64(11), u.VCores)
	assert.Equal(t, int64(11), u.Extra("resource2"))
	assert.Equal(t, int64(11), u.Extra(berth.ResourceGPU))
	assert.Len(t, u.Extras(), 2)
}

func TestA29CreateResourceQuirk(t *testing.T) {
	assert.Equal(t, r2(5, 1), berth.FromMemory(5))
	assert.Equal(t, r2(0, 0), berth.FromMemory(0))
	assert.Equal(t, r2(4, 1), memCalc.DivideAndCeil(r2(10, 7), 3))
}
