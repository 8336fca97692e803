package fair

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// lifo is a host policy for leaves: newest application first; it takes
// the default shares, child rule and headroom.
type lifo struct {
	keyed  bool
	nanKey bool // SortKey returns NaN (misbehaving)
}

func (lifo) Name() string                 { return "lifo" }
func (lifo) Calculator() berth.Calculator { return berth.MemoryCalculator{} }
func (lifo) LeafOnly() bool               { return true }
func (lifo) Compare(_ PolicyEnv, a, b SchedulableView) int {
	if c := cmp.Compare(b.StartTime(), a.StartTime()); c != 0 {
		return c
	}
	return strings.Compare(a.Name(), b.Name())
}

// keyedLifo adds the sort key fast path.
type keyedLifo struct{ lifo }

func (p keyedLifo) SortKey(_ PolicyEnv, s SchedulableView, k *SortKey) bool {
	if p.nanKey {
		k.Major[0] = math.NaN()
		return true
	}
	k.Major[0] = -float64(s.StartTime())
	return true
}

// chaotic is a misbehaving policy: its order is not a strict weak order
// (it answers from a counter) and its shares can be negative.
type chaotic struct {
	lifo
	n        *int
	negative bool
}

func (c chaotic) Compare(_ PolicyEnv, a, b SchedulableView) int {
	*c.n++
	return []int{-1, 1, 0}[*c.n%3]
}

func (c chaotic) ComputeShares(env PolicyEnv, items []SchedulableView, total berth.Resource, steady bool, out []berth.Resource) {
	defaultPolicy.ComputeShares(env, items, total, steady, out)
	if c.negative && !steady {
		for i := range out {
			out[i].Memory = -1
		}
	}
}

func policyRegistry(t *testing.T, name string, p SchedulingPolicy) *queue.Registry[SchedulingPolicy] {
	r := &queue.Registry[SchedulingPolicy]{Kind: "scheduling policy"}
	require.NoError(t, r.Register(name, p))
	return r
}

// runJobs submits n applications one tick apart to root.jobs, each asking
// four 1 GB containers, offers one node fitting k containers and returns
// the applications served, in allocation order.
func runJobs(t *testing.T, opts ParseOptions, policy string, n, k int, check bool) (*Scheduler, []string) {
	t.Helper()
	af, err := ParseAllocationFile([]byte(allocXML(`<queue name="jobs"><schedulingPolicy>`+policy+`</schedulingPolicy></queue>`)), opts)
	require.NoError(t, err)
	clock := berth.NewManualClock(0)
	cfg := DefaultConfig()
	cfg.Allocation = af
	cfg.Clock = clock
	s, err := New(cfg)
	require.NoError(t, err)
	s.checkOrder = check
	for i := range n {
		clock.Advance(1)
		id := fmt.Sprintf("app%02d", i)
		_, err := s.SubmitApp(AppSpec{ID: id, User: "u", Queue: "root.jobs"})
		require.NoError(t, err)
		_, err = s.Allocate(id, []Ask{{Priority: 1, ResourceName: AnyResource, Capability: berth.New(1024, 1), Count: 4}}, nil)
		require.NoError(t, err)
	}
	require.NoError(t, s.AddNode(NodeSpec{ID: "n1", Capability: berth.New(int64(k)*1024, int64(k))}))
	s.Update()
	var served []string
	for range k {
		allocs, err := s.Heartbeat("n1", nil)
		require.NoError(t, err)
		for _, a := range allocs {
			served = append(served, a.App)
		}
	}
	require.NoError(t, s.Check())
	return s, served
}

func TestCustomPolicyChangesDecisions(t *testing.T) {
	// 12 applications: more than smallSet, so the keyed policy runs on the
	// incremental order and the plain one on the per-visit sort.
	for _, tc := range []struct {
		name string
		pol  SchedulingPolicy
	}{{"compare only", lifo{}}, {"sort key", keyedLifo{}}} {
		t.Run(tc.name, func(t *testing.T) {
			s, served := runJobs(t, ParseOptions{Policies: policyRegistry(t, "lifo", tc.pol)}, "lifo", 12, 3, true)
			require.Len(t, served, 3)
			// Newest first; each allocation adds usage, but LIFO ignores it.
			assert.Equal(t, []string{"app11", "app11", "app11"}, served)
			assert.Equal(t, "lifo", s.Snapshot().Queue("root.jobs").PolicyName)
			assert.NoError(t, s.PolicyError())
		})
	}
	_, served := runJobs(t, ParseOptions{}, "fifo", 12, 3, true)
	assert.Equal(t, []string{"app00", "app00", "app00"}, served, "the built-in FIFO serves the oldest")
}

