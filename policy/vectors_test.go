package policy_test

import (
	"errors"
	"strconv"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/policy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	oneMin  = 60_000
	oneHour = 3_600_000
	oneDay  = 86_400_000
)

// policyPlan is the plan of BaseSharingPolicyTest (reservation-vectors §6.0).
func policyPlan(t *testing.T, pol plan.SharingPolicy, capacity berth.Resource, step berth.Duration) *plan.Plan {
	cfg := plan.DefaultConfig("dedicated", capacity, berth.NewManualClock(0))
	cfg.Step = step
	cfg.MaxAllocation = berth.New(8192, 8)
	cfg.Policy = pol
	p, err := plan.New(cfg)
	require.NoError(t, err)
	return p
}

// runTest is BaseSharingPolicyTest.runTest with initTime % period fixed at
// 600,000 for periodic rows. It returns how many submissions were
// accepted and the first error.
func runTest(t *testing.T, pol plan.SharingPolicy, duration int64, height float64, subs int, recurrence int64) (int, error) {
	p := policyPlan(t, pol, berth.New(1024*1000, 1000), 1000)
	alloc := berth.New(1024, 1).Mul(height * 1000)
	period := max(recurrence, 1)
	var ivs []plan.IntervalResource
	var start, end int64
	if recurrence == 0 {
		ivs = []plan.IntervalResource{{Interval: berth.Interval{Start: 0, End: duration}, Resource: alloc}}
		start, end = 0, duration
	} else {
		// the generator's layers, in period-relative time
		prof := map[[2]int64]berth.Resource{}
		rStart := int64(600_000)
		rEnd := rStart + duration
		if rEnd > period {
			diff := rEnd - period
			rEnd = period
			if duration > period {
				if layers := duration/period - 1; layers > 0 {
					prof[[2]int64{0, period}] = alloc.MulInt(layers)
				}
				if d := diff % period; d > 0 {
					prof[[2]int64{0, d}] = prof[[2]int64{0, d}].Add(alloc)
				}
			} else {
				prof[[2]int64{0, diff}] = prof[[2]int64{0, diff}].Add(alloc)
			}
		}
		prof[[2]int64{rStart, rEnd}] = prof[[2]int64{rStart, rEnd}].Add(alloc)
		start, end = period, 0
		for k, r := range prof {
			ivs = append(ivs, plan.IntervalResource{Interval: berth.Interval{Start: k[0], End: k[1]}, Resource: r})
			start, end = min(start, k[0]), max(end, k[1])
		}
	}
	def := plan.Definition{Arrival: start, Deadline: start + duration + 1, Period: recurrence, Interpreter: plan.RAll,
		Stages: []plan.Stage{{Capability: berth.New(1024, 1), Containers: 1, Concurrency: 1, Duration: duration}}}
	for i := 0; i < subs; i++ {
		a, err := plan.NewAllocation(plan.ReservationID{ClusterTimestamp: 1, Sequence: int64(i + 1)}, "u1", def,
			berth.Interval{Start: start, End: end}, ivs)
		require.NoError(t, err)
		if err := p.AddReservation(a); err != nil {
			return i, err
		}
	}
	return subs, nil
}

func cotPolicy(t *testing.T, inst, avg float32) *policy.CapacityOverTime {
	cfg := policy.DefaultCapacityOverTimeConfig()
	cfg.InstantaneousMaxPercent, cfg.AveragePercent = inst, avg
	pol, err := policy.NewCapacityOverTime(cfg)
	require.NoError(t, err)
	return pol
}

