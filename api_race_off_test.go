//go:build !race

package berth_test

// apiMaxCalls bounds the calls per function (see api_race_on_test.go).
const apiMaxCalls = 300
