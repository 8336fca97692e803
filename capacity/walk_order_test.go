package capacity

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/berthsched/berth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// orderConfig is a tree for the lock-step runs: two levels of parents with
// either child ordering, queue priorities, leaves with FIFO and fair
// ordering (with and without size-based weight), a plan queue, and a
// zero-capacity leaf (the class cmpChildren puts last). variant changes
// orderings, priorities and capacities the way a reconfiguration would;
// variant 3 orders the root and the plan queue by pickyKids.
func orderConfig(variant int, dominant bool) Config {
	cfg := DefaultConfig()
	child := []ChildOrdering{OrderPriorityUtilization, OrderUtilization}[variant%2]
	leaf := func(name string, pct float32, fair bool, prio int) QueueConfig {
		q := Queue(name, pct)
		q.Settings.Priority = prio
		q.Settings.UserLimitFactor = 2
		// Users of other weights than 1, changing with the variant, so that
		// the weight-1 shared user limit (userLimit) meets weight changes.
		switch variant {
		case 1:
			q.Settings.UserWeights = map[string]float64{"u1": 2.5}
		case 2:
			q.Settings.UserWeights = map[string]float64{"u0": 0.5, "u1": 1}
		case 3:
			q.Settings.UserWeights = map[string]float64{"u2": 3}
		}
		q.Settings.MinUserLimitPercent = float64(100 / (1 + variant))
		if fair {
			q.Settings.AppOrdering = OrderFair
			q.Settings.FairSizeBasedWeight = variant == 2
		}
		return q
	}
	a := Queue("a", 40, leaf("a1", 30, variant != 1, 1), leaf("a2", 30, true, variant%3), leaf("a3", 40, false, 2))
	a.Settings.ChildOrdering = child
	a.Settings.Priority = variant % 2
	b := leaf("b", 30, true, 1)
	z := leaf("z", 0, true, 0)
	z.MaxCapacity = queueP(30)
	c := Queue("c", 30)
	c.Reservable = true
	c.Settings.Priority = 2
	cfg.Root.Children = []QueueConfig{a, b, c, z}
	cfg.Root.Settings.ChildOrdering = child
	if variant == 3 {
		cfg.Root.Settings.ChildOrderingPolicy = pickyKids{}
		cfg.Root.Children[2].Settings.ChildOrderingPolicy = pickyKids{}
	}
	if variant == 2 {
		cfg.Root.Children[0].Capacity = queueP(30)
		cfg.Root.Children[1].Capacity = queueP(40)
	}
	cfg.MaxOffSwitchAssignments = 3
	cfg.MaximumAMResourcePercent = 0.5
	if dominant {
		cfg.Calculator = berth.DominantCalculator{}
	}
	return cfg
}

// pickyKids is utilization whose keyer refuses the children using an odd
// number of GB: their parent then sorts every child (kidsBad), so the
// lock-step runs move between the kept order and the sort as children,
// idle ones among them, gain and lose usage.
type pickyKids struct{}

func (pickyKids) Name() string               { return "picky" }
func (pickyKids) Compare(a, b QueueView) int { return utilKids.Compare(a, b) }
func (pickyKids) ChildSortKey(v QueueView) (ChildSortKey, bool) {
	if v.Used().Memory/1024%2 == 1 {
		return ChildSortKey{}, false
	}
	return utilKids.(ChildKeyer).ChildSortKey(v)
}

// lockstep drives an incremental scheduler (which also compares its child
// orders with sorts on every visit) and a reference that sorts on every
// visit, with the same random operations, and fails at the first result
// that differs.
func lockstep(t *testing.T, seed uint64, steps int) {
	drive(t, seed, steps, func(inc, ref *Scheduler) {
		inc.checkOrder, ref.sortWalk = true, true
		if seed%4 != 3 {
			inc.sortFan = int(seed % 3) // keep the orders of (nearly) every parent
		}
	}, func(inc, ref *Scheduler, step int) {
		if err := inc.Check(); err != nil {
			t.Fatalf("seed %d step %d: %v (ref: %v)", seed, step, err, ref.Check())
		}
	})
}

