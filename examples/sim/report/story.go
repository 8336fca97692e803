package report

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/examples/sim/metrics"
)

// maxStretches bounds the stretches of starvation of one queue the story
// names one by one; the timeline table lists them all.
const maxStretches = 3

// Story tells the run in a few sentences generated from its records: what
// ran, what each loss of nodes cost, which queue starved when and what
// preemption took from whom, how the reservations fared, who waited
// longest, and whether the run stalled.
func Story(r *metrics.Run) []string {
	return analyse(r).story(Summarize(r))
}

func (t *timeline) story(s Summary) []string {
	r := t.run
	var out []string
	if len(r.Samples) > 0 {
		first := r.Samples[0]
		line := fmt.Sprintf("%s (%s) ran on %s (%s, %s vcores) for %s under the %s scheduler; %s.",
			count(s.Jobs, "job", "jobs"), count(s.Containers, "container", "containers"), count(first.Nodes, "node", "nodes"),
			memory(first.Capacity.Memory), thousands(first.Capacity.VCores), dur(r.End), s.Scheduler, finished(s))
		out = append(out, line)
	}
	for i := range t.outages {
		out = append(out, t.outageStory(&t.outages[i]))
	}
	told := map[int]bool{}
	var queues []string
	for _, st := range t.starved {
		if !slices.Contains(queues, st.Queue) {
			queues = append(queues, st.Queue)
		}
	}
	for _, q := range queues {
		out = append(out, t.starvedStory(q, told))
	}
	for k, p := range t.preemption {
		if !told[k] {
			when := fmt.Sprintf("From %s to %s", clock(p.From, t.end), clock(p.To, t.end))
			if p.From == p.To {
				when = "At " + clock(p.From, t.end)
			}
			out = append(out, fmt.Sprintf("%s preemption killed %s.", when, victims(p.Victims)))
		}
	}
	if line := t.reservationStory(); line != "" {
		out = append(out, line)
	}
	if line := waitStory(s); line != "" {
		out = append(out, line)
	}
	if line := reasonStory(r); line != "" {
		out = append(out, line)
	}
	for _, ev := range t.stalls {
		out = append(out, fmt.Sprintf("The run stalled at %s: %s.", clock(ev.Time, t.end), ev.Detail))
	}
	return out
}

func finished(s Summary) string {
	if s.Finished == s.Jobs {
		return "every job finished"
	}
	return fmt.Sprintf("%s finished, %s did not", thousands(int64(s.Finished)), thousands(int64(s.Jobs-s.Finished)))
}

// outageStory: what went down, for how long, what it ended, what the
// plans lost and how much longer jobs waited meanwhile.
func (t *timeline) outageStory(o *outage) string {
	var b strings.Builder
	fmt.Fprintf(&b, "At %s %s went down (%s", clock(o.From, t.end), o.what(), memory(o.Resource.Memory))
	if o.Share > 0 {
		fmt.Fprintf(&b, ", %s of the cluster", percent(o.Share))
	}
	if o.Returned {
		fmt.Fprintf(&b, ") for %s", dur(o.To-o.From))
	} else {
		b.WriteString(") and did not come back")
	}
	if o.Containers == 0 {
		b.WriteString(": no container was running on them")
	} else {
		fmt.Fprintf(&b, ": the loss ended %s", count(o.Containers, "running container", "running containers"))
	}
	if o.AMs > 0 {
		fmt.Fprintf(&b, ", %s whose %s restarted", count(o.AMs, "of them an application master", "of them application masters"),
			map[bool]string{true: "application", false: "applications"}[o.AMs == 1])
	}
	b.WriteString(".")
	var plans []string
	removed := 0
	for _, ev := range t.replans {
		if ev.Time >= o.From && ev.Time <= o.To && !slices.Contains(plans, ev.Queue) {
			plans = append(plans, ev.Queue)
		}
	}
	for _, ev := range t.reservations {
		if ev.Kind == metrics.ReservationRemoved && ev.Time >= o.From && ev.Time <= o.To {
			removed++
		}
	}
	if len(plans) > 0 {
		fmt.Fprintf(&b, " The plan follower found %s over-committed", list(plans))
		if removed > 0 {
			fmt.Fprintf(&b, " and the replanner removed %s", count(removed, "reservation", "reservations"))
		}
		b.WriteString(".")
	}
	during, other := waitsDuring(t.run, o.From, o.To)
	if len(during) >= 5 && len(other) >= 5 {
		_, _, pd := stats(during)
		_, _, po := stats(other)
		fmt.Fprintf(&b, " Jobs submitted while the nodes were down waited %s at the 95th percentile, against %s for the rest of the run.", secs(pd), secs(po))
	}
	return b.String()
}

// waitsDuring splits the jobs' waits (s) by submission inside [from, to].
func waitsDuring(r *metrics.Run, from, to berth.Time) (during, other []float64) {
	for i := range r.Jobs {
		j := &r.Jobs[i]
		w := j.Wait()
		if w < 0 {
			continue
		}
		if j.Submitted >= from && j.Submitted <= to {
			during = append(during, float64(w)/1000)
		} else {
			other = append(other, float64(w)/1000)
		}
	}
	return during, other
}

