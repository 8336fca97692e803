package plan

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/rle"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testResolver gives restored plans the test doubles of testPlanConfig.
var testResolver = ResolverFunc(func(spec PlanSpec) (PlanParts, error) {
	return PlanParts{Agent: testAgent{}, Policy: testNoOverCommit{}}, nil
})

// treapsEqual compares two treaps node by node: keys, priorities,
// augmentations, allocations (by id) and shape.
func treapsEqual(a, b *tnode) error {
	switch {
	case a == nil && b == nil:
		return nil
	case a == nil || b == nil:
		return fmt.Errorf("treap node %v against nil", cmpNonNil(a, b))
	case a.key != b.key || a.prio != b.prio || a.maxEnd != b.maxEnd || a.minStart != b.minStart || a.a.ID != b.a.ID:
		return fmt.Errorf("treap node %v differs from %v", a.key, b.key)
	}
	if err := treapsEqual(a.left, b.left); err != nil {
		return err
	}
	return treapsEqual(a.right, b.right)
}

func cmpNonNil(a, b *tnode) ivKey {
	if a != nil {
		return a.key
	}
	return b.key
}

// areasEqual compares two change trees node by node.
func areasEqual(a, b *inode) error {
	switch {
	case a == nil && b == nil:
		return nil
	case a == nil || b == nil:
		return fmt.Errorf("area node against nil")
	case a.t != b.t || a.dm != b.dm || a.dv != b.dv || a.pm != b.pm || a.pv != b.pv || a.sm != b.sm ||
		a.sv != b.sv || a.tm != b.tm || a.tv != b.tv || a.prio != b.prio:
		return fmt.Errorf("area node at %d differs from %d", a.t, b.t)
	}
	if err := areasEqual(a.left, b.left); err != nil {
		return err
	}
	return areasEqual(a.right, b.right)
}

func ivIndexesEqual(a, b ivIndex) error {
	if err := treapsEqual(a.root, b.root); err != nil {
		return err
	}
	var ka, kb []ivKey
	a.byKey.Ascend(func(e ivEntry) bool { ka = append(ka, e.k); return true })
	b.byKey.Ascend(func(e ivEntry) bool { kb = append(kb, e.k); return true })
	if !slices.Equal(ka, kb) {
		return fmt.Errorf("ordered interval keys differ")
	}
	return nil
}

func periodicEqual(a, b periodicIndex) error {
	if len(a.groups) != len(b.groups) {
		return fmt.Errorf("%d period groups against %d", len(a.groups), len(b.groups))
	}
	for i := range a.groups {
		ga, gb := a.groups[i], b.groups[i]
		if ga.period != gb.period || ga.n != gb.n {
			return fmt.Errorf("period group %d/%d against %d/%d", ga.period, ga.n, gb.period, gb.n)
		}
		if err := treapsEqual(ga.root, gb.root); err != nil {
			return fmt.Errorf("period %d: %w", ga.period, err)
		}
	}
	return nil
}

func patternsEqual(a, b map[berth.Duration]*rle.Series) error {
	if len(a) != len(b) {
		return fmt.Errorf("%d patterns against %d", len(a), len(b))
	}
	for p, s := range a {
		if !s.Equal(b[p]) {
			return fmt.Errorf("pattern of period %d differs", p)
		}
	}
	return nil
}