func TestCustomPolicyConfig(t *testing.T) {
	reg := policyRegistry(t, "lifo", lifo{})
	require.NoError(t, reg.Register("fair", lifo{})) // a built-in name always wins

	t.Run("unknown name", func(t *testing.T) {
		_, err := ParseAllocationFile([]byte(allocXML(`<queue name="a"><schedulingPolicy>sjf</schedulingPolicy></queue>`)), ParseOptions{Policies: reg})
		var fe *berth.FieldError
		require.True(t, errors.As(err, &fe), "%v", err)
		assert.Equal(t, "queue[root.a].schedulingPolicy", fe.Field)
		var un *queue.UnknownNameError
		require.True(t, errors.As(err, &un))
		assert.Equal(t, "sjf", un.Name)
		assert.Equal(t, []string{"fair", "lifo"}, un.Known)
		assert.ErrorIs(t, err, berth.ErrInvalidArgument)
	})
	t.Run("default policy by name", func(t *testing.T) {
		_, err := ParseAllocationFile([]byte(allocXML(`<defaultQueueSchedulingPolicy>lifo</defaultQueueSchedulingPolicy>`)), ParseOptions{Policies: reg})
		var fe *berth.FieldError
		require.True(t, errors.As(err, &fe))
		assert.Equal(t, "defaultQueueSchedulingPolicy", fe.Field, "a leaf-only policy cannot be the default")
	})
	t.Run("built-in wins", func(t *testing.T) {
		af, err := ParseAllocationFile([]byte(allocXML(`<queue name="a"><schedulingPolicy>fair</schedulingPolicy></queue>`)), ParseOptions{Policies: reg})
		require.NoError(t, err)
		assert.Nil(t, af.Settings("root.a").SchedulingPolicy)
		assert.Equal(t, PolicyFair, af.Settings("root.a").Policy)
	})
	t.Run("go config", func(t *testing.T) {
		af, err := ParseAllocationFile([]byte(allocXML(`<queue name="a"/>`)), ParseOptions{})
		require.NoError(t, err)
		af.Queue("root.a").SchedulingPolicy = keyedLifo{}
		cfg := DefaultConfig()
		cfg.Allocation = af
		cfg.Clock = berth.NewManualClock(0)
		s, err := New(cfg)
		require.NoError(t, err)
		q := s.Snapshot().Queue("root.a")
		require.NotNil(t, q)
		assert.Equal(t, "lifo", q.PolicyName)
		assert.Equal(t, Policy(0), q.Policy)
	})
	t.Run("leaf-only policy on a parent", func(t *testing.T) {
		af, err := ParseAllocationFile([]byte(allocXML(`<queue name="p"><schedulingPolicy>lifo</schedulingPolicy><queue name="c"/></queue>`)), ParseOptions{Policies: reg})
		require.NoError(t, err)
		cfg := DefaultConfig()
		cfg.Allocation = af
		cfg.Clock = berth.NewManualClock(0)
		s, err := New(cfg)
		require.NoError(t, err)
		assert.Nil(t, s.Snapshot().Queue("root.p.c"), "as for FIFO, the parent is not created")
	})
}

// A misbehaving policy never corrupts the scheduler: an order that is not a
// strict weak order still visits each application once (the books check),
// a NaN sort key falls back to the sort, a negative share is rejected
// with a typed error and the previous shares kept.
func TestMisbehavingPolicy(t *testing.T) {
	t.Run("not a strict weak order", func(t *testing.T) {
		n := 0
		s, served := runJobs(t, ParseOptions{Policies: policyRegistry(t, "x", chaotic{n: &n})}, "x", 12, 6, false)
		assert.Len(t, served, 6, "the node is filled regardless of the order")
		assert.Positive(t, n)
		assert.NoError(t, s.PolicyError())
	})
	t.Run("NaN sort key", func(t *testing.T) {
		s, served := runJobs(t, ParseOptions{Policies: policyRegistry(t, "x", keyedLifo{lifo{nanKey: true}})}, "x", 12, 3, true)
		assert.Equal(t, []string{"app11", "app11", "app11"}, served, "placed by Compare")
		q := s.queues["root.jobs"]
		assert.Positive(t, q.appOrd.bad, "NaN keys are marked for sorting")
	})
	t.Run("negative share", func(t *testing.T) {
		n := 0
		s, _ := runJobs(t, ParseOptions{Policies: policyRegistry(t, "x", chaotic{n: &n, negative: true})}, "x", 3, 2, false)
		err := s.PolicyError()
		require.Error(t, err)
		var pe *PolicyError
		require.True(t, errors.As(err, &pe))
		assert.Equal(t, "root.jobs", pe.Queue)
		assert.Equal(t, "lifo", pe.Policy)
		assert.ErrorIs(t, err, berth.ErrInvalidArgument)
		for _, a := range s.Snapshot().Apps {
			assert.False(t, a.FairShare.AnyNegative(), "%s: no negative share installed", a.ID)
		}
	})
}

