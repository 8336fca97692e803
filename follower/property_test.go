package follower

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/policy"
)

// chooser feeds a scenario its decisions: a seeded PRNG for the property
// test, fuzz bytes for the fuzz target.
type chooser interface {
	intn(n int) int
}

type randChooser struct{ r *rand.Rand }

func (c randChooser) intn(n int) int { return c.r.IntN(n) }

type byteChooser struct {
	b []byte
	i int
}

func (c *byteChooser) intn(n int) int {
	if c.i >= len(c.b) {
		return 0
	}
	v := int(c.b[c.i])
	c.i++
	return v % n
}

func (c *byteChooser) done() bool { return c.i >= len(c.b) }

// scenario is a plan, the fake scheduler and the follower, driven by a
// chooser and checked against a reference model after every run.
type scenario struct {
	fl      Flavor
	planQ   string
	p       *plan.Plan
	fs      *fakeScheduler
	f       *Follower
	clock   *berth.ManualClock
	now     berth.Time
	nextID  int64
	nextApp int
	apps    map[string]bool // live apps
}

func newScenario(ch chooser) (*scenario, error) {
	sc := &scenario{fl: CapacityFlavor, planQ: "dedicated", apps: map[string]bool{}}
	if ch.intn(2) == 1 {
		sc.fl, sc.planQ = FairFlavor, "root.dedicated"
	}
	sc.clock = berth.NewManualClock(0)
	cfg := plan.DefaultConfig(sc.planQ, c(100), sc.clock)
	cfg.Step = berth.Duration(1 + ch.intn(3))
	cfg.MoveOnExpiry = ch.intn(2) == 0
	if ch.intn(2) == 0 {
		rp, err := policy.NewSimpleCapacityReplanner(policy.ReplannerConfig{EnforcementWindow: berth.Duration(ch.intn(20))})
		if err != nil {
			return nil, err
		}
		cfg.Replanner = rp
	}
	if ch.intn(2) == 0 {
		cfg.Calculator = berth.DominantCalculator{}
	}
	p, err := plan.New(cfg)
	if err != nil {
		return nil, err
	}
	sc.p = p
	sc.fs = newFake(sc.fl, sc.planQ, c(125), c(int64(40+ch.intn(80))))
	if sc.fl == CapacityFlavor {
		sc.fs.withDefault()
	}
	sc.fs.noMove = ch.intn(4) == 0
	sc.f, err = New(Config{Scheduler: sc.fs, Flavor: sc.fl, Plans: Plans{p}})
	return sc, err
}

// step performs one random action; it returns a run's result when it ran
// the follower.
func (sc *scenario) step(ch chooser) (*Result, error) {
	switch ch.intn(8) {
	case 0, 1: // a new reservation
		sc.nextID++
		start := sc.now + berth.Time(ch.intn(12)) - 2
		n := 1 + ch.intn(6)
		alloc := make([]int64, n)
		for i := range alloc {
			alloc[i] = int64(ch.intn(40))
		}
		end := start + berth.Time(n)
		ivs := generateAllocation(start, alloc...)
		def := plan.Definition{Arrival: start, Deadline: end, Interpreter: plan.RAll,
			Stages: []plan.Stage{{Capability: berth.New(1024, 1), Containers: 1, Concurrency: 1, Duration: end - start}}}
		a, err := plan.NewAllocation(rid(sc.nextID), fmt.Sprintf("u%d", ch.intn(3)), def, berth.Interval{Start: start, End: end}, ivs)
		if err != nil {
			return nil, err
		}
		a.Gang = ch.intn(4) == 0
		sc.clock.Set(sc.now)
		return nil, sc.p.AddReservation(a)
	case 2: // an application in an existing reservation queue
		var qs []string
		for _, q := range sc.fs.queues {
			if sc.fl.ReservationName(q.name) != defaultReservation(sc.fl, sc.planQ) {
				qs = append(qs, sc.fl.ReservationName(q.name))
			}
		}
		if len(qs) == 0 {
			return nil, nil
		}
		sc.nextApp++
		app := fmt.Sprintf("app_%d", sc.nextApp)
		if err := sc.fs.submit(app, qs[ch.intn(len(qs))]); err != nil {
			return nil, err
		}
		sc.apps[app] = true
		return nil, nil
	case 3: // delete a reservation
		all := sc.p.All()
		if len(all) == 0 {
			return nil, nil
		}
		return nil, sc.p.DeleteReservation(all[ch.intn(len(all))].ID)
	case 4: // the plan queue's resources change
		sc.fs.planRes = c(int64(ch.intn(130)))
		return nil, nil
	default: // time passes (sometimes not at all) and the follower runs
		sc.now += berth.Time(ch.intn(4))
		res, err := sc.f.Synchronize(sc.p, sc.now)
		return &res, err
	}
}

