package report

import (
	"bytes"
	"cmp"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/berthsched/berth"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Series names one data series of a figure and how many points it drew,
// so a test (or a reader of Figures) can tell a chart has data.
type Series struct {
	Name   string
	Points int
	// Color is the series' line color as the SVG writes it ("#1F77B4").
	Color string
}

// unit is a time unit for an axis or a distribution: short runs read in
// seconds or minutes, a day in hours.
type unit struct {
	ms   float64
	name string
}

var (
	unitS   = unit{1000, "s"}
	unitMin = unit{60_000, "min"}
	unitH   = unit{3_600_000, "h"}
)

// unitFor picks the unit a span of ms reads best in: up to 15 minutes in
// seconds, up to 6 hours in minutes, beyond in hours.
func unitFor(span float64) unit {
	switch {
	case span <= 15*60_000:
		return unitS
	case span <= 6*3_600_000:
		return unitMin
	}
	return unitH
}

func (u unit) of(ms float64) float64 { return ms / u.ms }

// chart is one figure: one plot, or panels stacked over a shared time
// axis, with its legend drawn beside the plot area so that it never
// covers data.
type chart struct {
	panels []*plot.Plot
	legend plot.Legend
	series []Series
	n      int                    // series drawn, for the next color
	top    map[*plot.Plot]float64 // each panel's largest value
}

func newChart() *chart {
	c := &chart{legend: plot.NewLegend(), top: map[*plot.Plot]float64{}}
	c.legend.Left, c.legend.Top = true, true
	c.legend.TextStyle.Font.Size = vg.Points(9)
	c.legend.Padding = vg.Points(3)
	return c
}

// panel adds a plot below the previous ones.
func (c *chart) panel(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = vg.Points(11)
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.Y.Min = 0
	p.Add(plotter.NewGrid())
	c.panels = append(c.panels, p)
	return p
}

var palette = []color.Color{
	color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}, color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff},
	color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff}, color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff},
	color.RGBA{R: 0x94, G: 0x67, B: 0xbd, A: 0xff}, color.RGBA{R: 0x8c, G: 0x56, B: 0x4b, A: 0xff},
	color.RGBA{R: 0xe3, G: 0x77, B: 0xc2, A: 0xff}, color.RGBA{R: 0x17, G: 0xbe, B: 0xcf, A: 0xff},
}

// line adds a series to p in the chart's next color (dashed once the
// palette wraps). A step series holds its value until the next point, as
// a distribution or a counter does. legend false keeps it out of the
// legend (a panel's single series named by its axis).
func (c *chart) line(p *plot.Plot, name string, xy plotter.XYs, step, legend bool) error {
	l, err := plotter.NewLine(xy)
	if err != nil {
		return fmt.Errorf("series %s: %w", name, err)
	}
	l.Color = palette[c.n%len(palette)]
	l.Width = vg.Points(1.4)
	if c.n >= len(palette) {
		l.Dashes = plotutil.Dashes(1 + c.n/len(palette))
	}
	if step {
		l.StepStyle = plotter.PostStep
	}
	c.n++
	for _, pt := range xy {
		c.top[p] = max(c.top[p], pt.Y)
	}
	p.Add(l)
	if legend {
		c.legend.Add(name, l)
	}
	r, g, b, _ := l.Color.RGBA()
	c.series = append(c.series, Series{Name: name, Points: len(xy), Color: fmt.Sprintf("#%02X%02X%02X", r>>8, g>>8, b>>8)})
	return nil
}

// svg draws the chart: the legend in a strip on the right, the panels
// stacked in the rest with aligned plot areas.
func (c *chart) svg(w, h vg.Length) (string, error) {
	cw, err := draw.NewFormattedCanvas(w, h, "svg")
	if err != nil {
		return "", err
	}
	c.draw(draw.New(cw))
	var b bytes.Buffer
	if _, err := cw.WriteTo(&b); err != nil {
		return "", err
	}
	s := b.String()
	if i := strings.Index(s, "<svg"); i > 0 {
		s = s[i:] // drop the XML prolog and doctype: the SVG is inlined
	}
	return s, nil
}

