package preempt_test

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/capacity"
	"github.com/berthsched/berth/preempt"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// preemptWorld is a capacity scheduler with its proportional policy,
// driven by random host calls and rounds.
type preemptWorld struct {
	s     *capacity.Scheduler
	p     *preempt.Proportional
	clock *berth.ManualClock
}

func newPreemptWorld(t *testing.T, r *rand.Rand) *preemptWorld {
	cfg := capacity.DefaultConfig()
	a := capacity.Queue("a", 40)
	a.Settings.UserLimitFactor = 3
	b := capacity.Queue("b", 30)
	b.Settings.AppOrdering = capacity.OrderFair
	c := capacity.Queue("c", 30)
	c.Settings.MinUserLimitPercent = 50
	cfg.Root.Children = []capacity.QueueConfig{a, b, c}
	cfg.MaximumAMResourcePercent = 0.5
	cfg.NodeLocalityDelay = r.IntN(3)
	clock := berth.NewManualClock(0)
	cfg.Clock = clock
	s, err := capacity.New(cfg)
	require.NoError(t, err)
	for i := 0; i < 6; i++ {
		require.NoError(t, s.AddNode(capacity.NodeSpec{ID: fmt.Sprintf("n%d", i), Rack: fmt.Sprintf("/r%d", i%2),
			Capability: berth.New(8*cGB, 8)}))
	}
	pc := preempt.DefaultProportionalConfig()
	pc.MaxWaitBeforeKill = int64(1000 * (1 + r.IntN(4)))
	pc.TotalPreemptionPerRound = 0.3
	pc.SelectBasedOnReservedContainers = r.IntN(2) == 0
	pc.IntraQueueEnabled = r.IntN(2) == 0
	pc.ForgetUnselected = r.IntN(3) == 0
	no := true
	pc.Queues = map[string]preempt.QueuePreemption{"root.c": {DisableIntraQueuePreemption: &no}}
	p, err := preempt.NewProportional(preempt.ProportionalSetup{State: s, Actor: s, Config: pc})
	require.NoError(t, err)
	return &preemptWorld{s: s, p: p, clock: clock}
}

// step picks a call against w and returns it as a function of any world.
func (w *preemptWorld) step(r *rand.Rand, n int) func(*preemptWorld) string {
	snap := w.s.Snapshot()
	var apps []string
	for _, a := range snap.Apps {
		apps = append(apps, a.ID)
	}
	nodes := []string{"n0", "n1", "n2", "n3", "n4", "n5"}
	out := func(v any, err error) string {
		if err != nil {
			return "error: " + err.Error()
		}
		return fmt.Sprintf("%+v", v)
	}
	switch k := r.IntN(12); {
	case k < 2 || len(apps) == 0:
		spec := capacity.AppSpec{ID: fmt.Sprintf("app%d", n), Queue: []string{"a", "b", "c"}[r.IntN(3)],
			User: fmt.Sprintf("u%d", r.IntN(3)), Priority: int32(r.IntN(3)), AMResource: berth.New(cGB, 1)}
		return func(x *preemptWorld) string { return out(x.s.SubmitApp(spec)) }
	case k < 4:
		id := apps[r.IntN(len(apps))]
		ask := capacity.Ask{Priority: int32(1 + r.IntN(2)), ResourceName: capacity.AnyResource,
			Capability: berth.New(int64(512*(1+r.IntN(6))), 1), Count: r.IntN(12)}
		return func(x *preemptWorld) string { return out(x.s.Allocate(id, []capacity.Ask{ask}, nil)) }
	case k < 8:
		nd := nodes[r.IntN(len(nodes))]
		var done []capacity.ContainerID
		for _, c := range snap.Containers {
			if c.Node == nd && r.IntN(12) == 0 {
				done = append(done, c.ID)
			}
		}
		return func(x *preemptWorld) string { return out(x.s.Heartbeat(nd, done)) }
	case k == 8 && r.IntN(3) == 0:
		id := apps[r.IntN(len(apps))]
		return func(x *preemptWorld) string { return out(x.s.FinishApp(id)) }
	case k == 8 && r.IntN(2) == 0:
		id, to := apps[r.IntN(len(apps))], []string{"a", "b", "c"}[r.IntN(3)]
		return func(x *preemptWorld) string { return out(x.s.MoveApp(id, to)) }
	case k == 8:
		// a node leaves (its containers are lost) or comes back
		nd := nodes[r.IntN(len(nodes))]
		return func(x *preemptWorld) string {
			if ended, err := x.s.RemoveNode(nd); err == nil {
				return out(ended, nil)
			}
			return out(nil, x.s.AddNode(capacity.NodeSpec{ID: nd, Rack: "/r0", Capability: berth.New(8*cGB, 8)}))
		}
	case k == 9 && r.IntN(4) == 0:
		cfg := w.s.Config()
		cfg.Root.Children[1].Settings.AppOrdering = capacity.AppOrdering(r.IntN(2))
		cfg.Root.Children[2].Settings.UserLimitFactor = float64(1 + r.IntN(2))
		pc := w.p.Config()
		pc.MaxWaitBeforeKill = int64(1000 * (1 + r.IntN(4)))
		return func(x *preemptWorld) string {
			ch, err := x.s.Reconfigure(cfg)
			return out(ch, err) + out(nil, x.p.Reconfigure(pc))
		}
	default:
		return func(x *preemptWorld) string {
			rep, err := x.p.Round(x.clock.Now())
			if err != nil {
				return out(nil, err)
			}
			return reportText(rep) + out(x.p.Marked(), nil)
		}
	}
}

