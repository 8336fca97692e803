package trace

import (
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/berthsched/berth"
)

// Synth is a parsed SYNTH generator file (--tracetype=SYNTH): SLS's
// SynthTraceJobProducer.Trace. Generate draws its jobs.
type Synth struct {
	Description  string
	NumNodes     int   // num_nodes
	NodesPerRack int   // nodes_per_rack (values below 1 count as 1)
	NumJobs      int   // num_jobs
	Seed         int64 // rand_seed
	Workloads    []Workload
}

// Workload is a group of job classes submitted to one queue with a
// submission-time distribution (SynthTraceJobProducer.Workload).
type Workload struct {
	Name    string  // workload_name
	Weight  float64 // workload_weight
	Queue   string  // queue_name
	Classes []JobClass
	// Times is time_distribution: bucket start times (s) and weights.
	Times []TimeSample
}

// TimeSample is one bucket of a time distribution: jobs pick a bucket by
// weight and start uniformly between its Time and the next bucket's.
type TimeSample struct {
	Time   int64   // s
	Weight float64 //
}

// JobClass is a class of similar jobs (SynthTraceJobProducer.JobDefinition),
// in the current form or converted from the old flat fields (mtasks_avg,
// dur_avg, chance_of_reservation, ...).
type JobClass struct {
	Name           string  // class_name
	User           string  // user_name
	Weight         float64 // class_weight
	Type           string  // type, the AM type (default "mapreduce")
	DeadlineFactor Sample  // deadline_factor: deadline slack as a multiple of the duration
	Duration       Sample  // duration, s
	Reservation    Sample  // reservation: the chance of a deadline job
	Tasks          []TaskClass
	Params         map[string]string
}

// TaskClass is one type of container of a class (TaskDefinition).
type TaskClass struct {
	Type      string // type: "map", "reduce", ...
	Count     Sample // count
	Time      Sample // time, ms (AMDefinitionSynth hands it to the container as ms)
	MaxMemory Sample // max_memory, MB (at least 1024)
	MaxVCores Sample // max_vcores (at least 1)
	Priority  int32  // priority
}

// Dist is a Sample's distribution.
type Dist uint8

// Distributions (SLS's Sample.Dist): log-normal by default.
const (
	Constant Dist = iota
	LogNormal
	Normal
	Discrete
)

// Sample is a value drawn per job or task: a constant (val), a
// distribution with mean val and standard deviation std (LOGNORM by
// default, or NORM), or a weighted choice among discrete values.
type Sample struct {
	Dist     Dist
	Val, Std float64
	Values   []float64 // discrete
	Weights  []float64 // discrete, same length
}

// Const returns a constant sample.
func Const(v float64) Sample { return Sample{Dist: Constant, Val: v} }

// ReadSynth reads a SYNTH file. Unknown fields are ignored, as SLS's
// mapper does.
func ReadSynth(r io.Reader, file string) (*Synth, error) {
	var s *Synth
	err := records(r, file, func(rec int, o obj) error {
		if rec > 1 {
			return o.err("", nil, "a SYNTH file holds one object", nil)
		}
		var err error
		s, err = readSynth(o)
		return err
	})
	if err != nil {
		return nil, err
	}
	return s, nil
}

func readSynth(o obj) (*Synth, error) {
	s := &Synth{}
	var err error
	if s.Description, err = o.str("description", ""); err != nil {
		return nil, err
	}
	n, err := o.int64("num_nodes", 0)
	if err != nil {
		return nil, err
	}
	if n < 0 || n > 1_000_000 {
		return nil, o.err("num_nodes", n, "must be in [0, 1000000]", nil)
	}
	s.NumNodes = int(n)
	npr, err := o.int64("nodes_per_rack", 1)
	if err != nil {
		return nil, err
	}
	s.NodesPerRack = int(max(1, min(npr, 1_000_000)))
	jobs, err := o.int64("num_jobs", 0)
	if err != nil {
		return nil, err
	}
	if jobs < 1 || jobs > 10_000_000 {
		return nil, o.err("num_jobs", jobs, "must be in [1, 10000000]", nil)
	}
	s.NumJobs = int(jobs)
	if s.Seed, err = o.int64("rand_seed", 0); err != nil {
		return nil, err
	}
	wls, err := o.objects("workloads")
	if err != nil {
		return nil, err
	}
	if len(wls) == 0 {
		return nil, o.err("workloads", nil, "missing or empty", nil)
	}
	totalW := 0.0
	for _, wo := range wls {
		w, err := readWorkload(wo)
		if err != nil {
			return nil, err
		}
		totalW += w.Weight
		s.Workloads = append(s.Workloads, w)
	}
	if totalW <= 0 {
		return nil, o.err("workloads", nil, "the workload weights sum to zero", nil)
	}
	return s, nil
}

