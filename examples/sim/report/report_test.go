package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/examples/sim/metrics"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const minute = 60_000

// sampleRun is a small hand-made run of 100 minutes, sampled every
// minute: queues a, b and a plan; four nodes of /rack1 lost from minute
// 30 to 50; b starved from minute 58 until preemption takes containers
// of a back for it (minutes 60–62) and it recovers at minute 65.
func sampleRun() *metrics.Run {
	r := &metrics.Run{Scheduler: "capacity", Queues: []string{"root.a", "root.b", "root.plan"}, Plans: []string{"plan"},
		End: 100 * minute, Events: 42, Description: "A small <test> scenario."}
	for i := int64(0); i <= 100; i++ {
		capa := int64(100)
		if i >= 30 && i < 50 {
			capa = 60
		}
		b := metrics.QueueSample{Guaranteed: berth.New(40*1024, 40)}
		switch {
		case i >= 58 && i < 65:
			b.Pending = berth.New(30*1024, 30)
		case i >= 65 && i < 80:
			b.Used = berth.New(35*1024, 35)
		}
		a := metrics.QueueSample{Guaranteed: berth.New(40*1024, 40), Used: berth.New(i/2*1024, i/2)}
		if i >= 60 {
			a.Marked, a.Preempted = 9, 9
		}
		r.Samples = append(r.Samples, metrics.Sample{Time: i * minute, Capacity: berth.New(capa*1024, capa), Nodes: int(capa / 10),
			Allocated: berth.New(i/2*1024, i/2), Pending: berth.New((100-i)*100, 1), RunningApps: int(i % 7), RunningContainers: int(i * 40),
			Queues:       []metrics.QueueSample{a, b, {Guaranteed: berth.New(20*1024, 20), Used: berth.New(i%20*1024, i%20)}},
			PlanCapacity: []berth.Resource{berth.New(20*1024, 20)}, PlanCommitted: []berth.Resource{berth.New(i%20*1024, i%20)},
			Preempted: a.Preempted, Marked: a.Marked})
	}
	r.Jobs = []metrics.Job{
		{ID: "j1", Queue: "a", Submitted: 0, AMStarted: 1000, FirstTask: 3000, Finished: 60_000, Containers: 5},
		{ID: "j2", Queue: "a", Submitted: 1000, AMStarted: 2000, FirstTask: 11_000, Finished: 100_000, Containers: 3, Preempted: 1},
		{ID: "j3", Queue: "plan", Submitted: 5000, AMStarted: 6000, FirstTask: 7000, Finished: 0, Reservation: "reservation_1_0001", Deadline: 90_000},
		{ID: "j4", Queue: "b", Submitted: 58 * minute, AMStarted: 58*minute + 500, FirstTask: 64 * minute, Finished: 70 * minute, Containers: 9},
	}
	r.Config = []metrics.ConfigNote{{File: "capacity-scheduler.xml", Kind: "unknown", Key: "yarn.scheduler.capacity.root.a.typo-capacity", Value: "10", Detail: "did you mean yarn.scheduler.capacity.root.a.capacity?"}}
	r.Reservations = []metrics.Reservation{{ID: "reservation_1_0001", Job: "j3", Queue: "plan", Accepted: true, Arrival: 5000, Deadline: 90_000, Start: 5000, End: 80_000}}
	node := berth.New(10*1024, 10)
	r.Timeline = append(r.Timeline, metrics.Event{Time: 5 * minute, Kind: metrics.ReservationAccepted, Queue: "root.plan", Reservation: "reservation_1_0001", Resource: node})
	for n := range 4 {
		r.Timeline = append(r.Timeline, metrics.Event{Time: 30 * minute, Kind: metrics.NodeLost, Node: fmt.Sprint("n", n), Rack: "/rack1", Containers: 5, AMs: 1, Resource: node})
	}
	r.Timeline = append(r.Timeline,
		metrics.Event{Time: 30 * minute, Kind: metrics.PlanReplanned, Queue: "root.plan", Resource: berth.New(12*1024, 12), Detail: "replanned"},
		metrics.Event{Time: 30 * minute, Kind: metrics.ReservationRemoved, Queue: "root.plan", Reservation: "reservation_1_0002"})
	for n := range 4 {
		r.Timeline = append(r.Timeline, metrics.Event{Time: 50 * minute, Kind: metrics.NodeReturned, Node: fmt.Sprint("n", n), Rack: "/rack1", Resource: node})
	}
	for k := range int64(3) {
		r.Timeline = append(r.Timeline, metrics.Event{Time: (60 + k) * minute, Kind: metrics.Preempted, Queue: "root.a", Containers: 3, Resource: berth.New(3*4096, 3)})
	}
	return r
}