func (c *chart) draw(dc draw.Canvas) {
	// Headroom over the data for the labels of what happened.
	for p, top := range c.top {
		if top > 0 && p.Y.Max <= top {
			p.Y.Max = top * 1.12
		}
	}
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	area := dc
	if w := c.legendWidth(dc); w > 0 {
		pad := vg.Points(8)
		area = draw.Crop(dc, 0, -(w + 2*pad), 0, 0)
		lc := draw.Crop(dc, dc.Size().X-w-pad, 0, 0, -vg.Points(24))
		c.legend.Draw(lc)
	}
	if len(c.panels) == 1 {
		c.panels[0].Draw(area)
		return
	}
	rows := make([][]*plot.Plot, len(c.panels))
	for i, p := range c.panels {
		rows[i] = []*plot.Plot{p}
	}
	tiles := draw.Tiles{Rows: len(c.panels), Cols: 1, PadY: vg.Points(6)}
	for i, cv := range plot.Align(rows, tiles, area) {
		c.panels[i].Draw(cv[0])
	}
}

// legendWidth is the legend's width with room to spare: the SVG names
// its fonts without embedding them, and a viewer's fallback font may be
// wider than the one measured.
func (c *chart) legendWidth(dc draw.Canvas) vg.Length {
	r := c.legend.Rectangle(dc)
	return (r.Max.X - r.Min.X) * 1.25
}

// ---- time charts and their marks

// timeAxis converts simulated times to a chart's x values in the unit the
// run reads best in.
type timeAxis struct {
	u   unit
	end berth.Time
}

func newTimeAxis(end berth.Time) timeAxis { return timeAxis{u: unitFor(float64(end)), end: end} }

func (t timeAxis) x(ms berth.Time) float64 { return t.u.of(float64(ms)) }

func (t timeAxis) label() string { return "simulated time (" + t.u.name + ")" }

// timeTicks marks round times in a unit: every 1, 2, 3, 6 or 12 hours,
// every 1, 2, 5, 10, 15 or 30 minutes or seconds, as the span needs (at
// most ten steps), with unlabelled minor ticks between.
type timeTicks struct{ u unit }

// Ticks implements plot.Ticker.
func (tt timeTicks) Ticks(lo, hi float64) []plot.Tick {
	steps := []float64{1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1800, 3600}
	if tt.u == unitH {
		steps = []float64{1, 2, 3, 6, 12, 24, 48, 96, 168, 336, 720}
	}
	if hi-lo <= 0 {
		return nil
	}
	step := steps[len(steps)-1]
	for _, s := range steps {
		if (hi-lo)/s <= 10 {
			step = s
			break
		}
	}
	for (hi-lo)/step > 10 {
		step *= 2
	}
	minor := step / 2
	if step == 3 || step == 15 || step == 30 {
		minor = step / 3
	}
	var out []plot.Tick
	for x := math.Ceil(lo/minor) * minor; x <= hi+1e-9; x += minor {
		t := plot.Tick{Value: x}
		if r := math.Mod(x, step); r < 1e-9 || step-r < 1e-9 {
			t.Label = strconv.FormatFloat(x, 'f', -1, 64)
		}
		out = append(out, t)
	}
	return out
}

// markKind is one kind of thing that happened, drawn the same way on the
// timeline and behind the data of every time chart.
type markKind uint8

const (
	markOutage markKind = iota
	markStarved
	markPreempt
	markPreemptSpan
	markRecovered
	markReplan
	markReconfig
	markStall
	markAccepted
	markRejected
	markResRemoved
)

// markStyle: a band shades a stretch of time, a line marks a moment over
// the full height, a tick is a short mark at the foot of the plot (one
// preemption round, one reservation).
type markStyle struct {
	name  string // in legends
	color color.Color
	shape uint8 // shapeBand, shapeLine, shapeTick
	dash  bool
}

