package agent

import (
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/policy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// leastWasteSubjects are the agent with its defaults and with waste
// weighed everywhere (Contested above 1), so that the small test plans
// exercise the scoring and the declining as well as the greedy path.
func leastWasteSubjects(t testing.TB) []subject {
	var out []subject
	for _, c := range []struct {
		name string
		w    WasteConfig
	}{
		{"least-waste", DefaultWasteConfig()},
		{"least-waste-always", WasteConfig{Gap: 5000, Slack: 0.2, Contested: 2}},
		{"least-waste-never-declines", WasteConfig{Gap: 5000, Slack: -1, Contested: 2}},
	} {
		lw, err := NewLeastWaste(LeastWasteConfig{Config: DefaultConfig(), Waste: c.w})
		require.NoError(t, err)
		out = append(out, subject{name: c.name, agent: lw, stages: func(p *plan.Plan, id plan.ReservationID, user string, def plan.Definition) ([][]placement, error) {
			_, st, err := lw.compute(newView(p), id, user, def)
			return st, err
		}})
	}
	return out
}

// Property: as for YARN's agents (TestAgentProperties), on random plans
// what LeastWaste accepts lies in its window, keeps the plan within
// capacity (NoOverCommit), places whole gangs and honours the interpreter;
// a rejection (declined or not) is a typed error and leaves the plan as it
// was; so does a failed update.
func TestLeastWasteProperties(t *testing.T) {
	rounds := 120
	if testing.Short() || raceEnabled {
		rounds = 30
	}
	for _, s := range leastWasteSubjects(t) {
		t.Run(s.name, func(t *testing.T) {
			accepted, rejected := propertyRounds(t, s, rand.New(rand.NewPCG(73, 79)), rounds)
			require.Positive(t, accepted)
			require.Positive(t, rejected)
			t.Logf("%s: %d accepted, %d rejected", s.name, accepted, rejected)
		})
	}
}

// Fuzz: arbitrary definitions through the validator and LeastWaste (both
// configurations): no panic, and every outcome has the properties above.
func FuzzLeastWaste(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("\x05\x00\x01\x00\x10\x00\x03\x00\x02\x00\x01\x00\x03\x00\x02\x00\x01\x00\x02\x00"))
	f.Add([]byte("\xff\xff\xff\xff\x00\x00\x03\x00\x02\x00\x02\x00\x07\x00\x01\x00\x00\x00\x01\x00"))
	f.Add([]byte("\x00\x00\x00\x00\x1e\x00\x01\x00\x02\x00\x02\x00\x02\x00\x08\x00\x02\x00\x01\x00\x02\x00\x02\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, s := range leastWasteSubjects(t) {
			fuzzSubmissions(t, s, &bytesSource{b: append([]byte(nil), data...)}, 6)
		}
	})
}

