package capacity

import (
	"bytes"
	"io"
	"runtime"
	"testing"
	"time"

	"github.com/berthsched/berth"
)

// bigState builds the benchmark scheduler: 10,000 nodes and
// 100,000 live containers of 10,000 applications (the many-applications
// scenario), each application still asking for one more container. It
// returns the scheduler and the heap its state holds.
func bigState(b *testing.B) (*Scheduler, uint64) {
	b.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s, nodes, _ := manyAppsWorld(b, OrderUtilization, 10000, 10000, 11, -1)
	for placed := 0; placed < 100000; {
		progress := 0
		for _, n := range nodes {
			al, err := s.Heartbeat(n, nil)
			if err != nil {
				b.Fatal(err)
			}
			progress += len(al)
			placed += len(al)
			if placed >= 100000 {
				break
			}
		}
		if progress == 0 {
			b.Fatal("no progress")
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	return s, after.HeapAlloc - before.HeapAlloc
}

// BenchmarkSaveRestore saves and restores a 10,000-node, 100,000-container
// scheduler. Metrics: the time of each, the state's heap, and what each
// allocated in total (an upper bound of its peak extra memory) relative to
// the state's heap.
func BenchmarkSaveRestore(b *testing.B) {
	s, state := bigState(b)
	if got := s.live.Len(); got < 100000 {
		b.Fatalf("%d containers", got)
	}
	var snap bytes.Buffer
	if err := s.SaveState(&snap); err != nil {
		b.Fatal(err)
	}
	env := RestoreEnv{Clock: berth.NewManualClock(0)}
	measure := func(op string, do func() error) {
		b.Run(op, func(b *testing.B) {
			b.ReportAllocs()
			var ms0, ms1 runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&ms0)
			start, cpu0 := time.Now(), cpuTime()
			for i := 0; i < b.N; i++ {
				if err := do(); err != nil {
					b.Fatal(err)
				}
			}
			el := time.Since(start)
			runtime.ReadMemStats(&ms1)
			alloc := float64(ms1.TotalAlloc-ms0.TotalAlloc) / float64(b.N)
			b.ReportMetric(float64(el.Milliseconds())/float64(b.N), "ms/"+op)
			b.ReportMetric(float64((cpuTime()-cpu0).Milliseconds())/float64(b.N), "cpu-ms/"+op)
			b.ReportMetric(alloc/(1<<20), "alloc-MB/"+op)
			b.ReportMetric(alloc/float64(state), "alloc/state")
			b.ReportMetric(float64(state)/(1<<20), "state-MB")
			b.ReportMetric(float64(snap.Len())/(1<<20), "snapshot-MB")
		})
	}
	measure("save", func() error { return s.SaveState(io.Discard) })
	measure("restore", func() error {
		_, err := RestoreScheduler(bytes.NewReader(snap.Bytes()), env)
		return err
	})
}
