package fair

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stateWorld is the test's model of what exists: the operations it draws
// name nodes, applications and containers that (mostly) exist.
type stateWorld struct {
	nodes []string
	apps  []string
	live  []ContainerID
	step  int
}

// stateOp is one operation on a scheduler; run applies it and returns a
// description of everything the scheduler answered, for comparison.
type stateOp struct {
	name string
	run  func(s *Scheduler, clock *berth.ManualClock) string
	// seen updates the model from the original's answer.
	seen func(w *stateWorld, out string)
}

// stateAlloc is the file the property test starts from: every policy,
// limits that keep applications waiting, and preemption timeouts short
// enough that applications starve (and so reserve nodes).
const stateAlloc = `<allocations>
<queue name="root"><schedulingPolicy>drf</schedulingPolicy>
  <queue name="a"><weight>2</weight><maxRunningApps>3</maxRunningApps><minResources>4096 mb, 4 vcores</minResources><minSharePreemptionTimeout>1</minSharePreemptionTimeout></queue>
  <queue name="b"><schedulingPolicy>drf</schedulingPolicy><maxResources>50%</maxResources><fairSharePreemptionThreshold>0.8</fairSharePreemptionThreshold></queue>
  <queue name="c"><schedulingPolicy>fifo</schedulingPolicy><minResources>2048 mb, 2 vcores</minResources><maxAMShare>0.3</maxAMShare></queue>
  <queue name="p" type="parent"><maxChildResources>8192 mb, 8 vcores</maxChildResources><schedulingPolicy>fair</schedulingPolicy></queue>
  <queue name="plan"><reservation/></queue>
</queue>
<user name="u1"><maxRunningApps>2</maxRunningApps></user>
<defaultFairSharePreemptionTimeout>1</defaultFairSharePreemptionTimeout>
<defaultMinSharePreemptionTimeout>2</defaultMinSharePreemptionTimeout>
</allocations>`

var stateGroups = queue.GroupsFunc(func(u string) []string { return []string{"g" + u} })

// stateConfig draws a configuration covering the scheduler's modes.
func stateConfig(rng *rand.Rand) Config {
	cfg := DefaultConfig()
	cfg.AssignMultiple = rng.IntN(2) == 0
	cfg.DynamicMaxAssign = rng.IntN(2) == 0
	cfg.MaxAssign = rng.IntN(4) - 1
	cfg.Preemption = rng.IntN(3) > 0
	cfg.PreemptionUtilizationThreshold = 0.1
	cfg.SizeBasedWeight = rng.IntN(3) == 0
	switch rng.IntN(3) {
	case 0:
		cfg.LocalityThresholdNode, cfg.LocalityThresholdRack = 0.3, 0.5
	case 1:
		cfg.TimeBasedLocality = true
		cfg.LocalityDelayNode, cfg.LocalityDelayRack = 300, 700
	}
	cfg.ReservableNodes = 0.3
	cfg.Groups = stateGroups
	return cfg
}

// stateScheduler is a scheduler of cfg on the property test's file
// (stateAlloc) and its manual clock, at time 0.
func stateScheduler(t testing.TB, cfg Config) (*Scheduler, *berth.ManualClock) {
	t.Helper()
	af, err := ParseAllocationFile([]byte(stateAlloc), ParseOptions{})
	require.NoError(t, err)
	clock := berth.NewManualClock(0)
	cfg.Allocation = af
	cfg.Clock = clock
	s, err := New(cfg)
	require.NoError(t, err)
	return s, clock
}

