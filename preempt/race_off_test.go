//go:build !race

package preempt

// raceEnabled is false without the race detector: full sizes.
const raceEnabled = false
