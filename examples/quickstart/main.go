// Command quickstart tours Berth, one capability at a time, in pipeline order.
//
// It opens on the worked example of YARN's reservation system (a queue of two
// containers holding three reservations), then each capability of the
// library in turn, and last the one call (package examples/rm) that builds
// them all from YARN's configuration files. Run it with:
//
//	go run ./examples/quickstart
package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/agent"
	"github.com/berthsched/berth/capacity"
	"github.com/berthsched/berth/fair"
	"github.com/berthsched/berth/follower"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/policy"
	"github.com/berthsched/berth/preempt"
	"github.com/berthsched/berth/queue"
	"github.com/berthsched/berth/rle"
)

// step is the plan's time step: one second, YARN's default.
const step berth.Duration = 1000

// container is the unit of the scenario: <1 GB, 1 vcore>.
var container = berth.New(1024, 1)

// t returns the i-th step boundary t_i of the scenario.
func t(i int64) berth.Time { return i * step }

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

// run prints every step of the tour to w.
func run(w io.Writer) error {
	for _, s := range []struct {
		title string
		fn    func(io.Writer) error
	}{
		{"1. The worked example: resources over time (packages rle, plan, agent)", stepSeries},
		{"2. Reservations: agents, sharing policies, the plan (packages agent, policy, plan)", stepReservations},
		{"3. Publishing a plan to the scheduler (package follower)", stepPlanFollower},
		{"4. The capacity scheduler (packages queue, capacity)", stepCapacity},
		{"5. The fair scheduler (package fair)", stepFair},
		{"6. Preemption: a starved queue takes back its guarantee, decided then applied (package preempt)", stepPreemption},
		{"7. Observing decisions: typed events as metrics (packages queue, capacity)", stepObserve},
		{"8. Durable state: save, restore, carry on identically (packages berth, capacity)", stepDurable},
		{"9. A better agent: more of the area asked than YARN's, against a bound (package agent)", stepAgents},
		{"10. One call: a ResourceManager from capacity-scheduler.xml and yarn-site.xml (package examples/rm)", stepRMCapacity},
		{"11. One call on the fair scheduler: fair-scheduler.xml and yarn-site.xml (package examples/rm)", stepRMFair},
		{"12. Node labels: a shared gpu partition, borrowed when idle (package capacity)", stepLabels},
		{"13. Why does an application wait? Explain and a dry-run heartbeat (package capacity)", stepExplain},
	} {
		fmt.Fprintf(w, "== %s\n\n", s.title)
		if err := s.fn(w); err != nil {
			return fmt.Errorf("%s: %w", s.title, err)
		}
		fmt.Fprintln(w)
	}
	return nil
}

// stepSeries builds the reservations of the worked example as one series:
// r2 holds 1 container on [t1,t2), r1 2 containers on [t2,t3), r0 1
// container on [t3,t4), on a queue of 2 containers.
func stepSeries(w io.Writer) error {
	capacity := container.MulInt(2)
	reservations := []struct {
		name       string
		iv         berth.Interval
		containers int64
	}{
		{"r2", berth.Interval{Start: t(1), End: t(2)}, 1},
		{"r1", berth.Interval{Start: t(2), End: t(3)}, 2},
		{"r0", berth.Interval{Start: t(3), End: t(4)}, 1},
	}
	series := rle.New()
	for _, r := range reservations {
		if err := series.Add(r.iv, container.MulInt(r.containers)); err != nil {
			return fmt.Errorf("add %s: %w", r.name, err)
		}
		fmt.Fprintf(w, "reserve %s: %d container(s) on %v\n", r.name, r.containers, r.iv)
	}
	fmt.Fprintf(w, "\nthe series has %d breakpoints:\n\n", series.Len())
	fmt.Fprintf(w, "%-14s %-28s %s\n", "interval", "committed", "free")
	for s := range series.Steps() {
		fmt.Fprintf(w, "%-14v %-28v %v\n", s.Interval, s.Value, capacity.Sub(s.Value))
	}
	fmt.Fprintln(w, "\ntimeline (# = committed container, . = free):")
	for i := int64(0); i < 5; i++ {
		used := series.At(t(i)).Memory / container.Memory
		free := capacity.Memory/container.Memory - used
		fmt.Fprintf(w, "  t%d %s%s\n", i, strings.Repeat("#", int(used)), strings.Repeat(".", int(free)))
	}

	// The same reservations in a plan, and the example's new request placed by
	// YARN 2.x's step-by-step greedy agent: 2 containers for 2 steps each,
	// anywhere in [t0, t5).
	p, err := plan.New(plan.DefaultConfig("dedicated", capacity, berth.NewManualClock(0)))
	if err != nil {
		return err
	}
	for i, r := range reservations {
		id := plan.ReservationID{ClusterTimestamp: 1, Sequence: int64(i + 1)}
		a, err := plan.NewAllocation(id, "user", plan.Definition{Arrival: r.iv.Start, Deadline: r.iv.End}, r.iv,
			[]plan.IntervalResource{{Interval: r.iv, Resource: container.MulInt(r.containers)}})
		if err == nil {
			err = p.AddReservation(a)
		}
		if err != nil {
			return fmt.Errorf("plan %s: %w", r.name, err)
		}
	}
	req := plan.Definition{Arrival: t(0), Deadline: t(5), Interpreter: plan.RAll,
		Stages: []plan.Stage{{Capability: container, Containers: 2, Concurrency: 1, Duration: 2 * step}}}
	id := plan.ReservationID{ClusterTimestamp: 1, Sequence: 4}
	if err := (&agent.LegacyGreedy{}).CreateReservation(p, id, "user", req); err != nil {
		return err
	}
	a, _ := p.Reservation(id)
	fmt.Fprintln(w, "\na new request (2 containers x 2 steps in [t0,t5)) lands on:")
	for _, e := range a.Intervals {
		fmt.Fprintf(w, "  [t%d, t%d) %v\n", e.Interval.Start/step, e.Interval.End/step, e.Resource)
	}
	return nil
}

