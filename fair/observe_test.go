package fair

import (
	"fmt"
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
		return []Ask{{Priority: 1, ResourceName: AnyResource, Capability: berth.New(1024, 1), Count: n}}
	}
	submit := func(t *testing.T, s *Scheduler, id, q string) {
		_, err := s.SubmitApp(AppSpec{ID: id, Queue: q, User: "u"})
		require.NoError(t, err)
	}
	cases := []struct {
		name string
		run  func(t *testing.T, s *Scheduler)
		want []string
	}{
		{"allocation, release, completion, finish", func(t *testing.T, s *Scheduler) {
			submit(t, s, "app1", "root.a")
			_, err := s.Allocate("app1", one(3), nil)
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
			submit(t, s, "app1", "root.a")
			_, err := s.Allocate("app1", one(3), nil)
			require.NoError(t, err)
			_, err = s.Heartbeat("n1", nil)
			require.NoError(t, err)
			require.NoError(t, s.MarkForPreemption(1))
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
		{"maxRunningApps: the second application waits for the first", func(t *testing.T, s *Scheduler) {
			submit(t, s, "app1", "root.one")
			submit(t, s, "app2", "root.one")
			_, err := s.FinishApp("app1")
			require.NoError(t, err)
		}, []string{
			"app added app1 root.one", "app activated app1 root.one", "app added app2 root.one",
			"app finished app1 root.one", "app activated app2 root.one",
		}},
		{"moves: a runnable application stays runnable, a waiting one starts", func(t *testing.T, s *Scheduler) {
			submit(t, s, "app1", "root.one")
			submit(t, s, "app2", "root.one")
			submit(t, s, "app3", "root.one")
			_, err := s.MoveApp("app2", "root.a")
			require.NoError(t, err)
			_, err = s.MoveApp("app1", "root.b")
			require.NoError(t, err)
		}, []string{
			"app added app1 root.one", "app activated app1 root.one", "app added app2 root.one", "app added app3 root.one",
			"app moved app2 root.a from root.one", "app activated app2 root.a",
			// app1 leaves room in root.one: app3 starts there.
			"app moved app1 root.b from root.one", "app activated app3 root.one",
		}},
		{"ad-hoc queue of a placement rule", func(t *testing.T, s *Scheduler) {
			submit(t, s, "app1", "root.adhoc")
			_, err := s.FinishApp("app1")
			require.NoError(t, err)
			s.Update() // drops idle ad-hoc queues
		}, []string{
			"queue added root.adhoc", "app added app1 root.adhoc", "app activated app1 root.adhoc",
			"app finished app1 root.adhoc", "queue removed root.adhoc",
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.AssignMultiple, cfg.DynamicMaxAssign, cfg.MaxAssign = true, false, -1
			h := newHarness(t, cfg, allocXML(`<queue name="a"/><queue name="b"/><queue name="one"><maxRunningApps>1</maxRunningApps></queue>`))
			require.NoError(t, h.s.AddNode(NodeSpec{ID: "n1", Rack: "/r", Capability: berth.New(16*1024, 16)}))
			o := &lineObserver{}
			h.s.SetObserver(o)
			c.run(t, h.s)
			assert.Equal(t, c.want, o.Lines)
		})
	}
}

// TestObserverPlanFollower: the plan follower's reservation queues are
// added, weighted and removed as the plan's reservations come and go.
func TestObserverPlanFollower(t *testing.T) {
	h := newHarness(t, DefaultConfig(), allocXML(`<queue name="a"><weight>2</weight></queue><queue name="plan"><weight>8</weight><reservation/></queue>`))
	require.NoError(t, h.s.AddNode(NodeSpec{ID: "n1", Rack: "/r", Capability: berth.New(100*1024, 100)}))
	o := &lineObserver{}
	h.s.SetObserver(o)
	pcfg := plan.DefaultConfig("root.plan", berth.New(80*1024, 80), h.clock)
	pcfg.Policy = nil
	p, err := plan.New(pcfg)
	require.NoError(t, err)
	p.SetObserver(o)
	id := plan.ReservationID{ClusterTimestamp: 1, Sequence: 1}
	def := plan.Definition{Arrival: 1000, Deadline: 3000, Interpreter: plan.RAll,
		Stages: []plan.Stage{{Capability: berth.New(1024, 1), Containers: 20, Concurrency: 1, Duration: 2000}}}
	iv := berth.Interval{Start: 1000, End: 3000}
	a, err := plan.NewAllocation(id, "alice", def, iv, []plan.IntervalResource{{Interval: iv, Resource: berth.New(20*1024, 20)}})
	require.NoError(t, err)
	require.NoError(t, p.AddReservation(a))
	f, err := follower.New(follower.Config{Scheduler: h.s, Flavor: follower.FairFlavor, Plans: follower.Plans{p}})
	require.NoError(t, err)
	for _, now := range []berth.Time{0, 1000, 3000} {
		h.clock.Set(now)
		_, err := f.Run(now)
		require.NoError(t, err)
	}
	q := "root.plan." + id.String()
	// Every run first zeroes the default queue, then gives it what the
	// reservations leave. The plan gets 8/11 of 100 GB (weights: a 2, plan
	// 8, default 1), so 20 GB is 0.275 of it.
	zero, full := "queue entitlement-changed root.plan.plan-default 0/1 was 1/1",
		"queue entitlement-changed root.plan.plan-default 1/1 was 0/1"
	assert.Equal(t, []string{
		"reservation accepted " + id.String(),
		zero, full, // t=0
		zero, "queue added " + q, // t=1000
		"queue entitlement-changed " + q + " 0.274999/1 was 0/1",
		"queue entitlement-changed root.plan.plan-default 0.725001/1 was 0/1",
		"queue entitlement-changed " + q + " 0/1 was 0.274999/1", // t=3000
		"queue removed " + q,
		"queue entitlement-changed root.plan.plan-default 0/1 was 0.725001/1",
		full,
		"reservation expired " + id.String(), // no sharing policy: no archive window
	}, o.Lines)
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
	require.Equal(t, len(snap.Containers), m.NumContainers())
	for _, a := range snap.Apps {
		am, ok := m.App(a.ID)
		require.True(t, ok, "application %s never added", a.ID)
		require.Equal(t, live[a.ID], am.Containers, "allocated − ended of %s", a.ID)
		require.Equal(t, a.Queue, am.Queue)
		require.Equal(t, a.Runnable, am.Active, "runnable %s", a.ID)
	}
	require.Equal(t, len(snap.Apps), m.NumApps())
	var paths []string
	for _, q := range snap.Queues {
		paths = append(paths, q.Path)
	}
	slices.Sort(paths)
	require.Equal(t, paths, m.Queues())
	for _, p := range s.PlanQueues() {
		infos, err := s.ReservationQueues(p)
		require.NoError(t, err)
		for _, in := range infos {
			if e, ok := m.Entitlement(in.Path); ok {
				require.Equal(t, e, in.Entitlement, "entitlement of %s", in.Path)
			}
		}
	}
}

// TestObserverProperty: on the random streams of TestSchedulerRandomOps
// (reloads that add, drop and retype queues, ad-hoc and reservation
// queues, moves, preemptions, node losses) the events replayed into a
// model agree with the scheduler after every step: per application,
// allocated − ended equals its live containers.
func TestObserverProperty(t *testing.T) {
	n := 16
	if testing.Short() || raceEnabled {
		n = 4
	}
	for seed := range uint64(n) {
		var m *eventModel
		runOpsWith(t, seed, 300, func(s *Scheduler, clock *berth.ManualClock, step int) {
			if step < 0 {
				var paths []string
				for _, q := range s.Snapshot().Queues {
					paths = append(paths, q.Path)
				}
				m = newEventModel(t, clock, paths)
				s.SetObserver(m)
				return
			}
			m.check(s)
		})
		require.Positive(t, m.Events())
	}
}

type nopCounter struct {
	queue.NopObserver
	n int
}

func (c *nopCounter) ObserveContainer(queue.ContainerEvent) { c.n++ }

// TestObserverAllocs: an observer embedding NopObserver costs no
// allocation per event.
func TestObserverAllocs(t *testing.T) {
	measure := func(o Observer) float64 {
		cfg := DefaultConfig()
		cfg.AssignMultiple, cfg.DynamicMaxAssign, cfg.MaxAssign = true, false, -1
		h := newHarness(t, cfg, allocXML(`<queue name="a"/><queue name="b"/>`))
		var ids []string
		for range 50 {
			ids = append(ids, h.addNode(8*1024, 8))
		}
		h.request(1024, "root.a", "u", 100000)
		h.request(1024, "root.b", "v", 100000)
		if o != nil {
			h.s.SetObserver(o)
		}
		i := 0
		var done []ContainerID
		return testing.AllocsPerRun(40, func() {
			al, err := h.s.Heartbeat(ids[i%len(ids)], done)
			if err != nil {
				t.Fatal(err)
			}
			done = done[:0]
			for _, a := range al {
				done = append(done, a.ID)
			}
			i++
		})
	}
	without := measure(nil)
	c := &nopCounter{}
	with := measure(c)
	assert.Positive(t, c.n)
	assert.Equal(t, without, with, "allocations per heartbeat with a no-op observer")
}

// FuzzObserver: on the random operation streams of FuzzScheduler, the
// events agree with the scheduler's state after every step.
func FuzzObserver(f *testing.F) {
	for _, s := range []uint64{1, 2, 3, 99} {
		f.Add(s, uint16(200))
	}
	f.Fuzz(func(t *testing.T, seed uint64, steps uint16) {
		var m *eventModel
		runOpsWith(t, seed, int(steps%600), func(s *Scheduler, clock *berth.ManualClock, step int) {
			if step < 0 {
				var paths []string
				for _, q := range s.Snapshot().Queues {
					paths = append(paths, q.Path)
				}
				m = newEventModel(t, clock, paths)
				s.SetObserver(m)
				return
			}
			m.check(s)
		})
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
	h := newHarness(t, DefaultConfig(), allocXML(`<queue name="a"/><queue name="b"/>`))
	for range 4 {
		h.addNode(8192, 8)
	}
	s := h.s
	c := &plainCounter{}
	s.SetObserver(c)
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 40; i++ {
				id := fmt.Sprintf("g%d-%d", g, i)
				if _, err := s.SubmitApp(AppSpec{ID: id, Queue: []string{"root.a", "root.b"}[i%2], User: fmt.Sprint("u", g)}); err != nil {
					t.Error(err)
					return
				}
				if _, err := s.Allocate(id, []Ask{{Priority: 1, ResourceName: AnyResource, Capability: berth.New(512, 1), Count: 2}}, nil); err != nil {
					t.Error(err)
					return
				}
				if _, err := s.Heartbeat(fmt.Sprintf("node%d", 1+(g+i)%4), nil); err != nil {
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
