package capacity

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// labelConfig gives propConfig's tree two partitions: x (exclusive) and y
// (non-exclusive). a may use both (a1 x only, a2 both, a2's asks default
// to x), b only y (with a share of x it cannot use), c (the plan) none.
func labelConfig(cfg *Config) {
	p := queue.Percent
	cfg.NodeLabels = []NodeLabel{{Name: "x"}, {Name: "y", NonExclusive: true}}
	root := &cfg.Root
	root.Settings.NodeLabels = map[string]LabelSettings{"x": {Capacity: p(100)}, "y": {Capacity: p(100)}}
	a, b, c := &root.Children[0], &root.Children[1], &root.Children[2]
	a.Settings.AccessibleNodeLabels = []string{"x", "y"}
	a.Settings.NodeLabels = map[string]LabelSettings{"x": {Capacity: p(70)}, "y": {Capacity: p(50), MaxCapacity: p(80)}}
	a1, a2 := &a.Children[0], &a.Children[1]
	a1.Settings.AccessibleNodeLabels = []string{"x"}
	a1.Settings.NodeLabels = map[string]LabelSettings{"x": {Capacity: p(50), MaxCapacity: p(70), MaxAMResourcePercent: 0.5}}
	a2.Settings.NodeLabels = map[string]LabelSettings{"x": {Capacity: p(50)}, "y": {Capacity: p(100)}}
	a2.Settings.DefaultNodeLabelExpression = "x"
	b.Settings.AccessibleNodeLabels = []string{"y"}
	b.Settings.NodeLabels = map[string]LabelSettings{"x": {Capacity: p(30)}, "y": {Capacity: p(50)}}
	c.Settings.AccessibleNodeLabels = []string{}
}

// TestLabelsStateRestoreDecidesAsOriginal is the durable-state contract
// with partitions: labelled nodes, label expressions, borrowed containers
// and the per-partition running sums come back exactly.
func TestLabelsStateRestoreDecidesAsOriginal(t *testing.T) {
	seeds := 12
	if testing.Short() {
		seeds = 4
	}
	for seed := uint64(1); seed <= uint64(seeds); seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			checkContract(t, seed, labelConfig, RestoreEnv{Groups: groupsOf{"u0": {"g1"}}})
		})
	}
}

// TestLabelsStatesAreRich: the random labelled states hold containers on
// every partition, borrowed ones among them.
func TestLabelsStatesAreRich(t *testing.T) {
	onPart := map[string]int{}
	borrowed := 0
	for seed := uint64(1); seed <= 12; seed++ {
		s, _, _ := buildRandomWith(t, seed, 50+int(seed)*15, labelConfig)
		for _, c := range s.Snapshot().Containers {
			onPart[s.parts[s.nodes[c.Node].part].name]++
		}
		for _, a := range s.apps {
			borrowed += a.borrowed
		}
	}
	assert.Positive(t, onPart[""])
	assert.Positive(t, onPart["x"])
	assert.Positive(t, onPart["y"])
	assert.Positive(t, borrowed, "containers borrowed from y")
}

// labelStream drives a labelled scheduler with random events and checks,
// on every allocation, what partitions promise: a container runs on its
// ask's partition, or borrows a non-exclusive one for a default-partition
// ask (never for an AM); no queue places on a partition it cannot use; no
// queue holds more than its maximum on a partition except by borrowing.
type labelStream struct {
	t     *testing.T
	r     *rand.Rand
	s     *Scheduler
	nodes map[string]string // id → label
	apps  []string
	// the label expression each (app, priority) asked with last, and the
	// AM's partition per app
	askedOn map[string]map[int32]string
	amOn    map[string]string
	next    int
}

func newLabelStream(t *testing.T, seed uint64) *labelStream {
	r := rand.New(rand.NewPCG(seed, 4242))
	cfg := propConfig(r)
	labelConfig(&cfg)
	cfg.Clock = berth.NewManualClock(0)
	s, err := New(cfg)
	require.NoError(t, err)
	return &labelStream{t: t, r: r, s: s, nodes: map[string]string{}, askedOn: map[string]map[int32]string{}, amOn: map[string]string{}}
}

var streamLeaves = []string{"root.a.a1", "root.a.a2", "root.b", "root.c.c-default"}

