package fair

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

const fuzzAlloc = `<allocations>
<queue name="root"><schedulingPolicy>drf</schedulingPolicy>
  <queue name="a"><weight>2</weight><maxRunningApps>3</maxRunningApps></queue>
  <queue name="b"><schedulingPolicy>drf</schedulingPolicy><maxResources>50%</maxResources></queue>
  <queue name="c"><schedulingPolicy>fifo</schedulingPolicy><minResources>2048 mb, 2 vcores</minResources></queue>
  <queue name="p" type="parent"><maxChildResources>8192 mb, 8 vcores</maxChildResources></queue>
  <queue name="plan"><reservation/></queue>
</queue>
<user name="u1"><maxRunningApps>2</maxRunningApps></user>
</allocations>`

// fuzzReloads are files a random run switches between: queues change
// type, disappear and come back.
var fuzzReloads = []string{fuzzAlloc, `<allocations>
<queue name="root"><schedulingPolicy>drf</schedulingPolicy>
  <queue name="a" type="parent"><queue name="x"/></queue>
  <queue name="newq"><weight>3</weight><aclSubmitApps>u1</aclSubmitApps></queue>
  <queue name="p"><maxRunningApps>1</maxRunningApps></queue>
</queue>
<queueMaxAppsDefault>4</queueMaxAppsDefault>
</allocations>`, `<allocations><queue name="c"><schedulingPolicy>fair</schedulingPolicy></queue>
<queuePlacementPolicy><rule name="specified" create="false"/><rule name="user"/></queuePlacementPolicy></allocations>`}

// runOps drives a scheduler with random operations and checks its books
// after each one and its fair shares after each update.
func runOps(t *testing.T, seed uint64, steps int) { runOpsWith(t, seed, steps, nil) }

