package plan

import (
	"bytes"
	"io"
	"runtime"
	"testing"

	"github.com/berthsched/berth"
)

// heapInUse is the live heap after a collection.
func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

func totalAlloc() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.TotalAlloc
}

// benchSystem is a system holding benchPlan's 10,000 reservations, every
// id in its queue map; it returns the system and the heap it takes.
func benchSystem(b *testing.B) (*System, uint64) {
	before := heapInUse()
	s, err := NewSystem(SystemConfig{ClusterTimestamp: rid(1).ClusterTimestamp, Clock: berth.NewManualClock(0)})
	if err != nil {
		b.Fatal(err)
	}
	p := benchPlan(b, 10_000)
	if err := s.AddPlan(p); err != nil {
		b.Fatal(err)
	}
	for _, a := range p.All() {
		s.queues[a.ID] = p.QueueName()
	}
	s.sequence = 10_000
	return s, heapInUse() - before
}

var benchResolver = ResolverFunc(func(PlanSpec) (PlanParts, error) {
	return PlanParts{Agent: testAgent{}, Policy: acceptAll{}}, nil
})

// BenchmarkSystemSaveState saves 10,000 reservations. alloc/state is the
// memory allocated per save over the state's heap: an upper bound of the
// peak extra memory.
func BenchmarkSystemSaveState(b *testing.B) {
	s, state := benchSystem(b)
	var size int64
	b.ReportAllocs()
	b.ResetTimer()
	stop := cpuClock(b)
	a0 := totalAlloc()
	for b.Loop() {
		cw := &countingWriter{}
		if err := s.SaveState(cw); err != nil {
			b.Fatal(err)
		}
		size = cw.n
	}
	per := float64(totalAlloc()-a0) / float64(b.N)
	stop()
	b.ReportMetric(float64(state)/1e6, "state-MB")
	b.ReportMetric(float64(size)/1e6, "snapshot-MB")
	b.ReportMetric(per/float64(state), "alloc/state")
}

// BenchmarkSystemRestore restores 10,000 reservations, their indexes
// rebuilt. alloc/state is the memory allocated per restore (the restored
// state itself included) over the state's heap; restored/state the heap the
// restored system keeps.
func BenchmarkSystemRestore(b *testing.B) {
	s, state := benchSystem(b)
	var buf bytes.Buffer
	if err := s.SaveState(&buf); err != nil {
		b.Fatal(err)
	}
	snap := buf.Bytes()
	env := RestoreEnv{Clock: berth.NewManualClock(0), Resolver: benchResolver}
	b.ReportAllocs()
	b.ResetTimer()
	stop := cpuClock(b)
	a0 := totalAlloc()
	var r *System
	for b.Loop() {
		var err error
		if r, err = RestoreSystem(bytes.NewReader(snap), env); err != nil {
			b.Fatal(err)
		}
	}
	per := float64(totalAlloc()-a0) / float64(b.N)
	stop()
	b.StopTimer()
	kept := heapInUse()
	runtime.KeepAlive(r)
	r = nil
	kept -= heapInUse()
	_ = r
	b.ReportMetric(float64(state)/1e6, "state-MB")
	b.ReportMetric(per/float64(state), "alloc/state")
	b.ReportMetric(float64(kept)/float64(state), "restored/state")
	runtime.KeepAlive(s)
}

type countingWriter struct{ n int64 }

func (w *countingWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }

var _ io.Writer = (*countingWriter)(nil)
