package fair

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The parts of the defaults test, each changing one extension point in a
// way the default never does.
type (
	identity  struct{}
	newest    struct{} // Orderer: newest first (the default: oldest first)
	firstAll  struct{} // ShareDivider: the first item takes all memory
	noKids    struct{} // ChildFilter: no child at all
	leafPart  struct{} // LeafOnlyPolicy
	fixedRoom struct{} // Headroomer: a constant headroom
)

func (identity) Name() string                 { return "x" }
func (identity) Calculator() berth.Calculator { return berth.MemoryCalculator{} }
func (newest) Compare(env PolicyEnv, a, b SchedulableView) int {
	return lifo{}.Compare(env, a, b)
}
func (firstAll) ComputeShares(_ PolicyEnv, items []SchedulableView, total berth.Resource, _ bool, out []berth.Resource) {
	for i, v := range items {
		out[i] = berth.New(0, v.FairShare().VCores)
	}
	out[0].Memory = total.Memory
}
func (noKids) AllowsChild(SchedulingPolicy) bool                 { return false }
func (leafPart) LeafOnly() bool                                  { return true }
func (fixedRoom) Headroom(_, _, _ berth.Resource) berth.Resource { return berth.New(7, 7) }

// A policy implementing any subset of the extension points behaves as
// documented for the others: fair order, fair shares, any child, parents
// allowed, fair headroom.
func TestPolicyDefaults(t *testing.T) {
	for _, tc := range []partsCase{
		{name: "identity only", pol: identity{}},
		{name: "order", pol: struct {
			identity
			newest
		}{}, order: true},
		{name: "shares", pol: struct {
			identity
			firstAll
		}{}, shares: true},
		{name: "child filter", pol: struct {
			identity
			noKids
		}{}, children: true},
		{name: "leaf only", pol: struct {
			identity
			leafPart
		}{}, leafOnly: true},
		{name: "headroom", pol: struct {
			identity
			fixedRoom
		}{}, headroom: true},
		{name: "all", pol: struct {
			identity
			newest
			firstAll
			noKids
			leafPart
			fixedRoom
		}{}, order: true, shares: true, children: true, leafOnly: true, headroom: true},
	} {
		t.Run(tc.name, func(t *testing.T) { checkParts(t, tc) })
	}
	drf := struct{ SchedulingPolicy }{PolicyDRF.SchedulingPolicy()} // DRF's calculator, no Headroom
	fs, usage, avail := berth.New(8192, 8), berth.New(2048, 6), berth.New(4096, 4)
	assert.Equal(t, berth.New(4096, 2), headroomerOf(drf).Headroom(fs, usage, avail), "a dominant calculator counts vcores")
}

// partsCase is a policy and the extension points it implements.
type partsCase struct {
	name                                        string
	pol                                         SchedulingPolicy
	order, shares, children, leafOnly, headroom bool
}

// checkParts checks that tc.pol decides by its parts where it has them
// and by the documented defaults elsewhere.
func checkParts(t *testing.T, tc partsCase) {
	opts := ParseOptions{Policies: policyRegistry(t, "x", tc.pol)}
	s, served := runJobs(t, opts, "x", 4, 1, true)
	_, want := runJobs(t, ParseOptions{}, "fair", 4, 1, true)
	if tc.order {
		assert.Equal(t, []string{"app03"}, served, "newest first")
	} else {
		assert.Equal(t, want, served, "the fair order")
	}
	shares := map[string]int64{}
	for _, a := range s.Snapshot().Apps {
		shares[a.ID] = a.FairShare.Memory
	}
	if tc.shares {
		assert.Equal(t, map[string]int64{"app00": 1024, "app01": 0, "app02": 0, "app03": 0}, shares)
	} else {
		assert.Equal(t, map[string]int64{"app00": 256, "app01": 256, "app02": 256, "app03": 256}, shares, "the fair division")
	}

	// The scheduler answers an application's allocate call with the
	// policy's headroom (resolved once per queue, in setPolicy).
	room, err := s.Allocate("app00", nil, nil)
	require.NoError(t, err)
	if tc.headroom {
		assert.Equal(t, berth.New(7, 7), room, "the policy's headroom")
	} else {
		assert.NotEqual(t, berth.New(7, 7), room, "the default headroom")
	}

	// A parent with the policy, a DRF child under it: a queue
	// whose policy is not allowed where it stands is not created.
	af, err := ParseAllocationFile([]byte(allocXML(`<queue name="p" type="parent"><schedulingPolicy>x</schedulingPolicy>
<queue name="c"><schedulingPolicy>drf</schedulingPolicy></queue></queue>`)), opts)
	require.NoError(t, err)
	cfg := DefaultConfig()
	cfg.Allocation, cfg.Clock = af, berth.NewManualClock(0)
	s, err = New(cfg)
	require.NoError(t, err)
	created := s.Snapshot().Queue("root.p.c") != nil
	assert.Equal(t, !tc.children && !tc.leafOnly, created, "any child, parents allowed")

	fs, usage, avail := berth.New(8192, 8), berth.New(2048, 6), berth.New(4096, 1)
	room = headroomerOf(tc.pol).Headroom(fs, usage, avail)
	if tc.headroom {
		assert.Equal(t, berth.New(7, 7), room)
	} else {
		assert.Equal(t, PolicyFair.Headroom(fs, usage, avail), room)
	}
}

