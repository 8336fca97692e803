package plan

import (
	"errors"
	"strings"
	"testing"

	"github.com/berthsched/berth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// §3 of reservation-vectors.md: InMemoryReservationAllocation.
func TestVectorsAllocation(t *testing.T) {
	tests := []struct {
		id    string
		start berth.Time
		alloc []int64
		step  bool
		gang  bool
		want  func(i int) int64
	}{
		{"IRA-01 blocks", 100, repeat(10, 6), false, false, func(int) int64 { return 10 }},
		{"IRA-02 steps", 100, repeat(10, 6), true, false, func(i int) int64 { return 10 + int64(i) }},
		{"IRA-03 skyline", 100, []int64{0, 5, 10, 10, 5, 0}, true, false, func(i int) int64 { return []int64{0, 5, 10, 10, 5, 0}[i] + int64(i) }},
		{"IRA-04 zero", 0, nil, false, false, nil},
		{"IRA-05 gang", 100, repeat(10, 6), false, true, func(int) int64 { return 10 }},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			n := berth.Time(len(tt.alloc))
			def := simpleDef(tt.start, tt.start+n+1, n, 0)
			in := blocks(tt.start, tt.alloc, tt.step)
			end := tt.start + n + 1
			if tt.alloc == nil {
				end = 1
			}
			a, err := NewAllocation(rid(1), "yarn", def, berth.Interval{Start: tt.start, End: end}, in)
			require.NoError(t, err)
			a.Gang = tt.gang
			assert.Equal(t, rid(1), a.ID)
			assert.True(t, def.Equal(a.Definition))
			assert.Equal(t, "yarn", a.User)
			assert.Equal(t, tt.start, a.Start)
			assert.Equal(t, end, a.End)
			assert.Equal(t, tt.gang, a.ContainsGangs())
			assert.Len(t, a.Intervals, len(in))
			for i, e := range in {
				assert.Equal(t, e.Interval, a.Intervals[i].Interval)
				assert.True(t, e.Resource.Equal(a.Intervals[i].Resource))
			}
			for i := range tt.alloc {
				assert.True(t, c(tt.want(i)).Equal(a.ResourcesAt(tt.start+berth.Time(i))), "at %d", i)
			}
			// [derived] zero outside [start, end).
			assert.True(t, a.ResourcesAt(tt.start-1).IsZero())
			assert.True(t, a.ResourcesAt(end).IsZero())
		})
	}
	t.Run("derived compare by acceptance", func(t *testing.T) {
		a := &Allocation{ID: rid(1), AcceptedAt: 5}
		b := &Allocation{ID: rid(2), AcceptedAt: 7}
		assert.Equal(t, 1, a.Compare(b))
		assert.Equal(t, -1, b.Compare(a))
		c := &Allocation{ID: rid(3), AcceptedAt: 7}
		assert.Equal(t, -1, c.Compare(b), "same acceptance: larger sequence first")
	})
}

func assertCommitted(t *testing.T, p *Plan, start berth.Time, want []int64) {
	t.Helper()
	for i, n := range want {
		assert.True(t, c(n).Equal(p.TotalCommitted(start+berth.Time(i))), "committed at %d: %v", start+berth.Time(i), p.TotalCommitted(start+berth.Time(i)))
	}
}

func assertUser(t *testing.T, p *Plan, user string, start berth.Time, want []int64) {
	t.Helper()
	for i, n := range want {
		assert.True(t, c(n).Equal(p.UserConsumptionAt(user, start+berth.Time(i))), "user at %d", start+berth.Time(i))
	}
}

// doAssertions of TestInMemoryPlan.
func doAssertions(t *testing.T, p *Plan, a *Allocation) {
	t.Helper()
	got, ok := p.Reservation(a.ID)
	require.True(t, ok)
	assert.Equal(t, a.ID, got.ID)
	assert.Equal(t, 1, len(p.All()))
	if !a.IsPeriodic() {
		end, ok := p.LastEnd()
		assert.True(t, ok)
		assert.Equal(t, a.End, end)
	}
	assert.True(t, berth.New(102400, 100).Equal(p.Capacity()))
	assert.True(t, berth.New(1024, 1).Equal(p.MinAllocation()))
	assert.True(t, berth.New(65536, 20).Equal(p.MaxAllocation()))
	assert.Equal(t, "test-reservation", p.QueueName())
	assert.True(t, p.MoveOnExpiry())
}

