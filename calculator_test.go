package berth_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/berthsched/berth"
)

func TestDivide(t *testing.T) {
	cl := r2(100, 10)
	// DefRC: memory ratio, cluster ignored.
	assert.Equal(t, float32(0.5), memCalc.Divide(cl, r2(10, 9), r2(20, 1)))
	assert.Equal(t, float32(math.Inf(1)), memCalc.Divide(cl, r2(10, 9), r2(0, 1)))
	assert.Equal(t, float32(0), memCalc.Divide(cl, r2(0, 9), r2(0, 1)))

	// DRC: dominant share over dominant share. num <10,5>: max(0.1, 0.5) = 0.5;
	// den <50,1>: max(0.5, 0.1) = 0.5.
	assert.Equal(t, float32(1), domCalc.Divide(cl, r2(10, 5), r2(50, 1)))
	assert.Equal(t, float32(2), domCalc.Divide(cl, r2(0, 10), r2(50, 0)))
	// A type the cluster lacks is skipped on both sides.
	assert.Equal(t, float32(0.5), domCalc.Divide(r3(100, 10, 0), r3(10, 1, 99), r3(20, 1, 1)))
	assert.Equal(t, float32(4), domCalc.Divide(r3(100, 10, 4), r3(10, 1, 4), r3(20, 1, 1)), "1.0 / 0.25")
	// Zero denominators behave as YARN's float division: +Inf, and NaN for 0/0.
	assert.True(t, math.IsInf(float64(domCalc.Divide(cl, r2(10, 1), r2(0, 0))), 1))
	assert.True(t, math.IsNaN(float64(domCalc.Divide(cl, r2(0, 0), r2(0, 0)))))
	// Negative shares count as 0 (YARN's maximum starts at 0).
	assert.Equal(t, float32(0), domCalc.Divide(cl, r2(-10, -1), r2(10, 1)))
}

func TestRatio(t *testing.T) {
	// DRC's maximum starts at 0: all-negative ratios give 0.
	assert.Equal(t, float32(0), domCalc.Ratio(r2(-1, -1), r2(1, 1)))
	assert.Equal(t, float32(-1), memCalc.Ratio(r2(-1, -1), r2(1, 1)))
	// an extended type only the numerator has: x/0 = +Inf
	assert.True(t, math.IsInf(float64(domCalc.Ratio(r3(1, 1, 1), r2(1, 1))), 1))
	// an extended type absent from both: 0/0 = 0, no effect
	assert.Equal(t, float32(0.5), domCalc.Ratio(r2(1, 1), r2(2, 2)))
	// single precision, as YARN
	assert.Equal(t, float32(1)/float32(3), memCalc.Ratio(r2(1, 0), r2(3, 0)))
}

func TestInvalidDivisorAndMajorPredicates(t *testing.T) {
	cases := []struct {
		r                                     berth.Resource
		memInvalid, domInvalid, domAllInvalid bool
		domZeroOrNeg, domAbove                bool
	}{
		{r2(0, 0), true, true, true, true, false},
		{r2(1, 0), false, true, false, true, true},
		{r2(0, 1), true, true, false, true, true},
		{r2(1, 1), false, false, false, false, true},
		{r3(1, 1, 1), false, false, false, false, true},
		{r3(1, 1, -1), false, false, false, true, true},
		{r3(0, 0, 2), true, true, false, true, true},
		{r2(-1, -1), false, false, false, true, false},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.memInvalid, memCalc.IsInvalidDivisor(tc.r), "%v", tc.r)
		assert.Equal(t, tc.memInvalid, memCalc.IsAllInvalidDivisor(tc.r), "%v", tc.r)
		assert.Equal(t, tc.domInvalid, domCalc.IsInvalidDivisor(tc.r), "%v", tc.r)
		assert.Equal(t, tc.domAllInvalid, domCalc.IsAllInvalidDivisor(tc.r), "%v", tc.r)
		assert.Equal(t, tc.domZeroOrNeg, domCalc.AnyMajorZeroOrNegative(tc.r), "%v", tc.r)
		assert.Equal(t, tc.domAbove, domCalc.AnyMajorAboveZero(tc.r), "%v", tc.r)
		assert.Equal(t, tc.r.Memory <= 0, memCalc.AnyMajorZeroOrNegative(tc.r), "%v", tc.r)
		assert.Equal(t, tc.r.Memory > 0, memCalc.AnyMajorAboveZero(tc.r), "%v", tc.r)
	}
}

func TestDivideAndCeil(t *testing.T) {
	assert.True(t, domCalc.DivideAndCeil(r3(10, 7, 5), 3).Equal(r3(4, 3, 2)))
	assert.True(t, domCalc.DivideAndCeil(r3(10, 7, 5), 0).IsZero(), "n = 0 gives 0, as YARN")
	assert.Equal(t, r2(0, 0), memCalc.DivideAndCeil(r2(10, 7), 0))
}

