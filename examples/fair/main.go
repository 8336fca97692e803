// Command fair tours Berth's fair scheduler on a small simulated cluster.
//
// An allocation file sets weighted queues and a DRF queue, the placement
// policy places the applications, and the tour prints the fair shares and
// usage of every leaf as the host's clock advances and nodes heartbeat.
//
//	go run ./examples/fair
package main

import (
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/fair"
	"github.com/berthsched/berth/queue"
)

const allocations = `<?xml version="1.0"?>
<allocations>
  <queue name="root">
    <schedulingPolicy>drf</schedulingPolicy>
    <queue name="prod">
      <weight>3</weight>
      <minResources>8192 mb, 8 vcores</minResources>
      <schedulingPolicy>fair</schedulingPolicy>
    </queue>
    <queue name="analytics" type="parent">
      <weight>2</weight>
      <schedulingPolicy>drf</schedulingPolicy>
    </queue>
    <queue name="adhoc">
      <weight>1</weight>
      <maxRunningApps>1</maxRunningApps>
      <schedulingPolicy>fifo</schedulingPolicy>
    </queue>
  </queue>
  <queuePlacementPolicy>
    <rule name="specified" create="false"/>
    <rule name="nestedUserQueue"><rule name="primaryGroup" create="false"/></rule>
    <rule name="default" queue="adhoc"/>
  </queuePlacementPolicy>
</allocations>`

// ending is a running container and when it finishes.
type ending struct {
	id fair.ContainerID
	at berth.Time
}

// job is an application the host submits at a time.
type job struct {
	at             berth.Time
	id, user, want string
	mem, vcores    int64
	count          int
}

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(w io.Writer) error {
	// The report lists what the file says that Berth does not read
	// (misspelt elements, with the name they were probably meant to be).
	af, report, err := fair.ParseAllocationFileReport([]byte(allocations), fair.ParseOptions{})
	if err != nil {
		return err
	}
	if len(report.Notes) == 0 {
		fmt.Fprintln(w, "allocation file: every element understood")
	}
	for _, n := range report.Notes {
		fmt.Fprintln(w, "allocation file:", n)
	}
	cfg := fair.DefaultConfig()
	cfg.AssignMultiple = true
	cfg.Groups = queue.StaticGroups{"alice": {"analytics"}, "bob": {"analytics"}, "carol": {"eng"}, "dave": {"ops"}}
	clock := berth.NewManualClock(0)
	cfg.Allocation = af
	cfg.Clock = clock
	s, err := fair.New(cfg)
	if err != nil {
		return err
	}
	for i := range 4 {
		if err := s.AddNode(fair.NodeSpec{ID: fmt.Sprintf("node%d", i+1), Rack: "/rack1", Capability: berth.New(16384, 16)}); err != nil {
			return err
		}
	}
	jobs := []job{
		{0, "etl", "svc", "prod", 2048, 1, 400},
		{1000, "report-alice", "alice", "default", 1024, 4, 400}, // → root.analytics.alice
		{2000, "report-bob", "bob", "default", 1024, 4, 400},     // → root.analytics.bob
		{3000, "notebook", "carol", "default", 1024, 1, 400},     // → root.adhoc
		{3000, "scratch", "dave", "default", 1024, 1, 400},       // waits: adhoc runs one app
	}
	// Containers run for runFor ms; the host reports them finished on
	// their node's next heartbeat.
	const runFor = 2000
	ends := map[string][]ending{}
	next := 0
	for t := berth.Time(0); t <= 12000; t += 500 {
		clock.Set(t)
		for ; next < len(jobs) && jobs[next].at <= t; next++ {
			j := jobs[next]
			q, err := s.SubmitApp(fair.AppSpec{ID: j.id, Queue: j.want, User: j.user})
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "t=%d %s (user %s) placed in %s\n", t, j.id, j.user, q)
			ask := fair.Ask{Priority: 1, ResourceName: fair.AnyResource, Capability: berth.New(j.mem, j.vcores), Count: j.count}
			if _, err := s.Allocate(j.id, []fair.Ask{ask}, nil); err != nil {
				return err
			}
		}
		if t == 7000 {
			if _, err := s.FinishApp("notebook"); err != nil {
				return err
			}
			fmt.Fprintf(w, "t=%d notebook finishes; scratch may run\n", t)
		}
		for i := range 4 {
			id := fmt.Sprintf("node%d", i+1)
			var done []fair.ContainerID
			kept := ends[id][:0]
			for _, e := range ends[id] {
				if e.at <= t {
					done = append(done, e.id)
				} else {
					kept = append(kept, e)
				}
			}
			ends[id] = kept
			als, err := s.Heartbeat(id, done)
			if err != nil {
				return err
			}
			for _, al := range als {
				ends[id] = append(ends[id], ending{al.ID, t + runFor})
			}
		}
		if t%2000 == 0 {
			s.Update()
			printShares(w, s.Snapshot())
		}
	}
	return nil
}

func printShares(w io.Writer, sn *fair.Snapshot) {
	fmt.Fprintf(w, "t=%d\n    %-22s %-6s %-18s %-18s %s\n", sn.Time, "queue", "policy", "fair share MB/vc", "usage MB/vc", "run+wait")
	var leaves []fair.QueueInfo
	for _, q := range sn.Queues {
		if q.Leaf && (q.NumRunnable > 0 || q.NumPending > 0 || !q.Usage.IsZero()) {
			leaves = append(leaves, q)
		}
	}
	sort.Slice(leaves, func(i, j int) bool { return leaves[i].Path < leaves[j].Path })
	for _, q := range leaves {
		fmt.Fprintf(w, "    %-22s %-6s %-18s %-18s %d+%d\n", q.Path, q.Policy,
			fmt.Sprintf("%d/%d", q.FairShare.Memory, q.FairShare.VCores), fmt.Sprintf("%d/%d", q.Usage.Memory, q.Usage.VCores), q.NumRunnable, q.NumPending)
	}
}