// §4 of reservation-vectors.md: InMemoryPlan.
func TestVectorsPlan(t *testing.T) {
	t.Run("PLAN-01 add", func(t *testing.T) {
		p := newTestPlan(t)
		a := resAlloc(t, rid(1), "yarn", 100, repeat(10, 6), false, 0)
		require.NoError(t, p.AddReservation(a))
		doAssertions(t, p, a)
		assertCommitted(t, p, 100, repeat(10, 6))
		assertUser(t, p, "yarn", 100, repeat(10, 6))
		got, _ := p.Reservation(a.ID)
		assert.Equal(t, berth.Time(1), got.AcceptedAt, "stamped from the clock")
		assert.Equal(t, NotAccepted, a.AcceptedAt, "the caller's allocation is not changed")
	})
	t.Run("PLAN-02 out of range", func(t *testing.T) {
		p := newTestPlan(t, func(c *Config) { c.MaxPeriodicity = 100 })
		_, err := p.AvailableResources("yarn", ReservationID{}, berth.Interval{Start: 150, End: 330}, 50)
		require.Error(t, err)
		assert.ErrorIs(t, err, berth.ErrInvalidArgument)
		assert.Contains(t, err.Error(), "Invalid input: (end - start) = (330 - 150) = 180 > period = 50")
	})
	t.Run("PLAN-03 periodic add", func(t *testing.T) {
		p := newTestPlan(t, func(c *Config) { c.MaxPeriodicity = 100 })
		a := resAlloc(t, rid(1), "yarn", 10, []int64{10, 50}, false, 20)
		require.NoError(t, p.AddReservation(a))
		doAssertions(t, p, a)
		cons, err := p.UserConsumption("yarn", berth.Interval{Start: 10, End: 336})
		require.NoError(t, err)
		for k := berth.Time(0); k < 12; k++ {
			assert.True(t, c(10).Equal(p.TotalCommitted(10+20*k)), "k=%d", k)
			assert.True(t, c(50).Equal(p.TotalCommitted(11+20*k)), "k=%d", k)
			assert.True(t, c(10).Equal(cons.At(10+20*k)), "k=%d", k)
			assert.True(t, c(50).Equal(cons.At(11+20*k)), "k=%d", k)
		}
		avail, err := p.AvailableResources("yarn", ReservationID{}, berth.Interval{Start: 130, End: 170}, 50)
		require.NoError(t, err)
		for _, at := range []berth.Time{130, 140, 150} {
			assert.Equal(t, int64(92160), avail.At(at).Memory, "at %d", at)
		}
		// [derived] full availability series.
		want := map[berth.Time]berth.Resource{130: berth.New(92160, 90), 131: berth.New(51200, 50), 132: berth.New(102400, 100),
			140: berth.New(92160, 90), 141: berth.New(51200, 50), 142: berth.New(102400, 100),
			150: berth.New(92160, 90), 151: berth.New(51200, 50), 152: berth.New(102400, 100), 169: berth.New(102400, 100)}
		for at, r := range want {
			assert.True(t, r.Equal(avail.At(at)), "at %d: %v", at, avail.At(at))
		}
		_, defined := avail.Lookup(170)
		assert.False(t, defined, "undefined at the window end")
	})
	t.Run("PLAN-04 empty", func(t *testing.T) {
		p := newTestPlan(t)
		a := resAlloc(t, rid(1), "yarn", 100, nil, false, 0)
		require.NoError(t, p.AddReservation(a))
		assert.Equal(t, 1, p.Len())
	})
	t.Run("PLAN-05 already exists", func(t *testing.T) {
		p := newTestPlan(t)
		a := resAlloc(t, rid(1), "yarn", 100, repeat(10, 6), false, 0)
		require.NoError(t, p.AddReservation(a))
		before := p.Snapshot()
		err := p.AddReservation(a)
		require.Error(t, err)
		assert.ErrorIs(t, err, berth.ErrAlreadyExists)
		var fe *berth.FieldError
		require.ErrorAs(t, err, &fe)
		assert.True(t, strings.HasSuffix(fe.Reason, "already exists"))
		assert.True(t, before.Equal(p))
		assertCommitted(t, p, 100, repeat(10, 6))
	})
	t.Run("PLAN-06 update", func(t *testing.T) {
		p := newTestPlan(t)
		require.NoError(t, p.AddReservation(resAlloc(t, rid(1), "yarn", 100, repeat(10, 6), false, 0)))
		upd := resAlloc(t, rid(1), "yarn", 110, []int64{0, 5, 10, 10, 5, 0}, true, 0)
		require.NoError(t, p.UpdateReservation(upd))
		doAssertions(t, p, upd)
		want := []int64{0, 6, 12, 13, 9, 5}
		assertCommitted(t, p, 110, want)
		assertUser(t, p, "yarn", 110, want)
		assertCommitted(t, p, 100, []int64{0, 0, 0, 0, 0, 0, 0, 0, 0, 0})
		end, ok := p.LastEnd()
		assert.True(t, ok)
		assert.Equal(t, berth.Time(116), end)
		cnt := p.ReservationCount("yarn", berth.Interval{Start: 0, End: 200})
		assert.True(t, cnt.At(110).IsZero())
		assert.True(t, berth.New(1, 1).Equal(cnt.At(111)))
		assert.True(t, berth.New(1, 1).Equal(cnt.At(115)))
		assert.True(t, cnt.At(116).IsZero())
	})
	t.Run("PLAN-07 periodic update", func(t *testing.T) {
		p := newTestPlan(t)
		require.NoError(t, p.AddReservation(resAlloc(t, rid(1), "yarn", 100, []int64{10, 20}, false, 3_600_000)))
		assertCommitted(t, p, 100, []int64{10, 20})
		require.NoError(t, p.UpdateReservation(resAlloc(t, rid(1), "yarn", 110, []int64{30, 40, 50}, false, 3_600_000)))
		assertCommitted(t, p, 110, []int64{30, 40, 50})
		assertCommitted(t, p, 100, []int64{0, 0})
		assertCommitted(t, p, 3_600_110, []int64{30, 40, 50})
	})
	t.Run("PLAN-08 update unknown", func(t *testing.T) {
		p := newTestPlan(t)
		err := p.UpdateReservation(resAlloc(t, rid(9), "yarn", 100, repeat(10, 6), false, 0))
		require.Error(t, err)
		assert.ErrorIs(t, err, berth.ErrNotFound)
		assert.True(t, strings.HasSuffix(err.(*berth.FieldError).Reason, "does not exist in the plan"))
		_, ok := p.Reservation(rid(9))
		assert.False(t, ok)
	})
	t.Run("PLAN-09 delete", func(t *testing.T) {
		p := newTestPlan(t)
		require.NoError(t, p.AddReservation(resAlloc(t, rid(1), "yarn", 100, repeat(10, 6), true, 0)))
		assertCommitted(t, p, 100, []int64{10, 11, 12, 13, 14, 15})
		require.NoError(t, p.DeleteReservation(rid(1)))
		assertCommitted(t, p, 100, repeat(0, 6))
		_, ok := p.Reservation(rid(1))
		assert.False(t, ok)
		assert.Equal(t, 0, p.Len())
	})
	t.Run("PLAN-10 delete periodic", func(t *testing.T) {
		p := newTestPlan(t)
		require.NoError(t, p.AddReservation(resAlloc(t, rid(1), "yarn", 100, []int64{10, 20}, false, 3_600_000)))
		require.NoError(t, p.DeleteReservation(rid(1)))
		assertCommitted(t, p, 100, []int64{0, 0})
	})
	t.Run("PLAN-11 delete unknown", func(t *testing.T) {
		p := newTestPlan(t)
		err := p.DeleteReservation(rid(1))
		assert.ErrorIs(t, err, berth.ErrNotFound)
		assert.True(t, strings.HasSuffix(err.(*berth.FieldError).Reason, "does not exist in the plan"))
	})
	t.Run("PLAN-12 archive", func(t *testing.T) {
		clock := berth.NewManualClock(1)
		p := newTestPlan(t, func(c *Config) { c.Policy = acceptAll{window: 1}; c.Clock = clock })
		require.NoError(t, p.AddReservation(resAlloc(t, rid(1), "u", 100, repeat(10, 6), false, 0)))
		require.NoError(t, p.AddReservation(resAlloc(t, rid(2), "u", 100, []int64{0, 5, 10, 5, 0}, true, 0)))
		assertCommitted(t, p, 100, []int64{10, 16, 22, 18, 14})
		clock.Set(106)
		ids, err := p.ArchiveCompleted(clock.Now())
		require.NoError(t, err)
		assert.Equal(t, []ReservationID{rid(2)}, ids)
		_, ok := p.Reservation(rid(1))
		assert.True(t, ok)
		assertCommitted(t, p, 100, repeat(10, 6))
		clock.Set(107)
		ids, err = p.ArchiveCompleted(clock.Now())
		require.NoError(t, err)
		assert.Equal(t, []ReservationID{rid(1)}, ids)
		assert.Equal(t, 0, p.Len())
		assertCommitted(t, p, 100, repeat(0, 6))
	})
	t.Run("PLAN-13..18 queries", func(t *testing.T) {
		p := newTestPlan(t)
		a := resAlloc(t, rid(1), "yarn", 100, repeat(10, 6), false, 0)
		require.NoError(t, p.AddReservation(a))
		// PLAN-13: by id, window and user ignored.
		assert.Len(t, p.Reservations(Filter{ID: rid(1)}), 1)
		assert.Len(t, p.Reservations(Filter{ID: rid(1), Window: &berth.Interval{}, User: "invalid"}), 1)
		// PLAN-14.
		assert.Empty(t, p.Reservations(Filter{ID: rid(2)}))
		// PLAN-15.
		for _, q := range []struct {
			s, e berth.Time
			n    int
		}{{100, 106, 1}, {101, 106, 1}, {0, 100, 1}, {106, berth.MaxTime, 0}, {0, 50, 0}} {
			assert.Len(t, p.Reservations(Filter{Window: &berth.Interval{Start: q.s, End: q.e}}), q.n, "[%d, %d]", q.s, q.e)
		}
		// PLAN-16, 17.
		assert.Len(t, p.ReservationsAt(100), 1)
		assert.Len(t, p.Reservations(Filter{}), 1)
		// PLAN-18.
		assert.Empty(t, newTestPlan(t).Reservations(Filter{Window: &berth.Interval{Start: 0, End: berth.MaxTime}}))
	})
}

