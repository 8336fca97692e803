package rle_test

import (
	"errors"
	"fmt"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/rle"
)

// A plan records allocations in a series and asks what is left of the
// cluster over a window, as YARN's getAvailableResourceOverTime does.
func Example() {
	used := rle.New()
	_ = used.Add(berth.Interval{Start: 100, End: 200}, berth.New(4096, 4))
	_ = used.Add(berth.Interval{Start: 150, End: 300}, berth.New(2048, 2))
	fmt.Println(used.At(160), used.Len())

	// Capacity from time 0 on; available = capacity - used over [0, 400).
	capacity, _ := rle.FromBreakpoints(rle.Breakpoint{Time: 0, Value: berth.New(8192, 8)})
	avail, _ := rle.Merge(berth.MemoryCalculator{}, berth.New(8192, 8), capacity, used,
		rle.OpSubtractNonNegative, berth.Interval{Start: 0, End: 400})
	for st := range avail.Steps() {
		fmt.Println(st.Interval, st.Value)
	}
	fmt.Println("minimum over [120, 260):", avail.Min(berth.Interval{Start: 120, End: 260}))

	// Removing more than is there is refused and changes nothing.
	err := used.Remove(berth.Interval{Start: 90, End: 110}, berth.New(1024, 1))
	var re *rle.RemoveError
	fmt.Println(errors.As(err, &re), re.Time, errors.Is(err, berth.ErrInvalidArgument))
	// Output:
	// <memory:6144, vCores:6> 4
	// [0, 100) <memory:8192, vCores:8>
	// [100, 150) <memory:4096, vCores:4>
	// [150, 200) <memory:2048, vCores:2>
	// [200, 300) <memory:6144, vCores:6>
	// [300, 400) <memory:8192, vCores:8>
	// minimum over [120, 260): <memory:2048, vCores:2>
	// true 90 true
}

// A periodic pattern repeats every period; Unroll lays it out over an
// absolute window.
func ExamplePeriodic() {
	day, _ := rle.NewPeriodic(24)
	_ = day.Add(berth.Interval{Start: 22, End: 24}, berth.New(1024, 1))
	_ = day.Add(berth.Interval{Start: 0, End: 2}, berth.New(1024, 1))
	fmt.Println(day.At(47), day.At(50), day.At(-1))
	fmt.Println(day.MaxOver(berth.Interval{Start: 10, End: 20}), day.MaxOver(berth.Interval{Start: 20, End: 26}))
	u, _ := day.Unroll(berth.Interval{Start: 20, End: 50})
	fmt.Println(u)
	// Output:
	// <memory:1024, vCores:1> <memory:0, vCores:0> <memory:1024, vCores:1>
	// <memory:0, vCores:0> <memory:1024, vCores:1>
	// {22: <memory:1024, vCores:1>, 26: <memory:0, vCores:0>, 46: <memory:1024, vCores:1>, 50: <memory:0, vCores:0>}
}

// Merge follows YARN's rules for undefined values: where one operand has no
// data, the other operand's value is kept, even for min.
func ExampleMerge() {
	a, _ := rle.FromBreakpoints(rle.Breakpoint{Time: 10, Value: berth.New(5, 5)}, rle.Breakpoint{Time: 20, Undefined: true})
	b, _ := rle.FromBreakpoints(rle.Breakpoint{Time: 15, Value: berth.New(3, 3)}, rle.Breakpoint{Time: 30, Value: berth.New(0, 0)})
	m, _ := rle.Merge(berth.MemoryCalculator{}, berth.New(100, 100), a, b, rle.OpMin, berth.Interval{Start: 0, End: 40})
	fmt.Println(m)
	// Output:
	// {MIN: null, 10: <memory:5, vCores:5>, 15: <memory:3, vCores:3>, 30: <memory:0, vCores:0>, 40: null}
}

// A hot loop reuses one buffer for the steps of each window it examines:
// AppendSteps then allocates nothing.
func ExampleSeries_AppendSteps() {
	used := rle.New()
	_ = used.Add(berth.Interval{Start: 100, End: 200}, berth.New(4096, 4))
	_ = used.Add(berth.Interval{Start: 150, End: 300}, berth.New(2048, 2))
	var buf []rle.Step
	for _, w := range []berth.Interval{{Start: 50, End: 160}, {Start: 250, End: 400}} {
		buf = used.AppendSteps(buf[:0], w)
		fmt.Println(buf)
	}
	// Output:
	// [{[50, 100) <memory:0, vCores:0>} {[100, 150) <memory:4096, vCores:4>} {[150, 160) <memory:6144, vCores:6>}]
	// [{[250, 300) <memory:2048, vCores:2>} {[300, 400) <memory:0, vCores:0>}]
}
