package capacity

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/follower"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/queue"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// lineObserver records every event as one line, for exact sequences:
// queue.EventLog's lines and the plan's reservations.
type lineObserver struct{ queue.EventLog }

func (o *lineObserver) ObserveReservation(e plan.ReservationEvent) {
	o.Lines = append(o.Lines, fmt.Sprintf("reservation %s %s", e.Kind, e.ID))
}

func TestObserverSequences(t *testing.T) {
	one := func(n int) []Ask {
		return []Ask{{Priority: 1, ResourceName: AnyResource, Capability: berth.New(gb, 1), Count: n}}
	}
	cases := []struct {
		name string
		run  func(t *testing.T, s *Scheduler)
		want []string
	}{
		{"allocation, release, completion, finish", func(t *testing.T, s *Scheduler) {
			_, err := s.SubmitApp(AppSpec{ID: "app1", Queue: "a", User: "u"})
			require.NoError(t, err)
			_, err = s.Allocate("app1", one(3), nil)
			require.NoError(t, err)
			al, err := s.Heartbeat("n1", nil)
			require.NoError(t, err)
			require.Len(t, al, 3)
			_, err = s.Allocate("app1", nil, []ContainerID{al[0].ID})
			require.NoError(t, err)
			_, err = s.Heartbeat("n1", []ContainerID{al[1].ID})
			require.NoError(t, err)
			_, err = s.FinishApp("app1")
			require.NoError(t, err)
		}, []string{
			"app added app1 root.a", "app activated app1 root.a",
			"container allocated 1 app1 root.a", "container allocated 2 app1 root.a", "container allocated 3 app1 root.a",
			"container ended 1 app1 root.a RELEASED", "container ended 2 app1 root.a COMPLETED",
			"container ended 3 app1 root.a KILLED", "app finished app1 root.a",
		}},
		{"preemption, kill, lost node, killed app", func(t *testing.T, s *Scheduler) {
			_, err := s.SubmitApp(AppSpec{ID: "app1", Queue: "a", User: "u"})
			require.NoError(t, err)
			_, err = s.Allocate("app1", one(3), nil)
			require.NoError(t, err)
			_, err = s.Heartbeat("n1", nil)
			require.NoError(t, err)
			require.NoError(t, s.MarkForPreemption(1)) // a mark is the policy's event, not the scheduler's
			_, err = s.PreemptContainer(1)
			require.NoError(t, err)
			_, err = s.KillContainer(2)
			require.NoError(t, err)
			_, err = s.RemoveNode("n1")
			require.NoError(t, err)
			_, err = s.KillApp("app1")
			require.NoError(t, err)
		}, []string{
			"app added app1 root.a", "app activated app1 root.a",
			"container allocated 1 app1 root.a", "container allocated 2 app1 root.a", "container allocated 3 app1 root.a",
			"container ended 1 app1 root.a PREEMPTED", "container ended 2 app1 root.a KILLED",
			"container ended 3 app1 root.a LOST", "app killed app1 root.a",
		}},
		{"AM limit: the second application waits for the first", func(t *testing.T, s *Scheduler) {
			for _, id := range []string{"app1", "app2"} {
				_, err := s.SubmitApp(AppSpec{ID: id, Queue: "a", User: "u", AMResource: berth.New(2*gb, 1)})
				require.NoError(t, err)
			}
			_, err := s.Heartbeat("n1", nil)
			require.NoError(t, err)
			_, err = s.FinishApp("app1")
			require.NoError(t, err)
		}, []string{
			"app added app1 root.a", "app activated app1 root.a", "app added app2 root.a",
			"container allocated 1 app1 root.a",
			"container ended 1 app1 root.a KILLED", "app finished app1 root.a", "app activated app2 root.a",
		}},
		{"move", func(t *testing.T, s *Scheduler) {
			_, err := s.SubmitApp(AppSpec{ID: "app1", Queue: "a", User: "u"})
			require.NoError(t, err)
			_, err = s.Allocate("app1", one(1), nil)
			require.NoError(t, err)
			_, err = s.Heartbeat("n1", nil)
			require.NoError(t, err)
			_, err = s.MoveApp("app1", "b")
			require.NoError(t, err)
			_, err = s.FinishApp("app1")
			require.NoError(t, err)
		}, []string{
			"app added app1 root.a", "app activated app1 root.a", "container allocated 1 app1 root.a",
			"app moved app1 root.b from root.a", "app activated app1 root.b",
			"container ended 1 app1 root.b KILLED", "app finished app1 root.b",
		}},
		{"reconfiguration", func(t *testing.T, s *Scheduler) {
			cfg := s.Config()
			cfg.Root.Children[0].Capacity = queue.Percent(40)
			cfg.Root.Children = append(cfg.Root.Children, Queue("d", 10))
			_, err := s.Reconfigure(cfg)
			require.NoError(t, err)
		}, []string{"queue added root.d", "queue reconfigured root.a"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.MaximumAMResourcePercent = 0.2 // 3.2 GB of 16: one 2 GB AM
			cfg.MaxOffSwitchAssignments = 10   // a heartbeat fills the node
			cfg.Root.Children = []QueueConfig{Queue("a", 50), Queue("b", 50)}
			cfg.Clock = berth.NewManualClock(0)
			s, err := New(cfg)
			require.NoError(t, err)
			require.NoError(t, s.AddNode(mkNode("n1", 16*gb, 16)))
			o := &lineObserver{}
			s.SetObserver(o)
			c.run(t, s)
			assert.Equal(t, c.want, o.Lines)
		})
	}
}