// drive runs the same random operations (submissions, asks, heartbeats,
// releases, moves, finishes, node changes, reconfigurations,
// reservation-queue changes, preemptions) through inc and ref, set up by
// setup, failing at the first result that differs; after calls each step's
// own checks. At the end both snapshots must be equal. Queues go idle and
// busy again all along (asks cancelled or served, applications moved or
// finished, reservation queues added and removed, up to six under the
// plan), which moves children in and out of their parents' kept orders.
func drive(t *testing.T, seed uint64, steps int, setup func(inc, ref *Scheduler), after func(inc, ref *Scheduler, step int)) {
	rng := rand.New(rand.NewPCG(seed, 5))
	dominant := rng.IntN(2) == 0
	clock := berth.NewManualClock(0)
	cfg := orderConfig(0, dominant)
	cfg.Clock = clock
	inc, err := New(cfg)
	require.NoError(t, err)
	ref, err := New(cfg)
	require.NoError(t, err)
	setup(inc, ref)
	inc.resortAll(inc.root)
	ref.resortAll(ref.root) // the reference keeps its sorted slices from now on
	errText := func(err error) string {
		if err == nil {
			return ""
		}
		return err.Error()
	}
	both := func(step int, what string, f func(s *Scheduler) any) {
		t.Helper()
		a, b := f(inc), f(ref)
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("seed %d step %d %s: incremental %v, reference %v", seed, step, what, a, b)
		}
		if inc.bug != nil {
			t.Fatalf("seed %d step %d %s: %v", seed, step, what, inc.bug)
		}
	}
	leaves := []string{"a1", "a2", "a3", "b", "z", "c", "r0", "r1", "r2", "r3", "r4"}
	var nodes, apps []string
	var live []ContainerID
	for step := range steps {
		clock.Advance(int64(rng.IntN(50)))
		switch op := rng.IntN(15); {
		case op < 2 || len(nodes) == 0:
			id := fmt.Sprintf("n%d", step)
			spec := NodeSpec{ID: id, Rack: fmt.Sprintf("/r%d", rng.IntN(3)), Capability: berth.New(int64(2+rng.IntN(15))*1024, int64(2+rng.IntN(15)))}
			both(step, "add node", func(s *Scheduler) any { return errText(s.AddNode(spec)) })
			nodes = append(nodes, id)
		case op == 2:
			i := rng.IntN(len(nodes))
			both(step, "remove node", func(s *Scheduler) any {
				out, err := s.RemoveNode(nodes[i])
				return fmt.Sprint(out, errText(err))
			})
			nodes = append(nodes[:i], nodes[i+1:]...)
		case op == 3:
			id := fmt.Sprintf("app%d", step)
			spec := AppSpec{ID: id, Queue: leaves[rng.IntN(len(leaves))], User: fmt.Sprintf("u%d", rng.IntN(3)), Priority: int32(rng.IntN(3))}
			if rng.IntN(2) == 0 {
				spec.AMResource = berth.New(1024, 1)
			}
			both(step, "submit", func(s *Scheduler) any {
				q, err := s.SubmitApp(spec)
				return q + errText(err)
			})
			apps = append(apps, id)
		case op < 6 && len(apps) > 0:
			id := apps[rng.IntN(len(apps))]
			name := AnyResource
			if rng.IntN(3) == 0 {
				name = nodes[rng.IntN(len(nodes))]
			}
			ask := Ask{Priority: int32(1 + rng.IntN(3)), ResourceName: name, Capability: berth.New(int64(256*(1+rng.IntN(16))), int64(1+rng.IntN(4))), Count: rng.IntN(5)}
			var rel []ContainerID
			if len(live) > 0 && rng.IntN(4) == 0 {
				rel = append(rel, live[rng.IntN(len(live))])
			}
			both(step, "allocate", func(s *Scheduler) any {
				h, err := s.Allocate(id, []Ask{ask}, rel)
				return fmt.Sprint(h, errText(err))
			})
		case op < 10:
			n := nodes[rng.IntN(len(nodes))]
			var done []ContainerID
			if len(live) > 0 && rng.IntN(2) == 0 {
				done = append(done, live[rng.IntN(len(live))])
			}
			var got []Allocation
			both(step, "heartbeat", func(s *Scheduler) any {
				als, err := s.Heartbeat(n, done)
				got = als
				return fmt.Sprint(als, errText(err))
			})
			for _, al := range got {
				live = append(live, al.ID)
			}
		case op == 10 && len(apps) > 0:
			i := rng.IntN(len(apps))
			if rng.IntN(2) == 0 {
				target := leaves[rng.IntN(len(leaves))]
				both(step, "move", func(s *Scheduler) any {
					q, err := s.MoveApp(apps[i], target)
					return q + errText(err)
				})
			} else {
				both(step, "finish", func(s *Scheduler) any {
					out, err := s.FinishApp(apps[i])
					return fmt.Sprint(out, errText(err))
				})
				apps = append(apps[:i], apps[i+1:]...)
			}
		case op == 11:
			v := rng.IntN(4)
			both(step, "reconfigure", func(s *Scheduler) any {
				ch, err := s.Reconfigure(orderConfig(v, dominant))
				return fmt.Sprint(ch, errText(err))
			})
		case op == 12 || op == 14:
			r := fmt.Sprintf("r%d", rng.IntN(5))
			c := float32(rng.IntN(3)) / 4
			k := rng.IntN(3)
			both(step, "reservation queue", func(s *Scheduler) any {
				switch k {
				case 0:
					return errText(s.AddReservationQueue("c", r))
				case 1:
					return errText(s.SetEntitlement(r, Entitlement{Capacity: c, MaxCapacity: 1}))
				}
				return errText(s.RemoveReservationQueue(r))
			})
		case op == 13 && len(live) > 0:
			id := live[rng.IntN(len(live))]
			both(step, "preempt", func(s *Scheduler) any {
				out, err := s.PreemptContainer(id)
				return fmt.Sprint(out, errText(err))
			})
		}
		after(inc, ref, step)
	}
	assert.Equal(t, ref.Snapshot(), inc.Snapshot(), "seed %d", seed)
}

