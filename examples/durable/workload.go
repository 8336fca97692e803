package durable

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/capacity"
	"github.com/berthsched/berth/fair"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/preempt"
	"github.com/berthsched/berth/queue"
)

// DemoCapacityXML is the capacity-scheduler.xml of [DemoConfig]: two
// tenants and a reservable queue.
const DemoCapacityXML = `<configuration>
  <property><name>yarn.scheduler.capacity.root.queues</name><value>a,b,dedicated</value></property>
  <property><name>yarn.scheduler.capacity.root.a.capacity</name><value>50</value></property>
  <property><name>yarn.scheduler.capacity.root.b.capacity</name><value>30</value></property>
  <property><name>yarn.scheduler.capacity.root.dedicated.capacity</name><value>20</value></property>
  <property><name>yarn.scheduler.capacity.root.a.maximum-capacity</name><value>100</value></property>
  <property><name>yarn.scheduler.capacity.root.b.maximum-capacity</name><value>100</value></property>
  <property><name>yarn.scheduler.capacity.root.a.user-limit-factor</name><value>4</value></property>
  <property><name>yarn.scheduler.capacity.root.b.user-limit-factor</name><value>4</value></property>
  <property><name>yarn.scheduler.capacity.root.dedicated.maximum-capacity</name><value>100</value></property>
  <property><name>yarn.scheduler.capacity.root.dedicated.reservable</name><value>true</value></property>
  <property><name>yarn.scheduler.capacity.maximum-am-resource-percent</name><value>0.5</value></property>
</configuration>`

// DemoFairXML is the fair-scheduler.xml of [DemoConfig].
const DemoFairXML = `<allocations>
  <queue name="a"><weight>50</weight><minResources>16384 mb, 16 vcores</minResources><minSharePreemptionTimeout>5</minSharePreemptionTimeout></queue>
  <queue name="b"><weight>30</weight><minResources>8192 mb, 8 vcores</minResources><minSharePreemptionTimeout>5</minSharePreemptionTimeout></queue>
  <queue name="dedicated"><weight>20</weight><reservation/></queue>
</allocations>`

// DemoConfig returns a small cluster configuration under the given
// scheduler: two tenant queues and a reservable queue with one plan of
// 64 GiB and 64 vcores, preemption on. The tests, benchmarks and
// examples/ha use it with a [Workload].
func DemoConfig(kind SchedulerKind) (Config, error) {
	cfg := Config{Scheduler: kind, ClusterTimestamp: 1700000000000, Preemption: true}
	switch kind {
	case Capacity:
		cc, err := capacity.ParseXML(strings.NewReader(DemoCapacityXML))
		if err != nil {
			return Config{}, err
		}
		cfg.CapacityConfig = cc
		cfg.Proportional = preempt.DefaultProportionalConfig()
		cfg.Plans = []PlanSpec{{Queue: "dedicated", Capacity: berth.New(65536, 64)}}
	case Fair:
		cfg.FairConfig = fair.DefaultConfig()
		cfg.FairConfig.AssignMultiple = true
		cfg.FairAllocation = []byte(DemoFairXML)
		cfg.FairPreemption = preempt.DefaultFairConfig()
		cfg.Plans = []PlanSpec{{Queue: "root.dedicated", Capacity: berth.New(65536, 64)}}
	default:
		return Config{}, fmt.Errorf("durable: %w: scheduler %s", berth.ErrInvalidArgument, kind)
	}
	return cfg, nil
}