// TestObserverPlanFollower: the plan follower's reservation queues are
// added, entitled and removed as the plan's reservations come and go; the
// plan reports their acceptance and expiry.
func TestObserverPlanFollower(t *testing.T) {
	cfg := DefaultConfig()
	dedicated := Queue("dedicated", 80)
	dedicated.Reservable = true
	cfg.Root.Children = []QueueConfig{Queue("default", 20), dedicated}
	clock := berth.NewManualClock(0)
	cfg.Clock = clock
	s, err := New(cfg)
	require.NoError(t, err)
	require.NoError(t, s.AddNode(mkNode("n1", 100*gb, 100)))
	o := &lineObserver{}
	s.SetObserver(o)
	pcfg := plan.DefaultConfig("dedicated", berth.New(80*gb, 80), clock)
	pcfg.Policy = nil // admit anything: the test is about the queues
	p, err := plan.New(pcfg)
	require.NoError(t, err)
	p.SetObserver(o)
	id := plan.ReservationID{ClusterTimestamp: 1, Sequence: 1}
	def := plan.Definition{Arrival: 1000, Deadline: 3000, Interpreter: plan.RAll,
		Stages: []plan.Stage{{Capability: berth.New(gb, 1), Containers: 20, Concurrency: 1, Duration: 2000}}}
	iv := berth.Interval{Start: 1000, End: 3000}
	a, err := plan.NewAllocation(id, "alice", def, iv, []plan.IntervalResource{{Interval: iv, Resource: berth.New(20*gb, 20)}})
	require.NoError(t, err)
	require.NoError(t, p.AddReservation(a))
	f, err := follower.New(follower.Config{Scheduler: s, Flavor: follower.CapacityFlavor, Plans: follower.Plans{p}})
	require.NoError(t, err)
	for _, now := range []berth.Time{0, 1000, 3000, 90_000_000} {
		clock.Set(now)
		_, err := f.Run(now)
		require.NoError(t, err)
	}
	q := "root.dedicated." + id.String()
	// Every run first zeroes the default queue, so that the reservation
	// queues' capacities fit under the plan whatever their order, then
	// gives it what they leave (YARN's follower does the same): the
	// observer sees each step.
	zero, full := "queue entitlement-changed root.dedicated.dedicated-default 0/1 was 1/1",
		"queue entitlement-changed root.dedicated.dedicated-default 1/1 was 0/1"
	want := []string{
		"reservation accepted " + id.String(),
		// t=0: no reservation is active.
		zero, full,
		// t=1000: its queue is added, entitled 20 of 80 = 0.25; the
		// default queue keeps the rest.
		zero,
		"queue added " + q,
		"queue entitlement-changed " + q + " 0.25/1 was 0/1",
		"queue entitlement-changed root.dedicated.dedicated-default 0.75/1 was 0/1",
		// t=3000: it ended: its queue goes, the default queue has it all.
		"queue entitlement-changed " + q + " 0/0 was 0.25/1",
		"queue removed " + q,
		"queue entitlement-changed root.dedicated.dedicated-default 0/1 was 0.75/1",
		full,
		// a day later it is archived.
		"reservation expired " + id.String(),
		zero, full,
	}
	assert.Equal(t, want, o.Lines)
}

