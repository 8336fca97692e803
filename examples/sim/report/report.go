// Package report renders a simulation's records (package metrics) as one
// self-contained HTML page with inline SVG plots drawn by gonum.org/v1/plot:
// cluster and per-queue allocated vs guaranteed over time, pending demand,
// running applications and containers, each plan's committed load vs its
// capacity, the distributions of job waits and runtimes per queue, and
// preemptions and lost containers when there are any. Summary computes the
// figures of the summary table the command prints.
package report

import (
	"bytes"
	"fmt"
	"html/template"
	"image/color"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/berthsched/berth/examples/sim/metrics"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
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
	Scheduler                      string
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
	s := Summary{Scheduler: r.Scheduler, SimulatedHours: float64(r.End) / 3.6e6, Events: r.Events, Jobs: len(r.Jobs), Replans: r.Replans}
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
	at := func(p float64) float64 { return ys[min(len(ys)-1, int(math.Ceil(p*float64(len(ys))))-1)] }
	return sum / float64(len(ys)), at(0.5), at(0.95)
}

// Figure is one plot of the report.
type Figure struct {
	ID, Title, Caption string
	SVG                template.HTML
}

// Figures draws the report's plots.
func Figures(r *metrics.Run) ([]Figure, error) {
	var figs []Figure
	add := func(id, title, caption string, p *plot.Plot, w, h vg.Length) error {
		svg, err := renderSVG(p, w, h)
		if err != nil {
			return fmt.Errorf("figure %s: %w", id, err)
		}
		figs = append(figs, Figure{ID: id, Title: title, Caption: caption, SVG: template.HTML(svg)})
		return nil
	}
	hours := func(i int) float64 { return float64(r.Samples[i].Time) / 3.6e6 }
	series := func(f func(s *metrics.Sample) float64) plotter.XYs {
		xy := make(plotter.XYs, len(r.Samples))
		for i := range r.Samples {
			xy[i].X, xy[i].Y = hours(i), f(&r.Samples[i])
		}
		return xy
	}
	gb := func(m int64) float64 { return float64(m) / 1024 }
	wide, tall := 9*vg.Inch, 3.2*vg.Inch

	// Cluster.
	p := newPlot("Cluster memory", "simulated time (h)", "GB")
	if err := lines(p, []string{"capacity", "allocated", "pending"},
		series(func(s *metrics.Sample) float64 { return gb(s.Capacity.Memory) }),
		series(func(s *metrics.Sample) float64 { return gb(s.Allocated.Memory) }),
		series(func(s *metrics.Sample) float64 { return gb(s.Pending.Memory) })); err != nil {
		return nil, err
	}
	if err := add("cluster", "Cluster: capacity, allocated, pending", "Memory of the live nodes, what containers hold, and the outstanding asks of the application masters.", p, wide, tall); err != nil {
		return nil, err
	}

	// Per queue: allocated vs guaranteed.
	for i, q := range r.Queues {
		p := newPlot(q, "simulated time (h)", "GB")
		idx := i
		if err := lines(p, []string{"guaranteed", "used", "pending"},
			series(func(s *metrics.Sample) float64 { return gb(s.Queues[idx].Guaranteed.Memory) }),
			series(func(s *metrics.Sample) float64 { return gb(s.Queues[idx].Used.Memory) }),
			series(func(s *metrics.Sample) float64 { return gb(s.Queues[idx].Pending.Memory) })); err != nil {
			return nil, err
		}
		if err := add("queue-"+q, "Queue "+q+": used vs guaranteed", "Guaranteed is the capacity scheduler's effective guarantee (the fair scheduler's instantaneous fair share).", p, wide, 2.6*vg.Inch); err != nil {
			return nil, err
		}
	}

	// Running apps and containers.
	p = newPlot("Running applications and containers", "simulated time (h)", "count")
	if err := lines(p, []string{"applications", "containers"},
		series(func(s *metrics.Sample) float64 { return float64(s.RunningApps) }),
		series(func(s *metrics.Sample) float64 { return float64(s.RunningContainers) })); err != nil {
		return nil, err
	}
	if err := add("running", "Running applications and containers", "As SLS's first chart.", p, wide, tall); err != nil {
		return nil, err
	}

	// Plans.
	for k, name := range r.Plans {
		p := newPlot("Plan "+name, "simulated time (h)", "GB")
		kk := k
		if err := lines(p, []string{"plan capacity", "committed by reservations"},
			series(func(s *metrics.Sample) float64 { return gb(s.PlanCapacity[kk].Memory) }),
			series(func(s *metrics.Sample) float64 { return gb(s.PlanCommitted[kk].Memory) })); err != nil {
			return nil, err
		}
		if err := add("plan-"+name, "Plan "+name+": committed load vs capacity", "What the accepted reservations hold at each time against the plan's capacity (the plan queue's share of the live cluster).", p, wide, tall); err != nil {
			return nil, err
		}
	}

	// Distributions per queue.
	for _, d := range []struct {
		id, title string
		get       func(j *metrics.Job) (float64, bool)
	}{
		{"wait", "Job wait (submission to first task), s", func(j *metrics.Job) (float64, bool) {
			w := j.Wait()
			return float64(w) / 1000, w >= 0
		}},
		{"runtime", "Job completion time (submission to finish), s", func(j *metrics.Job) (float64, bool) {
			return float64(j.Finished-j.Submitted) / 1000, j.Finished > 0
		}},
	} {
		p := newPlot(d.title, "seconds", "fraction of jobs ≤ x")
		byQ := map[string][]float64{}
		var qs []string
		for i := range r.Jobs {
			if v, ok := d.get(&r.Jobs[i]); ok {
				if _, seen := byQ[r.Jobs[i].Queue]; !seen {
					qs = append(qs, r.Jobs[i].Queue)
				}
				byQ[r.Jobs[i].Queue] = append(byQ[r.Jobs[i].Queue], v)
			}
		}
		slices.Sort(qs)
		var names []string
		var xys []plotter.XYs
		for _, q := range qs {
			names = append(names, q)
			xys = append(xys, cdf(byQ[q]))
		}
		if len(xys) == 0 {
			continue
		}
		if err := lines(p, names, xys...); err != nil {
			return nil, err
		}
		if err := add(d.id, d.title, "Cumulative distribution per queue.", p, wide, tall); err != nil {
			return nil, err
		}
	}

	// Preemptions and losses.
	last := r.Samples[len(r.Samples)-1]
	if last.Preempted+last.Lost+last.Marked > 0 {
		p := newPlot("Containers preempted and lost", "simulated time (h)", "containers (cumulative)")
		if err := lines(p, []string{"marked for preemption", "preempted", "lost with their node"},
			series(func(s *metrics.Sample) float64 { return float64(s.Marked) }),
			series(func(s *metrics.Sample) float64 { return float64(s.Preempted) }),
			series(func(s *metrics.Sample) float64 { return float64(s.Lost) })); err != nil {
			return nil, err
		}
		if err := add("preemptions", "Preemptions and lost containers", "Cumulative counts: containers the preemption policy marked (their application was told), those preempted (killed and asked for again), and those lost with their node.", p, wide, tall); err != nil {
			return nil, err
		}
	}
	// Preemptions per queue: who gave.
	var names []string
	var xys []plotter.XYs
	for i, q := range r.Queues {
		if last.Queues[i].Preempted == 0 {
			continue
		}
		idx := i
		names = append(names, q)
		xys = append(xys, series(func(s *metrics.Sample) float64 { return float64(s.Queues[idx].Preempted) }))
	}
	if len(xys) > 0 {
		p := newPlot("Containers preempted per queue", "simulated time (h)", "containers (cumulative)")
		if err := lines(p, names, xys...); err != nil {
			return nil, err
		}
		if err := add("preemptions-per-queue", "Preemptions per queue", "Cumulative count of each queue's containers preempted: the queues that gave resources back.", p, wide, tall); err != nil {
			return nil, err
		}
	}
	return figs, nil
}