const (
	shapeBand = iota
	shapeLine
	shapeTick
)

var markStyles = [...]markStyle{
	markOutage:      {"nodes down", color.NRGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0x30}, shapeBand, false},
	markStarved:     {"queue starved", color.NRGBA{R: 0xff, G: 0xbf, B: 0x00, A: 0x48}, shapeBand, false},
	markPreempt:     {"preemption kills", color.NRGBA{R: 0xe0, G: 0x6c, B: 0x00, A: 0xff}, shapeTick, false},
	markPreemptSpan: {"preemption episode", color.NRGBA{R: 0xe0, G: 0x6c, B: 0x00, A: 0x28}, shapeBand, false},
	markRecovered:   {"starved queue recovered", color.NRGBA{R: 0x1a, G: 0x80, B: 0x1a, A: 0xff}, shapeLine, true},
	markReplan:      {"plan replanned", color.NRGBA{R: 0x94, G: 0x67, B: 0xbd, A: 0xff}, shapeLine, true},
	markReconfig:    {"reconfigured", color.NRGBA{R: 0x55, G: 0x55, B: 0x55, A: 0xff}, shapeLine, true},
	markStall:       {"stalled", color.NRGBA{R: 0xb0, G: 0x00, B: 0x00, A: 0xff}, shapeLine, false},
	markAccepted:    {"reservation accepted", color.NRGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff}, shapeTick, false},
	markRejected:    {"reservation refused", color.NRGBA{R: 0x99, G: 0x99, B: 0x99, A: 0xff}, shapeTick, false},
	markResRemoved:  {"reservation removed", color.NRGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}, shapeTick, false},
}

// mark is one thing that happened, from..to (a moment when equal), with
// an optional label drawn at the top of the plot.
type mark struct {
	kind     markKind
	from, to float64
	label    string
}

// marks draws what happened over a time chart's full height, behind its
// series (it is added first).
type marks []mark

// Plot implements plot.Plotter.
func (m marks) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	for _, shape := range []uint8{shapeBand, shapeTick, shapeLine} {
		for _, k := range m {
			if markStyles[k.kind].shape == shape {
				k.draw(c, trX, c.Min.Y, c.Max.Y, vg.Points(7))
			}
		}
	}
	// Labels last, at the top, so that data does not hide them.
	drawLabels(c, trX, c.Max.Y, m)
}

// drawLabels writes the marks' labels along one line, in time order,
// leaving out a label that would overlap the one before.
func drawLabels(c draw.Canvas, trX func(float64) vg.Length, top vg.Length, m []mark) {
	byTime := slices.Clone(m)
	slices.SortStableFunc(byTime, func(a, b mark) int { return cmp.Compare(a.from, b.from) })
	end := c.Min.X - 1
	for _, k := range byTime {
		if k.label == "" {
			continue
		}
		if x, w := k.labelAt(c, trX); x > end {
			k.drawLabel(c, x, top)
			end = x + w + vg.Points(4)
		}
	}
}

// draw draws the mark between heights lo and hi; a tick is tickH tall
// from lo.
func (k mark) draw(c draw.Canvas, trX func(float64) vg.Length, lo, hi, tickH vg.Length) {
	st := markStyles[k.kind]
	x0, x1 := trX(k.from), trX(k.to)
	inside := x0 >= c.Min.X && x0 <= c.Max.X
	switch st.shape {
	case shapeBand:
		x0, x1 = clipX(c, x0), clipX(c, x1)
		x1 = max(x1, x0+vg.Points(3))
		c.FillPolygon(st.color, []vg.Point{{X: x0, Y: lo}, {X: x1, Y: lo}, {X: x1, Y: hi}, {X: x0, Y: hi}})
	case shapeTick:
		if inside {
			c.StrokeLine2(draw.LineStyle{Color: st.color, Width: vg.Points(0.8)}, x0, lo, x0, lo+tickH)
		}
	case shapeLine:
		if inside {
			c.StrokeLine2(lineStyle(st), x0, lo, x0, hi)
		}
	}
}