// TestIncrementalOrderMatchesSort is the property: the orders kept
// incrementally decide exactly as sorting on every visit does.
func TestIncrementalOrderMatchesSort(t *testing.T) {
	n := 60
	if testing.Short() || raceEnabled {
		n = 10
	}
	for seed := range uint64(n) {
		lockstep(t, seed, 400)
	}
}

func FuzzIncrementalOrder(f *testing.F) {
	for _, s := range []uint64{1, 7, 42, 1234} {
		f.Add(s, uint16(300))
	}
	f.Fuzz(func(t *testing.T, seed uint64, steps uint16) {
		lockstep(t, seed, int(steps%800))
	})
}

// TestChildKeyAgreesWithCompare: on random queues with used capacities
// around the guarantee (so sides, priorities and ties all occur), the key
// order is cmpChildren's, and NaN usage is flagged.
func TestChildKeyAgreesWithCompare(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	us := []float32{0, 0.5, 0.99, 1, 1.5, 2, float32(math.Inf(1)), float32(math.NaN())}
	caps := []float64{0, 0, 0.1, 0.3}
	mk := func(pos int) *qnode {
		q := &qnode{tq: &tqueue{}, pos: pos, qpart: qpart{absCap: caps[rng.IntN(len(caps))], usedCap: us[rng.IntN(len(us))], absUsedCap: us[rng.IntN(len(us))]}}
		q.tq.Payload.Priority = rng.IntN(3)
		return q
	}
	for range 100000 {
		a, b := mk(rng.IntN(3)), mk(3+rng.IntN(3))
		for _, prio := range []bool{false, true} {
			ka, kb := childKeyOf(a, prio), childKeyOf(b, prio)
			if ka.bad || kb.bad {
				continue
			}
			want, got := cmpChildren(a, b, prio), cmpChildKey(&ka, &kb)
			if (want < 0) != (got < 0) || (want > 0) != (got > 0) {
				t.Fatalf("prio %v: cmpChildren %d, key %d (%+v %+v)", prio, want, got, ka, kb)
			}
		}
	}
}