// drawOp draws the next operation against the model.
func drawOp(rng *rand.Rand, w *stateWorld) stateOp {
	w.step++
	step := w.step
	queues := []string{"a", "b", "c", "p.x", "p.y", "plan", "default", "newq", ""}
	pick := func(xs []string) string {
		if len(xs) == 0 || rng.IntN(20) == 0 {
			return "ghost"
		}
		return xs[rng.IntN(len(xs))]
	}
	op := rng.IntN(16)
	if op < 2 && len(w.nodes) >= 4 && rng.IntN(6) > 0 {
		op = 7 // a heartbeat instead: keep the cluster small and busy
	}
	switch op {
	case 0, 1:
		id := fmt.Sprintf("n%03d", step)
		spec := NodeSpec{ID: id, Rack: fmt.Sprintf("/r%d", rng.IntN(3)), Capability: berth.New(2048*int64(1+rng.IntN(4)), int64(2+rng.IntN(6)))}
		return stateOp{name: "add node", run: func(s *Scheduler, _ *berth.ManualClock) string {
			return fmt.Sprint(s.AddNode(spec))
		}, seen: func(w *stateWorld, out string) {
			if out == "<nil>" {
				w.nodes = append(w.nodes, id)
			}
		}}
	case 2:
		if rng.IntN(3) > 0 {
			break
		}
		n := pick(w.nodes)
		return stateOp{name: "remove node", run: func(s *Scheduler, _ *berth.ManualClock) string {
			ended, err := s.RemoveNode(n)
			return fmt.Sprint(ended, err)
		}, seen: func(w *stateWorld, _ string) { w.nodes = remove(w.nodes, n) }}
	case 3:
		id := fmt.Sprintf("app%03d", step)
		spec := AppSpec{ID: id, Queue: queues[rng.IntN(len(queues))], User: fmt.Sprintf("u%d", rng.IntN(3)), Priority: int32(rng.IntN(3))}
		if rng.IntN(3) == 0 {
			spec.AMResource = berth.New(512, 1)
		}
		if spec.Queue == "plan" && rng.IntN(2) == 0 {
			spec.ReservationID = fmt.Sprintf("r%d", rng.IntN(3))
		}
		adv := int64(rng.IntN(3))
		return stateOp{name: "submit", run: func(s *Scheduler, c *berth.ManualClock) string {
			c.Advance(adv)
			q, err := s.SubmitApp(spec)
			return fmt.Sprint(q, err)
		}, seen: func(w *stateWorld, out string) {
			if len(out) > 5 && out[len(out)-5:] == "<nil>" {
				w.apps = append(w.apps, id)
			}
		}}
	case 4, 5, 6:
		a := pick(w.apps)
		var asks []Ask
		for range 1 + rng.IntN(3) {
			name := AnyResource
			switch rng.IntN(4) {
			case 0:
				name = pick(w.nodes)
			case 1:
				name = fmt.Sprintf("/r%d", rng.IntN(3))
			}
			asks = append(asks, Ask{Priority: int32(rng.IntN(3)), ResourceName: name,
				Capability: berth.New(512*int64(1+rng.IntN(12)), int64(1+rng.IntN(3))), Count: rng.IntN(8), StrictLocality: rng.IntN(5) == 0})
		}
		var rel []ContainerID
		if len(w.live) > 0 && rng.IntN(4) == 0 {
			rel = append(rel, w.live[rng.IntN(len(w.live))])
		}
		return stateOp{name: "allocate", run: func(s *Scheduler, _ *berth.ManualClock) string {
			h, err := s.Allocate(a, asks, rel)
			return fmt.Sprint(h, err)
		}}
	case 7, 8, 9, 10:
		n := pick(w.nodes)
		var done []ContainerID
		if len(w.live) > 0 && rng.IntN(2) == 0 {
			done = append(done, w.live[rng.IntN(len(w.live))])
		}
		adv := int64(rng.IntN(400))
		return stateOp{name: "heartbeat", run: func(s *Scheduler, c *berth.ManualClock) string {
			c.Advance(adv)
			als, err := s.Heartbeat(n, done)
			return fmt.Sprint(als, err)
		}, seen: func(w *stateWorld, _ string) {}}
	case 11:
		adv := int64(rng.IntN(1500))
		return stateOp{name: "update", run: func(s *Scheduler, c *berth.ManualClock) string {
			c.Advance(adv)
			s.Update()
			return ""
		}}
	case 12:
		a := pick(w.apps)
		switch rng.IntN(6) {
		case 0:
			return stateOp{name: "kill app", run: func(s *Scheduler, _ *berth.ManualClock) string {
				ended, err := s.KillApp(a)
				return fmt.Sprint(ended, err)
			}, seen: func(w *stateWorld, _ string) { w.apps = remove(w.apps, a) }}
		case 1:
			k := rng.IntN(10)
			return stateOp{name: "kill reservation", run: func(s *Scheduler, _ *berth.ManualClock) string {
				rs := s.Snapshot().Reservations
				if len(rs) == 0 {
					return ""
				}
				return fmt.Sprint(s.KillReservation(rs[k%len(rs)].ID))
			}}
		case 2:
			if len(w.live) == 0 {
				break
			}
			id := w.live[rng.IntN(len(w.live))]
			return stateOp{name: "kill container", run: func(s *Scheduler, _ *berth.ManualClock) string {
				end, err := s.KillContainer(id)
				return fmt.Sprint(end, err)
			}}
		}
		if rng.IntN(3) == 0 {
			q := queues[rng.IntN(len(queues))]
			return stateOp{name: "move", run: func(s *Scheduler, _ *berth.ManualClock) string {
				p, err := s.MoveApp(a, q)
				return fmt.Sprint(p, err)
			}}
		}
		return stateOp{name: "finish", run: func(s *Scheduler, _ *berth.ManualClock) string {
			ended, err := s.FinishApp(a)
			return fmt.Sprint(ended, err)
		}, seen: func(w *stateWorld, _ string) { w.apps = remove(w.apps, a) }}
	case 13:
		// a preemption policy's protocol: mark, earmark, back-off, then
		// kill or take the mark back
		if len(w.live) == 0 {
			break
		}
		id := w.live[rng.IntN(len(w.live))]
		n, a := pick(w.nodes), pick(w.apps)
		kill := rng.IntN(3)
		return stateOp{name: "preempt", run: func(s *Scheduler, c *berth.ManualClock) string {
			e1 := s.MarkForPreemption(id)
			e2 := s.ReservePreempted(n, a, berth.New(1024, 1))
			e3 := s.PreemptionTriggered(a, c.Now()+500)
			var out any
			switch kill {
			case 0:
				out = s.UnmarkForPreemption(id)
			case 1:
				end, err := s.PreemptContainer(id)
				out = fmt.Sprint(end, err)
			}
			return fmt.Sprint(e1, e2, e3, out)
		}}
	case 14:
		xml := stateAlloc
		if rng.IntN(2) == 0 {
			xml = fuzzReloads[rng.IntN(len(fuzzReloads))]
		}
		return stateOp{name: "reload", run: func(s *Scheduler, _ *berth.ManualClock) string {
			af, err := ParseAllocationFile([]byte(xml), ParseOptions{})
			if err != nil {
				return err.Error()
			}
			res, err := s.Reload(af)
			return fmt.Sprint(res, err)
		}}
	case 15:
		r := fmt.Sprintf("r%d", rng.IntN(3))
		k := rng.IntN(3)
		ent := Entitlement{Capacity: float32(rng.IntN(5)) / 4, MaxCapacity: 1}
		return stateOp{name: "plan follower", run: func(s *Scheduler, _ *berth.ManualClock) string {
			switch k {
			case 0:
				return fmt.Sprint(s.AddReservationQueue("plan", r))
			case 1:
				return fmt.Sprint(s.SetEntitlement("root.plan."+r, ent))
			}
			return fmt.Sprint(s.RemoveReservationQueue("root.plan." + r))
		}}
	}
	return stateOp{name: "nothing", run: func(*Scheduler, *berth.ManualClock) string { return "" }}
}

