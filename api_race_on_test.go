//go:build race

package berth_test

// apiMaxCalls bounds the calls per function: under the race detector,
// which slows every call tenfold, the arguments are varied one at a time
// sooner (the combinations run without it).
const apiMaxCalls = 60
