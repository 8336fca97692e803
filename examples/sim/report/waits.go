package report

import (
	"fmt"
	"strings"

	"github.com/berthsched/berth/examples/sim/metrics"
)

// topReasons is how many reasons the table shows per queue.
const topReasons = 3

// WaitRow is one row of the report's table of why applications waited:
// a queue, the attempts that brought its applications nothing, and the
// most frequent reasons with their share of those attempts.
type WaitRow struct {
	Queue    string
	Attempts int
	Top      [topReasons]string
}

// WaitRows lists, per queue, why its applications waited (from
// metrics.Run.Waits); nil when the scheduler did not record it.
func WaitRows(r *metrics.Run) []WaitRow {
	var out []WaitRow
	for _, w := range r.Waits {
		row := WaitRow{Queue: w.Queue, Attempts: w.Attempts}
		for i, rc := range w.Reasons[:min(len(w.Reasons), topReasons)] {
			row.Top[i] = fmt.Sprintf("%s: %s", percent(share(rc.Attempts, w.Attempts)), rc.Text)
		}
		out = append(out, row)
	}
	return out
}

func share(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return float64(n) / float64(of)
}

// reasonStory names, per queue, the reason its applications waited most
// often.
func reasonStory(r *metrics.Run) string {
	var parts []string
	for _, w := range r.Waits {
		if len(w.Reasons) == 0 {
			continue
		}
		top := w.Reasons[0]
		parts = append(parts, fmt.Sprintf("in %s, %s (%s of %s)", w.Queue, top.Text,
			percent(share(top.Attempts, w.Attempts)), count(w.Attempts, "attempt", "attempts")))
	}
	if len(parts) == 0 {
		return ""
	}
	return "When a heartbeat offered a node to a waiting application and it took nothing, the most frequent reason was: " +
		strings.Join(parts, "; ") + "."
}
