//go:build !race

package queue

// raceEnabled is false without the race detector: full sizes.
const raceEnabled = false

// raceScaled is n for plain runs (a third of it under -race).
func raceScaled(n int) int { return n }
