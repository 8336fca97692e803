package report

import (
	"cmp"
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"

	"github.com/berthsched/berth/examples/sim/metrics"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Setting is one configuration key of a compared variant: where it comes
// from (the run, the scheduler's file, the site file), its key and value.
type Setting struct {
	Source string `json:"source"`
	Key    string `json:"key"`
	Value  string `json:"value"`
}

// Variant is one configuration of a comparison and its run.
type Variant struct {
	Name     string
	Settings []Setting
	Run      *metrics.Run
}

// variantsPerTable bounds the variants one difference table shows side by
// side, so that it fits the page; more variants take more tables.
const variantsPerTable = 5

// Difference is one key whose value is not the same in every variant.
type Difference struct {
	Source, Key string
	// Values parallels the variants ("" where the key is not set).
	Values []string
}

// Differences lists the keys whose values differ between the variants,
// by source and key.
func Differences(vs []Variant) []Difference {
	type key struct{ source, key string }
	values := map[key][]string{}
	var keys []key
	for i, v := range vs {
		for _, s := range v.Settings {
			k := key{s.Source, s.Key}
			if _, ok := values[k]; !ok {
				values[k] = make([]string, len(vs))
				keys = append(keys, k)
			}
			values[k][i] = s.Value
		}
	}
	slices.SortFunc(keys, func(a, b key) int { return cmp.Or(cmp.Compare(a.source, b.source), cmp.Compare(a.key, b.key)) })
	var out []Difference
	for _, k := range keys {
		vals := values[k]
		if slices.ContainsFunc(vals, func(s string) bool { return s != vals[0] }) {
			out = append(out, Difference{Source: k.source, Key: k.key, Values: vals})
		}
	}
	return out
}

// QueueRow is one variant's line of a queue's comparison table: its
// finished jobs and its wait and runtime percentiles (seconds), with the
// differences from the first variant.
type QueueRow struct {
	Variant            string
	Jobs, Finished     int
	WaitP50, WaitP95   float64
	RunP50, RunP95     float64
	DWaitP50, DWaitP95 string
	DRunP50, DRunP95   string
	found              bool
}

// QueueComparison is one queue across the variants.
type QueueComparison struct {
	Queue string
	Rows  []QueueRow
}

// CompareQueues puts each queue's figures side by side, the first
// variant the baseline of the differences.
func CompareQueues(vs []Variant) []QueueComparison {
	var queues []string
	sums := make([]Summary, len(vs))
	for i, v := range vs {
		sums[i] = Summarize(v.Run)
		for _, q := range sums[i].Queues {
			if !slices.Contains(queues, q.Queue) {
				queues = append(queues, q.Queue)
			}
		}
	}
	slices.Sort(queues)
	var out []QueueComparison
	for _, q := range queues {
		qc := QueueComparison{Queue: q}
		var base *QueueRow
		for i, v := range vs {
			row := QueueRow{Variant: v.Name}
			if k := slices.IndexFunc(sums[i].Queues, func(s QueueSummary) bool { return s.Queue == q }); k >= 0 {
				s := sums[i].Queues[k]
				row.Jobs, row.Finished, row.found = s.Jobs, s.Finished, true
				row.WaitP50, row.WaitP95, row.RunP50, row.RunP95 = s.WaitP50, s.WaitP95, s.RunP50, s.RunP95
			}
			if base == nil && row.found {
				b := row
				base = &b
			} else if base != nil && row.found {
				row.DWaitP50, row.DWaitP95 = delta(row.WaitP50, base.WaitP50), delta(row.WaitP95, base.WaitP95)
				row.DRunP50, row.DRunP95 = delta(row.RunP50, base.RunP50), delta(row.RunP95, base.RunP95)
			}
			qc.Rows = append(qc.Rows, row)
		}
		out = append(out, qc)
	}
	return out
}

// delta formats x − base in seconds and relative to base.
func delta(x, base float64) string {
	d := x - base
	if math.Abs(d) < 0.0005 {
		return "="
	}
	sign := "+"
	if d < 0 {
		sign = "−"
	}
	s := sign + secs(math.Abs(d))
	if base > 0 {
		s += fmt.Sprintf(" (%s%.0f %%)", sign, math.Abs(100*d/base))
	}
	return s
}

// VariantSummary is one variant's line of the comparison's overview.
type VariantSummary struct {
	Name                       string
	Scheduler                  string
	Jobs, Finished, Containers int
	Preempted, Lost            int
	Reservations, Accepted     int
	DeadlinesMet               int
	Story                      []string
}

// WriteComparison renders the report of a comparison: the variants at a
// glance, the configuration keys that differ between them, each queue's
// wait and runtime percentiles side by side with their differences from
// the first variant and its distributions per variant, and per variant
// the story of its run and its queues over time. Every variant's own
// report is linked as <name>/report.html.
func WriteComparison(w io.Writer, title, description string, vs []Variant) error {
	if len(vs) == 0 {
		return fmt.Errorf("report: nothing to compare")
	}
	var overview []VariantSummary
	for _, v := range vs {
		s := Summarize(v.Run)
		overview = append(overview, VariantSummary{Name: v.Name, Scheduler: s.Scheduler, Jobs: s.Jobs, Finished: s.Finished,
			Containers: s.Containers, Preempted: s.Preempted, Lost: s.Lost, Reservations: s.Reservations, Accepted: s.Accepted,
			DeadlinesMet: s.DeadlinesMet, Story: Story(v.Run)})
	}
	diffs := Differences(vs)
	type diffTable struct {
		Variants []string
		Rows     []Difference
	}
	var tables []diffTable
	for lo := 0; lo < len(vs) && len(diffs) > 0; lo += variantsPerTable {
		hi := min(len(vs), lo+variantsPerTable)
		t := diffTable{}
		for _, v := range vs[lo:hi] {
			t.Variants = append(t.Variants, v.Name)
		}
		for _, d := range diffs {
			t.Rows = append(t.Rows, Difference{Source: d.Source, Key: d.Key, Values: d.Values[lo:hi]})
		}
		tables = append(tables, t)
	}
	queues := CompareQueues(vs)
	qfigs, err := queueFigures(vs, queues)
	if err != nil {
		return err
	}
	vfigs, err := variantFigures(vs)
	if err != nil {
		return err
	}
	type queueSection struct {
		QueueComparison
		Figures []Figure
	}
	var qs []queueSection
	for i, q := range queues {
		qs = append(qs, queueSection{q, qfigs[i]})
	}
	type variantSection struct {
		VariantSummary
		Figure Figure
	}
	var vsec []variantSection
	for i := range vs {
		vsec = append(vsec, variantSection{overview[i], vfigs[i]})
	}
	return comparePage.Execute(w, struct {
		Title, Description string
		Variants           []VariantSummary
		Diffs              []diffTable
		Queues             []queueSection
		Each               []variantSection
	}{title, description, overview, tables, qs, vsec})
}

// queueFigures draws, per queue, the distributions of waits and runtimes
// of every variant over one axis.
func queueFigures(vs []Variant, queues []QueueComparison) ([][]Figure, error) {
	out := make([][]Figure, len(queues))
	for qi, q := range queues {
		var fs figureSet
		for _, d := range []struct {
			id, title, x string
			get          func(j *metrics.Job) (float64, bool)
		}{
			{"wait", "wait (submission to first task)", "wait", func(j *metrics.Job) (float64, bool) { return float64(j.Wait()), j.Wait() >= 0 }},
			{"runtime", "completion time (submission to finish)", "completion time", func(j *metrics.Job) (float64, bool) {
				return float64(j.Finished - j.Submitted), j.Finished > 0
			}},
		} {
			per := make([][]float64, len(vs))
			top := 0.0
			for i, v := range vs {
				for k := range v.Run.Jobs {
					j := &v.Run.Jobs[k]
					if x, ok := d.get(j); ok && j.Queue == q.Queue {
						per[i] = append(per[i], x)
						top = max(top, x)
					}
				}
			}
			u := unitFor(top)
			c := newChart()
			p := c.panel("Queue "+q.Queue+": "+d.title, d.x+" ("+u.name+")", "fraction of jobs ≤ x")
			p.X.Tick.Marker = timeTicks{u}
			right := u.of(top) * 1.02
			p.X.Min, p.X.Max, p.Y.Max = 0, right, 1
			drawn := false
			for i, xs := range per {
				if len(xs) == 0 {
					c.n++ // keep each variant's color
					continue
				}
				for k := range xs {
					xs[k] = u.of(xs[k])
				}
				if err := c.line(p, vs[i].Name, cdf(xs, right), true, true); err != nil {
					return nil, err
				}
				drawn = true
			}
			if drawn {
				fs.add("q-"+q.Queue+"-"+d.id, "", "", c, chartHeight)
			}
		}
		if fs.err != nil {
			return nil, fs.err
		}
		out[qi] = fs.figs
	}
	return out, nil
}

// variantFigures draws each variant's queues' used memory over its run,
// with what happened marked behind.
func variantFigures(vs []Variant) ([]Figure, error) {
	out := make([]Figure, len(vs))
	for i, v := range vs {
		r := v.Run
		if len(r.Samples) == 0 {
			continue
		}
		t := analyse(r)
		ax := newTimeAxis(r.End)
		c := newChart()
		p := c.panel(v.Name+": memory used per queue", ax.label(), "GB")
		p.X.Min, p.X.Max = 0, ax.x(r.End)
		p.X.Tick.Marker = timeTicks{ax.u}
		if m := t.marks(ax, "", true); len(m) > 0 {
			p.Add(m)
			m.legendFor(&c.legend)
		}
		for qi, q := range r.Queues {
			xy := make(plotter.XYs, len(r.Samples))
			for k, s := range r.Samples {
				xy[k].X, xy[k].Y = ax.x(s.Time), float64(s.Queues[qi].Used.Memory)/1024
			}
			if err := c.line(p, q, xy, false, true); err != nil {
				return nil, err
			}
		}
		var fs figureSet
		fs.add("v-"+v.Name, "", "", c, 3*vg.Inch)
		if fs.err != nil {
			return nil, fs.err
		}
		out[i] = fs.figs[0]
	}
	return out, nil
}

var comparePage = template.Must(template.New("compare").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Title}}</title>
<style>` + style + `</style></head><body>
<h1>{{.Title}}</h1>
{{if .Description}}<p class="description">{{.Description}}</p>
{{end}}<p>The same trace under {{len .Variants}} configurations, with the same seeds. Differences are from the first, {{(index .Variants 0).Name}}.</p>
<h2>Configurations at a glance</h2>
<table id="variants">
<tr><th>configuration</th><th>scheduler</th><th>jobs</th><th>finished</th><th>containers</th><th>preempted</th><th>lost</th><th>reservations accepted</th><th>deadlines met</th><th>report</th></tr>
{{range .Variants}}<tr><td>{{.Name}}</td><td>{{.Scheduler}}</td><td>{{.Jobs}}</td><td>{{.Finished}}</td><td>{{.Containers}}</td><td>{{.Preempted}}</td><td>{{.Lost}}</td><td>{{.Accepted}} of {{.Reservations}}</td><td>{{.DeadlinesMet}}</td><td><a href="{{.Name}}/report.html">report</a></td></tr>
{{end}}</table>
<h2>What differs</h2>
{{range $i, $t := .Diffs}}<table id="differences-{{$i}}" class="diff"><colgroup><col style="width:12%"><col style="width:30%"></colgroup>
<tr><th>from</th><th>key</th>{{range $t.Variants}}<th>{{.}}</th>{{end}}</tr>
{{range $t.Rows}}<tr><td>{{.Source}}</td><td>{{.Key}}</td>{{range .Values}}<td>{{if .}}{{.}}{{else}}—{{end}}</td>{{end}}</tr>
{{end}}</table>
{{else}}<p id="differences">The configurations are the same key for key.</p>
{{end}}<h2>Queues</h2>
<p>Per queue, the 50th and 95th percentiles of the jobs' wait (submission to first task) and completion time (submission to finish), and their differences from the first configuration.</p>
{{range .Queues}}<h3>{{.Queue}}</h3>
<table id="queue-{{.Queue}}">
<tr><th>configuration</th><th>jobs finished</th><th>wait p50 (s)</th><th>Δ</th><th>wait p95 (s)</th><th>Δ</th><th>runtime p50 (s)</th><th>Δ</th><th>runtime p95 (s)</th><th>Δ</th></tr>
{{range .Rows}}<tr><td>{{.Variant}}</td><td>{{.Finished}} of {{.Jobs}}</td><td>{{printf "%.1f" .WaitP50}}</td><td>{{.DWaitP50}}</td><td>{{printf "%.1f" .WaitP95}}</td><td>{{.DWaitP95}}</td><td>{{printf "%.1f" .RunP50}}</td><td>{{.DRunP50}}</td><td>{{printf "%.1f" .RunP95}}</td><td>{{.DRunP95}}</td></tr>
{{end}}</table>
{{range .Figures}}<figure id="fig-{{.ID}}">{{.SVG}}</figure>
{{end}}{{end}}<h2>Each configuration</h2>
{{range .Each}}<section id="variant-{{.Name}}"><h3>{{.Name}}</h3>
{{range .Story}}<p>{{.}}</p>
{{end}}{{if .Figure.SVG}}<figure id="fig-{{.Figure.ID}}">{{.Figure.SVG}}</figure>
{{end}}</section>
{{end}}</body></html>
`))
