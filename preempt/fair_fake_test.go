package preempt

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/fair"
)

// fakeFair is a FairScheduler over plain data, for property and fuzz
// tests that need worlds the real scheduler would take long to reach:
// fair shares and starvation are given, not computed.
type fakeFair struct {
	now        berth.Time
	cluster    berth.Resource
	queues     []fair.QueueInfo // root first
	apps       []fair.AppInfo
	nodes      []fair.NodeInfo
	resv       []fair.ReservationInfo
	containers map[fair.ContainerID]*fair.ContainerInfo
	asks       map[string][]fair.Ask
	backoff    map[string]berth.Time
}

var _ FairScheduler = (*fakeFair)(nil)

func (f *fakeFair) SnapshotOf(parts fair.SnapshotParts) *fair.Snapshot {
	sn := &fair.Snapshot{Time: f.now, Cluster: f.cluster}
	if parts&fair.SnapshotQueues != 0 {
		sn.Queues = slices.Clone(f.queues)
	}
	if parts&fair.SnapshotApps != 0 {
		sn.Apps = slices.Clone(f.apps)
	}
	if parts&fair.SnapshotNodes != 0 {
		sn.Nodes = slices.Clone(f.nodes)
	}
	if parts&fair.SnapshotReservations != 0 {
		sn.Reservations = slices.Clone(f.resv)
	}
	return sn
}

