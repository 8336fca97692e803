package plan

import (
	"fmt"
	"math"

	"github.com/berthsched/berth"
)

// Limits is what [ValidateDefinition] checks a definition against: the
// current time and the plan's capacity, calculator and maximum periodicity.
// [Plan.Limits] fills it from a plan.
type Limits struct {
	// Now is the current time; the deadline must be later.
	Now berth.Time
	// Capacity is the plan's total capacity; the largest gang must fit.
	Capacity berth.Resource
	// Calculator compares the largest gang with the capacity.
	Calculator berth.Calculator
	// MaxPeriodicity must be a multiple of a non-zero period.
	MaxPeriodicity berth.Duration
	// StrictStages adds checks YARN leaves to the planner or skips (Berth
	// option, off by default): every stage needs Concurrency ≥ 1,
	// Containers > 0 and a multiple of Concurrency, Duration > 0 and a
	// non-negative Capability.
	// YARN's LowCostAligned agent divides by a zero duration.
	StrictStages bool
}

// Limits returns the validation limits of p at time now.
func (p *Plan) Limits(now berth.Time) Limits {
	return Limits{Now: now, Capacity: p.Capacity(), Calculator: p.cfg.Calculator, MaxPeriodicity: p.cfg.MaxPeriodicity}
}

// ValidateDefinition runs the definition checks of YARN's
// ReservationInputValidator, in YARN's order, and returns the first
// failure as a *berth.FieldError (kind berth.ErrInvalidArgument) naming the
// field and value, its Reason being YARN's message:
//
//   - a nil definition;
//   - an interpreter outside the enum (Berth: YARN's records cannot hold
//     one, its REST layer fails on it);
//   - deadline ≤ now;
//   - deadline ≤ arrival (Berth: YARN refuses it only through the minimum
//     duration, and not for R_ANY, whose agent then finds no placement);
//   - no stages;
//   - the window shorter than the minimum duration (the longest stage for
//     R_ALL, the sum of stages for R_ORDER and R_ORDER_NO_GAP; not checked
//     for R_ANY), the window starting at [Definition.PlacedArrival] (Berth:
//     nothing is placed in the past, see [System.Submit]);
//   - a gang (capability × concurrency) larger than the capacity under the
//     calculator (not checked for R_ANY);
//   - a negative period, a period shorter than deadline − arrival, or one
//     that does not divide the maximum periodicity.
//
// Like YARN it does not check the stage sizes or the maximum allocation
// unless lim.StrictStages is set. Arithmetic saturates instead of
// overflowing.
func ValidateDefinition(def *Definition, lim Limits) error {
	if def == nil {
		return berth.InvalidField(fieldDefinition, nil,
			"Missing reservation definition. Please try again by specifying a reservation definition.")
	}
	calc := lim.Calculator
	if calc == nil {
		calc = berth.MemoryCalculator{}
	}
	if err := CheckInterpreter(def.Interpreter); err != nil {
		return err
	}
	if def.Deadline <= lim.Now {
		return berth.InvalidField(fieldDeadline, def.Deadline,
			fmt.Sprintf("The specified deadline: %d is the past. Please try again with deadline in the future.", def.Deadline))
	}
	if def.Deadline <= def.Arrival {
		return berth.InvalidField(fieldDeadline, def.Deadline,
			fmt.Sprintf("The deadline must be later than the arrival (%d). Please try again with a deadline after the arrival.", def.Arrival))
	}
	if len(def.Stages) == 0 {
		return berth.InvalidField(fieldRequests, def.Stages,
			"No resources have been specified to reserve. Please try again by specifying the resources to reserve.")
	}
	if lim.StrictStages {
		if err := strictStages(def); err != nil {
			return err
		}
	}
	var minDuration berth.Duration
	var maxGang berth.Resource
	for i, s := range def.Stages {
		switch def.Interpreter {
		case RAll, RAny:
			minDuration = max(minDuration, s.Duration)
		default:
			minDuration = satAddDur(minDuration, s.Duration)
		}
		if g := s.Gang(); i == 0 {
			maxGang = g
		} else {
			maxGang = berth.Max(calc, lim.Capacity, maxGang, g)
		}
	}
	duration := satSub(def.Deadline, def.Arrival)
	arrival := def.PlacedArrival(lim.Now)
	if window := satSub(def.Deadline, arrival); window < minDuration && def.Interpreter != RAny {
		return berth.InvalidField(fieldArrival, def.Arrival,
			fmt.Sprintf("The time difference (%d) between arrival (%d) and deadline (%d) must  be greater or equal to the minimum resource duration (%d)",
				window, arrival, def.Deadline, minDuration))
	}
	if berth.GreaterThan(calc, lim.Capacity, maxGang, lim.Capacity) && def.Interpreter != RAny {
		return berth.InvalidField(fieldRequests, maxGang,
			fmt.Sprintf("The size of the largest gang in the reservation definition (%v) exceed the capacity available (%v )", maxGang, lim.Capacity))
	}
	if p := def.Period; p != 0 {
		switch {
		case p < 0:
			return berth.InvalidField(fieldRecurrence, p,
				fmt.Sprintf("Negative Period : %d. Please try again with a non-negative long value as period.", p))
		case duration > p:
			return berth.InvalidField(fieldRecurrence, p,
				fmt.Sprintf("Duration of the requested reservation: %d is greater than the recurrence: %d. Please try again with a smaller duration.", duration, p))
		case lim.MaxPeriodicity%p != 0:
			return berth.InvalidField(fieldRecurrence, p,
				fmt.Sprintf("The maximum periodicity: %d must be divisible by the recurrence expression provided: %d. Please try again with a recurrence expression that satisfies this requirement.", lim.MaxPeriodicity, p))
		}
	}
	return nil
}

// strictStages is the Berth-only stage check (see Limits.StrictStages).
func strictStages(def *Definition) error {
	for i, s := range def.Stages {
		f := fmt.Sprintf("%s.reservation-request[%d].", fieldRequests, i)
		switch {
		case s.Concurrency < 1:
			return berth.InvalidField(f+"min-concurrency", s.Concurrency, "Gang Size should be >= 1")
		case s.Containers <= 0:
			return berth.InvalidField(f+"num-containers", s.Containers, "Num containers should be > 0")
		case s.Containers%s.Concurrency != 0:
			return berth.InvalidField(f+"num-containers", s.Containers, "Parallelism must be an exact multiple of gang size")
		case s.Duration <= 0:
			return berth.InvalidField(f+"duration", s.Duration, "must be positive")
		case s.Capability.AnyNegative():
			return berth.InvalidField(f+"capability", s.Capability, "must not be negative")
		}
	}
	return nil
}

func satAddDur(a, b berth.Duration) berth.Duration {
	s := a + b
	switch {
	case b > 0 && s < a:
		return math.MaxInt64
	case b < 0 && s > a:
		return math.MinInt64
	}
	return s
}

func satSub(a, b berth.Time) berth.Duration {
	if b == math.MinInt64 {
		if a >= 0 {
			return math.MaxInt64
		}
		return a - b
	}
	return satAddDur(a, -b)
}
