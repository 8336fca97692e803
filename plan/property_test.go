package plan

import (
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/berthsched/berth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// model is the reference: the accepted allocations, summed densely.
type model struct {
	allocs map[ReservationID]*Allocation
}

// contribution of a at t, as the plan books it: every time for a periodic
// allocation (by phase), its intervals for a non-periodic one.
func contribution(a *Allocation, t berth.Time) berth.Resource {
	var r berth.Resource
	for _, e := range a.Intervals {
		if p := a.Period(); p > 0 {
			for _, iv := range phase(e.Interval, p) {
				if iv.Contains(floorMod(t, p)) {
					r = r.Add(e.Resource)
				}
			}
			continue
		}
		if e.Interval.Contains(t) {
			r = r.Add(e.Resource)
		}
	}
	return r
}

func (m *model) sum(t berth.Time, keep func(*Allocation) bool) berth.Resource {
	var r berth.Resource
	for _, a := range m.allocs {
		if keep(a) {
			r = r.Add(contribution(a, t))
		}
	}
	return r
}

func (m *model) sorted(keep func(*Allocation) bool) []ReservationID {
	var ids []ReservationID
	for _, a := range m.allocs {
		if keep(a) {
			ids = append(ids, a.ID)
		}
	}
	slices.SortFunc(ids, ReservationID.Compare)
	return ids
}

func ids(as []*Allocation) []ReservationID {
	var out []ReservationID
	for _, a := range as {
		out = append(out, a.ID)
	}
	slices.SortFunc(out, ReservationID.Compare)
	return out
}

const horizon = 600

var users = []string{"u1", "u2", "u3"}

func randomAlloc(t *testing.T, rng *rand.Rand, id ReservationID) *Allocation {
	periods := []berth.Duration{0, 0, 0, 100, 200}
	per := periods[rng.IntN(len(periods))]
	start := berth.Time(rng.IntN(horizon - 100))
	end := start + 1 + berth.Time(rng.IntN(100))
	var ivs []IntervalResource
	for k := rng.IntN(4); k >= 0; k-- {
		s := start + berth.Time(rng.IntN(int(end-start)))
		e := s + 1 + berth.Time(rng.IntN(int(end-s)))
		if per > 0 && e-s > per {
			e = s + per
		}
		ivs = append(ivs, IntervalResource{Interval: berth.Interval{Start: s, End: e}, Resource: c(int64(rng.IntN(30)))})
	}
	def := simpleDef(start, end, 1, per)
	a, err := NewAllocation(id, users[rng.IntN(len(users))], def, berth.Interval{Start: start, End: end}, ivs)
	require.NoError(t, err)
	return a
}

// TestPropertyPlanAgainstModel runs random adds, updates, deletes and
// archivals and checks, after each, the aggregates and queries against a
// dense reference, and that rejected changes leave the plan identical.
func TestPropertyPlanAgainstModel(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		rng := rand.New(rand.NewPCG(seed, 99))
		clock := berth.NewManualClock(0)
		p := newTestPlan(t, func(c *Config) {
			c.Clock = clock
			c.MaxPeriodicity = 1000
			c.Capacity = berth.New(1024*60, 60)
			c.Policy = testNoOverCommit{window: 50}
		})
		m := &model{allocs: map[ReservationID]*Allocation{}}
		next := int64(1)
		steps := 45
		if testing.Short() || raceEnabled {
			steps = 20
		}
		type frozen struct {
			p *Plan
			m *model
		}
		var snaps []frozen
		for step := 0; step < steps; step++ {
			// No snapshot before each step: changes then run on nodes the
			// plan owns, in place, and rejected ones are undone there.
			beforeAll := p.All()
			var beforeLoad []berth.Resource
			for tt := berth.Time(0); tt < horizon; tt += 7 {
				beforeLoad = append(beforeLoad, p.TotalCommitted(tt))
			}
			if step%9 == 4 {
				snaps = append(snaps, frozen{p: p.Snapshot(), m: &model{allocs: maps.Clone(m.allocs)}})
			}
			var err error
			var changed bool
			switch op := rng.IntN(10); {
			case op < 5: // add
				a := randomAlloc(t, rng, rid(next))
				next++
				if err = p.AddReservation(a); err == nil {
					stored, _ := p.Reservation(a.ID)
					m.allocs[a.ID] = stored
					changed = true
				} else {
					assert.ErrorIs(t, err, berth.ErrCapacityExceeded)
				}
			case op < 7 && len(m.allocs) > 0: // update
				id := m.sorted(func(*Allocation) bool { return true })[rng.IntN(len(m.allocs))]
				a := randomAlloc(t, rng, id)
				if err = p.UpdateReservation(a); err == nil {
					stored, _ := p.Reservation(a.ID)
					m.allocs[a.ID] = stored
					changed = true
				} else {
					assert.ErrorIs(t, err, berth.ErrCapacityExceeded)
				}
			case op < 8 && len(m.allocs) > 0: // delete
				id := m.sorted(func(*Allocation) bool { return true })[rng.IntN(len(m.allocs))]
				require.NoError(t, p.DeleteReservation(id))
				delete(m.allocs, id)
				changed = true
			case op < 9: // archive
				clock.Advance(berth.Duration(rng.IntN(40)))
				done, err := p.ArchiveCompleted(clock.Now())
				require.NoError(t, err)
				want := m.sorted(func(a *Allocation) bool { return a.End <= clock.Now()-50 })
				got := slices.Clone(done)
				slices.SortFunc(got, ReservationID.Compare)
				assert.Equal(t, want, got, "archived")
				for _, id := range done {
					delete(m.allocs, id)
				}
				changed = len(done) > 0
			default: // duplicate add: always rejected
				if len(m.allocs) > 0 {
					id := m.sorted(func(*Allocation) bool { return true })[0]
					err = p.AddReservation(randomAlloc(t, rng, id))
					assert.ErrorIs(t, err, berth.ErrAlreadyExists)
				}
			}
			if err != nil || !changed {
				assert.Equal(t, beforeAll, p.All(), "seed %d step %d: a rejected change altered the plan", seed, step)
				for i, tt := 0, berth.Time(0); tt < horizon; i, tt = i+1, tt+7 {
					require.True(t, beforeLoad[i].Equal(p.TotalCommitted(tt)))
				}
			}
			require.NoError(t, checkState(p))
			checkAgainstModel(t, p, m)
		}
		// Snapshots kept their contents while the plan changed on.
		for _, s := range snaps {
			require.NoError(t, checkState(s.p))
			checkAgainstModel(t, s.p, s.m)
		}
	}
}

