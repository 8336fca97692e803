//go:build race

package report_test

// raceEnabled: the binary was built with -race.
const raceEnabled = true
