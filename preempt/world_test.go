package preempt_test

import (
	"fmt"
	"math"
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
	// parts are its guarantee and maximum on the labels it may use
	parts map[string]capPart
}

// capPart is a queue's guarantee, maximum and usage on one label.
type capPart struct{ guar, max, used berth.Resource }

// capGroup is a run of containers placed on one node.
type capGroup struct {
	node     string
	size     berth.Resource
	count    int
	reserved bool   // one reserved container (count must be 1)
	label    string // the asks' label ("" the default partition)
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
	// labels are the cluster's partitions (none: one partition)
	labels    []capacity.NodeLabel
	rc        berth.Calculator
	root      *capQueue
	nodes     []capacity.NodeSpec
	apps      []capApp
	priOrder  bool // parents order children by priority-utilization
	appOrder  capacity.AppOrdering
	amPercent float64
	carriers  []capCarrier
	// zeroAMShare ends the build with every AM share at 0, as YARN's mock
	// framework leaves a leaf's maximum-am-resource-percent (an unmocked
	// float): the FIFO selector then keeps no AM container for the leaf's
	// AM share.
	zeroAMShare bool
}

// capCarrier is a queue's extra demand: asked for by applications of users
// of their own that hold nothing ("pending", "pending1", ...). With a unit,
// one application asks total/unit containers of it; without, the total is
// split into as few equal asks, each by its own user, as the users'
// limits let through whole.
type capCarrier struct {
	queue       string
	total, unit berth.Resource
	label       string // the partition asked for
}

func (w *capWorld) queueConfig(q *capQueue, final bool, cluster berth.Resource, parentMax berth.Resource) capacity.QueueConfig {
	name := q.path
	if i := lastDot(q.path); i >= 0 {
		name = q.path[i+1:]
	}
	qc := capacity.QueueConfig{Name: name, Settings: capacity.DefaultSettings()}
	qc.Settings.UserLimitFactor = 1000
	qc.Settings.MaxAMResourcePercent = max(w.amPercent, 0)
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
	if len(w.labels) > 0 {
		w.labelSettings(q, &qc, final)
	}
	for _, ch := range q.children {
		qc.Children = append(qc.Children, w.queueConfig(ch, final, cluster, mx))
	}
	return qc
}

// labelSettings gives q its guarantees and maximums on the labels it may
// use (absolute, as the mock framework's), and access to those alone.
func (w *capWorld) labelSettings(q *capQueue, qc *capacity.QueueConfig, final bool) {
	if q.path != "root" {
		qc.Settings.AccessibleNodeLabels = []string{}
	}
	for _, l := range w.labels {
		p, ok := q.parts[l.Name]
		if !ok {
			continue
		}
		// While the containers are placed, a queue is guaranteed what it
		// will hold there (the mock framework's AMs need no AM limit) and
		// may use the whole partition.
		g, mx := p.used, w.partRes(l.Name)
		if final {
			g, mx = p.guar, p.max
		}
		if qc.Settings.NodeLabels == nil {
			qc.Settings.NodeLabels = map[string]capacity.LabelSettings{}
		}
		qc.Settings.NodeLabels[l.Name] = capacity.LabelSettings{Capacity: queue.Absolute(g), MaxCapacity: queue.Absolute(mx)}
		if q.path != "root" {
			qc.Settings.AccessibleNodeLabels = append(qc.Settings.AccessibleNodeLabels, l.Name)
		}
	}
}

