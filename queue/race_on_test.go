//go:build race

package queue

// raceEnabled runs the property tests at their short sizes under the race
// detector, which slows them tenfold; plain go test runs the full sizes.
const raceEnabled = true

// raceScaled is n for plain runs and a third of it under the race
// detector, for random property loops that are single-goroutine.
func raceScaled(n int) int { return max(n/3, 1) }