// check verifies the invariants after a run with result res.
func (sc *scenario) check(res *Result) error {
	fs, fl := sc.fs, sc.fl
	defName := defaultReservation(fl, sc.planQ)
	// Entitlements never sum above the plan.
	if s := fs.sum(); s > 1+1e-5 {
		return fmt.Errorf("children sum to %g", s)
	}
	if fs.maxSum > 1+1e-5 {
		return fmt.Errorf("children summed to %g during a run", fs.maxSum)
	}
	// Reference model of the active reservations: a plain scan.
	now := res.Now
	var active []string
	for _, a := range sc.p.All() {
		if a.Start <= now && now < a.End {
			active = append(active, a.ID.String())
		}
	}
	slices.Sort(active)
	killedQ := map[string]bool{}
	for _, q := range res.Expired {
		if !slices.Contains(res.Removed, q) {
			killedQ[fl.ReservationName(q)] = true
		}
	}
	// A queue exists iff its reservation is active, or its applications
	// were killed (or could not be moved) in this run.
	var have []string
	hasDefault := false
	for _, q := range fs.queues {
		name := fl.ReservationName(q.name)
		if name == defName {
			hasDefault = true
			continue
		}
		if !slices.Contains(active, name) && !killedQ[name] {
			return fmt.Errorf("queue %s of an inactive reservation survived (active %v)", q.name, active)
		}
		have = append(have, name)
	}
	if !hasDefault {
		return fmt.Errorf("no default queue")
	}
	for _, id := range active {
		if !slices.Contains(have, id) {
			return fmt.Errorf("active reservation %s has no queue", id)
		}
	}
	if sc.p.MoveOnExpiry() && !fs.noMove && len(res.Killed) > 0 {
		return fmt.Errorf("apps %v killed although moving works", res.Killed)
	}
	// Entitlements: reserved/plan, the default the remainder.
	pr := res.PlanResources
	var total float32
	for _, q := range fs.queues {
		if fl.ReservationName(q.name) != defName {
			total += q.ent.Capacity
			if q.ent.MaxCapacity < q.ent.Capacity {
				return fmt.Errorf("queue %s max %g < capacity %g", q.name, q.ent.MaxCapacity, q.ent.Capacity)
			}
		}
	}
	def := fs.find(fl.QueueName(sc.planQ, defName))
	if d := def.ent.Capacity - max(1-total, 0); d > 1e-5 || d < -1e-5 {
		return fmt.Errorf("default capacity %g, others %g", def.ent.Capacity, total)
	}
	if !res.Resized && pr.Memory > 0 && pr.VCores > 0 {
		calc := sc.p.Calculator()
		for _, a := range sc.p.ReservationsAt(now) {
			q := fs.find(fl.QueueName(sc.planQ, a.ID.String()))
			want := calc.Divide(fs.cluster, a.ResourcesAt(now), pr)
			if q.ent.Capacity > want+1e-6 {
				return fmt.Errorf("queue %s capacity %g above its reservation's share %g", q.name, q.ent.Capacity, want)
			}
		}
	}
	// Applications are moved or killed, never lost.
	live := 0
	for _, q := range fs.queues {
		live += len(q.apps)
	}
	for _, app := range res.Killed {
		delete(sc.apps, app)
	}
	if live != len(sc.apps) {
		return fmt.Errorf("%d apps in queues, %d alive", live, len(sc.apps))
	}
	return nil
}

// settle runs at the same time until nothing changes (at most three
// runs: catch up, remove queues emptied by kills, a no-op), then the
// queues are exactly the active reservations.
func (sc *scenario) settle() error {
	var res Result
	for i := 0; ; i++ {
		var err error
		res, err = sc.f.Synchronize(sc.p, sc.now)
		if err != nil && !sc.fs.noMove {
			return err
		}
		if err := sc.check(&res); err != nil {
			return err
		}
		quiet := len(res.Created)+len(res.Moved)+len(res.Killed)+len(res.Removed) == 0
		if quiet {
			break
		}
		if i == 2 {
			return fmt.Errorf("third run at %d still changed things: %v", sc.now, res)
		}
	}
	active := map[string]bool{}
	for _, a := range sc.p.ReservationsAt(res.Now) {
		active[a.ID.String()] = true
	}
	for _, q := range sc.fs.queues {
		name := sc.fl.ReservationName(q.name)
		if name != defaultReservation(sc.fl, sc.planQ) && !active[name] {
			return fmt.Errorf("queue %s left after settling", q.name)
		}
	}
	return nil
}

func playScenario(ch chooser, steps int, more func() bool) error {
	sc, err := newScenario(ch)
	if err != nil {
		return err
	}
	for i := 0; i < steps && more(); i++ {
		res, err := sc.step(ch)
		if res == nil {
			continue // a rejected reservation or app is fine
		}
		if err != nil && !sc.fs.noMove {
			return fmt.Errorf("step %d: %w", i, err)
		}
		if err := sc.check(res); err != nil {
			return fmt.Errorf("step %d at %d: %w", i, res.Now, err)
		}
	}
	return sc.settle()
}

func TestPropertyRandomPlansAndClocks(t *testing.T) {
	n := 300
	if testing.Short() || raceEnabled {
		n = 60
	}
	for seed := 0; seed < n; seed++ {
		ch := randChooser{rand.New(rand.NewPCG(uint64(seed), 7))}
		if err := playScenario(ch, 60, func() bool { return true }); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
	}
}

func FuzzFollower(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 5, 0, 3, 3, 7, 1, 2, 0, 7, 2, 7, 3, 7, 5})
	f.Add([]byte{1, 1, 1, 1, 1, 1, 0, 10, 5, 39, 39, 39, 39, 39, 7, 0, 4, 10, 7, 0})
	f.Add([]byte{0, 2, 0, 0, 0, 0, 1, 4, 3, 0, 20, 30, 2, 0, 5, 1, 3, 0, 5, 2, 4, 5, 3})
	f.Add([]byte{1, 0, 1, 1, 1, 1, 3, 0, 1, 2, 5, 9, 9, 9, 2, 0, 6, 3, 6, 0, 6, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		ch := &byteChooser{b: data}
		if err := playScenario(ch, 200, func() bool { return !ch.done() }); err != nil {
			t.Fatal(err)
		}
	})
}
