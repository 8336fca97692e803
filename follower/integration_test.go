package follower

import (
	"fmt"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/capacity"
	"github.com/berthsched/berth/fair"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/queue"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Both schedulers are follower Schedulers as they are.
var (
	_ Scheduler = (*capacity.Scheduler)(nil)
	_ Scheduler = (*fair.Scheduler)(nil)
)

// capacityAbs reads a queue's absolute capacity from a snapshot (the
// reservation system sizes its plans with it).
func capacityAbs(sn *capacity.Snapshot, path string) (float32, error) {
	p, err := queue.ParsePath(path)
	if err != nil {
		return 0, err
	}
	qs := sn.Queues.Get(p)
	if qs == nil {
		return 0, &berth.FieldError{Field: "queue", Value: path, Kind: berth.ErrNotFound, Reason: "no such queue"}
	}
	return qs.AbsoluteCapacity, nil
}

// pfCapacityConfig is §11's capacity scheduler: root.{default 10%, a 10%
// (a1 30%, a2 70%), dedicated 80% reservable}.
func pfCapacityConfig() capacity.Config {
	cfg := capacity.DefaultConfig()
	ded := capacity.Queue("dedicated", 80)
	ded.Reservable = true
	cfg.Root.Children = []capacity.QueueConfig{
		capacity.Queue("default", 10),
		capacity.Queue("a", 10, capacity.Queue("a1", 30), capacity.Queue("a2", 70)),
		ded,
	}
	return cfg
}

const pfAllocationFile = `<allocations>
  <queue name="default"><weight>1</weight></queue>
  <queue name="a"><weight>1</weight>
    <queue name="a1"><weight>3</weight></queue>
    <queue name="a2"><weight>7</weight></queue>
  </queue>
  <queue name="dedicated"><weight>8</weight><reservation/></queue>
  <defaultQueueSchedulingPolicy>drf</defaultQueueSchedulingPolicy>
</allocations>`

func newPFCapacity(t testing.TB, cluster berth.Resource) *capacity.Scheduler {
	t.Helper()
	cfg := pfCapacityConfig()
	cfg.Clock = berth.NewManualClock(0)
	s, err := capacity.New(cfg)
	require.NoError(t, err)
	require.NoError(t, s.AddNode(capacity.NodeSpec{ID: "n1", Rack: "/r1", Capability: cluster}))
	return s
}

func newPFFair(t testing.TB, cluster berth.Resource) *fair.Scheduler {
	t.Helper()
	af, err := fair.ParseAllocationFile([]byte(pfAllocationFile), fair.ParseOptions{})
	require.NoError(t, err)
	cfg := fair.DefaultConfig()
	cfg.Allocation = af
	cfg.Clock = berth.NewManualClock(0)
	s, err := fair.New(cfg)
	require.NoError(t, err)
	require.NoError(t, s.AddNode(fair.NodeSpec{ID: "n1", Capability: cluster}))
	return s
}

// realHarness drives the §11 script on a real scheduler. Both schedulers
// list reservation queues and take submissions with package queue's records,
// so one harness serves both; only the plan queue's name differs.
type realHarness struct {
	sched     Scheduler
	planQueue string
	list      func(plan string) ([]queue.ReservationQueueInfo, error)
	submitApp func(queue.AppSpec) (string, error)
}

func capacityHarness(s *capacity.Scheduler) realHarness {
	return realHarness{sched: s, planQueue: "dedicated", list: s.ReservationQueues, submitApp: s.SubmitApp}
}

func fairHarness(s *fair.Scheduler) realHarness {
	return realHarness{sched: s, planQueue: "root.dedicated", list: s.ReservationQueues, submitApp: s.SubmitApp}
}

func (h realHarness) scheduler() Scheduler { return h.sched }
func (h realHarness) info(r string) *queue.ReservationQueueInfo {
	infos, err := h.list(h.planQueue)
	if err != nil {
		panic(err)
	}
	for _, in := range infos {
		if in.Name == r {
			return &in
		}
	}
	return nil
}
func (h realHarness) exists(r string) bool { return h.info(r) != nil }
func (h realHarness) capacity(r string) float64 {
	if in := h.info(r); in != nil {
		return float64(in.Capacity)
	}
	return -1
}
func (h realHarness) apps(r string) int {
	if in := h.info(r); in != nil {
		return in.NumApps
	}
	return -1
}
func (h realHarness) submit(app, r string) error {
	_, err := h.submitApp(queue.AppSpec{ID: app, Queue: h.planQueue, User: "u3", ReservationID: r})
	return err
}

// §11 against the real capacity scheduler.
func TestPlanFollowerVectorsCapacity(t *testing.T) {
	for _, move := range []bool{true, false} {
		t.Run(fmt.Sprintf("move=%v", move), func(t *testing.T) {
			s := newPFCapacity(t, berth.New(128000, 125))
			yes := true
			p := runPF(t, capacityHarness(s), CapacityFlavor, "dedicated", move, &yes)
			assert.True(t, p.Capacity().Equal(berth.New(102400, 100)), "plan capacity reset to 100 GB: %v", p.Capacity())
			require.NoError(t, s.Check())
		})
	}
}

// §11 against the real fair scheduler.
func TestPlanFollowerVectorsFair(t *testing.T) {
	for _, move := range []bool{true, false} {
		t.Run(fmt.Sprintf("move=%v", move), func(t *testing.T) {
			s := newPFFair(t, berth.New(128000, 125))
			pr, err := s.PlanResources("root.dedicated")
			require.NoError(t, err)
			assert.Equal(t, int64(102400), pr.Memory, "steady fair share of dedicated")
			// YARN's FS creates the default reservation queue on the first
			// run (or submission); Berth's schedulers create it with the
			// plan queue (package queue's shared tree does, see fair's
			// doc.go), so it is there before the first run, as with CS.
			yes := true
			runPF(t, fairHarness(s), FairFlavor, "root.dedicated", move, &yes)
			require.NoError(t, s.Check())
		})
	}
}

// With kill on expiry, the capacity scheduler's ended containers reach
// the host through the Result; a moved application keeps its container.
func TestExpiryCapacityEndsContainers(t *testing.T) {
	for _, move := range []bool{true, false} {
		t.Run(fmt.Sprintf("move=%v", move), func(t *testing.T) {
			s := newPFCapacity(t, berth.New(128000, 125))
			p := pfPlan(t, "dedicated", move)
			f := mustFollower(t, s, CapacityFlavor, p)
			_, err := f.Run(0)
			require.NoError(t, err)
			r1 := rid(1).String()
			_, err = s.SubmitApp(capacity.AppSpec{ID: "app_1", Queue: "dedicated", User: "u3", ReservationID: r1})
			require.NoError(t, err)
			_, err = s.Allocate("app_1", []capacity.Ask{{Priority: 1, ResourceName: capacity.AnyResource, Capability: berth.New(1024, 1), Count: 1}}, nil)
			require.NoError(t, err)
			al, err := s.Heartbeat("n1", nil)
			require.NoError(t, err)
			require.Len(t, al, 1)

			res, err := f.Run(10)
			require.NoError(t, err)
			if move {
				assert.Equal(t, []Move{{App: "app_1", From: r1, To: "dedicated-default"}}, res[0].Moved)
				assert.Empty(t, res[0].Ended)
				assert.Equal(t, []string{r1}, res[0].Removed)
				apps, err := s.AppsInQueue("dedicated-default")
				require.NoError(t, err)
				assert.Equal(t, []string{"app_1"}, apps)
			} else {
				assert.Equal(t, []string{"app_1"}, res[0].Killed)
				require.Len(t, res[0].Ended, 1)
				assert.Equal(t, al[0].ID, res[0].Ended[0].ID)
				assert.Equal(t, capacity.Killed, res[0].Ended[0].Status)
				assert.Empty(t, res[0].Removed, "the queue goes on a later run")
			}
			require.NoError(t, s.Check())
		})
	}
}

// The same with the fair scheduler, driven directly (no adapter): killed
// applications' containers reach the host through the Result.
func TestExpiryFairEndsContainers(t *testing.T) {
	for _, move := range []bool{true, false} {
		t.Run(fmt.Sprintf("move=%v", move), func(t *testing.T) {
			s := newPFFair(t, berth.New(128000, 125))
			p := pfPlan(t, "root.dedicated", move)
			f := mustFollower(t, s, FairFlavor, p)
			_, err := f.Run(0)
			require.NoError(t, err)
			r1 := rid(1).String()
			q, err := s.SubmitApp(fair.AppSpec{ID: "app_1", Queue: "root.dedicated", User: "u3", ReservationID: r1})
			require.NoError(t, err)
			require.Equal(t, "root.dedicated."+r1, q)
			_, err = s.Allocate("app_1", []fair.Ask{{Priority: 1, ResourceName: fair.AnyResource, Capability: berth.New(1024, 1), Count: 1}}, nil)
			require.NoError(t, err)
			al, err := s.Heartbeat("n1", nil)
			require.NoError(t, err)
			require.Len(t, al, 1)

			res, err := f.Run(10)
			require.NoError(t, err)
			def := "root.dedicated.dedicated-default"
			if move {
				assert.Equal(t, []Move{{App: "app_1", From: "root.dedicated." + r1, To: def}}, res[0].Moved)
				assert.Empty(t, res[0].Ended)
				assert.Equal(t, []string{"root.dedicated." + r1}, res[0].Removed)
				apps, err := s.AppsInQueue(def)
				require.NoError(t, err)
				assert.Equal(t, []string{"app_1"}, apps)
			} else {
				assert.Equal(t, []string{"app_1"}, res[0].Killed)
				require.Len(t, res[0].Ended, 1)
				assert.Equal(t, al[0].ID, res[0].Ended[0].ID)
				assert.Equal(t, fair.Killed, res[0].Ended[0].Status)
				assert.Empty(t, res[0].Removed, "the queue goes on a later run")
				apps, err := s.AppsInQueue("root.dedicated")
				require.NoError(t, err)
				assert.Empty(t, apps)
			}
			require.NoError(t, s.Check())
		})
	}
}

// A fair-policy plan queue's steady fair share has no vcores (the fair
// policy divides memory only); the scheduler's plan resources give the
// plan queue the same share of the cluster's vcores, so the follower sizes
// reservations under either calculator (YARN's gives them 0 there).
func TestFairPolicyPlanWithoutVCores(t *testing.T) {
	for _, c := range []struct {
		name string
		calc berth.Calculator
		want float32
	}{
		{"memory calculator", berth.MemoryCalculator{}, 0.25},
		{"dominant calculator", berth.DominantCalculator{}, 0.25},
	} {
		t.Run(c.name, func(t *testing.T) {
			af, err := fair.ParseAllocationFile([]byte(`<allocations>
  <queue name="default"><weight>1</weight></queue>
  <queue name="dedicated"><weight>4</weight><reservation/></queue>
</allocations>`), fair.ParseOptions{})
			require.NoError(t, err)
			clock := berth.NewManualClock(0)
			conf := fair.DefaultConfig()
			conf.Allocation = af
			conf.Clock = clock
			s, err := fair.New(conf)
			require.NoError(t, err)
			require.NoError(t, s.AddNode(fair.NodeSpec{ID: "n1", Capability: berth.New(100*1024, 100)}))
			pr, err := s.PlanResources("root.dedicated")
			require.NoError(t, err)
			require.Equal(t, berth.New(80*1024, 80), pr, "vcores in memory's proportion")

			cfg := plan.DefaultConfig("root.dedicated", pr, clock)
			cfg.Calculator = c.calc
			p, err := plan.New(cfg)
			require.NoError(t, err)
			iv := berth.Interval{Start: 0, End: 3000}
			a, err := plan.NewAllocation(rid(1), "alice", plan.Definition{Arrival: 0, Deadline: 3000}, iv,
				[]plan.IntervalResource{{Interval: iv, Resource: berth.New(20*1024, 20)}})
			require.NoError(t, err)
			require.NoError(t, p.AddReservation(a))

			f := mustFollower(t, s, FairFlavor, p)
			_, err = f.Run(0)
			require.NoError(t, err)
			e, _, err := s.ReservationQueueState("root.dedicated", "root.dedicated."+rid(1).String())
			require.NoError(t, err)
			assert.Equal(t, c.want, e.Capacity)
			def, _, err := s.ReservationQueueState("root.dedicated", "root.dedicated.dedicated-default")
			require.NoError(t, err)
			assert.Equal(t, 1-c.want, def.Capacity)
			require.NoError(t, s.Check())
		})
	}
}

// The capacity follower plans on the default partition, as YARN's does:
// §11 gives the same reservation queues and capacities when a labelled
// node twice the default partition's size joins, and the plan is sized by
// the unlabelled node alone.
func TestPlanFollowerVectorsCapacityWithLabels(t *testing.T) {
	cfg := pfCapacityConfig()
	cfg.NodeLabels = []capacity.NodeLabel{{Name: "gpu", NonExclusive: true}}
	cfg.Root.Settings.NodeLabels = map[string]capacity.LabelSettings{"gpu": {Capacity: queue.Percent(100)}}
	def := &cfg.Root.Children[0]
	def.Settings.AccessibleNodeLabels = []string{"gpu"}
	def.Settings.NodeLabels = map[string]capacity.LabelSettings{"gpu": {Capacity: queue.Percent(100)}}
	cfg.Clock = berth.NewManualClock(0)
	s, err := capacity.New(cfg)
	require.NoError(t, err)
	require.NoError(t, s.AddNodes(capacity.NodeSpec{ID: "n1", Rack: "/r1", Capability: berth.New(128000, 125)},
		capacity.NodeSpec{ID: "g1", Rack: "/r1", Capability: berth.New(256000, 250), Label: "gpu"}))
	yes := true
	p := runPF(t, capacityHarness(s), CapacityFlavor, "dedicated", true, &yes)
	assert.True(t, p.Capacity().Equal(berth.New(102400, 100)), "plan capacity: 80%% of the default partition: %v", p.Capacity())
	require.NoError(t, s.Check())
}