// TestAppKeyAgreesWithCompare: the application key orders as cmpFair and
// fifoBefore do.
func TestAppKeyAgreesWithCompare(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	mk := func(seq uint64) *app {
		return &app{seq: seq, priority: int32(rng.IntN(3)), start: int64(rng.IntN(2)), sortUsed: int64(rng.IntN(4)) * 512, sortDemand: int64(rng.IntN(4)) * 512}
	}
	for i := range uint64(100000) {
		a, b := mk(2*i), mk(2*i+1)
		for _, pol := range []AppOrdering{OrderFIFO, OrderFair} {
			for _, sw := range []bool{false, true} {
				ka, kb := appKeyOf(pol, sw, a), appKeyOf(pol, sw, b)
				before := appBefore(pol, sw)
				got := cmpAppKey(&ka, &kb)
				if before(a, b) != (got < 0) || before(b, a) != (got > 0) {
					t.Fatalf("%v size %v: key %d disagrees (%+v %+v)", pol, sw, got, a, b)
				}
			}
		}
	}
}

// checkPrefixes fails when the Order's prefixes of two keys disagree with
// their comparison (the Order decides on prefixes first).
func checkPrefixes(t *testing.T, a, b appKey, ca, cb childKey) {
	t.Helper()
	sign := func(c int) int { return min(max(c, -1), 1) }
	pa, pb := appPrefix(&a), appPrefix(&b)
	if pc, c := sign(slices.Compare(pa[:], pb[:])), sign(cmpAppKey(&a, &b)); pc != 0 && pc != c {
		t.Fatalf("app keys %+v %+v: compare %d, prefixes %d", a, b, c, pc)
	}
	qa, qb := childPrefix(&ca), childPrefix(&cb)
	if pc, c := sign(slices.Compare(qa[:], qb[:])), sign(cmpChildKey(&ca, &cb)); pc != 0 && pc != c {
		t.Fatalf("child keys %+v %+v: compare %d, prefixes %d", ca, cb, c, pc)
	}
}

// TestOrderPrefixesFollowKeys: on keys with the values the policies
// produce (ties, zeros of both signs, infinities, negatives), prefixes
// never order two keys against their comparison.
func TestOrderPrefixesFollowKeys(t *testing.T) {
	vals := []float64{0, math.Copysign(0, -1), 1, -1, 0.5, 2, math.Inf(1), math.Inf(-1), 1e-300, -3}
	rng := rand.New(rand.NewPCG(5, 5))
	f := func() float64 { return vals[rng.IntN(len(vals))] }
	for range 100000 {
		a := appKey{k: [3]float64{f(), f(), f()}, seq: uint64(rng.IntN(3))}
		b := appKey{k: [3]float64{f(), f(), f()}, seq: uint64(rng.IntN(3))}
		ca := childKey{k: [5]float64{f(), f(), f(), f(), f()}, pos: rng.IntN(3)}
		cb := childKey{k: [5]float64{f(), f(), f(), f(), f()}, pos: rng.IntN(3)}
		checkPrefixes(t, a, b, ca, cb)
	}
}

