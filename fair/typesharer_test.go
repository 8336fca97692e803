package fair

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/berthsched/berth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// randomSchedulables draws n schedulables over memory, vcores and the
// extended type "gpu", with current shares so that the types a policy does
// not divide are visibly kept.
func randomSchedulables(r *rand.Rand, n int) []*Schedulable {
	ss := make([]*Schedulable, n)
	for i := range ss {
		maxRes := berth.New(r.Int64N(65536), r.Int64N(64)).With("gpu", r.Int64N(8))
		if r.IntN(4) == 0 {
			maxRes = berth.New(math.MaxInt64, math.MaxInt64).With("gpu", math.MaxInt64)
		}
		ss[i] = &Schedulable{
			Name:            "s",
			Weight:          float64(r.IntN(5)),
			MinShare:        berth.New(r.Int64N(4)*1024, r.Int64N(4)).With("gpu", r.Int64N(2)),
			MaxShare:        maxRes,
			Queue:           r.IntN(2) == 0,
			Active:          r.IntN(3) != 0,
			StartTime:       berth.Time(r.IntN(100)),
			FairShare:       berth.New(r.Int64N(9999), r.Int64N(99)).With("gpu", r.Int64N(3)),
			SteadyFairShare: berth.New(r.Int64N(9999), r.Int64N(99)).With("gpu", r.Int64N(3)),
		}
	}
	return ss
}

func cloneSchedulables(ss []*Schedulable) []*Schedulable {
	out := make([]*Schedulable, len(ss))
	for i, s := range ss {
		c := *s
		out[i] = &c
	}
	return out
}

func viewsOf(ss []*Schedulable) []SchedulableView {
	vs := make([]SchedulableView, len(ss))
	for i, s := range ss {
		vs[i] = ViewOf(s)
	}
	return vs
}

// Property: dividing through the built-ins' TypeSharer fast path installs
// exactly the shares their ComputeShares gives.
func TestTypeSharerMatchesComputeShares(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 13))
	env := PolicyEnv{Types: []string{"gpu"}}
	for iter := range 300 {
		ss := randomSchedulables(r, 1+r.IntN(12))
		total := berth.New(r.Int64N(1<<20), r.Int64N(512)).With("gpu", r.Int64N(32))
		for _, p := range []Policy{PolicyFair, PolicyDRF, PolicyFIFO} {
			for _, steady := range []bool{false, true} {
				b := builtinPolicy{p}
				fast, slow := cloneSchedulables(ss), cloneSchedulables(ss)
				i, _ := divideInto(b, b, env, viewsOf(fast), total, steady, &shareBuf{})
				require.Equal(t, -1, i)
				i, _ = divideInto(b, nil, env, viewsOf(slow), total, steady, &shareBuf{})
				require.Equal(t, -1, i)
				for k := range ss {
					assert.True(t, fast[k].FairShare.Equal(slow[k].FairShare), "iter %d %v steady=%v item %d: %v vs %v", iter, p, steady, k, fast[k].FairShare, slow[k].FairShare)
					assert.True(t, fast[k].SteadyFairShare.Equal(slow[k].SteadyFairShare), "iter %d %v steady=%v item %d", iter, p, steady, k)
				}
			}
		}
	}
}

// spoiler is a host's policy with the TypeSharer fast path that divides as
// DRF does and then writes a negative share of type badType to item
// badItem.
type spoiler struct {
	lifo
	badType, badItem int
}

func (spoiler) ShareTypes(env PolicyEnv, _ bool) int { return 2 + len(env.Types) }

// ComputeShares is the method the fast path speeds up, with the same
// results: the scheduler uses a TypeSharer only beside it.
func (p spoiler) ComputeShares(env PolicyEnv, items []SchedulableView, total berth.Resource, steady bool, out []berth.Resource) {
	builtinPolicy{PolicyDRF}.ComputeShares(env, items, total, steady, out)
	out[p.badItem] = setType(out[p.badItem], typeAt(env.Types, p.badType), -5)
}

func (p spoiler) ComputeTypeShares(env PolicyEnv, items []SchedulableView, total int64, t int, steady bool, out []int64) {
	PolicyDRF.SchedulingPolicy().(TypeSharer).ComputeTypeShares(env, items, total, t, steady, out)
	if t == p.badType {
		out[p.badItem] = -5
	}
}

// A negative share from the fast path rejects the whole division: no share
// of any type of any item changes, whichever type and item it was.
func TestTypeSharerNegativeShareKeepsShares(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	env := PolicyEnv{Types: []string{"gpu"}}
	const n = 9
	for _, tc := range []struct {
		name    string
		typ     int
		item    int
		typName string
	}{
		{"memory, first item", 0, 0, berth.ResourceMemory},
		{"memory, last item (rolls back the others)", 0, n - 1, berth.ResourceMemory},
		{"vcores", 1, 4, berth.ResourceVCores},
		{"extended type", 2, 6, "gpu"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, steady := range []bool{false, true} {
				ss := randomSchedulables(r, n)
				before := cloneSchedulables(ss)
				p := spoiler{badType: tc.typ, badItem: tc.item}
				i, share := divideInto(p, p, env, viewsOf(ss), berth.New(1<<20, 300).With("gpu", 20), steady, &shareBuf{})
				assert.Equal(t, tc.item, i)
				assert.Equal(t, int64(-5), share.Get(tc.typName), "the rejected share is reported")
				for k := range ss {
					assert.True(t, before[k].FairShare.Equal(ss[k].FairShare), "item %d fair share kept", k)
					assert.True(t, before[k].SteadyFairShare.Equal(ss[k].SteadyFairShare), "item %d steady share kept", k)
				}
			}
		})
	}
}

// A host's TypeSharer plugged into a scheduler: its negative share is
// reported as a *PolicyError and never installed.
func TestTypeSharerNegativeShareInScheduler(t *testing.T) {
	s, served := runJobs(t, ParseOptions{Policies: policyRegistry(t, "x", spoiler{badType: 0, badItem: 1})}, "x", 3, 2, false)
	assert.Len(t, served, 2)
	err := s.PolicyError()
	require.Error(t, err)
	var pe *PolicyError
	require.True(t, errors.As(err, &pe))
	assert.Equal(t, "root.jobs", pe.Queue)
	assert.Equal(t, int64(-5), pe.Share.Memory)
	for _, a := range s.Snapshot().Apps {
		assert.False(t, a.FairShare.AnyNegative(), "%s: no negative share installed", a.ID)
	}
}