func remove[T comparable](xs []T, x T) []T {
	for i, y := range xs {
		if y == x {
			return append(xs[:i:i], xs[i+1:]...)
		}
	}
	return xs
}

// liveIDs refreshes the model's containers from the scheduler.
func liveIDs(s *Scheduler) []ContainerID {
	var out []ContainerID
	for _, c := range s.Snapshot().Containers {
		out = append(out, c.ID)
	}
	return out
}

func saveBytes(t testing.TB, s *Scheduler) []byte {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, s.SaveState(&b))
	return b.Bytes()
}

func restoreEnv(clock berth.Clock) RestoreEnv {
	return RestoreEnv{Clock: clock, Groups: stateGroups}
}

// The contract: after random operations, a restored scheduler saves the
// same bytes, answers every further operation as the original does, and
// keeps saving the same bytes.
func TestStateRestoreDecidesAsOriginal(t *testing.T) {
	seeds := 24
	if testing.Short() || raceEnabled {
		seeds = 6
	}
	var seen stateCounts
	for seed := range uint64(seeds) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 11))
			s, clock := stateScheduler(t, stateConfig(rng))
			// Odd seeds keep every set of more than one item in an
			// incrementally maintained order (the walk's fast path) and
			// check it against a sort on every walk.
			small := smallSet
			if seed%2 == 1 {
				small = 1
			}
			s.sortSmall, s.checkOrder = small, true
			w := &stateWorld{}
			before := 50 + rng.IntN(250)
			for range before {
				op := drawOp(rng, w)
				out := op.run(s, clock)
				if op.seen != nil {
					op.seen(w, out)
				}
				w.live = liveIDs(s)
			}
			c := stateStats(s)
			seen.Waiting += c.Waiting
			seen.Marked += c.Marked
			seen.Reservations += c.Reservations
			seen.Earmarks += c.Earmarks
			seen.DelayKeys += c.DelayKeys
			seen.Backoff += c.Backoff
			seen.Starved += c.Starved
			saved := saveBytes(t, s)
			clock2 := berth.NewManualClock(clock.Now())
			r, err := RestoreScheduler(bytes.NewReader(saved), restoreEnv(clock2))
			require.NoError(t, err)
			r.sortSmall, r.checkOrder = small, true
			require.Equal(t, saved, saveBytes(t, r), "restored state saves the same bytes")
			assertSameSnapshot(t, s, r)
			for i := range 300 {
				op := drawOp(rng, w)
				want := op.run(s, clock)
				got := op.run(r, clock2)
				require.Equal(t, want, got, "step %d after restore: %s", i, op.name)
				if op.seen != nil {
					op.seen(w, want)
				}
				w.live = liveIDs(s)
				require.NoError(t, r.Check())
				if i%25 == 24 {
					require.Equal(t, saveBytes(t, s), saveBytes(t, r), "step %d: later snapshots", i)
				}
			}
			assertSameSnapshot(t, s, r)
		})
	}
	// The seeds saved states with every kind of in-flight thing.
	assert.Positive(t, seen.Waiting, "waiting applications")
	assert.Positive(t, seen.Marked, "marked containers")
	assert.Positive(t, seen.Reservations, "node reservations")
	assert.Positive(t, seen.Earmarks, "earmarks")
	assert.Positive(t, seen.DelayKeys, "delay-scheduling state")
	assert.Positive(t, seen.Backoff, "starvation back-off")
	assert.Positive(t, seen.Starved, "starved applications")
}