// stepCapacity runs the capacity scheduler on two nodes and three queues
// (prod 60%, dev 20%, a reservable plan queue 20%): both applications ask
// for more than the cluster, and each heartbeat hands containers to the
// least used queue first (used over guarantee), so prod and dev share the
// idle plan capacity about 3:1. Then a reservation queue is added as the
// plan follower would, and applications are resolved by reservation id.
func stepCapacity(w io.Writer) error {
	cfg := capacity.DefaultConfig()
	planQ := capacity.Queue("plan", 20)
	planQ.Reservable = true
	cfg.Root.Children = []capacity.QueueConfig{capacity.Queue("prod", 60), capacity.Queue("dev", 20), planQ}
	cfg.MaxOffSwitchAssignments = 8 // assign-multiple: fill a node per heartbeat
	clock := berth.NewManualClock(0)
	cfg.Clock = clock
	s, err := capacity.New(cfg)
	if err != nil {
		return err
	}
	err = s.AddNodes(
		capacity.NodeSpec{ID: "n1", Rack: "/r1", Capability: berth.New(8192, 8)},
		capacity.NodeSpec{ID: "n2", Rack: "/r1", Capability: berth.New(8192, 8)})
	if err != nil {
		return err
	}
	for _, app := range []struct{ id, queue string }{{"etl", "prod"}, {"adhoc", "dev"}} {
		if _, err := s.SubmitApp(capacity.AppSpec{ID: app.id, Queue: app.queue, User: app.id}); err != nil {
			return err
		}
		ask := capacity.Ask{Priority: 1, ResourceName: capacity.AnyResource, Capability: container, Count: 16}
		if _, err := s.Allocate(app.id, []capacity.Ask{ask}, nil); err != nil {
			return err
		}
	}
	for _, n := range []string{"n1", "n2"} {
		clock.Advance(1000)
		al, err := s.Heartbeat(n, nil)
		if err != nil {
			return err
		}
		perQueue := map[string]int{}
		for _, a := range al {
			perQueue[a.Queue]++
		}
		fmt.Fprintf(w, "heartbeat %s at t=%d: %d containers to root.prod, %d to root.dev\n",
			n, clock.Now(), perQueue["root.prod"], perQueue["root.dev"])
	}
	for _, id := range []string{"etl", "adhoc"} {
		h, err := s.Headroom(id)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "headroom of %s: %v\n", id, h)
	}
	// Reservation queues: the plan follower adds one; an application names it.
	if err := s.AddReservationQueue("plan", "reservation_42"); err != nil {
		return err
	}
	q, err := s.SubmitApp(capacity.AppSpec{ID: "booked", Queue: "plan", User: "ann", ReservationID: "reservation_42"})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "app with reservation_42 runs in %s\n", q)
	q, err = s.SubmitApp(capacity.AppSpec{ID: "walk-in", Queue: "plan", User: "ann"})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "app without a reservation runs in %s\n", q)
	_, err = s.SubmitApp(capacity.AppSpec{ID: "late", Queue: "plan", User: "ann", ReservationID: "reservation_7"})
	fmt.Fprintf(w, "app with an inactive reservation is refused: %v\n", err)
	return nil
}

