package queue_test

import (
	"errors"
	"fmt"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

// settings stands for a scheduler's own per-queue configuration.
type settings struct{ UserLimitFactor float64 }

func Example() {
	admins := queue.ParseACL("alice admins")
	nobody := queue.Nobody()
	cfg := queue.Config[settings]{
		Name:      "root",
		SubmitACL: &nobody, // root's defaults allow everyone; close them
		AdminACL:  &nobody,
		Children: []queue.Config[settings]{
			{Name: "prod", Capacity: queue.Percent(70), SubmitACL: &admins, Settings: settings{UserLimitFactor: 2}},
			{Name: "dev", Capacity: queue.Percent(30), MaxCapacity: queue.Percent(50), Children: []queue.Config[settings]{
				{Name: "ad-hoc", Capacity: queue.Percent(100)},
			}},
		},
	}
	tree, err := queue.New(queue.TreeConfig[settings]{Root: cfg, CheckCapacitySums: true})
	if err != nil {
		fmt.Println(err)
		return
	}

	prod, _ := tree.LookupLeaf("prod") // a unique short name is enough
	fmt.Println(prod.Path(), prod.AbsoluteCapacity(), prod.Payload.UserLimitFactor)
	groups := queue.StaticGroups{"bob": {"admins"}}
	fmt.Println(prod.CanSubmit("bob", groups), prod.CanSubmit("carol", groups))

	// Charge a leaf; parents follow.
	_ = prod.SubmitApp("bob")
	_ = prod.ActivateApp("bob")
	_ = prod.Allocate("bob", berth.New(2048, 2))
	fmt.Println(tree.Root().Used(), tree.Root().ActiveApps())

	// Removing a busy queue is refused and the old tree stays.
	cfg.Children = cfg.Children[1:]
	cfg.Children[0].Capacity, cfg.Children[0].MaxCapacity = queue.Percent(100), queue.Percent(100)
	_, err = tree.Reconfigure(cfg)
	fmt.Println(errors.Is(err, berth.ErrInvalidState), err)

	// Output:
	// root.prod 0.7 2
	// true false
	// <memory:2048, vCores:2> 1
	// true queue root.prod: applications: queue has applications and cannot be removed (value: 1)
}

func ExampleParseACL() {
	acl := queue.ParseACL("alice,bob admins")
	fmt.Println(acl.Users(), acl.Groups())
	fmt.Println(acl.Allows("bob", nil), acl.Allows("carol", []string{"admins"}), acl.Allows("dave", []string{"users"}))
	fmt.Printf("%q %q %q\n", queue.ParseACL("*").String(), queue.ParseACL(" ").String(), queue.ParseACL("alice").String())
	// Output:
	// [alice bob] [admins]
	// true true false
	// "*" " " "alice "
}

func ExampleTree_Reconfigure() {
	cfg := queue.Config[int]{Children: []queue.Config[int]{
		{Name: "a", Capacity: queue.Percent(50)},
		{Name: "b", Capacity: queue.Percent(50)},
	}}
	tree, _ := queue.New(queue.TreeConfig[int]{Root: cfg, CheckCapacitySums: true})
	a := tree.Root().ChildNamed("a")

	// Capacities that do not sum to 100% are refused; the old tree stays.
	bad := cfg
	bad.Children = []queue.Config[int]{{Name: "a", Capacity: queue.Percent(60)}, {Name: "b", Capacity: queue.Percent(50)}}
	_, err := tree.Reconfigure(bad)
	fmt.Println(err)

	good := queue.Config[int]{Children: []queue.Config[int]{
		{Name: "a", Capacity: queue.Percent(40)},
		{Name: "c", Capacity: queue.Percent(60)},
	}}
	diff, _ := tree.Reconfigure(good)
	fmt.Println("added", diff.Added, "removed", diff.Removed, "changed", diff.Changed)
	fmt.Println(tree.Root().ChildNamed("a") == a, a.AbsoluteCapacity())
	// Output:
	// queue root: capacity: illegal capacity of 1.1 for children of queue root (children's capacities must sum to 100% under a non-zero parent, 0 under a zero parent) (value: 110)
	// added [root.c] removed [root.b] changed [root.a]
	// true 0.4
}

func ExampleTree_AddReservationQueue() {
	cfg := queue.Config[string]{Children: []queue.Config[string]{
		{Name: "plan", Capacity: queue.Percent(80), Reservable: true},
		{Name: "other", Capacity: queue.Percent(20)},
	}}
	tree, _ := queue.New(queue.TreeConfig[string]{Root: cfg, CheckCapacitySums: true})
	plan := tree.Root().ChildNamed("plan")
	def := plan.ChildNamed("plan-default")

	// The plan follower makes room in the default queue, then sizes the reservation.
	r, _ := tree.AddReservationQueue(plan, "reservation_1_0001", "payload")
	_ = tree.SetEntitlement(def, queue.Entitlement{Capacity: 0.75, MaxCapacity: 1})
	_ = tree.SetEntitlement(r, queue.Entitlement{Capacity: 0.25, MaxCapacity: 0.5})
	fmt.Println(r.Path(), r.AbsoluteCapacity(), r.AbsoluteMaxCapacity())

	// Going over 100% of the plan is refused.
	err := tree.SetEntitlement(r, queue.Entitlement{Capacity: 0.5, MaxCapacity: 0.5})
	fmt.Println(errors.Is(err, berth.ErrCapacityExceeded))

	// A reservation queue leaves once idle and at zero capacity.
	_ = tree.SetEntitlement(r, queue.Entitlement{Capacity: 0, MaxCapacity: 0.5})
	fmt.Println(tree.RemoveReservationQueue(r), plan.NumChildren())
	// Output:
	// root.plan.reservation_1_0001 0.2 0.5
	// true
	// <nil> 1
}

// A scheduler keeps one Requests table per application: asks replace the
// previous ones by (priority, resource name), allocations take containers
// off host, rack and ANY together.
func ExampleRequests() {
	var asks queue.Requests[struct{}]
	gb := berth.New(1024, 1)
	for _, a := range []queue.Ask{
		{Priority: 1, ResourceName: "host1", Capability: gb, Count: 1},
		{Priority: 1, ResourceName: "/rack1", Capability: gb, Count: 1},
		{Priority: 1, ResourceName: queue.AnyResource, Capability: gb, Count: 2},
	} {
		if _, err := asks.Update(a, a.ResourceName == "/rack1"); err != nil {
			fmt.Println(err)
			return
		}
	}
	k := asks.Key(1)
	fmt.Println(k.UniqueLocationAsks(), asks.Pending())

	k.Allocate(queue.NodeLocal, "host1", "/rack1")
	host, _ := k.HostAsk("host1")
	fmt.Println(host, k.Outstanding(), k.UniqueLocationAsks())
	// Output:
	// 3 <memory:2048, vCores:2>
	// 0 1 1
}

// An application keeps a UserRef and charges every container through it:
// the same books as Update, without a user lookup per level.
func ExampleUserRef() {
	tree, err := queue.New(queue.TreeConfig[settings]{Root: queue.Config[settings]{Name: "root", Children: []queue.Config[settings]{
		{Name: "etl", Capacity: queue.Percent(100)},
	}}})
	if err != nil {
		fmt.Println(err)
		return
	}
	etl, _ := tree.LookupLeaf("etl")
	var ref queue.UserRef[settings] // one per application (leaf and user)
	for range 3 {
		if err := etl.UpdateRef(&ref, "bob", queue.Delta{Used: berth.New(1024, 1)}); err != nil {
			fmt.Println(err)
		}
	}
	fmt.Println(tree.Root().UserUsage("bob").Used)
	// A release beyond what bob holds is refused, as Update refuses it.
	err = etl.UpdateRef(&ref, "bob", queue.Delta{Used: berth.New(8192, 8).Neg()})
	fmt.Println(errors.Is(err, berth.ErrInvalidState))
	// Output:
	// <memory:3072, vCores:3>
	// true
}