func TestRoundingHelpers(t *testing.T) {
	cases := []struct{ a, step, up, down int64 }{
		{0, 1024, 0, 0},
		{1, 1024, 1024, 0},
		{1024, 1024, 1024, 1024},
		{1025, 1024, 2048, 1024},
		{7, 0, 0, 7}, // YARN: roundUp by 0 is 0; Berth: roundDown by 0 is a (YARN throws)
		{-5, 3, -3, -3},
		{math.MaxInt64, 1, math.MaxInt64, math.MaxInt64},
		{math.MaxInt64, 1024, math.MaxInt64, math.MaxInt64 / 1024 * 1024}, // saturates, YARN wraps negative
		{math.MaxInt64 - 2, 4, math.MaxInt64, math.MaxInt64 - 3},
		{math.MaxInt64 - 1, 2, math.MaxInt64 - 1, math.MaxInt64 - 1},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.up, berth.RoundUpTo(tc.a, tc.step), "RoundUpTo(%d, %d)", tc.a, tc.step)
		assert.Equal(t, tc.down, berth.RoundDownTo(tc.a, tc.step), "RoundDownTo(%d, %d)", tc.a, tc.step)
	}
}

func TestNormalizeWithUnboundedMaximum(t *testing.T) {
	// YARN's (a + step - 1) overflows here and would yield a negative size.
	huge := berth.New(math.MaxInt64-10, math.MaxInt64-1)
	got := domCalc.Normalize(huge, r2(1024, 1), berth.Unbounded(), r2(1024, 4))
	assert.Equal(t, berth.Unbounded(), got)
	gm := memCalc.Normalize(huge, r2(1024, 1), berth.Unbounded(), r2(1024, 1))
	assert.Equal(t, int64(math.MaxInt64), gm.Memory)
	// A type max lacks is capped at 0; give max every configured type.
	assert.Equal(t, int64(0), domCalc.Normalize(r3(1, 1, 2), r2(1, 1), r2(8, 8), r2(1, 1)).Extra("test"))
	assert.Equal(t, int64(2), domCalc.Normalize(r3(1, 1, 2), r2(1, 1), r3(8, 8, 4), r2(1, 1)).Extra("test"))
}

func TestRoundUpDown(t *testing.T) {
	step := r3(1024, 2, 0)
	assert.True(t, domCalc.RoundUp(r3(1025, 3, 5), step).Equal(r3(2048, 4, 5)), "zero step skipped")
	assert.True(t, domCalc.RoundDown(r3(1025, 3, 5), step).Equal(r3(1024, 2, 5)))
	assert.Equal(t, r2(2048, 1), memCalc.RoundUp(r3(1025, 3, 5), step))
	assert.Equal(t, r2(1024, 1), memCalc.RoundDown(r3(1025, 3, 5), step))
	assert.Equal(t, r2(0, 0), memCalc.RoundUp(r2(1025, 3), r2(0, 1)), "YARN: roundUp by a zero step is 0")
	assert.Equal(t, r2(1025, 1), memCalc.RoundDown(r2(1025, 3), r2(0, 1)), "Berth: no rounding (YARN throws)")
}

func TestMultiplyAndNormalize(t *testing.T) {
	// DefRC rounds memory×by half up, then up to the step.
	assert.Equal(t, r2(1024, 1), memCalc.MultiplyAndNormalizeUp(r2(1000, 3), 1.0005, r2(1024, 1)))
	assert.Equal(t, r2(2048, 1), memCalc.MultiplyAndNormalizeUp(r2(1000, 3), 1.025, r2(1024, 1)))
	assert.Equal(t, r2(1001, 1), memCalc.MultiplyAndNormalizeUp(r2(1000, 3), 1.0005, r2(1, 1)))
	assert.Equal(t, r2(1000, 1), memCalc.MultiplyAndNormalizeUp(r2(1000, 3), 1.0004, r2(1, 1)))
	assert.Equal(t, r2(2048, 1), memCalc.MultiplyAndNormalizeDown(r2(1500, 3), 1.5, r2(1024, 1)))
	assert.Equal(t, r2(2250, 1), memCalc.MultiplyAndNormalizeDown(r2(1500, 3), 1.5, r2(0, 0)))

	// DRC: ceil after narrowing to float32, then step (zero steps skipped).
	got := domCalc.MultiplyAndNormalizeUp(r3(1000, 3, 3), 1.5, r3(1024, 0, 2))
	assert.True(t, got.Equal(r3(2048, 5, 6)), "%v", got)
	got = domCalc.MultiplyAndNormalizeDown(r3(1000, 3, 3), 1.5, r3(1024, 0, 2))
	assert.True(t, got.Equal(r3(1024, 4, 4)), "%v", got)
	// The float32 narrowing is observable: 16777217 is not a float32, so
	// (float)(16777217×1.0) rounds to 16777216 and ceil keeps it there.
	assert.Equal(t, int64(16777216), domCalc.MultiplyAndNormalizeUp(r2(16777217, 1), 1.0, r2(0, 0)).Memory)
}