func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.Y.Min = 0
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	return p
}

var palette = []color.Color{
	color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}, color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff},
	color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff}, color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff},
	color.RGBA{R: 0x94, G: 0x67, B: 0xbd, A: 0xff}, color.RGBA{R: 0x8c, G: 0x56, B: 0x4b, A: 0xff},
}

func lines(p *plot.Plot, names []string, xys ...plotter.XYs) error {
	for i, xy := range xys {
		l, err := plotter.NewLine(xy)
		if err != nil {
			return err
		}
		l.Color = palette[i%len(palette)]
		l.Width = vg.Points(1.4)
		if i >= len(palette) {
			l.Dashes = plotutil.Dashes(1)
		}
		p.Add(l)
		p.Legend.Add(names[i], l)
	}
	return nil
}

func cdf(xs []float64) plotter.XYs {
	ys := slices.Clone(xs)
	slices.Sort(ys)
	out := make(plotter.XYs, 0, len(ys)+1)
	out = append(out, plotter.XY{X: 0, Y: 0})
	for i, y := range ys {
		out = append(out, plotter.XY{X: y, Y: float64(i+1) / float64(len(ys))})
	}
	return out
}

func renderSVG(p *plot.Plot, w, h vg.Length) (string, error) {
	wt, err := p.WriterTo(w, h, "svg")
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	if _, err := wt.WriteTo(&b); err != nil {
		return "", err
	}
	s := b.String()
	if i := strings.Index(s, "<svg"); i > 0 {
		s = s[i:] // drop the XML prolog and doctype: the SVG is inlined
	}
	return s, nil
}

