package fair

import (
	"fmt"
	"testing"
)

// BenchmarkReservationQueueChurn is the cost of what a plan follower does
// as reservations come and go: one reservation queue added and one
// removed, in a plan already holding held reservation queues (a plan keeps
// a finished reservation's queue for a day) beside 100 ordinary leaves.
func BenchmarkReservationQueueChurn(b *testing.B) {
	for _, held := range []int{100, 1000, 5000} {
		b.Run(fmt.Sprintf("held=%d", held), func(b *testing.B) {
			s, _, _ := manyAppsWorld(b, "fair", 100, 1000, 10)
			af, err := ParseAllocationFile([]byte(allocXML(manyAppsQueues("fair")+`<queue name="plan"><reservation/></queue>`)), ParseOptions{})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := s.Reload(af); err != nil {
				b.Fatal(err)
			}
			for i := range held {
				if err := s.AddReservationQueue("root.plan", fmt.Sprintf("held%05d", i)); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				id := fmt.Sprintf("r%d", i)
				if err := s.AddReservationQueue("root.plan", id); err != nil {
					b.Fatal(err)
				}
				if err := s.SetEntitlement("root.plan."+id, Entitlement{Capacity: 0.01, MaxCapacity: 1}); err != nil {
					b.Fatal(err)
				}
				if err := s.RemoveReservationQueue("root.plan." + id); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}
