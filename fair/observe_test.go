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

// lineObserver records every event as one line, for exact sequences.
type lineObserver struct{ lines []string }

func (o *lineObserver) ObserveContainer(e queue.ContainerEvent) {
	l := fmt.Sprintf("container %s %d %s %s", e.Kind, e.Container.ID, e.Container.App, e.Container.Queue)
	if e.Kind == queue.ContainerEnded {
		l += " " + e.Status.String()
	}
	o.lines = append(o.lines, l)
}

func (o *lineObserver) ObserveApp(e queue.AppEvent) {
	l := fmt.Sprintf("app %s %s %s", e.Kind, e.App, e.Queue)
	if e.From != "" {
		l += " from " + e.From
	}
	o.lines = append(o.lines, l)
}

func (o *lineObserver) ObserveQueue(e queue.QueueEvent) {
	l := fmt.Sprintf("queue %s %s", e.Kind, e.Queue)
	if e.Kind == queue.QueueEntitlementChanged {
		l += fmt.Sprintf(" %g/%g was %g/%g", e.Entitlement.Capacity, e.Entitlement.MaxCapacity, e.Previous.Capacity, e.Previous.MaxCapacity)
	}
	o.lines = append(o.lines, l)
}

func (o *lineObserver) ObserveReservation(e plan.ReservationEvent) {
	o.lines = append(o.lines, fmt.Sprintf("reservation %s %s", e.Kind, e.ID))
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
			assert.Equal(t, c.want, o.lines)
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
	}, o.lines)
}

// eventModel is the state the events describe; it fails the test on any
// event that contradicts what came before.
type eventModel struct {
	t      *testing.T
	clock  berth.Clock
	live   map[ContainerID]queue.Container
	perApp map[string]int // allocated − ended
	apps   map[string]*appModel
	queues map[string]bool
	ent    map[string]queue.Entitlement
	events int
}

type appModel struct {
	queue  string
	active bool
}

func newEventModel(t *testing.T, clock berth.Clock, queues []string) *eventModel {
	m := &eventModel{t: t, clock: clock, live: map[ContainerID]queue.Container{}, perApp: map[string]int{},
		apps: map[string]*appModel{}, queues: map[string]bool{}, ent: map[string]queue.Entitlement{}}
	for _, q := range queues {
		m.queues[q] = true
	}
	return m
}

func (m *eventModel) ObserveContainer(e queue.ContainerEvent) {
	t := m.t
	m.events++
	require.Equal(t, m.clock.Now(), e.Time)
	id, app := e.Container.ID, e.Container.App
	require.Contains(t, m.apps, app, "container event of an unknown application: %+v", e)
	switch e.Kind {
	case queue.ContainerAllocated:
		require.NotContains(t, m.live, id, "allocated twice")
		require.True(t, m.apps[app].active, "allocated to a waiting application")
		require.Equal(t, m.apps[app].queue, e.Container.Queue)
		m.live[id] = e.Container
		m.perApp[app]++
	case queue.ContainerEnded:
		require.Contains(t, m.live, id, "ended a container that is not live")
		delete(m.live, id)
		m.perApp[app]--
	default:
		t.Fatalf("unknown container event %v", e.Kind)
	}
}

func (m *eventModel) ObserveApp(e queue.AppEvent) {
	t := m.t
	m.events++
	require.Equal(t, m.clock.Now(), e.Time)
	require.True(t, m.queues[e.Queue], "application event in an unknown queue: %+v", e)
	a := m.apps[e.App]
	switch e.Kind {
	case queue.AppAdded:
		require.Nil(t, a, "added twice")
		require.False(t, e.Active)
		m.apps[e.App] = &appModel{queue: e.Queue}
	case queue.AppActivated:
		require.NotNil(t, a)
		require.False(t, a.active, "activated twice")
		require.True(t, e.Active)
		a.active = true
	case queue.AppMoved:
		require.NotNil(t, a)
		require.Equal(t, a.queue, e.From)
		a.queue, a.active = e.Queue, e.Active
		for id, c := range m.live {
			if c.App == e.App {
				c.Queue = e.Queue
				m.live[id] = c
			}
		}
	case queue.AppFinished, queue.AppKilled:
		require.NotNil(t, a)
		require.Zero(t, m.perApp[e.App], "removed with live containers")
		delete(m.apps, e.App)
		delete(m.perApp, e.App)
	default:
		t.Fatalf("unknown application event %v", e.Kind)
	}
}

func (m *eventModel) ObserveQueue(e queue.QueueEvent) {
	t := m.t
	m.events++
	require.Equal(t, m.clock.Now(), e.Time)
	switch e.Kind {
	case queue.QueueAdded:
		require.False(t, m.queues[e.Queue], "added twice: %s", e.Queue)
		m.queues[e.Queue] = true
	case queue.QueueRemoved:
		require.True(t, m.queues[e.Queue], "removed an unknown queue: %s", e.Queue)
		delete(m.queues, e.Queue)
		delete(m.ent, e.Queue)
	case queue.QueueEntitlementChanged:
		require.True(t, m.queues[e.Queue])
		if prev, ok := m.ent[e.Queue]; ok {
			require.Equal(t, prev, e.Previous)
		}
		require.NotEqual(t, e.Previous, e.Entitlement)
		m.ent[e.Queue] = e.Entitlement
	default:
		t.Fatalf("unexpected queue event %v", e.Kind)
	}
}

// check compares the model with a snapshot.
func (m *eventModel) check(s *Scheduler) {
	t := m.t
	snap := s.Snapshot()
	live := map[string]int{}
	for _, c := range snap.Containers {
		live[c.App]++
		require.Equal(t, c.Container, m.live[c.ID], "container %d", c.ID)
	}
	require.Len(t, m.live, len(snap.Containers))
	for _, a := range snap.Apps {
		require.Equal(t, live[a.ID], m.perApp[a.ID], "allocated − ended of %s", a.ID)
		am := m.apps[a.ID]
		require.NotNil(t, am, "application %s never added", a.ID)
		require.Equal(t, a.Queue, am.queue)
		require.Equal(t, a.Runnable, am.active, "runnable %s", a.ID)
	}
	require.Len(t, m.apps, len(snap.Apps))
	var paths, model []string
	for _, q := range snap.Queues {
		paths = append(paths, q.Path)
	}
	for q := range m.queues {
		model = append(model, q)
	}
	slices.Sort(paths)
	slices.Sort(model)
	require.Equal(t, paths, model)
	for _, p := range s.PlanQueues() {
		infos, err := s.ReservationQueues(p)
		require.NoError(t, err)
		for _, in := range infos {
			if e, ok := m.ent[in.Path]; ok {
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
	if testing.Short() {
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
		require.Positive(t, m.events)
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
