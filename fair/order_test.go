package fair

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// orderAllocs are the files the lock-step runs switch between: every policy
// at every level it is allowed, zero and fractional weights, min shares
// (needy queues), max shares.
var orderAllocs = []string{`<allocations>
<queue name="root"><schedulingPolicy>drf</schedulingPolicy>
  <queue name="a"><weight>2</weight><maxRunningApps>3</maxRunningApps><minResources>3072 mb, 2 vcores</minResources></queue>
  <queue name="b"><schedulingPolicy>drf</schedulingPolicy><weight>0</weight><maxResources>50%</maxResources></queue>
  <queue name="c"><schedulingPolicy>fifo</schedulingPolicy><minResources>2048 mb, 2 vcores</minResources></queue>
  <queue name="p" type="parent"><schedulingPolicy>fair</schedulingPolicy><maxChildResources>8192 mb, 8 vcores</maxChildResources>
    <queue name="x"><weight>0.5</weight><minResources>1024 mb, 0 vcores</minResources></queue><queue name="y"/></queue>
  <queue name="plan"><reservation/></queue>
</queue>
<user name="u1"><maxRunningApps>2</maxRunningApps></user>
</allocations>`, `<allocations>
<defaultQueueSchedulingPolicy>fair</defaultQueueSchedulingPolicy>
<queue name="a"><weight>0</weight></queue>
<queue name="b"><weight>3</weight><minResources>4096 mb, 4 vcores</minResources></queue>
<queue name="c"><schedulingPolicy>fifo</schedulingPolicy></queue>
<queue name="p" type="parent"><queue name="x"><weight>0</weight></queue><queue name="y"><minResources>1024 mb, 1 vcores</minResources></queue></queue>
<queue name="plan"><reservation/></queue>
</allocations>`, `<allocations>
<defaultQueueSchedulingPolicy>drf</defaultQueueSchedulingPolicy>
<queue name="a" type="parent"><queue name="x"/></queue>
<queue name="b"><weight>1.5</weight></queue>
<queue name="p"><maxRunningApps>1</maxRunningApps></queue>
</allocations>`}

// lockstep drives an incremental scheduler (which also compares its kept
// orders with sorts on every walk) and a reference that sorts on every
// visit, as YARN does, with the same random operations, and fails at the
// first result that differs.
//
// With lazy set, the reference also charges the shared tree's books at once
// (eagerAcct) while the incremental scheduler defers them (accountApp), and
// the trees' books are compared only now and then (each comparison charges
// what was deferred), so deferred charges live across operations of every
// kind.
func lockstep(t *testing.T, seed uint64, steps int) { lockstepMode(t, seed, steps, false) }

