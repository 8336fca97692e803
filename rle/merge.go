package rle

import (
	"fmt"

	"github.com/berthsched/berth"
)

// Op is a pointwise operator of [Merge] (YARN's RLEOperator).
type Op int

// The merge operators.
const (
	// OpAdd is a + b.
	OpAdd Op = iota
	// OpSubtract is a - b; the result may be negative.
	OpSubtract
	// OpSubtractNonNegative is a - b, failing with a *[NegativeError] where b
	// does not fit in a componentwise (YARN's subtractTestNonNegative).
	OpSubtractNonNegative
	// OpMin is the whole operand that is smaller under the calculator, ties
	// to a (YARN's Resources.min).
	OpMin
	// OpMax is the whole operand that is larger under the calculator, ties
	// to a (YARN's Resources.max).
	OpMax
)

// String returns YARN's name of the operator.
func (op Op) String() string {
	switch op {
	case OpAdd:
		return "add"
	case OpSubtract:
		return "subtract"
	case OpSubtractNonNegative:
		return "subtractTestNonNegative"
	case OpMin:
		return "min"
	case OpMax:
		return "max"
	}
	return fmt.Sprintf("Op(%d)", int(op))
}

// Merge combines a and b pointwise with op over window (YARN's
// RLESparseResourceAllocation.merge). The result is defined only inside the
// half-open window, and there only where a or b is defined, with YARN's
// rules for undefined values:
//
//	both undefined        → undefined
//	a undefined, b = y    → -y for OpSubtract, y for every other op
//	                        (including OpSubtractNonNegative and OpMin)
//	a = x, b undefined    → x
//	both defined          → x op y
//
// Outside the window the result is undefined (At reads zero), which stands
// for YARN's terminator at the window end. An empty window gives a series
// undefined everywhere (YARN's {start: null}); an inverted one is an error.
// calc and cluster are used by OpMin and OpMax only; calc must then be
// non-nil. Neither operand is changed. The cost is linear in the
// breakpoints of a and b inside the window.
func Merge(calc berth.Calculator, cluster berth.Resource, a, b *Series, op Op, window berth.Interval) (*Series, error) {
	if window.Start > window.End {
		return nil, berth.InvalidField("window", window, "start must not be after end")
	}
	if op < OpAdd || op > OpMax {
		return nil, berth.InvalidField("op", op, "unknown merge operator")
	}
	if (op == OpMin || op == OpMax) && calc == nil {
		return nil, berth.InvalidField("calculator", nil, "required by min and max")
	}
	if a == nil || b == nil {
		return nil, berth.InvalidField("operand", nil, "must not be nil")
	}
	if window.Start == window.End {
		return Undefined(), nil
	}
	pa, pb := a.pieces(window), b.pieces(window)
	var bd builder
	if window.Start != berth.MinTime {
		bd.push(Breakpoint{Time: berth.MinTime, Undefined: true})
	}
	i, j := 0, 0
	for i < len(pa) || j < len(pb) {
		var t berth.Time
		switch {
		case j >= len(pb) || (i < len(pa) && pa[i].Time < pb[j].Time):
			t = pa[i].Time
		default:
			t = pb[j].Time
		}
		for i < len(pa) && pa[i].Time == t {
			i++
		}
		for j < len(pb) && pb[j].Time == t {
			j++
		}
		// pa[i-1] and pb[j-1] are in force at t (both start at window.Start).
		p, err := combine(calc, cluster, op, t, pa[i-1], pb[j-1])
		if err != nil {
			return nil, err
		}
		bd.push(p)
	}
	bd.push(Breakpoint{Time: window.End, Undefined: true})
	return bd.done(), nil
}

// pieces returns the value in force at window.Start (at that time) and the
// breakpoints strictly inside the window.
func (s *Series) pieces(window berth.Interval) []Breakpoint {
	var out []Breakpoint
	s.scan(window.Start, window.End, nil, func(p Breakpoint) bool {
		out = append(out, p)
		return true
	})
	return out
}

func combine(calc berth.Calculator, cluster berth.Resource, op Op, t berth.Time, x, y Breakpoint) (Breakpoint, error) {
	out := Breakpoint{Time: t}
	switch {
	case x.Undefined && y.Undefined:
		out.Undefined = true
	case x.Undefined:
		out.Value = y.Value
		if op == OpSubtract {
			if sumOverflows(berth.Resource{}, y.Value, -1) {
				return out, overflowAt(t, op)
			}
			out.Value = y.Value.Neg()
		}
	case y.Undefined:
		out.Value = x.Value
	default:
		switch op {
		case OpAdd:
			if sumOverflows(x.Value, y.Value, 1) {
				return out, overflowAt(t, op)
			}
			out.Value = x.Value.Add(y.Value)
		case OpSubtract, OpSubtractNonNegative:
			if sumOverflows(x.Value, y.Value, -1) {
				return out, overflowAt(t, op)
			}
			out.Value = x.Value.Sub(y.Value)
			if op == OpSubtractNonNegative && !y.Value.FitsIn(x.Value) {
				return out, &NegativeError{Time: t, Value: out.Value}
			}
		case OpMin:
			out.Value = berth.Min(calc, cluster, x.Value, y.Value)
		case OpMax:
			out.Value = berth.Max(calc, cluster, x.Value, y.Value)
		}
	}
	return out, nil
}

// sumOverflows reports whether a + sign·b overflows int64 in some component.
func sumOverflows(a, b berth.Resource, sign int64) bool {
	if sign < 0 {
		return a.SubOverflows(b)
	}
	return a.AddOverflows(b)
}

func overflowAt(t berth.Time, op Op) error {
	return berth.InvalidField("operand", t, fmt.Sprintf("%s overflows int64 at this time", op))
}