// reportText is a round's report without the pointers it carries.
func reportText(r *preempt.ProportionalReport) string {
	s := fmt.Sprintf("t=%d budget=%v left=%v queues=%+v ended=%+v forgotten=%v", r.Time, r.Budget, r.Left, r.Queues, r.Ended, r.Forgotten)
	for _, d := range r.Decisions {
		s += fmt.Sprintf(" [%+v res=%v sel=%s %s first=%d]", d.Container, d.Reservation, d.Selector, d.Action, d.FirstMarked)
	}
	return s
}

func (w *preemptWorld) save(t *testing.T) (sched, pol []byte) {
	var a, b bytes.Buffer
	require.NoError(t, w.s.SaveState(&a))
	require.NoError(t, w.p.SaveState(&b))
	return a.Bytes(), b.Bytes()
}

func (w *preemptWorld) restore(t *testing.T, sched, pol []byte) *preemptWorld {
	s, err := capacity.RestoreScheduler(bytes.NewReader(sched), capacity.RestoreEnv{Clock: w.clock})
	require.NoError(t, err)
	p, err := preempt.RestoreProportional(bytes.NewReader(pol), preempt.ProportionalSetup{State: s, Actor: s})
	require.NoError(t, err)
	return &preemptWorld{s: s, p: p, clock: w.clock}
}

// The contract for the pair: restored from their snapshots mid-stream
// (with marks waiting for their kill time), the scheduler and its policy
// make the same allocations, marks and kills as the originals, and save
// the same bytes afterwards.
func TestProportionalRestoreDecidesAsOriginal(t *testing.T) {
	marksSeen, kills := 0, 0
	seeds := uint64(16)
	if testing.Short() || raceEnabled {
		seeds = 6
	}
	for seed := uint64(1); seed <= seeds; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 5))
			w := newPreemptWorld(t, r)
			n := 0
			// run on until a mark waits for its kill time (or give up)
			for i := 0; i < 120 || (len(w.p.Marked()) == 0 && i < 800); i++ {
				w.clock.Advance(int64(r.IntN(600)))
				n++
				w.step(r, n)(w)
			}
			marksSeen += len(w.p.Marked())
			sb, pb := w.save(t)
			cp := w.restore(t, sb, pb)
			sb2, pb2 := cp.save(t)
			require.Equal(t, sb, sb2)
			require.Equal(t, pb, pb2)
			require.Equal(t, w.p.Marked(), cp.p.Marked())
			var origEvents, cpEvents preemptLog
			w.p.SetObserver(&origEvents)
			cp.p.SetObserver(&cpEvents)
			for i := 0; i < 150; i++ {
				w.clock.Advance(int64(r.IntN(600)))
				n++
				f := w.step(r, n)
				want := f(w)
				require.Equal(t, want, f(cp), "step %d", i)
				require.Equal(t, origEvents, cpEvents, "events of step %d", i)
				kills += strings.Count(want, " killed ")
			}
			sa, pa := w.save(t)
			sc, pc := cp.save(t)
			require.Equal(t, sa, sc)
			require.Equal(t, pa, pc)
		})
	}
	assert.Positive(t, marksSeen, "some snapshots hold marked containers")
	assert.Positive(t, kills, "restored policies kill containers")
}

