package berth

import (
	"errors"
	"math/big"
	"regexp"
	"strconv"
	"strings"
)

// ParseResource reads an absolute resource in any of the spellings YARN's
// configuration files use, so that both schedulers parse their files the
// same way:
//
//   - fair scheduler, old style: "1024 mb, 2 vcores", also "2 vcores, 1024 mb"
//     or "1024mb 2vcores"; case-insensitive; decimals are truncated
//     ("5120.3 mb" is 5120 MB), as YARN does.
//   - fair scheduler, new style: "memory-mb=1024, vcores=2, yarn.io/gpu=1":
//     integers without units; memory must be spelled memory-mb.
//   - capacity scheduler: "[memory=1024,vcores=2,yarn.io/gpu=1]" (memory or
//     memory-mb); an amount may carry a YARN unit suffix (k, M, G, T, P, Ki,
//     Mi, Gi, Ti, Pi, m, u, n, p), converted exactly to Mi as YARN does for
//     every type ("[memory=10Gi,vcores=4]" is 10240 MB).
//   - YARN's own rendering, as [Resource.String] prints it:
//     "<memory:1024, vCores:2, yarn.io/gpu: 1>".
//
// Any other name is an extended resource type and must be a valid YARN
// resource name (an optional DNS-style prefix ending in "/", then letters,
// digits, '_', '.', '-', starting and ending with a letter or digit). Types
// not mentioned are 0: a caller that needs YARN's "unspecified means
// unlimited" (fair scheduler maxResources) or "no memory means none"
// (capacity scheduler absolute capacities) applies that rule itself, and
// checks names against its configured types.
//
// Percentages ("50%", "memory-mb=50%") are not absolute amounts and are
// rejected here; they need the cluster size (package fair resolves them).
//
// Errors are *FieldError values of kind ErrInvalidArgument. Field names the
// resource type at fault ("memory-mb", "vcores", "yarn.io/gpu") or
// "resource" for the string as a whole, and Value holds the offending text.
// Berth is stricter than YARN in three places: a type given twice is an
// error (YARN keeps the last), an unknown unit or a malformed entry is an
// error (the capacity scheduler silently skips it), and negative amounts are
// rejected in every form.
func ParseResource(s string) (Resource, error) {
	t := strings.TrimSpace(s)
	switch {
	case t == "":
		return Resource{}, &FieldError{Field: "resource", Value: s, Reason: "the resource string is empty"}
	case strings.HasPrefix(t, "["):
		if !strings.HasSuffix(t, "]") {
			return Resource{}, &FieldError{Field: "resource", Value: s, Reason: `missing closing "]"`}
		}
		return parseEntries(s, t[1:len(t)-1], '=', bracketStyle)
	case strings.HasPrefix(t, "<"):
		if !strings.HasSuffix(t, ">") {
			return Resource{}, &FieldError{Field: "resource", Value: s, Reason: `missing closing ">"`}
		}
		return parseEntries(s, t[1:len(t)-1], ':', renderStyle)
	case strings.Contains(t, "%"):
		return Resource{}, &FieldError{Field: "resource", Value: s,
			Reason: "a percentage is relative to the cluster, not an absolute resource"}
	case strings.Contains(t, "="):
		return parseEntries(s, t, '=', fairStyle)
	}
	return parseOldStyle(s, t)
}

// entryStyle selects the naming and unit rules of one key/value spelling.
type entryStyle int

const (
	fairStyle    entryStyle = iota // memory-mb=1024: exact names, plain integers
	bracketStyle                   // [memory=1024]: memory alias, unit suffixes
	renderStyle                    // <memory:1024, vCores:1>: Resource.String
)

// resourceNameRE is YARN's rule for resource type names (ResourceUtils).
var resourceNameRE = regexp.MustCompile(
	`^(([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)*[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?/)?[A-Za-z0-9]([A-Za-z0-9_.-]*[A-Za-z0-9])?$`)

// parseEntries reads comma-separated name<sep>value entries.
func parseEntries(whole, body string, sep byte, style entryStyle) (Resource, error) {
	var (
		r      Resource
		extras []Quantity
	)
	seen := map[string]bool{}
	for _, part := range strings.Split(body, ",") {
		name, val, ok := strings.Cut(part, string(sep))
		name, val = strings.TrimSpace(name), strings.TrimSpace(val)
		if !ok || name == "" || strings.IndexByte(val, sep) >= 0 {
			return Resource{}, &FieldError{Field: "resource", Value: strings.TrimSpace(part),
				Reason: "every entry must be name" + string(sep) + "value in " + strconv.Quote(whole)}
		}
		canon := canonicalName(name, style)
		if canon != ResourceMemory && canon != ResourceVCores {
			if lookalikes[strings.ToLower(canon)] {
				return Resource{}, &FieldError{Field: "resource", Value: name,
					Reason: "not a resource type in this form: write " + ResourceMemory + " or " + ResourceVCores}
			}
			if !resourceNameRE.MatchString(canon) {
				return Resource{}, &FieldError{Field: "resource", Value: name, Reason: "not a valid resource type name"}
			}
		}
		if seen[canon] {
			return Resource{}, &FieldError{Field: canon, Value: part, Reason: "resource type given twice in " + strconv.Quote(whole)}
		}
		seen[canon] = true
		v, err := parseAmount(canon, val, style == bracketStyle)
		if err != nil {
			return Resource{}, err
		}
		switch canon {
		case ResourceMemory:
			r.Memory = v
		case ResourceVCores:
			r.VCores = v
		default:
			extras = append(extras, Quantity{Name: canon, Value: v})
		}
	}
	return NewWithExtras(r.Memory, r.VCores, extras...), nil
}