// statesEqual checks that q's state is p's exactly: every allocation with
// what the plan stamped on it, and every index and aggregate, down to the
// shape of the treaps.
func statesEqual(p, q *Plan) error {
	p.mu.RLock()
	defer p.mu.RUnlock()
	q.mu.RLock()
	defer q.mu.RUnlock()
	a, b := p.st, q.st
	if !a.capacity.Equal(b.capacity) {
		return fmt.Errorf("capacity %v against %v", a.capacity, b.capacity)
	}
	var ea, eb []idEntry
	a.table.Ascend(func(e idEntry) bool { ea = append(ea, e); return true })
	b.table.Ascend(func(e idEntry) bool { eb = append(eb, e); return true })
	if len(ea) != len(eb) {
		return fmt.Errorf("%d reservations against %d", len(ea), len(eb))
	}
	for i := range ea {
		x, y := ea[i].a, eb[i].a
		if !x.Equal(y) || x.hasActive != y.hasActive || (x.hasActive && x.active != y.active) ||
			!slices.EqualFunc(x.steps, y.steps, func(s, t rle.Step) bool { return s.Interval == t.Interval && s.Value.Equal(t.Value) }) {
			return fmt.Errorf("reservation %v differs", x.ID)
		}
	}
	var ba, bb []ReservationID
	a.byEnd.Ascend(func(x *Allocation) bool { ba = append(ba, x.ID); return true })
	b.byEnd.Ascend(func(x *Allocation) bool { bb = append(bb, x.ID); return true })
	if !slices.Equal(ba, bb) {
		return fmt.Errorf("end order differs")
	}
	if err := ivIndexesEqual(a.byInterval, b.byInterval); err != nil {
		return err
	}
	if err := periodicEqual(a.periodic, b.periodic); err != nil {
		return err
	}
	if !a.total.Equal(b.total) {
		return fmt.Errorf("total load differs")
	}
	if err := patternsEqual(a.patterns, b.patterns); err != nil {
		return err
	}
	if len(a.users) != len(b.users) {
		return fmt.Errorf("%d users against %d", len(a.users), len(b.users))
	}
	for u, x := range a.users {
		y := b.users[u]
		if y == nil || x.n != y.n {
			return fmt.Errorf("user %s missing or count differs", u)
		}
		errs := []error{ivIndexesEqual(x.byInterval, y.byInterval), periodicEqual(x.periodic, y.periodic),
			patternsEqual(x.patterns, y.patterns), areasEqual(x.area.root, y.area.root)}
		if !x.total.Equal(y.total) || !x.count.Equal(y.count) || x.area.ext != y.area.ext {
			errs = append(errs, fmt.Errorf("load, active count or extended-type count differs"))
		}
		if err := errors.Join(errs...); err != nil {
			return fmt.Errorf("user %s: %w", u, err)
		}
	}
	return nil
}

// randomPlan fills a test plan with random reservations (periodic ones
// included), updates, deletions, a capacity change that leaves active
// spans computed against an older capacity, and an archival.
func randomPlan(t *testing.T, seed uint64) *Plan {
	rng := rand.New(rand.NewPCG(seed, 7))
	clock := berth.NewManualClock(0)
	p := newTestPlan(t, func(c *Config) {
		c.Clock, c.MaxPeriodicity, c.Policy = clock, 200, acceptAll{window: 50}
		c.Calculator = berth.DominantCalculator{}
	})
	for i := int64(1); i <= 120; i++ {
		clock.Set(berth.Time(i))
		a := randomAlloc(t, rng, rid(i))
		if rng.IntN(10) == 0 {
			a.Gang = true
		}
		switch rng.IntN(6) {
		case 0:
			if old := rng.Int64N(i) + 1; old != i {
				a.ID = rid(old)
				_ = p.UpdateReservation(a)
				continue
			}
		case 1:
			_ = p.DeleteReservation(rid(rng.Int64N(i) + 1))
			continue
		case 2:
			require.NoError(t, p.SetCapacity(berth.New(int64(1024*(20+rng.IntN(100))), int64(1+rng.IntN(200)))))
		}
		require.NoError(t, p.AddReservation(a))
	}
	_, err := p.ArchiveCompleted(200)
	require.NoError(t, err)
	return p
}

func TestPlanStateRoundTrip(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		p := randomPlan(t, seed)
		require.NotZero(t, p.Len())
		var buf bytes.Buffer
		require.NoError(t, p.SaveState(&buf))
		saved := bytes.Clone(buf.Bytes())
		q, err := RestorePlan(&buf, RestoreEnv{Clock: p.Clock(), Resolver: ResolverFunc(func(PlanSpec) (PlanParts, error) {
			return PlanParts{Agent: testAgent{}, Policy: acceptAll{window: 50}}, nil
		})})
		require.NoError(t, err)
		require.NoError(t, checkState(q))
		assert.NoError(t, statesEqual(p, q), "seed %d", seed)
		assert.Equal(t, p.Config().Capacity, q.Config().Capacity)
		assert.IsType(t, berth.DominantCalculator{}, q.Calculator())
		var again bytes.Buffer
		require.NoError(t, q.SaveState(&again))
		assert.Equal(t, saved, again.Bytes(), "a restored plan saves byte-identically")
	}
}

