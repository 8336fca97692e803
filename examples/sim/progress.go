package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/berthsched/berth"
)

// progress shows simulated time, events per second and an ETA on a
// terminal, at most a few times a second; it is silent when the output is
// not a terminal.
type progress struct {
	w          io.Writer
	on         bool
	start      time.Time
	last       time.Time
	lastEvents uint64
	end        berth.Time
	shown      bool
}

func newProgress(w io.Writer, end berth.Time, quiet bool) *progress {
	p := &progress{w: w, start: time.Now(), end: end}
	if f, ok := w.(*os.File); ok && !quiet {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			p.on = true
		}
	}
	p.last = p.start
	return p
}

func (p *progress) update(now berth.Time, events uint64) {
	if !p.on {
		return
	}
	t := time.Now()
	if t.Sub(p.last) < 200*time.Millisecond {
		return
	}
	rate := float64(events-p.lastEvents) / t.Sub(p.last).Seconds()
	p.last, p.lastEvents = t, events
	eta := "?"
	if now > 0 && p.end > now {
		el := t.Sub(p.start)
		eta = (time.Duration(float64(el) * float64(p.end-now) / float64(now))).Round(time.Second).String()
	}
	fmt.Fprintf(p.w, "\rsimulated %s  events %d  %.0f events/s  ETA %s   ", clock(now), events, rate, eta)
	p.shown = true
}

func (p *progress) done() {
	if p.shown {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

func (p *progress) elapsed() time.Duration { return time.Since(p.start) }

// clock formats simulated ms as [d]hh:mm:ss.
func clock(ms berth.Time) string {
	s := ms / 1000
	d, h, m := s/86400, s/3600%24, s/60%60
	if d > 0 {
		return fmt.Sprintf("%dd%02d:%02d:%02d", d, h, m, s%60)
	}
	return fmt.Sprintf("%02d:%02d:%02d", h, m, s%60)
}