func TestCapacityOverTimeVectors(t *testing.T) {
	const twoH, oneD = 7_200_000, oneDay
	rows := []struct {
		id       string
		duration int64
		height   float64
		subs     int
		rec      int64
		reject   bool
		check    policy.Check
		accepted int
	}{
		{"POL-COT-01", oneHour, 0.25, 1, 0, false, 0, 1},
		{"POL-COT-02", oneHour, 0.25, 1, twoH, false, 0, 1},
		{"POL-COT-03", oneHour, 0.25, 1, oneD, false, 0, 1},
		{"POL-COT-04", oneMin, 0.74, 1, 0, false, 0, 1},
		{"POL-COT-05", oneMin, 0.74, 1, twoH, false, 0, 1},
		{"POL-COT-06", oneMin, 0.74, 1, oneD, false, 0, 1},
		{"POL-COT-07", oneHour, 0.76, 1, 0, true, policy.CheckInstantaneous, 0},
		{"POL-COT-08", oneHour, 0.76, 1, twoH, true, policy.CheckInstantaneous, 0},
		{"POL-COT-09", oneHour, 0.76, 1, oneD, true, policy.CheckInstantaneous, 0},
		{"POL-COT-10", oneHour, 1.1, 1, 0, true, policy.CheckCapacity, 0},
		{"POL-COT-11", oneHour, 1.1, 1, twoH, true, policy.CheckCapacity, 0},
		{"POL-COT-12", oneHour, 1.1, 1, oneD, true, policy.CheckCapacity, 0},
		{"POL-COT-13", oneMin, 0.25, 3, 0, false, 0, 3},
		{"POL-COT-14", oneMin, 0.25, 3, twoH, false, 0, 3},
		{"POL-COT-15", oneMin, 0.25, 3, oneD, false, 0, 3},
		{"POL-COT-16", oneMin, 0.25, 4, 0, true, policy.CheckInstantaneous, 3},
		{"POL-COT-17", oneMin, 0.25, 4, twoH, true, policy.CheckInstantaneous, 3},
		{"POL-COT-18", oneMin, 0.25, 4, oneD, true, policy.CheckInstantaneous, 3},
		{"POL-COT-19", 25 * oneHour, 0.25, 1, 0, true, policy.CheckAverage, 0},
		{"POL-COT-20", 25 * oneHour, 0.25, 1, twoH, true, policy.CheckCapacity, 0},
		{"POL-COT-21", 25 * oneHour, 0.25, 1, oneD, true, policy.CheckAverage, 0},
		{"POL-COT-22", 25 * oneHour, 0.05, 5, 0, true, policy.CheckAverage, 4},
		{"POL-COT-23", 25 * oneHour, 0.05, 5, twoH, true, policy.CheckAverage, 0},
		{"POL-COT-24", 25 * oneHour, 0.05, 5, oneD, true, policy.CheckAverage, 4},
		{"POL-COT-25", 24 * oneHour, 0.26, 1, 0, true, policy.CheckAverage, 0},
		{"POL-COT-26", 2 * oneHour, 0.26, 1, twoH, true, policy.CheckAverage, 0},
		{"POL-COT-27", 48 * oneHour, 0.26, 1, oneD, true, policy.CheckAverage, 0},
		{"POL-COT-28", 12 * oneHour, 0.51, 1, 0, true, policy.CheckAverage, 0},
		{"POL-COT-29", oneHour, 0.51, 1, twoH, true, policy.CheckAverage, 0},
		{"POL-COT-30", 24 * oneHour, 0.51, 1, oneD, true, policy.CheckAverage, 0},
	}
	for _, r := range rows {
		t.Run(r.id, func(t *testing.T) {
			n, err := runTest(t, cotPolicy(t, 75, 25), r.duration, r.height, r.subs, r.rec)
			assert.Equal(t, r.accepted, n, "accepted before the first rejection")
			if !r.reject {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.ErrorIs(t, err, policy.ErrQuotaExceeded, "YARN: PlanningQuotaException")
			assert.ErrorIs(t, err, berth.ErrCapacityExceeded)
			var rej *policy.RejectionError
			require.True(t, errors.As(err, &rej))
			assert.Equal(t, r.check, rej.Check)
		})
	}
}

func TestNoOverCommitVectors(t *testing.T) {
	const twoH = 7_200_000
	rows := []struct {
		id       string
		height   float64
		subs     int
		rec      int64
		accepted int
		reject   bool
	}{
		{"POL-NOC-01", 0.25, 1, 0, 1, false},
		{"POL-NOC-02", 0.25, 1, twoH, 1, false},
		{"POL-NOC-03", 1, 1, 0, 1, false},
		{"POL-NOC-04", 1, 1, twoH, 1, false},
		{"POL-NOC-05", 1.1, 1, 0, 0, true},
		{"POL-NOC-06", 1.1, 1, twoH, 0, true},
		{"POL-NOC-07", 0.25, 4, 0, 4, false},
		{"POL-NOC-08", 0.25, 4, twoH, 4, false},
		{"POL-NOC-09", 0.25, 5, 0, 4, true},
		{"POL-NOC-10", 0.25, 5, twoH, 4, true},
	}
	for _, r := range rows {
		t.Run(r.id, func(t *testing.T) {
			n, err := runTest(t, policy.NoOverCommit{}, oneHour, r.height, r.subs, r.rec)
			assert.Equal(t, r.accepted, n)
			if !r.reject {
				assert.NoError(t, err)
				return
			}
			assert.ErrorIs(t, err, policy.ErrOverCommitted, "YARN: ResourceOverCommitException")
			assert.NotErrorIs(t, err, policy.ErrQuotaExceeded)
		})
	}
}

// legacyAllocation is the 2.8 tests' generateAllocation(initTime, 1000, f):
// 3600 one-step blocks of the same height, i.e. one hour.
func legacyAllocation(t *testing.T, seq int64, user string, start, end int64, containers int64) *plan.Allocation {
	a, err := plan.NewAllocation(plan.ReservationID{ClusterTimestamp: 2, Sequence: seq}, user, plan.Definition{},
		berth.Interval{Start: start, End: end},
		[]plan.IntervalResource{{Interval: berth.Interval{Start: start, End: end}, Resource: berth.New(1024, 1).MulInt(containers)}})
	require.NoError(t, err)
	return a
}

func TestLegacyCapacityOverTimeVectors(t *testing.T) {
	const initTime = 5 * oneDay
	mk := func(t *testing.T) *plan.Plan {
		return policyPlan(t, cotPolicy(t, 70, 25), berth.New(1024*1_000_000, 1_000_000), 1000)
	}
	ceil := func(x float64) int64 { return int64(x*1_000_000 + 0.999999) }
	type sub struct {
		user       string
		end        int64
		containers int64
	}
	hour := func(u string, x float64) sub { return sub{u, initTime + oneHour, ceil(x)} }
	rows := []struct {
		id      string
		subs    []sub
		failAt  int // index of the rejected submission, -1 if none
		check   policy.Check
		overcom bool
	}{
		{"POL-L-01", []sub{hour("u1", 0.2)}, -1, 0, false},
		{"POL-L-02", []sub{hour("u1", 0.69)}, -1, 0, false},
		{"POL-L-03", []sub{hour("u0", 0.25), hour("u1", 0.25), hour("u2", 0.25), hour("u3", 0.25)}, -1, 0, false},
		{"POL-L-04", []sub{hour("u0", 0.25), hour("u1", 0.25), hour("u2", 0.25), hour("u3", 0.25), hour("u4", 0.25)}, 4, policy.CheckCapacity, true},
		{"POL-L-05", []sub{hour("u1", 0.71)}, 0, policy.CheckInstantaneous, false},
		{"POL-L-06", []sub{hour("u1", 0.3), hour("u1", 0.3), hour("u1", 0.3)}, 2, policy.CheckInstantaneous, false},
		{"POL-L-07", []sub{{"u1", initTime + oneDay/2 + 100, 500_000}}, 0, policy.CheckAverage, false},
		{"POL-L-08", []sub{{"u1", initTime + oneDay/4 + 1, 500_000}, {"u1", initTime + oneDay/4 + 1, 500_000}}, 1, policy.CheckInstantaneous, false},
	}
	for _, r := range rows {
		t.Run(r.id, func(t *testing.T) {
			p := mk(t)
			for i, s := range r.subs {
				err := p.AddReservation(legacyAllocation(t, int64(i+1), s.user, initTime, s.end, s.containers))
				if i != r.failAt {
					require.NoError(t, err, "submission %d", i)
					continue
				}
				require.Error(t, err)
				assert.ErrorIs(t, err, policy.ErrQuotaExceeded)
				var rej *policy.RejectionError
				require.True(t, errors.As(err, &rej))
				assert.Equal(t, r.check, rej.Check)
				assert.Equal(t, r.overcom, errors.Is(err, policy.ErrOverCommitted))
			}
		})
	}
}

// POL-X1: YARN adds the old version of an updated reservation to the
// user's consumption instead of subtracting it, so an identical update of
// a 12 h reservation at 25 % is rejected. Berth accepts it.
func TestUpdateDoesNotDoubleCount(t *testing.T) {
	for _, hours := range []int64{6, 12} {
		t.Run(strconv.FormatInt(hours, 10)+"h", func(t *testing.T) {
			p := policyPlan(t, cotPolicy(t, 100, 25), berth.New(1024000, 1000), 1000)
			mk := func() *plan.Allocation {
				a, err := plan.NewAllocation(plan.ReservationID{ClusterTimestamp: 1, Sequence: 1}, "u1", plan.Definition{},
					berth.Interval{Start: 0, End: hours * oneHour},
					[]plan.IntervalResource{{Interval: berth.Interval{Start: 0, End: hours * oneHour}, Resource: berth.New(256000, 250)}})
				require.NoError(t, err)
				return a
			}
			require.NoError(t, p.AddReservation(mk()))
			before := p.Snapshot()
			require.NoError(t, p.UpdateReservation(mk()))
			assert.Equal(t, 1, p.Len())
			assert.Equal(t, before.TotalCommitted(oneHour), p.TotalCommitted(oneHour))
		})
	}
}

// REP-01 (testReplanningPlanCapacityLoss).
func TestReplannerCapacityLoss(t *testing.T) {
	clock := berth.NewManualClock(0)
	rp, err := policy.NewSimpleCapacityReplanner(policy.ReplannerConfig{EnforcementWindow: 6})
	require.NoError(t, err)
	cfg := plan.DefaultConfig("dedicated", berth.New(102400, 100), clock)
	cfg.Step = 1
	cfg.MaxAllocation = berth.New(8192, 8)
	cfg.Policy = policy.NoOverCommit{}
	cfg.Replanner = rp
	p, err := plan.New(cfg)
	require.NoError(t, err)
	add := func(seq int64, user string, start, end, containers int64, acc berth.Time) {
		clock.Set(acc)
		a, err := plan.NewAllocation(plan.ReservationID{ClusterTimestamp: 7, Sequence: seq}, user, plan.Definition{},
			berth.Interval{Start: start, End: end},
			[]plan.IntervalResource{{Interval: berth.Interval{Start: start, End: end}, Resource: berth.New(1024, 1).MulInt(containers)}})
		require.NoError(t, err)
		require.NoError(t, p.AddReservation(a))
	}
	add(1, "u3", 0, 5, 20, 0)
	add(2, "u4", 0, 5, 20, 1)
	add(3, "u5", 0, 5, 20, 2)
	add(4, "u6", 0, 5, 20, 3)
	add(5, "u7", 0, 5, 20, 4)
	add(6, "u3", 10, 15, 50, 4)
	add(7, "u4", 10, 15, 50, 6)
	require.NoError(t, p.SetCapacity(berth.New(71680, 70)))
	clock.Set(0)
	require.NoError(t, rp.Plan(p, nil, 0))
	for seq, present := range map[int64]bool{1: true, 2: true, 3: true, 4: false, 5: false, 6: true, 7: true} {
		_, ok := p.Reservation(plan.ReservationID{ClusterTimestamp: 7, Sequence: seq})
		assert.Equal(t, present, ok, "r%d", seq)
	}
	// New contracts are refused.
	assert.ErrorIs(t, rp.Plan(p, []plan.Definition{{}}, 0), berth.ErrInvalidArgument)
}

func TestConfigValidation(t *testing.T) {
	bad := policy.DefaultCapacityOverTimeConfig()
	bad.Window = 0
	_, err := policy.NewCapacityOverTime(bad)
	var fe *berth.FieldError
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, "reservation-window", fe.Field)
	bad = policy.DefaultCapacityOverTimeConfig()
	bad.AveragePercent = -1
	_, err = policy.NewCapacityOverTime(bad)
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)
	_, err = policy.NewSimpleCapacityReplanner(policy.ReplannerConfig{EnforcementWindow: -1})
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)
	def := policy.DefaultCapacityOverTimeConfig()
	assert.Equal(t, berth.Duration(86_400_000), def.Window)
	assert.Equal(t, float32(100), def.InstantaneousMaxPercent)
	assert.Equal(t, float32(100), def.AveragePercent)
	assert.Equal(t, berth.Duration(3_600_000), policy.DefaultReplannerConfig().EnforcementWindow)
}
