package capacity

import (
	"fmt"
	"testing"

	"github.com/berthsched/berth"
)

// idleQueuesWorld is a plan queue (child ordering child) whose one busy
// reservation queue, created last, holds an application that always has pending asks,
// beside idle reservation queues without applications or capacity (as a
// plan keeps its finished reservations' queues until they are archived, a
// day under the default policy), on eight nodes that the busy application
// fills and a spare node it may not use. It returns the ids of the eight
// nodes and the containers placed on each.
func idleQueuesWorld(tb testing.TB, child ChildOrdering, idle int) (*Scheduler, []string, [][]ContainerID) {
	cfg := DefaultConfig()
	cfg.MaxOffSwitchAssignments = 1 << 30
	plan := Queue("plan", 100)
	plan.Reservable = true
	plan.Settings.ChildOrdering = child
	plan.Settings.UserLimitFactor = 1e6 // the user limit of a zero guarantee is a multiple of the minimum allocation
	cfg.Root.Children = []QueueConfig{plan}
	cfg.Clock = berth.NewManualClock(0)
	s, err := New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	ids := make([]string, 8)
	for i := range ids {
		ids[i] = fmt.Sprintf("n%d", i)
	}
	for _, id := range append(ids, "spare") {
		if err := s.AddNode(NodeSpec{ID: id, Rack: "/r", Capability: berth.New(64*1024, 64)}); err != nil {
			tb.Fatal(err)
		}
	}
	for i := range idle {
		if err := s.AddReservationQueue("plan", fmt.Sprintf("idle_%05d", i)); err != nil {
			tb.Fatal(err)
		}
	}
	if err := s.AddReservationQueue("plan", "busy"); err != nil {
		tb.Fatal(err)
	}
	// Every queue of the plan has a zero guarantee (the plan is fully
	// booked by reservations that have ended, whose queues the follower
	// set to zero): the busy queue, using something, comes after the idle
	// ones in both orderings.
	// Its maximum is the eight nodes it fills: a ninth, spare node is
	// offered to every queue and taken by none.
	if err := s.SetEntitlement("plan-default", Entitlement{Capacity: 0, MaxCapacity: 1}); err != nil {
		tb.Fatal(err)
	}
	if err := s.SetEntitlement("busy", Entitlement{Capacity: 0, MaxCapacity: 8.0 / 9}); err != nil {
		tb.Fatal(err)
	}
	if _, err := s.SubmitApp(AppSpec{ID: "app", Queue: "busy", User: "u"}); err != nil {
		tb.Fatal(err)
	}
	if _, err := s.Allocate("app", []Ask{{Priority: 1, ResourceName: AnyResource, Capability: berth.New(1024, 1), Count: 1 << 30}}, nil); err != nil {
		tb.Fatal(err)
	}
	held := make([][]ContainerID, len(ids))
	for i, id := range ids {
		for {
			als, err := s.Heartbeat(id, nil)
			if err != nil {
				tb.Fatal(err)
			}
			if len(als) == 0 {
				break
			}
			for _, al := range als {
				held[i] = append(held[i], al.ID)
			}
		}
		if len(held[i]) != 64 {
			tb.Fatalf("node %s: %d containers placed, want 64", id, len(held[i]))
		}
	}
	if als, err := s.Heartbeat("spare", nil); err != nil || len(als) != 0 {
		tb.Fatalf("spare node: %d containers placed (%v), want none", len(als), err)
	}
	return s, ids, held
}

// BenchmarkHeartbeatByIdleQueues is the cost of one heartbeat as the
// number of idle reservation queues beside the busy one grows (10 to
// 10,000), under both child orderings: "assign" heartbeats release one
// container and place one, "spare" heartbeats come from the node the busy
// queue may not use (at its maximum capacity) and place nothing, after the
// walk offered the node to every queue with demand. Idle queues, using
// nothing, come first in both orderings, and can take nothing: the cost
// should not grow with them.
func BenchmarkHeartbeatByIdleQueues(b *testing.B) {
	for _, child := range []ChildOrdering{OrderUtilization, OrderPriorityUtilization} {
		for _, mode := range []string{"assign", "spare"} {
			for _, idle := range []int{10, 100, 1000, 10000} {
				b.Run(fmt.Sprintf("child=%s/%s/idle=%d", child, mode, idle), func(b *testing.B) {
					s, ids, held := idleQueuesWorld(b, child, idle)
					b.ReportAllocs()
					cpu0 := cpuTime()
					i := 0
					for b.Loop() {
						j := i % len(ids)
						id := "spare"
						var done []ContainerID
						if mode == "assign" {
							id = ids[j]
							done, held[j] = held[j][:1], held[j][1:]
						}
						als, err := s.Heartbeat(id, done)
						if err != nil {
							b.Fatal(err)
						}
						if want := len(done); len(als) != want {
							b.Fatalf("placed %d containers, want %d", len(als), want)
						}
						for _, al := range als {
							held[j] = append(held[j], al.ID)
						}
						i++
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/heartbeat")
					b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/heartbeat")
				})
			}
		}
	}
}
