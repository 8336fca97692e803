package capacity

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// twin drives a scheduler with random operations (the property test's
// vocabulary) and records every answer, so that two schedulers fed the
// same operations can be compared call by call.
type twin struct {
	r     *rand.Rand
	nextN int
	nextA int
	nextR int
	// treeChanges counts reconfigurations that added or removed queues
	treeChanges int
	// labels: the configuration has node labels (labelConfig); nodes,
	// applications and asks then carry labels too
	labels bool
}

// label draws a node label, an application's or an ask's label expression.
func (tw *twin) label(of ...string) string {
	if !tw.labels {
		return ""
	}
	return of[tw.r.IntN(len(of))]
}

// op is one host call, chosen against the reference scheduler ref and
// applied to any scheduler; it returns the call's answer as text.
type op func(s *Scheduler) string

func answer(v any, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	return fmt.Sprintf("%+v", v)
}

func (tw *twin) next(ref *Scheduler, clock *berth.ManualClock) op {
	r := tw.r
	snap := ref.Snapshot()
	var apps, nodes []string
	for _, a := range snap.Apps {
		apps = append(apps, a.ID)
	}
	for _, n := range snap.Nodes {
		nodes = append(nodes, n.ID)
	}
	leaves := []string{"a1", "a2", "a3", "b", "c", "res_1", "c-default"}
	pick := func(xs []string) string { return xs[r.IntN(len(xs))] }
	advance := int64(r.IntN(700))
	wrap := func(f op) op {
		return func(s *Scheduler) string { return f(s) }
	}
	_ = clock
	_ = advance
	switch k := r.IntN(24); {
	case k < 2 || len(nodes) == 0:
		tw.nextN++
		spec := NodeSpec{ID: fmt.Sprintf("n%d", tw.nextN), Rack: fmt.Sprintf("/r%d", r.IntN(3)),
			Capability: berth.New(int64(2+r.IntN(15))*1024, int64(2+r.IntN(15))), Label: tw.label("", "", "x", "y")}
		return wrap(func(s *Scheduler) string { return answer(nil, s.AddNode(spec)) })
	case k == 2 && len(nodes) > 1:
		id := pick(nodes)
		return wrap(func(s *Scheduler) string { return answer(s.RemoveNode(id)) })
	case k < 6:
		tw.nextA++
		spec := AppSpec{ID: fmt.Sprintf("app%d", tw.nextA), Queue: pick(leaves), User: fmt.Sprintf("u%d", r.IntN(3)),
			Priority: int32(r.IntN(3))}
		if r.IntN(2) == 0 {
			spec.AMResource = berth.New(int64(1+r.IntN(2))*1024, 1)
		}
		if spec.Queue == "c" && r.IntN(2) == 0 {
			spec.ReservationID = "res_1"
		}
		if r.IntN(3) == 0 {
			spec.Groups = []string{"g" + fmt.Sprint(r.IntN(2))}
		}
		spec.NodeLabelExpression = tw.label("", "", "x", "y", queue.NoLabel)
		return wrap(func(s *Scheduler) string { return answer(s.SubmitApp(spec)) })
	case k < 10 && len(apps) > 0:
		id := pick(apps)
		prio := int32(1 + r.IntN(3))
		capR := berth.New(int64(256*(1+r.IntN(16))), int64(1+r.IntN(4)))
		n := r.IntN(6)
		asks := []Ask{{Priority: prio, ResourceName: AnyResource, Capability: capR, Count: n, StrictLocality: r.IntN(8) == 0,
			NodeLabelExpression: tw.label("", "", "x", "y", queue.NoLabel)}}
		if r.IntN(2) == 0 {
			asks = append(asks, Ask{Priority: prio, ResourceName: pick(nodes), Capability: capR, Count: n},
				Ask{Priority: prio, ResourceName: fmt.Sprintf("/r%d", r.IntN(3)), Capability: capR, Count: n, StrictLocality: r.IntN(6) == 0})
		}
		if r.IntN(5) == 0 { // a host ask before the node exists
			asks = append(asks, Ask{Priority: prio, ResourceName: fmt.Sprintf("n%d", tw.nextN+1), Capability: capR, Count: 1})
		}
		var release []ContainerID
		for _, c := range snap.Containers {
			if c.App == id && r.IntN(4) == 0 {
				release = append(release, c.ID)
			}
		}
		return wrap(func(s *Scheduler) string { return answer(s.Allocate(id, asks, release)) })
	case k < 18:
		nd := pick(nodes)
		var done []ContainerID
		for _, c := range snap.Containers {
			if c.Node == nd && r.IntN(5) == 0 {
				done = append(done, c.ID)
			}
		}
		return wrap(func(s *Scheduler) string { return answer(s.Heartbeat(nd, done)) })
	case k == 18 && len(apps) > 0:
		id := pick(apps)
		return wrap(func(s *Scheduler) string { return answer(s.FinishApp(id)) })
	case k == 19 && len(apps) > 0:
		id, to := pick(apps), pick(leaves)
		return wrap(func(s *Scheduler) string { return answer(s.MoveApp(id, to)) })
	case k == 20 && len(snap.Containers) > 0:
		c := snap.Containers[r.IntN(len(snap.Containers))]
		if r.IntN(2) == 0 {
			return wrap(func(s *Scheduler) string { return answer(nil, s.MarkForPreemption(c.ID)) })
		}
		return wrap(func(s *Scheduler) string { return answer(s.PreemptContainer(c.ID)) })
	case k == 21:
		// reservation queues come and go, entitlements move
		switch r.IntN(3) {
		case 0:
			tw.nextR++
			name := fmt.Sprintf("res_x%d", tw.nextR)
			return wrap(func(s *Scheduler) string { return answer(nil, s.AddReservationQueue("c", name)) })
		case 1:
			e := Entitlement{Capacity: float32(r.IntN(5)) / 10, MaxCapacity: 1}
			q := pick([]string{"res_1", "c-default", fmt.Sprintf("res_x%d", max(tw.nextR, 1))})
			return wrap(func(s *Scheduler) string { return answer(nil, s.SetEntitlement(q, e)) })
		default:
			q := fmt.Sprintf("res_x%d", 1+r.IntN(max(tw.nextR, 1)))
			return wrap(func(s *Scheduler) string { return answer(nil, s.RemoveReservationQueue(q)) })
		}
	case k == 22:
		cfg := ref.Config()
		if r.IntN(2) == 0 { // a third leaf under a comes and goes (it must be stopped to go)
			a := &cfg.Root.Children[0]
			if len(a.Children) == 2 {
				a.Children[1].Capacity = queueP(30)
				a.Children = append(a.Children, Queue("a3", 20))
			} else if a.Children[2].State != queue.StateStopped {
				a.Children[2].State = queue.StateStopped
			} else {
				a.Children[1].Capacity = queueP(50)
				a.Children = a.Children[:2]
			}
		}
		// the plan's settings change; its reservation queues keep theirs
		c := &cfg.Root.Children[2]
		c.Settings.MaxAMResourcePercent = float64(1+r.IntN(9)) / 10
		c.Settings.UserWeights = map[string]float64{"u0": float64(1+r.IntN(4)) / 2}
		b := &cfg.Root.Children[1]
		b.Settings.AppOrdering = AppOrdering(r.IntN(2))
		b.Settings.UserLimitFactor = float64(1 + r.IntN(3))
		b.Settings.UserWeights = map[string]float64{"u1": float64(1+r.IntN(3)) / 2}
		cfg.NodeLocalityDelay = r.IntN(4)
		cfg.Root.Children[0].Settings.ChildOrdering = ChildOrdering(r.IntN(2))
		return wrap(func(s *Scheduler) string {
			ch, err := s.Reconfigure(cfg)
			if err == nil && len(ch.Added)+len(ch.Removed) > 0 {
				tw.treeChanges++
			}
			return answer(ch, err)
		})
	default:
		if len(apps) > 0 && r.IntN(2) == 0 {
			id := pick(apps)
			return wrap(func(s *Scheduler) string {
				h, err := s.Headroom(id)
				ul, err2 := s.UserLimit("b", "u1")
				p, err3 := s.PendingWithinUserLimits("a1", true)
				return answer([]any{h, ul, p}, errors.Join(err, err2, err3))
			})
		}
		return wrap(func(s *Scheduler) string { return answer(s.PreemptionState(), nil) })
	}
}

