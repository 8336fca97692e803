package trace

import "math"

// The SYNTH generator must draw SLS's numbers, so this file reproduces the
// three generators SLS's SynthTraceJobProducer uses: java.util.Random (as
// commons-math's JDKRandomGenerator, which only extends it), the
// Well19937c generator every commons-math distribution owns, and the
// distributions' samplers. Each follows its Java class's documented
// algorithm bit for bit; the tests check them against sequences printed
// by the JDK and commons-math 3.6.1.

// javaRandom is java.util.Random: a 48-bit linear congruential generator.
type javaRandom struct {
	seed         int64
	nextGaussian float64
	haveGaussian bool
}

const (
	lcgMultiplier = 0x5DEECE66D
	lcgAddend     = 0xB
	lcgMask       = 1<<48 - 1
)

func newJavaRandom(seed int64) *javaRandom {
	r := &javaRandom{}
	r.setSeed(seed)
	return r
}

// setSeed is Random.setSeed: it scrambles the seed and forgets a cached
// Gaussian.
func (r *javaRandom) setSeed(seed int64) {
	r.seed = (seed ^ lcgMultiplier) & lcgMask
	r.haveGaussian = false
}

// next returns the top bits of the next state, as Random.next(bits).
func (r *javaRandom) next(bits uint) int32 {
	r.seed = (r.seed*lcgMultiplier + lcgAddend) & lcgMask
	return int32(uint64(r.seed) >> (48 - bits))
}

func (r *javaRandom) nextInt() int32 { return r.next(32) }

// nextIntN is Random.nextInt(bound), bound > 0, with its rejection of the
// values that would bias the remainder.
func (r *javaRandom) nextIntN(bound int32) int32 {
	x := r.next(31)
	m := bound - 1
	if bound&m == 0 {
		return int32((int64(bound) * int64(x)) >> 31)
	}
	for u := x; ; u = r.next(31) {
		x = u % bound
		if u-x+m >= 0 { // int32 overflow marks a biased draw, as in Java
			return x
		}
	}
}

// nextLong adds the two halves (the low one signed), as Random does.
func (r *javaRandom) nextLong() int64 {
	hi := int64(r.next(32)) << 32
	return hi + int64(r.next(32))
}

func (r *javaRandom) nextDouble() float64 {
	return float64(int64(r.next(26))<<27+int64(r.next(27))) * 0x1p-53
}

// nextGauss is Random.nextGaussian: Marsaglia's polar method with
// StrictMath's log and sqrt, keeping the second deviate for the next call.
func (r *javaRandom) nextGauss() float64 {
	if r.haveGaussian {
		r.haveGaussian = false
		return r.nextGaussian
	}
	for {
		v1 := 2*r.nextDouble() - 1
		v2 := 2*r.nextDouble() - 1
		s := v1*v1 + v2*v2
		if s >= 1 || s == 0 {
			continue
		}
		m := math.Sqrt(-2 * fdlibmLog(s) / s)
		r.nextGaussian, r.haveGaussian = v2*m, true
		return v1 * m
	}
}

// weighted picks an index with probability proportional to its weight,
// drawing one nextDouble, with SLS's SynthUtils.getWeighted arithmetic
// (a running sum compared with the scaled draw; an index past the end
// when the weights are all zero, which the readers refuse).
func (r *javaRandom) weighted(w []float64) int {
	total := 0.0
	for _, x := range w {
		total += x
	}
	x := r.nextDouble() * total
	cur := 0.0
	for i, v := range w {
		cur += v
		if cur > x {
			return i
		}
	}
	return len(w) - 1
}

// well19937c is commons-math's Well19937c generator (Panneton, L'Ecuyer
// and Matsumoto's WELL19937 with Matsumoto–Kurita tempering) with the
// BitsStreamGenerator methods the distributions call.
type well19937c struct {
	v            [wellR]int32
	index        int
	nextGaussian float64 // NaN when none is cached
}

const (
	wellK  = 19937
	wellR  = (wellK + 31) / 32
	wellM1 = 70
	wellM2 = 179
	wellM3 = 449
)

// setSeed seeds from a long as AbstractWell.setSeed(long): the two halves
// of the seed, the rest of the pool filled by the Knuth-style recurrence.
func (w *well19937c) setSeed(seed int64) {
	w.v[0] = int32(uint64(seed) >> 32)
	w.v[1] = int32(seed)
	for i := 2; i < wellR; i++ {
		l := int64(w.v[i-2]) // sign-extended, as Java widens an int
		w.v[i] = int32((1812433253*(l^(l>>30)) + int64(i)) & 0xffffffff)
	}
	w.index = 0
	w.nextGaussian = math.NaN()
}

func (w *well19937c) next(bits uint) int32 {
	i := w.index
	rm1 := (i + wellR - 1) % wellR
	rm2 := (i + wellR - 2) % wellR
	v0 := uint32(w.v[i])
	vm1 := uint32(w.v[(i+wellM1)%wellR])
	vm2 := uint32(w.v[(i+wellM2)%wellR])
	vm3 := uint32(w.v[(i+wellM3)%wellR])
	z0 := (0x80000000 & uint32(w.v[rm1])) ^ (0x7FFFFFFF & uint32(w.v[rm2]))
	z1 := (v0 ^ (v0 << 25)) ^ (vm1 ^ (vm1 >> 27))
	z2 := (vm2 >> 9) ^ (vm3 ^ (vm3 >> 1))
	z3 := z1 ^ z2
	z4 := z0 ^ (z1 ^ (z1 << 9)) ^ (z2 ^ (z2 << 21)) ^ (z3 ^ (z3 >> 21))
	w.v[i] = int32(z3)
	w.v[rm1] = int32(z4)
	w.v[rm2] &= -0x80000000
	w.index = rm1
	z4 ^= (z4 << 7) & 0xe46e1700
	z4 ^= (z4 << 15) & 0x9b868000
	return int32(z4 >> (32 - bits))
}