func checkAgainstModel(t *testing.T, p *Plan, m *model) {
	t.Helper()
	all := func(*Allocation) bool { return true }
	require.Equal(t, len(m.allocs), p.Len())
	assert.Equal(t, m.sorted(all), ids(p.All()))
	load, err := p.CumulativeLoad(berth.Interval{Start: 0, End: horizon})
	require.NoError(t, err)
	var first, last berth.Time = -1, -1
	for tt := berth.Time(0); tt < horizon; tt++ {
		want := m.sum(tt, all)
		require.True(t, want.Equal(p.TotalCommitted(tt)), "committed at %d: want %v got %v", tt, want, p.TotalCommitted(tt))
		require.True(t, want.Equal(load.At(tt)), "load at %d", tt)
		np := m.sum(tt, func(a *Allocation) bool { return !a.IsPeriodic() })
		if !np.IsZero() {
			if first < 0 {
				first = tt
			}
			last = tt + 1
		}
	}
	for _, w := range []berth.Interval{{Start: 0, End: horizon}, {Start: 37, End: 121}, {Start: 250, End: 251}, {Start: -30, End: 20}} {
		require.NoError(t, checkPeak(p, m, w))
		for _, u := range append([]string{""}, users...) {
			require.NoError(t, checkIntegral(p, m, w, u))
		}
	}
	es, ok := p.EarliestStart()
	assert.Equal(t, first >= 0, ok)
	if ok {
		assert.Equal(t, first, es)
		le, _ := p.LastEnd()
		assert.Equal(t, last, le)
	}
	for _, u := range users {
		isU := func(a *Allocation) bool { return a.User == u }
		cons, err := p.UserConsumption(u, berth.Interval{Start: 0, End: horizon})
		require.NoError(t, err)
		count := p.ReservationCount(u, berth.Interval{Start: 0, End: horizon})
		for tt := berth.Time(0); tt < horizon; tt += 3 {
			want := m.sum(tt, isU)
			require.True(t, want.Equal(p.UserConsumptionAt(u, tt)), "user %s at %d", u, tt)
			require.True(t, want.Equal(cons.At(tt)), "user series %s at %d", u, tt)
			active := int64(0)
			for _, a := range m.allocs {
				if a.User == u && a.hasActive && a.active.Contains(tt) {
					active++
				}
			}
			require.Equal(t, active, count.At(tt).Memory, "count %s at %d", u, tt)
		}
		for tt := berth.Time(0); tt < horizon; tt += 37 {
			got := ids(p.UserReservationsAt(u, tt))
			want := m.sorted(func(a *Allocation) bool { return isU(a) && bruteOverlap(a, tt, tt) })
			assert.Equal(t, want, got, "user %s at %d", u, tt)
		}
	}
	for s := berth.Time(0); s < horizon; s += 41 {
		for _, e := range []berth.Time{s, s + 13, s + 250} {
			got := ids(p.Reservations(Filter{Window: &berth.Interval{Start: s, End: e}}))
			want := m.sorted(func(a *Allocation) bool { return bruteOverlap(a, s, e) })
			assert.Equal(t, want, got, "window [%d, %d]", s, e)
		}
	}
	// Availability = capacity - load wherever the plan fits (NoOverCommit
	// keeps it so).
	av, err := p.AvailableResources("u1", ReservationID{}, berth.Interval{Start: 0, End: horizon}, 0)
	require.NoError(t, err)
	for tt := berth.Time(0); tt < horizon; tt += 5 {
		require.True(t, p.Capacity().Sub(m.sum(tt, all)).Equal(av.At(tt)), "available at %d", tt)
	}
	_, defined := av.Lookup(horizon)
	assert.False(t, defined, "undefined at the window end")
	// With a reservation added back (an update planning on it): what it
	// holds is free again (a periodic one at every occurrence, as booked).
	for _, id := range m.sorted(all) {
		old := m.allocs[id]
		w := berth.Interval{Start: 20, End: horizon - 20}
		av, err := p.AvailableResources("u1", id, w, 0)
		require.NoError(t, err)
		for tt := w.Start; tt < w.End; tt += 3 {
			want := p.Capacity().Sub(m.sum(tt, all)).Add(contribution(old, tt))
			require.True(t, want.Equal(av.At(tt)), "available at %d without %v: want %v got %v", tt, id, want, av.At(tt))
		}
		break
	}
}