// parseHTML reads the page as HTML (non-strict XML with HTML's void
// elements and entities) to its end and says whether its elements
// balance.
func parseHTML(t *testing.T, page string) {
	t.Helper()
	dec := xml.NewDecoder(strings.NewReader(page))
	dec.Strict, dec.AutoClose, dec.Entity = false, xml.HTMLAutoClose, xml.HTMLEntity
	depth := 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		switch tok.(type) {
		case xml.StartElement:
			depth++
		case xml.EndElement:
			depth--
		}
	}
	assert.Zero(t, depth, "balanced elements")
}

var (
	figureRE = regexp.MustCompile(`(?s)<figure id="fig-([^"]+)">.*?(<svg.*?</svg>)`)
	pathRE   = regexp.MustCompile(`<path d="([^"]*)" style="fill:none;stroke:(#[0-9A-F]{6});stroke-width:1.4`)
	textRE   = regexp.MustCompile(`(?s)<text x="([-0-9.]+)"[^>]*>([^<]*)</text>`)
	pointRE  = regexp.MustCompile(`[ML]([-0-9.]+),([-0-9.]+)`)
)

// svgFigures finds each figure's SVG and checks it is strictly well
// formed XML.
func svgFigures(t *testing.T, page string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, m := range figureRE.FindAllStringSubmatch(page, -1) {
		out[m[1]] = m[2]
		d := xml.NewDecoder(strings.NewReader(m[2]))
		for {
			_, err := d.Token()
			if err == io.EOF {
				break
			}
			require.NoError(t, err, "figure %s", m[1])
		}
	}
	return out
}

// seriesPaths returns, per stroke color, the data paths' points (x only):
// a series line is drawn 1.4 wide, its legend thumbnail too but with two
// points.
func seriesPaths(svg string) map[string][][]float64 {
	out := map[string][][]float64{}
	for _, m := range pathRE.FindAllStringSubmatch(svg, -1) {
		var xs []float64
		for _, p := range pointRE.FindAllStringSubmatch(m[1], -1) {
			x, _ := strconv.ParseFloat(p[1], 64)
			xs = append(xs, x)
		}
		out[m[2]] = append(out[m[2]], xs)
	}
	return out
}

