package preempt_test

import (
	"fmt"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/capacity"
	"github.com/berthsched/berth/preempt"
	"github.com/berthsched/berth/queue"
	"github.com/stretchr/testify/require"
)

// The world builder turns a description of queues, nodes and
// applications (as YARN's preemption tests write them) into a real
// *capacity.Scheduler in that state, by submitting the applications and
// running heartbeats: nothing is mocked. Guarantees and maximums are
// absolute resources, so effective capacities are exact. YARN's tests mock
// the demand that user limits let through; here a queue's extra demand is
// asked for by an application of its own user ("pending") that holds
// nothing, whose user limit (the queue's guarantee, or its usage plus one
// minimum allocation) lets the whole demand through.

// capQueue is one queue: full path, guarantee and maximum, children.
type capQueue struct {
	path      string
	guar, max berth.Resource
	priority  int
	children  []*capQueue
}

// capGroup is a run of containers placed on one node.
type capGroup struct {
	node     string
	size     berth.Resource
	count    int
	reserved bool // one reserved container (count must be 1)
}

// capApp is an application with its placed containers and extra pending
// asks (beyond reservations, which stay pending).
type capApp struct {
	id, queue string
	priority  int32
	am        bool   // the first container of the first group is the AM
	user      string // default "user"
	groups    []capGroup
}

type capWorld struct {
	rc        berth.Calculator
	root      *capQueue
	nodes     []capacity.NodeSpec
	apps      []capApp
	priOrder  bool // parents order children by priority-utilization
	appOrder  capacity.AppOrdering
	amPercent float64
	carriers  []capCarrier
}

// capCarrier is a queue's extra demand: asked for by applications of users
// of their own that hold nothing ("pending", "pending1", ...). With a unit,
// one application asks total/unit containers of it; without, the total is
// split into as few equal asks, each by its own user, as the users'
// limits let through whole.
type capCarrier struct {
	queue       string
	total, unit berth.Resource
}

func (w *capWorld) queueConfig(q *capQueue, final bool, cluster berth.Resource, parentMax berth.Resource) capacity.QueueConfig {
	name := q.path
	if i := lastDot(q.path); i >= 0 {
		name = q.path[i+1:]
	}
	qc := capacity.QueueConfig{Name: name, Settings: capacity.DefaultSettings()}
	qc.Settings.UserLimitFactor = 1000
	qc.Settings.MaxAMResourcePercent = w.amPercent
	qc.Settings.Priority = q.priority
	qc.Settings.AppOrdering = w.appOrder
	if w.priOrder {
		qc.Settings.ChildOrdering = capacity.OrderPriorityUtilization
	}
	mx := cluster
	if final {
		mx = berth.ComponentwiseMin(q.max, parentMax)
	}
	if q.path != "root" {
		qc.Capacity = queue.Absolute(q.guar)
		qc.MaxCapacity = queue.Absolute(mx)
	}
	for _, ch := range q.children {
		qc.Children = append(qc.Children, w.queueConfig(ch, final, cluster, mx))
	}
	return qc
}

func lastDot(s string) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '.' {
			return i
		}
	}
	return -1
}

func (w *capWorld) config(final bool) capacity.Config {
	var cl berth.Resource
	for _, n := range w.nodes {
		cl = cl.Add(n.Capability)
	}
	cfg := capacity.DefaultConfig()
	cfg.Calculator = w.rc
	cfg.MinAllocation = berth.New(1, 1)
	cfg.MaxAllocation = cl
	cfg.MultipleAssignments = true
	cfg.MaxContainerAssignments = -1
	cfg.MaxOffSwitchAssignments = 1 << 30
	cfg.MaximumAMResourcePercent = w.amPercent
	cfg.Root = w.queueConfig(w.root, final, cl, cl)
	return cfg
}

