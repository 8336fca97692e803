//go:build !race

package follower

// raceEnabled is false without the race detector: full sizes.
const raceEnabled = false
