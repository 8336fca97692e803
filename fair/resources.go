package fair

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/berthsched/berth"
)

// ConfigurableResource is a resource limit as the allocation file states
// it: either absolute amounts or percentages of the cluster (YARN's
// ConfigurableResource). Resolve turns it into amounts for a given cluster.
// The zero value is the absolute zero resource.
type ConfigurableResource struct {
	abs     berth.Resource
	percent bool
	// pct holds the fractions (0.5 for 50%) of memory, vcores, then the
	// configured types in order; types beyond its length count as def.
	pct []float64
	def float64
	// unbounded is YARN's default maximum: every type, configured or not,
	// at math.MaxInt64.
	unbounded bool
}

// UnboundedResource is the default maximum: unlimited in every type.
func UnboundedResource() ConfigurableResource { return ConfigurableResource{unbounded: true} }

// AbsoluteResource returns a ConfigurableResource of fixed amounts.
func AbsoluteResource(r berth.Resource) ConfigurableResource { return ConfigurableResource{abs: r} }

// PercentResource returns a ConfigurableResource of the given fractions of
// the cluster (0.5 is 50%) for memory and vcores; other types get rest.
func PercentResource(memory, vcores, rest float64) ConfigurableResource {
	return ConfigurableResource{percent: true, pct: []float64{memory, vcores}, def: rest}
}

// IsPercentage reports whether the value is relative to the cluster.
func (c ConfigurableResource) IsPercentage() bool { return c.percent }

// Absolute returns the fixed amounts; ok is false for a percentage.
func (c ConfigurableResource) Absolute() (r berth.Resource, ok bool) {
	if c.unbounded {
		return Unbounded(), true
	}
	return c.abs, !c.percent
}

// Percentage returns the fraction of the cluster for the i-th type
// (0 memory, 1 vcores, then the configured types), 0 for an absolute value.
func (c ConfigurableResource) Percentage(i int) float64 {
	if !c.percent {
		return 0
	}
	if i < len(c.pct) {
		return c.pct[i]
	}
	return c.def
}

// Resolve returns the amounts for the given cluster: absolute values as
// they are; percentages as YARN truncates them (memory and extended types
// to int64, vcores to int32).
func (c ConfigurableResource) Resolve(cluster berth.Resource, types []string) berth.Resource {
	if c.unbounded {
		return Unbounded(types...)
	}
	if !c.percent {
		return c.abs
	}
	r := berth.New(javaLong(float64(cluster.Memory)*c.Percentage(0)), javaInt(float64(cluster.VCores)*c.Percentage(1)))
	for i, t := range types {
		r = r.With(t, javaLong(float64(cluster.Get(t))*c.Percentage(i+2)))
	}
	return r
}

// String formats the value in the new style ("memory-mb=1024, vcores=2" or
// "memory-mb=50.0%, vcores=50.0%").
func (c ConfigurableResource) String() string {
	if c.unbounded {
		return "unbounded"
	}
	if !c.percent {
		parts := []string{fmt.Sprintf("memory-mb=%d", c.abs.Memory), fmt.Sprintf("vcores=%d", c.abs.VCores)}
		for _, q := range c.abs.Extras() {
			parts = append(parts, fmt.Sprintf("%s=%d", q.Name, q.Value))
		}
		return strings.Join(parts, ", ")
	}
	return fmt.Sprintf("memory-mb=%g%%, vcores=%g%%", c.Percentage(0)*100, c.Percentage(1)*100)
}

// javaInt is Java's (int) cast of a double: NaN 0, saturating at int32.
func javaInt(f float64) int64 {
	switch {
	case f != f:
		return 0
	case f >= math.MaxInt32:
		return math.MaxInt32
	case f <= math.MinInt32:
		return math.MinInt32
	}
	return int64(f)
}