func readWorkload(o obj) (Workload, error) {
	var w Workload
	var err error
	if w.Name, err = o.str("workload_name", ""); err != nil {
		return w, err
	}
	if w.Weight, err = nonNegative(o, "workload_weight"); err != nil {
		return w, err
	}
	if w.Queue, err = o.str("queue_name", ""); err != nil {
		return w, err
	}
	if w.Queue == "" {
		return w, o.err("queue_name", nil, "missing", nil)
	}
	cls, err := o.objects("job_classes")
	if err != nil {
		return w, err
	}
	if len(cls) == 0 {
		return w, o.err("job_classes", nil, "missing or empty", nil)
	}
	total := 0.0
	for _, co := range cls {
		c, err := readClass(co)
		if err != nil {
			return w, err
		}
		total += c.Weight
		w.Classes = append(w.Classes, c)
	}
	if total <= 0 {
		return w, o.err("job_classes", nil, "the class weights sum to zero", nil)
	}
	ts, err := o.objects("time_distribution")
	if err != nil {
		return w, err
	}
	if len(ts) == 0 {
		return w, o.err("time_distribution", nil, "missing or empty", nil)
	}
	total = 0
	for i, to := range ts {
		var t TimeSample
		if t.Time, err = to.int64("time", 0); err != nil {
			return w, err
		}
		if t.Time < 0 || t.Time > math.MaxInt32 {
			return w, to.err("time", t.Time, "must be in [0, 2^31) seconds", nil)
		}
		if i > 0 && t.Time < w.Times[i-1].Time {
			return w, to.err("time", t.Time, "buckets must be in increasing time order", nil)
		}
		if t.Weight, err = nonNegative(to, "weight"); err != nil {
			return w, err
		}
		total += t.Weight
		w.Times = append(w.Times, t)
	}
	if total <= 0 {
		return w, o.err("time_distribution", nil, "the bucket weights sum to zero", nil)
	}
	return w, nil
}

func nonNegative(o obj, k string) (float64, error) {
	v, err := o.float(k, 0)
	if err != nil {
		return 0, err
	}
	if v < 0 {
		return 0, o.err(k, v, "must not be negative", nil)
	}
	return v, nil
}

func readClass(o obj) (JobClass, error) {
	var c JobClass
	var err error
	if c.Name, err = o.str("class_name", ""); err != nil {
		return c, err
	}
	o.id = c.Name
	if c.User, err = o.str("user_name", DefaultUser); err != nil {
		return c, err
	}
	if c.Weight, err = nonNegative(o, "class_weight"); err != nil {
		return c, err
	}
	if c.Type, err = o.str("type", AMMapReduce); err != nil {
		return c, err
	}
	if c.Type == "" { // any other name is mapped to an AM by the scenario, as SLS's AMRunner does
		return c, o.err("type", c.Type, "empty", nil)
	}
	if po, ok, err := o.object("params"); err != nil {
		return c, err
	} else if ok {
		c.Params = map[string]string{}
		for _, k := range po.keys() {
			if c.Params[k], err = po.str(k, ""); err != nil {
				return c, err
			}
		}
	}
	if !o.has("tasks") {
		return oldClass(o, c)
	}
	if c.DeadlineFactor, err = sampleField(o, "deadline_factor", Const(1)); err != nil {
		return c, err
	}
	if c.Duration, err = sampleField(o, "duration", Const(0)); err != nil {
		return c, err
	}
	if c.Reservation, err = sampleField(o, "reservation", Const(0)); err != nil {
		return c, err
	}
	tasks, err := o.objects("tasks")
	if err != nil {
		return c, err
	}
	for _, to := range tasks {
		var t TaskClass
		if t.Type, err = to.str("type", TypeMap); err != nil {
			return c, err
		}
		if t.Count, err = sampleField(to, "count", Const(1)); err != nil {
			return c, err
		}
		if t.Time, err = sampleField(to, "time", Const(0)); err != nil {
			return c, err
		}
		if !to.has("time") {
			return c, to.err("time", nil, "missing", nil)
		}
		if t.MaxMemory, err = sampleField(to, "max_memory", Const(1024)); err != nil {
			return c, err
		}
		if t.MaxVCores, err = sampleField(to, "max_vcores", Const(1)); err != nil {
			return c, err
		}
		if t.Priority, err = to.int32("priority", 0); err != nil {
			return c, err
		}
		c.Tasks = append(c.Tasks, t)
	}
	if len(c.Tasks) == 0 {
		return c, o.err("tasks", nil, "empty", nil)
	}
	return c, nil
}

