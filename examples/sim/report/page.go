package report

import (
	"cmp"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strings"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/examples/sim/metrics"
)

// Happening is one row of the report's timeline table: when, for how
// long, and what.
type Happening struct {
	At, For, What string
	at            berth.Time
}

// happenings lists the episodes for the timeline table, in time order
// (episodes at the same time in the order of the steps below).
func (t *timeline) happenings() []Happening {
	h := &happenings{end: t.end}
	h.outages(t.outages)
	h.starvations(t.starved)
	for _, p := range t.preemption {
		h.add(p.From, p.To, true, fmt.Sprintf("preemption: %s killed %s", count(p.Rounds, "round", "rounds"), victims(p.Victims)))
	}
	h.replans(t.replans, t.gap())
	h.reservations(t.reservations, t.gap())
	for _, ev := range t.reconfigs {
		h.add(ev.Time, ev.Time, false, "queue "+ev.Queue+" reconfigured")
	}
	for _, ev := range t.stalls {
		h.add(ev.Time, ev.Time, false, "stalled: "+ev.Detail)
	}
	slices.SortStableFunc(h.rows, func(a, b Happening) int { return cmp.Compare(a.at, b.at) })
	return h.rows
}

// happenings collects the timeline table's rows of a run that ends at end.
type happenings struct {
	end  berth.Time
	rows []Happening
}

// add adds a row at from; a span shows how long it lasted, up to to.
func (h *happenings) add(from, to berth.Time, span bool, what string) {
	row := Happening{At: clock(from, h.end), What: what, at: from}
	if span && to > from {
		row.For = dur(to - from)
	}
	h.rows = append(h.rows, row)
}

// outages: one row per outage, with what it ended and restarted.
func (h *happenings) outages(outages []outage) {
	for _, o := range outages {
		what := fmt.Sprintf("%s down (%s): %s ended", o.what(), memory(o.Resource.Memory), count(o.Containers, "container", "containers"))
		if o.Containers == 0 {
			what = fmt.Sprintf("%s down (%s), none running a container", o.what(), memory(o.Resource.Memory))
		}
		if o.AMs > 0 {
			what += fmt.Sprintf(", %s restarted", count(o.AMs, "application", "applications"))
		}
		if !o.Returned {
			what += "; never came back"
		}
		h.add(o.From, o.To, o.Returned, what)
	}
}

// starvations: one row per starvation of a queue.
func (h *happenings) starvations(starved []starvation) {
	for _, s := range starved {
		what := fmt.Sprintf("%s starved: held as little as %s of the %s it was entitled to", s.Queue, percent(s.Low), memory(s.Entitled))
		if s.Recovered {
			what += "; recovered at " + clock(s.To, h.end)
		}
		h.add(s.From, s.To, true, what)
	}
}

// replans: one row per plan and burst (events at most gap apart), as a
// follower may resize at every step while the plan stays over-committed.
func (h *happenings) replans(replans []metrics.Event, gap berth.Duration) {
	for i := 0; i < len(replans); {
		j := i
		for j+1 < len(replans) && replans[j+1].Queue == replans[i].Queue && replans[j+1].Time-replans[j].Time <= gap {
			j++
		}
		first, last := replans[i], replans[j]
		what := fmt.Sprintf("plan %s over-committed and %s to %s", first.Queue, first.Detail, memory(first.Resource.Memory))
		if j > i {
			what = fmt.Sprintf("plan %s over-committed %d times, replanned or resized to %s at last", first.Queue, j-i+1, memory(last.Resource.Memory))
		}
		h.add(first.Time, last.Time, true, what)
		i = j + 1
	}
}

// reservations: per plan, in the order plans first appear, one row for
// the reservations accepted and refused, and one per burst of removals.
func (h *happenings) reservations(events []metrics.Event, gap berth.Duration) {
	var plans []string
	for _, ev := range events {
		if !slices.Contains(plans, ev.Queue) {
			plans = append(plans, ev.Queue)
		}
	}
	for _, pl := range plans {
		var acc, rej int
		from, to := berth.Time(-1), berth.Time(0)
		var removed []metrics.Event
		for _, ev := range events {
			if ev.Queue != pl {
				continue
			}
			switch ev.Kind {
			case metrics.ReservationRemoved:
				removed = append(removed, ev)
				continue
			case metrics.ReservationAccepted:
				acc++
			case metrics.ReservationRejected:
				rej++
			}
			if from < 0 {
				from = ev.Time
			}
			to = ev.Time
		}
		if from >= 0 {
			h.add(from, to, true, fmt.Sprintf("plan %s: %s accepted, %d refused", pl, count(acc, "reservation", "reservations"), rej))
		}
		for i := 0; i < len(removed); {
			j := i
			for j+1 < len(removed) && removed[j+1].Time-removed[j].Time <= gap {
				j++
			}
			h.add(removed[i].Time, removed[j].Time, true, fmt.Sprintf("plan %s: the replanner removed %s", pl, count(j-i+1, "reservation", "reservations")))
			i = j + 1
		}
	}
}