// fairAllocations is the fair scheduler's allocation file of the tour:
// weighted queues under a DRF root, and a placement policy that honours the
// named queue, then the user's primary group, then a queue per user.
const fairAllocations = `<allocations>
  <queue name="root"><schedulingPolicy>drf</schedulingPolicy>
    <queue name="prod"><weight>3</weight></queue>
    <queue name="research"><weight>1</weight><schedulingPolicy>drf</schedulingPolicy></queue>
  </queue>
  <queuePlacementPolicy>
    <rule name="specified" create="false"/>
    <rule name="primaryGroup" create="false"/>
    <rule name="user"/>
  </queuePlacementPolicy>
</allocations>`

// stepFair places three applications with the placement policy, heartbeats
// two nodes for a few seconds and prints each queue's fair share and usage.
func stepFair(w io.Writer) error {
	af, err := fair.ParseAllocationFile([]byte(fairAllocations), fair.ParseOptions{})
	if err != nil {
		return err
	}
	cfg := fair.DefaultConfig()
	cfg.AssignMultiple = true
	cfg.Groups = queue.StaticGroups{"ana": {"research"}, "bo": {"staff"}}
	clock := berth.NewManualClock(0)
	cfg.Allocation = af
	cfg.Clock = clock
	s, err := fair.New(cfg)
	if err != nil {
		return err
	}
	for _, id := range []string{"node1", "node2"} {
		if err := s.AddNode(fair.NodeSpec{ID: id, Capability: berth.New(16384, 16)}); err != nil {
			return err
		}
	}
	fmt.Fprintln(w, "placement:")
	for _, a := range []struct {
		id, user, queue string
		ask             berth.Resource
	}{
		{"etl", "svc", "prod", berth.New(2048, 1)}, // the specified queue
		{"train", "ana", "", berth.New(1024, 4)},   // primary group: root.research
		{"explore", "bo", "", berth.New(1024, 1)},  // a queue for the user, created
	} {
		q, err := s.SubmitApp(fair.AppSpec{ID: a.id, Queue: a.queue, User: a.user})
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "  %-8s user %-4s -> %s\n", a.id, a.user, q)
		ask := fair.Ask{Priority: 1, ResourceName: fair.AnyResource, Capability: a.ask, Count: 64}
		if _, err := s.Allocate(a.id, []fair.Ask{ask}, nil); err != nil {
			return err
		}
	}
	for range 4 {
		clock.Advance(1000)
		for _, id := range []string{"node1", "node2"} {
			if _, err := s.Heartbeat(id, nil); err != nil {
				return err
			}
		}
	}
	s.Update()
	sn := s.Snapshot()
	fmt.Fprintf(w, "shares of %v after 4 heartbeat rounds:\n", sn.Cluster)
	for _, p := range []string{"root.prod", "root.research", "root.bo"} {
		q := sn.Queue(p)
		fmt.Fprintf(w, "  %-13s weight %.0f  policy %-4s  fair share %-26v usage %v\n", p, q.Weight, q.Policy, q.FairShare, q.Usage)
	}
	return nil
}

