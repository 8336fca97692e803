package main

import (
	"fmt"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/examples/durable"
	"github.com/berthsched/berth/queue"
)

// A client opens a session, applies a command through the raft log and
// reads the leader's state once it has applied everything acknowledged.
func ExampleClient() {
	cfg, err := durable.DemoConfig(durable.Capacity)
	if err != nil {
		panic(err)
	}
	g, err := NewGroup(3, cfg)
	if err != nil {
		panic(err)
	}
	defer g.Shutdown()
	c, err := g.NewClient()
	if err != nil {
		panic(err)
	}
	r, callErr, err := c.Apply(durable.AddNode{Node: queue.NodeSpec{ID: "n1", Rack: "/r1", Capability: berth.New(8192, 8)}})
	fmt.Println("acknowledged as command", r.Seq, callErr, err)
	_ = g.Read(func(cl *durable.Cluster, l Ledger) error {
		fmt.Println("the leader has applied", cl.Seq(), "command; ledger:", l.Applied)
		return nil
	})
	// Output:
	// acknowledged as command 1 <nil> <nil>
	// the leader has applied 1 command; ledger: 1
}
