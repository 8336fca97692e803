package fair

import (
	"fmt"
	"testing"
	"time"

	"github.com/berthsched/berth"
)

// throughputWorld builds root with two leaf queues, one application in each
// asking 5,000 one-container <1024, 1> asks, and n nodes that together fit
// exactly the 10,000 containers.
func throughputWorld(tb testing.TB, n int) (*Scheduler, []string) {
	af, err := ParseAllocationFile([]byte(allocXML(`<queue name="a"/><queue name="b"/>`)), ParseOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Allocation = af
	cfg.Clock = berth.NewManualClock(0)
	s, err := New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	per := int64(10000 / n)
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("n%04d", i)
		if err := s.AddNode(NodeSpec{ID: ids[i], Rack: fmt.Sprintf("/r%d", i%20), Capability: berth.New(1024*per, per)}); err != nil {
			tb.Fatal(err)
		}
	}
	for i, q := range []string{"root.a", "root.b"} {
		id := fmt.Sprintf("app%d", i)
		if _, err := s.SubmitApp(AppSpec{ID: id, Queue: q, User: "u"}); err != nil {
			tb.Fatal(err)
		}
		if _, err := s.Allocate(id, []Ask{{Priority: 1, ResourceName: AnyResource, Capability: berth.New(1024, 1), Count: 5000}}, nil); err != nil {
			tb.Fatal(err)
		}
	}
	return s, ids
}

// placeAll heartbeats the nodes round-robin until every container is
// placed and returns the number of heartbeats.
func placeAll(tb testing.TB, s *Scheduler, ids []string) int {
	placed, beats := 0, 0
	for placed < 10000 {
		progress := false
		for _, id := range ids {
			als, err := s.Heartbeat(id, nil)
			if err != nil {
				tb.Fatal(err)
			}
			beats++
			placed += len(als)
			progress = progress || len(als) > 0
		}
		if !progress {
			tb.Fatalf("stuck at %d placed", placed)
		}
	}
	return beats
}

func TestThroughputWorldPlacesEverything(t *testing.T) {
	s, ids := throughputWorld(t, 500)
	placeAll(t, s, ids)
	sn := s.Snapshot()
	if len(sn.Containers) != 10000 {
		t.Fatalf("placed %d", len(sn.Containers))
	}
	for _, n := range sn.Nodes {
		if !n.Allocated.Equal(n.Capability) {
			t.Fatalf("node %s not full: %v", n.ID, n.Allocated)
		}
	}
	if a, b := sn.Queue("root.a").Usage.Memory, sn.Queue("root.b").Usage.Memory; a != b {
		t.Fatalf("unfair split %d / %d", a, b)
	}
}

// BenchmarkSchedulingThroughput places 10,000 containers of two
// applications in two queues on clusters of 500 to 5,000 nodes, one
// container per heartbeat (YARN's default), and reports containers/s.
func BenchmarkSchedulingThroughput(b *testing.B) {
	for _, n := range []int{500, 1000, 2000, 5000} {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			total := 0
			var cpu time.Duration
			for b.Loop() {
				b.StopTimer()
				s, ids := throughputWorld(b, n)
				b.StartTimer()
				cpu0 := cpuTime()
				placeAll(b, s, ids)
				// The shared tree's books are charged when read: count
				// their cost (accountApp).
				s.flushAccounts()
				cpu += cpuTime() - cpu0
				total += 10000
			}
			b.ReportMetric(float64(total)/b.Elapsed().Seconds(), "containers/s")
			// The machine may be shared: CPU time is the steadier figure.
			b.ReportMetric(float64(total)/cpu.Seconds(), "containers/cpu-s")
		})
	}
}