func (f *fakeFair) NodeContainers(node string) ([]fair.ContainerInfo, error) {
	var out []fair.ContainerInfo
	for _, c := range f.containers {
		if c.Node == node {
			out = append(out, *c)
		}
	}
	slices.SortFunc(out, func(a, b fair.ContainerInfo) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
}

func (f *fakeFair) PendingAsks(app string) ([]fair.Ask, error) {
	if f.app(app) == nil {
		return nil, &berth.FieldError{Field: "app.id", Value: app, Reason: "not found", Kind: berth.ErrNotFound}
	}
	return slices.Clone(f.asks[app]), nil
}

func (f *fakeFair) notFound(id fair.ContainerID) error {
	return &berth.FieldError{Field: "container.id", Value: id, Reason: "not found", Kind: berth.ErrNotFound}
}

func (f *fakeFair) MarkForPreemption(id fair.ContainerID) error {
	c := f.containers[id]
	if c == nil {
		return f.notFound(id)
	}
	c.MarkedForPreemption = true
	return nil
}

func (f *fakeFair) UnmarkForPreemption(id fair.ContainerID) error {
	c := f.containers[id]
	if c == nil {
		return f.notFound(id)
	}
	c.MarkedForPreemption = false
	return nil
}

func (f *fakeFair) PreemptContainer(id fair.ContainerID) (fair.Ended, error) {
	c := f.containers[id]
	if c == nil {
		return fair.Ended{}, f.notFound(id)
	}
	f.remove(c)
	return fair.Ended{Container: c.Container, Status: fair.Preempted}, nil
}

func (f *fakeFair) remove(c *fair.ContainerInfo) {
	delete(f.containers, c.ID)
	if a := f.app(c.App); a != nil {
		a.Usage = a.Usage.Sub(c.Resource)
		a.Containers--
	}
	for i := range f.nodes {
		if f.nodes[i].ID == c.Node {
			f.nodes[i].Allocated = f.nodes[i].Allocated.Sub(c.Resource)
		}
	}
	f.queues[0].Usage = f.queues[0].Usage.Sub(c.Resource)
}

func (f *fakeFair) ReservePreempted(node, app string, res berth.Resource) error {
	if f.app(app) == nil {
		return &berth.FieldError{Field: "app.id", Value: app, Reason: "not found", Kind: berth.ErrNotFound}
	}
	return nil
}

func (f *fakeFair) PreemptionTriggered(app string, until berth.Time) error {
	if f.app(app) == nil {
		return &berth.FieldError{Field: "app.id", Value: app, Reason: "not found", Kind: berth.ErrNotFound}
	}
	f.backoff[app] = until
	return nil
}

func (f *fakeFair) app(id string) *fair.AppInfo {
	for i := range f.apps {
		if f.apps[i].ID == id {
			return &f.apps[i]
		}
	}
	return nil
}

// randomFakeFair builds a random full-ish cluster: nodes of 4–8 GB, 2–3
// leaf queues (some not preemptable), applications with containers of
// 1–2 GB (the first of each an AM), fair shares drawn below or above
// usage, and starvation with asks for some applications (none when
// starve is false). Container reservations hold part of some nodes.
func randomFakeFair(r *rand.Rand, starve bool) *fakeFair {
	gb := func(n int64) berth.Resource { return berth.New(n*1024, n) }
	f := &fakeFair{containers: map[fair.ContainerID]*fair.ContainerInfo{}, asks: map[string][]fair.Ask{}, backoff: map[string]berth.Time{}}
	f.queues = []fair.QueueInfo{{Path: "root", Preemptable: true}}
	nq := 2 + r.IntN(2)
	for i := range nq {
		f.queues = append(f.queues, fair.QueueInfo{Path: fmt.Sprintf("root.q%d", i), Parent: "root", Leaf: true, Preemptable: r.IntN(4) != 0,
			Policy: []fair.Policy{fair.PolicyFair, fair.PolicyDRF}[r.IntN(2)]})
	}
	nn := 1 + r.IntN(6)
	for i := range nn {
		f.nodes = append(f.nodes, fair.NodeInfo{ID: fmt.Sprintf("n%d", i), Rack: fmt.Sprintf("/r%d", i%2), Capability: gb(4 + r.Int64N(5))})
		f.cluster = f.cluster.Add(f.nodes[i].Capability)
	}
	na := 1 + r.IntN(5)
	for i := range na {
		q := f.queues[1+r.IntN(nq)]
		f.apps = append(f.apps, fair.AppInfo{ID: fmt.Sprintf("app%d", i), Queue: q.Path, User: "u", Runnable: true, Start: berth.Time(i)})
	}
	var id fair.ContainerID
	for ni := range f.nodes {
		n := &f.nodes[ni]
		if r.IntN(5) == 0 {
			res := gb(1)
			f.resv = append(f.resv, fair.ReservationInfo{ID: 10000 + fair.ContainerID(ni), App: f.apps[r.IntN(na)].ID, Node: n.ID, Resource: res})
		}
		for {
			size := gb(1 + r.Int64N(2))
			if !n.Allocated.Add(size).FitsIn(n.Capability) || r.IntN(8) == 0 {
				break
			}
			a := &f.apps[r.IntN(na)]
			id++
			c := &fair.ContainerInfo{Container: fair.Container{ID: id, App: a.ID, Node: n.ID, Queue: a.Queue, User: "u", Resource: size,
				Priority: 1, AM: a.Containers == 0, Time: berth.Time(id)}}
			for _, q := range f.queues {
				if q.Path == a.Queue {
					c.Preemptable = q.Preemptable
				}
			}
			if c.AM {
				a.AMRunning, a.AMResource = true, size
			}
			a.Containers++
			a.Usage = a.Usage.Add(size)
			n.Allocated = n.Allocated.Add(size)
			f.queues[0].Usage = f.queues[0].Usage.Add(size)
			f.containers[id] = c
		}
	}
	for i := range f.apps {
		a := &f.apps[i]
		share := a.Usage.Memory/1024 + r.Int64N(5) - 2
		a.FairShare = gb(max(share, 0))
		a.Demand = a.Usage
		if starve && r.IntN(2) == 0 {
			st := gb(1 + r.Int64N(6))
			if r.IntN(2) == 0 {
				a.FairShareStarvation = st
			} else {
				a.MinShareStarvation = st
			}
			a.Demand = a.Usage.Add(st).Add(gb(1))
			ask := fair.Ask{Priority: 1, ResourceName: fair.AnyResource, Capability: gb(1 + r.Int64N(2)), Count: 1 + r.IntN(6)}
			asks := []fair.Ask{ask}
			if r.IntN(3) == 0 {
				host := ask
				host.ResourceName = f.nodes[r.IntN(nn)].ID
				host.StrictLocality = r.IntN(2) == 0
				asks = append(asks, host)
			}
			f.asks[a.ID] = asks
		}
	}
	return f
}