func lockstepMode(t *testing.T, seed uint64, steps int, lazy bool) {
	rng := rand.New(rand.NewPCG(seed, 11))
	cfg := DefaultConfig()
	cfg.AssignMultiple = rng.IntN(2) == 0
	cfg.SizeBasedWeight = rng.IntN(2) == 0
	cfg.Preemption = rng.IntN(2) == 0
	cfg.PreemptionUtilizationThreshold = 0.1
	if rng.IntN(2) == 0 {
		cfg.ResourceTypes = []string{"gpu"} // DRF over N types
	}
	if rng.IntN(2) == 0 {
		cfg.LocalityThresholdNode, cfg.LocalityThresholdRack = 0.3, 0.3
	}
	cfg.Groups = queue.GroupsFunc(func(u string) []string { return []string{"g" + u} })
	parse := func(i int) *AllocationFile {
		af, err := ParseAllocationFile([]byte(orderAllocs[i]), ParseOptions{ResourceTypes: cfg.ResourceTypes})
		require.NoError(t, err)
		return af
	}
	clock := berth.NewManualClock(0)
	first := rng.IntN(len(orderAllocs))
	cfg.Allocation = parse(first)
	cfg.Clock = clock
	inc, err := New(cfg)
	require.NoError(t, err)
	cfg.Allocation = parse(first)
	cfg.Clock = clock
	ref, err := New(cfg)
	require.NoError(t, err)
	inc.checkOrder, ref.sortWalk, ref.eagerAcct = true, true, lazy
	if seed%4 != 3 {
		inc.sortSmall = int(seed % 3) // keep the orders of (nearly) every set
	}
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
			t.Fatalf("seed %d step %d %s: incremental %v, reference %v (bug %v)", seed, step, what, a, b, inc.bug)
		}
		if inc.bug != nil {
			t.Fatalf("seed %d step %d %s: %v", seed, step, what, inc.bug)
		}
		if lazy {
			if rng.IntN(8) == 0 {
				assert.Equal(t, errText(ref.Check()), errText(inc.Check()), "seed %d step %d %s", seed, step, what)
				if got, want := inc.SnapshotOf(SnapshotTree).Tree, ref.SnapshotOf(SnapshotTree).Tree; !reflect.DeepEqual(got, want) {
					t.Fatalf("seed %d step %d %s: deferred books %v, eager %v", seed, step, what, got, want)
				}
			}
			return
		}
		// The shared tree is always in step: a full sync changes nothing
		// (AddReservationQueue adds its queue alone), once the deferred
		// charges are in (accountApp).
		inc.flushAccounts()
		before := inc.tree.Snapshot()
		inc.syncTree()
		if !reflect.DeepEqual(before, inc.tree.Snapshot()) || inc.bug != nil {
			t.Fatalf("seed %d step %d %s: a full sync changes the shared tree (bug %v)", seed, step, what, inc.bug)
		}
	}
	queues := []string{"a", "b", "c", "p.x", "p.y", "plan", "default", "a.x"}
	var nodes, apps []string
	var live []ContainerID
	for step := range steps {
		switch op := rng.IntN(14); op {
		case 0, 1:
			id := fmt.Sprintf("n%d", step)
			c := berth.New(1024*int64(1+rng.IntN(8)), int64(1+rng.IntN(8)))
			if len(cfg.ResourceTypes) > 0 && rng.IntN(2) == 0 {
				c = c.With("gpu", int64(rng.IntN(3)))
			}
			rack := fmt.Sprintf("/r%d", rng.IntN(2))
			both(step, "add node", func(s *Scheduler) any {
				return errText(s.AddNode(NodeSpec{ID: id, Rack: rack, Capability: c}))
			})
			nodes = append(nodes, id)
		case 2:
			if len(nodes) > 0 {
				i := rng.IntN(len(nodes))
				both(step, "remove node", func(s *Scheduler) any {
					out, err := s.RemoveNode(nodes[i])
					return fmt.Sprint(out, errText(err))
				})
				nodes = append(nodes[:i], nodes[i+1:]...)
			}
		case 3:
			id := fmt.Sprintf("app%d", step)
			spec := AppSpec{ID: id, Queue: queues[rng.IntN(len(queues))], User: fmt.Sprintf("u%d", rng.IntN(3))}
			if rng.IntN(3) == 0 {
				spec.AMResource = berth.New(512, 1)
			}
			clock.Advance(int64(rng.IntN(3)))
			both(step, "submit", func(s *Scheduler) any {
				q, err := s.SubmitApp(spec)
				return q + errText(err)
			})
			apps = append(apps, id)
		case 4, 5:
			if len(apps) > 0 {
				a := apps[rng.IntN(len(apps))]
				name := AnyResource
				if len(nodes) > 0 && rng.IntN(3) == 0 {
					name = nodes[rng.IntN(len(nodes))]
				}
				ask := Ask{Priority: int32(rng.IntN(3)), ResourceName: name, Capability: berth.New(256*int64(1+rng.IntN(12)), int64(1+rng.IntN(3))), Count: rng.IntN(6), StrictLocality: rng.IntN(5) == 0}
				var rel []ContainerID
				if len(live) > 0 && rng.IntN(4) == 0 {
					rel = append(rel, live[rng.IntN(len(live))])
				}
				both(step, "allocate", func(s *Scheduler) any {
					h, err := s.Allocate(a, []Ask{ask}, rel)
					return fmt.Sprint(h, errText(err))
				})
			}
		case 6, 7, 8:
			if len(nodes) > 0 {
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
			}
		case 9:
			d := int64(rng.IntN(1500))
			clock.Advance(d)
			both(step, "update", func(s *Scheduler) any { s.Update(); return nil })
		case 10:
			if len(apps) > 0 {
				i := rng.IntN(len(apps))
				if rng.IntN(2) == 0 {
					target := queues[rng.IntN(len(queues))]
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
			}
		case 11:
			if len(live) > 0 {
				id := live[rng.IntN(len(live))]
				both(step, "preempt", func(s *Scheduler) any {
					out, err := s.PreemptContainer(id)
					return fmt.Sprint(out, errText(err))
				})
			}
		case 12:
			i := rng.IntN(len(orderAllocs))
			both(step, "reload", func(s *Scheduler) any {
				res, err := s.Reload(parse(i))
				return fmt.Sprint(res, errText(err))
			})
		case 13:
			r := fmt.Sprintf("r%d", rng.IntN(3))
			c := float32(rng.IntN(5)) / 4
			both(step, "reservation queue", func(s *Scheduler) any {
				switch step % 3 {
				case 0:
					return errText(s.AddReservationQueue("plan", r))
				case 1:
					return errText(s.SetEntitlement("root.plan."+r, Entitlement{Capacity: c, MaxCapacity: 1}))
				}
				return errText(s.RemoveReservationQueue("root.plan." + r))
			})
		}
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

// TestDeferredAccountsMatchEager is the property of the deferred charges
// of the shared tree (accountApp): every result, every check and the books
// whenever read are those of a scheduler charging at once.
func TestDeferredAccountsMatchEager(t *testing.T) {
	n := 60
	if testing.Short() || raceEnabled {
		n = 10
	}
	for seed := range uint64(n) {
		lockstepMode(t, seed, 400, true)
	}
}

// TestDeferredAccountsBounded: applications that come and go while the
// host never reads the tree do not pile up in the deferred list (each
// keeps its record alive until charged).
func TestDeferredAccountsBounded(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Clock = berth.NewManualClock(0)
	s, err := New(cfg)
	require.NoError(t, err)
	require.NoError(t, s.AddNode(NodeSpec{ID: "n", Rack: "/r", Capability: berth.New(8192, 8)}))
	for i := range 300 {
		id := fmt.Sprintf("app%d", i)
		_, err := s.SubmitApp(AppSpec{ID: id, Queue: "default", User: "u"})
		require.NoError(t, err)
		_, err = s.Allocate(id, []Ask{{Priority: 1, ResourceName: AnyResource, Capability: berth.New(1024, 1), Count: 1}}, nil)
		require.NoError(t, err)
		s.Update()
		als, err := s.Heartbeat("n", nil)
		require.NoError(t, err)
		require.Len(t, als, 1, "app %d", i)
		_, err = s.FinishApp(id)
		require.NoError(t, err)
		// at most one more than the most applications alive at once
		require.LessOrEqual(t, len(s.acctDirty), 2, "after app %d", i)
	}
	require.NoError(t, s.Check())
	assert.True(t, s.SnapshotOf(SnapshotTree).Tree.Queues[0].Usage.Used.IsZero(), "every container released in the books")
}

func FuzzIncrementalOrder(f *testing.F) {
	for _, s := range []uint64{1, 7, 42, 1234} {
		f.Add(s, uint16(300))
	}
	f.Fuzz(func(t *testing.T, seed uint64, steps uint16) {
		lockstep(t, seed, int(steps%800))
	})
}

// sched builds a Schedulable from fuzz inputs, with the edge values the
// comparators meet: zero and negative weights, zero min shares, demand of
// zero.
func sched(name string, start int64, vals []int64, w float64) *Schedulable {
	at := func(i int) int64 { return vals[i%len(vals)] }
	return &Schedulable{Name: name, StartTime: start, Weight: w, Priority: int32(at(7) % 3),
		Demand:   berth.New(at(0), at(1)).With("gpu", at(8)),
		Usage:    berth.New(at(2), at(3)).With("gpu", at(9)),
		MinShare: berth.New(at(4), at(5)).With("gpu", at(10))}
}

// checkKeyAgrees fails when two keyable items' keys order differently from
// Compare, or a key is not a total order with its name tie-break.
func checkKeyAgrees(t *testing.T, cluster berth.Resource, types []string, a, b *Schedulable) {
	t.Helper()
	for _, p := range []Policy{PolicyFair, PolicyFIFO, PolicyDRF} {
		ka, kb := p.key(cluster, types, a), p.key(cluster, types, b)
		if ka.bad || kb.bad {
			continue
		}
		want := p.Compare(cluster, types, a, b)
		got := cmpKey(&ka, &kb)
		if (want < 0) != (got < 0) || (want > 0) != (got > 0) {
			t.Fatalf("%v types %v: Compare %d, key %d\n a=%+v %+v\n b=%+v %+v", p, types, want, got, a, ka, b, kb)
		}
		if cmpKey(&ka, &ka) != 0 {
			t.Fatalf("%v: key not reflexive", p)
		}
		// The Order decides on prefixes first: they must follow Compare
		// within a policy's keys.
		ka.fam, kb.fam = p.keyFamily(types), p.keyFamily(types)
		pa, pb := keyPrefix(&ka), keyPrefix(&kb)
		if pc := slices.Compare(pa[:], pb[:]); (want < 0 && pc > 0) || (want > 0 && pc < 0) {
			t.Fatalf("%v types %v: Compare %d, prefixes %d\n a=%+v %x\n b=%+v %x", p, types, want, pc, ka, pa, kb, pb)
		}
	}
}

// TestSortKeyAgreesWithCompare: on random schedulables with small values
// (so ties and boundaries are common), the key order is Compare's.
func TestSortKeyAgreesWithCompare(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	weights := []float64{0, 1, 2, 0.5, -1, -2, math.Inf(1), 1e-300}
	clusters := []berth.Resource{berth.New(8192, 8).With("gpu", 4), berth.New(8192, 0).With("gpu", 0), berth.New(0, 0)}
	// Names that share their first eight bytes, or are prefixes of others,
	// exercise the name part of the prefixes.
	names := []string{"a", "b", "ab", "app00012", "app000123", "app000124", "app00012\x00", "root.p1", "root.p10", ""}
	n := 200000
	if testing.Short() || raceEnabled {
		n = 50000
	}
	for range n {
		vals := make([]int64, 11)
		for i := range vals {
			vals[i] = int64(rng.IntN(4))
		}
		na, nb := names[rng.IntN(len(names))], names[rng.IntN(len(names))]
		if na == nb {
			na, nb = "a", "b"
		}
		a := sched(na, int64(rng.IntN(3))-1, vals, weights[rng.IntN(len(weights))])
		for i := range vals {
			vals[i] = int64(rng.IntN(4))
		}
		b := sched(nb, int64(rng.IntN(3))-1, vals, weights[rng.IntN(len(weights))])
		cl := clusters[rng.IntN(len(clusters))]
		checkKeyAgrees(t, cl, nil, a, b)
		checkKeyAgrees(t, cl, []string{"gpu"}, a, b)
	}
}

func FuzzSortKey(f *testing.F) {
	f.Add(int64(1), int64(2), int64(0), int64(3), int64(1), int64(1), 1.0, 2.0, int64(8192), int64(8))
	f.Add(int64(0), int64(0), int64(0), int64(0), int64(0), int64(0), 0.0, -1.0, int64(0), int64(0))
	f.Fuzz(func(t *testing.T, d1, u1, m1, d2, u2, m2 int64, w1, w2 float64, cm, cv int64) {
		a := sched("a", 0, []int64{d1, d2, u1, u2, m1, m2, d1, u1, m2, u1, m1}, w1)
		b := sched("b", 0, []int64{d2, d1, u2, u1, m2, m1, d2, u2, m1, u2, m2}, w2)
		cl := berth.New(cm, cv).With("gpu", cv)
		checkKeyAgrees(t, cl, nil, a, b)
		checkKeyAgrees(t, cl, []string{"gpu"}, a, b)
	})
}

// TestDRFSharesExact: drfShares2 skips the division by a weight of 1; its
// shares must be bit for bit those of dividing (the keys, and so every
// decision, are then unchanged), for random and edge usages, clusters and
// weights, NaN and infinities included.
func TestDRFSharesExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 14))
	edges := []int64{0, 1, -1, 3, 1 << 20, 327680000, 1<<53 + 1, math.MaxInt64, math.MinInt64}
	val := func() int64 {
		if rng.IntN(3) == 0 {
			return edges[rng.IntN(len(edges))]
		}
		return rng.Int64N(1<<40) - 1<<20
	}
	weights := []float64{1, 1, 1, 0, -1, 2, 0.5, 3, math.Inf(1), math.NaN(), 1e-300}
	same := func(x, y float64) bool {
		return math.Float64bits(x) == math.Float64bits(y) || (math.IsNaN(x) && math.IsNaN(y))
	}
	for range 200000 {
		s := &Schedulable{Usage: berth.New(val(), val()), Weight: weights[rng.IntN(len(weights))]}
		cl := berth.New(val(), val())
		got, d := drfShares2(s, cl)
		m := float64(s.Usage.Memory) / float64(cl.Memory)
		v := float64(s.Usage.VCores) / float64(cl.VCores)
		wantD := 0
		if v > m {
			wantD = 1
		}
		want := [2]float64{m / s.Weight, v / s.Weight}
		require.Equal(t, wantD, d)
		if !same(got[0], want[0]) || !same(got[1], want[1]) {
			t.Fatalf("usage %v cluster %v weight %v: shares %v, dividing gives %v", s.Usage, cl, s.Weight, got, want)
		}
	}
}
