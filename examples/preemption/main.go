// Command preemption recovers a starving queue with YARN's proportional
// preemption policy.
//
// It runs the capacity scheduler's policy first. One capacity-scheduler.xml
// configures both the scheduler and the policy. Queue etl fills the
// cluster while analytics is idle; when analytics submits, the host loop
// (heartbeats every second, a preemption round every monitoring interval,
// on a manual clock) marks etl's newest containers, kills them after the
// kill wait, and analytics takes the room, until it holds its guarantee.
// Every round's decisions are printed. The same story then runs on the fair
// scheduler, recovered by preempt.FairPreemptor (runFair).
//
//	go run ./examples/preemption
package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/capacity"
	"github.com/berthsched/berth/preempt"
	"github.com/berthsched/berth/queue"
)

// conf is the cluster's capacity-scheduler.xml: the queues, and the
// preemption monitor's settings (the rest keep YARN's defaults).
const conf = `<?xml version="1.0"?>
<configuration>
  <property><name>yarn.scheduler.capacity.root.queues</name><value>etl,analytics</value></property>
  <property><name>yarn.scheduler.capacity.root.etl.capacity</name><value>60</value></property>
  <property><name>yarn.scheduler.capacity.root.etl.user-limit-factor</name><value>2</value></property>
  <property><name>yarn.scheduler.capacity.root.analytics.capacity</name><value>40</value></property>
  <property><name>yarn.resourcemanager.monitor.capacity.preemption.monitoring_interval</name><value>3000</value></property>
  <property><name>yarn.resourcemanager.monitor.capacity.preemption.max_wait_before_kill</name><value>6000</value></property>
  <property><name>yarn.resourcemanager.monitor.capacity.preemption.total_preemption_per_round</name><value>0.25</value></property>
  <property><name>yarn.resourcemanager.monitor.capacity.preemption.natural_termination_factor</name><value>0.5</value></property>
  <property><name>yarn.resourcemanager.monitor.capacity.preemption.max_ignored_over_capacity</name><value>0.02</value></property>
</configuration>`

func main() {
	err := run(os.Stdout)
	if err == nil {
		fmt.Println("\nThe same with the fair scheduler's starvation preemption:")
		err = runFair(os.Stdout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

const gb = 1024

func run(w io.Writer) error {
	cfg, err := capacity.ParseXML(strings.NewReader(conf))
	if err != nil {
		return err
	}
	pcfg, err := preempt.ParseProportionalXML(strings.NewReader(conf))
	if err != nil {
		return err
	}
	clock := berth.NewManualClock(0)
	cfg.Clock = clock
	s, err := capacity.New(cfg)
	if err != nil {
		return err
	}
	c, err := newCluster(s, 5) // 5 × 8 GB: analytics is guaranteed 16 GB
	if err != nil {
		return err
	}
	// etl's two jobs take the whole cluster (with their AMs, 40 GB).
	if err := submit(s, "etl-1", "etl", "etl", 19); err != nil {
		return err
	}
	if err := submit(s, "etl-2", "etl", "etl", 19); err != nil {
		return err
	}
	for clock.Now() < 10000 {
		clock.Advance(1000)
		if _, err := c.beat(); err != nil {
			return err
		}
	}
	fmt.Fprintf(w, "t=%ds etl holds %d GB, analytics %d GB; analytics asks for 20 GB\n",
		clock.Now()/1000, used(s, "root.etl")/gb, used(s, "root.analytics")/gb)
	if err := submit(s, "report", "analytics", "ana", 19); err != nil {
		return err
	}
	p, err := preempt.NewProportional(preempt.ProportionalSetup{State: s, Actor: s, Config: pcfg})
	if err != nil {
		return err
	}
	for round := 1; round <= 40; round++ {
		rep, err := p.Round(clock.Now())
		if err != nil {
			return err
		}
		printRound(w, round, clock.Now(), rep, s)
		if used(s, "root.analytics") >= 16*gb {
			fmt.Fprintf(w, "analytics holds its guarantee (16 GB) after %d rounds\n", round)
			return nil
		}
		for i := 0; i < 3; i++ { // heartbeats until the next round
			clock.Advance(1000)
			if _, err := c.beat(); err != nil {
				return err
			}
		}
	}
	return fmt.Errorf("analytics did not reach its guarantee")
}

// scheduler is what the host loop needs of either scheduler to run its
// nodes.
type scheduler interface {
	AddNode(n queue.NodeSpec) error
	Heartbeat(nodeID string, completed []queue.ContainerID) ([]queue.Allocation, error)
}

// cluster is the example's nodes, all on one rack, and the scheduler they
// heartbeat to.
type cluster struct {
	s     scheduler
	nodes []string
}

// newCluster adds n nodes of 8 GB and 8 vcores to s.
func newCluster(s scheduler, n int) (*cluster, error) {
	c := &cluster{s: s}
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("node%d", i)
		if err := s.AddNode(queue.NodeSpec{ID: id, Rack: "/rack0", Capability: berth.New(8*gb, 8)}); err != nil {
			return nil, err
		}
		c.nodes = append(c.nodes, id)
	}
	return c, nil
}

// beat sends one heartbeat of every node and returns how many containers
// they were given.
func (c *cluster) beat() (int, error) {
	n := 0
	for _, id := range c.nodes {
		als, err := c.s.Heartbeat(id, nil)
		if err != nil {
			return n, err
		}
		n += len(als)
	}
	return n, nil
}

// submit submits an application that asks for n containers of 1 GB.
func submit(s *capacity.Scheduler, id, q, user string, n int) error {
	one := berth.New(gb, 1)
	if _, err := s.SubmitApp(capacity.AppSpec{ID: id, Queue: q, User: user, AMResource: one}); err != nil {
		return err
	}
	_, err := s.Allocate(id, []capacity.Ask{{Priority: 1, ResourceName: capacity.AnyResource, Capability: one, Count: n}}, nil)
	return err
}

// printRound prints what a preemption round found and decided: etl's
// usage, ideal and what is to be obtained from it, then the containers
// marked, waiting and killed.
func printRound(w io.Writer, round int, now berth.Time, rep *preempt.ProportionalReport, s *capacity.Scheduler) {
	q := rep.Queue("root.etl")
	fmt.Fprintf(w, "round %2d t=%3ds etl %2d GB (ideal %2d, asked %.1f GB), analytics %2d GB:", round, now/1000,
		q.Used.Memory/gb, q.Ideal.Memory/gb, float64(q.ToObtain.Memory)/gb, used(s, "root.analytics")/gb)
	counts := map[preempt.Action][]string{}
	for _, d := range rep.Decisions {
		counts[d.Action] = append(counts[d.Action], fmt.Sprintf("%s/%d", d.App, d.ID))
	}
	if len(rep.Decisions) == 0 {
		fmt.Fprint(w, " nothing to do")
	}
	for _, a := range []preempt.Action{preempt.Marked, preempt.Waiting, preempt.Killed} {
		if len(counts[a]) > 0 {
			fmt.Fprintf(w, " %s %s", a, strings.Join(counts[a], " "))
		}
	}
	fmt.Fprintln(w)
}

func used(s *capacity.Scheduler, path string) int64 {
	for _, q := range s.Snapshot().Queues.Queues {
		if q.Path.String() == path {
			return q.Extra.Used.Memory
		}
	}
	return 0
}