func stateConfig(r *rand.Rand) Config {
	cfg := propConfig(r)
	cfg.Placement.Mappings = []QueueMapping{{Kind: MapUser, Source: "u2", Queue: "a2"}}
	cfg.Groups = groupsOf{"u0": {"g1"}}
	cfg.Root.Children[0].Settings.ChildOrdering = OrderPriorityUtilization
	cfg.Root.Children[0].Children[0].Settings.Priority = 1
	return cfg
}

// groupsOf is a host's groups provider.
type groupsOf map[string][]string

func (g groupsOf) GroupsOf(u string) []string { return g[u] }

func saveBytes(t *testing.T, s *Scheduler) []byte {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, s.SaveState(&buf))
	return buf.Bytes()
}

func restoreBytes(t *testing.T, b []byte, clock berth.Clock) *Scheduler {
	t.Helper()
	s, err := RestoreScheduler(bytes.NewReader(b), RestoreEnv{Clock: clock, Groups: groupsOf{"u0": {"g1"}}})
	require.NoError(t, err)
	return s
}

// buildRandom runs steps random operations on a fresh scheduler.
func buildRandom(t testing.TB, seed uint64, steps int) (*Scheduler, *berth.ManualClock, *twin) {
	return buildRandomWith(t, seed, steps, nil)
}

