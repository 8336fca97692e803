package follower

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/policy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// clone copies the fake scheduler deeply (it stands for a scheduler saved
// and restored with its own snapshot).
func (f *fakeScheduler) clone() *fakeScheduler {
	c := *f
	c.queues, c.byName = nil, map[string]*fakeQueue{}
	for _, q := range f.queues {
		cq := *q
		cq.apps = slices.Clone(q.apps)
		c.add(&cq)
	}
	c.ops = slices.Clone(f.ops)
	c.appQueue = make(map[string]string, len(f.appQueue))
	for k, v := range f.appQueue {
		c.appQueue[k] = v
	}
	return &c
}

// replannerResolver rebuilds a plan's replanner from its spec.
var replannerResolver = plan.ResolverFunc(func(s plan.PlanSpec) (plan.PlanParts, error) {
	rp, err := policy.ResolveReplanner(s.Replanner)
	return plan.PlanParts{Replanner: rp}, err
})

// restoreScenario saves the plan and the follower of sc and returns a
// scenario of the restored ones, over a copy of the scheduler.
func restoreScenario(t *testing.T, sc *scenario) *scenario {
	var ps, fs bytes.Buffer
	require.NoError(t, sc.p.SaveState(&ps))
	require.NoError(t, sc.f.SaveState(&fs))
	r := *sc
	r.clock = berth.NewManualClock(sc.clock.Now())
	p, err := plan.RestorePlan(&ps, plan.RestoreEnv{Clock: r.clock, Resolver: replannerResolver})
	require.NoError(t, err)
	r.p, r.fs = p, sc.fs.clone()
	r.apps = map[string]bool{}
	for k, v := range sc.apps {
		r.apps[k] = v
	}
	r.f, err = RestoreFollower(&fs, Config{Scheduler: r.fs, Plans: Plans{p}})
	require.NoError(t, err)
	assert.Equal(t, sc.fl, r.f.cfg.Flavor, "the flavor is restored by name")
	return &r
}

// TestPropertyFollowerSnapshotContinues: a follower and its plan restored
// from snapshots, over the same scheduler state, publish exactly what the
// originals publish on the same further calls (queues, entitlements,
// moves, kills, replanning, archival), and the plans save the same bytes.
func TestPropertyFollowerSnapshotContinues(t *testing.T) {
	n := 60
	if testing.Short() || raceEnabled {
		n = 15
	}
	runs := 0
	for seed := 0; seed < n; seed++ {
		rng := rand.New(rand.NewPCG(uint64(seed), 13))
		sc, err := newScenario(randChooser{rng})
		require.NoError(t, err)
		for i := 0; i < 20+rng.IntN(40); i++ {
			_, _ = sc.step(randChooser{rng})
		}
		r := restoreScenario(t, sc)
		script := make([]byte, 300)
		for i := range script {
			script[i] = byte(rng.IntN(256))
		}
		c1, c2 := &byteChooser{b: script}, &byteChooser{b: script}
		for i := 0; !c1.done(); i++ {
			res1, err1 := sc.step(c1)
			res2, err2 := r.step(c2)
			require.Equal(t, fmt.Sprint(err1), fmt.Sprint(err2), "seed %d step %d", seed, i)
			require.Equal(t, res1, res2, "seed %d step %d", seed, i)
			if res1 != nil {
				runs++
			}
		}
		assert.Equal(t, sc.fs.ops, r.fs.ops, "seed %d: the scheduler saw the same calls", seed)
		var b1, b2 bytes.Buffer
		require.NoError(t, sc.p.SaveState(&b1))
		require.NoError(t, r.p.SaveState(&b2))
		assert.Equal(t, b1.Bytes(), b2.Bytes(), "seed %d", seed)
	}
	assert.Greater(t, runs, n, "the follower ran")
}

// hostFlavor is a host's own flavor.
type hostFlavor struct{ capacityFlavor }

func (hostFlavor) String() string { return "host" }

