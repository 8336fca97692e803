package policy_test

import (
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/policy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// denseModel is the reference: the plan as one value per millisecond.
type denseModel struct {
	total map[int64]int64            // containers held at t
	users map[string]map[int64]int64 // per user
}

func newDense() *denseModel {
	return &denseModel{total: map[int64]int64{}, users: map[string]map[int64]int64{}}
}

type block struct {
	start, end, n int64
}

// admits is NoOverCommit (+ the instantaneous cap instMax, in containers,
// when positive) on the dense model.
func (m *denseModel) admits(user string, blocks []block, capacity, instMax int64) bool {
	ask := map[int64]int64{}
	for _, b := range blocks {
		for t := b.start; t < b.end; t++ {
			ask[t] += b.n
		}
	}
	for t, n := range ask {
		if n == 0 {
			continue
		}
		if m.total[t]+n > capacity {
			return false
		}
		if instMax > 0 && m.users[user][t]+n > instMax {
			return false
		}
	}
	return true
}

func (m *denseModel) add(user string, blocks []block) {
	if m.users[user] == nil {
		m.users[user] = map[int64]int64{}
	}
	for _, b := range blocks {
		for t := b.start; t < b.end; t++ {
			m.total[t] += b.n
			m.users[user][t] += b.n
		}
	}
}

func allocationOf(t testing.TB, seq int64, user string, blocks []block) *plan.Allocation {
	var ivs []plan.IntervalResource
	lo, hi := int64(1<<62), int64(-1<<62)
	for _, b := range blocks {
		ivs = append(ivs, plan.IntervalResource{Interval: berth.Interval{Start: b.start, End: b.end}, Resource: berth.New(1024*b.n, b.n)})
		lo, hi = min(lo, b.start), max(hi, b.end)
	}
	a, err := plan.NewAllocation(plan.ReservationID{ClusterTimestamp: 3, Sequence: seq}, user, plan.Definition{},
		berth.Interval{Start: lo, End: hi}, ivs)
	require.NoError(t, err)
	return a
}

func randomBlocks(next func(int64) int64) []block {
	var bs []block
	for i := int64(0); i <= next(2); i++ {
		s := next(40)
		bs = append(bs, block{start: s, end: s + 1 + next(15), n: 1 + next(5)})
	}
	return bs
}

// Property: NoOverCommit and CapacityOverTime (instantaneous cap 50 %,
// exact average at 100 %, which the cap makes unreachable) accept exactly
// what the dense model accepts, and a rejection leaves the plan unchanged.
func TestPoliciesAgainstDenseModel(t *testing.T) {
	const capacity = 10
	exact := policy.DefaultCapacityOverTimeConfig()
	exact.InstantaneousMaxPercent, exact.ExactAverage, exact.Window = 50, true, 20
	cot, err := policy.NewCapacityOverTime(exact)
	require.NoError(t, err)
	for _, c := range []struct {
		name    string
		pol     plan.SharingPolicy
		instMax int64
	}{{"NoOverCommit", policy.NoOverCommit{}, 0}, {"CapacityOverTime", cot, capacity / 2}} {
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(5, 9))
			next := func(m int64) int64 { return r.Int64N(m + 1) }
			agree := 0
			for round := 0; round < 40; round++ {
				p := policyPlan(t, c.pol, berth.New(1024*capacity, capacity), 1)
				m := newDense()
				for k := int64(1); k <= 15; k++ {
					user := []string{"a", "b"}[next(1)]
					bs := randomBlocks(next)
					want := m.admits(user, bs, capacity, c.instMax)
					before := p.Snapshot()
					err := p.AddReservation(allocationOf(t, k, user, bs))
					require.Equal(t, want, err == nil, "round %d request %d %v: %v", round, k, bs, err)
					if err != nil {
						assert.ErrorIs(t, err, berth.ErrCapacityExceeded)
						require.True(t, p.Equal(before), "a rejection changed the plan")
						continue
					}
					m.add(user, bs)
					agree++
				}
			}
			assert.Positive(t, agree)
		})
	}
}

// Fuzz: arbitrary allocations through both policies: no panic, and the
// plan never holds more than its capacity, nor a user more than the cap.
func FuzzPolicies(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("\x01\x00\x05\x00\x03\x00\x02\x00\x07\x00\x04\x00"))
	f.Add([]byte("\xff\xff\x00\x00\xff\xff\x28\x00\x0f\x00\x05\x00\x00\x00\x00\x00"))
	cfg := policy.DefaultCapacityOverTimeConfig()
	cfg.InstantaneousMaxPercent, cfg.AveragePercent, cfg.Window = 50, 30, 25
	f.Fuzz(func(t *testing.T, data []byte) {
		cot, err := policy.NewCapacityOverTime(cfg)
		require.NoError(t, err)
		for _, pol := range []plan.SharingPolicy{policy.NoOverCommit{}, cot} {
			b := data
			next := func(m int64) int64 {
				if len(b) < 2 || m <= 0 {
					return 0
				}
				v := int64(binary.LittleEndian.Uint16(b))
				b = b[2:]
				return v % (m + 1)
			}
			p := policyPlan(t, pol, berth.New(10*1024, 10), 1)
			for k := int64(1); k <= 6; k++ {
				user := []string{"a", "b"}[next(1)]
				err := p.AddReservation(allocationOf(t, k, user, randomBlocks(next)))
				if err != nil && !errors.Is(err, berth.ErrCapacityExceeded) {
					t.Fatalf("unexpected error kind: %v", err)
				}
			}
			w := berth.Interval{Start: -100, End: 200}
			load, err := p.CumulativeLoad(w)
			require.NoError(t, err)
			for st := range load.StepsIn(w) {
				require.True(t, st.Value.FitsIn(p.Capacity()), "over capacity at %v", st.Interval)
			}
			if pol == plan.SharingPolicy(cot) {
				for _, u := range []string{"a", "b"} {
					s, err := p.UserConsumption(u, w)
					require.NoError(t, err)
					for st := range s.StepsIn(w) {
						require.LessOrEqual(t, st.Value.Memory, int64(5*1024), "user %s over the cap", u)
					}
				}
			}
		}
	})
}

// The policies hold no mutable state: many goroutines may validate through
// plans sharing one policy.
func TestPolicyConcurrentUse(t *testing.T) {
	cot, err := policy.NewCapacityOverTime(policy.DefaultCapacityOverTimeConfig())
	require.NoError(t, err)
	p := policyPlan(t, cot, berth.New(10*1024, 10), 1)
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(g), 1))
			next := func(m int64) int64 { return r.Int64N(m + 1) }
			for k := 0; k < 25; k++ {
				_ = p.AddReservation(allocationOf(t, int64(g*100+k+1), "u", randomBlocks(next)))
			}
		}(g)
	}
	wg.Wait()
	w := berth.Interval{Start: 0, End: 100}
	load, err := p.CumulativeLoad(w)
	require.NoError(t, err)
	for st := range load.StepsIn(w) {
		require.True(t, st.Value.FitsIn(p.Capacity()))
	}
}
