//go:build race

package order

// raceScaled is n for plain runs and a third of it under the race
// detector, which slows the single-goroutine property loops tenfold.
func raceScaled(n int) int { return max(n/3, 1) }