// partRes is the resource of partition l: its nodes'.
func (w *capWorld) partRes(l string) berth.Resource {
	var r berth.Resource
	for _, n := range w.nodes {
		if n.Label == l {
			r = r.Add(n.Capability)
		}
	}
	return r
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
	cfg.MaximumAMResourcePercent = max(w.amPercent, 0)
	cfg.NodeLabels = w.labels
	// YARN's mock framework gives applications their priorities as
	// written; the cluster's maximum (0 by default) would cap them all.
	cfg.MaxAppPriority = math.MaxInt32
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
	cfg := w.config(false)
	cfg.Clock = clock
	s, err := capacity.New(cfg)
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
			spec.AMNodeLabelExpression = labelExpr(a.groups[0].label)
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
				_, err := s.Allocate(a.id, []capacity.Ask{{Priority: 1, ResourceName: capacity.AnyResource, Capability: g.size, Count: 1,
					NodeLabelExpression: labelExpr(g.label)}}, nil)
				require.NoError(t, err)
				_, err = s.Heartbeat(g.node, nil)
				require.NoError(t, err)
				require.True(t, hasReservation(s, a.id, g.node), "%s: no reservation on %s", a.id, g.node)
				continue
			}
			if n > 0 {
				_, err := s.Allocate(a.id, []capacity.Ask{{Priority: 1, ResourceName: capacity.AnyResource, Capability: g.size, Count: n,
					NodeLabelExpression: labelExpr(g.label)}}, nil)
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
	_, err = s.Reconfigure(w.config(true))
	require.NoError(t, err)
	// Demand is asked for under the final configuration: the users'
	// limits depend on the guarantees.
	for _, c := range w.carriers {
		w.addCarrier(t, s, c)
	}
	if w.zeroAMShare {
		w.amPercent = -1 // 0 in the configuration: the applications are active already
		_, err = s.Reconfigure(w.config(true))
		require.NoError(t, err)
	}
	require.NoError(t, s.Check())
	return s, clock
}

// labelExpr is the ask's label expression for a group's label: the
// default partition by name, as the mock framework's empty label.
func labelExpr(l string) string {
	if l == "" {
		return queue.NoLabel
	}
	return l
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
		_, err := s.Allocate(id, []capacity.Ask{{Priority: 2, ResourceName: capacity.AnyResource, Capability: size, Count: n,
			NodeLabelExpression: labelExpr(c.label)}}, nil)
		require.NoError(t, err)
	}
	if !c.unit.IsZero() {
		id := "pending-" + c.queue
		_, err := s.SubmitApp(capacity.AppSpec{ID: id, Queue: c.queue, User: "pending"})
		require.NoError(t, err)
		ask(id, c.unit, int(c.total.Memory/c.unit.Memory))
		return
	}
	base := pendingOn(t, s, c.queue, c.label)
	want := base.Add(c.total)
	for k := int64(1); k <= 8; k++ {
		var ids []string
		for i := int64(0); i < k; i++ {
			chunk := c.total.Mul(1 / float64(k))
			if i == 0 {
				chunk = c.total.Sub(chunk.MulInt(k - 1))
			}
			id := fmt.Sprintf("pending-%s-%s-%d-%d", c.queue, c.label, k, i)
			_, err := s.SubmitApp(capacity.AppSpec{ID: id, Queue: c.queue, User: fmt.Sprintf("pending%d", i)})
			require.NoError(t, err)
			ask(id, chunk, 1)
			ids = append(ids, id)
		}
		got := pendingOn(t, s, c.queue, c.label)
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

// pendingOn is leaf q's demand on partition label that its users' limits
// let through ([capacity.Scheduler.PendingWithinUserLimits] on the
// default partition, the preemption state's on a labelled one).
func pendingOn(t testing.TB, s *capacity.Scheduler, q, label string) berth.Resource {
	t.Helper()
	if label == "" {
		p, err := s.PendingWithinUserLimits(q, false)
		require.NoError(t, err)
		return p
	}
	st := s.PreemptionState()
	for _, pq := range st.Queues {
		if pq.Path != q {
			continue
		}
		for i, p := range st.Partitions[1:] {
			if p.Label == label {
				return pq.PartitionPending[i].All
			}
		}
	}
	t.Fatalf("no queue %s on label %q", q, label)
	return berth.Resource{}
}
