package capacity_test

import (
	"cmp"
	"fmt"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/capacity"
)

// ShortestJobFirst is a host's application ordering for a leaf: the
// application with the least outstanding memory goes first, so small jobs
// finish before a large one starts hogging the queue.
type ShortestJobFirst struct{}

func (ShortestJobFirst) Name() string { return "sjf" }

func (ShortestJobFirst) Compare(a, b capacity.AppView) int {
	return cmp.Compare(a.Pending().Memory, b.Pending().Memory)
}

// AppSortKey is the fast path: the same order as a key, re-computed when
// the pending demand changes (UsageInKey).
func (ShortestJobFirst) AppSortKey(a capacity.AppView) (capacity.AppSortKey, bool) {
	return capacity.AppSortKey{Major: [3]float64{float64(a.Pending().Memory)}}, true
}

func (ShortestJobFirst) UsageInKey() bool { return true }

// A leaf ordered shortest-job-first: the small job submitted after a big
// one is served first.
func ExampleAppOrderingPolicy() {
	cfg := capacity.DefaultConfig()
	jobs := capacity.Queue("jobs", 100)
	jobs.Settings.AppOrderingPolicy = ShortestJobFirst{}
	cfg.Root.Children = []capacity.QueueConfig{jobs}
	clock := berth.NewManualClock(0)
	cfg.Clock = clock
	s, err := capacity.New(cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, job := range []struct {
		id string
		n  int
	}{{"big", 8}, {"small", 1}} {
		if _, err := s.SubmitApp(capacity.AppSpec{ID: job.id, Queue: "jobs", User: "alice"}); err != nil {
			fmt.Println(err)
			return
		}
		ask := capacity.Ask{Priority: 1, ResourceName: capacity.AnyResource, Capability: berth.New(1024, 1), Count: job.n}
		if _, err := s.Allocate(job.id, []capacity.Ask{ask}, nil); err != nil {
			fmt.Println(err)
			return
		}
	}
	if err := s.AddNode(capacity.NodeSpec{ID: "n1", Rack: "/r1", Capability: berth.New(2048, 2)}); err != nil {
		fmt.Println(err)
		return
	}
	for range 2 {
		clock.Advance(1000)
		al, err := s.Heartbeat("n1", nil)
		if err != nil {
			fmt.Println(err)
			return
		}
		for _, a := range al {
			fmt.Println(a.App)
		}
	}
	// Output:
	// small
	// big
}