// TestReportStructure: the page and every SVG parse, every chart has
// data, the legends are beside the data, the tables fit the page.
func TestReportStructure(t *testing.T) {
	r := sampleRun()
	var b bytes.Buffer
	require.NoError(t, Write(&b, r, "test <run>"))
	page := b.String()
	assert.True(t, strings.HasPrefix(page, "<!DOCTYPE html>"))
	assert.Contains(t, page, "<title>test &lt;run&gt;</title>", "the title is escaped")
	assert.Contains(t, page, `<p class="description">A small &lt;test&gt; scenario.</p>`)
	assert.NotContains(t, page, "<script", "no scripts")
	assert.NotRegexp(t, `(src|href)="(https?:)?//`, page, "no external resources")
	parseHTML(t, page)

	figs, err := Figures(r)
	require.NoError(t, err)
	svgs := svgFigures(t, page)
	require.Len(t, svgs, len(figs), "every figure is on the page")
	want := map[string][]string{
		"timeline":              {"nodes", "root.b starved", "preemption", "plan root.plan"},
		"cluster":               {"capacity", "allocated", "pending"},
		"queue-root.a":          {"guaranteed", "used", "pending"},
		"queue-root.b":          {"guaranteed", "used", "pending"},
		"queue-root.plan":       {"guaranteed", "used", "pending"},
		"running":               {"applications", "containers"},
		"plan-plan":             {"plan capacity", "committed by reservations"},
		"wait":                  {"a", "b", "plan"},
		"runtime":               {"a", "b"},
		"preemptions":           {"marked for preemption", "preempted", "lost with their node"},
		"preemptions-per-queue": {"root.a"},
	}
	assert.Len(t, figs, len(want))
	for _, f := range figs {
		names := want[f.ID]
		require.NotNil(t, names, "unexpected figure %s", f.ID)
		svg := svgs[f.ID]
		require.NotEmpty(t, svg, f.ID)
		var got []string
		for _, s := range f.Series {
			got = append(got, s.Name)
		}
		assert.Equal(t, names, got, "figure %s series", f.ID)
		if f.ID == "timeline" {
			for _, s := range f.Series {
				assert.Positive(t, s.Points, "lane %s has marks", s.Name)
				assert.Contains(t, svg, ">"+s.Name+"<", "lane %s is labelled", s.Name)
			}
			continue
		}
		// Every series is drawn with its points; the legend is right of
		// every data point.
		legendX := 1e9
		for _, m := range textRE.FindAllStringSubmatch(svg, -1) {
			if f.ID == "running" {
				break // one series per panel, named by its axis
			}
			for _, s := range f.Series {
				if m[2] == s.Name {
					x, _ := strconv.ParseFloat(m[1], 64)
					legendX = min(legendX, x)
				}
			}
		}
		paths := seriesPaths(svg)
		for _, s := range f.Series {
			assert.GreaterOrEqual(t, s.Points, 2, "figure %s series %s", f.ID, s.Name)
			var data []float64
			for _, xs := range paths[s.Color] {
				if len(xs) >= 3 {
					data = xs
				}
			}
			if !assert.NotNil(t, data, "figure %s: no data path for %s (%s)", f.ID, s.Name, s.Color) {
				continue
			}
			assert.Less(t, slices.Max(data), legendX-20, "figure %s: the legend covers %s", f.ID, s.Name)
		}
		if f.ID != "running" { // one series per panel, named by its axis
			assert.Less(t, legendX, 1e9, "figure %s has a legend", f.ID)
		}
	}

	// Tables stay inside the page: a fixed layout over the page's width,
	// cells that wrap anywhere, and a bounded number of columns.
	assert.Contains(t, page, "table{table-layout:fixed;width:100%;")
	assert.Regexp(t, `td,th\{[^}]*overflow-wrap:anywhere`, page)
	assert.NotContains(t, page, "nowrap")
	tables := regexp.MustCompile(`(?s)<table id="([^"]+)".*?</table>`).FindAllStringSubmatch(page, -1)
	require.Len(t, tables, 4) // timeline, summary, queues, config
	for _, tb := range tables {
		for _, row := range regexp.MustCompile(`(?s)<tr>.*?</tr>`).FindAllString(tb[0], -1) {
			assert.LessOrEqual(t, strings.Count(row, "<td")+strings.Count(row, "<th"), 13, "table %s", tb[1])
		}
		if cols := regexp.MustCompile(`width:(\d+)%`).FindAllStringSubmatch(tb[0], -1); len(cols) > 0 {
			sum := 0
			for _, c := range cols {
				n, _ := strconv.Atoi(c[1])
				sum += n
			}
			assert.Less(t, sum, 100, "table %s: its fixed columns leave room for the last", tb[1])
		}
	}

	// The summary tables carry the run's figures.
	assert.Regexp(t, `<td>4</td><td>3</td><td>17</td><td>9</td><td>1</td><td>0</td><td>1</td><td>1</td>`, page)
	assert.Regexp(t, `<tr><td>a</td>(<td>[^<]*</td>){10}<td>9</td><td>9</td></tr>`, page)
	assert.Contains(t, page, `<tr><td>capacity-scheduler.xml</td><td>unknown</td><td>yarn.scheduler.capacity.root.a.typo-capacity</td><td>10</td><td>did you mean yarn.scheduler.capacity.root.a.capacity?</td></tr>`)

	clean := sampleRun()
	clean.Config = nil
	b.Reset()
	require.NoError(t, Write(&b, clean, "clean"))
	assert.Contains(t, b.String(), `<p id="config">Every key of the configuration files is modelled.</p>`)
	assert.NotContains(t, b.String(), `<table id="config">`)
}

