package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/berthsched/berth"
)

// clock formats a simulated time for a run of length end: as a time of
// day (15:04, "day 2 03:10" past the first day) when the run lasts hours,
// as an elapsed time ("2 min 15 s") when it is short.
func clock(t, end berth.Time) string {
	if end < 2*3_600_000 {
		return dur(t)
	}
	m := t / 60_000
	d, h, mm := m/1440, m/60%24, m%60
	if d > 0 {
		return fmt.Sprintf("day %d %02d:%02d", d+1, h, mm)
	}
	return fmt.Sprintf("%02d:%02d", h, mm)
}

// dur formats a duration to the precision a reader wants of it.
func dur(d berth.Duration) string {
	switch {
	case d >= 3_600_000:
		h, m := d/3_600_000, d/60_000%60
		if m == 0 {
			return fmt.Sprintf("%d h", h)
		}
		return fmt.Sprintf("%d h %02d min", h, m)
	case d >= 600_000:
		return fmt.Sprintf("%d min", (d+30_000)/60_000)
	case d >= 60_000:
		m, s := d/60_000, d/1000%60
		if s == 0 {
			return fmt.Sprintf("%d min", m)
		}
		return fmt.Sprintf("%d min %d s", m, s)
	case d >= 10_000 || d%1000 == 0:
		return fmt.Sprintf("%d s", (d+500)/1000)
	case d < 1000:
		return fmt.Sprintf("%d ms", d)
	}
	return strconv.FormatFloat(float64(d)/1000, 'f', 1, 64) + " s"
}

// secs formats seconds (a wait or a runtime) as dur does.
func secs(s float64) string { return dur(berth.Duration(math.Round(s * 1000))) }

// memory formats MB as GB (or MB below one GB), with thousands separators.
func memory(mb int64) string {
	switch {
	case mb < 1024:
		return fmt.Sprintf("%d MB", mb)
	case mb < 100*1024:
		return strconv.FormatFloat(float64(mb)/1024, 'f', 1, 64) + " GB"
	}
	return thousands(int64(math.Round(float64(mb)/1024))) + " GB"
}

// thousands writes n with thousands separators.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return thousands(int64(n)) + " " + many
}

func percent(f float64) string { return fmt.Sprintf("%.0f %%", 100*f) }

// list joins words as a sentence does: "a", "a and b", "a, b and c".
func list(words []string) string {
	switch len(words) {
	case 0:
		return ""
	case 1:
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

// short is the outage's label on a chart.
func (o *outage) short() string {
	if o.Node != "" {
		return o.Node + " down"
	}
	return fmt.Sprintf("%d nodes down", o.Nodes)
}

// what names the lost nodes in a sentence.
func (o *outage) what() string {
	switch {
	case o.Node != "":
		return "node " + o.Node
	case len(o.Racks) == 1:
		return fmt.Sprintf("%d nodes of rack %s", o.Nodes, o.Racks[0])
	case len(o.Racks) > 1 && len(o.Racks) <= 6:
		return fmt.Sprintf("%d nodes of racks %s", o.Nodes, list(o.Racks))
	}
	return fmt.Sprintf("%d nodes", o.Nodes)
}