func buildRandomWith(t testing.TB, seed uint64, steps int, mutate func(*Config)) (*Scheduler, *berth.ManualClock, *twin) {
	r := rand.New(rand.NewPCG(seed, 77))
	clock := berth.NewManualClock(0)
	cfg := stateConfig(r)
	if mutate != nil {
		mutate(&cfg)
	}
	cfg.Clock = clock
	s, err := New(cfg)
	require.NoError(t, err)
	require.NoError(t, s.AddReservationQueue("c", "res_1"))
	require.NoError(t, s.SetEntitlement("c-default", Entitlement{Capacity: 0.5, MaxCapacity: 1}))
	require.NoError(t, s.SetEntitlement("res_1", Entitlement{Capacity: 0.5, MaxCapacity: 1}))
	tw := &twin{r: r, labels: len(cfg.NodeLabels) > 0}
	for i := 0; i < steps; i++ {
		clock.Advance(int64(r.IntN(700)))
		tw.next(s, clock)(s)
	}
	require.NoError(t, s.Check())
	return s, clock, tw
}

// The contract: after a save and a restore, the original and the restored
// scheduler answer every further call identically, and their later
// snapshots are byte-identical.
func TestStateRestoreDecidesAsOriginal(t *testing.T) {
	seeds := 24
	if testing.Short() || raceEnabled {
		seeds = 6
	}
	for seed := uint64(1); seed <= uint64(seeds); seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			checkContract(t, seed, nil, RestoreEnv{Groups: groupsOf{"u0": {"g1"}}})
		})
	}
}

// byUserThenID is a host's application ordering without a sort key: by
// user name, then by id, descending.
type byUserThenID struct{}

func (byUserThenID) Name() string { return "by-user" }
func (byUserThenID) Compare(a, b AppView) int {
	if c := strings.Compare(b.User(), a.User()); c != 0 {
		return c
	}
	return strings.Compare(b.ID(), a.ID())
}

// mostUsedFirst is a host's child ordering without a sort key.
type mostUsedFirst struct{}

func (mostUsedFirst) Name() string { return "most-used" }
func (mostUsedFirst) Compare(a, b QueueView) int {
	return cmpSeq(uint64(b.Used().Memory), uint64(a.Used().Memory))
}

