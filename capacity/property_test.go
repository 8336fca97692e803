package capacity

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
	"github.com/stretchr/testify/require"
)

// propWorld drives a scheduler with a random stream of node, application,
// ask and heartbeat events and checks invariants after every event against
// a reference model of outstanding asks.
type propWorld struct {
	t      *testing.T
	r      *rand.Rand
	s      *Scheduler
	clock  *berth.ManualClock
	leaves []string
	nodes  []string
	apps   []string
	// model: outstanding ANY count per (app, priority), as the host asked.
	asked  map[string]map[int32]int
	shrunk bool
	moved  bool
	// disruptive streams also remove nodes and move applications, after
	// which queues may legitimately hold more than their maximum.
	disruptive bool
	nextN      int
	nextA      int
	memory     bool
	checks     int
	// mode drives allocation as YARN's global scheduler does (async.go):
	// 0 node heartbeats, 1 asynchronous rounds, 2 multi-node heartbeats,
	// 3 asynchronous multi-node rounds.
	mode int
}

func propConfig(r *rand.Rand) Config {
	cfg := DefaultConfig()
	a := Queue("a", 40, Queue("a1", 50), Queue("a2", 50))
	a.Children[1].MaxCapacity = queueP(60)
	b := Queue("b", 35)
	b.Settings.UserLimitFactor = 2
	b.Settings.MinUserLimitPercent = 50
	b.Settings.AppOrdering = OrderFair
	c := Queue("c", 25)
	c.Reservable = true
	c.MaxCapacity = queueP(50)
	cfg.Root.Children = []QueueConfig{a, b, c}
	cfg.ContinueLooking = r.IntN(2) == 0
	cfg.NodeLocalityDelay = r.IntN(4)
	if r.IntN(2) == 0 {
		cfg.RackLocalityAdditionalDelay = r.IntN(3)
	}
	cfg.MaxOffSwitchAssignments = 1 + r.IntN(3)
	cfg.MaximumAMResourcePercent = 0.5
	if r.IntN(3) == 0 {
		cfg.Calculator = berth.DominantCalculator{}
	}
	cfg.MaxAllocation = berth.New(8192, 8)
	return cfg
}

func newPropWorld(t *testing.T, seed uint64) *propWorld {
	return newPropWorldFrom(t, rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), seed%2 == 1)
}

func newPropWorldFrom(t *testing.T, r *rand.Rand, disruptive bool) *propWorld {
	cfg := propConfig(r)
	clock := berth.NewManualClock(0)
	cfg.Clock = clock
	s, err := New(cfg)
	require.NoError(t, err)
	require.NoError(t, s.AddReservationQueue("c", "res_1"))
	require.NoError(t, s.SetEntitlement("c-default", Entitlement{Capacity: 0.5, MaxCapacity: 1}))
	require.NoError(t, s.SetEntitlement("res_1", Entitlement{Capacity: 0.5, MaxCapacity: 1}))
	_, memory := cfg.Calculator.(berth.MemoryCalculator)
	return &propWorld{t: t, r: r, s: s, clock: clock, memory: memory, disruptive: disruptive,
		leaves: []string{"a1", "a2", "b", "c"}, asked: map[string]map[int32]int{}}
}

