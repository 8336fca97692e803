package follower

import (
	"fmt"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/fair"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/policy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// yarnFairFlavor is YARN's FairSchedulerPlanFollower exactly: it never
// publishes the plan resources as the plan's capacity.
type yarnFairFlavor struct{ Flavor }

func (yarnFairFlavor) PublishesCapacity() bool { return false }

// The simulator's default fair scenario in small: ten <8 GB, 8> nodes, a
// queue whose minimum share is three nodes, and the reservable queue
// "dedicated" without one. When seven nodes are lost the other queue's
// minimum share takes the whole smaller cluster, so the plan's steady fair
// share is 0 (as YARN's ComputeFairShares gives it), until they return.
//
// The follower runs every step (1 s) for a minute; four reservations are
// active throughout, the nodes are lost at 10 s and return at 40 s. Berth
// replans once, at 10 s: the plan's capacity follows its share to 0 and
// the replanner deletes the four reservations it can no longer hold;
// afterwards nothing is over-committed, so nothing is replanned. YARN's
// own fair follower (yarnFairFlavor) never sets the plan's capacity, so
// its replanner, checking the capacity the plan was created with, deletes
// nothing and runs again at every step of the outage. That is what the
// simulator's default fair scenario did before the fair flavor published
// the capacity: its plan, created at 1,945,600 MB, held 1,873,920 MB while
// its steady share was 1,872,458 MB, and 12,995 follower runs replanned
// without removing anything.
func TestFairPlanReplansOnce(t *testing.T) {
	for _, tc := range []struct {
		name, policy string
		flavor       Flavor
		replans      int // runs that replanned
		resized      int // runs that shrank the reservations to fit
		deleted      int // reservations the replanner deleted
	}{
		{"fair", "fair", FairFlavor, 1, 0, 4},
		{"drf", "drf", FairFlavor, 1, 0, 4},
		// Berth shrinks what the replanner left to the plan resources
		// (0); YARN asks the scheduler for entitlements it refuses.
		{"YARN's fair follower", "fair", yarnFairFlavor{FairFlavor}, 30, 30, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := berth.NewManualClock(0)
			af, err := fair.ParseAllocationFile([]byte(`<allocations>
  <queue name="other"><weight>1</weight><minResources>24576 mb, 24 vcores</minResources></queue>
  <queue name="dedicated"><weight>4</weight><reservation/></queue>
  <defaultQueueSchedulingPolicy>`+tc.policy+`</defaultQueueSchedulingPolicy>
</allocations>`), fair.ParseOptions{})
			require.NoError(t, err)
			cfg := fair.DefaultConfig()
			cfg.Allocation = af
			cfg.Clock = clock
			s, err := fair.New(cfg)
			require.NoError(t, err)
			node := func(i int) fair.NodeSpec {
				return fair.NodeSpec{ID: fmt.Sprint("n", i), Rack: "/r", Capability: berth.New(8192, 8)}
			}
			for i := range 10 {
				require.NoError(t, s.AddNode(node(i)))
			}
			capa, err := s.PlanResources("root.dedicated")
			require.NoError(t, err)
			p := yarnPlan(t, "root.dedicated", capa, berth.MemoryCalculator{}, policy.NoOverCommit{}, clock)
			f, err := New(Config{Scheduler: s, Flavor: tc.flavor, Plans: Plans{p}})
			require.NoError(t, err)
			_, err = f.Run(0)
			require.NoError(t, err)
			for range 4 {
				def := plan.Definition{Arrival: 0, Deadline: 60_000, Stages: []plan.Stage{
					{Capability: berth.New(1024, 1), Containers: 4, Concurrency: 4, Duration: 60_000}}}
				require.NoError(t, p.Agent().CreateReservation(p, plan.ReservationID{ClusterTimestamp: 1, Sequence: int64(p.Len() + 1)}, "alice", def))
			}

			replans, resized := 0, 0
			var replannedAt []berth.Time
			for now := berth.Time(1000); now < 60_000; now += 1000 {
				clock.Set(now)
				switch now {
				case 10_000:
					for i := 3; i < 10; i++ {
						_, err := s.RemoveNode(node(i).ID)
						require.NoError(t, err)
					}
				case 40_000:
					for i := 3; i < 10; i++ {
						require.NoError(t, s.AddNode(node(i)))
					}
				}
				results, err := f.Run(now)
				require.NoError(t, err)
				require.Len(t, results, 1)
				r := results[0]
				if r.Replanned {
					replans++
					replannedAt = append(replannedAt, now)
				}
				if r.Resized {
					resized++
				}
				if now >= 10_000 && now < 40_000 {
					assert.Zero(t, r.PlanResources.Memory, "at %d: the other queue's minimum share takes the smaller cluster", now)
				} else {
					assert.Positive(t, r.PlanResources.Memory, "at %d", now)
				}
			}
			assert.Equal(t, tc.replans, replans, "replanned at %v", replannedAt)
			assert.Equal(t, tc.resized, resized)
			assert.Equal(t, 10_000, int(replannedAt[0]))
			assert.Equal(t, 4-tc.deleted, p.Len(), "reservations left")
			require.NoError(t, s.Check())
		})
	}
}