// eventModel is the state the events describe (queue.EventState): it
// checks that each event carries the clock's time and fails the test on
// the first event that contradicts what came before.
type eventModel struct {
	*queue.EventState
	t     *testing.T
	clock berth.Clock
}

func newEventModel(t *testing.T, clock berth.Clock, queues []string) *eventModel {
	return &eventModel{EventState: queue.NewEventState(queues), t: t, clock: clock}
}

func (m *eventModel) ObserveContainer(e queue.ContainerEvent) {
	require.Equal(m.t, m.clock.Now(), e.Time)
	m.EventState.ObserveContainer(e)
	require.NoError(m.t, m.Err())
}

func (m *eventModel) ObserveApp(e queue.AppEvent) {
	require.Equal(m.t, m.clock.Now(), e.Time)
	m.EventState.ObserveApp(e)
	require.NoError(m.t, m.Err())
}

func (m *eventModel) ObserveQueue(e queue.QueueEvent) {
	require.Equal(m.t, m.clock.Now(), e.Time)
	m.EventState.ObserveQueue(e)
	require.NoError(m.t, m.Err())
}

// check compares the model with a snapshot.
func (m *eventModel) check(s *Scheduler) {
	t := m.t
	snap := s.Snapshot()
	live := map[string]int{}
	for _, c := range snap.Containers {
		live[c.App]++
		mc, ok := m.Container(c.ID)
		require.True(t, ok, "container %d never allocated", c.ID)
		require.Equal(t, c.Container, mc, "container %d", c.ID)
	}
	for _, a := range snap.Apps {
		am, ok := m.App(a.ID)
		require.True(t, ok, "application %s never added", a.ID)
		require.Equal(t, live[a.ID], am.Containers, "allocated − ended of %s", a.ID)
		require.Equal(t, a.Queue, am.Queue)
		require.Equal(t, a.Active, am.Active, "activation of %s", a.ID)
	}
	require.Equal(t, len(snap.Apps), m.NumApps())
	require.Equal(t, len(snap.Containers), m.NumContainers())
	var paths []string
	for _, q := range snap.Queues.Queues {
		paths = append(paths, q.Path.String())
	}
	slices.Sort(paths)
	require.Equal(t, paths, m.Queues())
	for _, p := range s.PlanQueues() {
		infos, err := s.ReservationQueues(p)
		require.NoError(t, err)
		for _, in := range infos {
			if e, ok := m.Entitlement(in.Path); ok {
				require.Equal(t, in.Entitlement, e, "entitlement of %s", in.Path)
			}
		}
	}
}

// TestObserverProperty: on random streams (nodes joining and leaving,
// submissions, asks, releases, heartbeats, completions, moves,
// preemptions, finishes) the events replayed into a model agree with the
// scheduler's state after every step: per application, allocated − ended
// equals its live containers.
func TestObserverProperty(t *testing.T) {
	streams := 16
	if testing.Short() || raceEnabled {
		streams = 4
	}
	for seed := uint64(1); seed <= uint64(streams); seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			w := newPropWorld(t, seed)
			var paths []string
			for _, q := range w.s.Snapshot().Queues.Queues {
				paths = append(paths, q.Path.String())
			}
			m := newEventModel(t, w.clock, paths)
			w.s.SetObserver(m)
			for i := 0; i < 300; i++ {
				w.step()
				if i%3 == 0 {
					switch w.r.IntN(3) { // the plan follower's edits
					case 0:
						_ = w.s.SetEntitlement("res_1", Entitlement{Capacity: float32(w.r.IntN(3)) / 4, MaxCapacity: 1})
					case 1:
						if w.s.RemoveReservationQueue("res_1") == nil {
							require.NoError(t, w.s.AddReservationQueue("c", "res_1"))
						}
					}
				}
				m.check(w.s)
			}
			require.Positive(t, m.Events())
		})
	}
}

type nopCounter struct {
	queue.NopObserver
	n int
}

func (c *nopCounter) ObserveContainer(queue.ContainerEvent) { c.n++ }

// TestObserverAllocs: an observer that embeds NopObserver costs no
// allocation per event: a heartbeat that allocates and a round of
// completions allocate the same with and without it.
func TestObserverAllocs(t *testing.T) {
	measure := func(o Observer) (float64, int) {
		s := throughputWorldT(t, 50)
		if o != nil {
			s.SetObserver(o)
		}
		ids := sortedKeys(s.nodes)
		i := 0
		var done []ContainerID
		return testing.AllocsPerRun(40, func() {
			al, err := s.Heartbeat(ids[i%len(ids)], done)
			if err != nil {
				t.Fatal(err)
			}
			done = done[:0]
			for _, a := range al {
				done = append(done, a.ID)
			}
			i++
		}), i
	}
	without, _ := measure(nil)
	c := &nopCounter{}
	with, _ := measure(c)
	assert.Positive(t, c.n, "the observer saw events")
	assert.Equal(t, without, with, "allocations per heartbeat with a no-op observer")
}

