//go:build !race

package plan_test

// raceEnabled is false without the race detector: full sizes.
const raceEnabled = false
