package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/berthsched/berth/examples/sim/metrics"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The report says why applications waited, per queue, when the run
// recorded it, and says nothing of it otherwise.
func TestWhyApplicationsWaited(t *testing.T) {
	r := sampleRun()
	r.Waits = []metrics.QueueWaits{
		{Queue: "root.a", Attempts: 200, Reasons: []metrics.ReasonCount{
			{Reason: "locality-delay", Text: "delay scheduling waits for a more local node", Attempts: 120},
			{Reason: "node-full", Text: "the node has too little free for the request", Attempts: 50},
			{Reason: "am-limit", Text: "its AM would pass the queue's share for AMs", Attempts: 20},
			{Reason: "queue-limit", Text: "the queue is at its maximum", Attempts: 10}}},
		{Queue: "root.b", Attempts: 1, Reasons: []metrics.ReasonCount{{Reason: "queue-limit", Text: "the queue is at its maximum", Attempts: 1}}},
	}
	rows := WaitRows(r)
	require.Len(t, rows, 2)
	assert.Equal(t, WaitRow{Queue: "root.a", Attempts: 200, Top: [3]string{
		"60 %: delay scheduling waits for a more local node",
		"25 %: the node has too little free for the request",
		"10 %: its AM would pass the queue's share for AMs"}}, rows[0], "the three most frequent")
	assert.Equal(t, [3]string{"100 %: the queue is at its maximum"}, rows[1].Top)
	assert.Contains(t, strings.Join(Story(r), "\n"), "the most frequent reason was: in root.a, delay scheduling waits for a more local node (60 % of 200 attempts); in root.b, the queue is at its maximum (100 % of 1 attempt).")
	var b bytes.Buffer
	require.NoError(t, Write(&b, r, "t"))
	page := b.String()
	parseHTML(t, page)
	assert.Contains(t, page, "<h2>Why applications waited</h2>")
	assert.Contains(t, page, "<td>root.a</td><td>200</td><td>60 %: delay scheduling waits for a more local node</td>")

	b.Reset()
	require.NoError(t, Write(&b, sampleRun(), "t"))
	assert.NotContains(t, b.String(), "Why applications waited", "not recorded, not shown")
}
