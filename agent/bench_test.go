package agent_test

import (
	"errors"
	"runtime"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/plan"
)

// benchW2 runs the whole workload on a fresh plan per iteration and
// reports how many were accepted, the mean time per submission and the
// mean thread CPU time per submission (the figure to trust on a loaded
// machine).
func benchW2(b *testing.B, div int64) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	reqs := w2Requests()
	defs := make([]plan.Definition, len(reqs))
	for i, r := range reqs {
		defs[i] = r.definition()
	}
	b.ReportAllocs()
	b.ResetTimer()
	accepted := 0
	var cpu int64
	for b.Loop() {
		b.StopTimer()
		p, ag := w2Plan(b, div)
		b.StartTimer()
		c0 := threadCPU()
		accepted = 0
		for i, r := range reqs {
			id := plan.ReservationID{ClusterTimestamp: 1, Sequence: int64(i + 1)}
			err := ag.CreateReservation(p, id, r.user, defs[i])
			switch {
			case err == nil:
				accepted++
			case !errors.Is(err, berth.ErrNoPlacement):
				b.Fatalf("request %d: %v", i, err)
			}
		}
		cpu += threadCPU() - c0
	}
	b.ReportMetric(float64(accepted), "accepted")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(reqs)), "ns/submission")
	b.ReportMetric(float64(cpu)/float64(b.N)/float64(len(reqs)), "cpu-ns/submission")
}

// BenchmarkW2 is workload W2 of WORKLOADS.md at the repository root.
func BenchmarkW2(b *testing.B) { benchW2(b, 1) }

// BenchmarkW2Hot is W2 with the plan capacity divided by 20.
func BenchmarkW2Hot(b *testing.B) { benchW2(b, 20) }
