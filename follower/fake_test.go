package follower

import (
	"fmt"
	"slices"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

// fakeQueue is one reservation queue of the fake scheduler.
type fakeQueue struct {
	name string // the flavor's queue name
	ent  Entitlement
	apps []string
}

// fakeScheduler is an in-memory scheduler with one plan queue and the
// capacity scheduler's rules for dynamic queues: entitlements in [0, 1],
// maximum ≥ capacity, children summing below 1 + 1e-4, removal only of
// empty, zero-capacity, non-default queues. It records the largest sum of
// children's capacities it ever held.
type fakeScheduler struct {
	flavor   Flavor
	planQ    string
	cluster  berth.Resource
	planRes  berth.Resource
	queues   []*fakeQueue // creation order
	byName   map[string]*fakeQueue
	maxSum   float32
	noMove   bool // MoveApp fails
	autoDef  bool // the default queue exists from the start (CS)
	ops      []string
	appQueue map[string]string
}

func newFake(fl Flavor, planQ string, cluster, planRes berth.Resource) *fakeScheduler {
	f := &fakeScheduler{flavor: fl, planQ: planQ, cluster: cluster, planRes: planRes, appQueue: map[string]string{},
		byName: map[string]*fakeQueue{}}
	return f
}

func (f *fakeScheduler) withDefault() *fakeScheduler {
	f.add(&fakeQueue{name: f.flavor.QueueName(f.planQ, defaultReservation(f.flavor, f.planQ)), ent: Entitlement{Capacity: 1, MaxCapacity: 1}})
	return f
}

func (f *fakeScheduler) add(q *fakeQueue) {
	f.queues = append(f.queues, q)
	f.byName[q.name] = q
}

func (f *fakeScheduler) find(name string) *fakeQueue { return f.byName[name] }

func (f *fakeScheduler) checkPlan(planQueue string) error {
	if planQueue != f.planQ {
		return &berth.FieldError{Field: "plan-queue", Value: planQueue, Kind: berth.ErrNotFound, Reason: "no such plan queue"}
	}
	return nil
}

func (f *fakeScheduler) ClusterResource() berth.Resource { return f.cluster }

func (f *fakeScheduler) PlanResources(planQueue string) (berth.Resource, error) {
	if err := f.checkPlan(planQueue); err != nil {
		return berth.None(), err
	}
	return f.planRes, nil
}

func (f *fakeScheduler) ReservationQueueNames(planQueue string) ([]string, error) {
	if err := f.checkPlan(planQueue); err != nil {
		return nil, err
	}
	return f.names(), nil
}

// ReservationQueueState reports a queue's resources as its share of the
// plan resources.
func (f *fakeScheduler) ReservationQueueState(planQueue, queue string) (Entitlement, berth.Resource, error) {
	if err := f.checkPlan(planQueue); err != nil {
		return Entitlement{}, berth.None(), err
	}
	q := f.find(queue)
	if q == nil {
		return Entitlement{}, berth.None(), &berth.FieldError{Field: "queue", Value: queue, Kind: berth.ErrNotFound, Reason: "no such queue"}
	}
	return q.ent, f.planRes.Mul(float64(q.ent.Capacity)), nil
}

func (f *fakeScheduler) AddReservationQueue(planQueue, reservation string) error {
	if err := f.checkPlan(planQueue); err != nil {
		return err
	}
	name := f.flavor.QueueName(planQueue, reservation)
	if f.find(name) != nil {
		return &berth.FieldError{Field: "queue", Value: name, Kind: berth.ErrAlreadyExists, Reason: "exists"}
	}
	f.ops = append(f.ops, "add "+name)
	f.add(&fakeQueue{name: name, ent: Entitlement{Capacity: 0, MaxCapacity: 1}})
	return nil
}

func (f *fakeScheduler) sum() float32 {
	var s float32
	for _, q := range f.queues {
		s += q.ent.Capacity
	}
	return s
}

func (f *fakeScheduler) SetEntitlement(queue string, e Entitlement) error {
	q := f.find(queue)
	if q == nil {
		return &berth.FieldError{Field: "queue", Value: queue, Kind: berth.ErrNotFound, Reason: "no such queue"}
	}
	if !(e.Capacity >= 0 && e.Capacity <= 1 && e.MaxCapacity >= 0 && e.MaxCapacity <= 1 && e.MaxCapacity >= e.Capacity) {
		return berth.InvalidField("entitlement", e, "out of range")
	}
	s := f.sum() - q.ent.Capacity + e.Capacity
	if s >= 1+1e-4 {
		return &berth.FieldError{Field: "capacity", Value: e.Capacity, Kind: berth.ErrCapacityExceeded, Reason: fmt.Sprintf("sum %g", s)}
	}
	f.ops = append(f.ops, fmt.Sprintf("ent %s %.3f/%.3f", queue, e.Capacity, e.MaxCapacity))
	q.ent = e
	f.maxSum = max(f.maxSum, s)
	return nil
}

func (f *fakeScheduler) RemoveReservationQueue(queue string) error {
	q := f.find(queue)
	switch {
	case q == nil:
		return &berth.FieldError{Field: "queue", Value: queue, Kind: berth.ErrNotFound, Reason: "no such queue"}
	case f.flavor.ReservationName(queue) == defaultReservation(f.flavor, f.planQ):
		return berth.InvalidField("queue", queue, "default queue")
	case len(q.apps) > 0 || q.ent.Capacity != 0:
		return &berth.FieldError{Field: "queue", Value: queue, Kind: berth.ErrInvalidState, Reason: "busy"}
	}
	f.ops = append(f.ops, "remove "+queue)
	f.queues = slices.DeleteFunc(f.queues, func(x *fakeQueue) bool { return x == q })
	delete(f.byName, queue)
	return nil
}

func (f *fakeScheduler) AppsInQueue(queue string) ([]string, error) {
	q := f.find(queue)
	if q == nil {
		return nil, &berth.FieldError{Field: "queue", Value: queue, Kind: berth.ErrNotFound, Reason: "no such queue"}
	}
	return slices.Clone(q.apps), nil
}

// submit adds an application to a reservation's queue (by reservation name).
func (f *fakeScheduler) submit(app, reservation string) error {
	q := f.find(f.flavor.QueueName(f.planQ, reservation))
	if q == nil {
		return &berth.FieldError{Field: "reservation", Value: reservation, Kind: berth.ErrNotFound, Reason: "not active"}
	}
	q.apps = append(q.apps, app)
	f.appQueue[app] = q.name
	return nil
}

func (f *fakeScheduler) MoveApp(appID, queue string) (string, error) {
	if f.noMove {
		return "", &berth.FieldError{Field: "queue", Value: queue, Kind: berth.ErrCapacityExceeded, Reason: "move refused"}
	}
	to := f.find(queue)
	from := f.find(f.appQueue[appID])
	if to == nil || from == nil {
		return "", &berth.FieldError{Field: "app", Value: appID, Kind: berth.ErrNotFound, Reason: "unknown"}
	}
	f.ops = append(f.ops, "move "+appID+" "+queue)
	from.apps = slices.DeleteFunc(from.apps, func(a string) bool { return a == appID })
	to.apps = append(to.apps, appID)
	f.appQueue[appID] = queue
	return queue, nil
}

func (f *fakeScheduler) KillApp(appID string) ([]Ended, error) {
	from := f.find(f.appQueue[appID])
	if from == nil {
		return nil, &berth.FieldError{Field: "app", Value: appID, Kind: berth.ErrNotFound, Reason: "unknown"}
	}
	f.ops = append(f.ops, "kill "+appID)
	from.apps = slices.DeleteFunc(from.apps, func(a string) bool { return a == appID })
	delete(f.appQueue, appID)
	// One container per application, so the follower's Ended can be checked.
	return []Ended{{Container: queue.Container{App: appID, Queue: from.name}, Status: queue.Killed}}, nil
}

// names lists the queue names in creation order.
func (f *fakeScheduler) names() []string {
	out := make([]string, len(f.queues))
	for i, q := range f.queues {
		out[i] = q.name
	}
	return out
}
