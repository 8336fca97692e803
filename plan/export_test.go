package plan

// Test hooks for the external test package (whose tests use the real
// agents and policies, which import plan).
var (
	// StatesEqual checks that two plans' states are identical, indexes
	// included.
	StatesEqual = statesEqual
	// CheckState checks a plan's internal invariants.
	CheckState = checkState
)