// stepPlanFollower builds a capacity scheduler with a reservable queue
// (80% of 100 containers) and a plan with two reservations, then runs the
// plan follower at a few times and prints the reservation queues it keeps
// in the scheduler, with their capacities and guaranteed resources.
func stepPlanFollower(w io.Writer) error {
	cfg := capacity.DefaultConfig()
	dedicated := capacity.Queue("dedicated", 80)
	dedicated.Reservable = true
	cfg.Root.Children = []capacity.QueueConfig{capacity.Queue("default", 20), dedicated}
	clock := berth.NewManualClock(0)
	cfg.Clock = clock
	cs, err := capacity.New(cfg)
	if err != nil {
		return err
	}
	if err := cs.AddNode(capacity.NodeSpec{ID: "n1", Rack: "/r1", Capability: container.MulInt(100)}); err != nil {
		return err
	}
	p, err := plan.New(plan.DefaultConfig("dedicated", container.MulInt(80), clock))
	if err != nil {
		return err
	}
	for i, iv := range []berth.Interval{{Start: t(0), End: t(3)}, {Start: t(1), End: t(2)}} {
		n := int64(20 * (i + 1)) // r1: 20 containers on [t0, t3), r2: 40 on [t1, t2)
		a, err := plan.NewAllocation(plan.ReservationID{ClusterTimestamp: 1, Sequence: int64(i + 1)}, "alice",
			plan.Definition{Arrival: iv.Start, Deadline: iv.End}, iv,
			[]plan.IntervalResource{{Interval: iv, Resource: container.MulInt(n)}})
		if err == nil {
			err = p.AddReservation(a)
		}
		if err != nil {
			return err
		}
	}
	f, err := follower.New(follower.Config{Scheduler: cs, Flavor: follower.CapacityFlavor, Plans: follower.Plans{p}})
	if err != nil {
		return err
	}
	for i := int64(0); i <= 3; i++ {
		if _, err := f.Run(t(i)); err != nil {
			return err
		}
		names, err := cs.ReservationQueueNames("dedicated")
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "t%d\n", i)
		for _, q := range names {
			e, res, err := cs.ReservationQueueState("dedicated", q)
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "  %-28s capacity %.2f  guaranteed %v\n", q, e.Capacity, res)
		}
	}
	return nil
}

// stepReservations submits a gang, a three-stage pipeline (R_ORDER) and two
// alternatives (R_ANY) to a plan of 16 containers guarded by YARN's default
// agent and the capacity-over-time sharing policy, prints where each landed
// and the plan's timeline, and shows a request that cannot be placed.
func stepReservations(w io.Writer) error {
	const minute = 60_000 // ms
	pol, err := policy.NewCapacityOverTime(policy.DefaultCapacityOverTimeConfig())
	if err != nil {
		return err
	}
	ag, err := agent.NewAlignedPlannerWithGreedy(agent.DefaultConfig())
	if err != nil {
		return err
	}
	clock := berth.NewManualClock(0)
	cfg := plan.DefaultConfig("dedicated", container.MulInt(16), clock)
	cfg.Policy, cfg.Agent = pol, ag
	p, err := plan.New(cfg)
	if err != nil {
		return err
	}
	stage := func(n, gang int64, d berth.Duration) plan.Stage {
		return plan.Stage{Capability: container, Containers: n, Concurrency: gang, Duration: d}
	}
	requests := []struct {
		name, user string
		def        plan.Definition
	}{
		{"gang", "alice", plan.Definition{Arrival: 0, Deadline: 120 * minute, Interpreter: plan.RAll,
			Stages: []plan.Stage{stage(8, 8, 30*minute)}}},
		{"pipeline", "bob", plan.Definition{Arrival: 0, Deadline: 180 * minute, Interpreter: plan.ROrder,
			Stages: []plan.Stage{stage(4, 1, 20*minute), stage(12, 4, 30*minute), stage(2, 1, 10*minute)}}},
		{"alternatives", "carol", plan.Definition{Arrival: 60 * minute, Deadline: 300 * minute, Interpreter: plan.RAny,
			Stages: []plan.Stage{stage(16, 16, 60*minute), stage(4, 4, 180*minute)}}},
		{"too big", "dave", plan.Definition{Arrival: 0, Deadline: 90 * minute, Interpreter: plan.RAll,
			Stages: []plan.Stage{stage(16, 16, 60*minute)}}},
	}
	for i, r := range requests {
		id := plan.ReservationID{ClusterTimestamp: 1700000000000, Sequence: int64(i + 1)}
		if err := plan.ValidateDefinition(&r.def, p.Limits(clock.Now())); err != nil {
			return fmt.Errorf("%s: %w", r.name, err)
		}
		err := ag.CreateReservation(p, id, r.user, r.def)
		if errors.Is(err, berth.ErrNoPlacement) {
			fmt.Fprintf(w, "%-12s %v: rejected: %v\n", r.name, id, err)
			continue
		}
		if err != nil {
			return fmt.Errorf("%s: %w", r.name, err)
		}
		a, _ := p.Reservation(id)
		fmt.Fprintf(w, "%-12s %v: accepted for %s\n", r.name, id, r.user)
		for _, e := range a.Intervals {
			if !e.Resource.IsZero() {
				fmt.Fprintf(w, "    [%3d min, %3d min) %2d container(s)\n",
					e.Interval.Start/minute, e.Interval.End/minute, e.Resource.Memory/container.Memory)
			}
		}
	}
	fmt.Fprintln(w, "timeline (containers held, one row per 10 min):")
	for at := berth.Time(0); at < 300*minute; at += 10 * minute {
		n := p.TotalCommitted(at).Memory / container.Memory
		fmt.Fprintf(w, "  %3d min |%-16s| %2d\n", at/minute, strings.Repeat("#", int(n)), n)
	}
	return nil
}

