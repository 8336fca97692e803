package engine

import (
	"strings"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/examples/sim/metrics"
)

// firstSamplePeriod is where adaptive sampling starts: a second, doubled
// while the inputs' last time (the latest submission, trace end or node
// event, or Config.End) would take 2 × SampleBudget samples, so a long
// run does not sample densely only to thin the samples out later.
func firstSamplePeriod(cfg Config) berth.Duration {
	horizon := cfg.End
	if horizon == 0 {
		for _, j := range cfg.Jobs {
			horizon = max(horizon, j.Start, j.End)
		}
		for _, ne := range cfg.NodeEvents {
			horizon = max(horizon, ne.At)
		}
	}
	every := berth.Duration(1000)
	for horizon/every >= berth.Duration(2*cfg.SampleBudget) {
		every *= 2
	}
	return every
}

// sampleTick records a sample at the current period's grid points and
// schedules the next; adaptively, a full budget halves the samples and
// doubles the period (a pending tick off the new grid records nothing).
func (e *Engine) sampleTick(now berth.Time) {
	if now%e.sampleEvery == 0 {
		e.sample(now)
		if e.cfg.SampleInterval == 0 && len(e.run.Samples) >= 2*e.cfg.SampleBudget {
			e.sampleEvery *= 2
			kept := e.run.Samples[:0]
			for _, s := range e.run.Samples {
				if s.Time%e.sampleEvery == 0 {
					kept = append(kept, s)
				}
			}
			clear(e.run.Samples[len(kept):])
			e.run.Samples = kept
		}
	}
	e.push(event{at: (now/e.sampleEvery + 1) * e.sampleEvery, kind: evSample})
}

func (e *Engine) sample(now berth.Time) {
	s := metrics.Sample{Time: now, Capacity: e.cluster, Pending: e.pendingRes, Nodes: e.liveNodes,
		RunningApps: e.runApps, RunningContainers: e.running, Preempted: e.preempted, Lost: e.lost, Marked: e.marked,
		Queues: make([]metrics.QueueSample, len(e.run.Queues))}
	e.cfg.Stats.Read(s.Queues)
	for i := range s.Queues {
		s.Queues[i].Marked, s.Queues[i].Preempted = e.qMarked[i], e.qPreempted[i]
	}
	s.Allocated = berth.New(e.used.mem, e.used.vc)
	for _, p := range e.plans {
		s.PlanCapacity = append(s.PlanCapacity, p.Capacity())
		s.PlanCommitted = append(s.PlanCommitted, p.TotalCommitted(now))
	}
	e.run.Samples = append(e.run.Samples, s)
}

// queueOf finds the reported queue a container's queue path counts for:
// itself, or its nearest reported ancestor (a reservation queue counts for
// its plan).
func (e *Engine) queueOf(path string) (int, bool) {
	for {
		if i, ok := e.queueIdx[path]; ok {
			return i, true
		}
		dot := strings.LastIndexByte(path, '.')
		if dot < 0 {
			return 0, false
		}
		path = path[:dot]
	}
}
