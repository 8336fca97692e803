package preempt

import (
	"fmt"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/fair"
	"github.com/stretchr/testify/require"
)

// fairWorld is a fair scheduler with preemption on, driven on a manual
// clock the way a host would drive it.
type fairWorld struct {
	t     testing.TB
	s     *fair.Scheduler
	clock *berth.ManualClock
	p     *FairPreemptor
	nodes []string
}

func fairAlloc(body string) string {
	return `<?xml version="1.0"?><allocations>` + body + `</allocations>`
}

// newFairWorld builds the scheduler from an allocation file and a
// preemptor with pcfg (Enabled forced on), then adds n nodes of size.
func newFairWorld(t testing.TB, xml string, pcfg FairConfig, n int, size berth.Resource) *fairWorld {
	t.Helper()
	af, err := fair.ParseAllocationFile([]byte(xml), fair.ParseOptions{})
	require.NoError(t, err)
	cfg := fair.DefaultConfig()
	cfg.MaxAllocation = berth.New(1<<20, 1<<10)
	pcfg.Enabled = true
	pcfg.ApplyTo(&cfg)
	clock := berth.NewManualClock(0)
	cfg.Allocation = af
	cfg.Clock = clock
	s, err := fair.New(cfg)
	require.NoError(t, err)
	p, err := NewFairPreemptor(FairPreemptorSetup{State: s, Actor: s, Config: pcfg})
	require.NoError(t, err)
	w := &fairWorld{t: t, s: s, clock: clock, p: p}
	for i := range n {
		id := fmt.Sprintf("n%02d", i)
		require.NoError(t, s.AddNode(fair.NodeSpec{ID: id, Rack: fmt.Sprintf("/r%d", i%2), Capability: size}))
		w.nodes = append(w.nodes, id)
	}
	return w
}

// submit submits an application with a managed AM of am (zero: unmanaged)
// asking count containers of size anywhere at priority 1.
func (w *fairWorld) submit(id, queue string, am, size berth.Resource, count int) {
	w.t.Helper()
	_, err := w.s.SubmitApp(fair.AppSpec{ID: id, Queue: queue, User: "u", AMResource: am})
	require.NoError(w.t, err)
	if count > 0 {
		_, err = w.s.Allocate(id, []fair.Ask{{Priority: 1, ResourceName: fair.AnyResource, Capability: size, Count: count}}, nil)
		require.NoError(w.t, err)
	}
	w.s.Update() // the next heartbeats see the new demand
}

// beatAll heartbeats every node once, in order.
func (w *fairWorld) beatAll() int {
	w.t.Helper()
	n := 0
	for _, id := range w.nodes {
		als, err := w.s.Heartbeat(id, nil)
		require.NoError(w.t, err)
		n += len(als)
	}
	require.NoError(w.t, w.s.Check())
	return n
}

// fill heartbeats until nothing more is placed.
func (w *fairWorld) fill() {
	w.t.Helper()
	for w.beatAll() > 0 {
	}
}

func (w *fairWorld) app(id string) *fair.AppInfo {
	w.t.Helper()
	a := w.s.Snapshot().App(id)
	require.NotNil(w.t, a, "app %s", id)
	return a
}
