//go:build !race

package scenario

// raceEnabled: the binary was built without -race.
const raceEnabled = false
