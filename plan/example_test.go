package plan_test

import (
	"errors"
	"fmt"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/queue"
)

// atArrival is a toy agent: it places every stage at the arrival. Real
// agents live in package agent.
type atArrival struct{}

func (atArrival) place(id plan.ReservationID, user string, def plan.Definition) (*plan.Allocation, error) {
	var ivs []plan.IntervalResource
	for _, s := range def.Stages {
		ivs = append(ivs, plan.IntervalResource{
			Interval: berth.Interval{Start: def.Arrival, End: def.Arrival + s.Duration},
			Resource: s.Total(),
		})
	}
	return plan.NewAllocation(id, user, def, berth.Interval{Start: def.Arrival, End: def.Deadline}, ivs)
}

func (ag atArrival) CreateReservation(p *plan.Plan, id plan.ReservationID, user string, def plan.Definition) error {
	a, err := ag.place(id, user, def)
	if err != nil {
		return err
	}
	return p.AddReservation(a)
}

func (ag atArrival) UpdateReservation(p *plan.Plan, id plan.ReservationID, user string, def plan.Definition) error {
	a, err := ag.place(id, user, def)
	if err != nil {
		return err
	}
	return p.UpdateReservation(a)
}

func (atArrival) DeleteReservation(p *plan.Plan, id plan.ReservationID, _ string) error {
	return p.DeleteReservation(id)
}

func Example() {
	clock := berth.NewManualClock(1_000)
	sys, _ := plan.NewSystem(plan.SystemConfig{ClusterTimestamp: 1404198295326, Clock: clock})

	cfg := plan.DefaultConfig("dedicated", berth.New(80*1024, 80), clock)
	cfg.Agent = atArrival{}
	_, _ = sys.Reinitialize(cfg)

	id := sys.NewReservationID()
	err := sys.Submit(plan.SubmissionRequest{
		Queue: "dedicated", ID: id, User: "alice",
		Definition: &plan.Definition{
			Arrival: 10_000, Deadline: 80_000, Name: "nightly", Interpreter: plan.RAll,
			Stages: []plan.Stage{{Capability: berth.New(1024, 1), Containers: 4, Concurrency: 1, Duration: 60_000}},
		},
	})
	fmt.Println(id, err)

	p, _ := sys.Plan("dedicated")
	fmt.Println("committed at 30s:", p.TotalCommitted(30_000))

	list, _ := sys.List(plan.ListRequest{Queue: "dedicated", Start: 0, End: -1})
	fmt.Println("listed:", len(list.Reservations), list.Reservations[0].User)

	// Deadlines in the past are rejected with a typed error naming the field.
	err = sys.Submit(plan.SubmissionRequest{Queue: "dedicated", ID: sys.NewReservationID(), User: "bob",
		Definition: &plan.Definition{Deadline: 500, Interpreter: plan.RAll,
			Stages: []plan.Stage{{Capability: berth.New(1024, 1), Containers: 1, Concurrency: 1, Duration: 10}}}})
	var fe *berth.FieldError
	if errors.As(err, &fe) {
		fmt.Println(fe.Field)
	}
	// Output:
	// reservation_1404198295326_0001 <nil>
	// committed at 30s: <memory:4096, vCores:4>
	// listed: 1 alice
	// reservation-definition.deadline
}

// Reservation ACLs (YARN's yarn.acl.reservation-enable) are on when the
// system has an Authorizer; queue.ReservationACLs reads YARN's ACL syntax.
func ExampleSystem_reservationACLs() {
	clock := berth.NewManualClock(1_000)
	acls := queue.NewReservationACLs(nil, map[string]queue.ReservationQueueACLs{
		"dedicated": {Submit: queue.ParseACL("alice"), List: queue.ParseACL("auditor"), Administer: queue.ParseACL("admin")},
	})
	sys, _ := plan.NewSystem(plan.SystemConfig{ClusterTimestamp: 1404198295326, Clock: clock, Authorizer: acls})
	cfg := plan.DefaultConfig("dedicated", berth.New(80*1024, 80), clock)
	cfg.Agent = atArrival{}
	_, _ = sys.Reinitialize(cfg)

	def := &plan.Definition{Arrival: 10_000, Deadline: 80_000, Interpreter: plan.RAll,
		Stages: []plan.Stage{{Capability: berth.New(1024, 1), Containers: 4, Concurrency: 1, Duration: 60_000}}}
	err := sys.Submit(plan.SubmissionRequest{Queue: "dedicated", ID: sys.NewReservationID(), User: "bob", Definition: def})
	fmt.Println(errors.Is(err, berth.ErrPermissionDenied))

	id := sys.NewReservationID()
	fmt.Println(sys.Submit(plan.SubmissionRequest{Queue: "dedicated", ID: id, User: "alice", Definition: def}))
	// The owner may list, update and delete their own reservation.
	_, err = sys.List(plan.ListRequest{Queue: "dedicated", ID: id, End: -1, User: "alice"})
	fmt.Println(err)
	_, err = sys.List(plan.ListRequest{Queue: "dedicated", End: -1, User: "alice"})
	fmt.Println(errors.Is(err, berth.ErrPermissionDenied))
	fmt.Println(sys.Delete(plan.DeleteRequest{ID: id, User: "alice"}))
	// Output:
	// true
	// <nil>
	// <nil>
	// true
	// <nil>
}
