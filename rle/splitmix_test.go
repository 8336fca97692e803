package rle

// splitmix64 is the random source of the reference workloads
// (WORKLOADS.md at the repository root). Kept small and self-contained so the
// lead can move it to a shared internal package.
type splitmix64 struct{ x uint64 }

func (g *splitmix64) next() uint64 {
	g.x += 0x9E3779B97F4A7C15
	z := g.x
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// uniform returns a value in [lo, hi], inclusive.
func (g *splitmix64) uniform(lo, hi int64) int64 {
	return lo + int64((g.next()>>1)%uint64(hi-lo+1))
}