// starvedStory: when a queue starved, how badly, what preemption took for
// it from whom, and when it recovered. told collects the preemption
// episodes it tells.
func (t *timeline) starvedStory(q string, told map[int]bool) string {
	var eps []starvation
	for _, st := range t.starved {
		if st.Queue == q {
			eps = append(eps, st)
		}
	}
	var b strings.Builder
	b.WriteString(q + " was starved ")
	var total berth.Duration
	for _, st := range eps {
		total += st.To - st.From
	}
	if len(eps) <= maxStretches {
		var spans []string
		for _, st := range eps {
			spans = append(spans, fmt.Sprintf("from %s to %s", clock(st.From, t.end), clock(st.To, t.end)))
		}
		b.WriteString(list(spans))
	} else {
		fmt.Fprintf(&b, "%d times between %s and %s", len(eps), clock(eps[0].From, t.end), clock(eps[len(eps)-1].To, t.end))
	}
	fmt.Fprintf(&b, " (%s", dur(total))
	if len(eps) > 1 {
		b.WriteString(" in all")
	}
	for _, o := range t.outages {
		if slices.ContainsFunc(eps, func(st starvation) bool { return o.From <= st.To && o.To >= st.From }) {
			fmt.Fprintf(&b, "; %s down from %s to %s", map[bool]string{true: "a node was", false: "nodes were"}[o.Nodes == 1], clock(o.From, t.end), clock(o.To, t.end))
		}
	}
	low := eps[0]
	for _, st := range eps {
		if st.Low < low.Low {
			low = st
		}
	}
	fmt.Fprintf(&b, "): it held as little as %s of the %s it was entitled to", percent(low.Low), memory(low.Entitled))
	if !eps[len(eps)-1].Recovered {
		b.WriteString(", and was still short when the run ended")
	}
	b.WriteString(".")

	var took []victim
	killed := 0
	var back []string
	for _, st := range eps {
		for _, k := range st.Preemption {
			if told[k] {
				continue
			}
			told[k] = true
			for _, v := range t.preemption[k].Victims {
				if v.Queue == q {
					continue
				}
				i := slices.IndexFunc(took, func(x victim) bool { return x.Queue == v.Queue })
				if i < 0 {
					took = append(took, victim{Queue: v.Queue})
					i = len(took) - 1
				}
				took[i].Containers += v.Containers
				took[i].Resource = took[i].Resource.Add(v.Resource)
				killed += v.Containers
			}
		}
		if st.Recovered && len(st.Preemption) > 0 {
			back = append(back, clock(st.To, t.end))
		}
	}
	if killed > 0 {
		slices.SortStableFunc(took, func(a, b victim) int { return cmp.Compare(b.Containers, a.Containers) })
		fmt.Fprintf(&b, " While it was starved, preemption killed %s", victims(took))
		if len(back) > 0 && len(back) <= maxStretches {
			fmt.Fprintf(&b, "; %s was back at its entitlement at %s", q, list(back))
		}
		b.WriteString(".")
	}
	return b.String()
}

// victims lists who gave: "412 containers (1,648 GB) of research and 3 of prod".
func victims(vs []victim) string {
	var parts []string
	for i, v := range vs {
		if i == 0 {
			parts = append(parts, fmt.Sprintf("%s (%s) of %s", count(v.Containers, "container", "containers"), memory(v.Resource.Memory), v.Queue))
			continue
		}
		parts = append(parts, fmt.Sprintf("%d (%s) of %s", v.Containers, memory(v.Resource.Memory), v.Queue))
	}
	return list(parts)
}

func (t *timeline) reservationStory() string {
	acc, rej, rem := 0, 0, 0
	for _, ev := range t.reservations {
		switch ev.Kind {
		case metrics.ReservationAccepted:
			acc++
		case metrics.ReservationRejected:
			rej++
		case metrics.ReservationRemoved:
			rem++
		}
	}
	if acc+rej == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Of %s, %d %s accepted and %d refused", count(acc+rej, "reservation request", "reservation requests"), acc,
		map[bool]string{true: "was", false: "were"}[acc == 1], rej)
	if rem > 0 {
		fmt.Fprintf(&b, "; the replanner later removed %d", rem)
	}
	deadline, met := 0, 0
	for i := range t.run.Jobs {
		j := &t.run.Jobs[i]
		if j.Deadline > 0 {
			deadline++
			if j.Finished > 0 && j.Finished <= j.Deadline {
				met++
			}
		}
	}
	if deadline > 0 {
		fmt.Fprintf(&b, "; %d of %s finished by their deadline", met, count(deadline, "deadline job", "deadline jobs"))
	}
	b.WriteString(".")
	return b.String()
}

// waitStory ranks the queues by their 95th percentile wait.
func waitStory(s Summary) string {
	qs := slices.Clone(s.Queues)
	qs = slices.DeleteFunc(qs, func(q QueueSummary) bool { return q.Jobs == 0 })
	if len(qs) == 0 {
		return ""
	}
	slices.SortStableFunc(qs, func(a, b QueueSummary) int { return cmp.Compare(b.WaitP95, a.WaitP95) })
	var parts []string
	for _, q := range qs {
		parts = append(parts, q.Queue+" "+secs(q.WaitP95))
	}
	return "Waits from submission to the first task, 95th percentile: " + strings.Join(parts, ", ") + "."
}