// Host ordering policies and a host calculator come back by name from the
// environment, and the restored scheduler still decides as the original.
func TestStateRestoreHostPolicies(t *testing.T) {
	apps, kids := &AppOrderings{}, &ChildOrderings{}
	require.NoError(t, apps.Register("by-user", byUserThenID{}))
	require.NoError(t, kids.Register("most-used", mostUsedFirst{}))
	mutate := func(c *Config) {
		c.Root.Children[1].Settings.AppOrderingPolicy = byUserThenID{}
		c.Root.Settings.ChildOrderingPolicy = mostUsedFirst{}
		c.Root.Children[0].Settings.AppOrderingPolicy = OrderFair.Policy(true) // a built-in set as a value
		c.Calculator = hostCalc{}
	}
	for seed := uint64(1); seed <= 6; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			checkContract(t, seed, mutate, RestoreEnv{Groups: groupsOf{"u0": {"g1"}},
				AppOrderings: apps, ChildOrderings: kids, Calculator: hostCalc{}})
		})
	}
	// without them, the restore names what is missing
	orig, clock, _ := buildRandomWith(t, 1, 30, mutate)
	b := saveBytes(t, orig)
	for _, env := range []RestoreEnv{
		{Groups: groupsOf{}, ChildOrderings: kids, Calculator: hostCalc{}},
		{Groups: groupsOf{}, AppOrderings: apps, Calculator: hostCalc{}},
		{Groups: groupsOf{}, AppOrderings: apps, ChildOrderings: kids},
	} {
		env.Clock = clock
		s, err := RestoreScheduler(bytes.NewReader(b), env)
		require.ErrorIs(t, err, berth.ErrInvalidArgument)
		require.NotErrorIs(t, err, berth.ErrCorruptState)
		require.Nil(t, s)
	}
}

// hostCalc is a host's calculator: the dominant one under another type.
type hostCalc struct{ berth.DominantCalculator }

// checkContract runs a random stream, saves, restores with env and feeds
// the original and the restored scheduler the same further calls.
func checkContract(t *testing.T, seed uint64, mutate func(*Config), env RestoreEnv) {
	orig, clock, tw := buildRandomWith(t, seed, 50+int(seed)*15, mutate)
	b := saveBytes(t, orig)
	env.Clock = clock
	cp, err := RestoreScheduler(bytes.NewReader(b), env)
	require.NoError(t, err)
	require.Equal(t, b, saveBytes(t, cp), "a restored scheduler saves the same bytes")
	assert.Equal(t, orig.Snapshot(), cp.Snapshot())
	// the observers see the same decisions too
	var origEvents, cpEvents eventLog
	orig.SetObserver(&origEvents)
	cp.SetObserver(&cpEvents)
	for i := 0; i < 200; i++ {
		clock.Advance(int64(tw.r.IntN(700)))
		o := tw.next(orig, clock)
		want, got := o(orig), o(cp)
		require.Equal(t, want, got, "step %d", i)
		require.Equal(t, origEvents, cpEvents, "events of step %d", i)
		if i%25 == 24 {
			require.Equal(t, saveBytes(t, orig), saveBytes(t, cp), "snapshots after step %d", i)
			require.NoError(t, cp.Check())
		}
	}
	require.Equal(t, saveBytes(t, orig), saveBytes(t, cp))
	require.NotEmpty(t, origEvents)
}

// The random states hold what the contract is about: pending asks,
// reservations, delay counters, marked containers, waiting applications.
func TestStateRandomStatesAreRich(t *testing.T) {
	var resv, marked, waiting, missed, changes, resQueues int
	for seed := uint64(1); seed <= 24; seed++ {
		s, _, tw := buildRandom(t, seed, 50+int(seed)*15)
		changes += tw.treeChanges
		names, err := s.ReservationQueueNames("c")
		require.NoError(t, err)
		resQueues += len(names) - 2
		snap := s.Snapshot()
		resv += len(snap.Reservations)
		for _, c := range snap.Containers {
			if c.MarkedForPreemption {
				marked++
			}
		}
		for _, a := range s.apps {
			if a.state == appPending {
				waiting++
			}
			for _, k := range a.asks.Keys() {
				if k.Payload.missed > 0 {
					missed++
				}
			}
		}
	}
	assert.Positive(t, resv, "reservations")
	assert.Positive(t, marked, "marked containers")
	assert.Positive(t, waiting, "applications waiting for activation")
	assert.Positive(t, missed, "missed scheduling opportunities")
	assert.Positive(t, changes, "reconfigurations that added or removed a queue")
	assert.Positive(t, resQueues, "reservation queues added at run time")
}

func TestStateRestoreEmptyAndDefault(t *testing.T) {
	clock := berth.NewManualClock(5)
	cfg := DefaultConfig()
	cfg.Clock = clock
	s, err := New(cfg)
	require.NoError(t, err)
	b := saveBytes(t, s)
	cp, err := RestoreScheduler(bytes.NewReader(b), RestoreEnv{Clock: clock})
	require.NoError(t, err)
	assert.Equal(t, b, saveBytes(t, cp))
	assert.Equal(t, s.Config().Root, cp.Config().Root)
}

