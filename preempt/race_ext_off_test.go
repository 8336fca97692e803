//go:build !race

package preempt_test

// raceEnabled is false without the race detector: full sizes.
const raceEnabled = false