// runOpsWith is runOps calling hook with the scheduler and its clock
// before the first step (step −1) and after every step.
func runOpsWith(t *testing.T, seed uint64, steps int, hook func(s *Scheduler, clock *berth.ManualClock, step int)) {
	rng := rand.New(rand.NewPCG(seed, 7))
	af, err := ParseAllocationFile([]byte(fuzzAlloc), ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.AssignMultiple = rng.IntN(2) == 0
	cfg.Preemption = rng.IntN(2) == 0
	cfg.PreemptionUtilizationThreshold = 0.1
	if rng.IntN(2) == 0 {
		cfg.LocalityThresholdNode, cfg.LocalityThresholdRack = 0.3, 0.3
	}
	cfg.Groups = queue.GroupsFunc(func(u string) []string { return []string{"g" + u} })
	clock := berth.NewManualClock(0)
	cfg.Allocation = af
	cfg.Clock = clock
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if hook != nil {
		hook(s, clock, -1)
	}
	queues := []string{"a", "b", "c", "p.x", "p.y", "plan", "default", "newq"}
	var nodes, apps []string
	var live []ContainerID
	var trace []int
	for step := range steps {
		op := rng.IntN(13)
		trace = append(trace, op)
		switch op {
		case 10:
			af, err := ParseAllocationFile([]byte(fuzzReloads[rng.IntN(len(fuzzReloads))]), ParseOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.Reload(af); err != nil {
				t.Fatal(err)
			}
		case 0:
			id := fmt.Sprintf("n%d", step)
			if s.AddNode(NodeSpec{ID: id, Rack: fmt.Sprintf("/r%d", rng.IntN(2)), Capability: berth.New(1024*int64(1+rng.IntN(8)), int64(1+rng.IntN(8)))}) == nil {
				nodes = append(nodes, id)
			}
		case 1:
			if len(nodes) > 0 {
				i := rng.IntN(len(nodes))
				_, _ = s.RemoveNode(nodes[i])
				nodes = append(nodes[:i], nodes[i+1:]...)
			}
		case 2:
			id := fmt.Sprintf("app%d", step)
			spec := AppSpec{ID: id, Queue: queues[rng.IntN(len(queues))], User: fmt.Sprintf("u%d", rng.IntN(3))}
			if rng.IntN(3) == 0 {
				spec.AMResource = berth.New(512, 1)
			}
			if _, err := s.SubmitApp(spec); err == nil {
				apps = append(apps, id)
			}
		case 3, 4:
			if len(apps) > 0 {
				a := apps[rng.IntN(len(apps))]
				name := AnyResource
				if len(nodes) > 0 && rng.IntN(3) == 0 {
					name = nodes[rng.IntN(len(nodes))]
				}
				_, _ = s.Allocate(a, []Ask{{Priority: int32(rng.IntN(3)), ResourceName: name, Capability: berth.New(256*int64(1+rng.IntN(12)), int64(1+rng.IntN(3))), Count: rng.IntN(6), StrictLocality: rng.IntN(5) == 0}}, nil)
			}
		case 5, 6:
			if len(nodes) > 0 {
				n := nodes[rng.IntN(len(nodes))]
				var done []ContainerID
				if len(live) > 0 && rng.IntN(2) == 0 {
					done = append(done, live[rng.IntN(len(live))])
				}
				als, _ := s.Heartbeat(n, done)
				for _, al := range als {
					live = append(live, al.ID)
				}
			}
		case 7:
			clock.Advance(int64(rng.IntN(1500)))
			s.Update()
			checkShares(t, s)
		case 8:
			if len(apps) > 0 {
				i := rng.IntN(len(apps))
				if rng.IntN(3) == 0 {
					_, _ = s.MoveApp(apps[i], queues[rng.IntN(len(queues))])
				} else {
					_, _ = s.FinishApp(apps[i])
					apps = append(apps[:i], apps[i+1:]...)
				}
			}
		case 9:
			if len(live) > 0 {
				id := live[rng.IntN(len(live))]
				// A preemptor's protocol: mark, earmark the room for a
				// starved application, then kill or take the mark back.
				_ = s.MarkForPreemption(id)
				if len(apps) > 0 && len(nodes) > 0 {
					_ = s.ReservePreempted(nodes[rng.IntN(len(nodes))], apps[rng.IntN(len(apps))], berth.New(1024, 1))
				}
				if rng.IntN(4) == 0 {
					_ = s.UnmarkForPreemption(id)
				} else {
					_, _ = s.PreemptContainer(id)
				}
			}
		case 11:
			// the plan follower's edits
			r := fmt.Sprintf("r%d", rng.IntN(3))
			switch rng.IntN(4) {
			case 0:
				_ = s.AddReservationQueue("plan", r)
			case 1:
				_ = s.SetEntitlement("root.plan."+r, Entitlement{Capacity: float32(rng.IntN(5)) / 4, MaxCapacity: 1})
			case 2:
				_ = s.RemoveReservationQueue("root.plan." + r)
			case 3:
				if _, err := s.SubmitApp(AppSpec{ID: fmt.Sprintf("app%d", step), Queue: "plan", User: "u1", ReservationID: r}); err == nil {
					apps = append(apps, fmt.Sprintf("app%d", step))
				}
			}
		case 12:
			checkFollowerView(t, s)
		}
		if err := s.Check(); err != nil {
			t.Fatalf("seed %d step %d: %v (last ops %v)", seed, step, err, trace[max(0, len(trace)-12):])
		}
		if hook != nil {
			hook(s, clock, step)
		}
	}
}

// checkShares: children's shares stay within their parent's (up to one
// unit each of rounding, or their minimum shares) and within their max
// share.
func checkShares(t *testing.T, s *Scheduler) {
	sn := s.Snapshot()
	byParent := map[string][]QueueInfo{}
	for _, q := range sn.Queues {
		if q.FairShare.Memory > q.MaxShare.Memory || q.SteadyFairShare.Memory > q.MaxShare.Memory {
			t.Fatalf("queue %s share %v above max %v", q.Path, q.FairShare, q.MaxShare)
		}
		byParent[q.Parent] = append(byParent[q.Parent], q)
	}
	for _, p := range sn.Queues {
		kids := byParent[p.Path]
		var sum, mins int64
		for _, k := range kids {
			sum += k.FairShare.Memory
			mins += k.MinShare.Memory
		}
		// Minimum shares are granted even beyond the parent's share, as in
		// YARN; otherwise only rounding may overshoot.
		if sum > max(p.FairShare.Memory, mins)+int64(len(kids)) {
			t.Fatalf("children of %s get %d > %d", p.Path, sum, p.FairShare.Memory)
		}
	}
}

// checkFollowerView: the plan follower's accessors agree with a snapshot.
func checkFollowerView(t *testing.T, s *Scheduler) {
	sn := s.Snapshot()
	for _, p := range s.PlanQueues() {
		pr, err := s.PlanResources(p)
		if err != nil || !pr.Equal(plannedShare(sn, s.Config().ResourceTypes, p)) {
			t.Fatalf("plan %s resources %v (%v), snapshot %v", p, pr, err, sn.Queue(p).SteadyFairShare)
		}
		names, err := s.ReservationQueueNames(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range names {
			_, res, err := s.ReservationQueueState(p, n)
			if err != nil || !res.Equal(plannedShare(sn, s.Config().ResourceTypes, n)) {
				t.Fatalf("queue %s resources %v (%v), snapshot %v", n, res, err, sn.Queue(n).SteadyFairShare)
			}
		}
	}
	for _, q := range sn.Queues {
		got, err := s.AppsInQueue(q.Path)
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, a := range sn.Apps {
			if a.Queue == q.Path || strings.HasPrefix(a.Queue, q.Path+".") {
				want = append(want, a.ID)
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("apps in %s: %v, snapshot %v", q.Path, got, want)
		}
	}
}

func TestSchedulerRandomOps(t *testing.T) {
	n := 40
	if testing.Short() || raceEnabled {
		n = 8
	}
	for seed := range uint64(n) {
		runOps(t, seed, 300)
	}
}

func FuzzScheduler(f *testing.F) {
	for _, s := range []uint64{1, 2, 3, 99} {
		f.Add(s, uint16(200))
	}
	f.Fuzz(func(t *testing.T, seed uint64, steps uint16) {
		runOps(t, seed, int(steps%600))
	})
}
