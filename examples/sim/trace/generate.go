package trace

import (
	"fmt"
	"math"

	"github.com/berthsched/berth"
)

// Bounds on generated values: beyond them a job is dropped rather than
// simulated (SLS would overflow Math.toIntExact or its int casts).
const (
	maxSynthTasks = 1_000_000 // tasks of one task type of one job
	maxSynthValue = 1 << 31   // memory (MB), vcores, task time (ms), duration (s)
)

// Generate draws the trace's jobs as SLS's SynthTraceJobProducer and
// SynthJob do, from java.util.Random seeded with the file's rand_seed (seed
// overrides it when non-nil), so the same file and seed give SLS's jobs:
//
//   - every sample with a distribution gets its own commons-math generator
//     (Well19937c) seeded from the shared one when the file is read,
//     workload by workload, class by class: deadline_factor, duration,
//     reservation, then each task type's count, time, max_memory and
//     max_vcores; a log-normal draws exp(mu + sigma·gaussian), its mu and
//     sigma matching the given mean and standard deviation (a zero std is
//     mean/6);
//   - for each job: a workload by weight, a time bucket by weight and a
//     second in it (nextInt), a class by weight; the jobs are then ordered
//     by submission second in java.util.PriorityQueue's heap order, and
//     named <class>_<n> in that order;
//   - then, job by job: the duration (s), a uniform draw against the
//     reservation chance, the deadline factor, a reseed of the shared
//     generator from its own nextLong, and per task type its count,
//     memory (at least 1024 MB) and vcores (at least 1) and each task's
//     time in ms.
//
// A job that wins the reservation draw gets Deadline = submission +
// ceil(factor × duration). A job SLS could not run (a task time ≤ 0 ms,
// a value past 2^31, a stream job with no duration) is listed in
// Trace.Dropped instead. A sample with a distribution whose mean is not
// positive draws 0 (SLS fails on it).
func (s *Synth) Generate(d Defaults, seed *int64) *Trace {
	sd := s.Seed
	if seed != nil {
		sd = *seed
	}
	r := newJavaRandom(sd)
	classes := s.seedSamplers(r)
	stories := s.drawStories(r, classes)
	t := &Trace{Jobs: make([]Job, 0, s.NumJobs)}
	for n := 0; ; n++ {
		st, ok := stories.poll()
		if !ok {
			break
		}
		j, drop := st.job(r, d, n)
		if drop != "" {
			t.Dropped = append(t.Dropped, Drop{Job: j.ID, Queue: st.queue, Reason: &Error{ID: j.ID, Field: "generated job", Reason: drop}})
			continue
		}
		t.Jobs = append(t.Jobs, j)
	}
	if s.NumNodes > 0 {
		t.Topology = &Topology{Nodes: s.NumNodes, Racks: s.NumNodes / max(s.NodesPerRack, 1)} // below 1 counts as 1
	}
	return t
}

// synthClass is a job class with its samplers, seeded when the file is
// read (SLS's JobDefinition once initialised).
type synthClass struct {
	class                        *JobClass
	deadline, duration, reserved *sampler
	tasks                        [][4]*sampler // count, time, memory, vcores
}

// synthStory is a job drawn but not yet sized: its submission second, its
// workload's queue and its class.
type synthStory struct {
	submit int64 // s
	queue  string
	class  *synthClass
}

// seedSamplers is the first phase of Generate: each sample of each class
// takes its seed from r, workload by workload, class by class, in the
// order of the file.
func (s *Synth) seedSamplers(r *javaRandom) [][]*synthClass {
	classes := make([][]*synthClass, len(s.Workloads))
	for wi := range s.Workloads {
		for ci := range s.Workloads[wi].Classes {
			c := &s.Workloads[wi].Classes[ci]
			sc := &synthClass{class: c, deadline: newSampler(c.DeadlineFactor, r), duration: newSampler(c.Duration, r),
				reserved: newSampler(c.Reservation, r)}
			for _, tc := range c.Tasks {
				sc.tasks = append(sc.tasks, [4]*sampler{newSampler(tc.Count, r), newSampler(tc.Time, r),
					newSampler(tc.MaxMemory, r), newSampler(tc.MaxVCores, r)})
			}
			classes[wi] = append(classes[wi], sc)
		}
	}
	return classes
}

// drawStories is the second phase of Generate: for each job a workload, a
// submission second and a class, queued in java.util.PriorityQueue's heap
// order by submission.
func (s *Synth) drawStories(r *javaRandom, classes [][]*synthClass) *javaQueue[synthStory] {
	// SLS compares with Math.toIntExact(a − b); submission seconds are
	// ints, so the difference always fits.
	stories := &javaQueue[synthStory]{less: func(a, b synthStory) int { return int(a.submit - b.submit) }}
	wWeights := make([]float64, len(s.Workloads))
	for i, w := range s.Workloads {
		wWeights[i] = w.Weight
	}
	for range s.NumJobs {
		wi := r.weighted(wWeights)
		w := &s.Workloads[wi]
		submit := w.submission(r)
		cw := make([]float64, len(w.Classes))
		for k, c := range w.Classes {
			cw[k] = c.Weight
		}
		stories.offer(synthStory{submit: submit, queue: w.Queue, class: classes[wi][r.weighted(cw)]})
	}
	return stories
}