// The built-ins answer through the interface exactly as the enum does.
func TestBuiltinPoliciesThroughInterface(t *testing.T) {
	cluster := berth.New(100000, 100)
	a := &Schedulable{Name: "a", Weight: 1, Demand: berth.New(4096, 4), Usage: berth.New(1024, 3), StartTime: 1}
	b := &Schedulable{Name: "b", Weight: 2, Demand: berth.New(8192, 2), Usage: berth.New(2048, 1), StartTime: 2}
	for _, p := range []Policy{PolicyFair, PolicyFIFO, PolicyDRF} {
		sp := p.SchedulingPolicy()
		require.NotNil(t, sp)
		assert.Equal(t, p.String(), sp.Name())
		env := PolicyEnv{Cluster: cluster}
		assert.Equal(t, p.Compare(cluster, nil, a, b), sp.(Orderer).Compare(env, ViewOf(a), ViewOf(b)))
		assert.Equal(t, p == PolicyFIFO, sp.(LeafOnlyPolicy).LeafOnly())
		assert.Implements(t, (*ShareDivider)(nil), sp)
		assert.Implements(t, (*TypeSharer)(nil), sp)
		fs, u, m := berth.New(4096, 4), berth.New(1024, 3), berth.New(2048, 8)
		assert.Equal(t, p.Headroom(fs, u, m), sp.(Headroomer).Headroom(fs, u, m))
		var ka, kb SortKey
		require.True(t, sp.(PolicyKeyer).SortKey(env, ViewOf(a), &ka))
		require.True(t, sp.(PolicyKeyer).SortKey(env, ViewOf(b), &kb))
	}
	fair := PolicyFair.SchedulingPolicy().(ChildFilter)
	assert.False(t, fair.AllowsChild(PolicyDRF.SchedulingPolicy()))
	assert.True(t, fair.AllowsChild(lifo{}), "YARN checks the DRF class only")
	assert.Nil(t, Policy(0).SchedulingPolicy())
}

// fuzzPolicy answers Compare, SortKey and ComputeShares from fuzz bytes:
// anything from a sane policy to one that contradicts itself, keys that
// disagree with Compare or hold NaN, and negative shares.
type fuzzPolicy struct {
	lifo
	data []byte
	i    *int
}

func (f fuzzPolicy) next() byte {
	*f.i++
	return f.data[*f.i%len(f.data)]
}

func (f fuzzPolicy) Compare(_ PolicyEnv, a, b SchedulableView) int { return int(f.next()%3) - 1 }

func (f fuzzPolicy) SortKey(_ PolicyEnv, s SchedulableView, k *SortKey) bool {
	switch b := f.next(); b % 4 {
	case 0:
		return false
	case 1:
		k.Major[0] = math.NaN()
	default:
		k.Major[b%6] = float64(int8(f.next()))
		if b%8 == 3 {
			k.More = []float64{float64(f.next())}
		}
	}
	return true
}

func (f fuzzPolicy) ComputeShares(_ PolicyEnv, items []SchedulableView, total berth.Resource, _ bool, out []berth.Resource) {
	for i := range out {
		out[i] = berth.New(int64(int8(f.next()))*64, int64(int8(f.next())))
	}
}

// FuzzCustomPolicy: whatever a host's policy answers, the scheduler's
// books stay right, no negative share is installed and a rejection is a
// *PolicyError.
func FuzzCustomPolicy(f *testing.F) {
	f.Add([]byte{0, 1, 2}, uint8(12))
	f.Add([]byte{1, 1, 1, 200, 7}, uint8(3))
	f.Add([]byte{2, 3, 250, 9, 4, 4}, uint8(20))
	f.Fuzz(func(t *testing.T, data []byte, n uint8) {
		if len(data) == 0 {
			return
		}
		i := 0
		var pol SchedulingPolicy = fuzzPolicy{data: data, i: &i}
		if data[0]%2 == 1 {
			// the same parts without the keyer: sorted per visit
			pol = struct {
				SchedulingPolicy
				Orderer
				ShareDivider
			}{pol, pol.(Orderer), pol.(ShareDivider)}
		}
		s, served := runJobs(t, ParseOptions{Policies: policyRegistry(t, "x", pol)}, "x", int(n%24)+1, 3, false)
		assert.LessOrEqual(t, len(served), 3)
		if err := s.PolicyError(); err != nil {
			var pe *PolicyError
			assert.True(t, errors.As(err, &pe))
		}
		snap := s.Snapshot()
		for _, a := range snap.Apps {
			assert.False(t, a.FairShare.AnyNegative(), a.ID)
		}
		for _, q := range snap.Queues {
			assert.False(t, q.FairShare.AnyNegative(), q.Path)
		}
	})
}