// build returns the scheduler in the described state and its clock.
func (w *capWorld) build(t testing.TB) (*capacity.Scheduler, *berth.ManualClock) {
	t.Helper()
	if w.rc == nil {
		w.rc = berth.MemoryCalculator{}
	}
	if w.amPercent == 0 {
		w.amPercent = 1
	}
	clock := berth.NewManualClock(0)
	s, err := capacity.New(w.config(false), clock)
	require.NoError(t, err)
	require.NoError(t, s.AddNodes(w.nodes...))
	for _, a := range w.apps {
		user := a.user
		if user == "" {
			user = "user"
		}
		spec := capacity.AppSpec{ID: a.id, Queue: a.queue, User: user, Priority: a.priority}
		if a.am && len(a.groups) > 0 {
			spec.AMResource = a.groups[0].size
		}
		_, err := s.SubmitApp(spec)
		require.NoError(t, err, a.id)
		for gi, g := range a.groups {
			n := g.count
			if gi == 0 && a.am {
				n-- // the scheduler asks for the AM itself
			}
			before := appContainers(s, a.id)
			if g.reserved {
				require.Equal(t, 1, g.count, "one reservation per group")
				_, err := s.Allocate(a.id, []capacity.Ask{{Priority: 1, ResourceName: capacity.AnyResource, Capability: g.size, Count: 1}}, nil)
				require.NoError(t, err)
				_, err = s.Heartbeat(g.node, nil)
				require.NoError(t, err)
				require.True(t, hasReservation(s, a.id, g.node), "%s: no reservation on %s", a.id, g.node)
				continue
			}
			if n > 0 {
				_, err := s.Allocate(a.id, []capacity.Ask{{Priority: 1, ResourceName: capacity.AnyResource, Capability: g.size, Count: n}}, nil)
				require.NoError(t, err)
			}
			want := before + g.count
			for i := 0; appContainers(s, a.id) < want; i++ {
				require.Less(t, i, 1000, "%s: cannot place %d containers on %s", a.id, g.count, g.node)
				_, err := s.Heartbeat(g.node, nil)
				require.NoError(t, err)
			}
			require.Equal(t, want, appContainers(s, a.id), "%s on %s", a.id, g.node)
			if n > 0 {
				_, err = s.Allocate(a.id, []capacity.Ask{{Priority: 1, ResourceName: capacity.AnyResource, Capability: g.size, Count: 0}}, nil)
				require.NoError(t, err)
			}
		}
	}
	for _, c := range w.carriers {
		w.addCarrier(t, s, c)
	}
	_, err = s.Reconfigure(w.config(true))
	require.NoError(t, err)
	require.NoError(t, s.Check())
	return s, clock
}

func appContainers(s *capacity.Scheduler, id string) int {
	for _, a := range s.Snapshot().Apps {
		if a.ID == id {
			return a.Containers
		}
	}
	return -1
}

func hasReservation(s *capacity.Scheduler, app, node string) bool {
	for _, r := range s.Snapshot().Reservations {
		if r.App == app && r.Node == node {
			return true
		}
	}
	return false
}

// marks counts the containers each application had marked in a report.
func markedPerApp(rep *preempt.ProportionalReport) map[string]int {
	out := map[string]int{}
	for _, d := range rep.Decisions {
		if d.Action == preempt.Marked || d.Action == preempt.Observed || d.Action == preempt.ReservationCancelled {
			out[d.App]++
		}
	}
	return out
}

func capRes(v int64) berth.Resource { return berth.New(v, v) }

func mustf(t testing.TB, err error, format string, args ...any) {
	t.Helper()
	require.NoError(t, err, fmt.Sprintf(format, args...))
}

func capPath(t testing.TB, s string) queue.Path {
	t.Helper()
	p, err := queue.ParsePath(s)
	require.NoError(t, err)
	return p
}

func (w *capWorld) addCarrier(t testing.TB, s *capacity.Scheduler, c capCarrier) {
	t.Helper()
	ask := func(id string, size berth.Resource, n int) {
		_, err := s.Allocate(id, []capacity.Ask{{Priority: 2, ResourceName: capacity.AnyResource, Capability: size, Count: n}}, nil)
		require.NoError(t, err)
	}
	if !c.unit.IsZero() {
		id := "pending-" + c.queue
		_, err := s.SubmitApp(capacity.AppSpec{ID: id, Queue: c.queue, User: "pending"})
		require.NoError(t, err)
		ask(id, c.unit, int(c.total.Memory/c.unit.Memory))
		return
	}
	base, err := s.PendingWithinUserLimits(c.queue, false)
	require.NoError(t, err)
	want := base.Add(c.total)
	for k := int64(1); k <= 8; k++ {
		var ids []string
		for i := int64(0); i < k; i++ {
			chunk := c.total.Mul(1 / float64(k))
			if i == 0 {
				chunk = c.total.Sub(chunk.MulInt(k - 1))
			}
			id := fmt.Sprintf("pending-%s-%d-%d", c.queue, k, i)
			_, err := s.SubmitApp(capacity.AppSpec{ID: id, Queue: c.queue, User: fmt.Sprintf("pending%d", i)})
			require.NoError(t, err)
			ask(id, chunk, 1)
			ids = append(ids, id)
		}
		got, err := s.PendingWithinUserLimits(c.queue, false)
		require.NoError(t, err)
		if _, mem := w.rc.(berth.MemoryCalculator); (mem && got.Memory == want.Memory) || got.Equal(want) {
			return
		}
		t.Logf("%s: %d carriers let %v through, want %v", c.queue, k, got, want)
		for _, id := range ids {
			_, err := s.FinishApp(id)
			require.NoError(t, err)
		}
	}
	t.Fatalf("%s: cannot make user limits let %v through", c.queue, c.total)
}
