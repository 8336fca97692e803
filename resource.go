package berth

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// Names of the built-in resource types, as YARN spells them.
const (
	// ResourceMemory is the memory type; its unit is the MiB (YARN's "Mi").
	ResourceMemory = "memory-mb"
	// ResourceVCores is the virtual-core type.
	ResourceVCores = "vcores"
	// ResourceGPU is YARN 3's conventional GPU type name.
	ResourceGPU = "yarn.io/gpu"
)

// Quantity is one extended (non memory, non vcores) resource type and its
// amount, e.g. {"yarn.io/gpu", 2}.
type Quantity struct {
	Name  string
	Value int64
}

// Resource is a vector of resource amounts: memory in MB, virtual cores, and
// any number of extended countable types (YARN 3 resource types). It is a
// value: every operation returns a new Resource and never changes its
// operands, so Resources can be shared freely between goroutines.
//
// A type that is not present counts as zero, as in YARN where every resource
// carries all configured types. Arithmetic on resources that have only memory
// and vcores allocates nothing; extended types live in an immutable slice that
// is shared, never mutated, and only copied when an operation changes it.
//
// Compare Resources with [Resource.Equal], not ==: two equal resources may hold
// distinct (but equal) extended-type slices.
type Resource struct {
	// Memory is the amount of memory in MB.
	Memory int64
	// VCores is the number of virtual cores.
	VCores int64
	// ext holds the extended types with a non-zero value, sorted by name.
	// It is never mutated after construction.
	ext []Quantity
}

// New returns a resource of memory MB and vcores virtual cores.
func New(memory, vcores int64) Resource { return Resource{Memory: memory, VCores: vcores} }

// NewWithExtras returns a resource with memory, vcores and the given extended
// types. Duplicate names are summed; zero amounts are dropped.
func NewWithExtras(memory, vcores int64, extras ...Quantity) Resource {
	r := Resource{Memory: memory, VCores: vcores}
	for _, q := range extras {
		r = r.With(q.Name, r.Extra(q.Name)+q.Value)
	}
	return r
}

// FromMemory mirrors YARN's single-argument Resources.createResource(mem):
// vcores is 1 when memory is positive and 0 otherwise. The memory-only
// calculator builds its results this way, which tests can observe.
func FromMemory(memory int64) Resource {
	if memory > 0 {
		return Resource{Memory: memory, VCores: 1}
	}
	return Resource{Memory: memory}
}

// Uniform returns a resource with every given type (and memory and vcores)
// set to v, like YARN's createResourceWithSameValue.
func Uniform(v int64, extraNames ...string) Resource {
	qs := make([]Quantity, len(extraNames))
	for i, n := range extraNames {
		qs[i] = Quantity{Name: n, Value: v}
	}
	return NewWithExtras(v, v, qs...)
}

// None is the zero resource.
func None() Resource { return Resource{} }

// Unbounded is the largest representable resource: memory and vcores are
// math.MaxInt64 (YARN's Long.MAX_VALUE).
func Unbounded() Resource { return Resource{Memory: math.MaxInt64, VCores: math.MaxInt64} }

// Extra returns the amount of the extended type name (0 if absent). The
// names [ResourceMemory] and [ResourceVCores] return those fields.
func (r Resource) Extra(name string) int64 {
	switch name {
	case ResourceMemory:
		return r.Memory
	case ResourceVCores:
		return r.VCores
	}
	i := sort.Search(len(r.ext), func(i int) bool { return r.ext[i].Name >= name })
	if i < len(r.ext) && r.ext[i].Name == name {
		return r.ext[i].Value
	}
	return 0
}

// Get is an alias of [Resource.Extra] that reads better for memory and vcores.
func (r Resource) Get(name string) int64 { return r.Extra(name) }

// With returns a copy of r with type name set to v. Setting memory or vcores
// by name is allowed.
func (r Resource) With(name string, v int64) Resource {
	switch name {
	case ResourceMemory:
		r.Memory = v
		return r
	case ResourceVCores:
		r.VCores = v
		return r
	}
	ext := make([]Quantity, 0, len(r.ext)+1)
	done := false
	for _, q := range r.ext {
		if !done && q.Name >= name {
			if q.Name == name {
				q.Value = v
				ext = append(ext, q)
				done = true
				continue
			}
			ext = append(ext, Quantity{Name: name, Value: v})
			done = true
		}
		ext = append(ext, q)
	}
	if !done {
		ext = append(ext, Quantity{Name: name, Value: v})
	}
	r.ext = compact(ext)
	return r
}

