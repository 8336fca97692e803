//go:build !race

package fair

// raceEnabled is false without the race detector: full sizes.
const raceEnabled = false
