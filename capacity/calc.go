package capacity

import "github.com/berthsched/berth"

// The walk and the commit compare and round resources a few dozen times
// per container. Through the berth.Calculator interface each of those is
// an indirect call copying its resources; with the memory calculator (the
// default, YARN's DefaultResourceCalculator) the helpers below call its
// methods on the concrete type instead, which the compiler inlines into
// them (the other calculators' calls are kept out of line, the *Any
// functions, so that each helper stays a short static call). The results
// are the calculator's own in both cases: only the dispatch differs.

// memCalc reports whether c is the memory calculator (as a value, the form
// DefaultConfig and ParseXML give).
func memCalc(c berth.Calculator) bool {
	_, ok := c.(berth.MemoryCalculator)
	return ok
}

// setCalc installs c as the scheduler's calculator.
func (s *Scheduler) setCalc(c berth.Calculator) {
	s.calculator, s.mem = c, memCalc(c)
}

// cmp is s.calculator.Compare(s.walkCluster, a, b): the resource a walk compares against
// (the default partition's, but a labelled partition's during its walk).
func (s *Scheduler) cmp(a, b *berth.Resource) int {
	if s.mem {
		// The memory calculator compares without the cluster.
		return berth.MemoryCalculator{}.Compare(berth.Resource{}, *a, *b)
	}
	return s.cmpAny(a, b)
}

//go:noinline
func (s *Scheduler) cmpAny(a, b *berth.Resource) int {
	return s.calculator.Compare(s.walkCluster, *a, *b)
}

// rmin is berth.Min(s.calculator, s.cluster, a, b).
func (s *Scheduler) rmin(a, b berth.Resource) berth.Resource {
	if s.cmp(&a, &b) <= 0 {
		return a
	}
	return b
}

// rmax is berth.Max(s.calculator, s.cluster, a, b).
func (s *Scheduler) rmax(a, b berth.Resource) berth.Resource {
	if s.cmp(&a, &b) >= 0 {
		return a
	}
	return b
}

// roundDown is s.calculator.RoundDown(r, step).
func (s *Scheduler) roundDown(r, step berth.Resource) berth.Resource {
	if s.mem {
		return berth.MemoryCalculator{}.RoundDown(r, step)
	}
	return s.roundDownAny(&r, &step)
}

//go:noinline
func (s *Scheduler) roundDownAny(r, step *berth.Resource) berth.Resource {
	return s.calculator.RoundDown(*r, *step)
}

// divide is s.calculator.Divide(s.walkCluster, num, den).
func (s *Scheduler) divide(num, den berth.Resource) float32 {
	if s.mem {
		return berth.MemoryCalculator{}.Ratio(num, den)
	}
	return s.divideAny(&num, &den)
}

//go:noinline
func (s *Scheduler) divideAny(num, den *berth.Resource) float32 {
	return s.calculator.Divide(s.walkCluster, *num, *den)
}

// available is s.calculator.AvailableContainers(avail, req).
func (s *Scheduler) available(avail, req berth.Resource) int64 {
	if s.mem {
		return berth.MemoryCalculator{}.AvailableContainers(avail, req)
	}
	return s.availableAny(&avail, &req)
}

//go:noinline
func (s *Scheduler) availableAny(avail, req *berth.Resource) int64 {
	return s.calculator.AvailableContainers(*avail, *req)
}

// roundUp is s.calculator.RoundUp(r, step).
func (s *Scheduler) roundUp(r, step berth.Resource) berth.Resource {
	if s.mem {
		return berth.MemoryCalculator{}.RoundUp(r, step)
	}
	return s.calculator.RoundUp(r, step)
}

// divideAndCeil is s.calculator.DivideAndCeil(r, n).
func (s *Scheduler) divideAndCeil(r berth.Resource, n int64) berth.Resource {
	if s.mem {
		return berth.MemoryCalculator{}.DivideAndCeil(r, n)
	}
	return s.calculator.DivideAndCeil(r, n)
}

// mulNormUp is s.calculator.MultiplyAndNormalizeUp(r, by, step).
func (s *Scheduler) mulNormUp(r berth.Resource, by float64, step berth.Resource) berth.Resource {
	if s.mem {
		return berth.MemoryCalculator{}.MultiplyAndNormalizeUp(r, by, step)
	}
	return s.calculator.MultiplyAndNormalizeUp(r, by, step)
}

// mulNormDown is s.calculator.MultiplyAndNormalizeDown(r, by, step).
func (s *Scheduler) mulNormDown(r berth.Resource, by float64, step berth.Resource) berth.Resource {
	if s.mem {
		return berth.MemoryCalculator{}.MultiplyAndNormalizeDown(r, by, step)
	}
	return s.calculator.MultiplyAndNormalizeDown(r, by, step)
}
