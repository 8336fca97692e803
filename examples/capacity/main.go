// Command capacity runs the capacity scheduler on a small simulated cluster.
//
// It has four nodes on two racks and three queues (prod 50%, dev 30% with
// a 60% ceiling, batch 20%) read from a capacity-scheduler.xml, whose
// report it prints first with the placement its queue mappings give; then
// applications arrive and finish over time while nodes heartbeat every
// second on a manual clock. Every ten seconds it prints how much each queue
// holds.
//
//	go run ./examples/capacity
package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

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

// schedulerXML is the cluster's capacity-scheduler.xml: the three queues,
// a queue mapping, and two lines Berth does not act on (fail-fast, which
// matters only to recovery, and a misspelt key), which the parser's
// report names.
const schedulerXML = `<configuration>
  <property><name>yarn.scheduler.capacity.root.queues</name><value>prod,dev,batch</value></property>
  <property><name>yarn.scheduler.capacity.root.prod.capacity</name><value>50</value></property>
  <property><name>yarn.scheduler.capacity.root.dev.capacity</name><value>30</value></property>
  <property><name>yarn.scheduler.capacity.root.dev.maximum-capacity</name><value>60</value></property>
  <property><name>yarn.scheduler.capacity.root.dev.user-limit-factor</name><value>2</value></property>
  <property><name>yarn.scheduler.capacity.root.batch.capacity</name><value>20</value></property>
  <property><name>yarn.scheduler.capacity.per-node-heartbeat.maximum-offswitch-assignments</name><value>4</value></property>
  <property><name>yarn.scheduler.capacity.queue-mappings</name><value>u:alice:prod,g:analysts:dev</value></property>
  <property><name>yarn.scheduler.capacity.application.fail-fast</name><value>true</value></property>
  <property><name>yarn.scheduler.capacity.root.batch.maximum-capacty</name><value>40</value></property>
</configuration>`

func run(w io.Writer) error {
	cfg, report, err := capacity.ParseXMLReport(strings.NewReader(schedulerXML), capacity.XMLOptions{})
	if err != nil {
		return err
	}
	for _, n := range report.Notes {
		fmt.Fprintln(w, "capacity-scheduler.xml:", n)
	}
	// The host knows its users' groups (a g: mapping rejects a user who
	// has none, as YARN's group service does).
	cfg.Groups = queue.StaticGroups{"alice": {"staff"}, "bob": {"analysts"}, "carol": {"staff"}, "dan": {"staff"}}
	clock := berth.NewManualClock(0)
	cfg.Clock = clock
	s, err := capacity.New(cfg)
	if err != nil {
		return err
	}
	if err := printPlacements(w, s); err != nil {
		return err
	}
	sim := &simulation{w: w, s: s, jobs: []job{
		{"batch-1", "batch", "carol", 0, 40, 2048, 30000},
		{"dev-1", "dev", "bob", 5000, 30, 1024, 20000},
		{"prod-1", "prod", "alice", 15000, 24, 2048, 25000},
		{"prod-2", "prod", "dan", 20000, 10, 4096, 15000},
	}, ends: map[capacity.ContainerID]berth.Time{}}
	if err := sim.addNodes(); err != nil {
		return err
	}
	fmt.Fprintln(w, "time  prod(MB) dev(MB) batch(MB)  containers")
	for now := berth.Time(0); now <= 60000; now = clock.Advance(1000) {
		if err := sim.arrive(now); err != nil {
			return err
		}
		if err := sim.heartbeats(now); err != nil {
			return err
		}
		if now%10000 == 0 {
			sim.print(now)
		}
	}
	return nil
}

// printPlacements shows where the queue mappings put submissions to
// "default".
func printPlacements(w io.Writer, s *capacity.Scheduler) error {
	for _, user := range []string{"alice", "bob"} {
		q, err := s.Place(capacity.AppSpec{ID: "probe", User: user, Queue: "default"})
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "%s's applications to \"default\" run in %s\n", user, q)
	}
	return nil
}

// simulation is the host's side of the run: the nodes it heartbeats, the
// jobs it submits and when each running container completes.
type simulation struct {
	w     io.Writer
	s     *capacity.Scheduler
	nodes []string
	jobs  []job
	ends  map[capacity.ContainerID]berth.Time // when each running container completes
}

// addNodes adds four nodes of 16 GB and 16 vcores on two racks.
func (sim *simulation) addNodes() error {
	for i := 0; i < 4; i++ {
		id := fmt.Sprintf("node%d", i)
		if err := sim.s.AddNode(capacity.NodeSpec{ID: id, Rack: fmt.Sprintf("/rack%d", i%2), Capability: berth.New(16384, 16)}); err != nil {
			return err
		}
		sim.nodes = append(sim.nodes, id)
	}
	return nil
}

// arrive submits the jobs that arrive now, each with its ask.
func (sim *simulation) arrive(now berth.Time) error {
	for _, j := range sim.jobs {
		if j.arrive == now {
			if _, err := sim.s.SubmitApp(capacity.AppSpec{ID: j.id, Queue: j.queue, User: j.user}); err != nil {
				return err
			}
			ask := capacity.Ask{Priority: 1, ResourceName: capacity.AnyResource, Capability: berth.New(j.mem, 1), Count: j.containers}
			if _, err := sim.s.Allocate(j.id, []capacity.Ask{ask}, nil); err != nil {
				return err
			}
		}
	}
	return nil
}

// heartbeats sends every node's heartbeat with the containers completed by
// now, and times the containers it allocates.
func (sim *simulation) heartbeats(now berth.Time) error {
	for _, n := range sim.nodes {
		var done []capacity.ContainerID
		for id, end := range sim.ends {
			if end <= now {
				done = append(done, id)
			}
		}
		slices.Sort(done) // map order is random; keep the run reproducible
		al, err := sim.s.Heartbeat(n, done)
		if err != nil {
			return err
		}
		for _, a := range al {
			for _, j := range sim.jobs {
				if j.id == a.App {
					sim.ends[a.ID] = now + j.runFor
				}
			}
		}
	}
	for id, end := range sim.ends {
		if end <= now {
			delete(sim.ends, id) // reported to every node; the owner released it
		}
	}
	return nil
}

// print prints how much memory each queue holds and the containers
// running.
func (sim *simulation) print(now berth.Time) {
	snap := sim.s.Snapshot()
	used := func(p string) int64 {
		path, _ := queue.ParsePath(p)
		return snap.Queues.Get(path).Extra.Used.Memory
	}
	fmt.Fprintf(sim.w, "%3ds  %8d %7d %9d  %10d\n", now/1000, used("root.prod"), used("root.dev"), used("root.batch"), len(snap.Containers))
}
