package rle

import (
	"testing"

	"github.com/berthsched/berth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Workload W1 of WORKLOADS.md at the repository root.

const (
	w1Intervals = 100_000
	w1Queries   = 100_000
	w1Ranges    = 10_000
	w1Step      = 1000
)

type w1Data struct {
	ivs    []berth.Interval
	res    []berth.Resource
	points []berth.Time
	ranges []berth.Interval
}

// w1Generate draws W1's inputs in the workload's order: intervals, then the
// point queries, then the range queries.
func w1Generate() *w1Data {
	g := &splitmix64{x: 42}
	d := &w1Data{}
	for range w1Intervals {
		start := g.uniform(0, 86399) * w1Step
		dur := g.uniform(1, 3600) * w1Step
		k := g.uniform(1, 8)
		d.ivs = append(d.ivs, berth.Interval{Start: start, End: start + dur})
		d.res = append(d.res, berth.New(1024*k, k))
	}
	for range w1Queries {
		d.points = append(d.points, g.uniform(0, 90000)*w1Step)
	}
	for range w1Ranges {
		a := g.uniform(0, 86399) * w1Step
		d.ranges = append(d.ranges, berth.Interval{Start: a, End: a + 3_600_000})
	}
	return d
}

func w1Added(tb testing.TB, d *w1Data) *Series {
	s := New()
	for i, iv := range d.ivs {
		if err := s.Add(iv, d.res[i]); err != nil {
			tb.Fatal(err)
		}
	}
	return s
}

func TestSplitmixReference(t *testing.T) {
	g := &splitmix64{x: 42}
	assert.Equal(t, uint64(0xBDD732262FEB6E95), g.next())
	assert.Equal(t, uint64(0x28EFE333B266F103), g.next())
	assert.Equal(t, uint64(0x47526757130F9F52), g.next())
}

func TestW1Checksums(t *testing.T) {
	if testing.Short() {
		t.Skip("W1 runs 220,000 operations; -short leaves it out")
	}
	d := w1Generate()
	s := w1Added(t, d)
	assert.Equal(t, 76_413, s.Len(), "breakpoints after phase A")
	peak := s.Max(berth.Interval{Start: berth.MinTime, End: berth.MaxTime})
	assert.Equal(t, int64(10_353_664), peak.Memory, "peak memory")
	var sumB int64
	for _, tm := range d.points {
		sumB += s.At(tm).Memory
	}
	assert.Equal(t, int64(920_624_285_696), sumB, "phase B checksum")
	var sumC int64
	for _, iv := range d.ranges {
		sumC += s.Min(iv).Memory
	}
	assert.Equal(t, int64(88_496_088_064), sumC, "phase C checksum")
	for i, iv := range d.ivs {
		require.NoError(t, s.Remove(iv, d.res[i]))
	}
	assert.True(t, s.IsEmpty())
	assert.Equal(t, 0, s.Len())
	checkInvariants(t, s)
}

func BenchmarkW1Add(b *testing.B) {
	d := w1Generate()
	b.ReportAllocs()
	b.ResetTimer()
	var s *Series
	for i := 0; i < b.N; i++ {
		j := i % w1Intervals
		if j == 0 {
			b.StopTimer()
			s = New()
			b.StartTimer()
		}
		if err := s.Add(d.ivs[j], d.res[j]); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkW1Query(b *testing.B) {
	d := w1Generate()
	s := w1Added(b, d)
	b.ReportAllocs()
	b.ResetTimer()
	var sum int64
	for i := 0; i < b.N; i++ {
		sum += s.At(d.points[i%w1Queries]).Memory
	}
	b.StopTimer()
	var check int64
	for _, tm := range d.points {
		check += s.At(tm).Memory
	}
	b.ReportMetric(float64(check), "checksum")
	_ = sum
}

func BenchmarkW1MinHour(b *testing.B) {
	d := w1Generate()
	s := w1Added(b, d)
	b.ReportAllocs()
	b.ResetTimer()
	var sum int64
	for i := 0; i < b.N; i++ {
		sum += s.Min(d.ranges[i%w1Ranges]).Memory
	}
	b.StopTimer()
	var check int64
	for _, iv := range d.ranges {
		check += s.Min(iv).Memory
	}
	b.ReportMetric(float64(check), "checksum")
	_ = sum
}

func BenchmarkW1Remove(b *testing.B) {
	d := w1Generate()
	b.ReportAllocs()
	b.ResetTimer()
	var s *Series
	for i := 0; i < b.N; i++ {
		j := i % w1Intervals
		if j == 0 {
			b.StopTimer()
			s = w1Added(b, d) // phase D starts from the end of phase A
			b.StartTimer()
		}
		if err := s.Remove(d.ivs[j], d.res[j]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkW1StepsHour iterates with StepsIn over W1's one-hour windows
// (phase C's), the way the plan walks its load; steps/op is the mean count.
func BenchmarkW1StepsHour(b *testing.B) {
	d := w1Generate()
	s := w1Added(b, d)
	b.ReportAllocs()
	b.ResetTimer()
	n, sum := 0, int64(0)
	for i := 0; i < b.N; i++ {
		for st := range s.StepsIn(d.ranges[i%w1Ranges]) {
			sum += st.Value.VCores
			n++
		}
	}
	b.ReportMetric(float64(n)/float64(b.N), "steps/op")
	_ = sum
}

// BenchmarkW1AppendStepsHour is BenchmarkW1StepsHour with AppendSteps into a
// reused buffer: no allocation.
func BenchmarkW1AppendStepsHour(b *testing.B) {
	d := w1Generate()
	s := w1Added(b, d)
	b.ReportAllocs()
	b.ResetTimer()
	var buf []Step
	n := 0
	for i := 0; i < b.N; i++ {
		buf = s.AppendSteps(buf[:0], d.ranges[i%w1Ranges])
		n += len(buf)
	}
	b.ReportMetric(float64(n)/float64(b.N), "steps/op")
}
