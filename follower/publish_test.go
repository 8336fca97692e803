package follower

import (
	"bytes"
	"fmt"
	"sync"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/capacity"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/policy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// publishWorld is a capacity cluster whose reservation system publishes
// through the follower (SystemConfig.Publish = Follower.Publish), with a
// plan that kills the applications of an expired reservation.
type publishWorld struct {
	clock *berth.ManualClock
	cs    *capacity.Scheduler
	p     *plan.Plan
	sys   *plan.System
	f     *Follower
}

func newPublishWorld(t *testing.T) *publishWorld {
	t.Helper()
	w := &publishWorld{clock: berth.NewManualClock(0)}
	w.cs = capacityCluster(t, w.clock)
	capa, err := w.cs.PlanResources("dedicated")
	require.NoError(t, err)
	w.p = yarnPlan(t, "dedicated", capa, berth.MemoryCalculator{}, policy.NoOverCommit{}, w.clock)
	cfg := w.p.Config()
	cfg.MoveOnExpiry = false // kill what is left in an expired queue
	w.p, err = plan.New(cfg)
	require.NoError(t, err)
	w.f, err = New(Config{Scheduler: w.cs})
	require.NoError(t, err)
	w.sys, err = plan.NewSystem(plan.SystemConfig{ClusterTimestamp: 1, Clock: w.clock, Publish: w.f.Publish})
	require.NoError(t, err)
	require.NoError(t, w.sys.AddPlan(w.p))
	w.f.SetPlans(w.sys)
	return w
}

// reserve submits a reservation of two <1 GB, 1> containers for the
// given time from now.
func (w *publishWorld) reserve(t *testing.T, d berth.Duration) plan.ReservationID {
	t.Helper()
	now := w.clock.Now()
	def := plan.Definition{Arrival: now, Deadline: now + d, Stages: []plan.Stage{
		{Capability: berth.New(1024, 1), Containers: 2, Concurrency: 2, Duration: d}}}
	id := w.sys.NewReservationID()
	require.NoError(t, w.sys.Submit(plan.SubmissionRequest{Queue: "dedicated", ID: id, User: "alice", Definition: &def}))
	return id
}

// runApp submits app under reservation id and starts two containers.
func (w *publishWorld) runApp(t *testing.T, app string, id plan.ReservationID) {
	t.Helper()
	_, err := w.cs.SubmitApp(capacity.AppSpec{ID: app, Queue: "dedicated", User: "alice", ReservationID: id.String()})
	require.NoError(t, err)
	_, err = w.cs.Allocate(app, []capacity.Ask{{Priority: 1, ResourceName: capacity.AnyResource, Capability: berth.New(1024, 1), Count: 2}}, nil)
	require.NoError(t, err)
	for i := range 10 {
		_, err := w.cs.Heartbeat(fmt.Sprintf("n%d", i), nil)
		require.NoError(t, err)
	}
}

// A publication System.Submit makes can end containers (it expires the
// queue of a reservation that ended since the last run and kills what is
// left in it). The follower keeps that result and its error: the host gets
// them from TakePublished, or first in the next Run; nothing is dropped
// and nothing is handed over twice.
func TestPublishKeepsWhatItEnded(t *testing.T) {
	for _, take := range []string{"TakePublished", "Run"} {
		t.Run(take, func(t *testing.T) {
			w := newPublishWorld(t)
			_, err := w.f.Run(0)
			require.NoError(t, err)
			first := w.reserve(t, 2000) // published at once: its queue exists
			w.runApp(t, "app_1", first)
			got, err := w.f.TakePublished()
			require.NoError(t, err)
			require.Len(t, got, 1, "the first publication")
			assert.Equal(t, []string{"reservation_1_0001"}, got[0].Created)

			// Mid-step, after the first reservation ended and before the
			// follower's next run, a second one is published: the first
			// one's queue expires and its application is killed.
			w.clock.Set(2500)
			w.reserve(t, 1000)
			var results []Result
			switch take {
			case "TakePublished":
				results, err = w.f.TakePublished()
			case "Run":
				results, err = w.f.Run(3000)
			}
			require.NoError(t, err)
			require.NotEmpty(t, results)
			pub := results[0]
			assert.Equal(t, berth.Time(3000), pub.Now, "the publication's time, rounded up to the step")
			assert.Equal(t, []string{"app_1"}, pub.Killed)
			require.Len(t, pub.Ended, 2, "the killed application's two containers, for the host to stop")
			for _, e := range pub.Ended {
				assert.Equal(t, "app_1", e.App)
			}
			if take == "Run" {
				assert.Len(t, results, 2, "the publication, then the run of the one plan")
				assert.Empty(t, results[1].Ended, "killed once")
			}
			again, err := w.f.TakePublished()
			assert.NoError(t, err)
			assert.Empty(t, again, "handed over once")
			require.NoError(t, w.cs.Check())
		})
	}
}

// A publication's error is kept with its result and returned (joined, its
// kind intact) by the next Run; Submit itself succeeds, since the
// reservation was accepted.
func TestPublishKeepsItsError(t *testing.T) {
	w := newPublishWorld(t)
	other, err := plan.New(plan.DefaultConfig("nowhere", berth.New(8192, 8), w.clock))
	require.NoError(t, err)
	w.f.Publish(other, 0)
	w.f.Publish(nil, 0)
	results, err := w.f.Run(0)
	assert.ErrorIs(t, err, berth.ErrNotFound, "the unknown plan queue")
	assert.ErrorIs(t, err, berth.ErrInvalidArgument, "the nil plan")
	require.Len(t, results, 2, "the publication of the unknown plan, then the run of the one plan (a nil plan has no result)")
	assert.Equal(t, "nowhere", results[0].PlanQueue)
	_, err = w.f.Run(1000)
	assert.NoError(t, err, "errors are returned once")
}

// A follower saved with publications not yet taken hands them over after
// restore exactly as the saved one would (errors as their text).
func TestPublishedSurviveSnapshot(t *testing.T) {
	w := newPublishWorld(t)
	_, err := w.f.Run(0)
	require.NoError(t, err)
	w.runApp(t, "app_1", w.reserve(t, 2000))
	_, err = w.f.TakePublished()
	require.NoError(t, err)
	w.clock.Set(2500)
	w.reserve(t, 1000)
	other, err := plan.New(plan.DefaultConfig("nowhere", berth.New(8192, 8), w.clock))
	require.NoError(t, err)
	w.f.Publish(other, 2500)

	var buf bytes.Buffer
	require.NoError(t, w.f.SaveState(&buf))
	r, err := RestoreFollower(bytes.NewReader(buf.Bytes()), Config{Scheduler: w.cs})
	require.NoError(t, err)
	want, wantErr := w.f.TakePublished()
	got, gotErr := r.TakePublished()
	require.Len(t, want, 2)
	require.Len(t, want[0].Ended, 2)
	assert.Equal(t, want, got)
	require.Error(t, gotErr)
	assert.Equal(t, wantErr.Error(), gotErr.Error())

	// Nothing pending: the snapshot is the flavor alone and restores so.
	buf.Reset()
	require.NoError(t, r.SaveState(&buf))
	r2, err := RestoreFollower(&buf, Config{Scheduler: w.cs})
	require.NoError(t, err)
	res, err := r2.TakePublished()
	assert.NoError(t, err)
	assert.Empty(t, res)
}

// Publications from concurrent submissions and concurrent runs: every
// publication's result is handed over exactly once (run with -race).
func TestPublishConcurrent(t *testing.T) {
	w := newPublishWorld(t)
	const submitters, each, runs = 4, 5, 20
	var wg sync.WaitGroup
	var mu sync.Mutex
	published, runResults := 0, 0
	collect := func(rs []Result, fromRun bool) {
		mu.Lock()
		defer mu.Unlock()
		n := len(rs)
		if fromRun {
			n-- // the run's own result for the one plan
			runResults++
		}
		published += n
	}
	for range submitters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each { // NoOverCommit admits 20 × 2 GB of 64 GB
				def := plan.Definition{Arrival: 0, Deadline: 1000, Stages: []plan.Stage{
					{Capability: berth.New(1024, 1), Containers: 2, Concurrency: 2, Duration: 1000}}}
				assert.NoError(t, w.sys.Submit(plan.SubmissionRequest{Queue: "dedicated", ID: w.sys.NewReservationID(), User: "alice", Definition: &def}))
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range runs {
			if i%2 == 0 {
				rs, err := w.f.TakePublished()
				assert.NoError(t, err)
				collect(rs, false)
				continue
			}
			rs, err := w.f.Run(0)
			assert.NoError(t, err)
			collect(rs, true)
		}
	}()
	wg.Wait()
	rs, err := w.f.TakePublished()
	require.NoError(t, err)
	collect(rs, false)
	assert.Equal(t, submitters*each, published, "one result per publication, none twice")
	assert.Equal(t, runs/2, runResults)
}