func TestProportionalStateCorruption(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	w := newPreemptWorld(t, r)
	for i := 0; i < 150; i++ {
		w.clock.Advance(int64(r.IntN(600)))
		w.step(r, i)(w)
	}
	_, pb := w.save(t)
	for n := 0; n < len(pb); n++ {
		p, err := preempt.RestoreProportional(bytes.NewReader(pb[:n]), preempt.ProportionalSetup{State: w.s, Actor: w.s})
		require.ErrorIs(t, err, berth.ErrCorruptState, "truncated at %d", n)
		require.Nil(t, p)
	}
	for i := 0; i < len(pb)*8; i += 3 {
		c := slices.Clone(pb)
		c[i/8] ^= 1 << (i % 8)
		p, err := preempt.RestoreProportional(bytes.NewReader(c), preempt.ProportionalSetup{State: w.s, Actor: w.s})
		require.Error(t, err, "flip of bit %d", i)
		require.Nil(t, p)
	}
	// another kind, a newer version
	var buf bytes.Buffer
	require.NoError(t, berth.NewStateEncoder(&buf, "preempt.FairPreemptor", 1).Finish())
	_, err := preempt.RestoreProportional(bytes.NewReader(buf.Bytes()), preempt.ProportionalSetup{State: w.s, Actor: w.s})
	require.ErrorIs(t, err, berth.ErrInvalidArgument)
	buf.Reset()
	require.NoError(t, berth.NewStateEncoder(&buf, "preempt.Proportional", 2).Finish())
	_, err = preempt.RestoreProportional(bytes.NewReader(buf.Bytes()), preempt.ProportionalSetup{State: w.s, Actor: w.s})
	require.ErrorIs(t, err, berth.ErrUnsupportedVersion)
}

// A host's selector chain is not in the snapshot: the host passes it
// again, and a chain that does not match the saved names is refused.
func TestProportionalStateCustomSelectors(t *testing.T) {
	s, _, _ := starvingCapacityCluster(t)
	p, err := preempt.NewProportional(preempt.ProportionalSetup{State: s, Actor: s, Config: preempt.DefaultProportionalConfig(), Selectors: []preempt.Selector{preempt.FIFOSelector{}}})
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, p.SaveState(&buf))
	_, err = preempt.RestoreProportional(bytes.NewReader(buf.Bytes()), preempt.ProportionalSetup{State: s, Actor: s})
	require.ErrorIs(t, err, berth.ErrInvalidArgument)
	_, err = preempt.RestoreProportional(bytes.NewReader(buf.Bytes()), preempt.ProportionalSetup{State: s, Actor: s, Selectors: []preempt.Selector{preempt.IntraQueueSelector{}}})
	require.ErrorIs(t, err, berth.ErrInvalidArgument)
	q, err := preempt.RestoreProportional(bytes.NewReader(buf.Bytes()), preempt.ProportionalSetup{State: s, Actor: s, Selectors: []preempt.Selector{preempt.FIFOSelector{}}})
	require.NoError(t, err)
	assert.Equal(t, p.Config(), q.Config())
	_, err = preempt.RestoreProportional(bytes.NewReader(buf.Bytes()), preempt.ProportionalSetup{})
	require.ErrorIs(t, err, berth.ErrInvalidArgument)
}

