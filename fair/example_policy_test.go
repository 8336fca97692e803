package fair_test

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/fair"
	"github.com/berthsched/berth/queue"
)

// NewestFirst is a host's scheduling policy for leaves: the most recently
// submitted application is offered resources first (LIFO), so short
// interactive jobs submitted behind a long batch are not stuck behind it.
// It changes the order only: without ComputeShares or Headroom, shares
// and headroom are the fair policy's.
type NewestFirst struct{}

func (NewestFirst) Name() string                 { return "newest-first" }
func (NewestFirst) Calculator() berth.Calculator { return berth.MemoryCalculator{} }

// LeafOnly: the order is meant for applications, not queues.
func (NewestFirst) LeafOnly() bool { return true }

func (NewestFirst) Compare(_ fair.PolicyEnv, a, b fair.SchedulableView) int {
	if c := cmp.Compare(b.StartTime(), a.StartTime()); c != 0 {
		return c
	}
	return strings.Compare(a.Name(), b.Name())
}

// SortKey is the fast path: -start time, then the scheduler's (start,
// name) tie-break, orders exactly as Compare does.
func (NewestFirst) SortKey(_ fair.PolicyEnv, s fair.SchedulableView, k *fair.SortKey) bool {
	k.Major[0] = -float64(s.StartTime())
	return true
}

// The allocation file names the host's policy; the host registers it in
// the registry it hands the parser.
func ExampleSchedulingPolicy() {
	policies := &queue.Registry[fair.SchedulingPolicy]{Kind: "scheduling policy"}
	if err := policies.Register("newest-first", NewestFirst{}); err != nil {
		fmt.Println(err)
		return
	}
	af, err := fair.ParseAllocationFile([]byte(`<allocations>
  <queue name="jobs"><schedulingPolicy>newest-first</schedulingPolicy></queue>
</allocations>`), fair.ParseOptions{Policies: policies})
	if err != nil {
		fmt.Println(err)
		return
	}
	clock := berth.NewManualClock(0)
	cfg := fair.DefaultConfig()
	cfg.Allocation = af
	cfg.Clock = clock
	s, err := fair.New(cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, id := range []string{"batch", "query1", "query2"} {
		clock.Advance(1)
		if _, err := s.SubmitApp(fair.AppSpec{ID: id, User: "alice", Queue: "root.jobs"}); err != nil {
			fmt.Println(err)
			return
		}
		ask := fair.Ask{Priority: 1, ResourceName: fair.AnyResource, Capability: berth.New(1024, 1), Count: 4}
		if _, err := s.Allocate(id, []fair.Ask{ask}, nil); err != nil {
			fmt.Println(err)
			return
		}
	}
	if err := s.AddNode(fair.NodeSpec{ID: "n1", Capability: berth.New(1024, 4)}); err != nil {
		fmt.Println(err)
		return
	}
	s.Update()
	allocs, err := s.Heartbeat("n1", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, a := range allocs {
		fmt.Println(a.App, "got a container")
	}
	fmt.Println(s.Snapshot().Queue("root.jobs").PolicyName)
	// Output:
	// query2 got a container
	// newest-first
}