func (w *propWorld) step() {
	t, r, s := w.t, w.r, w.s
	w.clock.Advance(int64(r.IntN(1000)))
	switch op := r.IntN(20); {
	case op < 2 || len(w.nodes) == 0:
		w.nextN++
		id := fmt.Sprintf("n%d", w.nextN)
		require.NoError(t, s.AddNode(NodeSpec{ID: id, Rack: fmt.Sprintf("/r%d", r.IntN(3)),
			Capability: berth.New(int64(2+r.IntN(15))*1024, int64(2+r.IntN(15)))}))
		w.nodes = append(w.nodes, id)
	case op == 2 && w.disruptive && len(w.nodes) > 1 && r.IntN(4) == 0:
		i := r.IntN(len(w.nodes))
		_, err := s.RemoveNode(w.nodes[i])
		require.NoError(t, err)
		w.nodes = append(w.nodes[:i], w.nodes[i+1:]...)
		w.shrunk = true
	case op < 5:
		w.nextA++
		id := fmt.Sprintf("app%d", w.nextA)
		spec := AppSpec{ID: id, Queue: w.leaves[r.IntN(len(w.leaves))], User: fmt.Sprintf("u%d", r.IntN(3)), Priority: int32(r.IntN(3))}
		if r.IntN(2) == 0 {
			spec.AMResource = berth.New(int64(1+r.IntN(2))*1024, 1)
		}
		if spec.Queue == "c" && r.IntN(2) == 0 {
			spec.ReservationID = "res_1"
		}
		if _, err := s.SubmitApp(spec); err == nil {
			w.apps = append(w.apps, id)
			w.asked[id] = map[int32]int{}
			if !spec.AMResource.IsZero() {
				w.asked[id][0] = 1
			}
		}
	case op < 9 && len(w.apps) > 0:
		id := w.apps[r.IntN(len(w.apps))]
		prio := int32(1 + r.IntN(3))
		capR := berth.New(int64(256*(1+r.IntN(16))), int64(1+r.IntN(4)))
		n := r.IntN(6)
		asks := []Ask{{Priority: prio, ResourceName: AnyResource, Capability: capR, Count: n, StrictLocality: r.IntN(8) == 0}}
		if len(w.nodes) > 0 && r.IntN(2) == 0 {
			nd := w.nodes[r.IntN(len(w.nodes))]
			asks = append(asks, Ask{Priority: prio, ResourceName: nd, Capability: capR, Count: n},
				Ask{Priority: prio, ResourceName: fmt.Sprintf("/r%d", r.IntN(3)), Capability: capR, Count: n, StrictLocality: r.IntN(6) == 0})
		}
		var release []ContainerID
		for _, c := range w.s.Snapshot().Containers {
			if c.App == id && r.IntN(4) == 0 {
				release = append(release, c.ID)
			}
		}
		_, err := s.Allocate(id, asks, release)
		require.NoError(t, err)
		w.asked[id][prio] = n
	case op < 17:
		nd := w.nodes[r.IntN(len(w.nodes))]
		var done []ContainerID
		for _, c := range w.s.Snapshot().Containers {
			if c.Node == nd && r.IntN(5) == 0 {
				done = append(done, c.ID)
			}
		}
		al, err := s.Heartbeat(nd, done)
		require.NoError(t, err)
		if w.mode&1 == 1 {
			require.Empty(t, al, "an asynchronous scheduler's heartbeat allocates nothing")
			if r.IntN(2) == 0 {
				al, err = s.ScheduleRound()
			} else {
				al, err = s.ScheduleRoundOn([]string{nd, w.nodes[r.IntN(len(w.nodes))]})
			}
			require.NoError(t, err)
		}
		for _, a := range al {
			if w.mode == 0 {
				require.Equal(t, nd, a.Node)
			}
			m := w.asked[a.App]
			require.Greater(t, m[a.Priority], 0, "allocated %v beyond the asks", a.Container)
			m[a.Priority]--
			require.False(t, a.Headroom.AnyNegative())
		}
	case op < 18 && len(w.apps) > 0:
		i := r.IntN(len(w.apps))
		_, err := s.FinishApp(w.apps[i])
		require.NoError(t, err)
		w.apps = append(w.apps[:i], w.apps[i+1:]...)
	case op < 19 && len(w.apps) > 0 && w.disruptive:
		id := w.apps[r.IntN(len(w.apps))]
		if _, err := s.MoveApp(id, w.leaves[r.IntN(len(w.leaves))]); err == nil {
			// YARN moves an application with its usage, whatever the
			// target's maximum: the maximum check no longer applies.
			w.moved = true
		}
	case len(w.apps) > 0:
		snap := s.Snapshot()
		if len(snap.Containers) > 0 {
			c := snap.Containers[r.IntN(len(snap.Containers))]
			require.NoError(t, s.MarkForPreemption(c.ID))
			_, err := s.PreemptContainer(c.ID)
			require.NoError(t, err)
		}
	}
	w.check()
}

func (w *propWorld) check() {
	t := w.t
	require.NoError(t, w.s.Check())
	w.checks++
	if w.checks%8 == 0 { // a snapshot per step would double the test's time
		w.checkAppsInQueue()
	}
	if w.shrunk || w.moved || !w.memory {
		return
	}
	snap := w.s.Snapshot()
	for _, q := range snap.Queues.Queues {
		require.LessOrEqual(t, q.Extra.Used.Memory, q.Extra.Maximum.Memory, "queue %s over its maximum capacity", q.Path)
	}
}

