package berth_test

import (
	"math"
	"testing"

	"github.com/berthsched/berth"
)

// FuzzResource checks Resource arithmetic against the map model and its
// algebraic invariants, and that nothing panics on any amounts or names.
func FuzzResource(f *testing.F) {
	f.Add(int64(1), int64(2), int64(0), int64(2), int64(1), int64(1), "test", 1.5)
	f.Add(int64(3), int64(1), int64(5), int64(1), int64(1), int64(2), "resource2", 2.5)
	f.Add(int64(math.MaxInt64), int64(math.MaxInt64), int64(1), int64(1), int64(-1), int64(math.MinInt64), berth.ResourceGPU, -2.0)
	f.Add(int64(0), int64(0), int64(0), int64(0), int64(0), int64(0), berth.ResourceMemory, math.NaN())
	f.Add(int64(-5), int64(7), int64(9), int64(5), int64(-7), int64(-9), "a", math.Inf(1))
	f.Add(int64(1), int64(1), int64(1), int64(1), int64(1), int64(1), berth.ResourceVCores, 0.0)
	f.Fuzz(func(t *testing.T, m1, v1, e1, m2, v2, e2 int64, name string, by float64) {
		a := berth.NewWithExtras(m1, v1, berth.Quantity{Name: name, Value: e1})
		b := berth.NewWithExtras(m2, v2, berth.Quantity{Name: berth.ResourceGPU, Value: e2}, berth.Quantity{Name: name, Value: e1 ^ e2})
		for _, r := range []berth.Resource{a, b, a.Add(b), a.Sub(b), a.Neg(), a.Mul(by), a.MulRoundUp(by), a.MulAdd(b, by),
			a.MulInt(e2), a.SubNonNegative(b), berth.ComponentwiseMin(a, b), berth.ComponentwiseMax(a, b), a.With(name, e2)} {
			checkInvariants(t, r)
			_ = r.String()
		}
		names := berth.TypeNames(a, b)
		for _, n := range names {
			if got, want := a.Add(b).Extra(n), a.Extra(n)+b.Extra(n); got != want {
				t.Fatalf("Add %s: %d != %d", n, got, want)
			}
			if got, want := a.Sub(b).Extra(n), a.Extra(n)-b.Extra(n); got != want {
				t.Fatalf("Sub %s: %d != %d", n, got, want)
			}
		}
		if !a.Add(b).Sub(b).Equal(a) {
			t.Fatalf("(a+b)-b != a for %v %v", a, b)
		}
		if a.Equal(b) != b.Equal(a) || !a.Equal(a) {
			t.Fatal("Equal is not symmetric/reflexive")
		}
		if a.Compare(b) != -b.Compare(a) || a.Compare(a) != 0 {
			t.Fatal("natural Compare is not antisymmetric")
		}
		lo, hi := berth.ComponentwiseMin(a, b), berth.ComponentwiseMax(a, b)
		if !lo.FitsIn(a) || !lo.FitsIn(b) || !a.FitsIn(hi) || !b.FitsIn(hi) {
			t.Fatalf("componentwise min/max bounds broken: %v %v", a, b)
		}
		if w := a.With(name, e2); w.Extra(name) != e2 {
			t.Fatalf("With(%q, %d) reads %d", name, e2, w.Extra(name))
		}
		// Scaling by 1 is exact while amounts are exact in float64.
		if max(abs(m1), abs(v1), abs(e1)) < 1<<53 && !a.Mul(1).Equal(a) {
			t.Fatalf("Mul(1) changed %v", a)
		}
	})
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// FuzzCalculator calls every calculator operation on arbitrary resources and
// checks the laws: DRC Compare equals the direct model of YARN's algorithm,
// Compare is antisymmetric, Min/Max return an operand (ties: the first),
// Normalize never exceeds the maximum, AvailableContainers stays in range,
// and nothing panics (no division by zero, whatever the amounts).
func FuzzCalculator(f *testing.F) {
	add := func(c, l, r [3]int64, by float64) {
		f.Add(c[0], c[1], c[2], l[0], l[1], l[2], r[0], r[1], r[2], by)
	}
	add([3]int64{4, 4, 4}, [3]int64{3, 2, 1}, [3]int64{1, 2, 3}, 1.5)
	add([3]int64{4, 4, 0}, [3]int64{2, 1, 1}, [3]int64{1, 1, 2}, 0.5)
	add([3]int64{0, 0, 0}, [3]int64{1, 1, 1}, [3]int64{1, 2, 1}, 2)
	add([3]int64{4, 0, 0}, [3]int64{1, 0, 0}, [3]int64{1, 1, 0}, 1)
	add([3]int64{4, 4, 0}, [3]int64{3, 1, 0}, [3]int64{3, 0, 0}, -1)
	add([3]int64{math.MaxInt64, 1, 0}, [3]int64{math.MinInt64, -1, 0}, [3]int64{math.MaxInt64, math.MaxInt64, 1}, math.Inf(1))
	add([3]int64{-4, 4, 2}, [3]int64{0, 0, 0}, [3]int64{-1, -1, -1}, math.NaN())
	f.Fuzz(func(t *testing.T, cm, cv, ce, lm, lv, le, rm, rv, re int64, by float64) {
		cl, l, r := r3(cm, cv, ce), r3(lm, lv, le), r3(rm, rv, re)
		for _, bc := range bothCalcs {
			c := bc.c
			lr, rl := c.Compare(cl, l, r), c.Compare(cl, r, l)
			if lr != -rl || c.Compare(cl, l, l) != 0 || lr < -1 || lr > 1 {
				t.Fatalf("%s: compare(%v,%v|%v)=%d, reverse %d", bc.name, l, r, cl, lr, rl)
			}
			if lr <= 0 && !berth.Min(c, cl, l, r).Equal(l) || lr > 0 && !berth.Min(c, cl, l, r).Equal(r) {
				t.Fatalf("%s: Min broke the tie rule", bc.name)
			}
			if lr >= 0 && !berth.Max(c, cl, l, r).Equal(l) || lr < 0 && !berth.Max(c, cl, l, r).Equal(r) {
				t.Fatalf("%s: Max broke the tie rule", bc.name)
			}
			// Normalize(l, min=r', max=cl, step=r) never exceeds max.
			n := c.Normalize(l, berth.ComponentwiseMin(r, cl), cl, r)
			checkInvariants(t, n)
			if bc.name == "DRC" && !n.FitsIn(cl) || n.Memory > cl.Memory {
				t.Fatalf("%s: Normalize(%v) = %v exceeds max %v", bc.name, l, n, cl)
			}
			if k := c.AvailableContainers(l, r); bc.name == "DRC" && k > math.MaxInt32 {
				t.Fatalf("DRC: AvailableContainers %d above MaxInt32", k)
			}
			for _, x := range []berth.Resource{
				c.DivideAndCeil(l, rm), c.RoundUp(l, r), c.RoundDown(l, r),
				c.MultiplyAndNormalizeUp(l, by, r), c.MultiplyAndNormalizeDown(l, by, r),
			} {
				checkInvariants(t, x)
			}
			_ = c.Divide(cl, l, r)
			_ = c.Ratio(l, r)
			_, _ = c.IsInvalidDivisor(l), c.IsAllInvalidDivisor(l)
			_, _ = c.AnyMajorZeroOrNegative(l), c.AnyMajorAboveZero(l)
			for _, n := range c.InsufficientResources(l, r) {
				if l.Extra(n) <= r.Extra(n) {
					t.Fatalf("%s: %s reported insufficient but %d ≤ %d", bc.name, n, l.Extra(n), r.Extra(n))
				}
			}
			if bc.name == "DRC" && domCalc.Ratio(l, r) < 0 {
				t.Fatal("DRC ratio below 0")
			}
		}
		if got, want := domCalc.Compare(cl, l, r), yarnDRCCompare(allNames(), toModel(cl), toModel(l), toModel(r)); got != want {
			t.Fatalf("DRC compare(%v, %v | %v) = %d, YARN model %d", l, r, cl, got, want)
		}
	})
}
