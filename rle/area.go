package rle

import (
	"math"
	"math/big"
	"math/bits"
	"sort"
	"strings"

	"github.com/berthsched/berth"
)

// Int128 is a signed 128-bit integer, enough for any integral of an int64
// resource over int64 time: |value| ≤ 2^63 and the total length of the
// pieces < 2^64, so |area| < 2^127 and no sum can overflow. YARN computes the
// same integral in int64 and can overflow.
type Int128 struct {
	hi int64
	lo uint64
}

// Int128Of returns v as an Int128.
func Int128Of(v int64) Int128 { return Int128{hi: v >> 63, lo: uint64(v)} }

// mulInt128 returns the exact product x·y.
func mulInt128(x, y int64) Int128 {
	ux, uy := uint64(x), uint64(y)
	if x < 0 {
		ux = -ux
	}
	if y < 0 {
		uy = -uy
	}
	hi, lo := bits.Mul64(ux, uy)
	r := Int128{hi: int64(hi), lo: lo}
	if (x < 0) != (y < 0) {
		r = r.Neg()
	}
	return r
}

// Product returns the exact product x·y.
func Product(x, y int64) Int128 { return mulInt128(x, y) }

// Scale returns a·n, exact whenever the result fits in 128 bits (any
// integral scaled by a count of windows or steps does).
func (a Int128) Scale(n int64) Int128 {
	neg := (a.hi < 0) != (n < 0)
	if a.hi < 0 {
		a = a.Neg()
	}
	un := uint64(n)
	if n < 0 {
		un = -un
	}
	hi, lo := bits.Mul64(a.lo, un)
	r := Int128{hi: int64(uint64(a.hi)*un + hi), lo: lo}
	if neg {
		r = r.Neg()
	}
	return r
}

// Add returns a + b.
func (a Int128) Add(b Int128) Int128 {
	lo, c := bits.Add64(a.lo, b.lo, 0)
	return Int128{hi: a.hi + b.hi + int64(c), lo: lo}
}

// Sub returns a - b.
func (a Int128) Sub(b Int128) Int128 {
	lo, c := bits.Sub64(a.lo, b.lo, 0)
	return Int128{hi: a.hi - b.hi - int64(c), lo: lo}
}

// Neg returns -a.
func (a Int128) Neg() Int128 { return Int128{}.Sub(a) }

// Cmp returns -1, 0 or +1 as a is less than, equal to or greater than b.
func (a Int128) Cmp(b Int128) int {
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

// Sign returns -1, 0 or +1.
func (a Int128) Sign() int { return a.Cmp(Int128{}) }

// Int64 returns a as an int64; ok is false when it does not fit.
func (a Int128) Int64() (v int64, ok bool) {
	v = int64(a.lo)
	return v, a.hi == v>>63
}

// Float64 returns the nearest float64.
func (a Int128) Float64() float64 {
	if a.hi < 0 {
		return -a.Neg().Float64()
	}
	return float64(uint64(a.hi))*math.Exp2(64) + float64(a.lo)
}

// Big returns a as a big.Int.
func (a Int128) Big() *big.Int {
	r := new(big.Int).SetInt64(a.hi)
	r.Lsh(r, 64)
	return r.Add(r, new(big.Int).SetUint64(a.lo))
}

// String formats a in decimal.
func (a Int128) String() string {
	if v, ok := a.Int64(); ok {
		return big.NewInt(v).String()
	}
	return a.Big().String()
}

// Area is an integral of resources over time, in resource × ms, one exact
// [Int128] per resource type.
type Area struct {
	// Memory is in MB × ms.
	Memory Int128
	// VCores is in vcores × ms.
	VCores Int128
	ext    []areaQuantity // sorted by name; allocated only for extended types
}

type areaQuantity struct {
	name string
	v    Int128
}

// Extra returns the area of the named type (memory and vcores by name too).
func (a Area) Extra(name string) Int128 {
	switch name {
	case berth.ResourceMemory:
		return a.Memory
	case berth.ResourceVCores:
		return a.VCores
	}
	for _, q := range a.ext {
		if q.name == name {
			return q.v
		}
	}
	return Int128{}
}

// Equal reports whether every component is equal.
func (a Area) Equal(o Area) bool {
	if a.Memory != o.Memory || a.VCores != o.VCores {
		return false
	}
	for _, q := range a.ext {
		if o.Extra(q.name) != q.v {
			return false
		}
	}
	for _, q := range o.ext {
		if a.Extra(q.name) != q.v {
			return false
		}
	}
	return true
}

// addProduct returns a + r·d.
func (a Area) addProduct(r berth.Resource, d berth.Duration) Area {
	a.Memory = a.Memory.Add(mulInt128(r.Memory, d))
	a.VCores = a.VCores.Add(mulInt128(r.VCores, d))
	if r.HasExtras() {
		ext := append([]areaQuantity(nil), a.ext...)
		for _, q := range r.Extras() {
			p := mulInt128(q.Value, d)
			i := sort.Search(len(ext), func(i int) bool { return ext[i].name >= q.Name })
			if i < len(ext) && ext[i].name == q.Name {
				ext[i].v = ext[i].v.Add(p)
				continue
			}
			ext = append(ext, areaQuantity{})
			copy(ext[i+1:], ext[i:])
			ext[i] = areaQuantity{name: q.Name, v: p}
		}
		a.ext = ext
	}
	return a
}

// String formats the area like a resource: <memory:…, vCores:…>.
func (a Area) String() string {
	var b strings.Builder
	b.WriteString("<memory:" + a.Memory.String() + ", vCores:" + a.VCores.String())
	for _, q := range a.ext {
		b.WriteString(", " + q.name + ": " + q.v.String())
	}
	b.WriteByte('>')
	return b.String()
}

// Add returns a + o, componentwise.
func (a Area) Add(o Area) Area {
	out := Area{Memory: a.Memory.Add(o.Memory), VCores: a.VCores.Add(o.VCores)}
	if len(a.ext) == 0 && len(o.ext) == 0 {
		return out
	}
	i, j := 0, 0
	for i < len(a.ext) || j < len(o.ext) {
		switch {
		case j >= len(o.ext) || (i < len(a.ext) && a.ext[i].name < o.ext[j].name):
			out.ext = append(out.ext, a.ext[i])
			i++
		case i >= len(a.ext) || o.ext[j].name < a.ext[i].name:
			out.ext = append(out.ext, o.ext[j])
			j++
		default:
			out.ext = append(out.ext, areaQuantity{name: a.ext[i].name, v: a.ext[i].v.Add(o.ext[j].v)})
			i++
			j++
		}
	}
	return out
}

// Scale returns a·n, componentwise (exact when the result fits 128 bits).
func (a Area) Scale(n int64) Area {
	out := Area{Memory: a.Memory.Scale(n), VCores: a.VCores.Scale(n)}
	for _, q := range a.ext {
		out.ext = append(out.ext, areaQuantity{name: q.name, v: q.v.Scale(n)})
	}
	return out
}
