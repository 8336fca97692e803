package capacity

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

// manyAppsWorld is the many-applications scenario: nodes nodes of
// <64 GB, 64> on 50 racks, 100 leaf queues (10% each) under 10 parents
// (10% each) with the fair ordering policy and the given child ordering,
// and apps applications spread round-robin over the leaves, each asking
// perApp containers of <k GB, k> with k cycling 1, 2, 4. maxPerBeat caps
// the containers of one heartbeat (-1: fill the node).
func manyAppsWorld(tb testing.TB, child ChildOrdering, nodes, apps, perApp, maxPerBeat int) (*Scheduler, []string, int) {
	cfg := DefaultConfig()
	cfg.MaxOffSwitchAssignments = 1 << 30
	cfg.MaxContainerAssignments = maxPerBeat
	var parents []QueueConfig
	for p := 0; p < 10; p++ {
		var leaves []QueueConfig
		for l := 0; l < 10; l++ {
			q := Queue(fmt.Sprintf("l%d", l), 10)
			q.Settings.AppOrdering = OrderFair
			// Room for every application and user in the biggest run.
			q.Settings.MaxApplications = 1 << 20
			q.Settings.UserLimitFactor = 100
			q.MaxCapacity = queue.Percent(100)
			leaves = append(leaves, q)
		}
		pq := Queue(fmt.Sprintf("p%d", p), 10, leaves...)
		pq.Settings.ChildOrdering = child
		pq.Settings.Priority = p % 3
		parents = append(parents, pq)
	}
	cfg.Root.Children = parents
	cfg.Root.Settings.ChildOrdering = child
	cfg.MaximumApplications = 1 << 20
	cfg.Clock = berth.NewManualClock(0)
	s, err := New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	ids := make([]string, nodes)
	specs := make([]NodeSpec, nodes)
	for i := range ids {
		ids[i] = fmt.Sprintf("n%05d", i)
		specs[i] = NodeSpec{ID: ids[i], Rack: fmt.Sprintf("/r%d", i%50), Capability: berth.New(64*1024, 64)}
	}
	if err := s.AddNodes(specs...); err != nil {
		tb.Fatal(err)
	}
	for i := 0; i < apps; i++ {
		id := fmt.Sprintf("app%06d", i)
		q := fmt.Sprintf("l%d", i/10%10)
		q = fmt.Sprintf("root.p%d.%s", i%10, q)
		if _, err := s.SubmitApp(AppSpec{ID: id, Queue: q, User: fmt.Sprintf("u%d", i%37)}); err != nil {
			tb.Fatal(err)
		}
		k := int64(1) << (i % 3)
		if _, err := s.Allocate(id, []Ask{{Priority: 1, ResourceName: AnyResource, Capability: berth.New(k*1024, k), Count: perApp}}, nil); err != nil {
			tb.Fatal(err)
		}
	}
	return s, ids, apps * perApp
}

// BenchmarkManyApps places the 100,000 containers of 10,000 applications
// (ten each, mixed sizes) in 100 fair-ordered leaves under 10 parents on
// 5,000 nodes, filling a node per heartbeat as BenchmarkSchedulingThroughput
// does, with both child orderings, and reports containers/s.
func BenchmarkManyApps(b *testing.B) {
	for _, child := range []ChildOrdering{OrderUtilization, OrderPriorityUtilization} {
		b.Run("children="+child.String(), func(b *testing.B) {
			b.ReportAllocs()
			var placed int
			var elapsed, cpu time.Duration
			for b.Loop() {
				b.StopTimer()
				s, ids, total := manyAppsWorld(b, child, 5000, 10000, 10, -1)
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
				// The tree accounting the heartbeats deferred is part of
				// their cost (deferAccount).
				s.mu.Lock()
				s.flushAccounts()
				s.mu.Unlock()
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
	for _, apps := range []int{100, 1000, 10000, 100000} {
		b.Run(fmt.Sprintf("apps=%d", apps), func(b *testing.B) {
			s, ids, _ := manyAppsWorld(b, OrderPriorityUtilization, 5000, apps, asksPerApp(apps), 1)
			last := make([][]ContainerID, len(ids))
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
