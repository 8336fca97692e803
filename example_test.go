package berth_test

import (
	"errors"
	"fmt"

	"github.com/berthsched/berth"
)

// Resources are values: arithmetic returns new resources. The two
// calculators then disagree about which of two asks is bigger, exactly as
// YARN's DefaultResourceCalculator and DominantResourceCalculator do.
func Example() {
	cluster := berth.New(100*1024, 100) // 100 GB, 100 vcores
	memHeavy := berth.New(20*1024, 2)   // dominant share: 20% memory
	cpuHeavy := berth.New(4*1024, 30)   // dominant share: 30% vcores

	fmt.Println(memHeavy.Add(cpuHeavy), cluster.Sub(memHeavy).FitsIn(cluster))

	var mem, drf berth.Calculator = berth.MemoryCalculator{}, berth.DominantCalculator{}
	fmt.Println("memory-only:", mem.Compare(cluster, memHeavy, cpuHeavy))
	fmt.Println("dominant:   ", drf.Compare(cluster, memHeavy, cpuHeavy))
	fmt.Printf("shares: %.2f %.2f\n", drf.Divide(cluster, memHeavy, cluster), drf.Divide(cluster, cpuHeavy, cluster))

	// How many 3 GB / 2 vcore containers fit on a 16 GB, 8 vcore node?
	node, ask := berth.New(16*1024, 8), berth.New(3*1024, 2)
	fmt.Println("containers:", mem.AvailableContainers(node, ask), drf.AvailableContainers(node, ask))

	// Normalize a 1500 MB ask to the scheduler's 1 GB minimum/step and 8 GB max.
	minA, maxA := berth.New(1024, 1), berth.New(8*1024, 4)
	fmt.Println(drf.Normalize(berth.New(1500, 3), minA, maxA, minA))

	// Extended resource types (YARN 3) take part in dominant shares.
	gpuCluster := cluster.With(berth.ResourceGPU, 4)
	gpuAsk := berth.NewWithExtras(1024, 1, berth.Quantity{Name: berth.ResourceGPU, Value: 2})
	fmt.Println(gpuAsk, drf.Compare(gpuCluster, gpuAsk, cpuHeavy))
	// Output:
	// <memory:24576, vCores:32> true
	// memory-only: 1
	// dominant:    -1
	// shares: 0.20 0.30
	// containers: 5 4
	// <memory:2048, vCores:3>
	// <memory:1024, vCores:1, yarn.io/gpu: 2> 1
}

// ParseResource reads the resource spellings of both schedulers' files;
// errors name the resource type and the offending text.
func ExampleParseResource() {
	for _, s := range []string{
		"1024 mb, 2 vcores",                     // fair scheduler, old style
		"memory-mb=4096,vcores=4,yarn.io/gpu=1", // fair scheduler, new style
		"[memory=10Gi,vcores=8]",                // capacity scheduler, absolute
		"1024 mb, two vcores",
	} {
		r, err := berth.ParseResource(s)
		if err != nil {
			var fe *berth.FieldError
			fmt.Println(errors.As(err, &fe), fe.Field, errors.Is(err, berth.ErrInvalidArgument))
			continue
		}
		fmt.Println(r)
	}
	// Output:
	// <memory:1024, vCores:2>
	// <memory:4096, vCores:4, yarn.io/gpu: 1>
	// <memory:10240, vCores:8>
	// true vcores true
}

// A ManualClock is the Clock for tests and simulations: time moves only
// when the host says so.
func ExampleManualClock() {
	clock := berth.NewManualClock(1000)
	window := berth.Interval{Start: 1000, End: 1500}
	fmt.Println(window.Contains(clock.Now()), window.Len())
	clock.Advance(500)
	fmt.Println(window.Contains(clock.Now()), clock.Now())
	// Output:
	// true 500
	// false 1500
}

// Bad input comes back as a *FieldError that wraps an error kind.
func ExampleFieldError() {
	err := fmt.Errorf("loading queue root.a: %w",
		berth.InvalidField("yarn.scheduler.capacity.root.a.capacity", 120.0, "must be in [0, 100]"))
	var fe *berth.FieldError
	fmt.Println(errors.Is(err, berth.ErrInvalidArgument), errors.As(err, &fe), fe.Field)
	fmt.Println(err)
	// Output:
	// true true yarn.scheduler.capacity.root.a.capacity
	// loading queue root.a: yarn.scheduler.capacity.root.a.capacity: must be in [0, 100] (value: 120)
}

// Wrap says what the caller was doing; the subject is left out when the
// error already names it, so the message says each thing once.
func ExampleWrap() {
	unknown := &berth.FieldError{Field: "app.id", Value: "app_7", Reason: "not found", Kind: berth.ErrNotFound}
	fmt.Println(berth.Wrap(unknown, "moving application", "app_7"))
	fmt.Println(berth.Wrap(errors.New("node lost"), "moving application", "app_7"))
	fmt.Println(errors.Is(berth.Wrap(unknown, "moving application", "app_7"), berth.ErrNotFound))
	// Output:
	// moving application: app.id: not found (value: app_7)
	// moving application app_7: node lost
	// true
}