// lookalikes are names that mean memory or vcores but are not spelled the
// way the form requires; taking them for extended types would silently lose
// the amount.
var lookalikes = map[string]bool{"memory": true, "memory-mb": true, "mem": true, "mb": true, "vcores": true, "vcore": true, "cpu": true}

// canonicalName maps the spellings of memory and vcores each style accepts.
func canonicalName(name string, style entryStyle) string {
	switch style {
	case bracketStyle:
		if name == "memory" {
			return ResourceMemory
		}
	case renderStyle:
		switch strings.ToLower(name) {
		case "memory", ResourceMemory:
			return ResourceMemory
		case ResourceVCores:
			return ResourceVCores
		}
	}
	return name
}

// unitFactors are YARN's UnitsConversionUtil units as numerator/denominator
// of their value in the base unit.
var unitFactors = map[string][2]int64{
	"p": {1, 1e12}, "n": {1, 1e9}, "u": {1, 1e6}, "m": {1, 1e3},
	"k": {1e3, 1}, "M": {1e6, 1}, "G": {1e9, 1}, "T": {1e12, 1}, "P": {1e15, 1},
	"Ki": {1 << 10, 1}, "Mi": {1 << 20, 1}, "Gi": {1 << 30, 1}, "Ti": {1 << 40, 1}, "Pi": {1 << 50, 1},
}

// parseAmount reads a non-negative integer, with a unit suffix converted to
// Mi when units are allowed.
func parseAmount(name, val string, units bool) (int64, error) {
	num, unit := val, ""
	if units {
		i := len(val)
		for i > 0 && (val[i-1] < '0' || val[i-1] > '9') {
			i--
		}
		num, unit = val[:i], val[i:]
	}
	bad := func(reason string) (int64, error) {
		return 0, &FieldError{Field: name, Value: val, Reason: reason}
	}
	f, known := unitFactors[unit]
	if unit != "" && !known {
		return bad("unknown unit " + strconv.Quote(unit))
	}
	v, err := strconv.ParseInt(num, 10, 64)
	switch {
	case errors.Is(err, strconv.ErrRange):
		return bad("amount out of range")
	case err != nil:
		return bad("the amount must be an integer")
	case v < 0:
		return bad("the amount must not be negative")
	case unit == "" || unit == "Mi":
		return v, nil
	}
	// v × f[0] / (f[1] × 2^20), exactly, truncated like YARN's long division.
	x := new(big.Int).Mul(big.NewInt(v), big.NewInt(f[0]))
	x.Quo(x, new(big.Int).Mul(big.NewInt(f[1]), big.NewInt(1<<20)))
	if !x.IsInt64() {
		return bad("amount out of range after converting to Mi")
	}
	return x.Int64(), nil
}

var (
	oldStyleTermsRE = regexp.MustCompile(`^(\S+?\s*(?:mb|vcores))\s+(\S+?\s*(?:mb|vcores))$`)
	oldStyleNumRE   = regexp.MustCompile(`^-?\d+(\.\d*)?$`)
)

// parseOldStyle reads the fair scheduler's "1024 mb, 2 vcores" with YARN's
// shape rules: two comma-separated parts, or two "<number> <unit>" terms.
func parseOldStyle(whole, t string) (Resource, error) {
	lower := strings.ToLower(t)
	var parts []string
	if strings.Contains(lower, ",") {
		parts = strings.Split(lower, ",")
	} else if m := oldStyleTermsRE.FindStringSubmatch(lower); m != nil {
		parts = m[1:]
	}
	unparsable := &FieldError{Field: "resource", Value: whole, Reason: `cannot parse resource values: want "<n> mb, <n> vcores"`}
	if len(parts) != 2 {
		return Resource{}, unparsable
	}
	for _, p := range parts {
		if !strings.Contains(p, "mb") && !strings.Contains(p, "vcores") {
			return Resource{}, unparsable
		}
	}
	amount := func(unit, field string) (int64, error) {
		for _, p := range parts {
			i := strings.Index(p, unit)
			if i < 0 {
				continue
			}
			p = strings.TrimSpace(p)
			num := strings.TrimSpace(p[:strings.Index(p, unit)])
			if !oldStyleNumRE.MatchString(num) {
				return 0, &FieldError{Field: field, Value: p, Reason: "invalid value in " + strconv.Quote(whole)}
			}
			intPart, _, _ := strings.Cut(num, ".")
			v, err := strconv.ParseInt(intPart, 10, 64)
			switch {
			case err != nil:
				return 0, &FieldError{Field: field, Value: p, Reason: "amount out of range"}
			case strings.HasPrefix(num, "-"):
				return 0, &FieldError{Field: field, Value: p, Reason: "the amount must not be negative"}
			}
			return v, nil
		}
		return 0, &FieldError{Field: field, Value: whole, Reason: "missing resource: " + unit}
	}
	mem, err := amount("mb", ResourceMemory)
	if err != nil {
		return Resource{}, err
	}
	vc, err := amount("vcores", ResourceVCores)
	if err != nil {
		return Resource{}, err
	}
	return New(mem, vc), nil
}
