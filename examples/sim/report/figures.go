package report

import (
	"fmt"
	"html/template"
	"slices"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/examples/sim/metrics"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Figure is one chart of the report.
type Figure struct {
	ID, Title, Caption string
	SVG                template.HTML
	// Series lists what the chart draws, with the points of each.
	Series []Series
}

// Chart sizes: the page is 1,000 px wide at most; SVGs scale down.
const (
	chartWidth  = 9 * vg.Inch
	chartHeight = 3.2 * vg.Inch
)

// Figures draws the report's charts: the timeline of what happened, the
// cluster and each queue over time (with what happened marked behind the
// data), running applications and containers, each plan's load, the
// distributions of waits and runtimes, preemptions.
func Figures(r *metrics.Run) ([]Figure, error) {
	return figures(r, analyse(r))
}

// figureSet collects the figures as they are drawn.
type figureSet struct {
	figs []Figure
	err  error
}

func (f *figureSet) add(id, title, caption string, c *chart, h vg.Length) {
	if f.err != nil {
		return
	}
	svg, err := c.svg(chartWidth, h)
	if err != nil {
		f.err = fmt.Errorf("figure %s: %w", id, err)
		return
	}
	f.figs = append(f.figs, Figure{ID: id, Title: title, Caption: caption, SVG: template.HTML(svg), Series: c.series})
}

// figures draws the report's charts in page order; a chart with nothing to
// show is left out.
func figures(r *metrics.Run, t *timeline) ([]Figure, error) {
	if len(r.Samples) == 0 {
		return nil, nil
	}
	d := &figureDrawer{run: r, timeline: t, ax: newTimeAxis(r.End)}
	d.timelineFigure()
	d.clusterFigure()
	d.queueFigures()
	if err := d.runningFigure(); err != nil {
		return nil, err
	}
	d.planFigures()
	if err := d.distributionFigures(); err != nil {
		return nil, err
	}
	if err := d.preemptionFigures(); err != nil {
		return nil, err
	}
	return d.figs, d.err
}

// figureDrawer draws the report's figures of one run into its figureSet,
// on one time axis.
type figureDrawer struct {
	figureSet
	run      *metrics.Run
	timeline *timeline
	ax       timeAxis
}

// series is one value of every sample, over the time axis.
func (d *figureDrawer) series(f func(s *metrics.Sample) float64) plotter.XYs {
	xy := make(plotter.XYs, len(d.run.Samples))
	for i := range d.run.Samples {
		xy[i].X, xy[i].Y = d.ax.x(d.run.Samples[i].Time), f(&d.run.Samples[i])
	}
	return xy
}

func gb(m int64) float64 { return float64(m) / 1024 }

// timeChart starts a chart over the run's time with what happened behind
// the data.
func (d *figureDrawer) timeChart(c *chart, title, y, queue string) *plot.Plot {
	p := c.panel(title, d.ax.label(), y)
	p.X.Min, p.X.Max = 0, d.ax.x(d.run.End)
	p.X.Tick.Marker = timeTicks{d.ax.u}
	if m := d.timeline.marks(d.ax, queue, len(c.panels) == 1); len(m) > 0 {
		p.Add(m)
		if len(c.panels) == 1 {
			m.legendFor(&c.legend)
		}
	}
	return p
}

// lines draws one line per series; the first error is kept for the end.
func (d *figureDrawer) lines(c *chart, p *plot.Plot, names []string, xys ...plotter.XYs) {
	for i, xy := range xys {
		if err := c.line(p, names[i], xy, false, true); err != nil && d.err == nil {
			d.err = err
		}
	}
}

func (d *figureDrawer) timelineFigure() {
	if d.timeline.empty() {
		return
	}
	c, h := d.timeline.chart(d.ax)
	d.add("timeline", "Timeline: what happened", "Nodes lost and back, queues starved (held below their entitlement while asking for more) and when they recovered, preemption rounds that killed containers, reservations accepted, refused and removed, replanning and reconfiguration.", c, h)
}

func (d *figureDrawer) clusterFigure() {
	c := newChart()
	p := d.timeChart(c, "Cluster memory", "GB", "")
	d.lines(c, p, []string{"capacity", "allocated", "pending"},
		d.series(func(s *metrics.Sample) float64 { return gb(s.Capacity.Memory) }),
		d.series(func(s *metrics.Sample) float64 { return gb(s.Allocated.Memory) }),
		d.series(func(s *metrics.Sample) float64 { return gb(s.Pending.Memory) }))
	d.add("cluster", "Cluster: capacity, allocated, pending", "Memory of the live nodes, what containers hold, and the outstanding asks of the application masters.", c, chartHeight)
}

func (d *figureDrawer) queueFigures() {
	share := ShareLabel(d.run.Scheduler)
	for i, q := range d.run.Queues {
		c := newChart()
		p := d.timeChart(c, "Queue "+q, "GB", q)
		names := []string{share, "used", "pending"}
		d.lines(c, p, names,
			d.series(func(s *metrics.Sample) float64 { return gb(s.Queues[i].Guaranteed.Memory) }),
			d.series(func(s *metrics.Sample) float64 { return gb(s.Queues[i].Used.Memory) }),
			d.series(func(s *metrics.Sample) float64 { return gb(s.Queues[i].Pending.Memory) }))
		caption := "Memory the queue is guaranteed (its effective capacity on the live cluster), uses, and asks for."
		if d.run.Scheduler == "fair" {
			caption = "The queue's instantaneous fair share of memory, what it uses, and what it asks for."
		}
		d.add("queue-"+q, "Queue "+q+": used vs "+share, caption, c, 2.6*vg.Inch)
	}
}

// runningFigure: applications and containers differ by orders of
// magnitude, so one panel each, over the same time axis.
func (d *figureDrawer) runningFigure() error {
	c := newChart()
	pa := d.timeChart(c, "Running applications and containers", "applications", "")
	pc := d.timeChart(c, "", "containers", "")
	pa.X.Label.Text = ""
	if err := c.line(pa, "applications", d.series(func(s *metrics.Sample) float64 { return float64(s.RunningApps) }), false, false); err != nil {
		return err
	}
	if err := c.line(pc, "containers", d.series(func(s *metrics.Sample) float64 { return float64(s.RunningContainers) }), false, false); err != nil {
		return err
	}
	d.add("running", "Running applications and containers", "As SLS's first chart, each on its own axis.", c, 4.4*vg.Inch)
	return nil
}

func (d *figureDrawer) planFigures() {
	for k, name := range d.run.Plans {
		c := newChart()
		p := c.panel("Plan "+name, d.ax.label(), "GB")
		p.X.Min, p.X.Max = 0, d.ax.x(d.run.End)
		p.X.Tick.Marker = timeTicks{d.ax.u}
		m := append(d.timeline.outageMarks(d.ax), d.timeline.planMarks(d.ax, name)...)
		if len(m) > 0 {
			p.Add(m)
			m.legendFor(&c.legend)
		}
		d.lines(c, p, []string{"plan capacity", "committed by reservations"},
			d.series(func(s *metrics.Sample) float64 { return gb(s.PlanCapacity[k].Memory) }),
			d.series(func(s *metrics.Sample) float64 { return gb(s.PlanCommitted[k].Memory) }))
		d.add("plan-"+name, "Plan "+name+": committed load vs capacity", "What the accepted reservations hold at each time against the plan's capacity (the plan queue's share of the live cluster); ticks at the foot mark reservations accepted, refused and removed.", c, chartHeight)
	}
}

// jobDistributions are the per-job figures drawn as distributions: what
// each shows and how a job's value is read.
var jobDistributions = []struct {
	id, title, x string
	get          func(j *metrics.Job) (float64, bool)
}{
	{"wait", "Job wait (submission to first task)", "wait", func(j *metrics.Job) (float64, bool) {
		w := j.Wait()
		return float64(w), w >= 0
	}},
	{"runtime", "Job completion time (submission to finish)", "completion time", func(j *metrics.Job) (float64, bool) {
		return float64(j.Finished - j.Submitted), j.Finished > 0
	}},
}

// distributionFigures draws, per jobDistributions entry, the cumulative
// distribution of each queue's jobs.
func (d *figureDrawer) distributionFigures() error {
	for _, dist := range jobDistributions {
		byQ := map[string][]float64{}
		var qs []string
		top := 0.0
		for i := range d.run.Jobs {
			if v, ok := dist.get(&d.run.Jobs[i]); ok {
				q := d.run.Jobs[i].Queue
				if _, seen := byQ[q]; !seen {
					qs = append(qs, q)
				}
				byQ[q] = append(byQ[q], v)
				top = max(top, v)
			}
		}
		if len(qs) == 0 {
			continue
		}
		slices.Sort(qs)
		u := unitFor(top)
		for q, vs := range byQ {
			for i := range vs {
				vs[i] = u.of(vs[i])
			}
			byQ[q] = vs
		}
		c := newChart()
		p := c.panel(dist.title, dist.x+" ("+u.name+")", "fraction of jobs ≤ x")
		p.X.Tick.Marker = timeTicks{u}
		p.X.Min, p.Y.Max = 0, 1
		right := u.of(top) * 1.02
		p.X.Max = right
		for _, q := range qs {
			if err := c.line(p, q, cdf(byQ[q], right), true, true); err != nil {
				return err
			}
		}
		d.add(dist.id, dist.title+" ("+u.name+")", "Cumulative distribution per queue: the fraction of the queue's jobs that waited (or took) at most x.", c, chartHeight)
	}
	return nil
}

// preemptionFigures draws the cumulative containers preempted and lost,
// then those preempted per queue, each when there are any.
func (d *figureDrawer) preemptionFigures() error {
	last := d.run.Samples[len(d.run.Samples)-1]
	if last.Preempted+last.Lost+last.Marked > 0 {
		c := newChart()
		p := d.timeChart(c, "Containers preempted and lost", "containers (cumulative)", "")
		for _, s := range []struct {
			name string
			get  func(s *metrics.Sample) float64
		}{
			{"marked for preemption", func(s *metrics.Sample) float64 { return float64(s.Marked) }},
			{"preempted", func(s *metrics.Sample) float64 { return float64(s.Preempted) }},
			{"lost with their node", func(s *metrics.Sample) float64 { return float64(s.Lost) }},
		} {
			if err := c.line(p, s.name, d.series(s.get), true, true); err != nil {
				return err
			}
		}
		d.add("preemptions", "Preemptions and lost containers", "Cumulative counts: containers the preemption policy marked (their application was told), those preempted (killed and asked for again), and those lost with their node.", c, chartHeight)
	}
	var victims []int
	for i := range d.run.Queues {
		if last.Queues[i].Preempted > 0 {
			victims = append(victims, i)
		}
	}
	if len(victims) == 0 {
		return nil
	}
	c := newChart()
	p := d.timeChart(c, "Containers preempted per queue", "containers (cumulative)", "")
	for _, i := range victims {
		if err := c.line(p, d.run.Queues[i], d.series(func(s *metrics.Sample) float64 { return float64(s.Queues[i].Preempted) }), true, true); err != nil {
			return err
		}
	}
	d.add("preemptions-per-queue", "Preemptions per queue", "Cumulative count of each queue's containers preempted: the queues that gave resources back.", c, chartHeight)
	return nil
}

// outageMarks are the outages as labelled bands.
func (t *timeline) outageMarks(ax timeAxis) marks {
	var m marks
	for _, o := range t.outages {
		m = append(m, mark{kind: markOutage, from: ax.x(o.From), to: ax.x(o.To), label: o.short()})
	}
	return m
}

// planMarks: the plan's reservations accepted, refused and removed as
// ticks, and its replanning.
func (t *timeline) planMarks(ax timeAxis, plan string) marks {
	var m marks
	for _, ev := range t.reservations {
		if !samePlan(ev.Queue, plan) {
			continue
		}
		k := markAccepted
		switch ev.Kind {
		case metrics.ReservationRejected:
			k = markRejected
		case metrics.ReservationRemoved:
			k = markResRemoved
		}
		m = append(m, mark{kind: k, from: ax.x(ev.Time), to: ax.x(ev.Time)})
	}
	for _, ev := range t.replans {
		if samePlan(ev.Queue, plan) {
			m = append(m, mark{kind: markReplan, from: ax.x(ev.Time), to: ax.x(ev.Time)})
		}
	}
	return m
}

// samePlan tells whether a reported queue path names the plan (a plan is
// named by its short name under the capacity scheduler, by its path under
// the fair scheduler).
func samePlan(queue, plan string) bool {
	return queue == plan || len(queue) > len(plan) && queue[len(queue)-len(plan)-1] == '.' && queue[len(queue)-len(plan):] == plan
}

// lane is one row of the timeline chart.
type lane struct {
	name  string
	marks []mark
}

// lanes draws the timeline's rows, the first on top.
type lanes []lane

// Plot implements plot.Plotter.
func (l lanes) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	n := len(l)
	for i, ln := range l {
		y := float64(n - 1 - i)
		lo, hi := trY(y-0.38), trY(y+0.38)
		for _, shape := range []uint8{shapeBand, shapeTick, shapeLine} {
			for _, k := range ln.marks {
				if markStyles[k.kind].shape == shape {
					k.draw(c, trX, lo, hi, hi-lo)
				}
			}
		}
		drawLabels(c, trX, hi, ln.marks)
	}
}

