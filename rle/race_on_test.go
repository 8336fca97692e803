//go:build race

package rle

// raceEnabled slows the race detector's runs down to what matters: long
// workloads run in normal builds only.
const raceEnabled = true
