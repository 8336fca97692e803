package plan

import (
	"errors"
	"sync"
	"testing"

	"github.com/berthsched/berth"
	"github.com/stretchr/testify/assert"
)

// speculativeAgent tries a placement on a snapshot first, then commits it
// on the plan, as agents may.
type speculativeAgent struct{ testAgent }

func (ag speculativeAgent) CreateReservation(p *Plan, id ReservationID, user string, def Definition) error {
	a, err := ag.place(id, user, def)
	if err != nil {
		return err
	}
	if err := p.Snapshot().AddReservation(a); err != nil {
		return err
	}
	return p.AddReservation(a)
}

// Parallel submitters (adds, updates, deletes, speculative snapshots) and
// readers on one plan; run with -race. Afterwards the plan never exceeds
// its capacity and agrees with its own reservations.
func TestPlanConcurrent(t *testing.T) {
	clock := berth.NewManualClock(0)
	p := newTestPlan(t, func(c *Config) { c.Clock = clock; c.Capacity = berth.New(1024*40, 40) })
	ag := speculativeAgent{}
	var wg sync.WaitGroup
	const writers, each = 4, 25
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				id := ReservationID{ClusterTimestamp: int64(w + 1), Sequence: int64(i + 1)}
				start := berth.Time((i * 7) % 100)
				def := Definition{Arrival: start, Deadline: start + 20, Interpreter: RAll,
					Stages: []Stage{{Capability: berth.New(1024, 1), Containers: int64(1 + (i+w)%6), Concurrency: 1, Duration: 10}}}
				err := ag.CreateReservation(p, id, []string{"a", "b"}[w%2], def)
				if err != nil && !errors.Is(err, berth.ErrCapacityExceeded) {
					t.Errorf("create: %v", err)
					continue
				}
				if err == nil && i%3 == 0 {
					def.Arrival, def.Deadline = start+30, start+50
					if err := ag.UpdateReservation(p, id, "a", def); err != nil && !errors.Is(err, berth.ErrCapacityExceeded) {
						t.Errorf("update: %v", err)
					}
				}
				if err == nil && i%5 == 0 {
					if err := p.DeleteReservation(id); err != nil {
						t.Errorf("delete: %v", err)
					}
				}
			}
		}(w)
	}
	for r := 0; r < 3; r++ {
		wg.Add(1)
		go func(r int) {
			defer wg.Done()
			for i := 0; i < 60; i++ {
				tt := berth.Time(i * 2)
				_ = p.TotalCommitted(tt)
				_ = p.UserConsumptionAt("a", tt)
				_ = p.Reservations(Filter{Window: &berth.Interval{Start: tt, End: tt + 10}, User: "b"})
				_, _ = p.CumulativeLoad(berth.Interval{Start: 0, End: 200})
				_, _ = p.AvailableResources("a", ReservationID{}, berth.Interval{Start: 0, End: 200}, 0)
				_ = p.All()
				_, _ = p.EarliestStart()
				if r == 0 && i%20 == 0 {
					_, _ = p.ArchiveCompleted(-1000)
				}
			}
		}(r)
	}
	wg.Wait()
	load, err := p.CumulativeLoad(berth.Interval{Start: 0, End: 200})
	assert.NoError(t, err)
	for tt := berth.Time(0); tt < 200; tt++ {
		var sum berth.Resource
		for _, a := range p.ReservationsAt(tt) {
			sum = sum.Add(a.ResourcesAt(tt))
		}
		assert.True(t, sum.Equal(p.TotalCommitted(tt)), "at %d", tt)
		assert.True(t, sum.Equal(load.At(tt)), "at %d", tt)
		assert.True(t, sum.FitsIn(p.Capacity()), "over-committed at %d", tt)
	}
}
