package agent

import (
	"math/rand/v2"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/policy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func portfolioSubject(t testing.TB) subject {
	pf, err := NewPortfolio(DefaultConfig())
	require.NoError(t, err)
	return subject{name: "portfolio", agent: pf, stages: func(p *plan.Plan, id plan.ReservationID, user string, def plan.Definition) ([][]placement, error) {
		_, st, err := pf.compute(newView(p), id, user, def)
		return st, err
	}}
}

// Property: as for YARN's agents (TestAgentProperties), on random plans
// what the portfolio accepts lies in its window, keeps the plan within
// capacity (NoOverCommit), places whole gangs and honours the interpreter;
// a rejection is a typed error and leaves the plan as it was; so does a
// failed update. It also accepts at least what the greedy agent accepts
// on an empty plan, since it tries the same search.
func TestPortfolioProperties(t *testing.T) {
	rounds := 200
	if testing.Short() || raceEnabled {
		rounds = 40
	}
	accepted, rejected := propertyRounds(t, portfolioSubject(t), rand.New(rand.NewPCG(23, 29)), rounds)
	require.Positive(t, accepted)
	require.Positive(t, rejected, "the generator should also produce requests that do not fit")
	t.Logf("%d accepted, %d rejected", accepted, rejected)
}

// On an empty plan, whatever greedy (late) places, the portfolio places.
func TestPortfolioAcceptsWhatGreedyAccepts(t *testing.T) {
	pf, err := NewPortfolio(DefaultConfig())
	require.NoError(t, err)
	o := DefaultConfig()
	o.FavorEarlyAllocation, o.ComponentwiseFit = false, true
	g, err := NewGreedy(o)
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(31, 37))
	next := func(max int64) int64 { return r.Int64N(max + 1) }
	for i := 0; i < 300; i++ {
		def := randomDefinition(next)
		id := plan.ReservationID{ClusterTimestamp: 1, Sequence: 1}
		p := testPlan(t, policy.NoOverCommit{})
		gerr := g.CreateReservation(p, id, "u", def)
		p = testPlan(t, policy.NoOverCommit{})
		perr := pf.CreateReservation(p, id, "u", def)
		if gerr == nil {
			assert.NoError(t, perr, "definition %v", def)
		}
	}
}

// Fuzz: arbitrary definitions through the validator and the portfolio:
// no panic, and every outcome has the properties above.
func FuzzPortfolio(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("\x05\x00\x01\x00\x10\x00\x03\x00\x02\x00\x01\x00\x03\x00\x02\x00\x01\x00\x02\x00"))
	f.Add([]byte("\xff\xff\xff\xff\x00\x00\x03\x00\x02\x00\x02\x00\x07\x00\x01\x00\x00\x00\x01\x00"))
	f.Add([]byte("\x00\x00\x00\x00\x1e\x00\x00\x00\x02\x00\x02\x00\x02\x00\x08\x00\x02\x00\x01\x00\x02\x00\x02\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzSubmissions(t, portfolioSubject(t), &bytesSource{b: data}, 6)
	})
}

// The chain search finds the R_ORDER_NO_GAP placement the stage-by-stage
// planners miss. The plan (10 containers) holds 9 on [2 s, 4 s) and 5 on
// [6 s, 8 s). Placing the big first stage early leaves no room right after
// it for the second; placing the second late leaves no room right before
// it for the first; only [4 s, 6 s) then [6 s, 8 s) works.
func TestPortfolioChainNoGap(t *testing.T) {
	p := testPlan(t, policy.NoOverCommit{})
	for i, b := range []struct{ s, e, n int64 }{{2000, 4000, 9}, {6000, 8000, 5}} {
		iv := berth.Interval{Start: b.s, End: b.e}
		a, err := plan.NewAllocation(plan.ReservationID{ClusterTimestamp: 1, Sequence: int64(10 + i)}, "other", plan.Definition{}, iv,
			[]plan.IntervalResource{{Interval: iv, Resource: berth.New(1024*b.n, b.n)}})
		require.NoError(t, err)
		require.NoError(t, p.AddReservation(a))
	}
	def := plan.Definition{Arrival: 0, Deadline: 10_000, Interpreter: plan.ROrderNoGap, Stages: []plan.Stage{
		{Capability: berth.New(1024, 1), Containers: 8, Concurrency: 8, Duration: 2000},
		{Capability: berth.New(1024, 1), Containers: 2, Concurrency: 2, Duration: 2000},
	}}
	id := plan.ReservationID{ClusterTimestamp: 1, Sequence: 2}
	pf, err := NewPortfolio(DefaultConfig())
	require.NoError(t, err)
	for i, ip := range pf.ordered {
		_, _, err := ip.compute(newView(p), id, "u", def)
		require.ErrorIs(t, err, berth.ErrNoPlacement, "planner %d should miss it", i)
	}
	require.NoError(t, pf.CreateReservation(p, id, "u", def))
	got, _ := p.Reservation(id)
	assert.Equal(t, []plan.IntervalResource{
		{Interval: berth.Interval{Start: 4000, End: 6000}, Resource: berth.New(8192, 8)},
		{Interval: berth.Interval{Start: 6000, End: 8000}, Resource: berth.New(2048, 2)},
	}, got.Intervals, "the latest start where both blocks fit")
}

