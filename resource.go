package berth

import (
	"fmt"
	"math"
	"slices"
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
	Name  string // the resource type name, e.g. ResourceGPU
	Value int64  // the amount, in the type's unit
}

// Resource is a vector of resource amounts: memory in MB, virtual cores, and
// any number of extended countable types (YARN 3 resource types). It is a
// value: every operation returns a new Resource and never changes its
// operands, so Resources can be shared freely between goroutines.
//
// A type that is not present counts as zero. YARN instead gives every
// resource all the types configured cluster-wide (missing ones are 0); Berth
// keeps no registry of configured types, so the two agree as long as a type
// that is zero everywhere changes nothing, which holds for every operation
// except the single-operand predicates discussed at [DominantCalculator].
//
// Arithmetic on resources that have only memory and vcores allocates
// nothing; extended types live in an immutable slice, sorted by name, that is
// shared, never mutated, and only copied when an operation changes it.
//
// Integer arithmetic (Add, Sub, Neg, MulInt) wraps around on overflow like
// Java's long, so adding then subtracting always restores the original
// exactly, which plan bookkeeping relies on. [Unbounded] is a sentinel to
// compare against, not to add to. Float scaling (Mul, MulRoundUp) converts
// back to integers as Java's (long) cast does: truncating, saturating at the
// int64 limits, NaN to 0.
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
// types. Duplicate names are summed; zero amounts are dropped. The names
// [ResourceMemory] and [ResourceVCores] add to the memory and vcores fields.
func NewWithExtras(memory, vcores int64, extras ...Quantity) Resource {
	r := Resource{Memory: memory, VCores: vcores}
	if len(extras) == 0 {
		return r
	}
	ext := make([]Quantity, 0, len(extras))
	for _, q := range extras {
		switch q.Name {
		case ResourceMemory:
			r.Memory += q.Value
		case ResourceVCores:
			r.VCores += q.Value
		default:
			ext = append(ext, q)
		}
	}
	// Sort stably by name and sum duplicates: O(n log n) for any input size.
	slices.SortStableFunc(ext, func(a, b Quantity) int { return strings.Compare(a.Name, b.Name) })
	out := ext[:0]
	for _, q := range ext {
		if n := len(out); n > 0 && out[n-1].Name == q.Name {
			out[n-1].Value += q.Value
			continue
		}
		out = append(out, q)
	}
	r.ext = compact(out)
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

// With returns a copy of r with type name set to v (v = 0 removes an
// extended type). Setting memory or vcores by name is allowed.
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
			done = true
			if q.Name == name {
				ext = append(ext, Quantity{Name: name, Value: v})
				continue
			}
			ext = append(ext, Quantity{Name: name, Value: v})
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

// extIter walks the union of the extended types of up to four resources in
// name order, giving each resource's amount (0 when absent). It lives on the
// caller's stack, so a walk allocates nothing.
type extIter struct {
	lists [4][]Quantity
	pos   [4]int
	n     int
	name  string
	vals  [4]int64
}

// iterExt starts a walk over the extended types of rs (at most four).
func iterExt(rs ...Resource) extIter {
	var it extIter
	it.n = len(rs)
	for i, r := range rs {
		it.lists[i] = r.ext
	}
	return it
}

// next advances to the next type name; it reports false at the end.
func (it *extIter) next() bool {
	found := false
	for i := 0; i < it.n; i++ {
		if it.pos[i] < len(it.lists[i]) {
			if nm := it.lists[i][it.pos[i]].Name; !found || nm < it.name {
				it.name, found = nm, true
			}
		}
	}
	if !found {
		return false
	}
	for i := 0; i < it.n; i++ {
		it.vals[i] = 0
		if it.pos[i] < len(it.lists[i]) && it.lists[i][it.pos[i]].Name == it.name {
			it.vals[i] = it.lists[i][it.pos[i]].Value
			it.pos[i]++
		}
	}
	return true
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

// AddOverflows reports whether r + o overflows int64 in some type, so
// that Add would wrap: the check a caller makes before adding amounts it
// does not control (a node's capability, an ask's demand).
func (r Resource) AddOverflows(o Resource) bool {
	return r.sumOverflows(o, 1)
}

// SubOverflows reports whether r − o overflows int64 in some type.
func (r Resource) SubOverflows(o Resource) bool {
	return r.sumOverflows(o, -1)
}

func (r Resource) sumOverflows(o Resource, sign int64) bool {
	over := func(x, y int64) bool {
		if sign < 0 {
			return (y > 0 && x < math.MinInt64+y) || (y < 0 && x > math.MaxInt64+y)
		}
		return (y > 0 && x > math.MaxInt64-y) || (y < 0 && x < math.MinInt64-y)
	}
	if over(r.Memory, o.Memory) || over(r.VCores, o.VCores) {
		return true
	}
	for _, q := range o.ext {
		if over(r.Extra(q.Name), q.Value) {
			return true
		}
	}
	return false
}

// AddSat returns r + o with each type's sum clamped to the int64 range
// instead of wrapping: for totals recomputed from amounts the caller does
// not control (a demand summed over applications), where a clamped value
// is a safe answer and a wrapped one is not.
func (r Resource) AddSat(o Resource) Resource {
	if !r.AddOverflows(o) {
		return r.Add(o)
	}
	out := r
	for _, t := range TypeNames(r, o) {
		a, b := r.Get(t), o.Get(t)
		v := a + b
		switch {
		case b > 0 && a > math.MaxInt64-b:
			v = math.MaxInt64
		case b < 0 && a < math.MinInt64-b:
			v = math.MinInt64
		}
		out = out.With(t, v)
	}
	return out
}

// Add returns r + o, componentwise.
func (r Resource) Add(o Resource) Resource {
	// Small enough to inline: the common case (o without extended types,
	// r's shared as they are immutable) is the schedulers' per-container
	// arithmetic.
	if len(o.ext) != 0 {
		return r.addExt(o)
	}
	r.Memory += o.Memory
	r.VCores += o.VCores
	return r
}

//go:noinline
func (r Resource) addExt(o Resource) Resource {
	out := Resource{Memory: r.Memory + o.Memory, VCores: r.VCores + o.VCores}
	if len(r.ext) == 0 {
		out.ext = o.ext
	} else {
		out.ext = mergeExt(r.ext, o.ext, addI)
	}
	return out
}

// Sub returns r - o, componentwise; results may be negative.
func (r Resource) Sub(o Resource) Resource {
	if len(o.ext) != 0 {
		return r.subExt(o)
	}
	r.Memory -= o.Memory
	r.VCores -= o.VCores
	return r
}

// subExt stays out of line so that Sub inlines.
//
//go:noinline
func (r Resource) subExt(o Resource) Resource {
	return Resource{Memory: r.Memory - o.Memory, VCores: r.VCores - o.VCores, ext: mergeExt(r.ext, o.ext, subI)}
}

// SubNonNegative returns r - o with memory and vcores clamped at zero.
// Extended types are not clamped, as in YARN's subtractFromNonNegative.
func (r Resource) SubNonNegative(o Resource) Resource {
	if len(o.ext) != 0 {
		return r.subNonNegativeExt(o)
	}
	return Resource{Memory: max(r.Memory-o.Memory, 0), VCores: max(r.VCores-o.VCores, 0), ext: r.ext}
}

//go:noinline
func (r Resource) subNonNegativeExt(o Resource) Resource {
	d := r.subExt(o)
	d.Memory = max(d.Memory, 0)
	d.VCores = max(d.VCores, 0)
	return d
}

// Neg returns -r.
func (r Resource) Neg() Resource {
	return Resource{Memory: -r.Memory, VCores: -r.VCores, ext: mapExt(r.ext, func(x int64) int64 { return -x })}
}

// javaLong converts a float64 to int64 as Java's (long) cast does: truncate
// toward zero, saturate at the int64 limits, NaN to 0. Go's own conversion
// is implementation-defined out of range, which would make Unbounded().Mul(2)
// negative.
func javaLong(v float64) int64 {
	switch {
	case v != v:
		return 0
	case v >= math.MaxInt64: // float64(MaxInt64) rounds up to 2^63
		return math.MaxInt64
	case v <= math.MinInt64:
		return math.MinInt64
	}
	return int64(v)
}

func truncF(v float64) int64 { return javaLong(v) }
func ceilF(v float64) int64  { return javaLong(math.Ceil(v)) }

// Mul returns r scaled by f, each component truncated toward zero (YARN's
// Resources.multiply and multiplyAndRoundDown).
func (r Resource) Mul(f float64) Resource { return r.scale(f, truncF) }

// MulInt returns r scaled by an integer factor, exactly (wrapping on
// overflow, like Add).
func (r Resource) MulInt(n int64) Resource {
	return Resource{Memory: r.Memory * n, VCores: r.VCores * n, ext: mapExt(r.ext, func(x int64) int64 { return x * n })}
}

// MulRoundUp returns r scaled by f, each component rounded up
// (YARN's multiplyAndRoundUp).
func (r Resource) MulRoundUp(f float64) Resource { return r.scale(f, ceilF) }

func (r Resource) scale(f float64, round func(float64) int64) Resource {
	out := Resource{Memory: round(float64(r.Memory) * f), VCores: round(float64(r.VCores) * f)}
	if len(r.ext) > 0 {
		out.ext = mapExt(r.ext, func(x int64) int64 { return round(float64(x) * f) })
	}
	return out
}

// MulAdd returns r + o*f with each product truncated (YARN's multiplyAndAddTo).
func (r Resource) MulAdd(o Resource, f float64) Resource { return r.Add(o.Mul(f)) }

func eqI(x, y int64) bool { return x == y }
func leI(x, y int64) bool { return x <= y }

// Equal reports whether every component of r and o is equal.
func (r Resource) Equal(o Resource) bool {
	return r.Memory == o.Memory && r.VCores == o.VCores && allExt(r.ext, o.ext, eqI)
}

// IsZero reports whether every component is zero (YARN's isNone).
func (r Resource) IsZero() bool { return r.Memory == 0 && r.VCores == 0 && len(r.ext) == 0 }

// FitsIn reports whether every component of r is at most the same component
// of big, independent of any calculator (YARN's static Resources.fitsIn).
func (r Resource) FitsIn(big Resource) bool {
	return r.Memory <= big.Memory && r.VCores <= big.VCores && allExt(r.ext, big.ext, leI)
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
// extended types by name (YARN uses configuration order, which only differs
// with two or more extended types). As in YARN, vcores are read through the
// int32 API and so compare clamped at math.MaxInt32: [Unbounded] compares
// equal to New(math.MaxInt64, math.MaxInt32). It is not a capacity
// comparison; use a [Calculator] for that.
func (r Resource) Compare(o Resource) int {
	if c := cmpI(r.Memory, o.Memory); c != 0 {
		return c
	}
	if c := cmpI(min(r.VCores, math.MaxInt32), min(o.VCores, math.MaxInt32)); c != 0 {
		return c
	}
	for it := iterExt(r, o); it.next(); {
		if c := cmpI(it.vals[0], it.vals[1]); c != 0 {
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