func TestRestoreFollowerFlavor(t *testing.T) {
	save := func(fl Flavor) []byte {
		f, err := New(Config{Scheduler: newFake(fl, "q", c(10), c(10)), Flavor: fl})
		require.NoError(t, err)
		var b bytes.Buffer
		require.NoError(t, f.SaveState(&b))
		return b.Bytes()
	}
	sched := newFake(FairFlavor, "q", c(10), c(10))
	for _, fl := range []Flavor{CapacityFlavor, FairFlavor} {
		f, err := RestoreFollower(bytes.NewReader(save(fl)), Config{Scheduler: sched})
		require.NoError(t, err)
		assert.Equal(t, fl, f.cfg.Flavor)
	}
	// A host flavor must be supplied, and by the same name.
	host := save(hostFlavor{})
	_, err := RestoreFollower(bytes.NewReader(host), Config{Scheduler: sched})
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)
	f, err := RestoreFollower(bytes.NewReader(host), Config{Scheduler: sched, Flavor: hostFlavor{}})
	require.NoError(t, err)
	assert.Equal(t, hostFlavor{}, f.cfg.Flavor)
	_, err = RestoreFollower(bytes.NewReader(host), Config{Scheduler: sched, Flavor: FairFlavor})
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)
	assert.ErrorContains(t, err, `"host"`)
	// The scheduler is still required.
	_, err = RestoreFollower(bytes.NewReader(save(CapacityFlavor)), Config{})
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)
	var se *berth.StateError
	assert.ErrorAs(t, err, &se)
}

func TestRestoreFollowerRefusesCorruption(t *testing.T) {
	f, err := New(Config{Scheduler: newFake(CapacityFlavor, "q", c(10), c(10)), Flavor: CapacityFlavor})
	require.NoError(t, err)
	var b bytes.Buffer
	require.NoError(t, f.SaveState(&b))
	saved := b.Bytes()
	cfg := Config{Scheduler: newFake(CapacityFlavor, "q", c(10), c(10))}
	for n := 0; n < len(saved); n++ {
		got, err := RestoreFollower(bytes.NewReader(saved[:n]), cfg)
		assert.ErrorIs(t, err, berth.ErrCorruptState, "truncated at %d", n)
		assert.Nil(t, got)
	}
	for i := range saved {
		for bit := 0; bit < 8; bit++ {
			x := bytes.Clone(saved)
			x[i] ^= 1 << bit
			got, err := RestoreFollower(bytes.NewReader(x), cfg)
			assert.Error(t, err, "bit %d of byte %d", bit, i)
			assert.Nil(t, got)
		}
	}
	var p bytes.Buffer
	pl, err := plan.New(plan.DefaultConfig("q", c(1), berth.NewManualClock(0)))
	require.NoError(t, err)
	require.NoError(t, pl.SaveState(&p))
	_, err = RestoreFollower(&p, cfg)
	assert.ErrorIs(t, err, berth.ErrInvalidArgument, "another kind of snapshot")
}

// FuzzRestoreFollower: no input panics; whatever restores saves and
// restores again to the same bytes.
func FuzzRestoreFollower(f *testing.F) {
	for _, fl := range []Flavor{CapacityFlavor, FairFlavor} {
		fo, _ := New(Config{Scheduler: newFake(fl, "q", c(10), c(10)), Flavor: fl})
		var b bytes.Buffer
		_ = fo.SaveState(&b)
		f.Add(b.Bytes())
	}
	cfg := Config{Scheduler: newFake(CapacityFlavor, "q", c(10), c(10))}
	f.Fuzz(func(t *testing.T, data []byte) {
		fo, err := RestoreFollower(bytes.NewReader(data), cfg)
		if err != nil {
			if fo != nil {
				t.Fatal("a follower returned with an error")
			}
			return
		}
		var b bytes.Buffer
		if err := fo.SaveState(&b); err != nil {
			t.Fatal(err)
		}
		again, err := RestoreFollower(bytes.NewReader(b.Bytes()), cfg)
		if err != nil || again.cfg.Flavor != fo.cfg.Flavor {
			t.Fatalf("not stable: %v", err)
		}
	})
}