// ParseResource parses a resource string of YARN's fair scheduler.
//
// It accepts the forms of YARN's
// FairSchedulerConfiguration.parseResourceConfigValue:
//
//   - "memory-mb=1024, vcores=2": integers, no units; an unlisted type
//     gets missing.
//   - "memory-mb=50%, vcores=25%": all percentages; an unlisted type gets
//     100%.
//   - "50%" (every type), "50% memory, 25% cpu" (other types 0%).
//   - "1024 mb, 2 vcores", also "2 vcores 1024 mb", any case; decimals
//     are truncated, other types are 0.
//
// types lists the extended resource types a new-style string may name
// besides memory-mb and vcores. An error is a *berth.FieldError of kind
// berth.ErrInvalidArgument whose Field is field and whose reason is YARN's
// message.
func ParseResource(field, value string, types []string, missing int64) (ConfigurableResource, error) {
	fail := func(reason string) (ConfigurableResource, error) {
		return ConfigurableResource{}, berth.InvalidField(field, value, reason)
	}
	if strings.TrimSpace(value) == "" {
		return fail("Error reading resource config--the resource string is empty.")
	}
	var (
		c      ConfigurableResource
		reason string
	)
	switch {
	case strings.Contains(value, "="):
		c, reason = parseNewStyle(value, types, missing)
	case strings.Contains(value, "%"):
		c, reason = parseOldPercent(strings.ToLower(value), len(types))
	default:
		c, reason = parseOldAbsolute(strings.ToLower(value))
	}
	if reason != "" {
		return fail(reason)
	}
	return c, nil
}

var (
	reDecimal  = regexp.MustCompile(`^-?\d+(\.\d*)?$`)
	rePercent  = regexp.MustCompile(`^(-?\d+(?:\.\d*)?)\s*%$`)
	reNewPct   = regexp.MustCompile(`^(\d+(?:\.\d*)?)\s*%$`)
	reTwoTerms = regexp.MustCompile(`^(\S+?\s*(?:mb|vcores))\s+(\S+?\s*(?:mb|vcores))$`)
)

func invalidResourceDefinition(value, msg string) string {
	return "Invalid resource definition: " + value + ". " + msg
}

// parseNewStyle reads "name=value, …".
func parseNewStyle(value string, types []string, missing int64) (ConfigurableResource, string) {
	asPercent := strings.Contains(value, "%")
	n := 2 + len(types)
	vals := make([]int64, n)
	pcts := make([]float64, n)
	for i := range n {
		vals[i], pcts[i] = missing, 1
	}
	for _, part := range strings.Split(value, ",") {
		kv := strings.Split(part, "=")
		if len(kv) != 2 {
			return ConfigurableResource{}, invalidResourceDefinition(value, "Every resource must be of the form: name=value.")
		}
		name, v := strings.TrimSpace(kv[0]), strings.TrimSpace(kv[1])
		idx := -1
		for i := range n {
			if typeAt(types, i) == name {
				idx = i
			}
		}
		if idx < 0 {
			return ConfigurableResource{}, invalidResourceDefinition(value, `The resource name, "`+name+`" was not recognized. Please check the value of yarn.resource-types in the Resource Manager's configuration files.`)
		}
		if asPercent {
			m := reNewPct.FindStringSubmatch(v)
			if m == nil {
				return ConfigurableResource{}, invalidResourceDefinition(value, `The resource values must all be percentages. "`+v+`" is either not a non-negative number or does not include the '%' symbol.`)
			}
			f, _ := strconv.ParseFloat(strings.TrimSuffix(m[1], "."), 64)
			pcts[idx] = f / 100
			continue
		}
		x, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return ConfigurableResource{}, invalidResourceDefinition(value, `The resource values must all be integers. "`+v+`" is not an integer.`)
		}
		if x < 0 {
			return ConfigurableResource{}, fmt.Sprintf("Invalid value of %s: %d, value should not be negative!", name, x)
		}
		vals[idx] = x
	}
	if asPercent {
		return ConfigurableResource{percent: true, pct: pcts, def: 1}, ""
	}
	r := berth.New(vals[0], vals[1])
	for i, t := range types {
		r = r.With(t, vals[i+2])
	}
	return ConfigurableResource{abs: r}, ""
}