// Every configuration field is in the snapshot: a field added to
// ProportionalConfig must be added to SaveState too (this count fails
// first).
func TestProportionalStateCoversConfig(t *testing.T) {
	assert.Equal(t, 21, reflect.TypeFor[preempt.ProportionalConfig]().NumField())
	s, _, _ := starvingCapacityCluster(t)
	cfg := preempt.ProportionalConfig{MonitoringInterval: 1, MaxWaitBeforeKill: 2, TotalPreemptionPerRound: 0.3,
		MaxIgnoredOverCapacity: 0.4, NaturalTerminationFactor: 0.5, ObserveOnly: true, SelectBasedOnReservedContainers: true,
		AdditionalBalanceBasedOnReserved: true, IntraQueueEnabled: true, IntraQueueMinimumThreshold: 0.6,
		IntraQueueMaxAllowableLimit: 0.7, IntraQueueOrder: preempt.PriorityFirst, ConservativeDRF: true,
		IntraQueueConservativeDRF: true, BalanceAfterSatisfied: true, BalanceMaxWaitBeforeKill: 3, PriorityPreemption: true,
		PriorityReservedContainerDelay: 4, PriorityAllowMoveReservation: true, ForgetUnselected: true}
	yes, no := true, false
	cfg.Queues = map[string]preempt.QueuePreemption{"root.a": {DisablePreemption: &yes}, "root.b": {DisableIntraQueuePreemption: &no}}
	p, err := preempt.NewProportional(preempt.ProportionalSetup{State: s, Actor: s, Config: cfg})
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, p.SaveState(&buf))
	q, err := preempt.RestoreProportional(bytes.NewReader(buf.Bytes()), preempt.ProportionalSetup{State: s, Actor: s})
	require.NoError(t, err)
	assert.Equal(t, cfg, q.Config())
}

func FuzzRestoreProportional(f *testing.F) {
	cfg := capacity.DefaultConfig()
	cfg.Clock = berth.NewManualClock(0)
	s, err := capacity.New(cfg)
	require.NoError(f, err)
	p, err := preempt.NewProportional(preempt.ProportionalSetup{State: s, Actor: s, Config: preempt.DefaultProportionalConfig()})
	require.NoError(f, err)
	var buf bytes.Buffer
	require.NoError(f, p.SaveState(&buf))
	f.Add(buf.Bytes())
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := preempt.RestoreProportional(bytes.NewReader(data), preempt.ProportionalSetup{State: s, Actor: s})
		if err != nil {
			require.Nil(t, p)
			return
		}
		var a, b bytes.Buffer
		require.NoError(t, p.SaveState(&a))
		q, err := preempt.RestoreProportional(bytes.NewReader(a.Bytes()), preempt.ProportionalSetup{State: s, Actor: s})
		require.NoError(t, err)
		require.NoError(t, q.SaveState(&b))
		require.Equal(t, a.Bytes(), b.Bytes())
	})
}

// Saving the proportional policy with a container marked, restoring it
// next to its restored scheduler, and letting the restored pair kill the
// container once its kill wait has run from the original mark.
func ExampleRestoreProportional() {
	clock := berth.NewManualClock(0)
	cfg := capacity.DefaultConfig()
	cfg.Root.Children = []capacity.QueueConfig{capacity.Queue("a", 50), capacity.Queue("b", 50)}
	cfg.Root.Children[0].Settings.UserLimitFactor = 2
	cfg.MaxOffSwitchAssignments = 8
	cfg.MaximumAMResourcePercent = 1
	cfg.Clock = clock
	s, _ := capacity.New(cfg)
	_ = s.AddNode(capacity.NodeSpec{ID: "n1", Rack: "/r1", Capability: berth.New(8192, 8)})
	one := berth.New(1024, 1)
	for _, q := range []string{"a", "b"} {
		_, _ = s.SubmitApp(capacity.AppSpec{ID: q + "1", Queue: q, User: q})
	}
	_, _ = s.Allocate("a1", []capacity.Ask{{Priority: 1, ResourceName: capacity.AnyResource, Capability: one, Count: 8}}, nil)
	_, _ = s.Heartbeat("n1", nil) // a takes the whole node
	_, _ = s.Allocate("b1", []capacity.Ask{{Priority: 1, ResourceName: capacity.AnyResource, Capability: one, Count: 4}}, nil)
	pc := preempt.DefaultProportionalConfig()
	pc.TotalPreemptionPerRound = 1
	pc.NaturalTerminationFactor = 1
	p, _ := preempt.NewProportional(preempt.ProportionalSetup{State: s, Actor: s, Config: pc})
	rep, _ := p.Round(clock.Now())
	fmt.Println("marked:", len(rep.Decisions))

	var ss, ps bytes.Buffer
	_ = s.SaveState(&ss)
	_ = p.SaveState(&ps)
	s2, err := capacity.RestoreScheduler(&ss, capacity.RestoreEnv{Clock: clock})
	if err != nil {
		panic(err)
	}
	p2, err := preempt.RestoreProportional(&ps, preempt.ProportionalSetup{State: s2, Actor: s2})
	if err != nil {
		panic(err)
	}
	clock.Advance(pc.MaxWaitBeforeKill)
	rep, _ = p2.Round(clock.Now())
	fmt.Println("killed:", len(rep.Ended))
	// Output:
	// marked: 4
	// killed: 4
}

