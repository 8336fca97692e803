package capacity

import (
	"fmt"
	"strings"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

// bigMappingConfig is a tree of 10 parents × 100 user leaves with 20
// mappings in front of the catch-all one, the shape of a cluster that
// gives each user a queue.
func bigMappingConfig() Config {
	cfg := DefaultConfig()
	cfg.Root.Children = nil // the ten departments share root
	for p := range 10 {
		parent := Queue(fmt.Sprintf("dept%d", p), 10)
		for u := range 100 {
			parent.Children = append(parent.Children, Queue(fmt.Sprintf("u%d_%d", p, u), 1))
		}
		cfg.Root.Children = append(cfg.Root.Children, parent)
	}
	var ms []string
	for i := range 20 {
		ms = append(ms, fmt.Sprintf("g:team%d:dept%d.%%user", i, i%10))
	}
	ms = append(ms, "u:%user:%primary_group.%user")
	cfg.Placement.Mappings, _ = ParseQueueMappings(strings.Join(ms, ","))
	cfg.Groups = queue.GroupsFunc(func(u string) []string {
		var p, n int
		fmt.Sscanf(u, "u%d_%d", &p, &n)
		return []string{fmt.Sprintf("dept%d", p), "staff"}
	})
	return cfg
}

// BenchmarkPlace measures one placement through 21 mappings (the last
// one places) on a 1,000-leaf tree.
func BenchmarkPlace(b *testing.B) {
	cfg := bigMappingConfig()
	cfg.Clock = berth.NewManualClock(0)
	s, err := New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	specs := make([]AppSpec, 1000)
	for i := range specs {
		specs[i] = AppSpec{ID: "x", User: fmt.Sprintf("u%d_%d", i%10, i/10), Queue: "default"}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if _, err := s.Place(specs[i%len(specs)]); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/placement")
}

// BenchmarkParseXMLReport reads a capacity-scheduler.xml of 1,000 leaves
// (about 3,000 keys, a few of them unknown) with its report.
func BenchmarkParseXMLReport(b *testing.B) {
	var props []string
	props = append(props, prefix+"root.queues", "")
	var top []string
	for p := range 10 {
		dept := fmt.Sprintf("dept%d", p)
		top = append(top, dept)
		var kids []string
		for u := range 100 {
			kid := fmt.Sprintf("u%d", u)
			kids = append(kids, kid)
			path := "root." + dept + "." + kid
			props = append(props, prefix+path+".capacity", "1", prefix+path+".maximum-capacity", "50",
				prefix+path+".user-limit-factor", "2")
		}
		props = append(props, prefix+"root."+dept+".queues", strings.Join(kids, ","), prefix+"root."+dept+".capacity", "10",
			prefix+"root."+dept+".accessible-node-labels", "gpu", prefix+"root."+dept+".capacty", "10")
	}
	props[1] = strings.Join(top, ",")
	doc := xmlDoc(props...)
	b.ReportAllocs()
	b.ResetTimer()
	var notes int
	for range b.N {
		_, rep, err := ParseXMLReport(strings.NewReader(doc), XMLOptions{})
		if err != nil {
			b.Fatal(err)
		}
		notes = len(rep.Notes)
	}
	b.ReportMetric(float64(notes), "notes")
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, "ms/file")
}
