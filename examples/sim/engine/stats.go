package engine

import (
	"github.com/berthsched/berth/capacity"
	"github.com/berthsched/berth/examples/sim/metrics"
	"github.com/berthsched/berth/fair"
	"github.com/berthsched/berth/queue"
)

// CapacityStats reports the configured leaves and plan queues of a
// capacity scheduler: effective guarantee, used, pending, applications.
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
// scheduler; the guarantee is the instantaneous fair share. Queues the
// placement policy creates later are not reported.
type FairStats struct {
	s     *fair.Scheduler
	paths []string
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

// Read implements Stats.
func (f *FairStats) Read(dst []metrics.QueueSample) {
	sn := f.s.Snapshot()
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