// assertSameSnapshot compares everything a snapshot shows, the shared
// queue tree's view and books included.
func assertSameSnapshot(t *testing.T, a, b *Scheduler) {
	t.Helper()
	sa, sb := a.SnapshotOf(SnapshotAll), b.SnapshotOf(SnapshotAll)
	assert.Equal(t, sa, sb)
}

// Corruption: every truncation and every bit flip is refused with
// ErrCorruptState; another kind and a newer version are refused too.
func TestStateCorruptionRefused(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 11))
	s, clock := stateScheduler(t, stateConfig(rng))
	w := &stateWorld{}
	for range 200 {
		op := drawOp(rng, w)
		out := op.run(s, clock)
		if op.seen != nil {
			op.seen(w, out)
		}
		w.live = liveIDs(s)
	}
	saved := saveBytes(t, s)
	step := max(1, len(saved)/300)
	for n := 0; n < len(saved); n += step {
		_, err := RestoreScheduler(bytes.NewReader(saved[:n]), restoreEnv(clock))
		require.ErrorIs(t, err, berth.ErrCorruptState, "truncated at %d", n)
	}
	for i := 0; i < len(saved); i += step {
		bad := bytes.Clone(saved)
		bad[i] ^= 1 << (i % 8)
		got, err := RestoreScheduler(bytes.NewReader(bad), restoreEnv(clock))
		require.Error(t, err, "flip at %d", i)
		require.Nil(t, got)
		if !errors.Is(err, berth.ErrCorruptState) {
			// a flip in the header's kind or version
			require.True(t, errors.Is(err, berth.ErrInvalidArgument) || errors.Is(err, berth.ErrUnsupportedVersion), "flip at %d: %v", i, err)
		}
	}
	var other bytes.Buffer
	e := berth.NewStateEncoder(&other, "capacity.Scheduler", 1)
	require.NoError(t, e.Finish())
	_, err := RestoreScheduler(&other, restoreEnv(clock))
	require.ErrorIs(t, err, berth.ErrInvalidArgument)
	var newer bytes.Buffer
	e = berth.NewStateEncoder(&newer, stateKind, stateVersion+1)
	require.NoError(t, e.Finish())
	_, err = RestoreScheduler(&newer, restoreEnv(clock))
	require.ErrorIs(t, err, berth.ErrUnsupportedVersion)
	_, err = RestoreScheduler(bytes.NewReader(saved), RestoreEnv{})
	require.ErrorIs(t, err, berth.ErrInvalidArgument)
	_, err = RestoreScheduler(bytes.NewReader(saved), RestoreEnv{Clock: clock})
	require.ErrorIs(t, err, berth.ErrInvalidArgument, "the saved scheduler had a groups provider")
	require.ErrorContains(t, err, "groups")
}

