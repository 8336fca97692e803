package plan

import (
	"fmt"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/rle"
	"github.com/stretchr/testify/require"
)

// c returns n containers of <1024, 1>.
func c(n int64) berth.Resource { return berth.New(1024*n, n) }

// testNoOverCommit is a test double of YARN's NoOverCommitPolicy: the
// allocation must fit in what the plan has available, old version added back.
type testNoOverCommit struct{ window berth.Duration }

func (pol testNoOverCommit) Validate(view *Plan, a *Allocation) error {
	w := a.Window()
	avail, err := view.AvailableResources(a.User, a.ID, w, a.Period())
	if err != nil {
		return fmt.Errorf("over-commit: %w: %w", berth.ErrCapacityExceeded, err)
	}
	ask, err := a.ResourcesOver(w)
	if err != nil {
		return err
	}
	if _, err := rle.Merge(view.Calculator(), view.Capacity(), avail, ask, rle.OpSubtractNonNegative, w); err != nil {
		return fmt.Errorf("Resources at time %d would be overcommitted by accepting reservation: %v: %w", a.Start, a.ID, err)
	}
	return nil
}

func (testNoOverCommit) Available(avail *rle.Series, _ *Plan, _ string, _ ReservationID, _ berth.Interval) (*rle.Series, error) {
	return avail, nil
}

func (pol testNoOverCommit) ValidWindow() berth.Duration { return pol.window }

// acceptAll admits everything and keeps window of history.
type acceptAll struct{ window berth.Duration }

func (acceptAll) Validate(*Plan, *Allocation) error { return nil }
func (acceptAll) Available(avail *rle.Series, _ *Plan, _ string, _ ReservationID, _ berth.Interval) (*rle.Series, error) {
	return avail, nil
}
func (a acceptAll) ValidWindow() berth.Duration { return a.window }

// testAgent places every stage of an R_ALL definition at the arrival
// (containers × capability over [arrival, arrival+duration)), no search.
type testAgent struct{}

func (testAgent) place(id ReservationID, user string, def Definition) (*Allocation, error) {
	var ivs []IntervalResource
	for _, s := range def.Stages {
		ivs = append(ivs, IntervalResource{Interval: berth.Interval{Start: def.Arrival, End: def.Arrival + s.Duration}, Resource: s.Total()})
	}
	return NewAllocation(id, user, def, berth.Interval{Start: def.Arrival, End: def.Deadline}, ivs)
}

func (ag testAgent) CreateReservation(p *Plan, id ReservationID, user string, def Definition) error {
	a, err := ag.place(id, user, def)
	if err != nil {
		return err
	}
	return p.AddReservation(a)
}

func (ag testAgent) UpdateReservation(p *Plan, id ReservationID, user string, def Definition) error {
	a, err := ag.place(id, user, def)
	if err != nil {
		return err
	}
	return p.UpdateReservation(a)
}

func (testAgent) DeleteReservation(p *Plan, id ReservationID, _ string) error {
	return p.DeleteReservation(id)
}

// testPlanConfig is the TestInMemoryPlan setup: total <102400,100>, step 1,
// min <1024,1>, max <65536,20>, clock reading 1, NoOverCommit.
func testPlanConfig() Config {
	cfg := DefaultConfig("test-reservation", berth.New(102400, 100), berth.NewManualClock(1))
	cfg.Step = 1
	cfg.MinAllocation = berth.New(1024, 1)
	cfg.MaxAllocation = berth.New(65536, 20)
	cfg.Policy = testNoOverCommit{}
	cfg.Agent = testAgent{}
	return cfg
}

func newTestPlan(t testing.TB, mod ...func(*Config)) *Plan {
	t.Helper()
	cfg := testPlanConfig()
	for _, m := range mod {
		m(&cfg)
	}
	p, err := New(cfg)
	require.NoError(t, err)
	return p
}

// simpleDef is createSimpleReservationDefinition(arrival, deadline,
// duration) with an optional period: one stage of <1024,1>, R_ALL.
func simpleDef(arrival, deadline, duration berth.Time, period berth.Duration) Definition {
	return Definition{Arrival: arrival, Deadline: deadline, Period: period, Interpreter: RAll,
		Stages: []Stage{{Capability: berth.New(1024, 1), Containers: 1, Concurrency: 1, Duration: duration}}}
}

// blocks is the test-local generateAllocation(start, alloc, isStep):
// [start+i, start+i+1) → n_i containers, n_i = alloc[i] (+ i if step).
func blocks(start berth.Time, alloc []int64, step bool) []IntervalResource {
	out := make([]IntervalResource, len(alloc))
	for i, n := range alloc {
		if step {
			n += int64(i)
		}
		out[i] = IntervalResource{Interval: berth.Interval{Start: start + berth.Time(i), End: start + berth.Time(i) + 1}, Resource: c(n)}
	}
	return out
}

// resAlloc builds a reservation as TestInMemoryPlan does: interval
// [start, start+len), definition R_ALL with the given period.
func resAlloc(t testing.TB, id ReservationID, user string, start berth.Time, alloc []int64, step bool, period berth.Duration) *Allocation {
	t.Helper()
	n := berth.Time(len(alloc))
	a, err := NewAllocation(id, user, simpleDef(start, start+n+1, n, period), berth.Interval{Start: start, End: start + n}, blocks(start, alloc, step))
	require.NoError(t, err)
	return a
}

func rid(seq int64) ReservationID {
	return ReservationID{ClusterTimestamp: 1404198295326, Sequence: seq}
}

func repeat(v int64, n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = v
	}
	return out
}
