package trace

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/berthsched/berth"
)

// SLS JSON field names (SLSConfiguration).
const (
	fieldNumNodes     = "num.nodes"
	fieldNumRacks     = "num.racks"
	fieldAMType       = "am.type"
	fieldJobStart     = "job.start.ms"
	fieldJobEnd       = "job.end.ms"
	fieldJobQueue     = "job.queue.name"
	fieldJobID        = "job.id"
	fieldJobUser      = "job.user"
	fieldJobCount     = "job.count"
	fieldJobTasks     = "job.tasks"
	fieldJobLabel     = "job.label.expression"
	fieldCount        = "count"
	fieldTaskHost     = "container.host"
	fieldTaskStart    = "container.start.ms"
	fieldTaskEnd      = "container.end.ms"
	fieldDuration     = "duration.ms"
	fieldTaskDuration = "container.duration.ms"
	fieldTaskPriority = "container.priority"
	fieldTaskType     = "container.type"
	fieldTaskExecType = "container.execution.type"
	fieldTaskAllocID  = "container.allocation.id"
	fieldTaskDelay    = "container.request.delay"
)

// MaxTime bounds every time and duration of a trace: ten years of
// simulated time, in ms. Past it a run would not finish (a job at
// 9e18 ms keeps the clock ticking for ever), so readers refuse it.
const MaxTime berth.Time = 10 * 365 * 24 * 3600 * 1000