func (w *labelStream) step() {
	t, r, s := w.t, w.r, w.s
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	switch op := r.IntN(16); {
	case op < 2 || len(w.nodes) < 2:
		w.next++
		id, l := fmt.Sprintf("n%d", w.next), pick("", "", "x", "y")
		require.NoError(t, s.AddNode(NodeSpec{ID: id, Rack: "/r", Capability: berth.New(int64(4+r.IntN(12))*1024, 16), Label: l}))
		w.nodes[id] = l
	case op < 4:
		w.next++
		id := fmt.Sprintf("app%d", w.next)
		spec := AppSpec{ID: id, Queue: pick(streamLeaves...), User: pick("u0", "u1"), AMResource: berth.New(1024, 1),
			NodeLabelExpression: pick("", "", "x", "y")}
		q, err := s.SubmitApp(spec)
		if err != nil {
			require.ErrorIs(t, err, berth.ErrInvalidArgument, "only a label the queue cannot use is refused")
			return
		}
		w.apps = append(w.apps, id)
		w.askedOn[id] = map[int32]string{}
		w.amOn[id] = partName(s, s.apps[id].amPart)
		require.Equal(t, q, s.apps[id].q.path)
	case op < 8 && len(w.apps) > 0:
		id := w.apps[r.IntN(len(w.apps))]
		prio := int32(1 + r.IntN(3))
		ask := Ask{Priority: prio, ResourceName: AnyResource, Capability: berth.New(int64(1+r.IntN(3))*512, 1), Count: r.IntN(8),
			NodeLabelExpression: pick("", "", "x", "y", queue.NoLabel)}
		if _, err := s.Allocate(id, []Ask{ask}, nil); err != nil {
			require.ErrorIs(t, err, berth.ErrInvalidArgument)
			return
		}
		w.askedOn[id][prio] = partName(s, s.apps[id].asks.Key(prio).Payload.part)
	case op < 14:
		ids := sortedKeys(w.nodes)
		nd := ids[r.IntN(len(ids))]
		var done []ContainerID
		for _, c := range s.Snapshot().Containers {
			if c.Node == nd && r.IntN(6) == 0 {
				done = append(done, c.ID)
			}
		}
		al, err := s.Heartbeat(nd, done)
		require.NoError(t, err)
		for _, a := range al {
			w.checkAllocation(a)
		}
	case op < 15 && len(w.apps) > 0:
		i := r.IntN(len(w.apps))
		_, err := s.FinishApp(w.apps[i])
		require.NoError(t, err)
		w.apps = append(w.apps[:i], w.apps[i+1:]...)
	default:
		w.checkMaximums()
	}
	require.NoError(t, s.Check())
}

func partName(s *Scheduler, p int) string { return s.parts[p].name }

func (w *labelStream) checkAllocation(a Allocation) {
	t, s := w.t, w.s
	node := w.nodes[a.Node]
	// The AM is asked for at priority 0; the application's first
	// container counts as its AM whichever ask it served.
	want := w.askedOn[a.App][a.Priority]
	if a.Priority == 0 {
		want = w.amOn[a.App]
	}
	q := s.byPath[a.Queue]
	switch {
	case want == node:
		require.True(t, q.access.has(node), "%s placed on %q, which it cannot use", a.Queue, node)
	case want == "" && !a.AM && node != "" && s.parts[s.partOf[node]].nonExclusive:
		// a default-partition ask borrowing the non-exclusive partition
	default:
		t.Fatalf("container %d of %s (AM %v) asked on %q runs on %q", a.ID, a.App, a.AM, want, node)
	}
}

// checkMaximums: on an exclusive partition every queue stays within its
// maximum there (nothing borrows it).
func (w *labelStream) checkMaximums() {
	for _, q := range w.s.Snapshot().Queues.Queues {
		for _, p := range q.Extra.Partitions {
			if p.Label == "x" {
				require.LessOrEqual(w.t, p.Used.Memory, p.Maximum.Memory, "%s over its maximum on x", q.Path)
			}
		}
	}
}

func TestLabelsPropertyRandomStreams(t *testing.T) {
	streams, steps := 16, 300
	if testing.Short() {
		streams = 4
	}
	for seed := uint64(1); seed <= uint64(streams); seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			w := newLabelStream(t, seed)
			for range steps {
				w.step()
			}
		})
	}
}

