package rm_test

import (
	"fmt"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/capacity"
	"github.com/berthsched/berth/examples/rm"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/policy"
)

// capacityXML has a reservable queue whose users may hold 60 % of the plan
// on average and 80 % at any time.
const capacityXML = `<configuration>
  <property><name>yarn.scheduler.capacity.root.queues</name><value>default,dedicated</value></property>
  <property><name>yarn.scheduler.capacity.root.default.capacity</name><value>50</value></property>
  <property><name>yarn.scheduler.capacity.root.dedicated.capacity</name><value>50</value></property>
  <property><name>yarn.scheduler.capacity.root.dedicated.reservable</name><value>true</value></property>
  <property><name>yarn.scheduler.capacity.root.dedicated.average-capacity</name><value>60</value></property>
  <property><name>yarn.scheduler.capacity.root.dedicated.instantaneous-max-capacity</name><value>80</value></property>
</configuration>`

const siteXML = `<configuration>
  <property><name>yarn.resourcemanager.reservation-system.enable</name><value>true</value></property>
</configuration>`

// One call builds the scheduler, the plan of the reservable queue with
// the limits its keys give, the reservation system and the follower.
// Then the host's loop: nodes join, the follower runs each plan step, a
// reservation is accepted and published at once, and its application
// runs in the reservation's queue.
func ExampleLoadCapacity() {
	clock := berth.NewManualClock(0)
	r, err := rm.LoadCapacity(rm.Files{Scheduler: []byte(capacityXML), Site: []byte(siteXML)}, rm.Options{Clock: clock, ClusterTimestamp: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r)
	p, _ := r.Reservations.Plan("dedicated")
	fmt.Println("average limit:", p.Policy().(*policy.CapacityOverTime).Config().AveragePercent, "%")
	v, _ := r.Report.ReadValue("yarn.scheduler.capacity.root.dedicated.average-capacity")
	fmt.Println("report: average-capacity read as", v)

	for _, n := range []string{"n1", "n2"} {
		if err := r.Scheduler.AddNode(capacity.NodeSpec{ID: n, Rack: "/r1", Capability: berth.New(8192, 8)}); err != nil {
			fmt.Println(err)
			return
		}
	}
	// Each plan step: advance the clock, run the follower.
	clock.Advance(r.Reservations.Step())
	if _, err := r.Reservations.Follower.Run(clock.Now()); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("plan capacity:", p.Capacity())

	// A reservation of 4 containers for a minute, starting now.
	sys := r.Reservations.System
	id := sys.NewReservationID()
	def := plan.Definition{Arrival: clock.Now(), Deadline: clock.Now() + 60_000, Interpreter: plan.RAll,
		Stages: []plan.Stage{{Capability: berth.New(1024, 1), Containers: 4, Concurrency: 4, Duration: 60_000}}}
	if err := sys.Submit(plan.SubmissionRequest{Queue: "dedicated", ID: id, Definition: &def, User: "alice"}); err != nil {
		fmt.Println(err)
		return
	}
	// Submit published it: its queue exists, its application may follow.
	q, err := r.Scheduler.SubmitApp(capacity.AppSpec{ID: "job", Queue: "dedicated", User: "alice", ReservationID: id.String()})
	fmt.Println("job runs in", q, err)
	// Output:
	// capacity scheduler, reservation system with plans [dedicated], preemption false
	// average limit: 60 %
	// report: average-capacity read as 60
	// plan capacity: <memory:8192, vCores:8>
	// job runs in root.dedicated.reservation_1_0001 <nil>
}

// The fair scheduler's allocation file marks plan queues with
// <reservation/> and names the components every plan shares.
func ExampleLoadFair() {
	alloc := `<allocations>
  <queue name="dedicated"><reservation/></queue>
  <queue name="adhoc"/>
  <reservation-policy>NoOverCommitPolicy</reservation-policy>
</allocations>`
	r, err := rm.LoadFair(rm.Files{Scheduler: []byte(alloc), Site: []byte(siteXML)}, rm.Options{Clock: berth.NewManualClock(0)})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r)
	p, _ := r.Reservations.Plan("root.dedicated")
	fmt.Printf("%s: policy %T, agent %T\n", p.QueueName(), p.Policy(), p.Agent())
	// Output:
	// fair scheduler, reservation system with plans [root.dedicated], preemption false
	// root.dedicated: policy policy.NoOverCommit, agent *agent.TryMany
}