// §4.1: periodic search (PLAN-19..28). Times relative to the reservation
// start, in minutes.
func TestVectorsPeriodicSearch(t *testing.T) {
	const minute = 60_000
	const t0 = berth.Time(2_553_071_857_000) // 2050-12-03 10:37:37 UTC
	tests := []struct {
		id         string
		periodMin  int64
		resStart   int64 // minutes from t0
		sMin, eMin int64 // search, minutes from the reservation start
		cycles     int64
		want       int
	}{
		{"PLAN-19", 10, 0, -27, -17, 1, 0},
		{"PLAN-20", 20, 0, 20, 80, 100, 1},
		{"PLAN-21", 20, 0, -1, 11, 100, 1},
		{"PLAN-22", 60, 0, 59, 61, 100, 1},
		{"PLAN-23", 60, 0, 69, 71, 100, 1},
		{"PLAN-24", 60, 0, 3, 6, 100, 1},
		{"PLAN-25", 60, 0, 11, 13, 100, 0},
		{"PLAN-26", 60, 0, 53, 58, 100, 0},
		{"PLAN-27", 60, 0, -47, 78, 100, 1},
		{"PLAN-28", 60, -40, 1, 11, 100, 1},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			period := tt.periodMin * minute
			p := newTestPlan(t, func(c *Config) { c.MaxPeriodicity = 10 * period })
			start := t0 + tt.resStart*minute
			w := berth.Interval{Start: start, End: start + 10*minute}
			def := simpleDef(w.Start, w.End, 10*minute, period)
			a, err := NewAllocation(rid(1), "yarn", def, w, []IntervalResource{{Interval: w, Resource: berth.New(1024, 1)}})
			require.NoError(t, err)
			require.NoError(t, p.AddReservation(a))
			for i := int64(0); i < tt.cycles; i++ {
				q := berth.Interval{Start: start + tt.sMin*minute + i*period, End: start + tt.eMin*minute + i*period}
				got := p.Reservations(Filter{Window: &q})
				require.Len(t, got, tt.want, "cycle %d", i)
				if tt.want == 1 {
					assert.Equal(t, rid(1), got[0].ID)
				}
			}
		})
	}
}