// testSystem is a system of two plans with reservations submitted through
// the test agent, one deleted, and an id issued but not used.
func testSystem(t testing.TB) *System {
	clock := berth.NewManualClock(1)
	s, err := NewSystem(SystemConfig{ClusterTimestamp: 1404198295326, Clock: clock})
	require.NoError(t, err)
	for _, q := range []string{"b", "a"} {
		cfg := testPlanConfig()
		cfg.Queue, cfg.Clock = q, clock
		p, err := New(cfg)
		require.NoError(t, err)
		require.NoError(t, s.AddPlan(p))
	}
	for i := 0; i < 12; i++ {
		id := s.NewReservationID()
		def := simpleDef(berth.Time(10+i), berth.Time(100+i), berth.Duration(5+i), 0)
		def.Name = fmt.Sprint("r", i)
		require.NoError(t, s.Submit(SubmissionRequest{Queue: []string{"a", "b"}[i%2], ID: id, Definition: &def, User: fmt.Sprint("u", i%3)}))
	}
	require.NoError(t, s.Delete(DeleteRequest{ID: ReservationID{ClusterTimestamp: 1404198295326, Sequence: 3}}))
	s.NewReservationID()
	return s
}

func saveSystem(t testing.TB, s *System) []byte {
	var buf bytes.Buffer
	require.NoError(t, s.SaveState(&buf))
	return buf.Bytes()
}

func TestSystemStateRoundTrip(t *testing.T) {
	s := testSystem(t)
	saved := saveSystem(t, s)
	r, err := RestoreSystem(bytes.NewReader(saved), RestoreEnv{Clock: berth.NewManualClock(1), Resolver: testResolver})
	require.NoError(t, err)
	assert.Equal(t, saved, saveSystem(t, r))
	require.Len(t, r.Plans(), 2)
	for _, p := range s.Plans() {
		q, ok := r.Plan(p.QueueName())
		require.True(t, ok)
		assert.NoError(t, statesEqual(p, q))
	}
	// The counter continues and the queue map answers as before.
	assert.Equal(t, s.NewReservationID(), r.NewReservationID())
	for seq := int64(1); seq <= 14; seq++ {
		id := ReservationID{ClusterTimestamp: 1404198295326, Sequence: seq}
		q1, ok1 := s.QueueOf(id)
		q2, ok2 := r.QueueOf(id)
		assert.Equal(t, ok1, ok2, id)
		assert.Equal(t, q1, q2, id)
	}
}

// A restored system publishes through RestoreEnv.Publish as the saved one
// did through SystemConfig.Publish: a snapshot cannot hold the function,
// and a restored host that lost it would refuse the applications of
// reservations submitted in their tick.
func TestRestoredSystemPublishes(t *testing.T) {
	saved := saveSystem(t, testSystem(t))
	clock := berth.NewManualClock(50)
	var published []string
	r, err := RestoreSystem(bytes.NewReader(saved), RestoreEnv{Clock: clock, Resolver: testResolver,
		Publish: func(p *Plan, now berth.Time) { published = append(published, fmt.Sprint(p.QueueName(), "@", now)) }})
	require.NoError(t, err)
	def := simpleDef(50, 200, 5, 0)
	require.NoError(t, r.Submit(SubmissionRequest{Queue: "a", ID: r.NewReservationID(), Definition: &def, User: "u0"}))
	assert.Equal(t, []string{"a@50"}, published, "arriving now: published at once")
	def = simpleDef(5000, 9000, 5, 0)
	require.NoError(t, r.Submit(SubmissionRequest{Queue: "b", ID: r.NewReservationID(), Definition: &def, User: "u0"}))
	assert.Len(t, published, 1, "arriving later than a step: left to the follower's run")
}

func TestRestoreRefusesCorruption(t *testing.T) {
	saved := saveSystem(t, testSystem(t))
	env := RestoreEnv{Clock: berth.NewManualClock(1), Resolver: testResolver}
	// Every truncation.
	for n := 0; n < len(saved); n++ {
		s, err := RestoreSystem(bytes.NewReader(saved[:n]), env)
		require.Error(t, err, "truncated at %d", n)
		assert.ErrorIs(t, err, berth.ErrCorruptState, "truncated at %d", n)
		assert.Nil(t, s)
	}
	// Every single bit flip (under the race detector, one bit of every
	// byte, the bit turning from byte to byte).
	bits := 8
	if testing.Short() || raceEnabled {
		bits = 1
	}
	for i := range saved {
		for k := 0; k < bits; k++ {
			bit := (i + k) % 8
			b := bytes.Clone(saved)
			b[i] ^= 1 << bit
			s, err := RestoreSystem(bytes.NewReader(b), env)
			require.Error(t, err, "bit %d of byte %d", bit, i)
			assert.Nil(t, s)
			if !errors.Is(err, berth.ErrCorruptState) && !errors.Is(err, berth.ErrUnsupportedVersion) {
				// A flip in the kind string names another kind.
				assert.ErrorIs(t, err, berth.ErrInvalidArgument, "bit %d of byte %d", bit, i)
			}
		}
	}
}

