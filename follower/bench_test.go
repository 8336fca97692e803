package follower

import (
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/plan"
	"github.com/stretchr/testify/require"
)

// BenchmarkRun: a plan of 2000 reservations of 10 steps each, 20 starting
// per step (about 200 active at any time), published step after step to
// the in-memory scheduler. One op is one run.
func BenchmarkRun(b *testing.B) {
	p := benchPlan(b)
	fs := newFake(CapacityFlavor, "dedicated", c(1250), c(1000)).withDefault()
	f, err := New(Config{Scheduler: fs, Flavor: CapacityFlavor, Plans: Plans{p}})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := f.Run(berth.Time(10 + i%80)); err != nil {
			b.Fatal(err)
		}
	}
}

// benchPlan: 2000 reservations of 10 steps of one container, 20 starting
// per step, on a plan of 1000 containers.
func benchPlan(b *testing.B) *plan.Plan {
	p := openPlan(b, "dedicated", func(cfg *plan.Config) { cfg.Capacity = c(1000) })
	for i := int64(0); i < 2000; i++ {
		if err := p.AddReservation(newAllocation(b, rid(i+1), "u", berth.Time(i/20), 1, 1, 1, 1, 1, 1, 1, 1, 1, 1)); err != nil {
			b.Fatal(err)
		}
	}
	return p
}

// BenchmarkRunCapacity is BenchmarkRun against the real capacity
// scheduler (1250 containers, dedicated 80%), wired directly.
func BenchmarkRunCapacity(b *testing.B) {
	p := benchPlan(b)
	s := newPFCapacity(b, c(1250))
	f, err := New(Config{Scheduler: s, Flavor: CapacityFlavor, Plans: Plans{p}})
	require.NoError(b, err)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := f.Run(berth.Time(10 + i%80)); err != nil {
			b.Fatal(err)
		}
	}
}
