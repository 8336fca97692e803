package preempt

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/fair"
	"github.com/stretchr/testify/require"
)

// fairBenchWorld is the preemption benchmark's shape: 1,000 leaf queues in 3 levels
// (10 × 10 × 10), 10,000 nodes of 10 GB / 10 vcores, 100,000 running
// 1 GB containers from 800 busy queues (an AM and 124 tasks each, 25 over
// the 100-container fair share), and 200 queues (20 %) whose application
// asks 100 containers and holds none: each is starved for 50 (threshold
// 0.5), 10,000 containers in all.
func fairBenchWorld(tb testing.TB) (*fair.Scheduler, *berth.ManualClock, []string) {
	var body string
	for i := range 10 {
		body += fmt.Sprintf(`<queue name="p%d">`, i)
		for j := range 10 {
			body += fmt.Sprintf(`<queue name="q%d">`, j)
			for k := range 10 {
				body += fmt.Sprintf(`<queue name="l%d"/>`, k)
			}
			body += `</queue>`
		}
		body += `</queue>`
	}
	af, err := fair.ParseAllocationFile([]byte(fairAlloc(`<defaultFairSharePreemptionTimeout>1</defaultFairSharePreemptionTimeout>`+body)), fair.ParseOptions{})
	require.NoError(tb, err)
	cfg := fair.DefaultConfig()
	cfg.AssignMultiple, cfg.DynamicMaxAssign, cfg.MaxAssign = true, false, 10
	pc := DefaultFairConfig()
	pc.Enabled = true
	pc.ApplyTo(&cfg)
	clock := berth.NewManualClock(0)
	cfg.Allocation = af
	cfg.Clock = clock
	s, err := fair.New(cfg)
	require.NoError(tb, err)
	nodes := make([]string, 10000)
	for i := range nodes {
		nodes[i] = fmt.Sprintf("n%05d", i)
		require.NoError(tb, s.AddNode(fair.NodeSpec{ID: nodes[i], Rack: fmt.Sprintf("/r%02d", i%40), Capability: berth.New(10240, 10)}))
	}
	one := berth.New(1024, 1)
	var starved []string
	for q := range 1000 {
		path := fmt.Sprintf("root.p%d.q%d.l%d", q/100, q/10%10, q%10)
		id := fmt.Sprintf("app%04d", q)
		if q%5 == 4 {
			starved = append(starved, path)
			continue
		}
		_, err := s.SubmitApp(fair.AppSpec{ID: id, Queue: path, User: "u", AMResource: one})
		require.NoError(tb, err)
		_, err = s.Allocate(id, []fair.Ask{{Priority: 1, ResourceName: fair.AnyResource, Capability: one, Count: 124}}, nil)
		require.NoError(tb, err)
	}
	for placed := 0; placed < 100000; {
		n := 0
		for _, id := range nodes {
			als, err := s.Heartbeat(id, nil)
			require.NoError(tb, err)
			n += len(als)
		}
		require.NotZero(tb, n, "stuck at %d", placed)
		placed += n
	}
	clock.Advance(1000)
	var ids []string
	for i, path := range starved {
		id := fmt.Sprintf("starved%03d", i)
		_, err := s.SubmitApp(fair.AppSpec{ID: id, Queue: path, User: "u"})
		require.NoError(tb, err)
		_, err = s.Allocate(id, []fair.Ask{{Priority: 1, ResourceName: fair.AnyResource, Capability: one, Count: 100}}, nil)
		require.NoError(tb, err)
		ids = append(ids, id)
	}
	s.Update()
	clock.Advance(2000)
	s.Update()
	return s, clock, ids
}

