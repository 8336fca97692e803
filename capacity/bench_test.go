package capacity

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/berthsched/berth"
)

// throughputWorld is YuniKorn's scheduling benchmark scenario: a root with
// two leaf queues, two applications with 5,000 one-container asks each,
// nodes sized so the cluster fits exactly the 10,000 containers.
func throughputWorld(b *testing.B, nodes int) *Scheduler {
	const total = 10000
	cfg := DefaultConfig()
	cfg.Root.Children = []QueueConfig{Queue("a", 50), Queue("b", 50)}
	// assign-multiple: fill a node in one heartbeat.
	cfg.MaxOffSwitchAssignments = total
	cfg.MaxContainerAssignments = -1
	cfg.Clock = berth.NewManualClock(0)
	s, err := New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	per := int64(total / nodes)
	for i := 0; i < nodes; i++ {
		if err := s.AddNode(NodeSpec{ID: fmt.Sprintf("node-%05d", i), Rack: fmt.Sprintf("/rack-%03d", i%100), Capability: berth.New(per*1024, per)}); err != nil {
			b.Fatal(err)
		}
	}
	for i, q := range []string{"a", "b"} {
		id := fmt.Sprintf("app-%d", i)
		if _, err := s.SubmitApp(AppSpec{ID: id, Queue: q, User: "user-" + q}); err != nil {
			b.Fatal(err)
		}
		if _, err := s.Allocate(id, []Ask{{Priority: 1, ResourceName: AnyResource, Capability: berth.New(1024, 1), Count: total / 2}}, nil); err != nil {
			b.Fatal(err)
		}
	}
	return s
}

func BenchmarkSchedulingThroughput(b *testing.B) {
	for _, nodes := range []int{500, 1000, 2000, 5000} {
		b.Run(fmt.Sprintf("nodes=%d", nodes), func(b *testing.B) {
			b.ReportAllocs()
			var placed int
			var elapsed, cpu time.Duration
			var allocs uint64
			var ms runtime.MemStats
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				s := throughputWorld(b, nodes)
				ids := sortedKeys(s.nodes)
				runtime.ReadMemStats(&ms)
				m0 := ms.Mallocs
				b.StartTimer()
				start, cpu0 := time.Now(), cpuTime()
				n := 0
				for n < 10000 {
					before := n
					for _, id := range ids {
						al, err := s.Heartbeat(id, nil)
						if err != nil {
							b.Fatal(err)
						}
						n += len(al)
					}
					if n == before {
						b.Fatalf("stuck at %d containers", n)
					}
				}
				// The tree accounting the heartbeats deferred is part of
				// their cost (deferAccount).
				s.mu.Lock()
				s.flushAccounts()
				s.mu.Unlock()
				elapsed += time.Since(start)
				cpu += cpuTime() - cpu0
				b.StopTimer()
				runtime.ReadMemStats(&ms)
				allocs += ms.Mallocs - m0
				b.StartTimer()
				placed += n
			}
			b.ReportMetric(float64(placed)/elapsed.Seconds(), "containers/s")
			// The machine may be shared: CPU time is the steadier figure.
			b.ReportMetric(float64(placed)/cpu.Seconds(), "containers/cpu-s")
			b.ReportMetric(float64(allocs)/float64(placed), "allocs/container")
		})
	}
}