// TestTimeAxis: what happened is on the time axis, and a short run reads
// in minutes (a day in hours, a few minutes in seconds).
func TestTimeAxis(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, Write(&b, sampleRun(), "t"))
	svgs := svgFigures(t, b.String())
	tl := svgs["timeline"]
	assert.Contains(t, tl, ">4 nodes down<", "the outage is labelled")
	assert.Contains(t, tl, ">recovered<", "the recovery is marked")
	assert.Contains(t, tl, ">9 killed<", "the preemption episode is labelled")
	assert.Contains(t, tl, ">simulated time (min)<")
	for _, id := range []string{"cluster", "queue-root.b", "running"} {
		assert.Contains(t, svgs[id], ">nodes down<", "%s: legend of the outage band", id)
		assert.Contains(t, svgs[id], ">preemption kills<", "%s: legend of the preemption ticks", id)
	}
	assert.Contains(t, svgs["queue-root.b"], ">queue starved<")
	assert.Contains(t, svgs["wait"], ">wait (s)<", "the longest wait is 6 minutes")

	for _, c := range []struct {
		end  berth.Time
		unit string
	}{{4 * minute, "s"}, {100 * minute, "min"}, {24 * 60 * minute, "h"}} {
		assert.Equal(t, c.unit, unitFor(float64(c.end)).name, "%d ms", c.end)
	}
	ticks := timeTicks{unitH}.Ticks(0, 24)
	var labels []string
	for _, tk := range ticks {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	assert.Equal(t, []string{"0", "3", "6", "9", "12", "15", "18", "21", "24"}, labels)
}

// TestCDFIsAStepFunction: the distribution starts at the smallest value
// (not with a ramp from the origin), steps once per distinct value and
// holds 1 to the right edge.
func TestCDFIsAStepFunction(t *testing.T) {
	xy := cdf([]float64{30, 10, 10, 20}, 40)
	require.Len(t, xy, 5)
	assert.Equal(t, [2]float64{10, 0}, [2]float64{xy[0].X, xy[0].Y})
	assert.Equal(t, [2]float64{10, 0.5}, [2]float64{xy[1].X, xy[1].Y})
	assert.Equal(t, [2]float64{20, 0.75}, [2]float64{xy[2].X, xy[2].Y})
	assert.Equal(t, [2]float64{30, 1}, [2]float64{xy[3].X, xy[3].Y})
	assert.Equal(t, [2]float64{40, 1}, [2]float64{xy[4].X, xy[4].Y})
	// Drawn post-step: each rise is vertical.
	var b bytes.Buffer
	require.NoError(t, Write(&b, sampleRun(), "t"))
	wait := svgFigures(t, b.String())["wait"]
	for _, xs := range seriesPaths(wait) {
		for _, p := range xs {
			if len(p) < 3 {
				continue
			}
			for i := 1; i+1 < len(p); i += 2 {
				assert.InDelta(t, p[i], p[i+1], 1e-9, "a step rises straight up")
			}
		}
	}
}

