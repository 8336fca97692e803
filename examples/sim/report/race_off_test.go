//go:build !race

package report_test

// raceEnabled: the binary was built without -race.
const raceEnabled = false