// ReadSLS reads an SLS JSON job file (--tracetype=SLS): a sequence of job
// objects and at most one {"num.nodes", "num.racks"} topology record
// (SLS's addNodes: its generated nodes join the hosts the tasks name).
// am.type is any name; the scenario maps it to an AM as SLS's
// yarn.sls.am.type.<name> keys do. file names the input in errors. A job with "job.count": n > 1
// becomes n jobs with generated ids, as in SLS.
func ReadSLS(r io.Reader, file string, d Defaults) (*Trace, error) {
	t := &Trace{}
	generated := 0 // SLS numbers jobs without an id from 0
	err := records(r, file, func(rec int, o obj) error {
		if o.has(fieldNumNodes) {
			// SLS's addNodes: a record with num.nodes adds generated
			// nodes; it is a job too when it has tasks.
			if t.Topology != nil {
				return o.err(fieldNumNodes, nil, "a second topology record", nil)
			}
			top, err := readTopology(o)
			if err != nil {
				return err
			}
			t.Topology = top
			if !o.has(fieldJobTasks) {
				return nil
			}
		}
		jobs, err := readSLSJob(o, d, &generated)
		if err != nil {
			return err
		}
		t.Jobs = append(t.Jobs, jobs...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(t.Jobs) == 0 {
		return nil, &Error{File: file, Reason: "no jobs"}
	}
	return t, nil
}

func readTopology(o obj) (*Topology, error) {
	n, err := o.int64(fieldNumNodes, 0)
	if err != nil {
		return nil, err
	}
	if n < 1 || n > 1_000_000 {
		return nil, o.err(fieldNumNodes, n, "must be in [1, 1000000]", nil)
	}
	racks, err := o.int32(fieldNumRacks, 1)
	if err != nil {
		return nil, err
	}
	// SLS's generateNodes takes at least one rack and at most one per node.
	return &Topology{Nodes: int(n), Racks: int(min(max(int64(racks), 1), n))}, nil
}

// readSLSJob reads one job record: the job's fields, its tasks, then the
// job.count copies SLS makes of it.
func readSLSJob(o obj, d Defaults, generated *int) ([]Job, error) {
	id, err := o.str(fieldJobID, "")
	if err != nil {
		return nil, err
	}
	o.id = id
	j, err := readSLSJobFields(o, d)
	if err != nil {
		return nil, err
	}
	count, err := o.int64(fieldJobCount, 1)
	if err != nil {
		return nil, err
	}
	if count > 100_000 {
		return nil, o.err(fieldJobCount, count, "too many copies (at most 100000)", nil)
	}
	count = max(count, 1) // SLS: Math.max(count, 1)
	tasks, err := o.objects(fieldJobTasks)
	if err != nil {
		return nil, err
	}
	if len(tasks) == 0 {
		return nil, o.err(fieldJobTasks, nil, "no task for the job", nil)
	}
	for _, to := range tasks {
		ts, err := readSLSTask(to, d)
		if err != nil {
			return nil, err
		}
		j.Tasks = append(j.Tasks, ts...)
	}
	out := make([]Job, 0, count)
	for i := int64(0); i < count; i++ {
		c := j
		if count > 1 || id == "" {
			c.ID = fmt.Sprintf("job_%d", *generated)
		} else {
			c.ID = id
		}
		*generated++
		if i > 0 {
			c.Tasks = slices.Clone(j.Tasks)
		}
		out = append(out, c)
	}
	return out, nil
}

// readSLSJobFields reads a job record's own fields, tasks and count aside:
// the AM type, user and queue, the times, the label expression and the
// AM's size.
func readSLSJobFields(o obj, d Defaults) (Job, error) {
	var j Job
	var err error
	if j.AMType, err = o.str(fieldAMType, AMMapReduce); err != nil {
		return j, err
	}
	if j.AMType == "" {
		return j, o.err(fieldAMType, j.AMType, "empty", nil)
	}
	if j.User, err = o.str(fieldJobUser, DefaultUser); err != nil {
		return j, err
	}
	if j.Queue, err = o.str(fieldJobQueue, ""); err != nil {
		return j, err
	}
	if j.Queue == "" {
		return j, o.err(fieldJobQueue, nil, "missing", nil)
	}
	if err := readSLSJobTimes(o, &j); err != nil {
		return j, err
	}
	if j.LabelExpression, err = o.str(fieldJobLabel, ""); err != nil {
		return j, err
	}
	if j.AMResource, err = resourceFields(o, "am.", d.AM); err != nil {
		return j, err
	}
	return j, nil
}

// readSLSJobTimes reads job.start.ms and job.end.ms into j.
func readSLSJobTimes(o obj, j *Job) error {
	var err error
	if j.Start, err = o.int64(fieldJobStart, 0); err != nil {
		return err
	}
	if j.Start < 0 || j.Start > MaxTime {
		return o.err(fieldJobStart, j.Start, fmt.Sprintf("must be in [0, %d] ms (ten years)", MaxTime), nil)
	}
	if j.End, err = o.int64(fieldJobEnd, 0); err != nil {
		return err
	}
	if j.End > MaxTime {
		return o.err(fieldJobEnd, j.End, fmt.Sprintf("beyond %d ms (ten years)", MaxTime), nil)
	}
	if j.End != 0 && j.End < j.Start {
		return o.err(fieldJobEnd, j.End, "before "+fieldJobStart, nil)
	}
	if j.AMType == AMStream && j.End <= j.Start {
		return o.err(fieldJobEnd, j.End, "a stream job runs until job.end.ms, which must follow job.start.ms", nil)
	}
	return nil
}

// readSLSTask reads one task record: its count, host, duration, request
// and size; it stands for count identical containers.
func readSLSTask(o obj, d Defaults) ([]Task, error) {
	count, err := o.int64(fieldCount, 1)
	if err != nil {
		return nil, err
	}
	if count > 1_000_000 {
		return nil, o.err(fieldCount, count, "too many containers (at most 1000000)", nil)
	}
	count = max(count, 1)
	var t Task
	if t.Host, err = o.str(fieldTaskHost, ""); err != nil {
		return nil, err
	}
	if t.Host != "" {
		if _, _, err := SplitHost(t.Host); err != nil {
			return nil, o.err(fieldTaskHost, t.Host, err.Error(), nil)
		}
	}
	if t.Duration, err = readSLSTaskDuration(o); err != nil {
		return nil, err
	}
	if err := readSLSTaskRequest(o, &t); err != nil {
		return nil, err
	}
	if t.Resource, err = resourceFields(o, "container.", d.Container); err != nil {
		return nil, err
	}
	out := make([]Task, count)
	for i := range out {
		out[i] = t
	}
	return out, nil
}

// readSLSTaskDuration reads a task's duration with SLS's precedence:
// container.duration.ms, then duration.ms, then end − start.
func readSLSTaskDuration(o obj) (int64, error) {
	dur, err := o.int64(fieldTaskDuration, -1)
	if err != nil {
		return 0, err
	}
	legacy, err := o.int64(fieldDuration, -1)
	if err != nil {
		return 0, err
	}
	start, err := o.int64(fieldTaskStart, -1)
	if err != nil {
		return 0, err
	}
	end, err := o.int64(fieldTaskEnd, -1)
	if err != nil {
		return 0, err
	}
	// SLS marks absent fields with −1; presence is used here, so an
	// explicit −1 is reported rather than skipped.
	var duration int64
	field := fieldTaskDuration
	switch {
	case o.has(fieldTaskDuration):
		duration = dur
	case o.has(fieldDuration):
		duration, field = legacy, fieldDuration
	case o.has(fieldTaskStart) && o.has(fieldTaskEnd):
		duration, field = end-start, fieldTaskEnd
	default:
		return 0, o.err(fieldTaskDuration, nil, "missing: give container.duration.ms, duration.ms, or container.start.ms and container.end.ms", nil)
	}
	if duration <= 0 {
		return 0, o.err(field, duration, "the task's duration must be positive", nil)
	}
	// SLS parses container.duration.ms and duration.ms with
	// Integer.parseInt, and the simulation is bounded.
	if field != fieldTaskEnd && duration > math.MaxInt32 {
		return 0, o.err(field, duration, "beyond what SLS parses (Integer.parseInt: at most 2147483647 ms)", nil)
	}
	if duration > MaxTime {
		return 0, o.err(field, duration, fmt.Sprintf("the task's duration is beyond %d ms (ten years)", MaxTime), nil)
	}
	return duration, nil
}

// readSLSTaskRequest reads how a task's container is asked for: priority,
// type, execution type, allocation id and request delay.
func readSLSTaskRequest(o obj, t *Task) error {
	var err error
	if t.Priority, err = o.int32(fieldTaskPriority, DefaultMapPriority); err != nil {
		return err
	}
	if t.Type, err = o.str(fieldTaskType, TypeMap); err != nil {
		return err
	}
	if t.ExecutionType, err = o.str(fieldTaskExecType, DefaultExecutionType); err != nil {
		return err
	}
	if t.ExecutionType != "GUARANTEED" && t.ExecutionType != "OPPORTUNISTIC" {
		return o.err(fieldTaskExecType, t.ExecutionType, "must be GUARANTEED or OPPORTUNISTIC", nil)
	}
	if t.AllocationID, err = o.int64(fieldTaskAllocID, -1); err != nil {
		return err
	}
	if t.RequestDelay, err = o.int64(fieldTaskDelay, 0); err != nil {
		return err
	}
	if t.RequestDelay > MaxTime {
		return o.err(fieldTaskDelay, t.RequestDelay, fmt.Sprintf("beyond %d ms (ten years)", MaxTime), nil)
	}
	t.RequestDelay = max(t.RequestDelay, 0)
	return nil
}

// resourceFields reads "<prefix>memory-mb" and "<prefix>vcores" over def
// (SLS reads "<prefix><resource-type-name>" for every resource type).
func resourceFields(o obj, prefix string, def berth.Resource) (berth.Resource, error) {
	r := def
	mem, err := o.int64(prefix+berth.ResourceMemory, def.Memory)
	if err != nil {
		return r, err
	}
	if mem <= 0 {
		return r, o.err(prefix+berth.ResourceMemory, mem, "must be positive", nil)
	}
	vc, err := o.int64(prefix+berth.ResourceVCores, def.VCores)
	if err != nil {
		return r, err
	}
	if vc < 0 {
		return r, o.err(prefix+berth.ResourceVCores, vc, "must not be negative", nil)
	}
	r.Memory, r.VCores = mem, vc
	return r, nil
}

// SplitHost splits a "/rack/host" name (SLS's container.host, Rumen's
// hostName) into its rack ("/rack", possibly several levels) and host.
func SplitHost(name string) (rack, host string, err error) {
	i := strings.LastIndexByte(name, '/')
	if i <= 0 || i == len(name)-1 || name[0] != '/' {
		return "", "", fmt.Errorf(`expected "/rack/host"`)
	}
	return name[:i], name[i+1:], nil
}