// TestStory: the sentences tell the run from its records.
func TestStory(t *testing.T) {
	story := Story(sampleRun())
	require.NotEmpty(t, story)
	all := strings.Join(story, "\n")
	assert.Equal(t, "4 jobs (17 containers) ran on 10 nodes (100 GB, 100 vcores) for 1 h 40 min under the capacity scheduler; 3 finished, 1 did not.", story[0])
	assert.Contains(t, all, "At 30 min 4 nodes of rack /rack1 went down (40.0 GB, 40 % of the cluster) for 20 min: the loss ended 20 running containers, 4 of them application masters whose applications restarted. The plan follower found root.plan over-committed and the replanner removed 1 reservation.")
	assert.Contains(t, all, "root.b was starved from 58 min to 1 h 05 min (7 min): it held as little as 0 % of the 30.0 GB it was entitled to. While it was starved, preemption killed 9 containers (36.0 GB) of root.a; root.b was back at its entitlement at 1 h 05 min.")
	assert.Contains(t, all, "Of 1 reservation request, 1 was accepted and 0 refused; the replanner later removed 1; 0 of 1 deadline job finished by their deadline.")
	assert.Contains(t, all, "Waits from submission to the first task, 95th percentile: b 6 min, a 10 s, plan 2 s.")

	stalled := sampleRun()
	stalled.Stalled = true
	stalled.Timeline = append(stalled.Timeline, metrics.Event{Time: 90 * minute, Kind: metrics.Stalled, Containers: 1, Detail: "nothing changed for more than 21600000 ms with 1 jobs unfinished"})
	assert.Contains(t, strings.Join(Story(stalled), "\n"), "The run stalled at 1 h 30 min: nothing changed")
	var b bytes.Buffer
	require.NoError(t, Write(&b, stalled, "t"))
	assert.Contains(t, b.String(), `<p class="notice">The run stalled`)
	assert.Contains(t, svgFigures(t, b.String())["timeline"], ">stalled<")
}

// TestFairShareLabel: under the fair scheduler the queue's entitlement is
// its fair share, in the table and on the charts.
func TestFairShareLabel(t *testing.T) {
	r := sampleRun()
	r.Scheduler = "fair"
	var b bytes.Buffer
	require.NoError(t, Write(&b, r, "t"))
	assert.Contains(t, b.String(), "<th>mean fair share (GB)</th>")
	assert.NotContains(t, b.String(), "guaranteed (GB)")
	assert.Contains(t, svgFigures(t, b.String())["queue-root.a"], ">fair share<")
	assert.Equal(t, "fair share", Summarize(r).ShareLabel)
}

func TestSummarize(t *testing.T) {
	s := Summarize(sampleRun())
	assert.Equal(t, 4, s.Jobs)
	assert.Equal(t, 3, s.Finished)
	assert.Equal(t, 1, s.Preempted)
	assert.Equal(t, 1, s.Accepted)
	assert.Equal(t, "guaranteed", s.ShareLabel)
	assert.Zero(t, s.DeadlinesMet, "j3 did not finish")
	require.Len(t, s.Queues, 3)
	a := s.Queues[0]
	assert.Equal(t, "a", a.Queue)
	assert.InDelta(t, 6.5, a.WaitMean, 1e-9) // waits 3 s and 10 s
	assert.InDelta(t, 3.0, a.WaitP50, 1e-9)
	assert.InDelta(t, 10.0, a.WaitP95, 1e-9)
	assert.InDelta(t, 40.0, a.MeanGuaranteedGB, 1e-9)
	assert.Equal(t, 9, s.Marked)
	assert.Equal(t, 9, a.Marked)
	assert.Equal(t, 9, a.Preempted)
}

func TestFormat(t *testing.T) {
	for _, c := range []struct {
		d    berth.Duration
		want string
	}{{40, "40 ms"}, {1500, "1.5 s"}, {45_000, "45 s"}, {135_000, "2 min 15 s"}, {43 * minute, "43 min"}, {7_200_000, "2 h"}, {7_500_000, "2 h 05 min"}} {
		assert.Equal(t, c.want, dur(c.d))
	}
	assert.Equal(t, "16:31", clock(16*3_600_000+31*minute, 86_400_000))
	assert.Equal(t, "day 2 03:10", clock(27*3_600_000+10*minute, 2*86_400_000))
	assert.Equal(t, "2 min 15 s", clock(135_000, 10*minute))
	assert.Equal(t, "1,920 GB", memory(1920*1024))
	assert.Equal(t, "56.0 GB", memory(56*1024))
	assert.Equal(t, "512 MB", memory(512))
	assert.Equal(t, "a, b and c", list([]string{"a", "b", "c"}))
}