// A plan of 10 containers holds 8 on [0, 10 s) and [20 s, 30 s): 2 are
// free there and 10 on [10 s, 20 s), a band of 8 containers for 10 s.
// A gang of 8 for 4 s that must run inside [12 s, 18 s) cuts that band in
// two pieces shorter than the 10 s gap: LeastWaste weighing waste with no
// slack declines it; with slack, or where it does not weigh waste, it
// places it. A gang of 2 for 5 s in [0, 30 s) fits along the two free
// containers without cutting anything short and is taken, at the latest
// place (the late greedy placement wins ties).
func TestLeastWasteDeclinesSlivers(t *testing.T) {
	setup := func(t *testing.T) *plan.Plan {
		p := testPlan(t, policy.NoOverCommit{})
		hold := func(seq int64, iv berth.Interval) {
			def := plan.Definition{Arrival: iv.Start, Deadline: iv.End, Interpreter: plan.RAll,
				Stages: []plan.Stage{{Capability: berth.New(1024, 1), Containers: 8, Concurrency: 8, Duration: iv.Len()}}}
			a, err := plan.NewAllocation(plan.ReservationID{ClusterTimestamp: 9, Sequence: seq}, "other", def, iv,
				[]plan.IntervalResource{{Interval: iv, Resource: berth.New(8*1024, 8)}})
			require.NoError(t, err)
			require.NoError(t, p.AddReservation(a))
		}
		hold(1, berth.Interval{Start: 0, End: 10_000})
		hold(2, berth.Interval{Start: 20_000, End: 30_000})
		return p
	}
	cut := plan.Definition{Arrival: 12_000, Deadline: 18_000, Interpreter: plan.RAll,
		Stages: []plan.Stage{{Capability: berth.New(1024, 1), Containers: 8, Concurrency: 8, Duration: 4000}}}
	along := plan.Definition{Arrival: 0, Deadline: 30_000, Interpreter: plan.RAll,
		Stages: []plan.Stage{{Capability: berth.New(1024, 1), Containers: 2, Concurrency: 2, Duration: 5000}}}
	id := plan.ReservationID{ClusterTimestamp: 1, Sequence: 1}

	strict, err := NewLeastWaste(LeastWasteConfig{Config: DefaultConfig(), Waste: WasteConfig{Gap: 10_000, Slack: 0, Contested: 2}})
	require.NoError(t, err)
	p := setup(t)
	before := p.Snapshot()
	err = strict.CreateReservation(p, id, "u", cut)
	require.ErrorIs(t, err, berth.ErrNoPlacement)
	var np *NoPlacementError
	require.ErrorAs(t, err, &np)
	assert.Equal(t, reasonDeclined, np.Reason)
	assert.True(t, p.Equal(before), "a declined request leaves the plan as it was")

	require.NoError(t, strict.CreateReservation(p, id, "u", along), "a placement that strands nothing is taken")
	a, ok := p.Reservation(id)
	require.True(t, ok)
	assert.Equal(t, []plan.IntervalResource{{Interval: berth.Interval{Start: 25_000, End: 30_000}, Resource: berth.New(2048, 2)}},
		a.Intervals, "flush against the end of the window")

	for _, w := range []WasteConfig{
		{Gap: 10_000, Slack: 2, Contested: 2},   // the waste is within the slack
		{Gap: 10_000, Slack: -1, Contested: 2},  // never declines
		{Gap: 10_000, Slack: 0, Contested: 0.5}, // the window is free: not contested
	} {
		lw, err := NewLeastWaste(LeastWasteConfig{Config: DefaultConfig(), Waste: w})
		require.NoError(t, err)
		p = setup(t)
		require.NoError(t, lw.CreateReservation(p, id, "u", cut), "%+v", w)
	}
}

// strandedReference is strandedDim by brute force over unit slots of
// 1000 ms: for every level k ≥ 1, each maximal run of slots with free ≥ k
// that touches neither end counts (1 − l/gap) × l when its length l is
// shorter than gap.
func strandedReference(free []int64, gap int64) float64 {
	var top int64
	for _, f := range free {
		top = max(top, f)
	}
	var out float64
	for k := int64(1); k <= top; k++ {
		for i := 0; i < len(free); {
			if free[i] < k {
				i++
				continue
			}
			j := i
			for j < len(free) && free[j] >= k {
				j++
			}
			l := int64(j-i) * 1000
			if i > 0 && j < len(free) && l < gap {
				out += (1 - float64(l)/float64(gap)) * float64(l)
			}
			i = j
		}
	}
	return out
}

// Property: the stack computation of the stranded area agrees with the
// level-by-level reference on random step functions.
func TestStrandedMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(83, 89))
	for round := 0; round < 500; round++ {
		n := 1 + r.IntN(12)
		free := make([]int64, n)
		p := &profile{end: int64(n) * 1000}
		for i := range free {
			free[i] = r.Int64N(5)
			if len(p.ts) > 0 && p.rs[len(p.rs)-1].Memory == free[i] {
				continue
			}
			p.ts = append(p.ts, int64(i)*1000)
			p.rs = append(p.rs, berth.New(free[i], 0))
		}
		gap := (1 + r.Int64N(8)) * 1000
		got := strandedDim(p, gap, func(x berth.Resource) int64 { return x.Memory })
		require.InDelta(t, strandedReference(free, gap), got, 1e-6, "round %d: free %v gap %d", round, free, gap)
	}
}

