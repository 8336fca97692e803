package policy

import (
	"math"
	"math/bits"
)

// i128 is a signed 128-bit integer. Resource-time integrals (MB × ms) of
// large clusters over long windows overflow int64; YARN wraps silently,
// Berth computes them exactly.
type i128 struct {
	hi int64
	lo uint64
}

func i128From(v int64) i128 {
	if v < 0 {
		return i128{hi: -1, lo: uint64(v)}
	}
	return i128{lo: uint64(v)}
}

func (a i128) add(b i128) i128 {
	lo, carry := bits.Add64(a.lo, b.lo, 0)
	return i128{hi: a.hi + b.hi + int64(carry), lo: lo}
}

func (a i128) neg() i128 {
	lo, borrow := bits.Sub64(0, a.lo, 0)
	return i128{hi: -a.hi - int64(borrow), lo: lo}
}

func (a i128) sub(b i128) i128 { return a.add(b.neg()) }

// mul64 returns a × b exactly.
func mul64(a, b int64) i128 {
	neg := (a < 0) != (b < 0)
	ua, ub := absU(a), absU(b)
	hi, lo := bits.Mul64(ua, ub)
	r := i128{hi: int64(hi), lo: lo}
	if neg {
		return r.neg()
	}
	return r
}

func absU(a int64) uint64 {
	if a < 0 {
		return uint64(-(a + 1)) + 1
	}
	return uint64(a)
}

func (a i128) cmp(b i128) int {
	switch {
	case a.hi < b.hi:
		return -1
	case a.hi > b.hi:
		return 1
	case a.lo < b.lo:
		return -1
	case a.lo > b.lo:
		return 1
	}
	return 0
}

// float returns a as a float64 (rounded).
func (a i128) float() float64 {
	if (a.hi == 0 && a.lo < 1<<63) || (a.hi == -1 && a.lo >= 1<<63) {
		return float64(int64(a.lo))
	}
	if a.hi < 0 {
		return -a.neg().float()
	}
	return float64(uint64(a.hi))*math.Exp2(64) + float64(a.lo)
}
