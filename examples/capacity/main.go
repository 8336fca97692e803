// Command capacity runs the capacity scheduler on a small simulated
// cluster: four nodes on two racks, three queues (prod 50%, dev 30% with a
// 60% ceiling, batch 20%), applications arriving and finishing over time,
// and node heartbeats every second on a manual clock. Every ten seconds it
// prints how much each queue holds.
//
//	go run ./examples/capacity
package main

import (
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/capacity"
	"github.com/berthsched/berth/queue"
)

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// job is an application of the simulation: it arrives, asks for
// containers of one size, and each container runs for a fixed time.
type job struct {
	id, queue, user string
	arrive          berth.Time
	containers      int
	mem             int64
	runFor          berth.Duration
}

func run(w io.Writer) error {
	cfg := capacity.DefaultConfig()
	dev := capacity.Queue("dev", 30)
	dev.MaxCapacity = queue.Percent(60)
	dev.Settings.UserLimitFactor = 2
	cfg.Root.Children = []capacity.QueueConfig{capacity.Queue("prod", 50), dev, capacity.Queue("batch", 20)}
	cfg.MaxOffSwitchAssignments = 4
	clock := berth.NewManualClock(0)
	s, err := capacity.New(cfg, clock)
	if err != nil {
		return err
	}
	var nodes []string
	for i := 0; i < 4; i++ {
		id := fmt.Sprintf("node%d", i)
		if err := s.AddNode(capacity.NodeSpec{ID: id, Rack: fmt.Sprintf("/rack%d", i%2), Capability: berth.New(16384, 16)}); err != nil {
			return err
		}
		nodes = append(nodes, id)
	}
	jobs := []job{
		{"batch-1", "batch", "carol", 0, 40, 2048, 30000},
		{"dev-1", "dev", "bob", 5000, 30, 1024, 20000},
		{"prod-1", "prod", "alice", 15000, 24, 2048, 25000},
		{"prod-2", "prod", "dan", 20000, 10, 4096, 15000},
	}
	ends := map[capacity.ContainerID]berth.Time{} // when each running container completes
	fmt.Fprintln(w, "time  prod(MB) dev(MB) batch(MB)  containers")
	for now := berth.Time(0); now <= 60000; now = clock.Advance(1000) {
		for _, j := range jobs {
			if j.arrive == now {
				if _, err := s.SubmitApp(capacity.AppSpec{ID: j.id, Queue: j.queue, User: j.user}); err != nil {
					return err
				}
				ask := capacity.Ask{Priority: 1, ResourceName: capacity.AnyResource, Capability: berth.New(j.mem, 1), Count: j.containers}
				if _, err := s.Allocate(j.id, []capacity.Ask{ask}, nil); err != nil {
					return err
				}
			}
		}
		for _, n := range nodes {
			var done []capacity.ContainerID
			for id, end := range ends {
				if end <= now {
					done = append(done, id)
				}
			}
			slices.Sort(done) // map order is random; keep the run reproducible
			al, err := s.Heartbeat(n, done)
			if err != nil {
				return err
			}
			for _, a := range al {
				for _, j := range jobs {
					if j.id == a.App {
						ends[a.ID] = now + j.runFor
					}
				}
			}
		}
		for id, end := range ends {
			if end <= now {
				delete(ends, id) // reported to every node; the owner released it
			}
		}
		if now%10000 == 0 {
			snap := s.Snapshot()
			used := func(p string) int64 {
				path, _ := queue.ParsePath(p)
				return snap.Queues.Get(path).Extra.Used.Memory
			}
			fmt.Fprintf(w, "%3ds  %8d %7d %9d  %10d\n", now/1000, used("root.prod"), used("root.dev"), used("root.batch"), len(snap.Containers))
		}
	}
	return nil
}
