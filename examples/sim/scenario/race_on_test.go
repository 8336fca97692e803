//go:build race

package scenario

// raceEnabled: the binary was built with -race.
const raceEnabled = true
