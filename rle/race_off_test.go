//go:build !race

package rle

const raceEnabled = false
