package preempt_test

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/capacity"
	"github.com/berthsched/berth/preempt"
	"github.com/stretchr/testify/require"
)

// capBenchCluster is the shape: 1,000 leaf queues in 3 levels
// (10 × 10 × 10, each 10% of its parent, so each leaf is guaranteed
// 100 GB), 10,000 nodes of 10 GB, 100,000 running 1 GB containers that
// fill the cluster. 200 leaves (20%) hold 250 GB, far over their
// guarantee; 800 hold 62 or 63 GB, of which 200 ask for 38 GB more. Every leaf has two
// applications of two users.
func capBenchCluster(b *testing.B) *capacity.Scheduler {
	cfg := capacity.DefaultConfig()
	cfg.Root.Children = nil // the default queue is replaced by the tree below
	cfg.MultipleAssignments = true
	cfg.MaxContainerAssignments = -1
	cfg.MaxOffSwitchAssignments = 1 << 20
	leaf := func(name string) capacity.QueueConfig {
		q := capacity.Queue(name, 10)
		q.Settings.UserLimitFactor = 10
		q.Settings.MinUserLimitPercent = 50
		return q
	}
	for i := 0; i < 10; i++ {
		l1 := capacity.Queue(fmt.Sprintf("p%d", i), 10)
		for j := 0; j < 10; j++ {
			l2 := capacity.Queue(fmt.Sprintf("q%d", j), 10)
			for k := 0; k < 10; k++ {
				l2.Children = append(l2.Children, leaf(fmt.Sprintf("l%d", k)))
			}
			l1.Children = append(l1.Children, l2)
		}
		cfg.Root.Children = append(cfg.Root.Children, l1)
	}
	cfg.Clock = berth.NewManualClock(0)
	s, err := capacity.New(cfg)
	require.NoError(b, err)
	nodes := make([]capacity.NodeSpec, 10000)
	for i := range nodes {
		nodes[i] = capacity.NodeSpec{ID: fmt.Sprintf("n%05d", i), Rack: fmt.Sprintf("/r%d", i/40), Capability: berth.New(10*cGB, 10)}
	}
	require.NoError(b, s.AddNodes(nodes...))
	one := berth.New(cGB, 1)
	leafN := 0
	var starving []string
	for i := 0; i < 10; i++ {
		for j := 0; j < 10; j++ {
			for k := 0; k < 10; k++ {
				path := fmt.Sprintf("root.p%d.q%d.l%d", i, j, k)
				n := 62 + leafN%2 // 62 or 63: 50,000 over the 800 leaves
				switch {
				case leafN%5 == 0:
					n = 250
				case leafN%5 == 1:
					starving = append(starving, path)
				}
				for a := 0; a < 2; a++ {
					id := fmt.Sprintf("%s-%d", path, a)
					_, err := s.SubmitApp(capacity.AppSpec{ID: id, Queue: path, User: fmt.Sprintf("u%d", a)})
					require.NoError(b, err)
					_, err = s.Allocate(id, []capacity.Ask{{Priority: 1, ResourceName: capacity.AnyResource, Capability: one, Count: n/2 + a*(n%2)}}, nil)
					require.NoError(b, err)
				}
				leafN++
			}
		}
	}
	for _, n := range nodes {
		_, err := s.Heartbeat(n.ID, nil)
		require.NoError(b, err)
	}
	for _, p := range starving {
		_, err := s.Allocate(p+"-1", []capacity.Ask{{Priority: 2, ResourceName: capacity.AnyResource, Capability: one, Count: 38}}, nil)
		require.NoError(b, err)
	}
	snap := s.Snapshot()
	require.Equal(b, 100000, len(snap.Containers), "the cluster holds 100,000 containers")
	return s
}

// frozenCapacity serves one preemption state of a scheduler, to time the
// policy alone (containers are still read from the scheduler on demand).
type frozenCapacity struct {
	*capacity.Scheduler
	st  *capacity.PreemptionState
	cfg capacity.Config
}

func freezeCapacity(s *capacity.Scheduler) *frozenCapacity {
	return &frozenCapacity{Scheduler: s, st: s.PreemptionState(), cfg: s.Config()}
}

func (f *frozenCapacity) PreemptionState() *capacity.PreemptionState { return f.st }
func (f *frozenCapacity) Config() capacity.Config                    { return f.cfg }

var capBenchSched *capacity.Scheduler

// BenchmarkProportionalRound times one round (YARN's editSchedule) on the
// issue's cluster: "policy" on a preemption state read once (the policy's
// own work, with its on-demand container reads), "full" the whole round,
// reading the scheduler's state (queues, applications with their users'
// limits, leaves' pending demand within user limits, nodes) included. Rounds act (marks are set once; the
// kill wait is never reached). cpu-ms/round is the benchmark thread's CPU
// time per round, which a loaded machine does not inflate.
func BenchmarkProportionalRound(b *testing.B) {
	if capBenchSched == nil {
		capBenchSched = capBenchCluster(b)
	}
	s := capBenchSched
	for _, intra := range []bool{false, true} {
		cfg := preempt.DefaultProportionalConfig()
		cfg.IntraQueueEnabled = intra
		cfg.MaxWaitBeforeKill = 1 << 50
		for _, mode := range []string{"policy", "full"} {
			b.Run(fmt.Sprintf("intra=%v/%s", intra, mode), func(b *testing.B) {
				var src preempt.CapacityScheduler = s
				if mode == "policy" {
					src = freezeCapacity(s)
				}
				p, err := preempt.NewProportional(preempt.ProportionalSetup{State: src, Actor: src, Config: cfg})
				require.NoError(b, err)
				var rep *preempt.ProportionalReport
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				b.ReportAllocs()
				b.ResetTimer()
				c0 := capThreadCPU()
				for i := 0; i < b.N; i++ {
					rep, err = p.Round(berth.Time(i))
					if err != nil {
						b.Fatal(err)
					}
				}
				cpu := capThreadCPU() - c0
				b.StopTimer()
				b.ReportMetric(float64(cpu)/float64(b.N)/1e6, "cpu-ms/round")
				b.ReportMetric(float64(len(rep.Decisions)), "selected")
			})
		}
	}
}
