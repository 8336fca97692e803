package preempt_test

import (
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/capacity"
	"github.com/berthsched/berth/preempt"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// viewProbe is a selector that only looks: it hands the round's view to a
// check.
type viewProbe struct {
	check func(r *preempt.ProportionalRound) error
}

func (viewProbe) Name() string                                { return "probe" }
func (viewProbe) KillWait() berth.Duration                    { return 0 }
func (p viewProbe) Select(r *preempt.ProportionalRound) error { return p.check(r) }

// The containers read on demand are those of the full snapshot, per
// application and per node, by id, and repeated reads give the same lists.
func TestViewContainersMatchSnapshot(t *testing.T) {
	s, _, _ := starvingCapacityCluster(t)
	snap := s.Snapshot()
	byApp, byNode := map[string][]preempt.Container{}, map[string][]preempt.Container{}
	for _, c := range snap.Containers {
		byApp[c.App] = append(byApp[c.App], c.Container)
		byNode[c.Node] = append(byNode[c.Node], c.Container)
	}
	require.NotEmpty(t, byApp)
	deref := func(cs []*preempt.Container) []preempt.Container {
		var out []preempt.Container
		for _, c := range cs {
			out = append(out, *c)
		}
		return out
	}
	calls := 0
	probe := viewProbe{check: func(r *preempt.ProportionalRound) error {
		calls++
		cl := r.Cluster
		require.Len(t, cl.Apps, len(snap.Apps))
		for _, a := range cl.Apps {
			cs, err := cl.AppContainers(a)
			require.NoError(t, err)
			assert.Equal(t, byApp[a.ID], deref(cs), "containers of %s", a.ID)
			again, err := cl.AppContainers(a)
			require.NoError(t, err)
			assert.Equal(t, cs, again, "a second read of %s", a.ID)
			var am berth.Resource
			for _, c := range byApp[a.ID] {
				if c.AM {
					am = am.Add(c.Resource)
				}
			}
			assert.Equal(t, am, a.AMUsed, "AM used of %s", a.ID)
		}
		assert.Empty(t, cl.Nodes, "no node holds a reservation")
		return nil
	}}
	p, err := preempt.NewProportional(preempt.ProportionalSetup{State: s, Actor: s, Config: preempt.DefaultProportionalConfig(), Selectors: []preempt.Selector{probe}})
	require.NoError(t, err)
	_, err = p.Round(0)
	require.NoError(t, err)
	assert.Equal(t, 1, calls)
}

// A reservation queue, absent from the configuration, takes its plan's
// settings (AM share, application ordering), as before the state read.
func TestReservationQueueUsesPlanSettings(t *testing.T) {
	cfg := capacity.DefaultConfig()
	plan := capacity.Queue("plan", 50)
	plan.Reservable = true
	plan.Settings.MaxAMResourcePercent = 0.25
	cfg.Root.Children = []capacity.QueueConfig{capacity.Queue("a", 50), plan}
	cfg.MaximumAMResourcePercent = 0.5
	cfg.Clock = berth.NewManualClock(0)
	s, err := capacity.New(cfg)
	require.NoError(t, err)
	require.NoError(t, s.AddNode(capacity.NodeSpec{ID: "n1", Rack: "/r", Capability: berth.New(16*cGB, 16)}))
	require.NoError(t, s.AddReservationQueue("plan", "r1"))
	require.NoError(t, s.SetEntitlement("plan-default", capacity.Entitlement{Capacity: 0.5, MaxCapacity: 1}))
	require.NoError(t, s.SetEntitlement("r1", capacity.Entitlement{Capacity: 0.5, MaxCapacity: 1}))
	checked := false
	probe := viewProbe{check: func(r *preempt.ProportionalRound) error {
		q := r.Cluster.Queue("root.plan.r1")
		require.NotNil(t, q)
		require.True(t, q.IsLeaf())
		require.False(t, q.Guaranteed.IsZero())
		assert.Equal(t, q.Guaranteed.Mul(0.25), q.MaxAMCapacity, "the plan's AM share")
		a := r.Cluster.Queue("root.a")
		assert.Equal(t, a.Guaranteed.Mul(0.5), a.MaxAMCapacity, "the global AM share")
		checked = true
		return nil
	}}
	p, err := preempt.NewProportional(preempt.ProportionalSetup{State: s, Actor: s, Config: preempt.DefaultProportionalConfig(), Selectors: []preempt.Selector{probe}})
	require.NoError(t, err)
	_, err = p.Round(0)
	require.NoError(t, err)
	assert.True(t, checked)
}
