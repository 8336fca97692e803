package capacity

import (
	"testing"
)

// BenchmarkRecordedHeartbeat is the cost of recording the walk: one
// heartbeat (one container released, one allocated) in the tree of
// BenchmarkManyApps with 1,000 applications on 5,000 nodes, recording
// nothing (the walk's cost when off: compare BenchmarkHeartbeatByApps),
// one application's attempts, every application's, or the whole walk of
// every heartbeat.
func BenchmarkRecordedHeartbeat(b *testing.B) {
	modes := []struct {
		name string
		on   func(s *Scheduler, node string)
	}{
		{"off", nil},
		{"one-app", func(s *Scheduler, _ string) { _ = s.RecordApp("app000500", 16) }},
		{"every-app", func(s *Scheduler, _ string) { _ = s.RecordApp("", 4) }},
		{"node", func(s *Scheduler, node string) { _ = s.RecordHeartbeat(node) }},
	}
	for _, m := range modes {
		b.Run(m.name, func(b *testing.B) {
			s, ids, _ := manyAppsWorld(b, OrderPriorityUtilization, 5000, 1000, asksPerApp(1000), 1)
			last := make([][]ContainerID, len(ids))
			if m.on != nil && m.name != "node" {
				m.on(s, "")
			}
			b.ReportAllocs()
			cpu0 := cpuTime()
			i := 0
			for b.Loop() {
				j := i % len(ids)
				if m.name == "node" {
					m.on(s, ids[j])
				}
				als, err := s.Heartbeat(ids[j], last[j])
				if err != nil {
					b.Fatal(err)
				}
				last[j] = last[j][:0]
				for _, al := range als {
					last[j] = append(last[j], al.Container.ID)
				}
				i++
				if i%len(ids) == 0 {
					s.flushAccounts()
				}
			}
			b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/heartbeat")
		})
	}
}
