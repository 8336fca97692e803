package capacity

import (
	"fmt"
	"testing"
	"time"

	"github.com/berthsched/berth/queue"
)

// countingObserver counts every event by kind, as a metrics exporter
// would.
type countingObserver struct {
	containers [8]int
	apps       [8]int
	queues     [8]int
}

func (c *countingObserver) ObserveContainer(e queue.ContainerEvent) { c.containers[e.Kind&7]++ }
func (c *countingObserver) ObserveApp(e queue.AppEvent)             { c.apps[e.Kind&7]++ }
func (c *countingObserver) ObserveQueue(e queue.QueueEvent)         { c.queues[e.Kind&7]++ }

// BenchmarkObservedThroughput is BenchmarkSchedulingThroughput's
// scenario with no observer and with a counting observer: the cost of
// observing every allocation.
func BenchmarkObservedThroughput(b *testing.B) {
	for _, nodes := range []int{500, 5000} {
		for _, observed := range []bool{false, true} {
			b.Run(fmt.Sprintf("nodes=%d/observer=%v", nodes, observed), func(b *testing.B) {
				b.ReportAllocs()
				var placed, events int
				var cpu time.Duration
				for i := 0; i < b.N; i++ {
					b.StopTimer()
					s := throughputWorld(b, nodes)
					o := &countingObserver{}
					if observed {
						s.SetObserver(o)
					}
					ids := sortedKeys(s.nodes)
					b.StartTimer()
					cpu0 := cpuTime()
					n := 0
					for n < 10000 {
						for _, id := range ids {
							al, err := s.Heartbeat(id, nil)
							if err != nil {
								b.Fatal(err)
							}
							n += len(al)
						}
					}
					cpu += cpuTime() - cpu0
					placed += n
					events += o.containers[queue.ContainerAllocated]
				}
				if observed && events != placed {
					b.Fatalf("observed %d allocations of %d", events, placed)
				}
				b.ReportMetric(float64(placed)/cpu.Seconds(), "containers/cpu-s")
			})
		}
	}
}