// Extras returns a copy of the extended types with non-zero amounts, sorted
// by name.
func (r Resource) Extras() []Quantity {
	if len(r.ext) == 0 {
		return nil
	}
	return append([]Quantity(nil), r.ext...)
}

// HasExtras reports whether r has any non-zero extended type.
func (r Resource) HasExtras() bool { return len(r.ext) > 0 }

// TypeNames returns the names of every type with a non-zero amount in any of
// rs, always starting with memory and vcores, extended types sorted by name.
func TypeNames(rs ...Resource) []string {
	names := []string{ResourceMemory, ResourceVCores}
	var extra []string
	for _, r := range rs {
		for _, q := range r.ext {
			extra = append(extra, q.Name)
		}
	}
	sort.Strings(extra)
	for i, n := range extra {
		if i == 0 || extra[i-1] != n {
			names = append(names, n)
		}
	}
	return names
}

// compact drops zero entries; it returns nil for an empty result so that
// memory+vcores-only resources never carry an empty slice.
func compact(ext []Quantity) []Quantity {
	out := ext[:0]
	for _, q := range ext {
		if q.Value != 0 {
			out = append(out, q)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// mergeExt combines two sorted extended-type slices with f applied to the
// amounts (missing amounts are 0). The fast path (both empty) allocates nothing.
func mergeExt(a, b []Quantity, f func(x, y int64) int64) []Quantity {
	if len(a) == 0 && len(b) == 0 {
		return nil
	}
	out := make([]Quantity, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j >= len(b) || (i < len(a) && a[i].Name < b[j].Name):
			out = append(out, Quantity{a[i].Name, f(a[i].Value, 0)})
			i++
		case i >= len(a) || b[j].Name < a[i].Name:
			out = append(out, Quantity{b[j].Name, f(0, b[j].Value)})
			j++
		default:
			out = append(out, Quantity{a[i].Name, f(a[i].Value, b[j].Value)})
			i++
			j++
		}
	}
	return compact(out)
}

// mapExt applies f to every extended amount.
func mapExt(a []Quantity, f func(x int64) int64) []Quantity {
	if len(a) == 0 {
		return nil
	}
	out := make([]Quantity, len(a))
	for i, q := range a {
		out[i] = Quantity{q.Name, f(q.Value)}
	}
	return compact(out)
}

// allExt reports whether pred holds for every type present in a or b
// (missing amounts are 0).
func allExt(a, b []Quantity, pred func(x, y int64) bool) bool {
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j >= len(b) || (i < len(a) && a[i].Name < b[j].Name):
			if !pred(a[i].Value, 0) {
				return false
			}
			i++
		case i >= len(a) || b[j].Name < a[i].Name:
			if !pred(0, b[j].Value) {
				return false
			}
			j++
		default:
			if !pred(a[i].Value, b[j].Value) {
				return false
			}
			i++
			j++
		}
	}
	return true
}

func addI(x, y int64) int64 { return x + y }
func subI(x, y int64) int64 { return x - y }

// Add returns r + o, componentwise.
func (r Resource) Add(o Resource) Resource {
	return Resource{Memory: r.Memory + o.Memory, VCores: r.VCores + o.VCores, ext: mergeExt(r.ext, o.ext, addI)}
}

// Sub returns r - o, componentwise; results may be negative.
func (r Resource) Sub(o Resource) Resource {
	return Resource{Memory: r.Memory - o.Memory, VCores: r.VCores - o.VCores, ext: mergeExt(r.ext, o.ext, subI)}
}

// SubNonNegative returns r - o with memory and vcores clamped at zero.
// Extended types are not clamped, as in YARN's subtractFromNonNegative.
func (r Resource) SubNonNegative(o Resource) Resource {
	d := r.Sub(o)
	d.Memory = max(d.Memory, 0)
	d.VCores = max(d.VCores, 0)
	return d
}