// checkAppsInQueue compares AppsInQueue with a snapshot: the applications
// whose queue is the named one or lies below it, by submission order.
func (w *propWorld) checkAppsInQueue() {
	t := w.t
	snap := w.s.Snapshot()
	for _, q := range [][2]string{{"root", "root"}, {"a", "root.a"}, {"a1", "root.a.a1"}, {"root.a.a2", "root.a.a2"},
		{"b", "root.b"}, {"c", "root.c"}, {"c-default", "root.c.c-default"}, {"res_1", "root.c.res_1"}} {
		name, path := q[0], q[1]
		got, err := w.s.AppsInQueue(name)
		require.NoError(t, err)
		var want []string
		for _, a := range snap.Apps {
			if a.Queue == path || strings.HasPrefix(a.Queue, path+".") {
				want = append(want, a.ID)
			}
		}
		require.Equal(t, want, nonNil(got), "apps in %s", name)
	}
}

func TestPropertyRandomStreams(t *testing.T) {
	streams, steps := 40, 300
	if n := os.Getenv("CAPACITY_PROP_STREAMS"); n != "" {
		streams, _ = strconv.Atoi(n)
	}
	if testing.Short() || raceEnabled {
		streams = 10
	}
	for seed := uint64(1); seed <= uint64(streams); seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			w := newPropWorld(t, seed)
			for i := 0; i < steps; i++ {
				w.step()
			}
		})
	}
}

// TestConcurrentCallers runs heartbeats, asks, submissions and snapshots
// from parallel goroutines (run it with -race).
func TestConcurrentCallers(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Root.Children = []QueueConfig{Queue("a", 50), Queue("b", 50)}
	cfg.Clock = berth.NewManualClock(0)
	s, err := New(cfg)
	require.NoError(t, err)
	for i := 0; i < 8; i++ {
		require.NoError(t, s.AddNode(NodeSpec{ID: fmt.Sprintf("n%d", i), Rack: "/r", Capability: berth.New(8192, 8)}))
	}
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				id := fmt.Sprintf("g%d-%d", g, i)
				if _, err := s.SubmitApp(AppSpec{ID: id, Queue: []string{"a", "b"}[i%2], User: fmt.Sprint("u", g)}); err != nil {
					t.Error(err)
					return
				}
				if _, err := s.Allocate(id, []Ask{{Priority: 1, ResourceName: AnyResource, Capability: berth.New(512, 1), Count: 2}}, nil); err != nil {
					t.Error(err)
					return
				}
				if _, err := s.Heartbeat(fmt.Sprintf("n%d", (g+i)%8), nil); err != nil {
					t.Error(err)
					return
				}
				_ = s.Snapshot()
				if i%3 == 0 {
					if _, err := s.FinishApp(id); err != nil {
						t.Error(err)
						return
					}
				}
			}
		}(g)
	}
	wg.Wait()
	require.NoError(t, s.Check())
}

func queueP(p float32) queue.Capacity { return queue.Percent(p) }

// byteSource feeds math/rand from fuzz input, so that the fuzzer steers
// the event stream: each value mixes the next input bytes into a
// splitmix64 stream (a constant source would make rand's rejection
// sampling loop for ever).
type byteSource struct {
	b []byte
	i int
	x uint64
}

func (s *byteSource) Uint64() uint64 {
	s.x += 0x9E3779B97F4A7C15
	for k := 0; k < 8 && s.i < len(s.b); k++ {
		s.x ^= uint64(s.b[s.i]) << (8 * k)
		s.i++
	}
	z := s.x
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// FuzzScheduler runs an event stream chosen by the fuzzer and checks the
// invariants after every event: no panic, every container counted once in
// node, application, user and queue, no node over its capability, no
// allocation beyond the asks, queues within their maximum.
func FuzzScheduler(f *testing.F) {
	f.Add([]byte{0}, false)
	f.Add([]byte("a fairly long seed that picks many different operations in turn"), true)
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 200, 100, 50, 25, 12, 6, 3, 1}, false)
	f.Fuzz(func(t *testing.T, data []byte, disruptive bool) {
		if len(data) > 4096 {
			return
		}
		w := newPropWorldFrom(t, rand.New(&byteSource{b: data}), disruptive)
		for i := 0; i < 40+len(data)/4; i++ {
			w.step()
		}
	})
}

// nonNil maps an empty list to nil, as the reference model builds it.
func nonNil(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}