// R_ANY takes the largest stage that fits, where YARN's agents take the
// first in their order; an invalid stage is reported with its index.
func TestPortfolioAnyLargestFirst(t *testing.T) {
	p := testPlan(t, policy.NoOverCommit{})
	pf, err := NewPortfolio(DefaultConfig())
	require.NoError(t, err)
	small := plan.Stage{Capability: berth.New(1024, 1), Containers: 1, Concurrency: 1, Duration: 1000}
	big := plan.Stage{Capability: berth.New(2048, 2), Containers: 4, Concurrency: 4, Duration: 3000}
	huge := plan.Stage{Capability: berth.New(4096, 4), Containers: 4, Concurrency: 4, Duration: 3000} // 16 GB: never fits
	def := plan.Definition{Arrival: 0, Deadline: 10_000, Interpreter: plan.RAny, Stages: []plan.Stage{small, huge, big}}
	id := plan.ReservationID{ClusterTimestamp: 1, Sequence: 1}
	_, stages, err := pf.compute(newView(p), id, "u", def)
	require.NoError(t, err)
	assert.Nil(t, stages[0])
	assert.Nil(t, stages[1])
	require.NotNil(t, stages[2], "the largest stage that fits")
	require.NoError(t, pf.CreateReservation(p, id, "u", def))
	got, _ := p.Reservation(id)
	assert.Equal(t, ReservedArea(got), OfferedArea(plan.Definition{Stages: []plan.Stage{big}}, 1000))

	bad := def
	bad.Stages = []plan.Stage{small, {Capability: small.Capability, Containers: 3, Concurrency: 2, Duration: 1000}}
	err = pf.CreateReservation(p, plan.ReservationID{ClusterTimestamp: 1, Sequence: 2}, "u", bad)
	var fe *berth.FieldError
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, stageField(1, "num-containers"), fe.Field)
	assert.Equal(t, 1, p.Len())

	_, err = NewPortfolio(Config{SmoothnessFactor: -1})
	require.ErrorIs(t, err, berth.ErrInvalidArgument)
}

// The portfolio is safe for concurrent use: parallel callers on their own
// plans decide as one caller does.
func TestPortfolioConcurrent(t *testing.T) {
	pf, err := NewPortfolio(DefaultConfig())
	require.NoError(t, err)
	checkParallelCallers(t, pf, rand.New(rand.NewPCG(41, 43)))
}

// checkParallelCallers places 24 random definitions drawn from r with ag,
// once alone and then from four parallel callers, each on its own plan:
// every caller's plan holds exactly the allocations of the lone run.
func checkParallelCallers(t *testing.T, ag plan.Agent, r *rand.Rand) {
	next := func(max int64) int64 { return r.Int64N(max + 1) }
	defs := make([]plan.Definition, 24)
	for i := range defs {
		defs[i] = randomDefinition(next)
	}
	run := func() []*plan.Allocation {
		p := testPlan(t, policy.NoOverCommit{})
		for i, d := range defs {
			_ = ag.CreateReservation(p, plan.ReservationID{ClusterTimestamp: 1, Sequence: int64(i + 1)}, "u", d)
		}
		return p.All()
	}
	want := run()
	require.NotEmpty(t, want)
	for i := 0; i < 4; i++ {
		t.Run("caller", func(t *testing.T) {
			t.Parallel()
			got := run()
			require.Len(t, got, len(want))
			for k := range got {
				require.True(t, got[k].Equal(want[k]))
			}
		})
	}
}

// Property: on random step-aligned plans the chain search finds the latest
// start where every block fits, as a brute-force scan of every step does.
func TestChainMatchesScan(t *testing.T) {
	r := rand.New(rand.NewPCG(47, 53))
	for round := 0; round < 300; round++ {
		p := testPlan(t, policy.NoOverCommit{})
		load := make([]int64, 60)
		for k := int64(1); k <= 6; k++ {
			s := r.Int64N(40)
			e := min(s+1+r.Int64N(8), 40)
			n := 1 + r.Int64N(10)
			ok := true
			for i := s; i < e; i++ {
				ok = ok && load[i]+n <= 10
			}
			if !ok {
				continue
			}
			iv := berth.Interval{Start: s * 1000, End: e * 1000}
			a, err := plan.NewAllocation(plan.ReservationID{ClusterTimestamp: 1, Sequence: k}, "o", plan.Definition{}, iv,
				[]plan.IntervalResource{{Interval: iv, Resource: berth.New(1024*n, n)}})
			require.NoError(t, err)
			require.NoError(t, p.AddReservation(a))
			for i := s; i < e; i++ {
				load[i] += n
			}
		}
		arrival := r.Int64N(20)
		def := plan.Definition{Arrival: arrival * 1000, Deadline: (arrival + 5 + r.Int64N(20)) * 1000, Interpreter: plan.ROrderNoGap}
		var durs, ns []int64
		for k := 0; k < 1+r.IntN(3); k++ {
			d, n := 1+r.Int64N(4), 1+r.Int64N(10)
			durs, ns = append(durs, d), append(ns, n)
			def.Stages = append(def.Stages, plan.Stage{Capability: berth.New(1024, 1), Containers: n, Concurrency: 1, Duration: d * 1000})
		}
		want := int64(-1)
		var total int64
		for _, d := range durs {
			total += d
		}
		for s := def.Deadline/1000 - total; s >= arrival && want < 0; s-- {
			ok, at := true, s
			for k := range durs {
				for i := at; i < at+durs[k]; i++ {
					ok = ok && load[i]+ns[k] <= 10
				}
				at += durs[k]
			}
			if ok {
				want = s
			}
		}
		got, ok, err := chain(newView(p), plan.ReservationID{ClusterTimestamp: 1, Sequence: 99}, "u", def)
		require.NoError(t, err)
		require.Equal(t, want >= 0, ok, "round %d", round)
		if ok {
			require.Equal(t, want*1000, got[0].iv.Start, "round %d", round)
		}
	}
}