func TestStateCorruption(t *testing.T) {
	orig, clock, _ := buildRandom(t, 3, 120)
	b := saveBytes(t, orig)
	env := RestoreEnv{Clock: clock, Groups: groupsOf{}}
	step := max(1, len(b)/300)
	for n := 0; n < len(b); n += step {
		s, err := RestoreScheduler(bytes.NewReader(b[:n]), env)
		require.ErrorIs(t, err, berth.ErrCorruptState, "truncated at %d", n)
		require.Nil(t, s)
	}
	r := rand.New(rand.NewPCG(9, 9))
	for i := 0; i < 300; i++ {
		c := slices.Clone(b)
		c[r.IntN(len(c))] ^= 1 << r.IntN(8)
		s, err := RestoreScheduler(bytes.NewReader(c), env)
		if err == nil { // a flip in the magic's slack cannot happen: every byte is covered
			t.Fatalf("bit flip %d accepted", i)
		}
		require.Nil(t, s)
		if !errors.Is(err, berth.ErrUnsupportedVersion) && !errors.Is(err, berth.ErrInvalidArgument) {
			require.ErrorIs(t, err, berth.ErrCorruptState)
		}
	}
}

func TestStateWrongKindAndVersion(t *testing.T) {
	var buf bytes.Buffer
	e := berth.NewStateEncoder(&buf, "fair.Scheduler", 1)
	require.NoError(t, e.Finish())
	_, err := RestoreScheduler(bytes.NewReader(buf.Bytes()), RestoreEnv{Clock: berth.NewManualClock(0)})
	require.ErrorIs(t, err, berth.ErrInvalidArgument)
	buf.Reset()
	e = berth.NewStateEncoder(&buf, stateKind, stateVersion+1)
	require.NoError(t, e.Finish())
	_, err = RestoreScheduler(bytes.NewReader(buf.Bytes()), RestoreEnv{Clock: berth.NewManualClock(0)})
	require.ErrorIs(t, err, berth.ErrUnsupportedVersion)
	_, err = RestoreScheduler(bytes.NewReader(nil), RestoreEnv{})
	require.ErrorIs(t, err, berth.ErrInvalidArgument, "a clock is required")
}

// A snapshot whose configuration used a host's ordering policy or groups
// needs them back; without them the restore names what is missing.
func TestStateNeedsHostValues(t *testing.T) {
	orig, clock, _ := buildRandom(t, 5, 40)
	b := saveBytes(t, orig)
	_, err := RestoreScheduler(bytes.NewReader(b), RestoreEnv{Clock: clock})
	require.ErrorIs(t, err, berth.ErrInvalidArgument)
	assert.Contains(t, err.Error(), "groups")
}

// maxFuzzState caps the snapshots the fuzz targets decode: the seeds are
// under 2 KiB, and each input is restored, checked and saved twice, so
// larger ones only make runs (and the minimisation of what they find)
// slower.
const maxFuzzState = 4 << 10

// FuzzRestoreScheduler feeds arbitrary bytes to RestoreScheduler: no
// input panics, and whatever restores saves and restores again to the
// same bytes.
func FuzzRestoreScheduler(f *testing.F) {
	for _, seed := range []uint64{1, 2} {
		s, _, _ := buildRandom(f, seed, 30)
		var buf bytes.Buffer
		if err := s.SaveState(&buf); err == nil {
			f.Add(buf.Bytes())
		}
	}
	f.Add([]byte("BERTHSS\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > maxFuzzState {
			return
		}
		env := RestoreEnv{Clock: berth.NewManualClock(0), Groups: groupsOf{}}
		s, err := RestoreScheduler(bytes.NewReader(data), env)
		if err != nil {
			require.Nil(t, s)
			return
		}
		b := saveBytes(t, s)
		s2, err := RestoreScheduler(bytes.NewReader(b), env)
		require.NoError(t, err)
		require.Equal(t, b, saveBytes(t, s2))
	})
}

