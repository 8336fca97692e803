package agent

import (
	"fmt"
	"math"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/plan"
)

// NoPlacementError reports that an agent found no placement satisfying a
// definition (YARN's PlanningException "The request cannot be satisfied").
// It wraps berth.ErrNoPlacement.
type NoPlacementError struct {
	// Agent names the agent or planner that gave up.
	Agent string
	// Stage is the index of the stage that could not be placed, or -1 when
	// the definition as a whole failed (e.g. no stage of an R_ANY fits).
	Stage int
	// Reason says why, in YARN's words where it has them.
	Reason string
}

// Error describes the failure.
func (e *NoPlacementError) Error() string {
	if e.Stage >= 0 {
		return fmt.Sprintf("%s: stage %d: %s", e.Agent, e.Stage, e.Reason)
	}
	return fmt.Sprintf("%s: %s", e.Agent, e.Reason)
}

// Unwrap returns berth.ErrNoPlacement.
func (e *NoPlacementError) Unwrap() error { return berth.ErrNoPlacement }

func stageField(i int, name string) string {
	return fmt.Sprintf("reservation-definition.reservation-requests.reservation-request[%d].%s", i, name)
}

// validateStage is YARN's validateInputStage (ContractValidationException),
// in YARN's order, plus a check YARN lacks: a stage must last (
// a zero duration gives an empty placement YARN accepts as a reservation).
func validateStage(i int, s plan.Stage, capacity, maxAlloc berth.Resource, calc berth.Calculator) error {
	switch {
	case s.Concurrency < 1:
		return berth.InvalidField(stageField(i, "min-concurrency"), s.Concurrency, "Gang Size should be >= 1")
	case s.Containers <= 0:
		return berth.InvalidField(stageField(i, "num-containers"), s.Containers, "Num containers should be > 0")
	case s.Containers%s.Concurrency != 0:
		return berth.InvalidField(stageField(i, "num-containers"), s.Containers, "Parallelism must be an exact multiple of gang size")
	case berth.GreaterThan(calc, capacity, s.Capability, maxAlloc):
		return berth.InvalidField(stageField(i, "capability"), s.Capability, "Individual capability requests should not exceed cluster's maxAlloc")
	case s.Duration <= 0:
		return berth.InvalidField(stageField(i, "duration"), s.Duration, "duration must be positive")
	case s.Capability.AnyNegative():
		return berth.InvalidField(stageField(i, "capability"), s.Capability, "must not be negative")
	case s.Containers > math.MaxInt32:
		return berth.InvalidField(stageField(i, "num-containers"), s.Containers, "must fit a 32-bit int, as in YARN")
	case overflows(s.Capability, s.Containers):
		return berth.InvalidField(stageField(i, "capability"), s.Capability, "capability × num-containers overflows int64")
	}
	return nil
}

// overflows reports whether r × n leaves the int64 range in some type.
func overflows(r berth.Resource, n int64) bool {
	if !r.HasExtras() {
		// Memory and vcores only: no list of type names to build.
		return (r.Memory != 0 && n > math.MaxInt64/r.Memory) || (r.VCores != 0 && n > math.MaxInt64/r.VCores)
	}
	for _, name := range berth.TypeNames(r) {
		if v := r.Extra(name); v != 0 && n > math.MaxInt64/v {
			return true
		}
	}
	return false
}
