//go:build !race

package capacity

// raceEnabled is false without the race detector: full sizes.
const raceEnabled = false
