package report

import (
	"cmp"
	"slices"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/examples/sim/metrics"
)

// The report reads the run's timeline (metrics.Run.Timeline) and its
// samples as episodes a person can follow: nodes down together, a queue
// starved, preemption at work, reservations placed.

// outage is nodes lost at one instant, until the last of them returned.
type outage struct {
	From, To berth.Time // To is the run's end when some never returned
	Returned bool
	Nodes    int
	Racks    []string // the racks the lost nodes were on, sorted
	Node     string   // the node, when one was lost
	Resource berth.Resource
	// Share is the part of the cluster's memory the loss took.
	Share float64
	// Containers and AMs the loss ended.
	Containers, AMs int
}

// preemption is preemption rounds that killed, close enough in time to be
// one episode.
type preemption struct {
	From, To   berth.Time
	Rounds     int
	Containers int
	Resource   berth.Resource
	// Victims are the queues that gave, most containers first.
	Victims []victim
}

type victim struct {
	Queue      string
	Containers int
	Resource   berth.Resource
}

// starvation is a queue held below what it was entitled to (its guarantee,
// or its demand when that is smaller) while it asked for more.
type starvation struct {
	Queue    string
	From, To berth.Time // To: the first sample it was no longer starved, or the run's end
	// Recovered tells it got back to its entitlement before the run ended.
	Recovered bool
	// Low is the smallest share of its entitlement it held; Entitled the
	// entitlement at that time (MB).
	Low      float64
	Entitled int64
	// Preemption is the preemption episodes that overlapped it.
	Preemption []int
}

// timeline is the run's episodes.
type timeline struct {
	run        *metrics.Run
	end        berth.Time
	outages    []outage
	preemption []preemption
	starved    []starvation
	replans    []metrics.Event
	reconfigs  []metrics.Event
	stalls     []metrics.Event
	// reservation events per plan, in time order
	reservations []metrics.Event
}

func analyse(r *metrics.Run) *timeline {
	t := &timeline{run: r, end: r.End}
	var kills []metrics.Event
	for _, ev := range r.Timeline {
		switch ev.Kind {
		case metrics.Preempted:
			kills = append(kills, ev)
		case metrics.PlanReplanned:
			t.replans = append(t.replans, ev)
		case metrics.QueueReconfigured:
			t.reconfigs = append(t.reconfigs, ev)
		case metrics.Stalled:
			t.stalls = append(t.stalls, ev)
		case metrics.ReservationAccepted, metrics.ReservationRejected, metrics.ReservationRemoved:
			t.reservations = append(t.reservations, ev)
		}
	}
	t.outages = outages(r)
	t.preemption = episodes(kills, t.gap())
	t.starved = starvations(r, t.minStarve(), t.starveGap())
	for i := range t.starved {
		s := &t.starved[i]
		for k, p := range t.preemption {
			if p.From <= s.To && p.To >= s.From {
				s.Preemption = append(s.Preemption, k)
			}
		}
	}
	return t
}

// gap is how far apart two preemption rounds may be and still be one
// episode: a fiftieth of the run, at least 30 s.
func (t *timeline) gap() berth.Duration { return max(t.end/50, 30_000) }

// minStarve is how long a queue must be starved to count: two samples
// (one may be a queue waiting a heartbeat for an allocation), and a
// thousandth of the run.
func (t *timeline) minStarve() berth.Duration {
	return max(t.end/1000, 2*t.sampleInterval())
}

// starveGap is how short a respite between two stretches of starvation
// must be for them to count as one: a hundredth of the run, two samples
// at least.
func (t *timeline) starveGap() berth.Duration {
	return max(t.end/100, 2*t.sampleInterval())
}

func (t *timeline) sampleInterval() berth.Duration {
	if s := t.run.Samples; len(s) > 1 {
		return s[1].Time - s[0].Time
	}
	return 0
}

