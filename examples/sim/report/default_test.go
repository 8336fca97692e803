package report_test

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/berthsched/berth/examples/sim/report"
	"github.com/berthsched/berth/examples/sim/scenario"
	"github.com/berthsched/berth/examples/sim/trace"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDefaultScenarioTimeline runs the default scenario's afternoon (the
// jobs from 15:00, research's burst and the dashboards that starve
// analytics, to 16:45) with its rack failure at noon, and checks the
// report shows both on its time axis and tells them: the racks down for
// two hours, analytics starved and back at its guarantee after preemption
// took research's containers.
func TestDefaultScenarioTimeline(t *testing.T) {
	if raceEnabled {
		// The simulation runs on this goroutine only: the detector has
		// nothing to find and multiplies its cost tenfold.
		t.Skip("a single-goroutine simulation of the default afternoon: run without -race (.ci/run does: go test ./examples/sim/...)")
	}
	in := scenario.Default("capacity")
	in.End = 16*3_600_000 + 45*60_000
	sc, err := scenario.Load(in)
	require.NoError(t, err)
	var keep []trace.Job
	for _, j := range sc.Jobs {
		if j.Start >= 15*3_600_000 {
			keep = append(keep, j)
		}
	}
	sc.Jobs = keep
	run, err := sc.Run(scenario.Options{})
	require.NoError(t, err)

	var b bytes.Buffer
	require.NoError(t, report.Write(&b, run, "default"))
	page := b.String()
	m := regexp.MustCompile(`(?s)<figure id="fig-timeline">.*?(<svg.*?</svg>)`).FindStringSubmatch(page)
	require.NotNil(t, m, "the report has a timeline")
	tl := m[1]
	assert.Contains(t, tl, ">60 nodes down<", "the rack failure is on the time axis")
	assert.Contains(t, tl, ">root.analytics starved<", "analytics' starvation has a lane")
	assert.Contains(t, tl, ">recovered<", "the recovery is on the time axis")
	assert.Regexp(t, `>\d+ killed<`, tl, "preemption is on the time axis")
	for _, id := range []string{"cluster", "queue-root.analytics", "queue-root.research"} {
		fig := regexp.MustCompile(`(?s)<figure id="fig-` + regexp.QuoteMeta(id) + `">.*?</figure>`).FindString(page)
		assert.Contains(t, fig, ">60 nodes down<", "%s marks the failure", id)
		assert.Contains(t, fig, ">preemption kills<", "%s marks preemption", id)
	}
	assert.Contains(t, page, "At 12:00 60 nodes of racks /rack3, /rack4 and /rack5 went down (1,920 GB, 20 % of the cluster) for 2 h")
	story := strings.Join(report.Story(run), "\n")
	assert.Regexp(t, `root\.analytics was starved from 16:3\d to 16:\d\d .*While it was starved, preemption killed \d+ containers \([\d,.]+ GB\) of root\.research; root\.analytics was back at its entitlement at 16:\d\d\.`, story)
}