// throughputWorldT is throughputWorld for a test.
func throughputWorldT(t *testing.T, nodes int) *Scheduler {
	cfg := DefaultConfig()
	cfg.Root.Children = []QueueConfig{Queue("a", 50), Queue("b", 50)}
	cfg.MaxOffSwitchAssignments = 1000
	cfg.MaxContainerAssignments = -1
	cfg.Clock = berth.NewManualClock(0)
	s, err := New(cfg)
	require.NoError(t, err)
	for i := 0; i < nodes; i++ {
		require.NoError(t, s.AddNode(NodeSpec{ID: fmt.Sprintf("node-%03d", i), Rack: "/r", Capability: berth.New(8*gb, 8)}))
	}
	for i, q := range []string{"a", "b"} {
		id := fmt.Sprintf("app-%d", i)
		_, err := s.SubmitApp(AppSpec{ID: id, Queue: q, User: "u-" + q})
		require.NoError(t, err)
		_, err = s.Allocate(id, []Ask{{Priority: 1, ResourceName: AnyResource, Capability: berth.New(gb, 1), Count: 100000}}, nil)
		require.NoError(t, err)
	}
	return s
}

// FuzzObserver: on event streams the fuzzer steers, the events agree with
// the scheduler's state after every step.
func FuzzObserver(f *testing.F) {
	f.Add([]byte{0}, false)
	f.Add([]byte("a stream that moves, preempts and removes nodes"), true)
	f.Fuzz(func(t *testing.T, data []byte, disruptive bool) {
		if len(data) > 4096 {
			return
		}
		w := newPropWorldFrom(t, rand.New(&byteSource{b: data}), disruptive)
		var paths []string
		for _, q := range w.s.Snapshot().Queues.Queues {
			paths = append(paths, q.Path.String())
		}
		m := newEventModel(t, w.clock, paths)
		w.s.SetObserver(m)
		for i := 0; i < 40+len(data)/4; i++ {
			w.step()
			m.check(w.s)
		}
	})
}

// plainCounter has no lock of its own: the scheduler's lock serializes
// its calls, which -race checks with parallel callers.
type plainCounter struct {
	queue.NopObserver
	allocated, ended int
}

func (c *plainCounter) ObserveContainer(e queue.ContainerEvent) {
	if e.Kind == queue.ContainerAllocated {
		c.allocated++
	} else {
		c.ended++
	}
}

// TestObserverConcurrentCallers: parallel callers, one observer without a
// lock; its counts match the scheduler's live containers.
func TestObserverConcurrentCallers(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Root.Children = []QueueConfig{Queue("a", 50), Queue("b", 50)}
	cfg.Clock = berth.NewManualClock(0)
	s, err := New(cfg)
	require.NoError(t, err)
	c := &plainCounter{}
	s.SetObserver(c)
	for i := 0; i < 4; i++ {
		require.NoError(t, s.AddNode(NodeSpec{ID: fmt.Sprintf("n%d", i), Rack: "/r", Capability: berth.New(8192, 8)}))
	}
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 40; i++ {
				id := fmt.Sprintf("g%d-%d", g, i)
				if _, err := s.SubmitApp(AppSpec{ID: id, Queue: []string{"a", "b"}[i%2], User: fmt.Sprint("u", g)}); err != nil {
					t.Error(err)
					return
				}
				if _, err := s.Allocate(id, []Ask{{Priority: 1, ResourceName: AnyResource, Capability: berth.New(512, 1), Count: 2}}, nil); err != nil {
					t.Error(err)
					return
				}
				if _, err := s.Heartbeat(fmt.Sprintf("n%d", (g+i)%4), nil); err != nil {
					t.Error(err)
					return
				}
				if i%2 == 0 {
					if _, err := s.FinishApp(id); err != nil {
						t.Error(err)
						return
					}
				}
			}
		}(g)
	}
	wg.Wait()
	s.SetObserver(nil)
	assert.Positive(t, c.allocated)
	assert.Equal(t, len(s.Snapshot().Containers), c.allocated-c.ended)
}
