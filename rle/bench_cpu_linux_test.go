//go:build linux

package rle

import (
	"runtime"
	"syscall"
	"testing"
)

// threadCPU returns the CPU time (user + system, ns) of the calling OS
// thread. On a shared, overloaded machine wall-clock ns/op mostly measures
// waiting for a core; thread CPU time does not.
func threadCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// BenchmarkWorkload1ThreadCPU runs all of W1 per iteration and reports, per phase,
// the thread CPU time of one operation (add, point query, one-hour minimum,
// remove) alongside the checksums.
func BenchmarkWorkload1ThreadCPU(b *testing.B) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	d := w1Generate()
	var cpu [4]int64
	var sumB, sumC int64
	b.ReportAllocs()
	for b.Loop() {
		s := New()
		c0 := threadCPU()
		for i, iv := range d.ivs {
			if err := s.Add(iv, d.res[i]); err != nil {
				b.Fatal(err)
			}
		}
		c1 := threadCPU()
		sumB = 0
		for _, t := range d.points {
			sumB += s.At(t).Memory
		}
		c2 := threadCPU()
		sumC = 0
		for _, iv := range d.ranges {
			sumC += s.Min(iv).Memory
		}
		c3 := threadCPU()
		for i, iv := range d.ivs {
			if err := s.Remove(iv, d.res[i]); err != nil {
				b.Fatal(err)
			}
		}
		c4 := threadCPU()
		cpu[0] += c1 - c0
		cpu[1] += c2 - c1
		cpu[2] += c3 - c2
		cpu[3] += c4 - c3
	}
	n := float64(b.N)
	b.ReportMetric(float64(cpu[0])/n/w1Intervals, "add-cpu-ns/op")
	b.ReportMetric(float64(cpu[1])/n/w1Queries, "query-cpu-ns/op")
	b.ReportMetric(float64(cpu[2])/n/w1Ranges, "minhour-cpu-ns/op")
	b.ReportMetric(float64(cpu[3])/n/w1Intervals, "remove-cpu-ns/op")
	b.ReportMetric(float64(sumB), "checksumB")
	b.ReportMetric(float64(sumC), "checksumC")
}