// Workload generates a random but realistic stream of commands for a
// [DemoConfig] cluster: nodes join and leave, applications arrive, ask,
// release and finish, nodes heartbeat and report completed containers,
// reservations are drawn, submitted, updated and deleted, the follower and
// the preemption policy run, the clock advances, the configuration is
// reloaded. It reads each command's result ([Workload.Observe]) to ask for
// things that exist, so the same seed and the same results give the same
// stream: two runs of a deterministic cluster produce the same commands.
type Workload struct {
	rng   *rand.Rand
	kind  SchedulerKind
	now   berth.Time
	seq   int
	nodes []string // alive
	down  []string
	apps  []string
	// live containers: by node (for completions), by app (releases), and
	// each one's node and app
	byNode   map[string][]queue.ContainerID
	byApp    map[string][]queue.ContainerID
	live     map[queue.ContainerID]placed
	resv     []plan.ReservationID
	newResv  bool // the last command drew a reservation id
	drawn    plan.ReservationID
	last     Command
	nextNode int
	round    int
	plan     []action
	hb       int
	// Nodes and Apps are the cluster's steady size: nodes join until
	// there are Nodes (a node that leaves is replaced, by itself coming
	// back or by a new one), applications arrive faster while fewer than
	// Apps run. NewWorkload sets 96 and 48; set
	// them before the first Next.
	Nodes, Apps int
}

// NewWorkload starts a stream for a cluster of the given scheduler.
func NewWorkload(seed uint64, kind SchedulerKind) *Workload {
	return &Workload{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), kind: kind, Nodes: 96, Apps: 48,
		byNode: map[string][]queue.ContainerID{}, byApp: map[string][]queue.ContainerID{},
		live: map[queue.ContainerID]placed{}}
}

// placed is where a live container runs and whose it is.
type placed struct{ node, app string }

func (w *Workload) queueName(short string) string {
	if w.kind == Fair {
		return "root." + short
	}
	return short
}

// Next returns the next command. Call [Workload.Observe] with its result
// before asking for the one after.
func (w *Workload) Next() Command {
	w.last = w.next()
	return w.last
}

// The actions of one round (one second of cluster time).
type action uint8

const (
	actHeartbeat action = iota
	actAllocate
	actSubmit
	actFinish
	actAddNode
	actRemoveNode
	actNewReservation
	actUpdateReservation
	actDeleteReservation
	actKill
	actMove
	actReload
	actFollower
	actPreempt
	actClock
)

// Rounds: every second of cluster time each node heartbeats once, about
// half of the applications call allocate, applications arrive and finish
// around a steady population, the follower runs, and every third second
// the preemption policy; a reservation arrives about every two minutes,
// nodes leave about once a minute, an application moves to the other
// tenant's queue about once a minute, and the configuration is reloaded
// about every eight minutes.

func (w *Workload) newRound() {
	r := w.rng
	w.round++
	acts := w.plan[:0]
	for range w.nodes {
		acts = append(acts, actHeartbeat)
	}
	for range (len(w.apps) + 1) / 2 {
		acts = append(acts, actAllocate)
	}
	if len(w.apps) < w.Apps || r.IntN(3) == 0 {
		acts = append(acts, actSubmit)
	}
	if len(w.apps) > w.Apps/2 && r.IntN(2) == 0 {
		acts = append(acts, actFinish)
	}
	// Actions a round holds with probability 1/oneIn each, drawn in this
	// order.
	occasional := [...]struct {
		oneIn int
		act   action
	}{
		{50, actAddNode}, {60, actRemoveNode}, {120, actNewReservation},
		{400, actUpdateReservation}, {400, actDeleteReservation},
		{20, actKill}, {60, actMove}, {500, actReload},
	}
	for _, o := range occasional {
		if r.IntN(o.oneIn) == 0 {
			acts = append(acts, o.act)
		}
	}
	r.Shuffle(len(acts), func(i, j int) { acts[i], acts[j] = acts[j], acts[i] })
	acts = append(acts, actFollower)
	if w.round%3 == 0 {
		acts = append(acts, actPreempt)
	}
	acts = append(acts, actClock)
	w.plan = acts
	w.hb = 0
}

func (w *Workload) next() Command {
	r := w.rng
	if w.newResv {
		w.newResv = false
		arr := w.now + int64(r.IntN(600))*1000
		def := &plan.Definition{Arrival: arr, Deadline: arr + 3600_000, Name: "job",
			Stages: []plan.Stage{{Capability: berth.New(1024, 1), Containers: int64(1 + r.IntN(8)), Concurrency: 1, Duration: int64(1+r.IntN(20)) * 60_000}}}
		return SubmitReservation{Request: plan.SubmissionRequest{Queue: w.queueName("dedicated"), ID: w.drawn, Definition: def, User: "u1"}}
	}
	if len(w.nodes) < w.Nodes {
		return w.addNode()
	}
	for {
		if len(w.plan) == 0 {
			w.newRound()
		}
		a := w.plan[0]
		w.plan = w.plan[1:]
		if c := w.command(a); c != nil {
			return c
		}
	}
}

