package fair

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/berthsched/berth"
)

// bigStateWorld is the durable-state benchmark's scheduler: 10,000 nodes
// of <10 GB, 10> on 100 racks, 100 leaves under 10 parents, 2,000
// applications of 50 containers of <1 GB, 1> each (100,000 containers,
// every node full), and 1,000 more applications waiting with asks at two
// priorities, a rack and a host, so that the request tables are not
// trivial.
func bigStateWorld(tb testing.TB) (*Scheduler, *berth.ManualClock) {
	var b strings.Builder
	for p := 0; p < 10; p++ {
		fmt.Fprintf(&b, `<queue name="p%d">`, p)
		for l := 0; l < 10; l++ {
			fmt.Fprintf(&b, `<queue name="l%d"/>`, l)
		}
		b.WriteString(`</queue>`)
	}
	af, err := ParseAllocationFile([]byte(allocXML(b.String())), ParseOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.AssignMultiple, cfg.DynamicMaxAssign, cfg.MaxAssign = true, false, -1
	clock := berth.NewManualClock(0)
	cfg.Allocation = af
	cfg.Clock = clock
	s, err := New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	const nodes = 10000
	for i := range nodes {
		if err := s.AddNode(NodeSpec{ID: fmt.Sprintf("n%05d", i), Rack: fmt.Sprintf("/r%d", i%100), Capability: berth.New(10*1024, 10)}); err != nil {
			tb.Fatal(err)
		}
	}
	submit := func(i, count int) {
		id := fmt.Sprintf("app%06d", i)
		q := fmt.Sprintf("root.p%d.l%d", i%10, i/10%10)
		if _, err := s.SubmitApp(AppSpec{ID: id, Queue: q, User: fmt.Sprintf("u%d", i%37)}); err != nil {
			tb.Fatal(err)
		}
		if _, err := s.Allocate(id, []Ask{{Priority: 1, ResourceName: AnyResource, Capability: berth.New(1024, 1), Count: count}}, nil); err != nil {
			tb.Fatal(err)
		}
	}
	for i := range 2000 {
		submit(i, 50)
	}
	s.Update()
	for i := range nodes {
		clock.Advance(1)
		if _, err := s.Heartbeat(fmt.Sprintf("n%05d", i), nil); err != nil {
			tb.Fatal(err)
		}
	}
	for i := 2000; i < 3000; i++ {
		submit(i, 5)
		id := fmt.Sprintf("app%06d", i)
		if _, err := s.Allocate(id, []Ask{
			{Priority: 2, ResourceName: AnyResource, Capability: berth.New(2048, 1), Count: 3},
			{Priority: 2, ResourceName: fmt.Sprintf("/r%d", i%100), Capability: berth.New(2048, 1), Count: 2},
			{Priority: 2, ResourceName: fmt.Sprintf("n%05d", i), Capability: berth.New(2048, 1), Count: 1},
		}, nil); err != nil {
			tb.Fatal(err)
		}
	}
	s.Update()
	if n := s.live.Len(); n != 100000 {
		tb.Fatalf("%d containers, want 100000", n)
	}
	return s, clock
}

func heapNow() uint64 {
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

// BenchmarkStateSave and BenchmarkStateRestore measure SaveState and
// RestoreScheduler of a 10,000-node, 100,000-container scheduler. Metrics:
// cpu-ms/op is the process's CPU time per operation (wall time suffers
// on a shared machine; the GC's share is included), state-MB is the scheduler's heap (HeapAlloc after GC, before and after
// building it), alloc-MB/op what one save or restore allocates in all
// (an upper bound on its peak extra memory; a restore's includes the new
// scheduler itself), and alloc/state their ratio; snapshot-MB is the
// snapshot's size.
func BenchmarkStateSave(b *testing.B) {
	base := heapNow()
	s, _ := bigStateWorld(b)
	state := heapNow() - base
	var buf bytes.Buffer
	if err := s.SaveState(&buf); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	before, cpu0 := totalAlloc(), cpuTime()
	for b.Loop() {
		if err := s.SaveState(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((cpuTime()-cpu0).Milliseconds())/float64(b.N), "cpu-ms/op")
	alloc := float64(totalAlloc()-before) / float64(b.N)
	b.ReportMetric(float64(state)/(1<<20), "state-MB")
	b.ReportMetric(float64(buf.Len())/(1<<20), "snapshot-MB")
	b.ReportMetric(alloc/(1<<20), "alloc-MB/op")
	b.ReportMetric(alloc/float64(state), "alloc/state")
	runtime.KeepAlive(s)
}

func BenchmarkStateRestore(b *testing.B) {
	base := heapNow()
	s, clock := bigStateWorld(b)
	state := heapNow() - base
	var buf bytes.Buffer
	if err := s.SaveState(&buf); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	b.ReportAllocs()
	b.ResetTimer()
	before, cpu0 := totalAlloc(), cpuTime()
	for b.Loop() {
		r, err := RestoreScheduler(bytes.NewReader(data), RestoreEnv{Clock: clock})
		if err != nil {
			b.Fatal(err)
		}
		runtime.KeepAlive(r)
	}
	b.ReportMetric(float64((cpuTime()-cpu0).Milliseconds())/float64(b.N), "cpu-ms/op")
	alloc := float64(totalAlloc()-before) / float64(b.N)
	b.ReportMetric(float64(state)/(1<<20), "state-MB")
	b.ReportMetric(alloc/(1<<20), "alloc-MB/op")
	b.ReportMetric(alloc/float64(state), "alloc/state")
	runtime.KeepAlive(s)
}
