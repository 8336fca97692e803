package preempt

import (
	"errors"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/fair"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// smallFake: nodes of 4 GB given as lists of "app:size[:am]" containers
// (1 GB each unless size says otherwise), every app in root.a with a fair
// share of share GB, and app "s" starved for starve GB asking asks.
type fc struct {
	app string
	gb  int64
	am  bool
}

func smallFake(nodes [][]fc, shares map[string]int64, starve int64, asks []fair.Ask) *fakeFair {
	gb := func(n int64) berth.Resource { return berth.New(n*1024, n) }
	f := &fakeFair{containers: map[fair.ContainerID]*fair.ContainerInfo{}, asks: map[string][]fair.Ask{"s": asks}, backoff: map[string]berth.Time{},
		queues: []fair.QueueInfo{{Path: "root"}, {Path: "root.a", Leaf: true, Preemptable: true}}}
	apps := map[string]*fair.AppInfo{}
	for _, id := range []string{"x", "y", "z"} {
		f.apps = append(f.apps, fair.AppInfo{ID: id, Queue: "root.a", FairShare: gb(shares[id])})
	}
	f.apps = append(f.apps, fair.AppInfo{ID: "s", Queue: "root.a", FairShareStarvation: gb(starve), Demand: gb(starve)})
	for i := range f.apps {
		apps[f.apps[i].ID] = &f.apps[i]
	}
	var id fair.ContainerID
	for i, cs := range nodes {
		n := fair.NodeInfo{ID: string(rune('a'+i)) + "-node", Rack: "/r", Capability: gb(4)}
		for _, c := range cs {
			id++
			f.containers[id] = &fair.ContainerInfo{Container: fair.Container{ID: id, App: c.app, Node: n.ID, Queue: "root.a", Resource: gb(c.gb), AM: c.am, Time: berth.Time(id)}, Preemptable: true}
			n.Allocated = n.Allocated.Add(gb(c.gb))
			apps[c.app].Usage = apps[c.app].Usage.Add(gb(c.gb))
			f.queues[0].Usage = f.queues[0].Usage.Add(gb(c.gb))
		}
		f.nodes = append(f.nodes, n)
		f.cluster = f.cluster.Add(n.Capability)
	}
	return f
}

func oneRound(t *testing.T, f *fakeFair, sel FairVictimSelector) *FairRound {
	t.Helper()
	cfg := DefaultFairConfig()
	cfg.Enabled, cfg.UtilizationThreshold = true, 0
	p, err := NewFairPreemptor(FairPreemptorSetup{State: f, Actor: f, Config: cfg, Selector: sel})
	require.NoError(t, err)
	r, err := p.Round(0)
	require.NoError(t, err)
	return r
}

func victims(r *FairRound) []string {
	var out []string
	for _, d := range r.Decisions {
		if d.Action == FairMarked {
			s := d.Container.App + "@" + d.Container.Node
			if d.Container.AM {
				s += "(AM)"
			}
			out = append(out, s)
		}
	}
	return out
}

func TestFairSelectorVectors(t *testing.T) {
	one := berth.New(1024, 1)
	ask := func(name string, count int, strict bool) fair.Ask {
		return fair.Ask{Priority: 1, ResourceName: name, Capability: one, Count: count, StrictLocality: strict}
	}
	anyAsk := ask(fair.AnyResource, 4, false)
	for _, tc := range []struct {
		name   string
		nodes  [][]fc
		shares map[string]int64
		starve int64
		asks   []fair.Ask
		want   []string
		fit    int
	}{
		{name: "AM last on a node: the AM is taken only when nothing else will do",
			nodes:  [][]fc{{{"x", 1, true}, {"x", 1, false}, {"x", 1, false}, {"x", 1, false}}},
			shares: map[string]int64{"x": 0}, starve: 4, asks: []fair.Ask{ask(fair.AnyResource, 4, false)},
			want: []string{"x@a-node", "x@a-node", "x@a-node", "x@a-node(AM)"}},
		{name: "a node without AM victims wins over an earlier one with",
			nodes:  [][]fc{{{"x", 1, true}, {"y", 3, false}}, {{"z", 1, false}, {"z", 1, false}, {"z", 1, false}, {"z", 1, false}}},
			shares: map[string]int64{"x": 0, "y": 3, "z": 0}, starve: 1, asks: []fair.Ask{ask(fair.AnyResource, 1, false)},
			want: []string{"z@b-node"}},
		{name: "host ask with relaxed locality looks elsewhere rather than take an AM",
			nodes:  [][]fc{{{"x", 1, true}, {"y", 3, false}}, {{"z", 1, false}, {"z", 3, false}}},
			shares: map[string]int64{"x": 0, "y": 3, "z": 0}, starve: 1, asks: []fair.Ask{anyAsk, ask("a-node", 1, false)},
			want: []string{"z@b-node"}},
		{name: "host ask with strict locality takes the AM on its node",
			nodes:  [][]fc{{{"x", 1, true}, {"y", 3, false}}, {{"z", 1, false}, {"z", 3, false}}},
			shares: map[string]int64{"x": 0, "y": 3, "z": 0}, starve: 1, asks: []fair.Ask{anyAsk, ask("a-node", 1, true)},
			want: []string{"x@a-node(AM)"}},
		{name: "free room fits without preemption (YARN would still take one container)",
			nodes:  [][]fc{{{"x", 1, false}, {"x", 1, false}}},
			shares: map[string]int64{"x": 0}, starve: 2, asks: []fair.Ask{ask(fair.AnyResource, 2, false)},
			fit: 2},
		{name: "victims of one set never take their app below its fair share",
			nodes:  [][]fc{{{"x", 1, false}, {"x", 1, false}, {"x", 1, false}, {"y", 1, false}}},
			shares: map[string]int64{"x": 2, "y": 0}, starve: 3, asks: []fair.Ask{ask(fair.AnyResource, 3, false)},
			want: []string{"y@a-node", "x@a-node"}}, // x (3 GB, share 2) can give one; the third request is unmet
		{name: "a 2 GB request takes two containers on one node, not one on each",
			nodes:  [][]fc{{{"x", 1, false}, {"y", 3, false}}, {{"z", 1, false}, {"z", 1, false}, {"y", 2, false}}},
			shares: map[string]int64{"x": 0, "y": 5, "z": 0}, starve: 2, asks: []fair.Ask{{Priority: 1, ResourceName: fair.AnyResource, Capability: berth.New(2048, 2), Count: 1}},
			want: []string{"z@b-node", "z@b-node"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := smallFake(tc.nodes, tc.shares, tc.starve, tc.asks)
			r := oneRound(t, f, nil)
			assert.Equal(t, tc.want, victims(r))
			require.Len(t, r.Starved, 1)
			assert.Equal(t, tc.fit, r.Starved[0].Fit)
		})
	}
}

// Reserved resources are respected: a node's reserved container and what
// was preempted there for other starved applications are not free room.
func TestFairReservedRoomIsNotFree(t *testing.T) {
	f := smallFake([][]fc{{{"x", 1, false}, {"x", 1, false}}}, map[string]int64{"x": 0}, 1,
		[]fair.Ask{{Priority: 1, ResourceName: fair.AnyResource, Capability: berth.New(1024, 1), Count: 1}})
	f.resv = []fair.ReservationInfo{{ID: 99, App: "y", Node: "a-node", Resource: berth.New(2048, 2)}}
	r := oneRound(t, f, nil)
	assert.Equal(t, []string{"x@a-node"}, victims(r), "2 GB free but reserved: a container must go")
}

// pickNothing is a custom selector: it never finds room.
type pickNothing struct{ calls int }

func (p *pickNothing) SelectVictims(*FairView, FairRequest) (FairVictimSet, bool) {
	p.calls++
	return FairVictimSet{}, false
}

// pickAll returns every candidate on node 0, even ones it must not.
type pickAll struct{}

func (pickAll) SelectVictims(v *FairView, _ FairRequest) (FairVictimSet, bool) {
	return FairVictimSet{Node: 0, Containers: v.Candidates(0)}, true
}

func TestFairCustomSelectors(t *testing.T) {
	mk := func() *fakeFair {
		return smallFake([][]fc{{{"x", 1, false}, {"x", 1, false}, {"x", 1, false}, {"x", 1, false}}}, map[string]int64{"x": 2}, 2,
			[]fair.Ask{{Priority: 1, ResourceName: fair.AnyResource, Capability: berth.New(1024, 1), Count: 2}})
	}
	sel := &pickNothing{}
	r := oneRound(t, mk(), sel)
	assert.Equal(t, 2, sel.calls, "asked once per starved container")
	assert.Empty(t, r.Decisions)
	assert.Equal(t, 2, r.Starved[0].Unmet)

	f := mk()
	cfg := DefaultFairConfig()
	cfg.Enabled, cfg.UtilizationThreshold = true, 0
	p, err := NewFairPreemptor(FairPreemptorSetup{State: f, Actor: f, Config: cfg, Selector: pickAll{}})
	require.NoError(t, err)
	_, err = p.Round(0)
	require.True(t, errors.Is(err, berth.ErrInvalidArgument), "a selector may not take an app below its share: %v", err)
	for _, c := range f.containers {
		assert.False(t, c.MarkedForPreemption, "a refused set marks nothing")
	}
}

// yarnThenTwice makes room as YARN does once, then returns one container
// twice, which the round must refuse.
type yarnThenTwice struct{ calls int }

func (s *yarnThenTwice) SelectVictims(v *FairView, req FairRequest) (FairVictimSet, bool) {
	s.calls++
	if s.calls == 1 {
		return (&FairYARNSelector{}).SelectVictims(v, req)
	}
	cs := v.Candidates(0)
	return FairVictimSet{Node: 0, Containers: []*fair.ContainerInfo{cs[len(cs)-1], cs[len(cs)-1]}}, true
}

// marksOnce fails every MarkForPreemption after the first.
type marksOnce struct {
	*fakeFair
	calls int
}

func (m *marksOnce) MarkForPreemption(id fair.ContainerID) error {
	if m.calls++; m.calls > 1 {
		return errors.New("scheduler down")
	}
	return m.fakeFair.MarkForPreemption(id)
}

// A round stopped by a refused set or a failing scheduler keeps what it
// marked before, recorded, and starts no back-off for the application it
// was serving.
func TestFairRoundStoppedKeepsWhatWasDone(t *testing.T) {
	mk := func() *fakeFair {
		return smallFake([][]fc{{{"x", 1, false}, {"x", 1, false}, {"x", 1, false}, {"x", 1, false}}}, map[string]int64{"x": 1}, 2,
			[]fair.Ask{{Priority: 1, ResourceName: fair.AnyResource, Capability: berth.New(1024, 1), Count: 2}})
	}
	cfg := DefaultFairConfig()
	cfg.Enabled, cfg.UtilizationThreshold = true, 0
	for _, c := range []struct {
		name  string
		setup func(f *fakeFair) FairPreemptorSetup
		want  error
	}{
		{"refused set", func(f *fakeFair) FairPreemptorSetup {
			return FairPreemptorSetup{State: f, Actor: f, Config: cfg, Selector: &yarnThenTwice{}}
		}, berth.ErrInvalidArgument},
		{"failing scheduler", func(f *fakeFair) FairPreemptorSetup {
			return FairPreemptorSetup{State: f, Actor: &marksOnce{fakeFair: f}, Config: cfg}
		}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := mk()
			p, err := NewFairPreemptor(c.setup(f))
			require.NoError(t, err)
			r, err := p.Round(0)
			require.Error(t, err)
			if c.want != nil {
				assert.ErrorIs(t, err, c.want)
			}
			require.Equal(t, 1, r.Count(FairMarked))
			var marked []fair.ContainerID
			for _, ci := range f.containers {
				if ci.MarkedForPreemption {
					marked = append(marked, ci.ID)
				}
			}
			assert.Equal(t, []fair.ContainerID{r.Decisions[0].Container.ID}, marked)
			assert.Len(t, p.Pending(), 1)
			assert.Empty(t, r.Starved)
			assert.NotContains(t, f.backoff, "s")
		})
	}
}