// stateStats counts the in-flight things a saved state holds, so the
// property test can require that its seeds cover them.
type stateCounts struct {
	Nodes, Apps, Waiting, Containers, Marked, Reservations, Earmarks, DelayKeys, Backoff, Starved int
}

func stateStats(s *Scheduler) stateCounts {
	s.mu.Lock()
	defer s.mu.Unlock()
	var c stateCounts
	c.Nodes = len(s.nodes)
	c.Apps = len(s.apps)
	for _, a := range s.apps {
		if !a.runnable {
			c.Waiting++
		}
		for _, k := range a.asks.Keys() {
			if k.Payload.allowedSet || k.Payload.opps > 0 {
				c.DelayKeys++
			}
		}
		if a.nextStarvationCheck > 0 {
			c.Backoff++
		}
		if !a.fairStarvation.IsZero() || !a.minStarvation.IsZero() {
			c.Starved++
		}
	}
	c.Containers = s.live.Len()
	s.live.Ascend(func(x *container) {
		if x.marked {
			c.Marked++
		}
	})
	c.Reservations = len(s.resvByID)
	for _, n := range s.nodes {
		c.Earmarks += liveEarmarks(n)
	}
	return c
}

// stateSample is a saved state with something of everything in it, for
// the fuzz targets and benchmarks' seeds.
func stateSample(t testing.TB, seed uint64, steps int) (*Scheduler, *berth.ManualClock, []byte) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 11))
	s, clock := stateScheduler(t, stateConfig(rng))
	w := &stateWorld{}
	for range steps {
		op := drawOp(rng, w)
		out := op.run(s, clock)
		if op.seen != nil {
			op.seen(w, out)
		}
		w.live = liveIDs(s)
	}
	return s, clock, saveBytes(t, s)
}

// reframe recomputes a snapshot's checksum after its body was edited in
// place, so that a fuzzer's edits reach the body's own validation.
func reframe(b []byte) {
	if len(b) < 16 {
		return
	}
	n := len(b) - 4
	sum := crc32.Checksum(b[:n], crc32.MakeTable(crc32.Castagnoli))
	binary.LittleEndian.PutUint32(b[n:], sum)
}

