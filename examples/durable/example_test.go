package durable_test

import (
	"fmt"
	"os"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/examples/durable"
	"github.com/berthsched/berth/examples/durable/journal"
	"github.com/berthsched/berth/queue"
)

// A host journals its calls, crashes, and recovers exactly where it was:
// the recovered cluster holds the node, the application and its
// container, and decides the next heartbeat as the first would have.
func Example() {
	dir, err := os.MkdirTemp("", "berth-durable")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	cfg, err := durable.DemoConfig(durable.Capacity)
	if err != nil {
		panic(err)
	}
	opts := journal.Options{Sync: journal.SyncAlways, SegmentBytes: 1 << 20} // small segments for the example
	st, err := durable.Open(dir, cfg, opts)
	if err != nil {
		panic(err)
	}
	cmds := []durable.Command{
		durable.AddNode{Node: queue.NodeSpec{ID: "n1", Rack: "/r1", Capability: berth.New(8192, 8)}},
		durable.SubmitApp{Spec: queue.AppSpec{ID: "app1", Queue: "a", User: "alice", AMResource: berth.New(1024, 1)}},
		durable.AdvanceClock{To: 1000},
		durable.Heartbeat{Node: "n1"},
		durable.Allocate{App: "app1", Asks: []queue.Ask{{Priority: 1, ResourceName: queue.AnyResource, Capability: berth.New(2048, 1), Count: 2}}},
	}
	for _, c := range cmds {
		r, err := st.Apply(c)
		if err != nil {
			panic(err)
		}
		for _, a := range r.Allocations {
			fmt.Printf("command %d: container %d for %s on %s\n", r.Seq, a.ID, a.App, a.Node)
		}
	}
	st.Close() // or a crash: every command was synced when Apply returned

	st, err = durable.Open(dir, cfg, opts)
	if err != nil {
		panic(err)
	}
	defer st.Close()
	fmt.Printf("recovered %d commands at time %d\n", st.Cluster().Seq(), st.Cluster().Now())
	r, err := st.Apply(durable.Heartbeat{Node: "n1"})
	if err != nil {
		panic(err)
	}
	fmt.Printf("next heartbeat: %d containers\n", len(r.Allocations)) // one off-switch container per heartbeat, as YARN
	// Output:
	// command 4: container 1 for app1 on n1
	// recovered 5 commands at time 1000
	// next heartbeat: 1 containers
}
