package metrics

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// WriteJobRuntime writes SLS's jobruntime.csv: JobID, real_start_time,
// real_end_time (the trace's times), simulate_start_time and
// simulate_end_time (the simulated submission and finish; −1 when the
// job did not finish by the end of the run), in trace order. As in SLS,
// whose AM records its runtime only once its AM container launched, a
// job whose AM never launched has no row.
func WriteJobRuntime(w io.Writer, r *Run) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "JobID,real_start_time,real_end_time,simulate_start_time,simulate_end_time")
	for _, j := range r.Jobs {
		if !j.Launched() {
			continue
		}
		end := j.Finished
		if end == 0 {
			end = -1
		}
		fmt.Fprintf(bw, "%s,%d,%d,%d,%d\n", csvField(j.ID), j.TraceStart, j.TraceEnd, j.Submitted, end)
	}
	return bw.Flush()
}

// WriteJobs writes jobs.csv: one row per job with its queue, wait,
// runtime, containers, preemptions, reservation and the node of its AM
// container (its last attempt's; empty when it never launched), and when
// its lifetime ran out and it was killed (0: it did not).
func WriteJobs(w io.Writer, r *Run) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "job,queue,ran_in,user,am_type,submitted,am_started,first_task,finished,wait_ms,runtime_ms,containers,preempted,lost,attempts,reservation,deadline,met_deadline,am_node,expired")
	for _, j := range r.Jobs {
		runtime := int64(-1)
		if j.Finished > 0 {
			runtime = j.Finished - j.Submitted
		}
		met := ""
		if j.Deadline > 0 {
			met = strconv.FormatBool(j.Finished > 0 && j.Finished <= j.Deadline)
		}
		fmt.Fprintf(bw, "%s,%s,%s,%s,%s,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%s,%d,%s,%s,%d\n",
			csvField(j.ID), csvField(j.Queue), csvField(j.RanIn), csvField(j.User), j.AMType,
			j.Submitted, j.AMStarted, j.FirstTask, j.Finished, j.Wait(), runtime,
			j.Containers, j.Preempted, j.Lost, j.Attempts, csvField(j.Reservation), j.Deadline, met, csvField(j.AMNode), j.Expired)
	}
	return bw.Flush()
}

// WriteCluster writes cluster.csv: the cluster over time (memory in MB).
func WriteCluster(w io.Writer, r *Run) error {
	bw := bufio.NewWriter(w)
	fmt.Fprint(bw, "time_ms,nodes,capacity_mb,capacity_vcores,allocated_mb,allocated_vcores,pending_mb,pending_vcores,running_apps,running_containers,preempted,lost,marked")
	for _, p := range r.Plans {
		fmt.Fprintf(bw, ",%s.plan_capacity_mb,%s.plan_committed_mb", p, p)
	}
	fmt.Fprintln(bw)
	for _, s := range r.Samples {
		fmt.Fprintf(bw, "%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d", s.Time, s.Nodes, s.Capacity.Memory, s.Capacity.VCores,
			s.Allocated.Memory, s.Allocated.VCores, s.Pending.Memory, s.Pending.VCores,
			s.RunningApps, s.RunningContainers, s.Preempted, s.Lost, s.Marked)
		for i := range r.Plans {
			fmt.Fprintf(bw, ",%d,%d", s.PlanCapacity[i].Memory, s.PlanCommitted[i].Memory)
		}
		fmt.Fprintln(bw)
	}
	return bw.Flush()
}

// WriteQueues writes queues.csv: one row per sample and queue (memory in
// MB).
func WriteQueues(w io.Writer, r *Run) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "time_ms,queue,guaranteed_mb,used_mb,pending_mb,guaranteed_vcores,used_vcores,pending_vcores,active_apps,pending_apps,marked,preempted")
	for _, s := range r.Samples {
		for i, q := range s.Queues {
			fmt.Fprintf(bw, "%d,%s,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d\n", s.Time, csvField(r.Queues[i]),
				q.Guaranteed.Memory, q.Used.Memory, q.Pending.Memory, q.Guaranteed.VCores, q.Used.VCores, q.Pending.VCores,
				q.ActiveApps, q.PendingApps, q.Marked, q.Preempted)
		}
	}
	return bw.Flush()
}

// WriteReservations writes reservations.csv.
func WriteReservations(w io.Writer, r *Run) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "reservation,job,queue,user,arrival,deadline,accepted,start,end,removed,reason")
	for _, v := range r.Reservations {
		fmt.Fprintf(bw, "%s,%s,%s,%s,%d,%d,%t,%d,%d,%d,%s\n", csvField(v.ID), csvField(v.Job), csvField(v.Queue), csvField(v.User),
			v.Arrival, v.Deadline, v.Accepted, v.Start, v.End, v.Removed, csvField(v.Reason))
	}
	return bw.Flush()
}

// WriteTimeline writes timeline.csv: one row per event of the run's
// timeline (memory in MB).
func WriteTimeline(w io.Writer, r *Run) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "time_ms,event,node,rack,queue,reservation,containers,ams,memory_mb,vcores,detail")
	for _, e := range r.Timeline {
		fmt.Fprintf(bw, "%d,%s,%s,%s,%s,%s,%d,%d,%d,%d,%s\n", e.Time, e.Kind, csvField(e.Node), csvField(e.Rack), csvField(e.Queue),
			csvField(e.Reservation), e.Containers, e.AMs, e.Resource.Memory, e.Resource.VCores, csvField(e.Detail))
	}
	return bw.Flush()
}

// csvField quotes a field when it needs it (RFC 4180).
func csvField(s string) string {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ',', '"', '\n', '\r':
			return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
		}
	}
	return s
}
