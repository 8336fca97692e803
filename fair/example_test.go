package fair_test

import (
	"fmt"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/fair"
)

// Two queues weighted 3:1 share a 16 GB node; each application asks for
// more than the node holds.
func Example() {
	af, err := fair.ParseAllocationFile([]byte(`<allocations>
  <queue name="prod"><weight>3</weight></queue>
  <queue name="dev"><weight>1</weight><schedulingPolicy>drf</schedulingPolicy></queue>
  <defaultQueueSchedulingPolicy>drf</defaultQueueSchedulingPolicy>
</allocations>`), fair.ParseOptions{})
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
	_ = s.AddNode(fair.NodeSpec{ID: "n1", Capability: berth.New(16384, 16)})
	for _, q := range []string{"prod", "dev"} {
		id := "app-" + q
		_, _ = s.SubmitApp(fair.AppSpec{ID: id, Queue: q, User: "alice"})
		_, _ = s.Allocate(id, []fair.Ask{{Priority: 1, ResourceName: fair.AnyResource, Capability: berth.New(1024, 1), Count: 16}}, nil)
	}
	for range 16 {
		_, _ = s.Heartbeat("n1", nil)
	}
	s.Update()
	sn := s.Snapshot()
	for _, p := range []string{"root.prod", "root.dev"} {
		q := sn.Queue(p)
		fmt.Printf("%-9s fair share %5d MB, using %5d MB\n", p, q.FairShare.Memory, q.Usage.Memory)
	}
	// Output:
	// root.prod fair share 12288 MB, using 12288 MB
	// root.dev  fair share  4096 MB, using  4096 MB
}

// ComputeShares is YARN's ComputeFairShares on one resource type.
func ExampleComputeShares() {
	in := []fair.ShareEntry{
		{Weight: 2, Min: 0, Max: 10},
		{Weight: 1, Min: 0, Max: 11},
		{Weight: 1, Min: 0, Max: 30},
		{Weight: 0.5, Min: 0, Max: 20},
	}
	out := make([]int64, len(in))
	fair.ComputeShares(in, 45, false, out)
	fmt.Println(out)
	// Output: [10 11 16 8]
}

// A placement policy sends applications to queues named after the user,
// nested under the user's primary group.
func ExamplePlacementPolicy_Place() {
	af, _ := fair.ParseAllocationFile([]byte(`<allocations><queuePlacementPolicy>
  <rule name="specified" create="false"/>
  <rule name="nestedUserQueue"><rule name="primaryGroup"/></rule>
</queuePlacementPolicy></allocations>`), fair.ParseOptions{})
	groups := staticGroups{"alice": {"analytics"}}
	q, _ := af.Placement.Place("default", "alice", groups, noQueues{})
	fmt.Println(q)
	// Output: root.analytics.alice
}

type staticGroups map[string][]string

func (g staticGroups) GroupsOf(u string) []string { return g[u] }

type noQueues struct{}

func (noQueues) LookupQueue(string) (bool, bool, bool) { return false, false, false }

// The allocation file's report names what YARN's parser would silently
// skip: here a misspelt weight, which leaves the queue at weight 1.
func ExampleParseAllocationFileReport() {
	af, report, err := fair.ParseAllocationFileReport([]byte(`<allocations>
  <queue name="analytics"><wieght>3</wieght></queue>
</allocations>`), fair.ParseOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(report)
	fmt.Println("weight:", af.Settings("root.analytics").Weight)
	// Output:
	// unknown key queue[root.analytics].wieght (did you mean queue[root.analytics].weight?)
	// weight: 1
}