// §9: ReservationInputValidator.
func TestVectorsValidator(t *testing.T) {
	type reqSpec struct {
		numRequests, numContainers int
		arrival, deadline          berth.Time
		duration                   berth.Duration
		period                     string
	}
	mkDef := func(r reqSpec) *Definition {
		per, err := ParseRecurrence(r.period)
		require.NoError(t, err)
		d := &Definition{Arrival: r.arrival, Deadline: r.deadline, Period: per, Interpreter: RAll}
		if r.numRequests > 0 && r.numContainers > 0 {
			d.Stages = []Stage{{Capability: berth.New(1024, 1), Containers: int64(r.numContainers), Concurrency: 1, Duration: r.duration}}
		}
		return d
	}
	newSys := func(t *testing.T, capacity berth.Resource) (*System, ReservationID) {
		s, err := NewSystem(SystemConfig{ClusterTimestamp: 7, Clock: berth.NewManualClock(1)})
		require.NoError(t, err)
		cfg := DefaultConfig("test-reservation", capacity, berth.NewManualClock(1))
		cfg.Agent = testAgent{}
		p, err := New(cfg)
		require.NoError(t, err)
		require.NoError(t, s.AddPlan(p))
		id := s.NewReservationID()
		s.queues[id] = "test-reservation" // getQueueForReservation(any) = "test-reservation"
		return s, id
	}
	total := berth.New(10240, 10)
	small := berth.New(512, 1)
	type check struct{ prefix, contains, suffix, exact string }
	tests := []struct {
		id    string
		op    string // submit, update
		spec  *reqSpec
		cap   berth.Resource
		noDef bool
		want  *check
	}{
		{"VAL-01", "submit", &reqSpec{1, 1, 1, 5, 3, "0"}, total, false, nil},
		{"VAL-04", "submit", nil, total, true, &check{exact: "Missing reservation definition. Please try again by specifying a reservation definition."}},
		{"VAL-05", "submit", &reqSpec{1, 1, 1, 0, 3, "0"}, total, false, &check{prefix: "The specified deadline: 0 is the past"}},
		{"VAL-06", "submit", &reqSpec{0, 0, 1, 5, 3, "0"}, total, false, &check{prefix: "No resources have been specified to reserve"}},
		{"VAL-07", "submit", &reqSpec{1, 0, 1, 5, 3, "0"}, total, false, &check{prefix: "No resources have been specified to reserve"}},
		{"VAL-08", "submit", &reqSpec{1, 1, 1, 3, 4, "0"}, total, false, &check{prefix: "The time difference", contains: "must  be greater or equal to the minimum resource duration"}},
		{"VAL-09", "submit", &reqSpec{1, 1, 1, 5, 4, "0"}, small, false, &check{prefix: "The size of the largest gang in the reservation definition", contains: "exceed the capacity available "}},
		{"VAL-10", "submit", &reqSpec{1, 1, 1, 5, 3, "600000"}, total, false, nil},
		{"VAL-12", "submit", &reqSpec{1, 1, 1, 5, 3, "43200001"}, total, false, &check{prefix: "The maximum periodicity:"}},
		{"VAL-14", "submit", &reqSpec{1, 1, 1, 50, 3, "10"}, total, false, &check{prefix: "Duration of the requested reservation:"}},
		{"VAL-15", "update", &reqSpec{1, 1, 1, 5, 3, "0"}, total, false, nil},
		{"VAL-19", "update", nil, total, true, &check{prefix: "Missing reservation definition. Please try again by specifying a reservation definition."}},
		{"VAL-20", "update", &reqSpec{1, 1, 1, 0, 3, "0"}, total, false, &check{prefix: "The specified deadline: 0 is the past"}},
		{"VAL-21", "update", &reqSpec{0, 0, 1, 5, 3, "0"}, total, false, &check{prefix: "No resources have been specified to reserve"}},
		{"VAL-22", "update", &reqSpec{1, 0, 1, 5, 3, "0"}, total, false, &check{prefix: "No resources have been specified to reserve"}},
		{"VAL-23", "update", &reqSpec{1, 1, 1, 3, 4, "0"}, total, false, &check{contains: "must  be greater or equal to the minimum resource duration"}},
		{"VAL-24", "update", &reqSpec{1, 1, 1, 5, 4, "0"}, small, false, &check{prefix: "The size of the largest gang in the reservation definition", contains: "exceed the capacity available "}},
		{"VAL-25", "update", &reqSpec{1, 1, 1, 5, 3, "600000"}, total, false, nil},
		{"VAL-27b", "update", &reqSpec{1, 1, 1, 50, 3, "10"}, total, false, &check{prefix: "Duration of the requested reservation:"}},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			s, id := newSys(t, tt.cap)
			var def *Definition
			if !tt.noDef {
				def = mkDef(*tt.spec)
			}
			var err error
			if tt.op == "submit" {
				_, err = s.ValidateSubmission(SubmissionRequest{Queue: "test-reservation", ID: id, Definition: def})
			} else {
				_, err = s.ValidateUpdate(UpdateRequest{ID: id, Definition: def})
			}
			if tt.want == nil {
				assert.NoError(t, err)
				return
			}
			requireReason(t, err, *tt.want)
		})
	}
	// Recurrence parse errors (VAL-11, 13, 26, 27a): at the edge.
	for _, tt := range []struct{ id, expr, prefix string }{
		{"VAL-11", "-1234", "Negative Period : "}, {"VAL-13", "123abc", "Invalid period "},
		{"VAL-26", "-1234", "Negative Period : "}, {"VAL-27a", "123abc", "Invalid period "},
	} {
		t.Run(tt.id+" parse", func(t *testing.T) {
			_, err := ParseRecurrence(tt.expr)
			requireReason(t, err, check{prefix: tt.prefix})
			var d Definition
			err = d.UnmarshalJSON([]byte(`{"arrival":1,"deadline":5,"recurrence-expression":"` + tt.expr + `"}`))
			requireReason(t, err, check{prefix: tt.prefix})
		})
	}
	t.Run("VAL-11 negative period in a Go definition", func(t *testing.T) {
		d := mkDef(reqSpec{1, 1, 1, 5, 3, "0"})
		d.Period = -1234
		requireReason(t, ValidateDefinition(d, Limits{Now: 1, Capacity: total, MaxPeriodicity: DefaultMaxPeriodicity}), check{prefix: "Negative Period : "})
	})
	t.Run("VAL-02 no queue", func(t *testing.T) {
		s, id := newSys(t, total)
		_, err := s.ValidateSubmission(SubmissionRequest{ID: id})
		requireReason(t, err, check{exact: "The queue is not specified. Please try again with a valid reservable queue."})
	})
	t.Run("VAL-03 queue without plan", func(t *testing.T) {
		s, id := newSys(t, total)
		_, err := s.ValidateSubmission(SubmissionRequest{ID: id, Queue: "other", Definition: mkDef(reqSpec{1, 1, 1, 5, 3, "0"})})
		requireReason(t, err, check{suffix: " is not managed by reservation system. Please try again with a valid reservable queue."})
		assert.ErrorIs(t, err, berth.ErrNotFound)
	})
	t.Run("VAL-X1 no id", func(t *testing.T) {
		s, _ := newSys(t, total)
		_, err := s.ValidateSubmission(SubmissionRequest{})
		requireReason(t, err, check{exact: "Reservation id cannot be null. Please try again specifying  a valid reservation id by creating a new reservation id."})
	})
	t.Run("VAL-16/29 missing id", func(t *testing.T) {
		s, _ := newSys(t, total)
		_, err := s.ValidateUpdate(UpdateRequest{})
		requireReason(t, err, check{prefix: "Missing reservation id. Please try again by specifying a reservation id."})
		_, err = s.ValidateDelete(DeleteRequest{})
		requireReason(t, err, check{prefix: "Missing reservation id. Please try again by specifying a reservation id."})
	})
	t.Run("VAL-17/30 unknown id", func(t *testing.T) {
		s, _ := newSys(t, total)
		unknown := ReservationID{ClusterTimestamp: 7, Sequence: 99}
		_, err := s.ValidateUpdate(UpdateRequest{ID: unknown, Definition: mkDef(reqSpec{1, 1, 1, 5, 4, "0"})})
		requireReason(t, err, check{exact: "The specified reservation with ID: reservation_7_0099 is unknown. Please try again with a valid reservation."})
		_, err = s.ValidateDelete(DeleteRequest{ID: unknown})
		requireReason(t, err, check{exact: "The specified reservation with ID: reservation_7_0099 is unknown. Please try again with a valid reservation."})
		assert.ErrorIs(t, err, berth.ErrNotFound)
	})
	t.Run("VAL-18/31 no plan", func(t *testing.T) {
		s, id := newSys(t, total)
		s.queues[id] = "gone"
		_, err := s.ValidateUpdate(UpdateRequest{ID: id, Definition: mkDef(reqSpec{1, 1, 1, 5, 4, "0"})})
		requireReason(t, err, check{suffix: " is not associated with any valid plan. Please try again with a valid reservation."})
		_, err = s.ValidateDelete(DeleteRequest{ID: id})
		requireReason(t, err, check{suffix: " is not associated with any valid plan. Please try again with a valid reservation."})
	})
	t.Run("VAL-28 delete ok", func(t *testing.T) {
		s, id := newSys(t, total)
		_, err := s.ValidateDelete(DeleteRequest{ID: id})
		assert.NoError(t, err)
	})
	t.Run("VAL-32..36 list", func(t *testing.T) {
		s, _ := newSys(t, total)
		cfg := DefaultConfig("dedicated", total, berth.NewManualClock(1))
		p, err := New(cfg)
		require.NoError(t, err)
		require.NoError(t, s.AddPlan(p))
		_, w, err := s.ValidateList(ListRequest{Queue: "dedicated", Start: 0, End: 1000})
		assert.NoError(t, err)
		assert.Equal(t, berth.Interval{Start: 0, End: 1000}, w)
		_, w, err = s.ValidateList(ListRequest{Queue: "dedicated", Start: -1, End: -2})
		assert.NoError(t, err)
		assert.Equal(t, berth.Interval{Start: 0, End: berth.MaxTime}, w)
		_, _, err = s.ValidateList(ListRequest{Queue: "dedicated", Start: 2000, End: 1000})
		requireReason(t, err, check{exact: "The specified end time must be greater than the specified start time."})
		_, _, err = s.ValidateList(ListRequest{Queue: ""})
		requireReason(t, err, check{exact: "The queue is not specified. Please try again with a valid reservable queue."})
		_, _, err = s.ValidateList(ListRequest{Queue: "nope"})
		requireReason(t, err, check{exact: "The specified queue: nope is not managed by reservation system. Please try again with a valid reservable queue."})
	})
}

func requireReason(t *testing.T, err error, want struct{ prefix, contains, suffix, exact string }) {
	t.Helper()
	require.Error(t, err)
	var fe *berth.FieldError
	require.ErrorAs(t, err, &fe)
	assert.NotEmpty(t, fe.Field)
	assert.True(t, errors.Is(err, berth.ErrInvalidArgument) || errors.Is(err, berth.ErrNotFound), "typed kind")
	if want.exact != "" {
		assert.Equal(t, want.exact, fe.Reason)
	}
	if want.prefix != "" {
		assert.True(t, strings.HasPrefix(fe.Reason, want.prefix), "reason %q", fe.Reason)
	}
	if want.contains != "" {
		assert.Contains(t, fe.Reason, want.contains)
	}
	if want.suffix != "" {
		assert.True(t, strings.HasSuffix(fe.Reason, want.suffix), "reason %q", fe.Reason)
	}
}