// Write renders the HTML report.
func Write(w io.Writer, r *metrics.Run, title string) error {
	figs, err := Figures(r)
	if err != nil {
		return err
	}
	var never []string
	for _, j := range r.Jobs {
		if !j.Launched() {
			never = append(never, j.ID)
		}
	}
	return page.Execute(w, struct {
		Title         string
		Summary       Summary
		Figures       []Figure
		Run           *metrics.Run
		NeverLaunched []string
	}{title, Summarize(r), figs, r, never})
}

var page = template.Must(template.New("report").Funcs(template.FuncMap{
	"f1": func(x float64) string { return fmt.Sprintf("%.1f", x) },
	"ms": func(t int64) string { return fmt.Sprintf("%.1f s", float64(t)/1000) },
}).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Title}}</title>
<style>
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:2em auto;max-width:1000px;color:#222;padding:0 1em}
h1{font-size:1.6em}h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:1em 0;font-size:.82em}td,th{border:1px solid #ccc;padding:.3em .6em;text-align:right}
th{background:#f3f3f3}td:first-child,th:first-child{text-align:left}
#config td{text-align:left}figure{margin:1.5em 0}figcaption{color:#555;font-size:.9em}svg{max-width:100%;height:auto}
</style></head><body>
<h1>{{.Title}}</h1>
<p>Scheduler <b>{{.Summary.Scheduler}}</b>, {{f1 .Summary.SimulatedHours}} simulated hours, {{.Summary.Events}} events.</p>
{{if .Run.Stalled}}<p id="stalled"><b>The run stalled</b>: nothing could progress after {{ms .Run.StalledSince}} of simulated time (no submission, node event or task end to come, and nothing changed for an hour); {{.Run.Unfinished}} jobs never finished.</p>
{{end}}{{with .NeverLaunched}}<p id="never-launched">Jobs whose AM never launched (no row in jobruntime.csv): {{range $i, $id := .}}{{if $i}}, {{end}}{{$id}}{{end}}.</p>
{{end}}<h2>Summary</h2>
<table id="summary">
<tr><th>jobs</th><th>finished</th><th>containers</th><th>marked for preemption</th><th>preempted</th><th>lost</th><th>reservations</th><th>accepted</th><th>removed by replanning</th><th>deadlines met</th><th>follower runs replanning or resizing</th></tr>
<tr><td>{{.Summary.Jobs}}</td><td>{{.Summary.Finished}}</td><td>{{.Summary.Containers}}</td><td>{{.Summary.Marked}}</td><td>{{.Summary.Preempted}}</td><td>{{.Summary.Lost}}</td><td>{{.Summary.Reservations}}</td><td>{{.Summary.Accepted}}</td><td>{{.Summary.Removed}}</td><td>{{.Summary.DeadlinesMet}}</td><td>{{.Summary.Replans}}</td></tr>
</table>
<table id="queues">
<tr><th>queue</th><th>jobs</th><th>finished</th><th>wait mean (s)</th><th>wait p50</th><th>wait p95</th><th>runtime mean (s)</th><th>runtime p50</th><th>runtime p95</th><th>mean used (GB)</th><th>mean guaranteed (GB)</th><th>marked</th><th>preempted</th></tr>
{{range .Summary.Queues}}<tr><td>{{.Queue}}</td><td>{{.Jobs}}</td><td>{{.Finished}}</td><td>{{f1 .WaitMean}}</td><td>{{f1 .WaitP50}}</td><td>{{f1 .WaitP95}}</td><td>{{f1 .RunMean}}</td><td>{{f1 .RunP50}}</td><td>{{f1 .RunP95}}</td><td>{{f1 .MeanUsedGB}}</td><td>{{f1 .MeanGuaranteedGB}}</td><td>{{.Marked}}</td><td>{{.Preempted}}</td></tr>
{{end}}</table>
<h2>Configuration report</h2>
{{if .Run.Config}}<p>What the configuration files (the scheduler's file and the site file) say that Berth does not model, or that no one knows, and the keys other components read. Site keys outside the simulator's namespaces (yarn.sls., yarn.scheduler., yarn.resourcemanager.scheduler., yarn.resourcemanager.monitor., yarn.resourcemanager.reservation-system.) are listed only where the simulator knows them (a real cluster's node sizes, SLS's scheduler-metrics wrappers); the others are ignored.</p>
<table id="config">
<tr><th>file</th><th>kind</th><th>key</th><th>value</th><th>what Berth does instead / suggestion</th></tr>
{{range .Run.Config}}<tr><td>{{.File}}</td><td>{{.Kind}}</td><td>{{.Key}}</td><td>{{.Value}}</td><td>{{.Detail}}</td></tr>
{{end}}</table>
{{else}}<p id="config">Every key of the configuration files is modelled.</p>
{{end}}{{range .Figures}}<figure id="fig-{{.ID}}"><h2>{{.Title}}</h2>{{.SVG}}<figcaption>{{.Caption}}</figcaption></figure>
{{end}}
<p>Files beside this report: jobruntime.csv (SLS's columns), jobs.csv, cluster.csv, queues.csv, reservations.csv.</p>
</body></html>
`))