// BenchmarkLargeCluster: 10,000 nodes, 1,000 leaf queues in three levels
// (10 × 10 × 10, 10% each), 10,000 applications (10 per leaf, 10 users per
// leaf), 100 one-container asks each: 1,000,000 containers filling the
// cluster exactly. Heartbeats go round the nodes until everything is
// placed. Reports throughput and the heap in use once everything runs.
func BenchmarkLargeCluster(b *testing.B) {
	const (
		fan     = 10
		nodes   = 10000
		perApp  = 100
		appsPer = 10
	)
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		cfg := DefaultConfig()
		cfg.MaxOffSwitchAssignments = 1000
		cfg.MaxContainerAssignments = -1
		var l1 []QueueConfig
		for x := 0; x < fan; x++ {
			var l2 []QueueConfig
			for y := 0; y < fan; y++ {
				var l3 []QueueConfig
				for z := 0; z < fan; z++ {
					l3 = append(l3, Queue(fmt.Sprintf("q%d%d%d", x, y, z), 10))
				}
				l2 = append(l2, Queue(fmt.Sprintf("q%d%d", x, y), 10, l3...))
			}
			l1 = append(l1, Queue(fmt.Sprintf("q%d", x), 10, l2...))
		}
		cfg.Root.Children = l1
		cfg.Clock = berth.NewManualClock(0)
		s, err := New(cfg)
		if err != nil {
			b.Fatal(err)
		}
		per := int64(fan * fan * fan * appsPer * perApp / nodes)
		ids := make([]string, nodes)
		specs := make([]NodeSpec, nodes)
		for n := 0; n < nodes; n++ {
			ids[n] = fmt.Sprintf("node-%05d", n)
			specs[n] = NodeSpec{ID: ids[n], Rack: fmt.Sprintf("/rack-%03d", n/40), Capability: berth.New(per*1024, per)}
		}
		if err := s.AddNodes(specs...); err != nil {
			b.Fatal(err)
		}
		for l := 0; l < fan*fan*fan; l++ {
			path := fmt.Sprintf("root.q%d.q%d%d.q%d%d%d", l/100, l/100, l/10%10, l/100, l/10%10, l%10)
			for a := 0; a < appsPer; a++ {
				id := fmt.Sprintf("app-%04d-%d", l, a)
				if _, err := s.SubmitApp(AppSpec{ID: id, Queue: path, User: fmt.Sprintf("user-%d", a)}); err != nil {
					b.Fatal(err)
				}
				if _, err := s.Allocate(id, []Ask{{Priority: 1, ResourceName: AnyResource, Capability: berth.New(1024, 1), Count: perApp}}, nil); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.StartTimer()
		start, cpu0 := time.Now(), cpuTime()
		placed := 0
		for placed < fan*fan*fan*appsPer*perApp {
			before := placed
			for _, id := range ids {
				al, err := s.Heartbeat(id, nil)
				if err != nil {
					b.Fatal(err)
				}
				placed += len(al)
			}
			if placed == before {
				b.Fatalf("stuck at %d containers", placed)
			}
		}
		el, cpu := time.Since(start), cpuTime()-cpu0
		b.StopTimer()
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		b.ReportMetric(float64(placed)/el.Seconds(), "containers/s")
		b.ReportMetric(float64(placed)/cpu.Seconds(), "containers/cpu-s")
		b.ReportMetric(float64(ms.HeapAlloc)/(1<<20), "heap-MB")
		runtime.KeepAlive(s)
		b.StartTimer()
	}
}

// BenchmarkReservationQueueChurn: a plan follower's step on a tree of
// 1,000 leaves (10 × 10 × 10) plus a plan queue holding 200 reservation
// queues: one reservation queue is added, entitled, emptied and removed
// per operation. Reports the cost of one add+remove pair.
func BenchmarkReservationQueueChurn(b *testing.B) {
	cfg := DefaultConfig()
	var top []QueueConfig
	for i := 0; i < 10; i++ {
		var mid []QueueConfig
		for j := 0; j < 10; j++ {
			var leaves []QueueConfig
			for k := 0; k < 10; k++ {
				leaves = append(leaves, Queue(fmt.Sprintf("l%d_%d_%d", i, j, k), 10))
			}
			mid = append(mid, Queue(fmt.Sprintf("m%d_%d", i, j), 10, leaves...))
		}
		top = append(top, Queue(fmt.Sprintf("t%d", i), 9, mid...))
	}
	plan := Queue("plan", 10)
	plan.Reservable = true
	cfg.Root.Children = append(top, plan)
	cfg.Clock = berth.NewManualClock(0)
	s, err := New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < 100; i++ {
		if err := s.AddNode(NodeSpec{ID: fmt.Sprintf("n%03d", i), Rack: "/r", Capability: berth.New(64*1024, 64)}); err != nil {
			b.Fatal(err)
		}
	}
	if err := s.SetEntitlement("plan-default", Entitlement{Capacity: 0.5, MaxCapacity: 1}); err != nil {
		b.Fatal(err)
	}
	for i := 0; i < 200; i++ {
		if err := s.AddReservationQueue("plan", fmt.Sprintf("reservation_%d", i)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		id := fmt.Sprintf("churn_%d", i)
		if err := s.AddReservationQueue("plan", id); err != nil {
			b.Fatal(err)
		}
		if err := s.SetEntitlement(id, Entitlement{Capacity: 0.001, MaxCapacity: 1}); err != nil {
			b.Fatal(err)
		}
		if err := s.SetEntitlement(id, Entitlement{Capacity: 0, MaxCapacity: 1}); err != nil {
			b.Fatal(err)
		}
		if err := s.RemoveReservationQueue(id); err != nil {
			b.Fatal(err)
		}
	}
}