// command builds the command of one action, or nil when the action has
// nothing to act on any more.
func (w *Workload) command(a action) Command {
	r := w.rng
	switch a {
	case actHeartbeat:
		return w.heartbeat()
	case actAllocate:
		return w.allocate()
	case actSubmit:
		return w.submit()
	case actFinish:
		if len(w.apps) == 0 {
			return nil
		}
		return FinishApp{App: w.apps[r.IntN(len(w.apps))]}
	case actAddNode:
		return w.addNode()
	case actRemoveNode:
		if len(w.nodes) <= w.Nodes/2 {
			return nil
		}
		return RemoveNode{ID: w.nodes[r.IntN(len(w.nodes))]}
	case actNewReservation:
		return NewReservationID{}
	case actUpdateReservation:
		return w.updateReservation()
	case actDeleteReservation:
		return w.deleteReservation()
	case actKill:
		return w.kill()
	case actMove:
		return w.move()
	case actReload:
		if w.kind == Fair {
			return ReloadConfig{File: []byte(DemoFairXML)}
		}
		return ReloadConfig{File: []byte(DemoCapacityXML)}
	case actFollower:
		return RunFollower{}
	case actPreempt:
		return PreemptionRound{}
	}
	return AdvanceClock{To: w.now + 1000}
}

// heartbeat is the next node's heartbeat, in turn, reporting about one in
// eight of its containers completed.
func (w *Workload) heartbeat() Command {
	if len(w.nodes) == 0 {
		return nil
	}
	n := w.nodes[w.hb%len(w.nodes)]
	w.hb++
	var done []queue.ContainerID
	for _, id := range w.byNode[n] {
		if w.rng.IntN(8) == 0 {
			done = append(done, id)
		}
	}
	return Heartbeat{Node: n, Completed: done}
}

// allocate is an application's ask for up to five containers of 1 or 2
// GB, releasing about one in ten of its containers.
func (w *Workload) allocate() Command {
	r := w.rng
	if len(w.apps) == 0 {
		return nil
	}
	app := w.apps[r.IntN(len(w.apps))]
	c := Allocate{App: app}
	mem := int64(1024 * (1 + r.IntN(2)))
	c.Asks = []queue.Ask{{Priority: 1, ResourceName: queue.AnyResource, Capability: berth.New(mem, 1), Count: r.IntN(6)}}
	for _, id := range w.byApp[app] {
		if r.IntN(10) == 0 {
			c.Release = append(c.Release, id)
		}
	}
	return c
}

// submit is a new application in queue a or b, of one of four users.
func (w *Workload) submit() Command {
	r := w.rng
	w.seq++
	q := "a"
	if r.IntN(2) == 0 {
		q = "b"
	}
	return SubmitApp{Spec: queue.AppSpec{ID: fmt.Sprintf("app_%d", w.seq), Queue: w.queueName(q),
		User: fmt.Sprintf("u%d", r.IntN(4)), AMResource: berth.New(1024, 1)}}
}

// updateReservation redraws a reservation's definition.
func (w *Workload) updateReservation() Command {
	r := w.rng
	if len(w.resv) == 0 {
		return nil
	}
	id := w.resv[r.IntN(len(w.resv))]
	arr := w.now + int64(r.IntN(600))*1000
	def := &plan.Definition{Arrival: arr, Deadline: arr + 7200_000, Name: "job",
		Stages: []plan.Stage{{Capability: berth.New(1024, 1), Containers: int64(1 + r.IntN(8)), Concurrency: 1, Duration: 600_000}}}
	return UpdateReservation{Request: plan.UpdateRequest{ID: id, Definition: def, User: "u1"}}
}