// Neg returns -r.
func (r Resource) Neg() Resource {
	return Resource{Memory: -r.Memory, VCores: -r.VCores, ext: mapExt(r.ext, func(x int64) int64 { return -x })}
}

// Mul returns r scaled by f, each component truncated toward zero (YARN's
// Resources.multiply and multiplyAndRoundDown).
func (r Resource) Mul(f float64) Resource {
	return r.scale(f, func(v float64) int64 { return int64(v) })
}

// MulInt returns r scaled by an integer factor, exactly.
func (r Resource) MulInt(n int64) Resource {
	return Resource{Memory: r.Memory * n, VCores: r.VCores * n, ext: mapExt(r.ext, func(x int64) int64 { return x * n })}
}

// MulRoundUp returns r scaled by f, each component rounded up
// (YARN's multiplyAndRoundUp).
func (r Resource) MulRoundUp(f float64) Resource {
	return r.scale(f, func(v float64) int64 { return int64(math.Ceil(v)) })
}

func (r Resource) scale(f float64, round func(float64) int64) Resource {
	return Resource{
		Memory: round(float64(r.Memory) * f),
		VCores: round(float64(r.VCores) * f),
		ext:    mapExt(r.ext, func(x int64) int64 { return round(float64(x) * f) }),
	}
}

// MulAdd returns r + o*f with each product truncated (YARN's multiplyAndAddTo).
func (r Resource) MulAdd(o Resource, f float64) Resource { return r.Add(o.Mul(f)) }

// Equal reports whether every component of r and o is equal.
func (r Resource) Equal(o Resource) bool {
	return r.Memory == o.Memory && r.VCores == o.VCores && allExt(r.ext, o.ext, func(x, y int64) bool { return x == y })
}

// IsZero reports whether every component is zero (YARN's isNone).
func (r Resource) IsZero() bool { return r.Memory == 0 && r.VCores == 0 && len(r.ext) == 0 }

// FitsIn reports whether every component of r is at most the same component
// of big, independent of any calculator (YARN's static Resources.fitsIn).
func (r Resource) FitsIn(big Resource) bool {
	return r.Memory <= big.Memory && r.VCores <= big.VCores && allExt(r.ext, big.ext, func(x, y int64) bool { return x <= y })
}

// AnyNegative reports whether some component is negative.
func (r Resource) AnyNegative() bool {
	if r.Memory < 0 || r.VCores < 0 {
		return true
	}
	for _, q := range r.ext {
		if q.Value < 0 {
			return true
		}
	}
	return false
}

// ComponentwiseMin returns the per-component minimum of r and o.
func ComponentwiseMin(r, o Resource) Resource {
	return Resource{Memory: min(r.Memory, o.Memory), VCores: min(r.VCores, o.VCores), ext: mergeExt(r.ext, o.ext, func(x, y int64) int64 { return min(x, y) })}
}

// ComponentwiseMax returns the per-component maximum of r and o.
func ComponentwiseMax(r, o Resource) Resource {
	return Resource{Memory: max(r.Memory, o.Memory), VCores: max(r.VCores, o.VCores), ext: mergeExt(r.ext, o.ext, func(x, y int64) int64 { return max(x, y) })}
}

// Compare is the natural order of resources used for sorting and tie breaks
// (YARN's Resource.compareTo): lexicographic over memory, vcores, then the
// extended types by name. It is not a capacity comparison; use a
// [Calculator] for that.
func (r Resource) Compare(o Resource) int {
	if c := cmpI(r.Memory, o.Memory); c != 0 {
		return c
	}
	if c := cmpI(r.VCores, o.VCores); c != 0 {
		return c
	}
	for _, n := range TypeNames(r, o)[2:] {
		if c := cmpI(r.Extra(n), o.Extra(n)); c != 0 {
			return c
		}
	}
	return 0
}

func cmpI(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// String formats r as YARN does: <memory:1024, vCores:1> with extended types
// appended, e.g. <memory:1024, vCores:1, yarn.io/gpu: 2>.
func (r Resource) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "<memory:%d, vCores:%d", r.Memory, r.VCores)
	for _, q := range r.ext {
		fmt.Fprintf(&b, ", %s: %d", q.Name, q.Value)
	}
	b.WriteByte('>')
	return b.String()
}