// composedFair is a host's policy assembled from the built-in fair
// policy's parts, without its fast paths: ordered by Compare alone (a
// sort per visit) and divided by ComputeShares alone.
type composedFair struct {
	SchedulingPolicy
	Orderer
	ShareDivider
	ChildFilter
}

func (composedFair) Name() string { return "composed-fair" }

func newComposedFair() composedFair {
	p := PolicyFair.SchedulingPolicy()
	return composedFair{p, p.(Orderer), p.(ShareDivider), p.(ChildFilter)}
}

// A policy composed of the fair policy's parts decides exactly as the
// built-in on random worlds: every answer of every operation and every
// snapshot (but the policy's name) are the same.
func TestComposedFairDecidesAsFair(t *testing.T) {
	n := 30
	if testing.Short() || raceEnabled {
		n = 4
	}
	reg := &queue.Registry[SchedulingPolicy]{Kind: "scheduling policy"}
	require.NoError(t, reg.Register("composed-fair", newComposedFair()))
	parse := func(xml string, composed bool) *AllocationFile {
		opts := ParseOptions{}
		if composed {
			xml = strings.ReplaceAll(xml, ">fair<", ">composed-fair<")
			xml = strings.Replace(xml, "<allocations>", "<allocations><defaultQueueSchedulingPolicy>composed-fair</defaultQueueSchedulingPolicy>", 1)
			opts.Policies = reg
		}
		af, err := ParseAllocationFile([]byte(xml), opts)
		require.NoError(t, err)
		return af
	}
	for seed := range uint64(n) {
		rng := rand.New(rand.NewPCG(seed, 0xfa1))
		cfg := stateConfig(rng)
		refClock, compClock := berth.NewManualClock(0), berth.NewManualClock(0)
		cfg.Allocation, cfg.Clock = parse(stateAlloc, false), refClock
		ref, err := New(cfg)
		require.NoError(t, err)
		cfg.Allocation, cfg.Clock = parse(stateAlloc, true), compClock
		comp, err := New(cfg)
		require.NoError(t, err)
		require.Equal(t, "composed-fair", comp.Snapshot().Queue("root.p").PolicyName)
		w := &stateWorld{}
		for step := range 300 {
			op := drawOp(rng, w)
			var a, b string
			if op.name == "reload" {
				xml := append([]string{stateAlloc}, fuzzReloads...)[rng.IntN(1+len(fuzzReloads))]
				res1, err1 := ref.Reload(parse(xml, false))
				res2, err2 := comp.Reload(parse(xml, true))
				a, b = fmt.Sprint(res1, err1), fmt.Sprint(res2, err2)
			} else {
				a, b = op.run(ref, refClock), op.run(comp, compClock)
			}
			require.Equal(t, a, b, "seed %d step %d %s", seed, step, op.name)
			if op.seen != nil {
				op.seen(w, a)
			}
			w.live = liveIDs(ref)
			if step%25 == 24 {
				require.Equal(t, policyBlind(ref.Snapshot()), policyBlind(comp.Snapshot()), "seed %d step %d", seed, step)
			}
		}
		require.NoError(t, comp.Check())
	}
}

// policyBlind is snap with the queues' policy names cleared.
func policyBlind(snap *Snapshot) *Snapshot {
	for i := range snap.Queues {
		snap.Queues[i].Policy, snap.Queues[i].PolicyName = 0, ""
	}
	return snap
}