// outages groups the nodes lost at one instant and follows them until
// they all returned.
func outages(r *metrics.Run) []outage {
	var out []outage
	back := map[string][]berth.Time{} // node → return times
	for _, ev := range r.Timeline {
		if ev.Kind == metrics.NodeReturned {
			back[ev.Node] = append(back[ev.Node], ev.Time)
		}
	}
	for i := 0; i < len(r.Timeline); i++ {
		ev := r.Timeline[i]
		if ev.Kind != metrics.NodeLost {
			continue
		}
		o := outage{From: ev.Time, To: ev.Time, Returned: true, Node: ev.Node}
		capacity := capacityBefore(r, ev.Time)
		for ; i < len(r.Timeline) && r.Timeline[i].Time == ev.Time; i++ {
			e := r.Timeline[i]
			if e.Kind != metrics.NodeLost {
				continue
			}
			o.Nodes++
			o.Resource = o.Resource.Add(e.Resource)
			o.Containers += e.Containers
			o.AMs += e.AMs
			if e.Rack != "" && !slices.Contains(o.Racks, e.Rack) {
				o.Racks = append(o.Racks, e.Rack)
			}
			ret, ok := firstAfter(back[e.Node], e.Time)
			if !ok {
				o.Returned, ret = false, r.End
			}
			o.To = max(o.To, ret)
		}
		i--
		slices.Sort(o.Racks)
		if o.Nodes > 1 {
			o.Node = ""
		}
		if capacity > 0 {
			o.Share = float64(o.Resource.Memory) / float64(capacity)
		}
		out = append(out, o)
	}
	return out
}

func firstAfter(ts []berth.Time, t berth.Time) (berth.Time, bool) {
	for _, x := range ts {
		if x > t {
			return x, true
		}
	}
	return 0, false
}

// capacityBefore is the cluster's memory in the last sample before t
// (the first sample when there is none).
func capacityBefore(r *metrics.Run, t berth.Time) int64 {
	var c int64
	for _, s := range r.Samples {
		if s.Time >= t && c > 0 {
			break
		}
		c = s.Capacity.Memory
	}
	return c
}

// episodes groups preemption kills (one event per round and queue) into
// episodes of rounds at most gap apart.
func episodes(kills []metrics.Event, gap berth.Duration) []preemption {
	var out []preemption
	var last berth.Time
	for _, k := range kills {
		if len(out) == 0 || k.Time-out[len(out)-1].To > gap {
			out = append(out, preemption{From: k.Time})
			last = -1
		}
		p := &out[len(out)-1]
		p.To = k.Time
		if k.Time != last {
			p.Rounds++
			last = k.Time
		}
		p.Containers += k.Containers
		p.Resource = p.Resource.Add(k.Resource)
		i := slices.IndexFunc(p.Victims, func(v victim) bool { return v.Queue == k.Queue })
		if i < 0 {
			p.Victims = append(p.Victims, victim{Queue: k.Queue})
			i = len(p.Victims) - 1
		}
		p.Victims[i].Containers += k.Containers
		p.Victims[i].Resource = p.Victims[i].Resource.Add(k.Resource)
	}
	for i := range out {
		slices.SortStableFunc(out[i].Victims, func(a, b victim) int {
			return cmp.Or(cmp.Compare(b.Containers, a.Containers), cmp.Compare(a.Queue, b.Queue))
		})
	}
	return out
}

// starvedShare is how far below its entitlement a queue must be held to
// count as starved: a tenth of its guarantee.
const starvedShare = 0.1

