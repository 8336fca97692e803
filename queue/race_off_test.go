//go:build !race

package queue

// raceEnabled is false without the race detector: full sizes.
const raceEnabled = false
