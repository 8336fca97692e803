package report

import (
	"math"
	"slices"
	"strings"

	"github.com/berthsched/berth/examples/sim/metrics"
)

// QueueSummary is one queue's line of the summary table.
type QueueSummary struct {
	Queue                        string
	Jobs, Finished               int
	WaitMean, WaitP50, WaitP95   float64 // seconds
	RunMean, RunP50, RunP95      float64 // seconds
	MeanUsedGB, MeanGuaranteedGB float64
	// Marked and Preempted count the queue's containers a preemption
	// policy marked, and those preempted, over the run.
	Marked, Preempted int
}

// Summary is the run at a glance.
type Summary struct {
	Scheduler string
	// ShareLabel names what QueueSummary.MeanGuaranteedGB is under the
	// run's scheduler: "guaranteed" (capacity) or "fair share" (fair).
	ShareLabel                     string
	SimulatedHours                 float64
	Events                         uint64
	Jobs, Finished, Containers     int
	Preempted, Lost, Marked        int
	Reservations, Accepted         int
	Removed, DeadlinesMet, Replans int
	Queues                         []QueueSummary
}

// Summarize computes the summary of a run.
func Summarize(r *metrics.Run) Summary {
	s := Summary{Scheduler: r.Scheduler, ShareLabel: ShareLabel(r.Scheduler), SimulatedHours: float64(r.End) / 3.6e6, Events: r.Events, Jobs: len(r.Jobs), Replans: r.Replans}
	byQueue := map[string]*QueueSummary{}
	waits, runs := map[string][]float64{}, map[string][]float64{}
	var order []string
	for _, j := range r.Jobs {
		q, ok := byQueue[j.Queue]
		if !ok {
			q = &QueueSummary{Queue: j.Queue}
			byQueue[j.Queue] = q
			order = append(order, j.Queue)
		}
		q.Jobs++
		s.Containers += j.Containers
		s.Preempted += j.Preempted
		s.Lost += j.Lost
		if j.Finished > 0 {
			s.Finished++
			q.Finished++
			runs[j.Queue] = append(runs[j.Queue], float64(j.Finished-j.Submitted)/1000)
			if j.Deadline > 0 && j.Finished <= j.Deadline {
				s.DeadlinesMet++
			}
		}
		if w := j.Wait(); w >= 0 {
			waits[j.Queue] = append(waits[j.Queue], float64(w)/1000)
		}
	}
	for _, v := range r.Reservations {
		s.Reservations++
		if v.Accepted {
			s.Accepted++
		}
		if v.Removed > 0 {
			s.Removed++
		}
	}
	if len(r.Samples) > 0 {
		s.Marked = r.Samples[len(r.Samples)-1].Marked
	}
	slices.Sort(order)
	for _, name := range order {
		q := byQueue[name]
		q.WaitMean, q.WaitP50, q.WaitP95 = stats(waits[name])
		q.RunMean, q.RunP50, q.RunP95 = stats(runs[name])
		for i, rq := range r.Queues {
			if strings.HasSuffix(rq, "."+name) || rq == name {
				var used, guar float64
				for _, sm := range r.Samples {
					used += float64(sm.Queues[i].Used.Memory)
					guar += float64(sm.Queues[i].Guaranteed.Memory)
				}
				if n := float64(len(r.Samples)); n > 0 {
					q.MeanUsedGB, q.MeanGuaranteedGB = used/n/1024, guar/n/1024
					last := r.Samples[len(r.Samples)-1].Queues[i]
					q.Marked, q.Preempted = last.Marked, last.Preempted
				}
			}
		}
		s.Queues = append(s.Queues, *q)
	}
	return s
}

// ShareLabel names what a queue is entitled to under the scheduler: the
// capacity scheduler's guarantee, the fair scheduler's fair share.
func ShareLabel(scheduler string) string {
	if scheduler == "fair" {
		return "fair share"
	}
	return "guaranteed"
}

func stats(xs []float64) (mean, p50, p95 float64) {
	if len(xs) == 0 {
		return 0, 0, 0
	}
	ys := slices.Clone(xs)
	slices.Sort(ys)
	sum := 0.0
	for _, y := range ys {
		sum += y
	}
	return sum / float64(len(ys)), Percentile(ys, 0.5), Percentile(ys, 0.95)
}

// Percentile is the nearest-rank p-quantile (0 < p ≤ 1) of sorted values,
// 0 for none.
func Percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[max(0, min(len(sorted)-1, int(math.Ceil(p*float64(len(sorted))))-1))]
}
