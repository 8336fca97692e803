package fair

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

// splitmix64 is the random source of the benchmark workloads
// (WORKLOADS.md at the repository root).
type splitmix64 struct{ x uint64 }

func (s *splitmix64) next() uint64 {
	s.x += 0x9E3779B97F4A7C15
	z := s.x
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

func (s *splitmix64) uniform(lo, hi int64) int64 {
	return lo + int64((s.next()>>1)%uint64(hi-lo+1))
}

// w3Workload builds the 10,000 schedulables of W3 (minUnit 1024) or W3b
// (minUnit 128), drawing in the documented order.
func w3Workload(minUnit int64) ([]*Schedulable, Schedulable) {
	rng := &splitmix64{x: 11}
	ss := make([]*Schedulable, 10000)
	for i := range ss {
		w := rng.uniform(1, 10)
		demand := rng.uniform(0, 40960)
		minMem := rng.uniform(0, 4) * minUnit
		maxMem := int64(math.MaxInt64)
		maxVC := int64(math.MaxInt64)
		if rng.uniform(0, 1) != 0 {
			maxMem = rng.uniform(8, 64) * 1024
			maxVC = maxMem / 1024
		}
		ss[i] = &Schedulable{
			Name:     "s",
			Weight:   float64(w),
			Demand:   newRes(demand, demand/1024),
			MinShare: newRes(minMem, minMem/1024),
			MaxShare: newRes(maxMem, maxVC),
		}
	}
	return ss, Schedulable{FairShare: newRes(8192000, 8000)}
}

func w3Sum(ss []*Schedulable) float64 {
	var sum int64
	for _, s := range ss {
		sum += s.FairShare.Memory
	}
	return float64(sum)
}

func TestW3Checksums(t *testing.T) {
	for _, tc := range []struct {
		unit int64
		want float64
	}{{1024, 20523008}, {128, 8192178}} {
		ss, root := w3Workload(tc.unit)
		PolicyFair.ComputeShares(ss, root.FairShare, nil)
		assert.Equal(t, tc.want, w3Sum(ss), "unit %d", tc.unit)
	}
}

func benchW3(b *testing.B, unit int64) {
	ss, root := w3Workload(unit)
	buf := &shareBuf{}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		PolicyFair.computeShares(ss, root.FairShare, nil, false, buf)
	}
	b.ReportMetric(w3Sum(ss), "checksum")
}

// BenchmarkW3 is workload W3: one instantaneous fair-share computation of
// 10,000 schedulables whose minimum shares exceed the cluster.
func BenchmarkW3(b *testing.B) { benchW3(b, 1024) }

// BenchmarkW3b is workload W3b: the same with small minimum shares, so
// weights decide.
func BenchmarkW3b(b *testing.B) { benchW3(b, 128) }