func TestRestoreRefusesWrongKindAndVersion(t *testing.T) {
	env := RestoreEnv{Clock: berth.NewManualClock(1), Resolver: testResolver}
	var buf bytes.Buffer
	require.NoError(t, newTestPlan(t).SaveState(&buf))
	_, err := RestoreSystem(bytes.NewReader(buf.Bytes()), env)
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)
	var se *berth.StateError
	require.ErrorAs(t, err, &se)

	buf.Reset()
	newer := berth.NewStateEncoder(&buf, SystemStateKind, stateVersion+1)
	require.NoError(t, newer.Finish())
	_, err = RestoreSystem(bytes.NewReader(buf.Bytes()), env)
	assert.ErrorIs(t, err, berth.ErrUnsupportedVersion)
}

var errUnknownQueue = errors.New("unknown queue")

func TestRestoreEnvironment(t *testing.T) {
	saved := saveSystem(t, testSystem(t))
	clock := berth.NewManualClock(1)
	cases := []struct {
		name string
		env  RestoreEnv
		want string
	}{
		{"no clock", RestoreEnv{Resolver: testResolver}, "clock"},
		{"no resolver", RestoreEnv{Clock: clock}, "agent"},
		{"no policy", RestoreEnv{Clock: clock, Resolver: ResolverFunc(func(PlanSpec) (PlanParts, error) {
			return PlanParts{Agent: testAgent{}}, nil
		})}, "policy"},
		{"resolver fails", RestoreEnv{Clock: clock, Resolver: ResolverFunc(func(PlanSpec) (PlanParts, error) {
			return PlanParts{}, errUnknownQueue
		})}, "unknown queue"},
		{"other calculator", RestoreEnv{Clock: clock, Resolver: ResolverFunc(func(PlanSpec) (PlanParts, error) {
			return PlanParts{Agent: testAgent{}, Policy: testNoOverCommit{}, Calculator: berth.DominantCalculator{}}, nil
		})}, "calculator"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, err := RestoreSystem(bytes.NewReader(saved), tc.env)
			require.Error(t, err)
			assert.Nil(t, s)
			assert.ErrorIs(t, err, berth.ErrInvalidArgument)
			assert.ErrorContains(t, err, tc.want)
			if tc.name == "resolver fails" {
				assert.ErrorIs(t, err, errUnknownQueue, "the resolver's error is wrapped")
			}
		})
	}
	// The resolver sees what was saved.
	var specs []PlanSpec
	_, err := RestoreSystem(bytes.NewReader(saved), RestoreEnv{Clock: clock, Resolver: ResolverFunc(func(s PlanSpec) (PlanParts, error) {
		specs = append(specs, s)
		return PlanParts{Agent: testAgent{}, Policy: testNoOverCommit{}}, nil
	})})
	require.NoError(t, err)
	require.Len(t, specs, 2)
	assert.Equal(t, PlanSpec{Queue: "a", Calculator: "memory", Agent: ComponentSpec{Name: "plan.testAgent"},
		Policy: ComponentSpec{Name: "plan.testNoOverCommit"}}, specs[0])
}

// specified is a component recording itself with a parameter.
type specified struct {
	acceptAll
	param byte
}

func (s specified) StateSpec() ComponentSpec {
	return ComponentSpec{Name: "specified", Params: []byte{s.param}}
}