// FuzzRestoreScheduler feeds arbitrary bytes, and valid snapshots edited
// in place with their checksum fixed, to RestoreScheduler: nothing panics,
// anything refused is refused with a typed error and no scheduler, and
// anything restored passes Check and saves and restores again to the
// same bytes. Inputs are capped (4 KiB of bytes, 32 edits: the sample is
// 1.5 KiB) and a restored scheduler heartbeats three nodes, not all, so
// that each run stays cheap: larger inputs only slow runs and the
// minimisation of what they find.
func FuzzRestoreScheduler(f *testing.F) {
	_, _, sample := stateSample(f, 4, 200)
	f.Add([]byte{}, false)
	f.Add(sample, false)
	f.Add([]byte{0, 0, 0, 1, 7}, true)
	f.Add([]byte{0, 1, 0, 200, 1, 1, 0, 77, 3}, true)
	f.Fuzz(func(t *testing.T, data []byte, edit bool) {
		if len(data) > 4<<10 || edit && len(data) > 32*3 {
			return
		}
		in := data
		if edit {
			// data is a list of (offset: 2 bytes, xor: 1 byte) edits of
			// the body of the sample
			in = bytes.Clone(sample)
			for i := 0; i+2 < len(data); i += 3 {
				off := int(binary.BigEndian.Uint16(data[i:])) % (len(in) - 16)
				in[off] ^= data[i+2]
			}
			reframe(in)
		}
		clock := berth.NewManualClock(0)
		s, err := RestoreScheduler(bytes.NewReader(in), restoreEnv(clock))
		if err != nil {
			require.Nil(t, s)
			require.True(t, errors.Is(err, berth.ErrCorruptState) || errors.Is(err, berth.ErrInvalidArgument) ||
				errors.Is(err, berth.ErrUnsupportedVersion), "untyped error %v", err)
			return
		}
		require.NoError(t, s.Check())
		again := saveBytes(t, s)
		s2, err := RestoreScheduler(bytes.NewReader(again), restoreEnv(clock))
		require.NoError(t, err)
		require.Equal(t, again, saveBytes(t, s2))
		// and it keeps working
		for _, id := range s2.nodeIDs[:min(3, len(s2.nodeIDs))] {
			_, err := s2.Heartbeat(id, nil)
			require.NoError(t, err)
		}
		require.NoError(t, s2.Check())
	})
}

// The configuration and the allocation file come back exactly as they
// were: every element, percentages, user limits, reservation settings
// and the placement policy with its nested rules.
func TestStateConfigRoundTrip(t *testing.T) {
	xml := e01[:len(e01)-len("</allocations>")] + `
  <queue name="plan"><reservation/><aclAdministerReservations>ops</aclAdministerReservations>
    <aclListReservations>*</aclListReservations><aclSubmitReservations>alice admins</aclSubmitReservations>
    <allowPreemptionFrom>false</allowPreemptionFrom><weight>2.5</weight></queue>
  <queue name="pct"><maxResources>memory-mb=50%, vcores=25%, a-custom-resource=10%</maxResources><schedulingPolicy>fifo</schedulingPolicy></queue>
  <reservation-agent>agentX</reservation-agent><reservation-policy>policyY</reservation-policy><reservation-planner>plannerZ</reservation-planner>
  <queuePlacementPolicy>
    <rule name="specified" create="false"/>
    <rule name="nestedUserQueue"><rule name="secondaryGroupExistingQueue" create="false"/></rule>
    <rule name="primaryGroup" create="false"/>
    <rule name="default" queue="queueA"/>
  </queuePlacementPolicy>
</allocations>`
	af, err := ParseAllocationFile([]byte(xml), ParseOptions{ResourceTypes: []string{"a-custom-resource"}})
	require.NoError(t, err)
	cfg := DefaultConfig()
	cfg.ResourceTypes = []string{"a-custom-resource"}
	cfg.MaxAllocation = berth.New(8192, 16).With("a-custom-resource", 20)
	cfg.TimeBasedLocality, cfg.LocalityDelayNode, cfg.LocalityDelayRack = true, 123, 456
	cfg.LocalityThresholdNode, cfg.LocalityThresholdRack = 0.25, 0.75
	cfg.Preemption, cfg.SizeBasedWeight, cfg.AssignMultiple = true, true, true
	cfg.UpdateInterval, cfg.MaxAssign = 250, 7
	cfg.ReservableNodes, cfg.ReservationThresholdIncrementMultiple = 0.125, 3
	rs := queue.DefaultReservationSystemSettings()
	rs.Enabled, rs.Step, rs.ReservationACLEnable = true, 2500, true
	cfg.ReservationSystem = &rs
	// Settings the file cannot give, set in Go, are kept too.
	af.Reservation.AveragePercent, af.Reservation.MoveOnExpiry = 60, false
	clock := berth.NewManualClock(5)
	cfg.Allocation = af
	cfg.Clock = clock
	s, err := New(cfg)
	require.NoError(t, err)
	r, err := RestoreScheduler(bytes.NewReader(saveBytes(t, s)), RestoreEnv{Clock: clock})
	require.NoError(t, err)
	assert.Equal(t, s.cfg, r.cfg)
	assert.Equal(t, s.alloc, r.alloc)
	assert.Equal(t, s.placement, r.placement)
	assertSameSnapshot(t, s, r)
	assert.Equal(t, s.Snapshot().Tree, r.Snapshot().Tree, "the shared tree of a scheduler that only loaded its file")
}

