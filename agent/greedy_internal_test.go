package agent

import (
	"math/rand/v2"
	"testing"

	"github.com/berthsched/berth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func c(n int64) berth.Resource { return berth.New(1024*n, n) }

func seedProfile() *profile {
	// The seed's queue of 2 containers holding r2 [1,2) 1c, r1 [2,3) 2c,
	// r0 [3,4) 1c (steps of 1000 ms): what is left.
	return &profile{
		ts:  []berth.Time{0, 1000, 2000, 3000, 4000},
		rs:  []berth.Resource{c(2), c(1), c(0), c(1), c(2)},
		end: 5000,
	}
}

func oneContainerJob(n, conc, dur int64) stageJob {
	return stageJob{
		fitter:    fitter{calc: berth.MemoryCalculator{}, cluster: c(2), gang: c(conc)},
		container: c(1), concurrency: conc, gangs: n / conc, duration: dur, requestedDuration: dur, step: 1000,
	}
}

func TestGreedyStepsSeedExample(t *testing.T) {
	got, ok := greedySteps(seedProfile(), oneContainerJob(2, 1, 2000), 0, 5000, scanOptions{seeBatches: true})
	require.True(t, ok)
	assert.Equal(t, []placement{
		{iv: berth.Interval{Start: 3000, End: 5000}, r: c(1)},
		{iv: berth.Interval{Start: 0, End: 2000}, r: c(1)},
	}, got)
}

func TestProfileAddCompacts(t *testing.T) {
	p := newFlat(0, 100, c(4))
	p.sub(10, 20, c(1))
	p.sub(20, 30, c(1))
	assert.Equal(t, []berth.Time{0, 10, 30}, p.ts)
	p.add(10, 30, c(1))
	assert.Equal(t, []berth.Time{0}, p.ts)
	p.sub(-50, 200, c(4))
	assert.Equal(t, []berth.Time{0}, p.ts)
	assert.True(t, p.rs[0].IsZero())
}

func TestGreedyRLELeftSeesEarlierBatches(t *testing.T) {
	// 3 containers free everywhere but [20,30) has 1. A request for 3 gangs
	// of 1 container, duration 20: the first batch takes 1 at [0,20)... the
	// scan finds min 1 at [20,30)? no: window [0,20) holds 3 -> all placed.
	p := &profile{ts: []berth.Time{0, 20, 30}, rs: []berth.Resource{c(3), c(1), c(3)}, end: 100}
	j := oneContainerJob(3, 1, 20)
	j.step = 10
	got, ok := greedyRLE(p.clone(), j, 0, 100, true, scanOptions{seeBatches: true})
	require.True(t, ok)
	assert.Equal(t, []placement{{iv: berth.Interval{Start: 0, End: 20}, r: c(3)}}, got)

	// 5 gangs: [0,20) takes 3; then the next window starts at 20 ([20,30)
	// holds 1): fit 1 at 20 -> 1 at [20,40); then from 30: [30,50) -> 1.
	j.gangs = 5
	got, ok = greedyRLE(p.clone(), j, 0, 100, true, scanOptions{seeBatches: true})
	require.True(t, ok)
	assert.Equal(t, []placement{
		{iv: berth.Interval{Start: 0, End: 20}, r: c(3)},
		{iv: berth.Interval{Start: 20, End: 40}, r: c(1)},
		{iv: berth.Interval{Start: 30, End: 50}, r: c(1)},
	}, got)
}

// Property: profile edits agree with a dense array, and stay canonical.
func TestProfileAgainstDenseModel(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 3))
	for round := 0; round < 300; round++ {
		const lo, hi = 10, 60
		p := newFlat(lo, hi, c(5))
		dense := make([]int64, hi)
		for i := lo; i < hi; i++ {
			dense[i] = 5
		}
		for k := 0; k < 8; k++ {
			s := int64(r.IntN(70))
			e := s + int64(r.IntN(20))
			n := int64(r.IntN(5)) - 2
			p.add(s, e, c(n))
			for i := max(s, lo); i < min(e, hi); i++ {
				dense[i] += n
			}
			for i := int64(lo); i < hi; i++ {
				v, ok := p.at(i)
				require.True(t, ok)
				require.Equal(t, dense[i], v.VCores, "round %d at %d", round, i)
			}
			for i := 1; i < len(p.rs); i++ {
				require.False(t, p.rs[i].Equal(p.rs[i-1]), "not canonical: %v", p.ts)
				require.Less(t, p.ts[i-1], p.ts[i])
			}
			_, ok := p.at(hi)
			require.False(t, ok)
		}
	}
}
