package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/capacity"
	"github.com/berthsched/berth/examples/rm"
	"github.com/berthsched/berth/fair"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/policy"
	"github.com/berthsched/berth/queue"
)

// rmCapacityXML is the capacity-scheduler.xml of step 10: a reservable
// queue whose users may hold 60 % of the plan on average over an hour and
// 80 % at any time.
const rmCapacityXML = `<configuration>
  <property><name>yarn.scheduler.capacity.root.queues</name><value>default,dedicated</value></property>
  <property><name>yarn.scheduler.capacity.root.default.capacity</name><value>50</value></property>
  <property><name>yarn.scheduler.capacity.root.dedicated.capacity</name><value>50</value></property>
  <property><name>yarn.scheduler.capacity.root.dedicated.reservable</name><value>true</value></property>
  <property><name>yarn.scheduler.capacity.root.dedicated.average-capacity</name><value>60</value></property>
  <property><name>yarn.scheduler.capacity.root.dedicated.instantaneous-max-capacity</name><value>80</value></property>
  <property><name>yarn.scheduler.capacity.root.dedicated.reservation-window</name><value>3600000</value></property>
</configuration>`

// rmSiteXML turns the reservation system and preemption on.
const rmSiteXML = `<configuration>
  <property><name>yarn.resourcemanager.reservation-system.enable</name><value>true</value></property>
  <property><name>yarn.resourcemanager.scheduler.monitor.enable</name><value>true</value></property>
  <property><name>yarn.scheduler.fair.preemption</name><value>true</value></property>
</configuration>`

// printRead prints what the report says was read for the keys containing
// any of the words.
func printRead(w io.Writer, rep queue.ConfigReport, words ...string) {
	for _, n := range rep.Read {
		for _, word := range words {
			if strings.Contains(n.Key, word) {
				fmt.Fprintf(w, "  read %s = %s\n", n.Key, n.Value)
				break
			}
		}
	}
}

// stepRMCapacity builds a whole ResourceManager from the two files in one
// call, then runs the host's loop: nodes join, the follower publishes
// the plan every step, two reservations meet the limits the file set, an
// application runs in the accepted one's queue.
func stepRMCapacity(w io.Writer) error {
	clock := berth.NewManualClock(0)
	r, err := rm.LoadCapacity(rm.Files{Scheduler: []byte(rmCapacityXML), Site: []byte(rmSiteXML)}, rm.Options{Clock: clock, ClusterTimestamp: 1})
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "rm.LoadCapacity built:", r)
	printRead(w, r.Report, "dedicated.", "reservation-system", "monitor")
	for _, n := range r.Report.Notes {
		fmt.Fprintln(w, " ", n)
	}
	p, _ := r.Reservations.Plan("dedicated")
	cot := p.Policy().(*policy.CapacityOverTime).Config()
	fmt.Fprintf(w, "plan dedicated: agent %T, policy average %v %% / instantaneous %v %% over %d min\n",
		p.Agent(), cot.AveragePercent, cot.InstantaneousMaxPercent, cot.Window/60_000)

	for i := 1; i <= 4; i++ {
		if err := r.Scheduler.AddNode(capacity.NodeSpec{ID: fmt.Sprintf("n%d", i), Rack: "/r1", Capability: container.MulInt(10)}); err != nil {
			return err
		}
	}
	// The host's tick: advance the clock one plan step, run the follower.
	clock.Advance(r.Reservations.Step())
	if _, err := r.Reservations.Follower.Run(clock.Now()); err != nil {
		return err
	}
	fmt.Fprintf(w, "after one follower run the plan holds %v (half of 40 containers)\n", p.Capacity())

	sys := r.Reservations.System
	var accepted plan.ReservationID
	for _, req := range []struct {
		user       string
		containers int64
	}{{"alice", 14}, {"bob", 11}} {
		id := sys.NewReservationID()
		def := plan.Definition{Arrival: clock.Now(), Deadline: clock.Now() + 3_600_000, Interpreter: plan.RAll,
			Stages: []plan.Stage{{Capability: container, Containers: req.containers, Concurrency: req.containers, Duration: 3_600_000}}}
		err := sys.Submit(plan.SubmissionRequest{Queue: "dedicated", ID: id, Definition: &def, User: req.user})
		share := 100 * req.containers / 20
		switch {
		case errors.Is(err, berth.ErrCapacityExceeded) || errors.Is(err, berth.ErrNoPlacement):
			fmt.Fprintf(w, "%s asks %d %% of the plan for the hour: refused (over the 60 %% average)\n", req.user, share)
		case err != nil:
			return err
		default:
			fmt.Fprintf(w, "%s asks %d %% of the plan for the hour: accepted as %v\n", req.user, share, id)
			accepted = id // Submit published it: its queue exists already
		}
	}
	q, err := r.Scheduler.SubmitApp(capacity.AppSpec{ID: "etl", Queue: "dedicated", User: "bob", ReservationID: accepted.String()})
	if err != nil {
		return err
	}
	if _, err := r.Scheduler.Allocate("etl", []capacity.Ask{{Priority: 1, ResourceName: capacity.AnyResource, Capability: container, Count: 11}}, nil); err != nil {
		return err
	}
	got := 0
	for i := 1; i <= 4; i++ {
		clock.Advance(250)
		al, err := r.Scheduler.Heartbeat(fmt.Sprintf("n%d", i), nil)
		if err != nil {
			return err
		}
		got += len(al)
	}
	fmt.Fprintf(w, "etl runs in %s and got %d containers from 4 node heartbeats (one off-switch container each, YARN's default)\n", q, got)
	if _, err := r.Preemption.Round(clock.Now()); err != nil {
		return err
	}
	fmt.Fprintln(w, "the preemption round the monitor key turned on ran:", r.Preemption != nil)
	return nil
}

// rmFairXML is the fair-scheduler.xml of step 11.
const rmFairXML = `<allocations>
  <queue name="dedicated"><reservation/><weight>2</weight></queue>
  <queue name="adhoc"/>
  <reservation-agent>GreedyReservationAgent</reservation-agent>
  <reservation-policy>NoOverCommitPolicy</reservation-policy>
</allocations>`

// stepRMFair is step 10 on the fair scheduler: the allocation file marks
// the plan queue with <reservation/> and names the components every plan
// shares.
func stepRMFair(w io.Writer) error {
	clock := berth.NewManualClock(0)
	cfg := fair.DefaultConfig()
	cfg.AssignMultiple = true
	r, err := rm.LoadFair(rm.Files{Scheduler: []byte(rmFairXML), Site: []byte(rmSiteXML)}, rm.Options{Clock: clock, ClusterTimestamp: 1, Fair: &cfg})
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "rm.LoadFair built:", r)
	printRead(w, r.Report, "reservation")
	for _, n := range r.Report.Notes {
		fmt.Fprintln(w, " ", n)
	}
	p, _ := r.Reservations.Plan("root.dedicated")
	fmt.Fprintf(w, "plan root.dedicated: agent %T, policy %T\n", p.Agent(), p.Policy())
	if err := r.Scheduler.AddNode(fair.NodeSpec{ID: "n1", Capability: container.MulInt(8)}); err != nil {
		return err
	}
	clock.Advance(r.Reservations.Step())
	if _, err := r.Reservations.Follower.Run(clock.Now()); err != nil {
		return err
	}
	q, err := r.Scheduler.SubmitApp(fair.AppSpec{ID: "walk-in", Queue: "root.dedicated", User: "ann"})
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "an application without a reservation runs in", q)
	return nil
}
