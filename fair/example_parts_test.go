package fair_test

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/fair"
	"github.com/berthsched/berth/queue"
)

// SmallestFirst is a host's policy that implements two extension points
// and nothing more: it offers resources to the application with the
// least pending memory first (shortest job first), and it divides a
// queue's memory in proportion to demand rather than by weight. Child
// rules and headroom are the documented defaults.
type SmallestFirst struct{}

func (SmallestFirst) Name() string                 { return "smallest-first" }
func (SmallestFirst) Calculator() berth.Calculator { return berth.MemoryCalculator{} }

// Compare is the Orderer: least pending memory, then oldest, then name.
func (SmallestFirst) Compare(_ fair.PolicyEnv, a, b fair.SchedulableView) int {
	pa, pb := a.Demand().Memory-a.Usage().Memory, b.Demand().Memory-b.Usage().Memory
	if c := cmp.Compare(pa, pb); c != 0 {
		return c
	}
	if c := cmp.Compare(a.StartTime(), b.StartTime()); c != 0 {
		return c
	}
	return strings.Compare(a.Name(), b.Name())
}

// ComputeShares is the ShareDivider: memory in proportion to demand (never
// more than the demand), the other types kept as they are.
func (SmallestFirst) ComputeShares(_ fair.PolicyEnv, items []fair.SchedulableView, total berth.Resource, steady bool, out []berth.Resource) {
	var demand int64
	for _, v := range items {
		demand += v.Demand().Memory
	}
	for i, v := range items {
		out[i] = v.FairShare()
		if steady {
			out[i] = v.SteadyFairShare()
		}
		out[i].Memory = 0
		if demand > 0 {
			out[i].Memory = min(v.Demand().Memory, int64(float64(total.Memory)*float64(v.Demand().Memory)/float64(demand)))
		}
	}
}

// A policy built from an ordering and a share division only.
func ExampleShareDivider() {
	policies := &queue.Registry[fair.SchedulingPolicy]{Kind: "scheduling policy"}
	if err := policies.Register("smallest-first", SmallestFirst{}); err != nil {
		fmt.Println(err)
		return
	}
	af, err := fair.ParseAllocationFile([]byte(`<allocations>
  <queue name="jobs"><schedulingPolicy>smallest-first</schedulingPolicy></queue>
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
	if err := s.AddNode(fair.NodeSpec{ID: "n1", Capability: berth.New(3584, 8)}); err != nil {
		fmt.Println(err)
		return
	}
	for _, job := range []struct {
		id         string
		containers int
	}{{"big", 4}, {"mid", 2}, {"small", 1}} {
		clock.Advance(1)
		if _, err := s.SubmitApp(fair.AppSpec{ID: job.id, User: "alice", Queue: "root.jobs"}); err != nil {
			fmt.Println(err)
			return
		}
		ask := fair.Ask{Priority: 1, ResourceName: fair.AnyResource, Capability: berth.New(1024, 1), Count: job.containers}
		if _, err := s.Allocate(job.id, []fair.Ask{ask}, nil); err != nil {
			fmt.Println(err)
			return
		}
	}
	s.Update()
	for _, a := range s.Snapshot().Apps {
		fmt.Println(a.ID, "share", a.FairShare.Memory)
	}
	allocs, err := s.Heartbeat("n1", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(allocs[0].App, "got the first container")
	// The fair policy would share 1280, 1280, 1024 and serve big, the
	// oldest, first.

	// Output:
	// big share 2048
	// mid share 1024
	// small share 512
	// small got the first container
}

// DominantOrder is a policy built from parts: a name of its own, DRF's
// order with its sort key, and nothing else, so it divides shares and
// computes headroom as the fair policy does. Embedding the built-in's
// parts as interfaces picks exactly the extension points wanted.
type DominantOrder struct {
	fair.Orderer
	fair.PolicyKeyer // keep DRF's fast path beside its Compare
}

func (DominantOrder) Name() string                 { return "dominant-order" }
func (DominantOrder) Calculator() berth.Calculator { return berth.MemoryCalculator{} }

// A policy composed of another policy's parts.
func ExampleOrderer() {
	drf := fair.PolicyDRF.SchedulingPolicy()
	pol := DominantOrder{drf.(fair.Orderer), drf.(fair.PolicyKeyer)}

	env := fair.PolicyEnv{Cluster: berth.New(16384, 16)}
	mem := &fair.Schedulable{Name: "mem", Weight: 1, Usage: berth.New(4096, 1)} // dominant share 1/4
	cpu := &fair.Schedulable{Name: "cpu", Weight: 1, Usage: berth.New(1024, 6)} // dominant share 3/8
	first := "cpu"
	if pol.Compare(env, fair.ViewOf(mem), fair.ViewOf(cpu)) < 0 {
		first = "mem"
	}
	_, shares := fair.SchedulingPolicy(pol).(fair.ShareDivider)
	fmt.Println(pol.Name(), "offers", first, "first; own shares:", shares)
	// Output:
	// dominant-order offers mem first; own shares: false
}