// SaveState takes the scheduler's lock: snapshots taken while other
// goroutines heartbeat, ask and finish applications are consistent cuts
// that restore and pass Check (run with -race).
func TestStateSaveUnderConcurrentCallers(t *testing.T) {
	s, _, _ := stateSample(t, 9, 150)
	nodes := s.Snapshot().Nodes
	require.NotEmpty(t, nodes)
	done := make(chan struct{})
	errs := make(chan error, 4)
	for g := range 3 {
		go func() {
			rng := rand.New(rand.NewPCG(uint64(g), 1))
			for i := 0; ; i++ {
				select {
				case <-done:
					errs <- nil
					return
				default:
				}
				id := fmt.Sprintf("c%d-%d", g, i)
				switch rng.IntN(3) {
				case 0:
					_, _ = s.Heartbeat(nodes[rng.IntN(len(nodes))].ID, nil)
				case 1:
					if _, err := s.SubmitApp(AppSpec{ID: id, Queue: "a", User: "u2"}); err == nil {
						_, _ = s.Allocate(id, []Ask{{Priority: 1, ResourceName: AnyResource, Capability: berth.New(1024, 1), Count: 2}}, nil)
					}
				case 2:
					s.Update()
				}
			}
		}()
	}
	for range 20 {
		var b bytes.Buffer
		require.NoError(t, s.SaveState(&b))
		r, err := RestoreScheduler(&b, restoreEnv(berth.NewManualClock(0)))
		require.NoError(t, err)
		require.NoError(t, r.Check())
	}
	close(done)
	for range 3 {
		require.NoError(t, <-errs)
	}
}

// compareFields compares every field of two values of one type that holds
// plain data (numbers, strings, booleans, resources, nested structs of
// them), skipping pointers, maps, slices, interfaces, functions and the
// fields named in skip (intrusive links and order entries, whose
// internals record history). A field added to the scheduler's records
// and forgotten by restore shows up here by name.
func compareFields(t *testing.T, path string, a, b reflect.Value, skip map[string]bool) {
	t.Helper()
	switch a.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Interface, reflect.Func, reflect.Chan, reflect.UnsafePointer:
		return
	case reflect.Struct:
		if a.Type() == reflect.TypeOf(berth.Resource{}) {
			assert.Equal(t, fmt.Sprint(a), fmt.Sprint(b), path)
			return
		}
		for i := range a.NumField() {
			f := a.Type().Field(i)
			if skip[f.Name] {
				continue
			}
			compareFields(t, path+"."+f.Name, a.Field(i), b.Field(i), skip)
		}
	case reflect.Array:
		for i := range a.Len() {
			compareFields(t, fmt.Sprintf("%s[%d]", path, i), a.Index(i), b.Index(i), skip)
		}
	default:
		assert.Equal(t, fmt.Sprint(a), fmt.Sprint(b), path)
	}
}

