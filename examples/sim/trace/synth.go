package trace

import (
	"fmt"
	"io"
	"math"
	"strconv"
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