// notices are warnings shown above everything else: a run whose
// predictions need care. The place for any further run-level warning.
func notices(r *metrics.Run) []string {
	var out []string
	if r.Stalled {
		out = append(out, "The run stalled: nothing could progress, and it stopped with jobs unfinished (see the timeline).")
	}
	if r.Unfinished > 0 && !r.Stalled {
		out = append(out, fmt.Sprintf("%s did not finish within the run.", count(r.Unfinished, "job", "jobs")))
	}
	if n, list := NeverLaunched(r); n > 0 {
		out = append(out, fmt.Sprintf("The AM of %s never launched (no row in jobruntime.csv, as in SLS): %s.", count(n, "job", "jobs"), list))
	}
	return out
}

// NeverLaunched counts the jobs whose AM never launched and lists them,
// the first twenty by id and how many more.
func NeverLaunched(r *metrics.Run) (n int, list string) {
	const show = 20
	var ids []string
	for _, j := range r.Jobs {
		if !j.Launched() {
			n++
			if len(ids) < show {
				ids = append(ids, j.ID)
			}
		}
	}
	list = strings.Join(ids, ", ")
	if n > show {
		list += fmt.Sprintf(" and %d more", n-show)
	}
	return n, list
}

// Write renders the HTML report of a run: one self-contained page (inline
// SVG, no scripts, no external resources).
func Write(w io.Writer, r *metrics.Run, title string) error {
	t := analyse(r)
	figs, err := figures(r, t)
	if err != nil {
		return err
	}
	var timelineFig *Figure
	if len(figs) > 0 && figs[0].ID == "timeline" {
		timelineFig, figs = &figs[0], figs[1:]
	}
	s := Summarize(r)
	return page.Execute(w, struct {
		Title       string
		Description string
		Notices     []string
		Story       []string
		Summary     Summary
		Timeline    *Figure
		Happenings  []Happening
		Waits       []WaitRow
		Figures     []Figure
		Run         *metrics.Run
	}{title, r.Description, notices(r), t.story(s), s, timelineFig, t.happenings(), WaitRows(r), figs, r})
}

// style keeps every table inside the page: fixed layout over the page's
// width, and cells that wrap anywhere (configuration keys are long
// unbroken words).
const style = `
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:2em auto;max-width:1000px;color:#222;padding:0 1em;line-height:1.45}
h1{font-size:1.6em}h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #ddd}
p.description{font-style:italic;color:#444}
.story p{margin:.4em 0}
.notice{background:#fff3cd;border:1px solid #e0c36a;padding:.5em .8em}
table{table-layout:fixed;width:100%;border-collapse:collapse;margin:1em 0;font-size:.82em}
td,th{border:1px solid #ccc;padding:.3em .5em;text-align:right;overflow-wrap:anywhere;word-break:break-word;vertical-align:top}
th{background:#f3f3f3;font-weight:600}td:first-child,th:first-child{text-align:left}
#timeline td,#timeline th,#config td,#config th,#waits td,#waits th,table.diff td,table.diff th{text-align:left}
h3{font-size:1.05em;margin-top:1.5em}
figure{margin:1.5em 0}figcaption{color:#555;font-size:.9em}svg{max-width:100%;height:auto}
`