// stepPreemption runs the capacity scheduler's proportional preemption
// policy: dev (40%) fills the cluster while prod (60%) is idle; when prod
// asks, a round decides on dev's newest containers and marks them, the
// next round after the kill wait kills them, and the next heartbeats give
// them to prod.
func stepPreemption(w io.Writer) error {
	cfg := capacity.DefaultConfig()
	dev := capacity.Queue("dev", 40)
	dev.Settings.UserLimitFactor = 3
	cfg.Root.Children = []capacity.QueueConfig{capacity.Queue("prod", 60), dev}
	cfg.MaxOffSwitchAssignments = 8
	clock := berth.NewManualClock(0)
	cfg.Clock = clock
	s, err := capacity.New(cfg)
	if err != nil {
		return err
	}
	nodes := []string{"n1", "n2"}
	for _, n := range nodes {
		if err := s.AddNode(capacity.NodeSpec{ID: n, Rack: "/r1", Capability: berth.New(8192, 8)}); err != nil {
			return err
		}
	}
	beat := func() error {
		clock.Advance(1000)
		for _, n := range nodes {
			if _, err := s.Heartbeat(n, nil); err != nil {
				return err
			}
		}
		return nil
	}
	ask := func(id, q string, n int) error {
		if _, err := s.SubmitApp(capacity.AppSpec{ID: id, Queue: q, User: id}); err != nil {
			return err
		}
		_, err := s.Allocate(id, []capacity.Ask{{Priority: 1, ResourceName: capacity.AnyResource, Capability: container, Count: n}}, nil)
		return err
	}
	if err := ask("adhoc", "dev", 16); err != nil {
		return err
	}
	if err := beat(); err != nil {
		return err
	}
	if err := ask("etl", "prod", 10); err != nil {
		return err
	}
	pcfg := preempt.DefaultProportionalConfig()
	pcfg.TotalPreemptionPerRound = 1 // a small cluster: take it all in one round
	pcfg.NaturalTerminationFactor = 1
	pcfg.MaxWaitBeforeKill = 3000
	p, err := preempt.NewProportional(preempt.ProportionalSetup{State: s, Actor: s, Config: pcfg})
	if err != nil {
		return err
	}
	if err := preemptionRounds(w, p, clock, beat); err != nil {
		return err
	}
	for _, id := range []string{"etl", "adhoc"} {
		for _, a := range s.Snapshot().Apps {
			if a.ID == id {
				fmt.Fprintf(w, "%s now holds %d MB\n", id, a.Used.Memory)
			}
		}
	}
	return nil
}

// preemptionRounds runs two rounds of p, three heartbeats apart: each is
// decided, then applied. The plan reads the scheduler only, so a host may
// inspect it (or drop candidates) before acting.
func preemptionRounds(w io.Writer, p *preempt.Proportional, clock *berth.ManualClock, beat func() error) error {
	for round := 1; round <= 2; round++ {
		decided, err := p.Decide(clock.Now())
		if err != nil {
			return err
		}
		rep, err := p.Apply(decided)
		if err != nil {
			return err
		}
		q := rep.Queue("root.dev")
		fmt.Fprintf(w, "round %d at t=%d: dev uses %d MB, ideal %d MB; %d candidates decided, ", round, clock.Now(), q.Used.Memory, q.Ideal.Memory, len(decided.Candidates))
		n := map[preempt.Action]int{}
		for _, d := range rep.Decisions {
			n[d.Action]++
		}
		fmt.Fprintf(w, "%d containers marked, %d killed\n", n[preempt.Marked], n[preempt.Killed])
		for range 3 {
			if err := beat(); err != nil {
				return err
			}
		}
	}
	return nil
}