func TestRestoreChecksSpecifiedComponents(t *testing.T) {
	p := newTestPlan(t, func(c *Config) { c.Policy = specified{param: 3} })
	var buf bytes.Buffer
	require.NoError(t, p.SaveState(&buf))
	for _, param := range []byte{3, 4} {
		q, err := RestorePlan(bytes.NewReader(buf.Bytes()), RestoreEnv{Clock: p.Clock(), Resolver: ResolverFunc(func(s PlanSpec) (PlanParts, error) {
			assert.Equal(t, ComponentSpec{Name: "specified", Params: []byte{3}}, s.Policy)
			return PlanParts{Agent: testAgent{}, Policy: specified{param: param}}, nil
		})})
		if param == 3 {
			require.NoError(t, err)
			assert.Equal(t, specified{param: 3}, q.Policy())
			continue
		}
		assert.ErrorIs(t, err, berth.ErrInvalidArgument)
		assert.ErrorContains(t, err, "configured differently")
	}
}

// maxFuzzState caps the snapshots the fuzz targets decode: the seeds are
// under it, a few kilobytes reach every field, and each input is decoded,
// checked and saved twice, so larger ones only make runs (and the
// minimisation of what they find) slower.
const maxFuzzState = 4 << 10

// FuzzRestoreSystem feeds arbitrary bytes to RestoreSystem: no input
// panics, and whatever restores saves and restores again to the same
// bytes, its plans' indexes intact.
func FuzzRestoreSystem(f *testing.F) {
	f.Add(saveSystem(f, testSystem(f)))
	var buf bytes.Buffer
	s, _ := NewSystem(SystemConfig{Clock: berth.NewManualClock(0)})
	_ = s.SaveState(&buf)
	f.Add(buf.Bytes())
	f.Add([]byte("BERTHSS\x00\x01\x0bplan.System\x01"))
	env := RestoreEnv{Clock: berth.NewManualClock(1), Resolver: testResolver}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > maxFuzzState {
			return
		}
		s, err := RestoreSystem(bytes.NewReader(data), env)
		if err != nil {
			if s != nil {
				t.Fatal("a system returned with an error")
			}
			var se *berth.StateError
			if !errors.As(err, &se) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		checkRestoredSystem(t, s, env)
	})
}

// checkRestoredSystem checks a system a fuzzed snapshot restored: its
// plans pass the invariant checks, and it saves and restores again to the
// same bytes and the same plans.
func checkRestoredSystem(t *testing.T, s *System, env RestoreEnv) {
	for _, p := range s.Plans() {
		if err := checkState(p); err != nil {
			t.Fatal(err)
		}
	}
	once := saveSystem(t, s)
	r, err := RestoreSystem(bytes.NewReader(once), env)
	if err != nil {
		t.Fatalf("a restored system's snapshot does not restore: %v", err)
	}
	if !bytes.Equal(once, saveSystem(t, r)) {
		t.Fatal("restoring twice is not stable")
	}
	for _, p := range s.Plans() {
		q, _ := r.Plan(p.QueueName())
		if err := statesEqual(p, q); err != nil {
			t.Fatalf("plan %s restored twice: %v", p.QueueName(), err)
		}
	}
}

// seal frames body as a snapshot of kind with a valid trailer (the layout
// documented in package berth), so that the fuzz target below reaches the
// body decoding rather than stopping at the checksum.
func seal(kind string, body []byte) []byte {
	b := []byte("BERTHSS\x00")
	b = binary.AppendUvarint(b, berth.StateFormatVersion)
	b = binary.AppendUvarint(b, uint64(len(kind)))
	b = append(b, kind...)
	b = binary.AppendUvarint(b, stateVersion)
	b = append(b, body...)
	n := len(b)
	b = append(b, "BEND"...)
	b = binary.LittleEndian.AppendUint64(b, uint64(n))
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli)))
}

// unseal is the body of a snapshot of kind.
func unseal(kind string, snap []byte) []byte {
	head := len(seal(kind, nil)) - 16
	return snap[head : len(snap)-16]
}

func TestSealMatchesTheEncoder(t *testing.T) {
	snap := saveSystem(t, testSystem(t))
	assert.Equal(t, snap, seal(SystemStateKind, unseal(SystemStateKind, snap)))
}