// seal frames body as a snapshot of kind with a valid header and trailer,
// so that a fuzzer's bytes reach the body's own checks instead of stopping
// at the checksum.
func seal(kind string, version uint64, body []byte) []byte {
	var hdr bytes.Buffer
	_ = berth.NewStateEncoder(&hdr, kind, version).Finish()
	out := slices.Clone(hdr.Bytes()[:hdr.Len()-16]) // without the empty snapshot's trailer
	out = append(out, body...)
	out = append(out, "BEND"...)
	out = binary.LittleEndian.AppendUint64(out, uint64(len(out)-4))
	return binary.LittleEndian.AppendUint32(out, crc32.Checksum(out, crc32.MakeTable(crc32.Castagnoli)))
}

// unseal is the body of a snapshot.
func unseal(kind string, version uint64, snap []byte) []byte {
	var hdr bytes.Buffer
	_ = berth.NewStateEncoder(&hdr, kind, version).Finish()
	return snap[hdr.Len()-16 : len(snap)-16]
}

func TestStateSeal(t *testing.T) {
	orig, clock, _ := buildRandom(t, 2, 60)
	b := saveBytes(t, orig)
	require.Equal(t, b, seal(stateKind, stateVersion, unseal(stateKind, stateVersion, b)))
	_ = clock
}

// FuzzRestoreSchedulerBody feeds arbitrary bodies in a valid frame: every
// malformed record must be refused as corrupt state (no panic, no
// scheduler), and a body that restores must save and restore stably.
func FuzzRestoreSchedulerBody(f *testing.F) {
	for _, seed := range []uint64{1, 2, 3} {
		s, _, _ := buildRandom(f, seed, 40)
		var buf bytes.Buffer
		if err := s.SaveState(&buf); err == nil {
			f.Add(unseal(stateKind, stateVersion, buf.Bytes()))
		}
	}
	cfg := DefaultConfig()
	cfg.Clock = berth.NewManualClock(0)
	s, _ := New(cfg)
	var buf bytes.Buffer
	_ = s.SaveState(&buf)
	f.Add(unseal(stateKind, stateVersion, buf.Bytes()))
	// A body written before the YARN 3.x block.
	if old, err := os.ReadFile("testdata/capacity-v2.snap"); err == nil {
		f.Add(unseal(stateKind, stateVersion, old))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if len(body) > maxFuzzState {
			return
		}
		env := RestoreEnv{Clock: berth.NewManualClock(0), Groups: groupsOf{}}
		s, err := RestoreScheduler(bytes.NewReader(seal(stateKind, stateVersion, body)), env)
		if err != nil {
			require.Nil(t, s)
			if !errors.Is(err, berth.ErrInvalidArgument) {
				require.ErrorIs(t, err, berth.ErrCorruptState)
			}
			return
		}
		b := saveBytes(t, s)
		s2, err := RestoreScheduler(bytes.NewReader(b), env)
		require.NoError(t, err)
		require.Equal(t, b, saveBytes(t, s2))
		require.NoError(t, s2.Check())
	})
}

// Every single-bit change of a body, in a valid frame, is either refused
// as corrupt or gives a scheduler that passes Check and saves stably:
// restore's own checks, not the checksum, keep a malformed body out.
func TestStateSealedBitFlips(t *testing.T) {
	orig, _, _ := buildRandom(t, 4, 80)
	body := unseal(stateKind, stateVersion, saveBytes(t, orig))
	env := RestoreEnv{Clock: berth.NewManualClock(0), Groups: groupsOf{}}
	accepted, tried := 0, 0
	step := 1
	if testing.Short() || raceEnabled {
		step = 7
	}
	for bit := 0; bit < len(body)*8; bit += step {
		tried++
		c := slices.Clone(body)
		c[bit/8] ^= 1 << (bit % 8)
		s, err := RestoreScheduler(bytes.NewReader(seal(stateKind, stateVersion, c)), env)
		if err != nil {
			require.Nil(t, s)
			if !errors.Is(err, berth.ErrInvalidArgument) {
				require.ErrorIs(t, err, berth.ErrCorruptState, "bit %d", bit)
			}
			continue
		}
		accepted++
		require.NoError(t, s.Check(), "bit %d", bit)
		if accepted%4 == 0 { // and it keeps working
			tw := &twin{r: rand.New(rand.NewPCG(uint64(bit), 1)), nextN: 100, nextA: 1000}
			for i := 0; i < 15; i++ {
				tw.next(s, nil)(s)
			}
			require.NoError(t, s.Check(), "bit %d, after further calls", bit)
		}
		b := saveBytes(t, s)
		s2, err := RestoreScheduler(bytes.NewReader(b), env)
		require.NoError(t, err, "bit %d", bit)
		require.Equal(t, b, saveBytes(t, s2), "bit %d", bit)
	}
	t.Logf("%d of %d flips gave another valid state", accepted, tried)
}

