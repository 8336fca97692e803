package report

import (
	"bytes"
	"encoding/xml"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/examples/sim/metrics"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sampleRun is a small hand-made run: two queues, one plan, a preemption.
func sampleRun() *metrics.Run {
	r := &metrics.Run{Scheduler: "capacity", Queues: []string{"root.a", "root.plan"}, Plans: []string{"plan"}, End: 7_200_000, Events: 42}
	for i := int64(0); i <= 12; i++ {
		r.Samples = append(r.Samples, metrics.Sample{Time: i * 600_000, Capacity: berth.New(100*1024, 100),
			Allocated: berth.New(i*5*1024, i*5), Pending: berth.New((12-i)*1024, 12-i), Nodes: 10, RunningApps: int(i), RunningContainers: int(5 * i),
			Queues: []metrics.QueueSample{
				{Guaranteed: berth.New(60*1024, 60), Used: berth.New(i*3*1024, i*3), Marked: int(i / 3), Preempted: int(i / 4)},
				{Guaranteed: berth.New(40*1024, 40), Used: berth.New(i*2*1024, i*2)},
			},
			PlanCapacity: []berth.Resource{berth.New(40*1024, 40)}, PlanCommitted: []berth.Resource{berth.New(i*1024, i)},
			Preempted: int(i / 4), Marked: int(i / 3)})
	}
	r.Jobs = []metrics.Job{
		{ID: "j1", Queue: "a", Submitted: 0, AMStarted: 1000, FirstTask: 3000, Finished: 60_000, Containers: 5},
		{ID: "j2", Queue: "a", Submitted: 1000, AMStarted: 2000, FirstTask: 11_000, Finished: 100_000, Containers: 3, Preempted: 1},
		{ID: "j3", Queue: "plan", Submitted: 5000, AMStarted: 6000, FirstTask: 7000, Finished: 0, Reservation: "reservation_1_0001", Deadline: 90_000},
	}
	r.Config = []metrics.ConfigNote{{File: "capacity-scheduler.xml", Kind: "unknown", Key: "yarn.scheduler.capacity.root.a.typo-capacity", Value: "10", Detail: "did you mean yarn.scheduler.capacity.root.a.capacity?"}}
	r.Reservations = []metrics.Reservation{{ID: "reservation_1_0001", Job: "j3", Queue: "plan", Accepted: true, Arrival: 5000, Deadline: 90_000, Start: 5000, End: 80_000}}
	return r
}

// TestReportStructure checks the page is well formed, every SVG is well
// formed XML, and the expected figures and series are there.
func TestReportStructure(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, Write(&b, sampleRun(), "test <run>"))
	page := b.String()
	assert.True(t, strings.HasPrefix(page, "<!DOCTYPE html>"))
	assert.Contains(t, page, "<title>test &lt;run&gt;</title>", "the title is escaped")

	// The page parses to the end as HTML (non-strict XML with HTML's
	// void elements) with balanced elements.
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

	// Each figure holds one strictly well-formed SVG.
	figs := regexp.MustCompile(`(?s)<figure id="fig-([^"]+)">.*?(<svg.*?</svg>)`).FindAllStringSubmatch(page, -1)
	ids := map[string]string{}
	for _, m := range figs {
		ids[m[1]] = m[2]
		d := xml.NewDecoder(strings.NewReader(m[2]))
		for {
			_, err := d.Token()
			if err == io.EOF {
				break
			}
			require.NoError(t, err, "figure %s", m[1])
		}
	}
	want := map[string][]string{
		"cluster":               {"capacity", "allocated", "pending"},
		"queue-root.a":          {"guaranteed", "used", "pending"},
		"queue-root.plan":       {"guaranteed", "used"},
		"running":               {"applications", "containers"},
		"plan-plan":             {"plan capacity", "committed by reservations"},
		"wait":                  {">a<", ">plan<"},
		"runtime":               {">a<"},
		"preemptions":           {"marked for preemption", "preempted", "lost with their node"},
		"preemptions-per-queue": {">root.a<"},
	}
	for id, series := range want {
		svg, ok := ids[id]
		if !assert.True(t, ok, "figure %s missing", id) {
			continue
		}
		for _, s := range series {
			assert.Contains(t, svg, s, "figure %s series %s", id, s)
		}
	}
	assert.Len(t, ids, len(want))
	// The summary table carries the run's figures.
	assert.Contains(t, page, `<table id="summary">`)
	assert.Regexp(t, `<td>3</td><td>2</td><td>8</td><td>4</td><td>1</td><td>0</td><td>1</td><td>1</td>`, page)
	// The queue table ends with the queue's marked and preempted counts.
	assert.Regexp(t, `<tr><td>a</td>(<td>[^<]*</td>){10}<td>4</td><td>3</td></tr>`, page)
	// The configuration report is a table of its notes.
	assert.Contains(t, page, `<table id="config">`)
	assert.Contains(t, page, `<tr><td>capacity-scheduler.xml</td><td>unknown</td><td>yarn.scheduler.capacity.root.a.typo-capacity</td><td>10</td><td>did you mean yarn.scheduler.capacity.root.a.capacity?</td></tr>`)

	clean := sampleRun()
	clean.Config = nil
	b.Reset()
	require.NoError(t, Write(&b, clean, "clean"))
	assert.Contains(t, b.String(), `<p id="config">Every key of the configuration files is modelled.</p>`)
	assert.NotContains(t, b.String(), `<table id="config">`)
}

func TestSummarize(t *testing.T) {
	s := Summarize(sampleRun())
	assert.Equal(t, 3, s.Jobs)
	assert.Equal(t, 2, s.Finished)
	assert.Equal(t, 1, s.Preempted)
	assert.Equal(t, 1, s.Accepted)
	assert.Zero(t, s.DeadlinesMet, "j3 did not finish")
	require.Len(t, s.Queues, 2)
	a := s.Queues[0]
	assert.Equal(t, "a", a.Queue)
	assert.InDelta(t, 6.5, a.WaitMean, 1e-9) // waits 3 s and 10 s
	assert.InDelta(t, 3.0, a.WaitP50, 1e-9)
	assert.InDelta(t, 10.0, a.WaitP95, 1e-9)
	assert.InDelta(t, 60.0, a.MeanGuaranteedGB, 1e-9)
	assert.Equal(t, 4, s.Marked)
	assert.Equal(t, 4, a.Marked)
	assert.Equal(t, 3, a.Preempted)
	assert.Zero(t, s.Queues[1].Preempted)
}