// FuzzRestoreSystemBody feeds arbitrary bodies, validly framed, to
// RestoreSystem: corrupt contents are refused with a typed error naming a
// field, never a panic, and whatever restores passes the plans' invariant
// checks and saves and restores again to the same bytes.
func FuzzRestoreSystemBody(f *testing.F) {
	f.Add(unseal(SystemStateKind, saveSystem(f, testSystem(f))))
	p := randomPlan(&testing.T{}, 3)
	s, _ := NewSystem(SystemConfig{Clock: berth.NewManualClock(0)})
	_ = s.AddPlan(p)
	f.Add(unseal(SystemStateKind, saveSystem(f, s)))
	f.Add([]byte{})
	env := RestoreEnv{Clock: berth.NewManualClock(1), Resolver: ResolverFunc(func(PlanSpec) (PlanParts, error) {
		return PlanParts{Agent: testAgent{}, Policy: acceptAll{window: 50}}, nil
	})}
	f.Fuzz(func(t *testing.T, body []byte) {
		if len(body) > maxFuzzState {
			return
		}
		s, err := RestoreSystem(bytes.NewReader(seal(SystemStateKind, body)), env)
		if err != nil {
			var se *berth.StateError
			if s != nil || !errors.As(err, &se) {
				t.Fatalf("system %v with error %v", s, err)
			}
			return
		}
		checkRestoredSystem(t, s, env)
	})
}

// TestSaveStateConcurrent saves a system while other goroutines submit,
// delete and archive (run it with -race): every snapshot restores, and
// its plans pass their invariant checks.
func TestSaveStateConcurrent(t *testing.T) {
	s := testSystem(t)
	clock := berth.NewManualClock(1)
	var wg sync.WaitGroup
	for g := 0; g < 3; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 150; i++ {
				id := s.NewReservationID()
				def := simpleDef(berth.Time(200+i), berth.Time(300+i), berth.Duration(1+i%20), 0)
				_ = s.Submit(SubmissionRequest{Queue: []string{"a", "b"}[(g+i)%2], ID: id, Definition: &def, User: fmt.Sprint("u", g)})
				if i%3 == 0 {
					_ = s.Delete(DeleteRequest{ID: id})
				}
				if g == 0 && i%25 == 0 {
					_, _ = s.ArchiveCompleted(berth.Time(100 + i))
				}
			}
		}(g)
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	env := RestoreEnv{Clock: clock, Resolver: testResolver}
	for n := 0; ; n++ {
		var buf bytes.Buffer
		require.NoError(t, s.SaveState(&buf))
		r, err := RestoreSystem(&buf, env)
		require.NoError(t, err)
		for _, p := range r.Plans() {
			require.NoError(t, checkState(p))
		}
		select {
		case <-done:
			require.Positive(t, n)
			return
		default:
		}
	}
}

// TestRestoreRefusesInconsistentState saves systems whose contents the
// plan would never hold (tampered in memory) under a valid checksum: the
// restore refuses each with berth.ErrCorruptState naming the problem.
func TestRestoreRefusesInconsistentState(t *testing.T) {
	first := func(s *System) *Allocation {
		p, _ := s.Plan("a")
		return p.All()[0]
	}
	cases := []struct {
		name   string
		tamper func(s *System)
		want   string
	}{
		{"queue without a plan", func(s *System) { s.queues[rid(99)] = "nowhere" }, "has no plan"},
		{"no user", func(s *System) { first(s).User = "" }, "has no user"},
		{"inverted window", func(s *System) { a := first(s); a.Start, a.End = a.End+1, a.Start }, "before its start"},
		{"empty active span", func(s *System) { a := first(s); a.active = berth.Interval{Start: 5, End: 5} }, "empty active span"},
		{"interval outside the window", func(s *System) {
			a := first(s)
			a.Intervals = []IntervalResource{{Interval: berth.Interval{Start: a.End, End: a.End + 10}, Resource: c(1)}}
		}, "must lie inside"},
		{"period not dividing the max periodicity", func(s *System) {
			a := first(s)
			a.Definition.Period = 7
			a.Intervals = []IntervalResource{{Interval: berth.Interval{Start: 0, End: 3}, Resource: c(1)}}
		}, "exact divider"},
		{"negative step", func(s *System) { p, _ := s.Plan("b"); p.cfg.Step = -1 }, "step"},
	}
	env := RestoreEnv{Clock: berth.NewManualClock(1), Resolver: testResolver}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := testSystem(t)
			tc.tamper(s)
			r, err := RestoreSystem(bytes.NewReader(saveSystem(t, s)), env)
			require.Error(t, err)
			assert.Nil(t, r)
			assert.ErrorIs(t, err, berth.ErrCorruptState)
			assert.ErrorContains(t, err, tc.want)
			var se *berth.StateError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, SystemStateKind, se.Kind)
			assert.NotEmpty(t, se.Field)
		})
	}
}
