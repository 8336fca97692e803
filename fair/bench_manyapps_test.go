package fair

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/berthsched/berth"
)

// manyAppsWorld is the many-applications scenario: nodes nodes of
// <64 GB, 64> on 50 racks, 100 leaf queues under 10 parents (policy pol
// everywhere), and apps applications spread round-robin over the leaves,
// each asking perApp containers of <k GB, k> with k cycling 1, 2, 4. The
// demands are computed (one update) before it returns.
func manyAppsWorld(tb testing.TB, pol string, nodes, apps, perApp int) (*Scheduler, []string, int) {
	af, err := ParseAllocationFile([]byte(allocXML(manyAppsQueues(pol))), ParseOptions{})
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
	ids := make([]string, nodes)
	for i := range ids {
		ids[i] = fmt.Sprintf("n%05d", i)
		if err := s.AddNode(NodeSpec{ID: ids[i], Rack: fmt.Sprintf("/r%d", i%50), Capability: berth.New(64*1024, 64)}); err != nil {
			tb.Fatal(err)
		}
	}
	for i := 0; i < apps; i++ {
		id := fmt.Sprintf("app%06d", i)
		q := fmt.Sprintf("root.p%d.l%d", i%10, i/10%10)
		if _, err := s.SubmitApp(AppSpec{ID: id, Queue: q, User: fmt.Sprintf("u%d", i%37)}); err != nil {
			tb.Fatal(err)
		}
		k := int64(1) << (i % 3)
		if _, err := s.Allocate(id, []Ask{{Priority: 1, ResourceName: AnyResource, Capability: berth.New(k*1024, k), Count: perApp}}, nil); err != nil {
			tb.Fatal(err)
		}
	}
	s.Update()
	return s, ids, apps * perApp
}

// manyAppsQueues is the allocation file body of manyAppsWorld: 10 parents
// of 10 leaves each, policy pol everywhere.
func manyAppsQueues(pol string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<defaultQueueSchedulingPolicy>%s</defaultQueueSchedulingPolicy>", pol)
	for p := 0; p < 10; p++ {
		fmt.Fprintf(&b, `<queue name="p%d">`, p)
		for l := 0; l < 10; l++ {
			fmt.Fprintf(&b, `<queue name="l%d"/>`, l)
		}
		b.WriteString(`</queue>`)
	}
	return b.String()
}

// BenchmarkManyApps places the 100,000 containers of 10,000 applications
// (ten each, mixed sizes) in 100 leaves under 10 parents on 5,000 nodes,
// one container per heartbeat as in BenchmarkSchedulingThroughput, with the
// fair and the DRF policy, and reports containers/s.
func BenchmarkManyApps(b *testing.B) {
	for _, pol := range []string{"fair", "drf"} {
		b.Run("policy="+pol, func(b *testing.B) {
			b.ReportAllocs()
			var placed int
			var elapsed, cpu time.Duration
			for b.Loop() {
				b.StopTimer()
				s, ids, total := manyAppsWorld(b, pol, 5000, 10000, 10)
				b.StartTimer()
				start, cpu0 := time.Now(), cpuTime()
				n := 0
				for n < total {
					before := n
					for _, id := range ids {
						als, err := s.Heartbeat(id, nil)
						if err != nil {
							b.Fatal(err)
						}
						n += len(als)
					}
					if n == before {
						b.Fatalf("stuck at %d of %d containers", n, total)
					}
				}
				// The shared tree's books are charged when read: count
				// their cost (accountApp).
				s.flushAccounts()
				elapsed += time.Since(start)
				cpu += cpuTime() - cpu0
				placed += n
			}
			b.ReportMetric(float64(placed)/elapsed.Seconds(), "containers/s")
			// The machine may be shared: CPU time is the steadier figure.
			b.ReportMetric(float64(placed)/cpu.Seconds(), "containers/cpu-s")
		})
	}
}

// BenchmarkHeartbeatByApps is the cost of one heartbeat (one container
// released, one allocated) as the number of active applications grows, in
// the tree of BenchmarkManyApps on 5,000 nodes; every application keeps
// pending asks throughout, and the tree's books are read (so charged)
// once per round of heartbeats. It should stay flat or grow
// logarithmically.
func BenchmarkHeartbeatByApps(b *testing.B) {
	for _, pol := range []string{"fair", "drf"} {
		for _, apps := range []int{100, 1000, 10000, 100000} {
			b.Run(fmt.Sprintf("policy=%s/apps=%d", pol, apps), func(b *testing.B) {
				s, ids, _ := manyAppsWorld(b, pol, 5000, apps, asksPerApp(apps))
				last := make([][]ContainerID, len(ids))
				// The first walk after an update re-keys every application
				// (once per update interval): keep it out of the figure.
				if _, err := s.Heartbeat(ids[len(ids)-1], nil); err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				cpu0 := cpuTime()
				i := 0
				for b.Loop() {
					j := i % len(ids)
					als, err := s.Heartbeat(ids[j], last[j])
					if err != nil {
						b.Fatal(err)
					}
					if len(als) == 0 {
						b.Fatalf("heartbeat %d placed nothing: the pending asks ran out", i)
					}
					last[j] = last[j][:0]
					for _, al := range als {
						last[j] = append(last[j], al.Container.ID)
					}
					i++
					if i%len(ids) == 0 {
						s.flushAccounts() // a host reading the tree's books once a round, as for metrics each second
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/heartbeat")
				b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/heartbeat")
			})
		}
	}
}

// asksPerApp is how many containers each of apps applications asks for in
// BenchmarkHeartbeatByApps: 10 million in all (at least 1,000 each), so the
// asks outlast any benchtime; with fewer, the walk past applications with
// nothing left to place, not the heartbeat, would be measured.
func asksPerApp(apps int) int { return max(1000, 10_000_000/apps) }

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