// Every plain field of the scheduler and of its queues, applications,
// nodes, containers and reservations is the same after a restore (once
// both have brought their walk orders up to date).
func TestStateRestoresEveryField(t *testing.T) {
	for seed := range uint64(8) {
		s, clock, saved := stateSample(t, seed, 250)
		r, err := RestoreScheduler(bytes.NewReader(saved), restoreEnv(berth.NewManualClock(clock.Now())))
		require.NoError(t, err)
		for _, x := range []*Scheduler{s, r} {
			x.mu.Lock()
			x.flushOrder()
			x.mu.Unlock()
		}
		// kidStale and appStale only say that a kept order may lack members
		// and must be filled before use; filling is idempotent, and a
		// restored order is complete. keyBuf and keyOut are scratch, uref a
		// cache of the shared tree's entries that refreshes itself, askBlk
		// the room of one of asks' keys (the first asked for: a restored
		// table's first is its most important). kidOrd
		// and appOrd are the walk orders, derived from the keys (their
		// insertion counters and walk hints record history); a restored
		// scheduler's walks are checked against sorts in
		// TestStateRestoreDecidesAsOriginal.
		skip := map[string]bool{"mu": true, "ord": true, "links": true, "live": true, "shareBuf": true, "keyBuf": true,
			"kidStale": true, "appStale": true, "keyOut": true, "uref": true, "askBlk": true, "kidOrd": true, "appOrd": true}
		compareFields(t, "Scheduler", reflect.ValueOf(s).Elem(), reflect.ValueOf(r).Elem(), skip)
		require.Equal(t, len(s.queues), len(r.queues))
		for p, q := range s.queues {
			rq := r.queues[p]
			require.NotNil(t, rq, p)
			compareFields(t, "queue "+p, reflect.ValueOf(q).Elem(), reflect.ValueOf(rq).Elem(), skip)
			assert.Equal(t, len(q.runnableApps), len(rq.runnableApps))
			assert.Equal(t, len(q.children), len(rq.children))
		}
		require.Equal(t, len(s.apps), len(r.apps))
		for id, a := range s.apps {
			ra := r.apps[id]
			require.NotNil(t, ra, id)
			compareFields(t, "app "+id, reflect.ValueOf(a).Elem(), reflect.ValueOf(ra).Elem(), skip)
			assert.Equal(t, len(a.reservedOn), len(ra.reservedOn))
			for i, k := range a.asks.Keys() {
				compareFields(t, fmt.Sprintf("app %s key %d", id, i), reflect.ValueOf(k).Elem(), reflect.ValueOf(ra.asks.Keys()[i]).Elem(), skip)
			}
		}
		for id, n := range s.nodes {
			rn := r.nodes[id]
			require.NotNil(t, rn, id)
			compareFields(t, "node "+id, reflect.ValueOf(n).Elem(), reflect.ValueOf(rn).Elem(), skip)
			if n.reserved != nil {
				require.NotNil(t, rn.reserved)
				compareFields(t, "reservation on "+id, reflect.ValueOf(n.reserved).Elem(), reflect.ValueOf(rn.reserved).Elem(), skip)
			}
		}
		s.live.Ascend(func(c *container) {
			rc, ok := r.live.Get(c.ID)
			require.True(t, ok)
			compareFields(t, fmt.Sprint("container ", c.ID), reflect.ValueOf(c).Elem(), reflect.ValueOf(rc).Elem(), skip)
		})
	}
}

// A version 1 snapshot (written before the reservation settings were
// kept whole) restores its agent name over YARN's other defaults.
func TestRestoreVersion1Snapshot(t *testing.T) {
	b, err := os.ReadFile("testdata/fair-v1.snap")
	require.NoError(t, err)
	s, err := RestoreScheduler(bytes.NewReader(b), RestoreEnv{Clock: berth.NewManualClock(0)})
	require.NoError(t, err)
	want := queue.DefaultReservationSettings()
	want.Agent = "GreedyReservationAgent"
	require.NotNil(t, s.alloc.Reservation)
	assert.Equal(t, want, *s.alloc.Reservation)
	assert.Nil(t, s.Config().ReservationSystem)
	assert.Equal(t, []string{"root.plan"}, s.PlanQueues())
	require.NoError(t, s.Check())
}

// TestStateErrorsNameTheRecord cuts a snapshot at every byte: the error
// names the record being read, and the names come in the body's order,
// the order restore reads the records in.
func TestStateErrorsNameTheRecord(t *testing.T) {
	_, clock, snap := stateSample(t, 3, 200)
	var fields []string
	for n := range len(snap) {
		s, err := RestoreScheduler(bytes.NewReader(snap[:n]), restoreEnv(clock))
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
	assert.Equal(t, []string{"config", "allocations", "scalars", "nodes", "queues", "type changes", "apps",
		"users", "containers", "reservations", "earmarks", "trailer"}, fields[i:])
}