// Property: the waste of one block read around it without a copy equals
// the waste computed on a copy with the block taken off.
func TestWasteOneBlockMatchesCopy(t *testing.T) {
	r := rand.New(rand.NewPCG(109, 113))
	for round := 0; round < 500; round++ {
		n := 1 + r.IntN(10)
		ext := &profile{end: int64(n) * 1000}
		for i := 0; i < n; i++ {
			v := berth.New(1024*r.Int64N(6), r.Int64N(6))
			if len(ext.ts) > 0 && ext.rs[len(ext.rs)-1].Equal(v) {
				continue
			}
			ext.ts = append(ext.ts, int64(i)*1000+r.Int64N(2)*300*int64(min(i, 1)))
			ext.rs = append(ext.rs, v)
		}
		capacity := berth.New(6*1024, 6)
		sc := wasteAllocator{scorers: &sync.Pool{}}.scorer(ext, (1+r.Int64N(5))*1000, capacity)
		s := r.Int64N(ext.end - 1)
		blk := placement{iv: berth.Interval{Start: s, End: s + 1 + r.Int64N(ext.end-s)}, r: berth.New(1024*r.Int64N(3), r.Int64N(3))}
		lo, hi := max(blk.iv.Start-sc.gap, ext.ts[0]), min(blk.iv.End+sc.gap, ext.end)
		require.InDelta(t, sc.wasteByCopy([]placement{blk}, lo, hi), sc.waste([]placement{blk}), 1e-9,
			"round %d: %+v, block %+v", round, ext, blk)
	}
}

// Property: when hopeless says a definition of several stages cannot be
// placed, neither the portfolio nor any of YARN's agents places it.
func TestHopelessIsExact(t *testing.T) {
	pf, err := NewPortfolio(DefaultConfig())
	require.NoError(t, err)
	ags := append([]subject{{name: "portfolio", agent: pf}}, subjects(t)...)
	r := rand.New(rand.NewPCG(97, 101))
	next := func(max int64) int64 { return r.Int64N(max + 1) }
	said := 0
	for round := 0; round < 300; round++ {
		p := testPlan(t, policy.NoOverCommit{})
		for k := int64(1); k <= 8; k++ {
			_ = pf.CreateReservation(p, plan.ReservationID{ClusterTimestamp: 2, Sequence: k}, "u", randomDefinition(next))
		}
		def := randomDefinition(next)
		if len(def.Stages) < 2 || plan.ValidateDefinition(&def, p.Limits(0)) != nil {
			continue
		}
		id := plan.ReservationID{ClusterTimestamp: 1, Sequence: 1}
		if !hopeless(newView(p), id, "u", def, Config{ComponentwiseFit: true}) {
			continue
		}
		said++
		for _, s := range ags {
			err := s.agent.CreateReservation(p, id, "u", def)
			require.Error(t, err, "%s placed a definition hopeless called unplaceable: %+v", s.name, def)
		}
	}
	require.Positive(t, said, "the generator should produce hopeless definitions")
	t.Logf("%d hopeless definitions checked", said)
}

func TestWasteConfigValidate(t *testing.T) {
	require.NoError(t, DefaultWasteConfig().Validate())
	for _, c := range []struct {
		name  string
		w     WasteConfig
		field string
	}{
		{"gap", WasteConfig{Gap: 0, Contested: 0.5}, "waste-options.gap"},
		{"slack", WasteConfig{Gap: 1, Slack: math.Inf(1), Contested: 0.5}, "waste-options.slack"},
		{"contested", WasteConfig{Gap: 1, Contested: -1}, "waste-options.contested"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := NewLeastWaste(LeastWasteConfig{Config: DefaultConfig(), Waste: c.w})
			require.ErrorIs(t, err, berth.ErrInvalidArgument)
			var fe *berth.FieldError
			require.ErrorAs(t, err, &fe)
			assert.Equal(t, c.field, fe.Field)
		})
	}
	_, err := NewLeastWaste(LeastWasteConfig{Config: Config{SmoothnessFactor: -1}})
	require.ErrorIs(t, err, berth.ErrInvalidArgument)
}

// TestLeastWasteZeroWasteIsDefault: a config without waste settings gets
// DefaultWasteConfig, and says so in its snapshot spec.
func TestLeastWasteZeroWasteIsDefault(t *testing.T) {
	zero, err := NewLeastWaste(LeastWasteConfig{Config: DefaultConfig()})
	require.NoError(t, err)
	def, err := NewLeastWaste(LeastWasteConfig{Config: DefaultConfig(), Waste: DefaultWasteConfig()})
	require.NoError(t, err)
	assert.Equal(t, DefaultWasteConfig(), zero.wopts)
	assert.Equal(t, def.StateSpec(), zero.StateSpec())
}

// LeastWaste is safe for concurrent use: parallel callers on their own
// plans decide exactly as one caller does.
func TestLeastWasteConcurrent(t *testing.T) {
	lw, err := NewLeastWaste(LeastWasteConfig{Config: DefaultConfig(), Waste: WasteConfig{Gap: 5000, Slack: 0.2, Contested: 2}})
	require.NoError(t, err)
	checkParallelCallers(t, lw, rand.New(rand.NewPCG(103, 107)))
}