// job is the third phase of Generate, for the n-th job in heap order: its
// duration, the reservation draw, the deadline factor, a reseed of r, then
// its tasks. drop says why SLS could not run the job ("" if it can).
func (st synthStory) job(r *javaRandom, d Defaults, n int) (j Job, drop string) {
	sc, c := st.class, st.class.class
	id := fmt.Sprintf("%s_%06d", c.Name, n)
	submit := st.submit * 1000
	durationS := sc.duration.long()
	hasDeadline := r.nextDouble() <= sc.reserved.float()
	factor := sc.deadline.float()
	r.setSeed(r.nextLong())
	duration := durationS * 1000
	// The trace's finish time is submission + duration for every type
	// (AMDefinitionFactory.createFromSynth).
	j = Job{ID: id, AMType: c.Type, User: c.User, Queue: st.queue, Start: submit, End: submit + duration,
		AMResource: d.AM, Params: c.Params}
	if durationS > maxSynthValue || durationS < -maxSynthValue {
		drop = fmt.Sprintf("duration %d s is out of range", durationS)
	}
	if hasDeadline {
		j.Deadline = submit + int64(math.Ceil(factor*float64(duration)))
	}
	drop = sc.drawTasks(&j, drop)
	if c.Type == AMStream {
		// SLS's stream AM runs until submission + duration and does
		// not reserve.
		j.Deadline = 0
		if duration <= 0 && drop == "" {
			drop = fmt.Sprintf("a stream job needs a positive duration (drew %d s)", durationS)
		}
	} else if j.Deadline <= submit {
		j.Deadline = 0 // no room for a reservation at all: an ordinary job
	}
	return j, drop
}

// drawTasks draws a job's tasks, task type by task type: the count, memory
// and vcores, then each task's time. It returns drop, or why the tasks
// make the job one SLS could not run.
func (sc *synthClass) drawTasks(j *Job, drop string) string {
	for ti, tc := range sc.class.Tasks {
		ts := sc.tasks[ti]
		count, mem, vc := ts[0].long(), max(ts[2].long(), 1024), max(ts[3].long(), 1)
		switch {
		case count > maxSynthTasks:
			drop = fmt.Sprintf("%d %s tasks (at most %d)", count, tc.Type, maxSynthTasks)
			count = 0
		case mem > maxSynthValue || vc > maxSynthValue:
			drop = fmt.Sprintf("a %s task of <%d MB, %d vcores> is out of range", tc.Type, mem, vc)
		}
		for range count {
			ms := ts[1].long()
			if (ms <= 0 || ms > maxSynthValue) && drop == "" {
				drop = fmt.Sprintf("a %s task's time %d ms must be in [1, 2^31] (SLS: a task's duration must be positive)", tc.Type, ms)
			}
			j.Tasks = append(j.Tasks, Task{Duration: ms, Resource: berth.New(mem, vc), Priority: tc.Priority,
				Type: tc.Type, ExecutionType: DefaultExecutionType, AllocationID: -1})
		}
	}
	return drop
}

// submission draws a submission second as SLS's generateSubmissionTime: a
// bucket by weight, then uniformly up to the next bucket's start.
func (w *Workload) submission(r *javaRandom) int64 {
	ws := make([]float64, len(w.Times))
	for i, t := range w.Times {
		ws[i] = t.Weight
	}
	i := r.weighted(ws)
	start := w.Times[i].Time
	end := w.Times[min(i+1, len(w.Times)-1)].Time
	if end > start {
		return start + int64(r.nextIntN(int32(end-start)))
	}
	return start
}

// sampler draws one Sample of a SYNTH file the way SLS's Sample does once
// initialised: constants as they are, discrete values with the shared
// generator, distributions from their own.
type sampler struct {
	s    Sample
	dist *distribution // nil unless a distribution with a positive mean
	r    *javaRandom
}

// newSampler is Sample.init: a distribution with a positive mean takes a
// seed from r (SynthUtils.getLogNormalDist and getNormalDist).
func newSampler(s Sample, r *javaRandom) *sampler {
	p := &sampler{s: s, r: r}
	if (s.Dist == LogNormal || s.Dist == Normal) && s.Val > 0 {
		std := s.Std
		if std == 0 {
			std = s.Val / 6
		}
		p.dist = &distribution{mu: s.Val, sigma: std}
		if s.Dist == LogNormal {
			// The log-normal whose mean and standard deviation are the
			// given ones.
			v := math.Log1p(std * std / (s.Val * s.Val))
			p.dist.logNormal, p.dist.mu, p.dist.sigma = true, math.Log(s.Val)-0.5*v, math.Sqrt(v)
		}
		p.dist.rng.setSeed(r.nextLong())
	}
	return p
}

func (p *sampler) float() float64 {
	switch {
	case p.dist != nil:
		return p.dist.sample()
	case p.s.Dist == Discrete:
		return p.s.Values[p.r.weighted(p.s.Weights)]
	case p.s.Dist == Constant:
		return p.s.Val
	}
	return 0
}

// long is Sample.getLong: Java's Math.round of the draw.
func (p *sampler) long() int64 { return javaRound(p.float()) }

// distribution is a commons-math LogNormalDistribution or
// NormalDistribution with its own Well19937c: both sample from the
// generator's Gaussian (not by inverting the CDF).
type distribution struct {
	logNormal bool
	mu, sigma float64 // the scale and shape of a log-normal
	rng       well19937c
}

func (d *distribution) sample() float64 {
	g := d.rng.nextGauss()
	if d.logNormal {
		return math.Exp(d.mu + d.sigma*g)
	}
	return d.sigma*g + d.mu
}
