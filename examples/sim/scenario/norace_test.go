//go:build !race

package scenario

// raceEnabled shortens the long scenarios under the race detector.
const raceEnabled = false
