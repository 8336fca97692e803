package fair

import (
	"fmt"
	"strings"
	"testing"

	"github.com/berthsched/berth"
)

// idleQueuesWorld is a parent queue (policy pol everywhere) with one busy leaf, whose
// application always has pending asks, and idle sibling leaves without
// applications (as a plan's finished reservations keep theirs for a day),
// on eight nodes that the busy application fills. It returns the node ids
// and the containers placed on each.
func idleQueuesWorld(tb testing.TB, pol string, idle int) (*Scheduler, []string, [][]ContainerID) {
	var b strings.Builder
	fmt.Fprintf(&b, `<defaultQueueSchedulingPolicy>%s</defaultQueueSchedulingPolicy><queue name="p"><queue name="busy"/>`, pol)
	for i := range idle {
		fmt.Fprintf(&b, `<queue name="idle%05d"/>`, i)
	}
	b.WriteString(`</queue>`)
	af, err := ParseAllocationFile([]byte(allocXML(b.String())), ParseOptions{})
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
	ids := make([]string, 8)
	for i := range ids {
		ids[i] = fmt.Sprintf("n%d", i)
		if err := s.AddNode(NodeSpec{ID: ids[i], Rack: "/r", Capability: berth.New(64*1024, 64)}); err != nil {
			tb.Fatal(err)
		}
	}
	if _, err := s.SubmitApp(AppSpec{ID: "app", Queue: "root.p.busy", User: "u"}); err != nil {
		tb.Fatal(err)
	}
	if _, err := s.Allocate("app", []Ask{{Priority: 1, ResourceName: AnyResource, Capability: berth.New(1024, 1), Count: 1 << 30}}, nil); err != nil {
		tb.Fatal(err)
	}
	s.Update()
	held := make([][]ContainerID, len(ids))
	for i, id := range ids {
		for {
			als, err := s.Heartbeat(id, nil)
			if err != nil {
				tb.Fatal(err)
			}
			if len(als) == 0 {
				break
			}
			for _, al := range als {
				held[i] = append(held[i], al.Container.ID)
			}
		}
	}
	return s, ids, held
}

// BenchmarkHeartbeatByIdleQueues is the cost of one heartbeat as the
// number of idle sibling queues of the busy leaf grows (10 to 10,000),
// under the fair and the DRF policy: "assign" heartbeats release one
// container and place one, "full" heartbeats come from a full node and
// place nothing (the walk then offers the node to every queue with
// demand). Idle queues can take nothing: the cost should not grow with
// them.
func BenchmarkHeartbeatByIdleQueues(b *testing.B) {
	for _, pol := range []string{"fair", "drf"} {
		for _, mode := range []string{"assign", "full"} {
			for _, idle := range []int{10, 100, 1000, 10000} {
				b.Run(fmt.Sprintf("policy=%s/%s/idle=%d", pol, mode, idle), func(b *testing.B) {
					s, ids, held := idleQueuesWorld(b, pol, idle)
					b.ReportAllocs()
					cpu0 := cpuTime()
					i := 0
					for b.Loop() {
						j := i % len(ids)
						var done []ContainerID
						if mode == "assign" {
							done, held[j] = held[j][:1], held[j][1:]
						}
						als, err := s.Heartbeat(ids[j], done)
						if err != nil {
							b.Fatal(err)
						}
						if want := len(done); len(als) != want {
							b.Fatalf("placed %d containers, want %d", len(als), want)
						}
						for _, al := range als {
							held[j] = append(held[j], al.Container.ID)
						}
						i++
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/heartbeat")
					b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/heartbeat")
				})
			}
		}
	}
}