var page = template.Must(template.New("report").Funcs(template.FuncMap{
	"f1": func(x float64) string { return fmt.Sprintf("%.1f", x) },
}).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Title}}</title>
<style>` + style + `</style></head><body>
<h1>{{.Title}}</h1>
{{if .Description}}<p class="description">{{.Description}}</p>
{{end}}{{range .Notices}}<p class="notice">{{.}}</p>
{{end}}<section class="story" id="story"><h2>What happened</h2>
{{range .Story}}<p>{{.}}</p>
{{end}}</section>
{{if .Timeline}}<figure id="fig-{{.Timeline.ID}}"><h2>{{.Timeline.Title}}</h2>{{.Timeline.SVG}}<figcaption>{{.Timeline.Caption}}</figcaption></figure>
{{end}}{{if .Happenings}}<table id="timeline"><colgroup><col style="width:11%"><col style="width:11%"><col></colgroup>
<tr><th>at</th><th>for</th><th>what</th></tr>
{{range .Happenings}}<tr><td>{{.At}}</td><td>{{.For}}</td><td>{{.What}}</td></tr>
{{end}}</table>
{{end}}<h2>Summary</h2>
<p>Scheduler <b>{{.Summary.Scheduler}}</b>, {{f1 .Summary.SimulatedHours}} simulated hours, {{.Summary.Events}} events.</p>
<table id="summary">
<tr><th>jobs</th><th>finished</th><th>containers</th><th>marked for preemption</th><th>preempted</th><th>lost</th><th>reservations</th><th>accepted</th><th>removed by replanning</th><th>deadlines met</th><th>follower runs replanning or resizing</th></tr>
<tr><td>{{.Summary.Jobs}}</td><td>{{.Summary.Finished}}</td><td>{{.Summary.Containers}}</td><td>{{.Summary.Marked}}</td><td>{{.Summary.Preempted}}</td><td>{{.Summary.Lost}}</td><td>{{.Summary.Reservations}}</td><td>{{.Summary.Accepted}}</td><td>{{.Summary.Removed}}</td><td>{{.Summary.DeadlinesMet}}</td><td>{{.Summary.Replans}}</td></tr>
</table>
<table id="queues">
<tr><th>queue</th><th>jobs</th><th>finished</th><th>wait mean (s)</th><th>wait p50</th><th>wait p95</th><th>runtime mean (s)</th><th>runtime p50</th><th>runtime p95</th><th>mean used (GB)</th><th>mean {{.Summary.ShareLabel}} (GB)</th><th>marked</th><th>preempted</th></tr>
{{range .Summary.Queues}}<tr><td>{{.Queue}}</td><td>{{.Jobs}}</td><td>{{.Finished}}</td><td>{{f1 .WaitMean}}</td><td>{{f1 .WaitP50}}</td><td>{{f1 .WaitP95}}</td><td>{{f1 .RunMean}}</td><td>{{f1 .RunP50}}</td><td>{{f1 .RunP95}}</td><td>{{f1 .MeanUsedGB}}</td><td>{{f1 .MeanGuaranteedGB}}</td><td>{{.Marked}}</td><td>{{.Preempted}}</td></tr>
{{end}}</table>
{{if .Waits}}<h2>Why applications waited</h2>
<p>Each time a heartbeat offered a node to a waiting application and it took nothing, the scheduler's walk said why. Per queue: those attempts, and their most frequent reasons with their share. Not counted: applications a heartbeat did not reach (after those that took the node, in the queues' order), and heartbeats the simulator skipped as futile.</p>
<table id="waits"><colgroup><col style="width:14%"><col style="width:10%"><col><col><col></colgroup>
<tr><th>queue</th><th>attempts that got nothing</th><th>most frequent reason</th><th>second</th><th>third</th></tr>
{{range .Waits}}<tr><td>{{.Queue}}</td><td>{{.Attempts}}</td>{{range .Top}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table>
{{end}}{{range .Figures}}<figure id="fig-{{.ID}}"><h2>{{.Title}}</h2>{{.SVG}}<figcaption>{{.Caption}}</figcaption></figure>
{{end}}<h2>Configuration report</h2>
{{if .Run.Config}}<p>What the configuration files (the scheduler's file and the site file) say that Berth does not model, or that no one knows, and the keys other components read. Site keys outside the simulator's namespaces (yarn.sls., yarn.scheduler., yarn.resourcemanager.scheduler., yarn.resourcemanager.monitor., yarn.resourcemanager.reservation-system.) are listed only where the simulator knows them (a real cluster's node sizes, SLS's scheduler-metrics wrappers); the others are ignored.</p>
<table id="config"><colgroup><col style="width:15%"><col style="width:10%"><col style="width:30%"><col style="width:12%"><col></colgroup>
<tr><th>file</th><th>kind</th><th>key</th><th>value</th><th>what Berth does instead / suggestion</th></tr>
{{range .Run.Config}}<tr><td>{{.File}}</td><td>{{.Kind}}</td><td>{{.Key}}</td><td>{{.Value}}</td><td>{{.Detail}}</td></tr>
{{end}}</table>
{{else}}<p id="config">Every key of the configuration files is modelled.</p>
{{end}}<p>Files beside this report: jobruntime.csv (SLS's columns), jobs.csv, cluster.csv, queues.csv, reservations.csv, timeline.csv.</p>
</body></html>
`))
