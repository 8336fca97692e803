package fair_test

import (
	"fmt"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/fair"
	"github.com/berthsched/berth/queue"
)

// EvenMemory is a host's leaf policy that splits a queue's memory evenly
// among its applications, whatever their weights, and leaves the other
// types as they are. It divides type by type, so it offers the TypeSharer
// fast path beside ComputeShares; both give the same shares.
type EvenMemory struct{ NewestFirst }

func (EvenMemory) Name() string { return "even-memory" }

func (EvenMemory) ShareTypes(fair.PolicyEnv, bool) int { return 1 } // memory only

func (EvenMemory) ComputeTypeShares(_ fair.PolicyEnv, items []fair.SchedulableView, total int64, _ int, _ bool, out []int64) {
	for i := range out {
		out[i] = total / int64(len(items))
	}
}

func (p EvenMemory) ComputeShares(env fair.PolicyEnv, items []fair.SchedulableView, total berth.Resource, steady bool, out []berth.Resource) {
	mem := make([]int64, len(items))
	p.ComputeTypeShares(env, items, total.Memory, 0, steady, mem)
	for i, v := range items {
		out[i] = v.FairShare()
		if steady {
			out[i] = v.SteadyFairShare()
		}
		out[i].Memory = mem[i]
	}
}

// A policy dividing each type on its own implements TypeSharer; the
// scheduler then installs its integer shares directly.
func ExampleTypeSharer() {
	policies := &queue.Registry[fair.SchedulingPolicy]{Kind: "scheduling policy"}
	if err := policies.Register("even-memory", EvenMemory{}); err != nil {
		fmt.Println(err)
		return
	}
	af, err := fair.ParseAllocationFile([]byte(`<allocations>
  <queue name="jobs"><schedulingPolicy>even-memory</schedulingPolicy></queue>
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
	if err := s.AddNode(fair.NodeSpec{ID: "n1", Capability: berth.New(12288, 12)}); err != nil {
		fmt.Println(err)
		return
	}
	for _, id := range []string{"a", "b", "c"} {
		clock.Advance(1)
		if _, err := s.SubmitApp(fair.AppSpec{ID: id, User: "alice", Queue: "root.jobs"}); err != nil {
			fmt.Println(err)
			return
		}
		ask := fair.Ask{Priority: 1, ResourceName: fair.AnyResource, Capability: berth.New(1024, 1), Count: 8}
		if _, err := s.Allocate(id, []fair.Ask{ask}, nil); err != nil {
			fmt.Println(err)
			return
		}
	}
	s.Update()
	for _, a := range s.Snapshot().Apps {
		fmt.Println(a.ID, a.FairShare.Memory)
	}
	fmt.Println(s.PolicyError())
	// Output:
	// a 4096
	// b 4096
	// c 4096
	// <nil>
}