// oldClass converts the flat fields of the old SYNTH format, as SLS's
// validateJobDef does: a map task type (priority 20) and a reduce task
// type (priority 10), each with log-normal count, time, memory and vcores.
func oldClass(o obj, c JobClass) (JobClass, error) {
	var ferr error
	f := func(k string) float64 {
		if ferr != nil {
			return 0
		}
		v, err := o.float(k, 0)
		if err == nil && v < 0 {
			err = o.err(k, v, "must not be negative", nil)
		}
		ferr = err
		return v
	}
	dist := func(avg, std string) Sample { return Sample{Dist: LogNormal, Val: f(avg), Std: f(std)} }
	c.DeadlineFactor = dist("deadline_factor_avg", "deadline_factor_stddev")
	c.Duration = dist("dur_avg", "dur_stddev")
	c.Reservation = Const(f("chance_of_reservation"))
	c.Tasks = []TaskClass{
		{Type: TypeMap, Count: dist("mtasks_avg", "mtasks_stddev"), Time: dist("mtime_avg", "mtime_stddev"),
			MaxMemory: dist("map_max_memory_avg", "map_max_memory_stddev"),
			MaxVCores: dist("map_max_vcores_avg", "map_max_vcores_stddev"), Priority: DefaultMapPriority},
		{Type: TypeReduce, Count: dist("rtasks_avg", "rtasks_stddev"), Time: dist("rtime_avg", "rtime_stddev"),
			MaxMemory: dist("reduce_max_memory_avg", "reduce_max_memory_stddev"),
			MaxVCores: dist("reduce_max_vcores_avg", "reduce_max_vcores_stddev"), Priority: DefaultReducePriority},
	}
	if ferr != nil {
		return c, ferr
	}
	if c.Reservation.Val > 1 {
		return c, o.err("chance_of_reservation", c.Reservation.Val, "a probability must be in [0, 1]", nil)
	}
	return c, nil
}

// sampleField reads a Sample object {val, std, dist, discrete, weights}
// with SLS's rules: val alone is a constant; val and std a distribution
// (dist LOGNORM by default, or NORM); discrete (with optional weights of
// the same length) a weighted choice. A bare number is taken as a
// constant.
func sampleField(o obj, k string, def Sample) (Sample, error) {
	if !o.has(k) {
		return def, nil
	}
	if v, err := o.float(k, 0); err == nil {
		return Const(v), nil
	}
	so, _, err := o.object(k)
	if err != nil {
		return def, err
	}
	hasVal, hasStd, hasDisc := so.has("val"), so.has("std"), so.has("discrete")
	switch {
	case hasVal && !hasStd:
		if so.has("dist") || hasDisc || so.has("weights") {
			return def, so.err("val", nil, "a constant takes no dist, discrete or weights", nil)
		}
		v, err := so.float("val", 0)
		return Const(v), err
	case hasVal && hasStd:
		if hasDisc || so.has("weights") {
			return def, so.err("discrete", nil, "a distribution takes no discrete values", nil)
		}
		return sampleDistribution(so, def)
	case hasStd:
		return def, so.err("val", nil, "std needs val", nil)
	case hasDisc:
		return sampleDiscrete(so, def)
	}
	return def, o.err(k, nil, "expected val, val and std, or discrete", nil)
}

// sampleDistribution reads a Sample's val, std and dist (LOGNORM or NORM).
func sampleDistribution(so obj, def Sample) (Sample, error) {
	s := Sample{Dist: LogNormal}
	var err error
	if s.Val, err = so.float("val", 0); err != nil {
		return def, err
	}
	if s.Std, err = so.float("std", 0); err != nil {
		return def, err
	}
	if s.Std < 0 {
		return def, so.err("std", s.Std, "must not be negative", nil)
	}
	d, err := so.str("dist", "LOGNORM")
	if err != nil {
		return def, err
	}
	switch d {
	case "LOGNORM":
	case "NORM":
		s.Dist = Normal
	default:
		return def, so.err("dist", d, "must be LOGNORM or NORM", nil)
	}
	return s, nil
}

// sampleDiscrete reads a Sample's discrete values and their weights (all
// 1 when weights is absent).
func sampleDiscrete(so obj, def Sample) (Sample, error) {
	var vals []string
	if err := jsonStrings(so, "discrete", &vals); err != nil {
		return def, err
	}
	if len(vals) == 0 {
		return def, so.err("discrete", nil, "empty", nil)
	}
	s := Sample{Dist: Discrete}
	for i, v := range vals {
		x, perr := strconv.ParseFloat(v, 64)
		if perr != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return def, so.err(fmt.Sprintf("discrete[%d]", i), v, "not a number", nil)
		}
		s.Values = append(s.Values, x)
	}
	if !so.has("weights") {
		for range vals {
			s.Weights = append(s.Weights, 1)
		}
		return s, nil
	}
	var ws []string
	if err := jsonStrings(so, "weights", &ws); err != nil {
		return def, err
	}
	if len(ws) != len(vals) {
		return def, so.err("weights", len(ws), "needs one weight per discrete value", nil)
	}
	total := 0.0
	for i, w := range ws {
		x, perr := strconv.ParseFloat(w, 64)
		if perr != nil || x < 0 || math.IsInf(x, 0) {
			return def, so.err(fmt.Sprintf("weights[%d]", i), w, "not a non-negative number", nil)
		}
		total += x
		s.Weights = append(s.Weights, x)
	}
	if total <= 0 {
		return def, so.err("weights", nil, "sum to zero", nil)
	}
	return s, nil
}

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
		t.Topology = &Topology{Nodes: s.NumNodes, Racks: s.NumNodes / s.NodesPerRack}
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