// deleteReservation deletes a reservation, which the workload forgets.
func (w *Workload) deleteReservation() Command {
	if len(w.resv) == 0 {
		return nil
	}
	i := w.rng.IntN(len(w.resv))
	id := w.resv[i]
	w.resv = append(w.resv[:i], w.resv[i+1:]...)
	return DeleteReservation{Request: plan.DeleteRequest{ID: id, User: "u1"}}
}

// kill kills one of an application's containers, or (one time in four, or
// when it holds none) the application.
func (w *Workload) kill() Command {
	r := w.rng
	if len(w.apps) == 0 {
		return nil
	}
	app := w.apps[r.IntN(len(w.apps))]
	if ids := w.byApp[app]; len(ids) > 0 && r.IntN(4) > 0 {
		return KillContainer{ID: ids[r.IntN(len(ids))]}
	}
	return KillApp{App: app}
}

// move moves an application to queue a or b.
func (w *Workload) move() Command {
	r := w.rng
	if len(w.apps) == 0 {
		return nil
	}
	q := "root.a"
	if r.IntN(2) == 0 {
		q = "root.b"
	}
	return MoveApp{App: w.apps[r.IntN(len(w.apps))], Target: q}
}

func (w *Workload) addNode() Command {
	if len(w.down) > 0 && w.rng.IntN(2) == 0 {
		return AddNode{Node: queue.NodeSpec{ID: w.down[0], Rack: "/r1", Capability: berth.New(8192, 8)}}
	}
	w.nextNode++
	rack := fmt.Sprintf("/r%d", w.nextNode%2)
	return AddNode{Node: queue.NodeSpec{ID: fmt.Sprintf("n%d", w.nextNode), Rack: rack, Capability: berth.New(8192, 8)}}
}

func remove[T comparable](s []T, v T) []T {
	for i, x := range s {
		if x == v {
			return append(s[:i], s[i+1:]...)
		}
	}
	return s
}

func (w *Workload) forget(id queue.ContainerID) {
	p, ok := w.live[id]
	if !ok {
		return
	}
	delete(w.live, id)
	w.byNode[p.node] = remove(w.byNode[p.node], id)
	w.byApp[p.app] = remove(w.byApp[p.app], id)
}

// Observe tells the workload what the last command returned.
func (w *Workload) Observe(r Result, err error) {
	for _, e := range r.Ended {
		w.forget(e.ID)
	}
	switch c := w.last.(type) {
	case AdvanceClock:
		if err == nil {
			w.now = c.To
		}
	case AddNode:
		if err == nil {
			w.nodes = append(w.nodes, c.Node.ID)
			w.down = remove(w.down, c.Node.ID)
		}
	case RemoveNode:
		if err == nil {
			w.nodes = remove(w.nodes, c.ID)
			w.down = append(w.down, c.ID)
			for _, id := range append([]queue.ContainerID(nil), w.byNode[c.ID]...) {
				w.forget(id)
			}
		}
	case Heartbeat:
		for _, id := range c.Completed {
			w.forget(id)
		}
		for _, a := range r.Allocations {
			w.byNode[a.Node] = append(w.byNode[a.Node], a.ID)
			w.byApp[a.App] = append(w.byApp[a.App], a.ID)
			w.live[a.ID] = placed{node: a.Node, app: a.App}
		}
	case SubmitApp:
		if err == nil {
			w.apps = append(w.apps, c.Spec.ID)
		}
	case Allocate:
		if err == nil {
			for _, id := range c.Release {
				w.forget(id)
			}
		}
	case FinishApp:
		w.ended(c.App, err)
	case KillApp:
		w.ended(c.App, err)
	case NewReservationID:
		if err == nil {
			w.newResv, w.drawn = true, r.Reservation
		}
	case SubmitReservation:
		if err == nil {
			w.resv = append(w.resv, c.Request.ID)
		}
	}
}

// ended forgets an application that finished or was killed, and its
// containers.
func (w *Workload) ended(app string, err error) {
	if err != nil {
		return
	}
	w.apps = remove(w.apps, app)
	for _, id := range append([]queue.ContainerID(nil), w.byApp[app]...) {
		w.forget(id)
	}
}
