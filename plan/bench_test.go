package plan

import (
	"runtime"
	"slices"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/rle"
)

// cpuClock starts measuring the benchmark's thread CPU time; the returned
// function reports it as cpu-ns/op (the machine is shared: wall-clock
// ns/op mostly measures waiting for a core). Background GC work on other
// threads is not counted.
func cpuClock(b *testing.B) func() {
	runtime.LockOSThread()
	c0 := threadCPU()
	return func() {
		c := threadCPU() - c0
		runtime.UnlockOSThread()
		if c0 > 0 && b.N > 0 {
			b.ReportMetric(float64(c)/float64(b.N), "cpu-ns/op")
		}
	}
}

// benchPlan holds n reservations of 4 one-hour-long blocks spread over
// n minutes, for 10 users.
func benchPlan(b *testing.B, n int) *Plan {
	p := newTestPlan(b, func(c *Config) {
		c.Capacity = berth.New(1<<40, 1<<30)
		c.Policy = acceptAll{}
	})
	for i := 0; i < n; i++ {
		start := berth.Time(i) * 60_000
		var ivs []IntervalResource
		for k := berth.Time(0); k < 4; k++ {
			ivs = append(ivs, IntervalResource{Interval: berth.Interval{Start: start + k*900_000, End: start + (k+1)*900_000}, Resource: c(int64(1 + i%7))})
		}
		a, err := NewAllocation(rid(int64(i+1)), []string{"u0", "u1", "u2", "u3", "u4", "u5", "u6", "u7", "u8", "u9"}[i%10],
			simpleDef(start, start+3_600_000, 900_000, 0), berth.Interval{Start: start, End: start + 3_600_000}, ivs)
		if err != nil {
			b.Fatal(err)
		}
		if err := p.AddReservation(a); err != nil {
			b.Fatal(err)
		}
	}
	return p
}