// bruteOverlap: the YARN selection by scanning: non-periodic start ≤ e and
// end > s; periodic per YARN's phase test.
func bruteOverlap(a *Allocation, s, e berth.Time) bool {
	if a.Start > e {
		return false
	}
	if a.IsPeriodic() {
		return periodicOverlaps(a, s, e)
	}
	return a.End > s
}

// TestPropertyUpdateRollback: a rejected update keeps the old reservation
// exactly, acceptance time included.
func TestPropertyUpdateRollback(t *testing.T) {
	clock := berth.NewManualClock(10)
	p := newTestPlan(t, func(c *Config) { c.Clock = clock })
	require.NoError(t, p.AddReservation(resAlloc(t, rid(1), "u", 100, repeat(50, 6), false, 0)))
	require.NoError(t, p.AddReservation(resAlloc(t, rid(2), "u", 200, repeat(50, 6), false, 0)))
	old, _ := p.Reservation(rid(1))
	before := p.Snapshot()
	clock.Set(20)
	// Moving r1 onto r2's time over-commits: rejected.
	err := p.UpdateReservation(resAlloc(t, rid(1), "u", 200, repeat(60, 6), false, 0))
	require.ErrorIs(t, err, berth.ErrCapacityExceeded)
	now, _ := p.Reservation(rid(1))
	assert.Same(t, old, now)
	assert.Equal(t, berth.Time(10), now.AcceptedAt)
	assert.True(t, before.Equal(p))
	assertCommitted(t, p, 100, repeat(50, 6))
	// An update that fits is stamped anew.
	require.NoError(t, p.UpdateReservation(resAlloc(t, rid(1), "u", 300, repeat(60, 6), false, 0)))
	now, _ = p.Reservation(rid(1))
	assert.Equal(t, berth.Time(20), now.AcceptedAt)
	// An identical update of a large reservation is accepted (YARN's
	// double counting would reject it, §18 item 1).
	require.NoError(t, p.UpdateReservation(resAlloc(t, rid(1), "u", 300, repeat(60, 6), false, 0)))
}

