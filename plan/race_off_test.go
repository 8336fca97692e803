//go:build !race

package plan

// raceEnabled is false without the race detector: full sizes.
const raceEnabled = false