// starvations finds, per queue, the stretches of samples in which it was
// starved: asking for more (pending) while holding less than its
// entitlement — its guarantee or fair share, or its demand when that is
// smaller — by more than a tenth of the guarantee. Stretches closer than
// gap merge; those shorter than minDur are dropped.
func starvations(r *metrics.Run, minDur, gap berth.Duration) []starvation {
	var out []starvation
	for qi, q := range r.Queues {
		var cur *starvation
		var runs []starvation
		for _, s := range r.Samples {
			if qi >= len(s.Queues) {
				break
			}
			qs := s.Queues[qi]
			g := qs.Guaranteed.Memory
			entitled := min(g, qs.Used.Memory+qs.Pending.Memory)
			short := entitled - qs.Used.Memory
			starved := g > 0 && qs.Pending.Memory > 0 && float64(short) > starvedShare*float64(g)
			if starved {
				if cur == nil {
					runs = append(runs, starvation{Queue: q, From: s.Time, Low: 1})
					cur = &runs[len(runs)-1]
				}
				if share := float64(qs.Used.Memory) / float64(entitled); share < cur.Low {
					cur.Low, cur.Entitled = share, entitled
				}
				continue
			}
			if cur != nil {
				cur.To, cur.Recovered = s.Time, true
				cur = nil
			}
		}
		if cur != nil {
			cur.To = r.End
		}
		// Merge stretches a short respite apart, then keep the long ones.
		var merged []starvation
		for _, s := range runs {
			if n := len(merged); n > 0 && s.From-merged[n-1].To < gap {
				m := &merged[n-1]
				m.To, m.Recovered = s.To, s.Recovered
				if s.Low < m.Low {
					m.Low, m.Entitled = s.Low, s.Entitled
				}
				continue
			}
			merged = append(merged, s)
		}
		for _, s := range merged {
			if s.To-s.From >= minDur {
				out = append(out, s)
			}
		}
	}
	slices.SortStableFunc(out, func(a, b starvation) int { return cmp.Compare(a.From, b.From) })
	return out
}

// marks returns what the time charts draw: outages, preemption rounds,
// reconfigurations and stalls, and for a queue's chart (queue not "")
// its starvation, recoveries and replanning. labels names the outages.
func (t *timeline) marks(ax timeAxis, queue string, labels bool) marks {
	var m marks
	for _, o := range t.outages {
		k := mark{kind: markOutage, from: ax.x(o.From), to: ax.x(o.To)}
		if labels {
			k.label = o.short()
		}
		m = append(m, k)
	}
	for _, s := range t.starved {
		if queue != "" && s.Queue == queue {
			m = append(m, mark{kind: markStarved, from: ax.x(s.From), to: ax.x(s.To)})
		}
	}
	for _, ev := range t.run.Timeline {
		if ev.Kind == metrics.Preempted {
			m = append(m, mark{kind: markPreempt, from: ax.x(ev.Time), to: ax.x(ev.Time)})
		}
	}
	for _, s := range t.recoveries() {
		if queue == "" || s.Queue == queue {
			m = append(m, mark{kind: markRecovered, from: ax.x(s.To), to: ax.x(s.To)})
		}
	}
	for _, ev := range t.replans {
		if queue == "" || ev.Queue == queue {
			m = append(m, mark{kind: markReplan, from: ax.x(ev.Time), to: ax.x(ev.Time)})
		}
	}
	for _, ev := range t.reconfigs {
		m = append(m, mark{kind: markReconfig, from: ax.x(ev.Time), to: ax.x(ev.Time)})
	}
	for _, ev := range t.stalls {
		m = append(m, mark{kind: markStall, from: ax.x(ev.Time), to: ax.x(ev.Time), label: "stalled"})
	}
	return m
}

// recoveries are the starvation episodes preemption helped end: the
// queue got back to its entitlement while or after preemption worked.
func (t *timeline) recoveries() []starvation {
	var out []starvation
	for _, s := range t.starved {
		if s.Recovered && len(s.Preemption) > 0 {
			out = append(out, s)
		}
	}
	return out
}

func (t *timeline) empty() bool {
	return len(t.outages)+len(t.preemption)+len(t.starved)+len(t.replans)+len(t.reconfigs)+len(t.stalls)+len(t.reservations) == 0
}
