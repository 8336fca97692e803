package berth_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/berthsched/berth"
)

// Sinks keep the compiler from optimising benchmarked calls away.
var (
	sinkR berth.Resource
	sinkI int
	sinkB bool
	sinkN int64
	sinkF float32
)

var (
	bCluster  = berth.New(100*1024, 100)
	bA        = berth.New(3072, 3)
	bB        = berth.New(2048, 5)
	bCluster3 = berth.NewWithExtras(100*1024, 100, berth.Quantity{Name: berth.ResourceGPU, Value: 8})
	bA3       = berth.NewWithExtras(3072, 3, berth.Quantity{Name: berth.ResourceGPU, Value: 1})
	bB3       = berth.NewWithExtras(2048, 5, berth.Quantity{Name: berth.ResourceGPU, Value: 2})
)

// zeroAllocOps are the operations that must not allocate on memory+vcores
// resources; TestZeroAllocs and the benchmarks share them.
var zeroAllocOps = []struct {
	name string
	fn   func()
}{
	{"Add", func() { sinkR = bA.Add(bB) }},
	{"Sub", func() { sinkR = bA.Sub(bB) }},
	{"SubNonNegative", func() { sinkR = bA.SubNonNegative(bB) }},
	{"Neg", func() { sinkR = bA.Neg() }},
	{"Mul", func() { sinkR = bA.Mul(1.5) }},
	{"MulInt", func() { sinkR = bA.MulInt(3) }},
	{"MulRoundUp", func() { sinkR = bA.MulRoundUp(1.5) }},
	{"MulAdd", func() { sinkR = bA.MulAdd(bB, 1.5) }},
	{"Equal", func() { sinkB = bA.Equal(bB) }},
	{"FitsIn", func() { sinkB = bA.FitsIn(bB) }},
	{"NaturalCompare", func() { sinkI = bA.Compare(bB) }},
	{"ComponentwiseMin", func() { sinkR = berth.ComponentwiseMin(bA, bB) }},
	{"MemCompare", func() { sinkI = memCalc.Compare(bCluster, bA, bB) }},
	{"DomCompare", func() { sinkI = domCalc.Compare(bCluster, bA, bB) }},
	{"DomCompareEmptyCluster", func() { sinkI = domCalc.Compare(berth.None(), bA, bB) }},
	{"DomFitsIn", func() { sinkB = domCalc.FitsIn(bA, bB) }},
	{"DomDivide", func() { sinkF = domCalc.Divide(bCluster, bA, bB) }},
	{"DomRatio", func() { sinkF = domCalc.Ratio(bA, bB) }},
	{"DomAvailableContainers", func() { sinkN = domCalc.AvailableContainers(bCluster, bA) }},
	{"DomNormalize", func() { sinkR = domCalc.Normalize(bA, berth.New(1024, 1), berth.New(8192, 4), berth.New(1024, 1)) }},
	{"DomRoundUp", func() { sinkR = domCalc.RoundUp(bA, berth.New(1024, 2)) }},
	{"DomMultiplyAndNormalizeUp", func() { sinkR = domCalc.MultiplyAndNormalizeUp(bA, 1.5, berth.New(1024, 1)) }},
	{"MemNormalize", func() { sinkR = memCalc.Normalize(bA, berth.New(1024, 1), berth.New(8192, 4), berth.New(1024, 1)) }},
	{"Max", func() { sinkR = berth.Max(domCalc, bCluster, bA, bB) }},
}

func TestZeroAllocs(t *testing.T) {
	for _, op := range zeroAllocOps {
		assert.Zero(t, testing.AllocsPerRun(50, op.fn), "%s allocates on memory+vcores resources", op.name)
	}
}

func BenchmarkTwoTypes(b *testing.B) {
	for _, op := range zeroAllocOps {
		b.Run(op.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				op.fn()
			}
		})
	}
}

// BenchmarkExtended measures the same operations with one extended type
// (yarn.io/gpu); these may allocate for results that carry it.
func BenchmarkExtended(b *testing.B) {
	ops := []struct {
		name string
		fn   func()
	}{
		{"Add", func() { sinkR = bA3.Add(bB3) }},
		{"Sub", func() { sinkR = bA3.Sub(bB3) }},
		{"Mul", func() { sinkR = bA3.Mul(1.5) }},
		{"FitsIn", func() { sinkB = bA3.FitsIn(bB3) }},
		{"NaturalCompare", func() { sinkI = bA3.Compare(bB3) }},
		{"DomCompare", func() { sinkI = domCalc.Compare(bCluster3, bA3, bB3) }},
		{"DomDivide", func() { sinkF = domCalc.Divide(bCluster3, bA3, bB3) }},
		{"DomNormalize", func() { sinkR = domCalc.Normalize(bA3, berth.New(1024, 1), bCluster3, berth.New(1024, 1)) }},
	}
	for _, op := range ops {
		b.Run(op.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				op.fn()
			}
		})
	}
}