// TestStateReadsOlderVersions restores snapshots written by the scheduler
// before node labels (testdata/state_v<N>.bin, with the state each held in
// state_v<N>.json): body version 1, and version 2 with a reservation
// system and a queue's reservation settings. Each comes back whole, on the
// default partition, and saves in the current version.
func TestStateReadsOlderVersions(t *testing.T) {
	for _, v := range []int{1, 2} {
		t.Run(fmt.Sprint("v", v), func(t *testing.T) {
			b, err := os.ReadFile(fmt.Sprintf("testdata/state_v%d.bin", v))
			require.NoError(t, err)
			var want struct{ Containers, Apps []string }
			j, err := os.ReadFile(fmt.Sprintf("testdata/state_v%d.json", v))
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(j, &want))
			s, err := RestoreScheduler(bytes.NewReader(b), RestoreEnv{Clock: berth.NewManualClock(900)})
			require.NoError(t, err)
			require.NoError(t, s.Check())
			snap := s.Snapshot()
			var got struct{ Containers, Apps []string }
			for _, c := range snap.Containers {
				got.Containers = append(got.Containers, fmt.Sprintf("%d %s %s %s %v", c.ID, c.App, c.Node, c.Queue, c.Resource))
			}
			for _, a := range snap.Apps {
				got.Apps = append(got.Apps, fmt.Sprintf("%s %s %v %v %v %v", a.ID, a.Queue, a.Active, a.Used, a.Pending, a.Headroom))
			}
			assert.Equal(t, want, got)
			cfg := s.Config()
			assert.Empty(t, cfg.NodeLabels)
			if v >= 2 {
				require.NotNil(t, cfg.ReservationSystem)
				assert.True(t, cfg.ReservationSystem.Enabled)
				rs := cfg.Root.Children[0].Settings.Reservation
				require.NotNil(t, rs)
				assert.Equal(t, berth.Duration(3_600_000), rs.Window)
				assert.Equal(t, float32(40), rs.AveragePercent)
			} else {
				assert.Nil(t, cfg.ReservationSystem)
			}
			// It goes on scheduling, and saves in the current version.
			_, err = s.Heartbeat("n0", nil)
			require.NoError(t, err)
			again := saveBytes(t, s)
			cp := restoreBytes(t, again, berth.NewManualClock(900))
			assert.Equal(t, s.Snapshot(), cp.Snapshot())
			assert.Equal(t, s.Config(), cp.Config())
		})
	}
}

// FuzzRestoreOlderVersions feeds arbitrary bodies framed as versions 1
// and 2 (seeded with the stored snapshots, version 2 with and without the
// YARN 3.x block): each is refused as corrupt
// state or restores to a scheduler that passes Check and saves and
// restores stably in the current version.
func FuzzRestoreOlderVersions(f *testing.F) {
	for _, v := range []uint64{1, 2} {
		b, err := os.ReadFile(fmt.Sprintf("testdata/state_v%d.bin", v))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(v), unseal(stateKind, v, b))
	}
	// Version 2 bodies without and with the YARN 3.x block.
	for _, name := range []string{"capacity-v2.snap", "capacity-v2-features.snap"} {
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(2), unseal(stateKind, 2, b))
	}
	f.Fuzz(func(t *testing.T, v uint8, body []byte) {
		if len(body) > maxFuzzState {
			return
		}
		version := uint64(1 + (v+1)%2) // the seeds: 1 and 2
		env := RestoreEnv{Clock: berth.NewManualClock(0), Groups: groupsOf{}}
		s, err := RestoreScheduler(bytes.NewReader(seal(stateKind, version, body)), env)
		if err != nil {
			require.Nil(t, s)
			if !errors.Is(err, berth.ErrInvalidArgument) {
				require.ErrorIs(t, err, berth.ErrCorruptState)
			}
			return
		}
		require.NoError(t, s.Check())
		b := saveBytes(t, s)
		s2, err := RestoreScheduler(bytes.NewReader(b), env)
		require.NoError(t, err)
		require.Equal(t, b, saveBytes(t, s2))
	})
}