func FuzzOrderPrefixes(f *testing.F) {
	f.Add(1.0, 0.0, -1.0, 2.0, uint64(1), uint64(2))
	f.Add(0.0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), uint64(0), uint64(0))
	f.Fuzz(func(t *testing.T, x, y, z, w float64, s1, s2 uint64) {
		for _, v := range []float64{x, y, z, w} {
			if math.IsNaN(v) {
				return // keys are never NaN: NaN scores are keyed as +Inf or bad
			}
		}
		a, b := appKey{k: [3]float64{x, y, z}, seq: s1}, appKey{k: [3]float64{y, x, w}, seq: s2}
		ca := childKey{k: [5]float64{x, y, z, w, x}, pos: int(s1 % 7)}
		cb := childKey{k: [5]float64{x, z, y, w, y}, pos: int(s2 % 7)}
		checkPrefixes(t, a, b, ca, cb)
		checkPrefixes(t, a, a, ca, ca)
	})
}

// TestIdleChildrenLeaveTheOrder: a plan's kept order holds only its
// reservation queues with pending demand; an idle queue whose usage
// changed while it was out comes back keyed afresh, in its sorted place.
func TestIdleChildrenLeaveTheOrder(t *testing.T) {
	for _, child := range []ChildOrdering{OrderUtilization, OrderPriorityUtilization} {
		t.Run(child.String(), func(t *testing.T) {
			s, _, _ := idleQueuesWorld(t, child, 40)
			s.checkOrder = true
			plan := s.byPath["root.plan"]
			require.True(t, plan.keyed)
			kept := func() []string {
				var out []string
				plan.kids.Ascend(func(c *qnode) bool { out = append(out, c.name); return true })
				return out
			}
			assert.Equal(t, []string{"busy"}, kept(), "the idle queues are left out")
			require.NoError(t, s.Check())

			// idle_00007 gets one container, then goes idle holding it:
			// its used capacity changes while it is out of the order.
			ask := func(app string, n int) {
				_, err := s.Allocate(app, []Ask{{Priority: 1, ResourceName: AnyResource, Capability: berth.New(1024, 1), Count: n}}, nil)
				require.NoError(t, err)
			}
			_, err := s.SubmitApp(AppSpec{ID: "late", Queue: "idle_00007", User: "v"})
			require.NoError(t, err)
			ask("late", 1)
			assert.Equal(t, []string{"idle_00007", "busy"}, kept(), "demand brings it in, before the busier queue")
			require.NoError(t, s.Check())
			als, err := s.Heartbeat("spare", nil)
			require.NoError(t, err)
			require.Len(t, als, 1)
			assert.Equal(t, "late", als[0].App)
			assert.Equal(t, []string{"busy"}, kept(), "served, it leaves again")
			require.NoError(t, s.Check())

			// busy releases everything, so uses less than late's queue,
			// which comes back after busy, on its key of now (on its key of
			// when it left, using nothing, it would come first).
			var done []ContainerID
			for _, c := range s.Snapshot().Containers {
				if c.App == "app" {
					done = append(done, c.ID)
				}
			}
			_, err = s.Allocate("app", nil, done)
			require.NoError(t, err)
			ask("late", 1)
			assert.Equal(t, []string{"busy", "idle_00007"}, kept())
			require.NoError(t, s.Check())

			// Cancelling the ask takes it out; releasing its container while
			// it is out changes its key again (using nothing, it goes first).
			ask("late", 0)
			assert.Equal(t, []string{"busy"}, kept())
			_, err = s.Allocate("late", nil, []ContainerID{als[0].ID})
			require.NoError(t, err)
			ask("late", 1)
			assert.Equal(t, []string{"idle_00007", "busy"}, kept(), "keyed afresh when it comes back")
			require.NoError(t, s.Check())

			// Cancelling the ask takes it out, finishing brings nothing back.
			ask("late", 0)
			assert.Equal(t, []string{"busy"}, kept())
			_, err = s.FinishApp("late")
			require.NoError(t, err)
			assert.Equal(t, []string{"busy"}, kept())
			require.NoError(t, s.Check())
			require.NoError(t, s.bug)
		})
	}
}