// parseOldPercent reads "X%" or "X% memory, Y% cpu".
func parseOldPercent(val string, nTypes int) (ConfigurableResource, string) {
	parts := strings.Split(val, ",")
	if len(parts) == 1 {
		p, reason := percentOf(strings.TrimSpace(parts[0]), "", val)
		if reason != "" {
			return ConfigurableResource{}, reason
		}
		return ConfigurableResource{percent: true, pct: []float64{p, p}, def: p}, ""
	}
	if len(parts) != 2 {
		return ConfigurableResource{}, "Cannot parse resource values from input: " + val
	}
	find := func(unit string) (float64, string) {
		for _, p := range parts {
			p = strings.TrimSpace(p)
			if strings.Contains(p, unit) {
				return percentOf(p, unit, val)
			}
		}
		return 0, "Missing resource: " + unit
	}
	mem, reason := find("memory")
	if reason != "" {
		return ConfigurableResource{}, reason
	}
	cpu, reason := find("cpu")
	if reason != "" {
		return ConfigurableResource{}, reason
	}
	return ConfigurableResource{percent: true, pct: []float64{mem, cpu}, def: 0}, ""
}

// percentOf reads "<number> % <unit>" strictly.
func percentOf(part, unit, whole string) (float64, string) {
	bad := "Invalid percentage: " + whole
	if unit != "" {
		bad = "Invalid percentage of " + unit + ": " + part
		if !strings.HasSuffix(part, unit) {
			return 0, bad
		}
		part = strings.TrimSpace(strings.TrimSuffix(part, unit))
	}
	m := rePercent.FindStringSubmatch(part)
	if m == nil {
		return 0, bad
	}
	f, err := strconv.ParseFloat(strings.TrimSuffix(m[1], "."), 64)
	if err != nil {
		return 0, bad
	}
	if f < 0 {
		return 0, "Invalid percentage: " + whole + ", percentage should not be negative!"
	}
	return f / 100, ""
}

// parseOldAbsolute reads "1024 mb, 2 vcores" in its accepted shapes.
func parseOldAbsolute(val string) (ConfigurableResource, string) {
	unparsable := "Cannot parse resource values from input: " + val
	t := strings.TrimSpace(val)
	var parts []string
	if strings.Contains(t, ",") {
		parts = strings.Split(t, ",")
	} else if m := reTwoTerms.FindStringSubmatch(t); m != nil {
		parts = m[1:]
	}
	if len(parts) != 2 {
		return ConfigurableResource{}, unparsable
	}
	hasMB := func(p string) bool { return strings.Contains(p, "mb") }
	hasVC := func(p string) bool { return strings.Contains(p, "vcores") }
	if !hasMB(parts[0]) && !hasVC(parts[0]) || !hasMB(parts[1]) && !hasVC(parts[1]) {
		return ConfigurableResource{}, unparsable
	}
	amount := func(unit, label string) (int64, string) {
		for _, p := range parts {
			i := strings.Index(p, unit)
			if i < 0 {
				continue
			}
			num := strings.TrimSpace(p[:i])
			if !reDecimal.MatchString(num) {
				return 0, "Invalid value of " + label + ": " + strings.TrimSpace(p)
			}
			whole, _, _ := strings.Cut(num, ".")
			x, err := strconv.ParseInt(whole, 10, 64)
			if err != nil {
				return 0, "Invalid value of " + label + ": " + strings.TrimSpace(p)
			}
			if x < 0 {
				return 0, fmt.Sprintf("Invalid value of %s: %d, value should not be negative!", label, x)
			}
			return x, ""
		}
		return 0, "Missing resource: " + unit
	}
	mem, reason := amount("mb", "memory")
	if reason != "" {
		return ConfigurableResource{}, reason
	}
	vc, reason := amount("vcores", "vcores")
	if reason != "" {
		return ConfigurableResource{}, reason
	}
	return ConfigurableResource{abs: berth.New(mem, vc)}, ""
}
