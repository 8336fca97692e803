//go:build !race

package agent_test

// raceEnabled shortens the long workload tests under the race detector.
const raceEnabled = false