// SaveState takes the scheduler's lock: snapshots taken while other
// goroutines heartbeat, ask and finish are consistent cuts that restore
// and pass Check (run with -race).
func TestStateSaveConcurrent(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Root.Children = []QueueConfig{Queue("a", 50), Queue("b", 50)}
	cfg.Clock = berth.NewManualClock(0)
	s, err := New(cfg)
	require.NoError(t, err)
	for i := 0; i < 8; i++ {
		require.NoError(t, s.AddNode(NodeSpec{ID: fmt.Sprintf("n%d", i), Rack: "/r", Capability: berth.New(8192, 8)}))
	}
	done := make(chan struct{})
	errs := make(chan error, 8)
	for g := 0; g < 3; g++ {
		go func(g int) {
			defer func() { errs <- nil }()
			for i := 0; i < 60; i++ {
				id := fmt.Sprintf("g%d-%d", g, i)
				if _, err := s.SubmitApp(AppSpec{ID: id, Queue: []string{"a", "b"}[i%2], User: fmt.Sprint("u", g)}); err != nil {
					errs <- err
					return
				}
				if _, err := s.Allocate(id, []Ask{{Priority: 1, ResourceName: AnyResource, Capability: berth.New(512, 1), Count: 2}}, nil); err != nil {
					errs <- err
					return
				}
				if _, err := s.Heartbeat(fmt.Sprintf("n%d", (g+i)%8), nil); err != nil {
					errs <- err
					return
				}
				if i%3 == 0 {
					if _, err := s.FinishApp(id); err != nil {
						errs <- err
						return
					}
				}
			}
		}(g)
	}
	go func() {
		defer close(done)
		for i := 0; i < 20; i++ {
			var buf bytes.Buffer
			if err := s.SaveState(&buf); err != nil {
				errs <- err
				return
			}
			cp, err := RestoreScheduler(&buf, RestoreEnv{Clock: berth.NewManualClock(0)})
			if err == nil {
				err = cp.Check()
			}
			if err != nil {
				errs <- err
				return
			}
		}
	}()
	<-done
	for g := 0; g < 3; g++ {
		require.NoError(t, <-errs)
	}
	select {
	case err := <-errs:
		require.NoError(t, err)
	default:
	}
}

// eventLog records an observer's events as text.
type eventLog []string

func (l *eventLog) ObserveContainer(e queue.ContainerEvent) { *l = append(*l, fmt.Sprintf("%+v", e)) }
func (l *eventLog) ObserveApp(e queue.AppEvent)             { *l = append(*l, fmt.Sprintf("%+v", e)) }
func (l *eventLog) ObserveQueue(e queue.QueueEvent)         { *l = append(*l, fmt.Sprintf("%+v", e)) }

// TestStateErrorsNameTheRecord cuts a snapshot at every byte: the error
// names the record being read, and the names come in the body's order,
// the order restore reads the records in.
func TestStateErrorsNameTheRecord(t *testing.T) {
	orig, clock, _ := buildRandom(t, 3, 120)
	snap := saveBytes(t, orig)
	env := RestoreEnv{Clock: clock, Groups: groupsOf{}}
	var fields []string
	for n := range len(snap) {
		s, err := RestoreScheduler(bytes.NewReader(snap[:n]), env)
		assert.Nil(t, s)
		var se *berth.StateError
		require.ErrorAs(t, err, &se, "truncated at %d", n)
		require.ErrorIs(t, se, berth.ErrCorruptState, "truncated at %d", n)
		if len(fields) == 0 || fields[len(fields)-1] != se.Field {
			fields = append(fields, se.Field)
		}
	}
	i := slices.Index(fields, "config")
	require.GreaterOrEqual(t, i, 0, "no error names the config: %q", fields)
	assert.Equal(t, []string{"config", "YARN 3.x config", "YARN 3.x queue settings", "auto-created queues",
		"node heartbeats", "application features", "rounds", "config", "partitions", "reservation queues",
		"nodes", "applications", "containers", "reservations", "counters", "leaf caches", "trailer"}, fields[i:])
}
