//go:build !race

package agent

// raceEnabled is false without the race detector: full sizes.
const raceEnabled = false