// tourScheduler is the small capacity scheduler steps 7 and 8 share: two
// queues on two nodes, each with an application asking for 16 containers.
func tourScheduler(clock berth.Clock) (*capacity.Scheduler, error) {
	cfg := capacity.DefaultConfig()
	cfg.Root.Children = []capacity.QueueConfig{capacity.Queue("prod", 70), capacity.Queue("dev", 30)}
	cfg.MaxOffSwitchAssignments = 8
	cfg.Clock = clock
	s, err := capacity.New(cfg)
	if err != nil {
		return nil, err
	}
	err = s.AddNodes(
		capacity.NodeSpec{ID: "n1", Rack: "/r1", Capability: berth.New(8192, 8)},
		capacity.NodeSpec{ID: "n2", Rack: "/r1", Capability: berth.New(8192, 8)})
	if err != nil {
		return nil, err
	}
	for _, app := range []struct{ id, queue string }{{"etl", "prod"}, {"adhoc", "dev"}} {
		if _, err := s.SubmitApp(capacity.AppSpec{ID: app.id, Queue: app.queue, User: app.id}); err != nil {
			return nil, err
		}
		ask := capacity.Ask{Priority: 1, ResourceName: capacity.AnyResource, Capability: container, Count: 16}
		if _, err := s.Allocate(app.id, []capacity.Ask{ask}, nil); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// counter is a host's observer: it counts containers per queue and
// applications per event kind, the way a metrics exporter would, without
// the library knowing about any metrics package.
type counter struct {
	queue.NopObserver
	allocated map[string]int
	ended     map[queue.ExitStatus]int
	apps      map[queue.AppEventKind]int
}

func (c *counter) ObserveContainer(e queue.ContainerEvent) {
	if e.Kind == queue.ContainerAllocated {
		c.allocated[e.Container.Queue]++
	} else {
		c.ended[e.Status]++
	}
}

func (c *counter) ObserveApp(e queue.AppEvent) { c.apps[e.Kind]++ }

// stepObserve sets an observer on a scheduler and prints what it saw as
// Prometheus-style lines.
func stepObserve(w io.Writer) error {
	clock := berth.NewManualClock(0)
	s, err := tourScheduler(clock)
	if err != nil {
		return err
	}
	c := &counter{allocated: map[string]int{}, ended: map[queue.ExitStatus]int{}, apps: map[queue.AppEventKind]int{}}
	s.SetObserver(c)
	for _, n := range []string{"n1", "n2"} {
		clock.Advance(1000)
		if _, err := s.Heartbeat(n, nil); err != nil {
			return err
		}
	}
	if _, err := s.FinishApp("adhoc"); err != nil {
		return err
	}
	for _, q := range []string{"root.dev", "root.prod"} {
		fmt.Fprintf(w, "berth_containers_allocated_total{queue=%q} %d\n", q, c.allocated[q])
	}
	fmt.Fprintf(w, "berth_containers_ended_total{status=%q} %d\n", queue.Killed, c.ended[queue.Killed])
	fmt.Fprintf(w, "berth_apps_finished_total %d\n", c.apps[queue.AppFinished])
	return nil
}

// stepDurable saves a scheduler in the middle of a run, restores it into a
// fresh one, drives both with the same heartbeats and compares; then shows
// a damaged snapshot refused.
func stepDurable(w io.Writer) error {
	clock := berth.NewManualClock(0)
	s, err := tourScheduler(clock)
	if err != nil {
		return err
	}
	clock.Advance(1000)
	if _, err := s.Heartbeat("n1", nil); err != nil {
		return err
	}
	var snap bytes.Buffer
	if err := s.SaveState(&snap); err != nil {
		return err
	}
	fmt.Fprintf(w, "snapshot after one heartbeat: %d bytes\n", snap.Len())
	restored, err := capacity.RestoreScheduler(bytes.NewReader(snap.Bytes()), capacity.RestoreEnv{Clock: clock})
	if err != nil {
		return err
	}
	clock.Advance(1000)
	a, err := s.Heartbeat("n2", nil)
	if err != nil {
		return err
	}
	b, err := restored.Heartbeat("n2", nil)
	if err != nil {
		return err
	}
	same := len(a) == len(b)
	for i := 0; same && i < len(a); i++ {
		same = a[i].ID == b[i].ID && a[i].App == b[i].App && a[i].Node == b[i].Node
	}
	fmt.Fprintf(w, "next heartbeat of n2: original %d containers, restored %d, identical: %v\n", len(a), len(b), same)
	damaged := bytes.Clone(snap.Bytes())
	damaged[len(damaged)/2] ^= 1
	_, err = capacity.RestoreScheduler(bytes.NewReader(damaged), capacity.RestoreEnv{Clock: clock})
	fmt.Fprintf(w, "a snapshot with one bit flipped is refused (corrupt: %v)\n", errors.Is(err, berth.ErrCorruptState))
	return nil
}
