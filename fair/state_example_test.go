package fair_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/fair"
	"github.com/berthsched/berth/queue"
	"github.com/stretchr/testify/require"
)

// A host saves the scheduler, restores it (say, on a standby after a
// failover) with its own clock, and carries on: the restored scheduler
// decides as the saved one would have.
func ExampleScheduler_SaveState() {
	clock := berth.NewManualClock(0)
	cfg := fair.DefaultConfig()
	cfg.Clock = clock
	s, err := fair.New(cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = s.AddNode(fair.NodeSpec{ID: "n1", Capability: berth.New(8192, 8)})
	_, _ = s.SubmitApp(fair.AppSpec{ID: "app1", Queue: "default", User: "alice"})
	_, _ = s.Allocate("app1", []fair.Ask{{Priority: 1, ResourceName: fair.AnyResource, Capability: berth.New(2048, 1), Count: 3}}, nil)
	als, _ := s.Heartbeat("n1", nil)
	fmt.Println("before:", len(als), "container(s)")

	var snap bytes.Buffer
	if err := s.SaveState(&snap); err != nil {
		fmt.Println(err)
		return
	}
	standby := berth.NewManualClock(clock.Now())
	r, err := fair.RestoreScheduler(&snap, fair.RestoreEnv{Clock: standby})
	if err != nil {
		fmt.Println(err)
		return
	}
	als, _ = r.Heartbeat("n1", nil)
	for _, al := range als {
		fmt.Println("after:", al.ID, al.App, al.Resource)
	}
	// Output:
	// before: 1 container(s)
	// after: 2 app1 <memory:2048, vCores:1>
}

// A host's placement rule and scheduling policy are saved by name and
// found again in the registries the host passes to the restore; without
// them the restore is refused, naming what is missing.
func TestStateHostPolicyAndRule(t *testing.T) {
	rules := &queue.Registry[fair.Rule]{Kind: "placement rule"}
	require.NoError(t, rules.Register("tag", ByTag{}))
	policies := &queue.Registry[fair.SchedulingPolicy]{Kind: "scheduling policy"}
	require.NoError(t, policies.Register("newest-first", NewestFirst{}))
	af, err := fair.ParseAllocationFile([]byte(`<allocations>
  <queue name="jobs"><schedulingPolicy>newest-first</schedulingPolicy></queue>
  <queue name="etl"/>
  <queuePlacementPolicy><rule name="tag" create="true"/><rule name="default" queue="jobs"/></queuePlacementPolicy>
</allocations>`), fair.ParseOptions{Rules: rules, Policies: policies})
	require.NoError(t, err)
	clock := berth.NewManualClock(0)
	cfg := fair.DefaultConfig()
	cfg.Allocation = af
	cfg.Clock = clock
	s, err := fair.New(cfg)
	require.NoError(t, err)
	require.NoError(t, s.AddNode(fair.NodeSpec{ID: "n1", Capability: berth.New(4096, 4)}))
	for i, tags := range [][]string{nil, {"queue:etl"}, nil, {"queue:adhoc"}} {
		id := fmt.Sprintf("app%d", i)
		clock.Advance(10)
		_, err := s.SubmitApp(fair.AppSpec{ID: id, User: "u", Tags: tags})
		require.NoError(t, err)
		_, err = s.Allocate(id, []fair.Ask{{Priority: 1, ResourceName: fair.AnyResource, Capability: berth.New(1024, 1), Count: 3}}, nil)
		require.NoError(t, err)
	}
	s.Update()
	var snap bytes.Buffer
	require.NoError(t, s.SaveState(&snap))

	_, err = fair.RestoreScheduler(bytes.NewReader(snap.Bytes()), fair.RestoreEnv{Clock: clock, Rules: rules})
	require.ErrorIs(t, err, berth.ErrInvalidArgument)
	require.ErrorContains(t, err, "newest-first")
	_, err = fair.RestoreScheduler(bytes.NewReader(snap.Bytes()), fair.RestoreEnv{Clock: clock, Policies: policies})
	require.ErrorIs(t, err, berth.ErrInvalidArgument)
	require.ErrorContains(t, err, "tag")

	clock2 := berth.NewManualClock(clock.Now())
	// A groups provider the saved scheduler did not have is ignored: the
	// restored one must resolve groups as the saved one did.
	r, err := fair.RestoreScheduler(bytes.NewReader(snap.Bytes()), fair.RestoreEnv{Clock: clock2, Rules: rules, Policies: policies,
		Groups: queue.StaticGroups{"u": {"g"}}})
	require.NoError(t, err)
	require.Nil(t, r.Config().Groups)
	var again bytes.Buffer
	require.NoError(t, r.SaveState(&again))
	require.Equal(t, snap.Bytes(), again.Bytes())
	for i := range 4 {
		want, err := s.Heartbeat("n1", nil)
		require.NoError(t, err)
		got, err := r.Heartbeat("n1", nil)
		require.NoError(t, err)
		require.Equal(t, want, got, "heartbeat %d", i)
		q1, err1 := s.SubmitApp(fair.AppSpec{ID: fmt.Sprintf("late%d", i), User: "v", Tags: []string{"queue:etl"}})
		q2, err2 := r.SubmitApp(fair.AppSpec{ID: fmt.Sprintf("late%d", i), User: "v", Tags: []string{"queue:etl"}})
		require.Equal(t, q1, q2)
		require.Equal(t, err1, err2)
	}
	require.Equal(t, s.Snapshot().Queue("root.jobs").PolicyName, r.Snapshot().Queue("root.jobs").PolicyName)
}