// Every single-bit change of the policy's body, in a valid frame, is
// refused as corrupt (or as an unknown selector chain) or gives a policy
// that saves the same bytes again.
func TestProportionalStateSealedBitFlips(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	w := newPreemptWorld(t, r)
	for i := 0; i < 200 || (len(w.p.Marked()) == 0 && i < 800); i++ {
		w.clock.Advance(int64(r.IntN(600)))
		w.step(r, i)(w)
	}
	require.NotEmpty(t, w.p.Marked())
	_, pb := w.save(t)
	var hdr bytes.Buffer
	require.NoError(t, berth.NewStateEncoder(&hdr, "preempt.Proportional", 1).Finish())
	head := hdr.Len() - 16
	body := pb[head : len(pb)-16]
	seal := func(body []byte) []byte {
		out := slices.Clone(hdr.Bytes()[:head])
		out = append(out, body...)
		out = append(out, "BEND"...)
		out = binary.LittleEndian.AppendUint64(out, uint64(len(out)-4))
		return binary.LittleEndian.AppendUint32(out, crc32.Checksum(out, crc32.MakeTable(crc32.Castagnoli)))
	}
	require.Equal(t, pb, seal(body))
	for bit := 0; bit < len(body)*8; bit++ {
		c := slices.Clone(body)
		c[bit/8] ^= 1 << (bit % 8)
		p, err := preempt.RestoreProportional(bytes.NewReader(seal(c)), preempt.ProportionalSetup{State: w.s, Actor: w.s})
		if err != nil {
			require.Nil(t, p)
			if !errors.Is(err, berth.ErrInvalidArgument) {
				require.ErrorIs(t, err, berth.ErrCorruptState, "bit %d", bit)
			}
			continue
		}
		var a, b bytes.Buffer
		require.NoError(t, p.SaveState(&a))
		q, err := preempt.RestoreProportional(bytes.NewReader(a.Bytes()), preempt.ProportionalSetup{State: w.s, Actor: w.s})
		require.NoError(t, err, "bit %d", bit)
		require.NoError(t, q.SaveState(&b))
		require.Equal(t, a.Bytes(), b.Bytes(), "bit %d", bit)
	}
}

// preemptLog records a policy's events as text.
type preemptLog []string

func (l *preemptLog) ObservePreemption(e preempt.PreemptionEvent) {
	*l = append(*l, fmt.Sprintf("%+v", e))
}

// A host writes the scheduler's and the policy's snapshots one after the
// other into one stream; read through one bufio.Reader, each restore stops
// at its own trailer.
func TestProportionalStateSharedStream(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 5))
	w := newPreemptWorld(t, r)
	for i := 0; i < 150; i++ {
		w.clock.Advance(int64(r.IntN(600)))
		w.step(r, i)(w)
	}
	var stream bytes.Buffer
	require.NoError(t, w.s.SaveState(&stream))
	require.NoError(t, w.p.SaveState(&stream))
	br := bufio.NewReader(&stream)
	s, err := capacity.RestoreScheduler(br, capacity.RestoreEnv{Clock: w.clock})
	require.NoError(t, err)
	p, err := preempt.RestoreProportional(br, preempt.ProportionalSetup{State: s, Actor: s})
	require.NoError(t, err)
	sb, pb := w.save(t)
	got := &preemptWorld{s: s, p: p, clock: w.clock}
	sb2, pb2 := got.save(t)
	assert.Equal(t, sb, sb2)
	assert.Equal(t, pb, pb2)
}
