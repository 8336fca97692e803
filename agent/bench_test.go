package agent_test

import (
	"errors"
	"runtime"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/agent"
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

// BenchmarkYardstick runs every agent of the yardstick over both streams
// (W2-hot, W4) and reports the mean and p99 time per decision (of the
// last run) and the reserved memory area as a percentage of the offered.
func BenchmarkYardstick(b *testing.B) {
	streams := []struct {
		name   string
		stream []agent.Episode
	}{{"W2-hot", w2HotStream(b, 10000)}, {"W4", w4Stream(w4Episodes)}}
	for _, s := range streams {
		for _, a := range yardstickAgents(b) {
			b.Run(s.name+"/"+a.name, func(b *testing.B) {
				b.ReportAllocs()
				var r agent.Report
				for b.Loop() {
					var err error
					if r, err = agent.Measure(a.agent, s.stream, stopwatch()); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(r.MeanDecision.Nanoseconds()), "ns/decision")
				b.ReportMetric(float64(r.P99Decision.Nanoseconds()), "p99-ns/decision")
				b.ReportMetric(100*r.Reserved.Ratio(r.Offered).Memory, "%memory")
			})
		}
	}
}

// BenchmarkUpperBound solves the yardstick's bound of each stream (a max
// flow per resource type) and reports its size.
func BenchmarkUpperBound(b *testing.B) {
	for _, s := range []struct {
		name   string
		stream []agent.Episode
	}{{"W2-hot", w2HotStream(b, 10000)}, {"W4", w4Stream(w4Episodes)}} {
		b.Run(s.name, func(b *testing.B) {
			b.ReportAllocs()
			n := 0
			for _, ep := range s.stream {
				n += len(ep.Requests)
			}
			var bound agent.Area
			for b.Loop() {
				bound = agent.Area{}
				for _, ep := range s.stream {
					x := agent.UpperBound(ep)
					bound.Memory += x.Memory
					bound.VCores += x.VCores
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/request")
			b.ReportMetric(bound.Memory, "bound-MB·ms")
		})
	}
}