func (w *well19937c) nextDouble() float64 {
	hi := int64(w.next(26)) << 26
	lo := int64(w.next(26))
	return float64(hi|lo) * 0x1p-52
}

// nextGauss is BitsStreamGenerator.nextGaussian: the Box–Muller transform
// of two uniforms, caching the sine deviate for the next call.
func (w *well19937c) nextGauss() float64 {
	if !math.IsNaN(w.nextGaussian) {
		g := w.nextGaussian
		w.nextGaussian = math.NaN()
		return g
	}
	x, y := w.nextDouble(), w.nextDouble()
	alpha := 2 * math.Pi * x
	r := math.Sqrt(-2 * math.Log(y))
	w.nextGaussian = r * math.Sin(alpha)
	return r * math.Cos(alpha)
}

// javaRound is Java's Math.round(double): the closest long, ties towards
// positive infinity, NaN to 0, saturating at the long range.
func javaRound(x float64) int64 {
	if math.IsNaN(x) {
		return 0
	}
	f := math.Floor(x)
	if x-f >= 0.5 { // exact: a double's fraction is representable
		f++
	}
	switch {
	case f >= math.MaxInt64:
		return math.MaxInt64
	case f <= math.MinInt64:
		return math.MinInt64
	}
	return int64(f)
}

// fdlibmLog is StrictMath.log, fdlibm's __ieee754_log, which
// java.util.Random's Gaussian uses; written out so every platform gets
// its exact bits (Go's math.Log may use an assembly routine).
func fdlibmLog(x float64) float64 {
	const (
		ln2Hi = 6.93147180369123816490e-01
		ln2Lo = 1.90821492927058770002e-10
		two54 = 1.80143985094819840000e+16
		lg1   = 6.666666666666735130e-01
		lg2   = 3.999999999940941908e-01
		lg3   = 2.857142874366239149e-01
		lg4   = 2.222219843214978396e-01
		lg5   = 1.818357216161805012e-01
		lg6   = 1.531383769920937332e-01
		lg7   = 1.479819860511658591e-01
	)
	bits := math.Float64bits(x)
	hx := int32(bits >> 32)
	lx := uint32(bits)
	k := int32(0)
	if hx < 0x00100000 { // x < 2^-1022
		if (hx&0x7fffffff)|int32(lx) == 0 {
			return math.Inf(-1)
		}
		if hx < 0 {
			return math.NaN()
		}
		k -= 54
		x *= two54
		hx = int32(math.Float64bits(x) >> 32)
	}
	if hx >= 0x7ff00000 {
		return x + x
	}
	k += (hx >> 20) - 1023
	hx &= 0x000fffff
	i := (hx + 0x95f64) & 0x100000
	x = math.Float64frombits(uint64(uint32(hx|(i^0x3ff00000)))<<32 | uint64(uint32(math.Float64bits(x))))
	k += i >> 20
	f := x - 1.0
	dk := float64(k)
	if (0x000fffff & (2 + hx)) < 3 { // |f| < 2^-20
		if f == 0 {
			if k == 0 {
				return 0
			}
			return dk*ln2Hi + dk*ln2Lo
		}
		r := f * f * (0.5 - 0.33333333333333333*f)
		if k == 0 {
			return f - r
		}
		return dk*ln2Hi - ((r - dk*ln2Lo) - f)
	}
	s := f / (2.0 + f)
	z := s * s
	i = hx - 0x6147a
	w := z * z
	j := 0x6b851 - hx
	t1 := w * (lg2 + w*(lg4+w*lg6))
	t2 := z * (lg1 + w*(lg3+w*(lg5+w*lg7)))
	i |= j
	r := t2 + t1
	if i > 0 {
		hfsq := 0.5 * f * f
		if k == 0 {
			return f - (hfsq - s*(hfsq+r))
		}
		return dk*ln2Hi - ((hfsq - (s*(hfsq+r) + dk*ln2Lo)) - f)
	}
	if k == 0 {
		return f - s*(f-r)
	}
	return dk*ln2Hi - ((s*(f-r) - dk*ln2Lo) - f)
}

// javaQueue is java.util.PriorityQueue's binary heap: SLS orders its
// generated jobs in one, and jobs submitted in the same second leave it
// in the heap's order, not the order they were drawn in.
type javaQueue[T any] struct {
	items []T
	less  func(a, b T) int // the Comparator
}

func (q *javaQueue[T]) offer(x T) {
	k := len(q.items)
	q.items = append(q.items, x)
	for k > 0 {
		parent := (k - 1) / 2
		e := q.items[parent]
		if q.less(x, e) >= 0 {
			break
		}
		q.items[k] = e
		k = parent
	}
	q.items[k] = x
}

func (q *javaQueue[T]) poll() (T, bool) {
	var zero T
	if len(q.items) == 0 {
		return zero, false
	}
	result := q.items[0]
	n := len(q.items) - 1
	x := q.items[n]
	q.items = q.items[:n]
	if n > 0 {
		k, half := 0, n/2
		for k < half {
			child := 2*k + 1
			c := q.items[child]
			if right := child + 1; right < n && q.less(c, q.items[right]) > 0 {
				child, c = right, q.items[right]
			}
			if q.less(x, c) <= 0 {
				break
			}
			q.items[k] = c
			k = child
		}
		q.items[k] = x
	}
	return result, true
}