// TestSnapshotIsolation: changes to a snapshot do not reach the plan and
// vice versa.
func TestSnapshotIsolation(t *testing.T) {
	p := newTestPlan(t)
	require.NoError(t, p.AddReservation(resAlloc(t, rid(1), "u", 100, repeat(10, 6), false, 0)))
	s := p.Snapshot()
	require.NoError(t, s.AddReservation(resAlloc(t, rid(2), "u", 100, repeat(20, 6), false, 0)))
	require.NoError(t, p.DeleteReservation(rid(1)))
	assertCommitted(t, s, 100, repeat(30, 6))
	assertCommitted(t, p, 100, repeat(0, 6))
	assert.Equal(t, 2, s.Len())
	assert.Equal(t, 0, p.Len())
	require.NoError(t, s.SetCapacity(berth.New(1, 1)))
	assert.True(t, berth.New(102400, 100).Equal(p.Capacity()))
	// Over-committed after the capacity loss: availability fails as YARN.
	_, err := s.AvailableResources("u", ReservationID{}, berth.Interval{Start: 100, End: 106}, 0)
	assert.ErrorIs(t, err, berth.ErrCapacityExceeded)
}

// ExactPeriodicMin: YARN picks a whole instance by memory (§18 item 8);
// the option takes the componentwise minimum.
func TestExactPeriodicMin(t *testing.T) {
	for _, exact := range []bool{false, true} {
		p := newTestPlan(t, func(c *Config) {
			c.MaxPeriodicity = 100
			c.Capacity = berth.New(100*1024, 100)
			c.Policy = acceptAll{}
			c.ExactPeriodicMin = exact
		})
		// Instance 0 at [10,20): 10 GB with 1 vcore; instance 1 at [60,70): 5 GB with 50 vcores.
		a, err := NewAllocation(rid(1), "u", simpleDef(10, 20, 10, 0), berth.Interval{Start: 10, End: 20},
			[]IntervalResource{{Interval: berth.Interval{Start: 10, End: 20}, Resource: berth.New(10*1024, 1)}})
		require.NoError(t, err)
		require.NoError(t, p.AddReservation(a))
		b, err := NewAllocation(rid(2), "u", simpleDef(60, 70, 10, 0), berth.Interval{Start: 60, End: 70},
			[]IntervalResource{{Interval: berth.Interval{Start: 60, End: 70}, Resource: berth.New(5*1024, 50)}})
		require.NoError(t, err)
		require.NoError(t, p.AddReservation(b))
		av, err := p.AvailableResources("u", ReservationID{}, berth.Interval{Start: 10, End: 20}, 50)
		require.NoError(t, err)
		if exact {
			assert.True(t, berth.New(90*1024, 50).Equal(av.At(15)), "%v", av.At(15))
		} else {
			assert.True(t, berth.New(90*1024, 99).Equal(av.At(15)), "%v", av.At(15))
		}
		_, defined := av.Lookup(20)
		assert.False(t, defined)
	}
}

// LoadSteps agrees with CumulativeLoad / UserConsumption and covers the
// window exactly.
func TestLoadSteps(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	p := newTestPlan(t, func(cfg *Config) { cfg.MaxPeriodicity = 1000; cfg.Policy = acceptAll{} })
	for i := int64(1); i <= 40; i++ {
		require.NoError(t, p.AddReservation(randomAlloc(t, rng, rid(i))))
	}
	for _, u := range []string{"", "u1", "u2", "nobody"} {
		for _, w := range []berth.Interval{{Start: 0, End: horizon}, {Start: 33, End: 34}, {Start: -50, End: 120}, {Start: 250, End: 990}} {
			steps, err := p.LoadSteps(w, u)
			require.NoError(t, err)
			var ref interface {
				At(berth.Time) berth.Resource
			}
			if u == "" {
				ref, err = p.CumulativeLoad(w)
			} else {
				ref, err = p.UserConsumption(u, w)
			}
			require.NoError(t, err)
			require.NotEmpty(t, steps)
			assert.Equal(t, w.Start, steps[0].Interval.Start)
			assert.Equal(t, w.End, steps[len(steps)-1].Interval.End)
			for i, st := range steps {
				if i > 0 {
					assert.Equal(t, steps[i-1].Interval.End, st.Interval.Start)
					assert.False(t, steps[i-1].Value.Equal(st.Value), "merged")
				}
				for tt := st.Interval.Start; tt < st.Interval.End; tt++ {
					require.True(t, st.Value.Equal(ref.At(tt)), "user %q at %d", u, tt)
				}
			}
		}
	}
	steps, err := p.LoadSteps(berth.Interval{Start: 5, End: 5}, "")
	assert.NoError(t, err)
	assert.Empty(t, steps)
}