// chart draws the timeline: one lane per kind of happening (and per
// starved queue and per plan), with the marks of the time charts.
func (t *timeline) chart(ax timeAxis) (*chart, vg.Length) {
	ls := t.lanes(ax)
	c := newChart()
	p := plot.New()
	p.X.Label.Text = ax.label()
	c.panels = append(c.panels, p)
	p.X.Min, p.X.Max = 0, ax.x(t.end)
	p.Y.Min, p.Y.Max = -0.5, float64(len(ls))-0.5
	var ticks plot.ConstantTicks
	var all marks
	for i, ln := range ls {
		ticks = append(ticks, plot.Tick{Value: float64(len(ls) - 1 - i), Label: ln.name})
		all = append(all, ln.marks...)
		c.series = append(c.series, Series{Name: ln.name, Points: len(ln.marks)})
	}
	p.Y.Tick.Marker = ticks
	p.Y.LineStyle.Width, p.Y.Tick.LineStyle.Width = 0, 0
	p.X.Tick.Marker = timeTicks{ax.u}
	p.Add(plotter.NewGrid())
	p.Add(ls)
	all.legendFor(&c.legend)
	return c, vg.Length(len(ls))*0.42*vg.Inch + 0.9*vg.Inch
}

// lanes are the timeline chart's rows, top to bottom: node outages, each
// starved queue, preemption, each plan, reconfiguration, a stall; a row
// with nothing in it is left out.
func (t *timeline) lanes(ax timeAxis) lanes {
	var ls lanes
	at := ax.x
	if len(t.outages) > 0 {
		ls = append(ls, lane{name: "nodes", marks: t.outageMarks(ax)})
	}
	ls = append(ls, t.starvedLanes(at)...)
	if len(t.preemption) > 0 {
		ln := lane{name: "preemption"}
		for _, ev := range t.run.Timeline {
			if ev.Kind == metrics.Preempted {
				ln.marks = append(ln.marks, mark{kind: markPreempt, from: at(ev.Time), to: at(ev.Time)})
			}
		}
		for _, p := range t.preemption {
			ln.marks = append(ln.marks, mark{kind: markPreemptSpan, from: at(p.From), to: at(p.To), label: fmt.Sprintf("%d killed", p.Containers)})
		}
		ls = append(ls, ln)
	}
	for _, pl := range t.plans() {
		ls = append(ls, lane{name: "plan " + pl, marks: t.planMarks(ax, pl)})
	}
	if len(t.reconfigs) > 0 {
		ln := lane{name: "reconfigured"}
		for _, ev := range t.reconfigs {
			ln.marks = append(ln.marks, mark{kind: markReconfig, from: at(ev.Time), to: at(ev.Time), label: ev.Queue})
		}
		ls = append(ls, ln)
	}
	if len(t.stalls) > 0 {
		ln := lane{name: "run"}
		for _, ev := range t.stalls {
			ln.marks = append(ln.marks, mark{kind: markStall, from: at(ev.Time), to: at(ev.Time), label: "stalled"})
		}
		ls = append(ls, ln)
	}
	return ls
}

