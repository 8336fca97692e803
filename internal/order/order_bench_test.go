package order

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkOrderRekey moves one random item of a Set of n to a random
// new key: the cost a scheduler pays per usage change.
func BenchmarkOrderRekey(b *testing.B) {
	for _, n := range []int{100, 10000, 1000000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			o := New[int, int](func(a, b *int) int { return *a - *b })
			es := make([]Entry[int, int], n)
			rng := rand.New(rand.NewPCG(1, 1))
			for i := range es {
				es[i].Value = i
				o.Insert(&es[i], rng.IntN(1<<30))
			}
			b.ReportAllocs()
			for b.Loop() {
				o.Rekey(&es[rng.IntN(n)], rng.IntN(1<<30))
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/rekey")
		})
	}
}
