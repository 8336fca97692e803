//go:build race

package queue

// raceEnabled runs the property tests at their short sizes under the race
// detector, which slows them tenfold; plain go test runs the full sizes.
const raceEnabled = true