// starvedLanes is one lane per starved queue, first starved first: its
// starvation spans, and a recovery where preemption helped.
func (t *timeline) starvedLanes(at func(berth.Time) float64) lanes {
	var queues []string
	for _, s := range t.starved {
		if !slices.Contains(queues, s.Queue) {
			queues = append(queues, s.Queue)
		}
	}
	var ls lanes
	for _, q := range queues {
		ln := lane{name: q + " starved"}
		for _, s := range t.starved {
			if s.Queue != q {
				continue
			}
			ln.marks = append(ln.marks, mark{kind: markStarved, from: at(s.From), to: at(s.To)})
			if s.Recovered && len(s.Preemption) > 0 {
				ln.marks = append(ln.marks, mark{kind: markRecovered, from: at(s.To), to: at(s.To), label: "recovered"})
			}
		}
		ls = append(ls, ln)
	}
	return ls
}

// plans are the plans with a reservation event or a replanning, in the
// order they first appear (reservations first).
func (t *timeline) plans() []string {
	var plans []string
	for _, ev := range t.reservations {
		if !slices.Contains(plans, ev.Queue) {
			plans = append(plans, ev.Queue)
		}
	}
	for _, ev := range t.replans {
		if !slices.Contains(plans, ev.Queue) {
			plans = append(plans, ev.Queue)
		}
	}
	return plans
}
