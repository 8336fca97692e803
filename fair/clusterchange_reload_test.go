package fair

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/berthsched/berth"
	"github.com/stretchr/testify/require"
)

// TestClusterChangeMatchesReinitAcrossReloads is TestClusterChangeMatchesReinit
// with reservation-queue entitlements changing, reservation queues added and
// removed, applications coming and going, and reloads (one of which drops
// the plan from the file while it may still hold reservation queues)
// between the node events.
func TestClusterChangeMatchesReinitAcrossReloads(t *testing.T) {
	files := []string{allocXML(`
<queue name="a"><maxResources>50%</maxResources><minResources>2048mb,2vcores</minResources>
  <queue name="a1"><maxResources>memory-mb=30%, vcores=60%</maxResources></queue>
</queue>
<queue name="c" type="parent"><maxChildResources>memory-mb=40%, vcores=20%</maxChildResources></queue>
<queue name="plan"><reservation/><maxResources>70%</maxResources></queue>`), allocXML(`
<queue name="a"><maxResources>20%</maxResources></queue>
<queue name="c" type="parent"><maxChildResources>10%</maxChildResources><weight>2</weight></queue>`)}
	parse := func(i int) *AllocationFile {
		af, err := ParseAllocationFile([]byte(files[i]), ParseOptions{})
		require.NoError(t, err)
		return af
	}
	added, submitted, entitled := 0, 0, 0
	for seed := uint64(1); seed <= 30; seed++ {
		rng := rand.New(rand.NewPCG(seed, 9))
		clock := berth.NewManualClock(0)
		cfg := DefaultConfig()
		cfg.Allocation = parse(0)
		cfg.Clock = clock
		s, err := New(cfg)
		require.NoError(t, err)
		var live, apps []string
		for step := 0; step < 120; step++ {
			clock.Advance(int64(rng.IntN(100)))
			switch op := rng.IntN(9); {
			case op == 0:
				_, _ = s.Reload(parse(rng.IntN(len(files))))
			case op == 1:
				r := fmt.Sprintf("r%d", rng.IntN(3))
				switch rng.IntN(3) {
				case 0:
					if s.AddReservationQueue("root.plan", r) == nil {
						added++
					}
				case 1:
					if s.SetEntitlement("root.plan."+r, Entitlement{Capacity: float32(rng.IntN(5)) / 4, MaxCapacity: 1}) == nil {
						entitled++
					}
				default:
					_ = s.RemoveReservationQueue("root.plan." + r)
				}
			case op == 2:
				id := fmt.Sprintf("app%d", step)
				q := []string{"root.a.a1", "root.c.dyn", "root.plan", "root.plan.r1"}[rng.IntN(4)]
				spec := AppSpec{ID: id, Queue: q, User: "u"}
				if q == "root.plan.r1" {
					spec.Queue, spec.ReservationID = "root.plan", "r1"
				}
				if _, err := s.SubmitApp(spec); err == nil {
					apps = append(apps, id)
					submitted++
				}
			case op == 3 && len(apps) > 0:
				i := rng.IntN(len(apps))
				_, _ = s.FinishApp(apps[i])
				apps = slices.Delete(apps, i, i+1)
			case op == 4:
				s.Update()
			default:
				live = nodeEventMatchesReinit(t, s, rng, live, step, fmt.Sprintf("seed %d step %d", seed, step))
			}
			require.NoError(t, s.Check(), "seed %d step %d", seed, step)
		}
	}
	require.Positive(t, added, "reservation queues added")
	require.Positive(t, entitled, "entitlements set")
	require.Positive(t, submitted, "applications submitted")
}
