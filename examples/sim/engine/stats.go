package engine

import (
	"slices"

	"github.com/berthsched/berth/capacity"
	"github.com/berthsched/berth/examples/sim/metrics"
	"github.com/berthsched/berth/examples/sim/trace"
	"github.com/berthsched/berth/fair"
	"github.com/berthsched/berth/queue"
)

// CapacityStats reports the configured leaves and plan queues of a
// capacity scheduler, and the auto-created leaves it is told of
// (Expect): effective guarantee, used, pending, applications.
type CapacityStats struct {
	s     *capacity.Scheduler
	paths []string
}

// NewCapacityStats lists the queues to report as they are now.
func NewCapacityStats(s *capacity.Scheduler) *CapacityStats {
	cs := &CapacityStats{s: s}
	for _, q := range s.Snapshot().Queues.Queues {
		if q.Kind == queue.KindLeaf || q.Kind == queue.KindPlan {
			cs.paths = append(cs.paths, q.Path.String())
		}
	}
	return cs
}

// Expect adds leaf queues the scheduler will create as applications
// arrive (auto-created queues), reported from the start (empty until
// they exist).
func (c *CapacityStats) Expect(paths []string) {
	for _, p := range paths {
		if !slices.Contains(c.paths, p) {
			c.paths = append(c.paths, p)
		}
	}
}

// Queues implements Stats.
func (c *CapacityStats) Queues() []string { return c.paths }

// Read implements Stats.
func (c *CapacityStats) Read(dst []metrics.QueueSample) {
	sn := c.s.Snapshot()
	for i, p := range c.paths {
		path, err := queue.ParsePath(p)
		if err != nil {
			continue
		}
		q := sn.Queues.Get(path)
		if q == nil {
			continue
		}
		dst[i] = metrics.QueueSample{Guaranteed: q.Extra.Guaranteed, Used: q.Usage.Used, Pending: q.Usage.Pending,
			ActiveApps: q.Usage.ActiveApps, PendingApps: q.Usage.PendingApps}
	}
}

// FairStats reports the configured leaves and plan queues of a fair
// scheduler, and the leaves its placement policy will create for the
// jobs it is told of (Expect); the guarantee is the instantaneous fair
// share.
type FairStats struct {
	s     *fair.Scheduler
	paths []string
}

// Expect adds the leaf queues the placement policy puts the jobs in
// (fair.Scheduler.Place), in the jobs' order: without an allocation file,
// or with undeclared queues allowed, the queues are created only as
// applications arrive, and they are reported from the start (empty until
// then). Jobs the policy rejects are left out.
func (f *FairStats) Expect(jobs []trace.Job) {
	known := map[string]bool{}
	for _, p := range f.paths {
		known[p] = true
	}
	for _, j := range jobs {
		q, err := f.s.Place(j.Queue, j.User)
		if err != nil || q == "" || known[q] {
			continue
		}
		known[q] = true
		f.paths = append(f.paths, q)
	}
}

// NewFairStats lists the queues to report as they are now.
func NewFairStats(s *fair.Scheduler) *FairStats {
	fs := &FairStats{s: s}
	for _, q := range s.Snapshot().Queues {
		if (q.Leaf && !q.Reservation) || q.Plan {
			fs.paths = append(fs.paths, q.Path)
		}
	}
	return fs
}

// Queues implements Stats.
func (f *FairStats) Queues() []string { return f.paths }

// Read implements Stats. It copies the queues and the tree only, not the
// applications and containers.
func (f *FairStats) Read(dst []metrics.QueueSample) {
	sn := f.s.SnapshotOf(fair.SnapshotQueues | fair.SnapshotTree)
	for i, p := range f.paths {
		q := sn.Queue(p)
		if q == nil {
			continue
		}
		out := metrics.QueueSample{Guaranteed: q.FairShare, Used: q.Usage}
		if path, err := queue.ParsePath(p); err == nil && sn.Tree != nil {
			if tq := sn.Tree.Get(path); tq != nil {
				out.Pending = tq.Usage.Pending
				out.ActiveApps, out.PendingApps = tq.Usage.ActiveApps, tq.Usage.PendingApps
			}
		}
		if out.Pending.IsZero() {
			// The fair scheduler's tree does not carry pending asks: the
			// demand of its last update less what is used now is the
			// same figure (demand counts usage plus outstanding asks).
			out.Pending = q.Demand.SubNonNegative(q.Usage)
		}
		dst[i] = out
	}
}
