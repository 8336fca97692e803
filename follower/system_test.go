package follower

import (
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/capacity"
	"github.com/berthsched/berth/fair"
	"github.com/berthsched/berth/plan"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// csPlanConfigs is what YARN's CapacityReservationSystem.reinitialize
// builds: one plan per reservable queue, named by its short name, with
// capacity cluster × absolute capacity rounded down to the minimum
// allocation.
func csPlanConfigs(t testing.TB, s *capacity.Scheduler, clock berth.Clock) []plan.Config {
	t.Helper()
	var out []plan.Config
	sn := s.Snapshot()
	for _, path := range s.PlanQueues() {
		abs, err := capacityAbs(sn, path)
		require.NoError(t, err)
		name := lastName(path)
		cfg := plan.DefaultConfig(name, berth.None(), clock)
		cfg.Capacity = plan.PlanCapacity(cfg.Calculator, sn.Cluster, float64(abs), cfg.MinAllocation)
		out = append(out, cfg)
	}
	return out
}

// fsPlanConfigs is FairReservationSystem's: plans named by full path, with
// the plan queue's steady fair share as capacity.
func fsPlanConfigs(t testing.TB, s *fair.Scheduler, clock berth.Clock) []plan.Config {
	t.Helper()
	var out []plan.Config
	for _, path := range s.PlanQueues() {
		res, err := s.PlanResources(path)
		require.NoError(t, err)
		out = append(out, plan.DefaultConfig(path, res, clock))
	}
	return out
}

// SYS-01 and SYS-02 (TestReservationSystem, CS flavour): a plan per
// reservable queue with 80% of a 10-container cluster (8192 MB); a
// reinitialize adds the new reservable queue's plan and keeps the old one.
func TestReservationSystemCapacity(t *testing.T) {
	clock := berth.NewManualClock(0)
	s := newPFCapacity(t, berth.New(10240, 10))
	sys, err := plan.NewSystem(plan.SystemConfig{ClusterTimestamp: 1, Clock: clock})
	require.NoError(t, err)
	added, err := sys.Reinitialize(csPlanConfigs(t, s, clock)...)
	require.NoError(t, err)
	assert.Equal(t, []string{"dedicated"}, added)
	ded, ok := sys.Plan("dedicated")
	require.True(t, ok, "SYS-01 plan exists")
	assert.Equal(t, "dedicated", ded.QueueName())
	assert.Equal(t, int64(8192), ded.Capacity().Memory, "SYS-01 capacity")

	// SYS-02
	cfg := capacity.DefaultConfig()
	dedQ := capacity.Queue("dedicated", 10)
	dedQ.Reservable = true
	resQ := capacity.Queue("reservation", 80)
	resQ.Reservable = true
	cfg.Root.Children = []capacity.QueueConfig{
		capacity.Queue("default", 5),
		capacity.Queue("a", 5, capacity.Queue("a1", 30), capacity.Queue("a2", 70)),
		dedQ, resQ,
	}
	_, err = s.Reconfigure(cfg)
	require.NoError(t, err)
	_, ok = sys.Plan("reservation")
	require.False(t, ok)
	added, err = sys.Reinitialize(csPlanConfigs(t, s, clock)...)
	require.NoError(t, err)
	assert.Equal(t, []string{"reservation"}, added)
	res, ok := sys.Plan("reservation")
	require.True(t, ok, "SYS-02 new plan")
	assert.Equal(t, int64(8192), res.Capacity().Memory, "SYS-02 capacity")
	again, _ := sys.Plan("dedicated")
	assert.Same(t, ded, again, "SYS-02 existing plan kept")
	assert.Equal(t, int64(8192), again.Capacity().Memory, "kept with its old capacity")

	// The follower then publishes the scheduler's view: dedicated is 10%.
	f := mustFollower(t, s, CapacityFlavor)
	f.SetPlans(sys)
	results, err := f.Run(0)
	require.NoError(t, err)
	require.Len(t, results, 2)
	assert.Equal(t, int64(1024), ded.Capacity().Memory, "plan capacity follows the plan queue")
}

// SYS-01 and SYS-02, FS flavour (weights 8 of 10; then 80 of 100).
func TestReservationSystemFair(t *testing.T) {
	clock := berth.NewManualClock(0)
	s := newPFFair(t, berth.New(10240, 10))
	sys, err := plan.NewSystem(plan.SystemConfig{ClusterTimestamp: 1, Clock: clock})
	require.NoError(t, err)
	added, err := sys.Reinitialize(fsPlanConfigs(t, s, clock)...)
	require.NoError(t, err)
	assert.Equal(t, []string{"root.dedicated"}, added)
	ded, ok := sys.Plan("root.dedicated")
	require.True(t, ok, "SYS-01 plan exists")
	assert.Equal(t, int64(8192), ded.Capacity().Memory, "SYS-01 capacity")

	af, err := fair.ParseAllocationFile([]byte(`<allocations>
  <queue name="default"><weight>5</weight></queue>
  <queue name="a"><weight>5</weight>
    <queue name="a1"><weight>3</weight></queue>
    <queue name="a2"><weight>7</weight></queue>
  </queue>
  <queue name="dedicated"><weight>10</weight><reservation/></queue>
  <queue name="reservation"><weight>80</weight><reservation/></queue>
  <defaultQueueSchedulingPolicy>drf</defaultQueueSchedulingPolicy>
</allocations>`), fair.ParseOptions{})
	require.NoError(t, err)
	_, err = s.Reload(af)
	require.NoError(t, err)
	added, err = sys.Reinitialize(fsPlanConfigs(t, s, clock)...)
	require.NoError(t, err)
	assert.Equal(t, []string{"root.reservation"}, added)
	res, ok := sys.Plan("root.reservation")
	require.True(t, ok, "SYS-02 new plan")
	assert.Equal(t, int64(8192), res.Capacity().Memory, "SYS-02 capacity")
	again, _ := sys.Plan("root.dedicated")
	assert.Same(t, ded, again, "SYS-02 existing plan kept")
	assert.Equal(t, int64(8192), again.Capacity().Memory)
}