// checkFairBenchWorld verifies the shape before timing: 100,000
// containers on 10,000 nodes, 200 applications starved for 50 GB each,
// and a round marks the 10,000 containers that covers.
func checkFairBenchWorld(tb testing.TB, s *fair.Scheduler, now berth.Time, ids []string) {
	sn := s.Snapshot()
	require.Len(tb, sn.Containers, 100000)
	require.Len(tb, sn.Nodes, 10000)
	for _, id := range ids {
		require.Equal(tb, int64(50*1024), sn.App(id).FairShareStarvation.Memory, id)
	}
	p, err := NewFairPreemptor(FairPreemptorSetup{State: s, Actor: s, Config: FairConfig{Enabled: true, UtilizationThreshold: 0.8, WaitTimeBeforeKill: 15000}})
	require.NoError(tb, err)
	r, err := p.Round(now)
	require.NoError(tb, err)
	require.Len(tb, r.Starved, 200)
	require.Equal(tb, 10000, r.Count(FairMarked), "every starved application gets its 50 containers")
}

// BenchmarkFairRound times one fair preemption round on fairBenchWorld,
// the scheduler's reads included, as a host loop sees it: the same
// preemptor round after round (its reused buffers warm). Each iteration
// starts from the same state: marks and back-offs are undone outside the
// timer.
func BenchmarkFairRound(b *testing.B) { benchFairRound(b, true) }

// BenchmarkFairRoundCold is BenchmarkFairRound with a new preemptor for
// every round (its first round: nothing to reuse).
func BenchmarkFairRoundCold(b *testing.B) { benchFairRound(b, false) }

func benchFairRound(b *testing.B, warm bool) {
	s, clock, ids := fairBenchWorld(b)
	checkFairBenchWorld(b, s, clock.Now(), ids)
	b.ReportAllocs()
	marked, rounds := 0, 0
	var cpu, tcpu time.Duration
	var p *FairPreemptor
	runtime.LockOSThread() // thread CPU time is this goroutine's
	defer runtime.UnlockOSThread()
	for b.Loop() {
		b.StopTimer()
		if p != nil {
			for _, c := range p.Pending() {
				require.NoError(b, s.UnmarkForPreemption(c.ID))
			}
		}
		for _, id := range ids {
			require.NoError(b, s.PreemptionTriggered(id, 0))
		}
		if p == nil || !warm {
			var err error
			p, err = NewFairPreemptor(FairPreemptorSetup{State: s, Actor: s, Config: FairConfig{Enabled: true, UtilizationThreshold: 0.8, WaitTimeBeforeKill: 15000}})
			require.NoError(b, err)
		} else { // forget the last round's marks and back-offs, keep the buffers
			clear(p.pending)
			p.marks, p.indexed = p.marks[:0], 0
			clear(p.backoff)
		}
		runtime.GC() // the set-up's garbage is not the round's
		b.StartTimer()
		c0, t0 := processCPU(), threadCPU()
		r, err := p.Round(clock.Now())
		if err != nil {
			b.Fatal(err)
		}
		cpu += processCPU() - c0
		tcpu += threadCPU() - t0
		rounds++
		marked = r.Count(FairMarked)
	}
	b.ReportMetric(float64(marked), "marked/round")
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(rounds), "cpu-ms/round")
	b.ReportMetric(float64(tcpu.Microseconds())/1000/float64(rounds), "thread-cpu-ms/round")
}

// BenchmarkFairSnapshot is the scheduler's share of a round: the deep copy
// the preemptor reads.
func BenchmarkFairSnapshot(b *testing.B) {
	s, _, _ := fairBenchWorld(b)
	b.ReportAllocs()
	for b.Loop() {
		_ = s.Snapshot()
	}
}

// BenchmarkFairRoundSnapshotOf is the scheduler's share of a round: the
// partial snapshot (queues, applications, nodes, reservations) it reads.
func BenchmarkFairRoundSnapshotOf(b *testing.B) {
	s, _, _ := fairBenchWorld(b)
	b.ReportAllocs()
	for b.Loop() {
		_ = s.SnapshotOf(fair.SnapshotApps | fair.SnapshotQueues | fair.SnapshotNodes | fair.SnapshotReservations)
	}
}