// labelAt is where the mark's label starts and how wide it is: inside a
// band's left edge, beside a line or a tick, kept inside the plot.
func (k mark) labelAt(c draw.Canvas, trX func(float64) vg.Length) (x, w vg.Length) {
	x = clipX(c, trX(k.from)) + vg.Points(2)
	w = smallText().Width(k.label)
	if x+w > c.Max.X {
		x = max(c.Min.X, c.Max.X-w)
	}
	return x, w
}

// drawLabel writes the mark's label at x, below height top.
func (k mark) drawLabel(c draw.Canvas, x, top vg.Length) {
	s := smallText()
	s.Color = opaque(markStyles[k.kind].color)
	c.FillText(s, vg.Point{X: x, Y: top - vg.Points(2)}, k.label)
}

func clipX(c draw.Canvas, x vg.Length) vg.Length { return max(c.Min.X, min(c.Max.X, x)) }

func lineStyle(st markStyle) draw.LineStyle {
	ls := draw.LineStyle{Color: st.color, Width: vg.Points(1)}
	if st.dash {
		ls.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
	}
	return ls
}

// opaque darkens a translucent band color for its label.
func opaque(c color.Color) color.Color {
	n := color.NRGBAModel.Convert(c).(color.NRGBA)
	if n.A == 0xff {
		return n
	}
	return color.NRGBA{R: n.R / 2, G: n.G / 2, B: n.B / 2, A: 0xff}
}

func smallText() text.Style {
	return text.Style{Color: color.Black, Font: font.From(plot.DefaultFont, vg.Points(8)), Handler: plot.DefaultTextHandler, YAlign: text.YTop}
}

// legendFor adds one legend entry per kind of mark drawn, in kind order.
func (m marks) legendFor(l *plot.Legend) {
	var kinds []markKind
	for _, k := range m {
		if !slices.Contains(kinds, k.kind) {
			kinds = append(kinds, k.kind)
		}
	}
	slices.Sort(kinds)
	for _, k := range kinds {
		l.Add(markStyles[k].name, markThumb(markStyles[k]))
	}
}

type markThumb markStyle

// Thumbnail implements plot.Thumbnailer.
func (t markThumb) Thumbnail(c *draw.Canvas) {
	st := markStyle(t)
	if st.shape == shapeBand {
		c.FillPolygon(st.color, []vg.Point{{X: c.Min.X, Y: c.Min.Y}, {X: c.Max.X, Y: c.Min.Y}, {X: c.Max.X, Y: c.Max.Y}, {X: c.Min.X, Y: c.Max.Y}})
		return
	}
	x := (c.Min.X + c.Max.X) / 2
	ls := lineStyle(st)
	ls.Width = vg.Points(1.4)
	c.StrokeLine2(ls, x, c.Min.Y, x, c.Max.Y)
}

// ---- distributions

// cdf is the empirical distribution of xs as a step function: 0 up to
// the smallest value, a step of 1/n at each value, 1 from the largest to
// right (the plot's right edge, so that every queue's curve ends there).
func cdf(xs []float64, right float64) plotter.XYs {
	ys := slices.Clone(xs)
	slices.Sort(ys)
	n := float64(len(ys))
	out := make(plotter.XYs, 0, len(ys)+2)
	out = append(out, plotter.XY{X: ys[0], Y: 0})
	for i, y := range ys {
		if i+1 < len(ys) && ys[i+1] == y {
			continue // one step for equal values
		}
		out = append(out, plotter.XY{X: y, Y: float64(i+1) / n})
	}
	if right > ys[len(ys)-1] {
		out = append(out, plotter.XY{X: right, Y: 1})
	}
	return out
}