func BenchmarkPlanAdd(b *testing.B) {
	p := benchPlan(b, 10_000)
	b.ReportAllocs()
	b.ResetTimer()
	defer cpuClock(b)()
	for i := 0; b.Loop(); i++ {
		start := berth.Time(i%10_000) * 60_000
		a, _ := NewAllocation(rid(int64(1_000_000+i)), "u0", simpleDef(start, start+3_600_000, 900_000, 0),
			berth.Interval{Start: start, End: start + 3_600_000},
			[]IntervalResource{{Interval: berth.Interval{Start: start, End: start + 900_000}, Resource: c(2)}})
		if err := p.AddReservation(a); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPlanQueries(b *testing.B) {
	p := benchPlan(b, 10_000)
	b.ReportAllocs()
	b.ResetTimer()
	defer cpuClock(b)()
	for i := 0; b.Loop(); i++ {
		t := berth.Time(i%10_000) * 60_000
		_ = p.TotalCommitted(t)
		_ = p.ReservationsAt(t)
		_ = p.UserConsumptionAt("u3", t)
	}
}

func BenchmarkPlanAvailableHour(b *testing.B) {
	p := benchPlan(b, 10_000)
	b.ReportAllocs()
	b.ResetTimer()
	defer cpuClock(b)()
	for i := 0; b.Loop(); i++ {
		t := berth.Time(i%9_000) * 60_000
		if _, err := p.AvailableResources("u3", ReservationID{}, berth.Interval{Start: t, End: t + 3_600_000}, 0); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPlanSnapshot(b *testing.B) {
	p := benchPlan(b, 10_000)
	b.ReportAllocs()
	b.ResetTimer()
	defer cpuClock(b)()
	for b.Loop() {
		_ = p.Snapshot()
	}
}

func BenchmarkPlanCumulativeLoadHour(b *testing.B) {
	p := benchPlan(b, 10_000)
	b.ReportAllocs()
	b.ResetTimer()
	defer cpuClock(b)()
	for i := 0; b.Loop(); i++ {
		t := berth.Time(i%9_000) * 60_000
		if _, err := p.CumulativeLoad(berth.Interval{Start: t, End: t + 3_600_000}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPlanLoadStepsHour(b *testing.B) {
	p := benchPlan(b, 10_000)
	b.ReportAllocs()
	b.ResetTimer()
	defer cpuClock(b)()
	for i := 0; b.Loop(); i++ {
		t := berth.Time(i%9_000) * 60_000
		if _, err := p.LoadSteps(berth.Interval{Start: t, End: t + 3_600_000}, ""); err != nil {
			b.Fatal(err)
		}
	}
}

// benchAllocs prebuilds n one-interval allocations for user u0, so that
// a benchmark times the plan alone.
func benchAllocs(b *testing.B, n int, seq int64) []*Allocation {
	out := make([]*Allocation, n)
	for i := range out {
		start := berth.Time(i%10_000) * 60_000
		a, err := NewAllocation(rid(seq+int64(i)), "u0", simpleDef(start, start+3_600_000, 900_000, 0),
			berth.Interval{Start: start, End: start + 3_600_000},
			[]IntervalResource{{Interval: berth.Interval{Start: start, End: start + 900_000}, Resource: c(2)}})
		if err != nil {
			b.Fatal(err)
		}
		out[i] = a
	}
	return out
}

// BenchmarkPlanAddOnly is AddReservation alone (allocations prebuilt) at
// 10,000 reservations and more.
func BenchmarkPlanAddOnly(b *testing.B) {
	p := benchPlan(b, 10_000)
	as := benchAllocs(b, b.N, 1_000_000)
	b.ReportAllocs()
	b.ResetTimer()
	defer cpuClock(b)()
	for i := 0; i < b.N; i++ {
		if err := p.AddReservation(as[i]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPlanAddDelete adds then deletes one reservation at 10,000.
func BenchmarkPlanAddDelete(b *testing.B) {
	p := benchPlan(b, 10_000)
	as := benchAllocs(b, 10_000, 1_000_000)
	b.ReportAllocs()
	b.ResetTimer()
	defer cpuClock(b)()
	for i := 0; b.Loop(); i++ {
		a := as[i%len(as)]
		if err := p.AddReservation(a); err != nil {
			b.Fatal(err)
		}
		if err := p.DeleteReservation(a.ID); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPlanUpdate replaces one of 10,000 reservations by a moved copy.
func BenchmarkPlanUpdate(b *testing.B) {
	p := benchPlan(b, 10_000)
	as := benchAllocs(b, 2, 1_000_000)
	moved := *as[0]
	moved.ID = as[1].ID
	require := func(err error) {
		if err != nil {
			b.Fatal(err)
		}
	}
	require(p.AddReservation(as[1]))
	b.ReportAllocs()
	b.ResetTimer()
	defer cpuClock(b)()
	for i := 0; b.Loop(); i++ {
		if i%2 == 0 {
			require(p.UpdateReservation(&moved))
		} else {
			require(p.UpdateReservation(as[1]))
		}
	}
}

// BenchmarkPlanReservationsHour lists the reservations meeting one hour.
func BenchmarkPlanReservationsHour(b *testing.B) {
	p := benchPlan(b, 10_000)
	b.ReportAllocs()
	b.ResetTimer()
	defer cpuClock(b)()
	n := 0
	for i := 0; b.Loop(); i++ {
		t := berth.Time(i%9_000) * 60_000
		n += len(p.Reservations(Filter{Window: &berth.Interval{Start: t, End: t + 3_600_000}}))
	}
	b.ReportMetric(float64(n)/float64(b.N), "found/op")
}

// BenchmarkPlanReservationsPeriodic lists, among 10,000 periodic
// reservations of 100 phases, those meeting one hour.
func BenchmarkPlanReservationsPeriodic(b *testing.B) {
	p := newTestPlan(b, func(c *Config) {
		c.Capacity = berth.New(1<<40, 1<<30)
		c.Policy = acceptAll{}
	})
	const day = 86_400_000
	for i := 0; i < 10_000; i++ {
		start := berth.Time(i%100) * 864_000
		a, err := NewAllocation(rid(int64(i+1)), "u0", simpleDef(start, start+3_600_000, 900_000, day),
			berth.Interval{Start: start, End: start + 3_600_000},
			[]IntervalResource{{Interval: berth.Interval{Start: start, End: start + 900_000}, Resource: c(1)}})
		if err != nil {
			b.Fatal(err)
		}
		if err := p.AddReservation(a); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	defer cpuClock(b)()
	n := 0
	for i := 0; b.Loop(); i++ {
		t := berth.Time(i%100)*864_000 + 7*day
		n += len(p.Reservations(Filter{Window: &berth.Interval{Start: t, End: t + 3_600_000}}))
	}
	b.ReportMetric(float64(n)/float64(b.N), "found/op")
}

// BenchmarkPlanLoadSteps8h reads the load of an eight-hour window (about
// 540 reservations) into a reused buffer.
func BenchmarkPlanLoadSteps8h(b *testing.B) {
	p := benchPlan(b, 10_000)
	var buf []rle.Step
	b.ReportAllocs()
	b.ResetTimer()
	defer cpuClock(b)()
	for i := 0; b.Loop(); i++ {
		t := berth.Time(i%9_000) * 60_000
		var err error
		if buf, err = p.AppendLoadSteps(buf[:0], berth.Interval{Start: t, End: t + 8*3_600_000}, ""); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPlanSumAllocations8h computes the same load the way a caller
// would from the reservations (listing, events, sort): the comparison
// for agents and policies that sum allocations themselves.
func BenchmarkPlanSumAllocations8h(b *testing.B) {
	p := benchPlan(b, 10_000)
	type event struct {
		t berth.Time
		r berth.Resource
	}
	b.ReportAllocs()
	b.ResetTimer()
	defer cpuClock(b)()
	for i := 0; b.Loop(); i++ {
		t := berth.Time(i%9_000) * 60_000
		w := berth.Interval{Start: t, End: t + 8*3_600_000}
		as := p.Reservations(Filter{Window: &w})
		evs := make([]event, 0, 8*len(as))
		for _, a := range as {
			for _, e := range a.Intervals {
				if iv, ok := e.Interval.Intersect(w); ok {
					evs = append(evs, event{iv.Start, e.Resource}, event{iv.End, e.Resource.Neg()})
				}
			}
		}
		slices.SortFunc(evs, func(x, y event) int { return cmpInt(x.t, y.t) })
	}
}
