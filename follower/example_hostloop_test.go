package follower_test

import (
	"fmt"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/agent"
	"github.com/berthsched/berth/capacity"
	"github.com/berthsched/berth/follower"
	"github.com/berthsched/berth/plan"
)

// A host's loop, on its own clock, each tick in this order:
//
//  1. node events (AddNode, RemoveNode): the cluster the follower sizes
//     plans by;
//  2. the plan follower, once a plan step has passed (Run): plans take the
//     plan queue's resources, reservations now active get their queues,
//     ended ones lose theirs;
//  3. reservation requests (System.Submit, Update, Delete): a reservation
//     that arrives within one plan step is published at once through
//     SystemConfig.Publish, as YARN's ClientRMService does, so its queue
//     exists when Submit returns;
//  4. applications and their asks (SubmitApp with the reservation's id,
//     Allocate);
//  5. node heartbeats, which hand out containers;
//  6. preemption rounds, when configured (the fair scheduler's Update
//     first).
//
// Every call that ends containers (RemoveNode, the follower's kills, a
// preemption round) returns them, and the host stops them; the kills of a
// publication made by System.Submit come with the follower's next Run (or
// at once from TakePublished). Here the application is accepted in the
// tick its reservation is; when the reservation ends its application
// moves to the plan's default queue.
func Example_hostLoop() {
	clock := berth.NewManualClock(0)
	cfg := capacity.DefaultConfig()
	dedicated := capacity.Queue("dedicated", 50)
	dedicated.Reservable = true
	cfg.Root.Children = []capacity.QueueConfig{capacity.Queue("default", 50), dedicated}
	cfg.MaxOffSwitchAssignments = 8
	cfg.Clock = clock
	cs, err := capacity.New(cfg)
	if err != nil {
		panic(err)
	}
	if err := cs.AddNode(capacity.NodeSpec{ID: "n1", Rack: "/r1", Capability: berth.New(16*1024, 16)}); err != nil {
		panic(err)
	}

	// The plan of the reservable queue, with YARN's default agent.
	capa, err := cs.PlanResources("dedicated")
	if err != nil {
		panic(err)
	}
	pcfg := plan.DefaultConfig("dedicated", capa, clock)
	if pcfg.Agent, err = agent.NewAlignedPlannerWithGreedy(agent.DefaultConfig()); err != nil {
		panic(err)
	}
	p, err := plan.New(pcfg)
	if err != nil {
		panic(err)
	}

	stop := func(ended []follower.Ended) {
		for _, e := range ended {
			fmt.Printf("  stop container %d of %s\n", e.ID, e.App)
		}
	}
	// The follower publishes what the system accepts at once (Publish);
	// it keeps what those publications did for its next Run, which hands
	// it over first, so the loop below handles every kill in one place.
	f, err := follower.New(follower.Config{Scheduler: cs})
	if err != nil {
		panic(err)
	}
	sys, err := plan.NewSystem(plan.SystemConfig{ClusterTimestamp: 1, Clock: clock, Publish: f.Publish})
	if err != nil {
		panic(err)
	}
	if err := sys.AddPlan(p); err != nil {
		panic(err)
	}
	f.SetPlans(sys)

	id := sys.NewReservationID()
	for now := berth.Time(0); now <= 3000; now += 1000 {
		clock.Set(now)
		fmt.Printf("t=%d\n", now)
		// 1. No node events in this run.
		// 2. The follower, every plan step (1 s).
		results, err := f.Run(now)
		if err != nil {
			fmt.Println("  follower:", err)
		}
		for _, r := range results { // the publications since the last run first
			if len(r.Created)+len(r.Removed)+len(r.Moved) > 0 {
				fmt.Printf("  follower at t=%d: created %v, removed %v, moved %d apps\n", r.Now, r.Created, r.Removed, len(r.Moved))
			}
			stop(r.Ended)
		}
		if now == 0 {
			// 3. A reservation for four containers during two seconds.
			def := plan.Definition{Arrival: now, Deadline: now + 2000, Stages: []plan.Stage{
				{Capability: berth.New(1024, 1), Containers: 4, Concurrency: 4, Duration: 2000}}}
			if err := sys.Submit(plan.SubmissionRequest{Queue: "dedicated", ID: id, User: "alice", Definition: &def}); err != nil {
				panic(err)
			}
			fmt.Println("  reserved", id)
			// 4. Its application, in the same tick.
			q, err := cs.SubmitApp(capacity.AppSpec{ID: "app_1", Queue: "dedicated", User: "alice", ReservationID: id.String()})
			if err != nil {
				panic(err)
			}
			fmt.Println("  app_1 runs in", q)
			ask := capacity.Ask{Priority: 1, ResourceName: capacity.AnyResource, Capability: berth.New(1024, 1), Count: 4}
			if _, err := cs.Allocate("app_1", []capacity.Ask{ask}, nil); err != nil {
				panic(err)
			}
		}
		// 5. Heartbeats.
		al, err := cs.Heartbeat("n1", nil)
		if err != nil {
			panic(err)
		}
		if len(al) > 0 {
			fmt.Printf("  n1 starts %d containers in %s\n", len(al), al[0].Queue)
		}
		// 6. No preemption configured.
	}
	// Output:
	// t=0
	//   reserved reservation_1_0001
	//   app_1 runs in root.dedicated.reservation_1_0001
	//   n1 starts 4 containers in root.dedicated.reservation_1_0001
	// t=1000
	//   follower at t=0: created [reservation_1_0001], removed [], moved 0 apps
	// t=2000
	//   follower at t=2000: created [], removed [reservation_1_0001], moved 1 apps
	// t=3000
}
