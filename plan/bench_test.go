package plan

import (
	"testing"

	"github.com/berthsched/berth"
)

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
	for b.Loop() {
		_ = p.Snapshot()
	}
}

func BenchmarkPlanCumulativeLoadHour(b *testing.B) {
	p := benchPlan(b, 10_000)
	b.ReportAllocs()
	b.ResetTimer()
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
	for i := 0; b.Loop(); i++ {
		t := berth.Time(i%9_000) * 60_000
		if _, err := p.LoadSteps(berth.Interval{Start: t, End: t + 3_600_000}, ""); err != nil {
			b.Fatal(err)
		}
	}
}
