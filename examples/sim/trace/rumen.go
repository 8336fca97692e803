package trace

import (
	"errors"
	"fmt"
	"io"
)

// ReadRumen reads a Rumen job-history trace (--tracetype=RUMEN): a sequence
// of LoggedJob objects as Rumen's TraceBuilder writes them. As SLS does,
// each map and reduce task becomes one container on the host of its last
// attempt, running for that attempt's finishTime − startTime, with the
// default container resource, priority 20 for maps and 10 for reduces;
// times are shifted so the first job's submitTime is 0. Fields SLS does not
// read are ignored. A job SLS cannot build (a map or reduce task without
// any attempt: AMDefinitionRumen throws, and AMRunner logs it and goes on)
// is listed in Trace.Dropped, and the other jobs run.
func ReadRumen(r io.Reader, file string, d Defaults) (*Trace, error) {
	rr := &rumenReader{file: file, defaults: d, trace: &Trace{}}
	if err := records(r, file, rr.job); err != nil {
		return nil, err
	}
	t := rr.trace
	if len(t.Jobs) == 0 {
		return nil, &Error{File: file, Reason: "no job to run", Err: errors.Join(dropReasons(t.Dropped)...)}
	}
	return t, nil
}

// rumenReader is what ReadRumen keeps from one LoggedJob to the next: the
// trace so far and the first job's submitTime, the trace's time zero.
type rumenReader struct {
	file     string
	defaults Defaults
	trace    *Trace
	baseline int64
}

// rumenTaskKinds are a LoggedJob's task lists, in the order SLS reads them.
var rumenTaskKinds = []struct {
	field, typ string
	prio       int32
}{{"mapTasks", TypeMap, DefaultMapPriority}, {"reduceTasks", TypeReduce, DefaultReducePriority}}

// job reads one LoggedJob: its id, user and queue, its times, then its
// tasks.
func (rr *rumenReader) job(rec int, o obj) error {
	id, err := o.str("jobID", "")
	if err != nil {
		return err
	}
	if id == "" {
		return o.err("jobID", nil, "missing", nil)
	}
	o.id = id
	j := Job{ID: id, AMType: AMMapReduce, AMResource: rr.defaults.AM}
	if j.User, err = o.str("user", DefaultUser); err != nil {
		return err
	}
	if j.Queue, err = o.str("queue", "default"); err != nil {
		return err
	}
	if err := rr.times(rec, o, &j); err != nil {
		return err
	}
	for _, kind := range rumenTaskKinds {
		tasks, err := o.objects(kind.field)
		if err != nil {
			return err
		}
		for _, to := range tasks {
			attempts, err := to.objects("attempts")
			if err != nil {
				return err
			}
			if len(attempts) == 0 {
				rr.trace.Dropped = append(rr.trace.Dropped, Drop{Job: id, Queue: j.Queue,
					Reason: to.err("attempts", nil, fmt.Sprintf("a %s task has no attempt: SLS cannot build the job", kind.typ), nil)})
				return nil
			}
			task, err := rr.attempt(attempts[len(attempts)-1])
			if err != nil {
				return err
			}
			task.Priority, task.Type = kind.prio, kind.typ
			j.Tasks = append(j.Tasks, task)
		}
	}
	if len(j.Tasks) == 0 {
		return o.err("mapTasks", nil, "the job has no tasks", nil)
	}
	rr.trace.Jobs = append(rr.trace.Jobs, j)
	return nil
}

// times reads a job's submitTime and finishTime into its start and end,
// on the trace's time zero (the first job's submitTime).
func (rr *rumenReader) times(rec int, o obj, j *Job) error {
	if !o.has("submitTime") {
		return o.err("submitTime", nil, "missing", nil)
	}
	submit, err := o.int64("submitTime", 0)
	if err != nil {
		return err
	}
	finish, err := o.int64("finishTime", 0)
	if err != nil {
		return err
	}
	if rec == 1 {
		rr.baseline = submit
	}
	j.Start = submit - rr.baseline
	if finish > 0 {
		if finish < submit {
			return o.err("finishTime", finish, "before submitTime", nil)
		}
		j.End = finish - rr.baseline
	}
	if j.Start < 0 {
		// SLS resets the job to the trace's start, keeping its length.
		rr.trace.Notes = append(rr.trace.Notes, Note{File: rr.file, Record: rec, Field: "submitTime",
			Text: fmt.Sprintf("job %s was submitted before the first job: its start is reset to 0, as SLS does", j.ID)})
		if j.End > 0 {
			j.End -= j.Start
		}
		j.Start = 0
	}
	if j.Start > MaxTime || j.End > MaxTime {
		return o.err("submitTime", submit, fmt.Sprintf("more than %d ms (ten years) after the first job", MaxTime), nil)
	}
	return nil
}

// attempt reads a task's last attempt as SLS builds its container: on the
// attempt's host, for its finishTime − startTime, at the default size.
func (rr *rumenReader) attempt(a obj) (Task, error) {
	host, err := a.str("hostName", "")
	if err != nil {
		return Task{}, err
	}
	if host != "" {
		if _, _, err := SplitHost(host); err != nil {
			return Task{}, a.err("hostName", host, err.Error(), nil)
		}
	}
	start, err := a.int64("startTime", -1)
	if err != nil {
		return Task{}, err
	}
	end, err := a.int64("finishTime", -1)
	if err != nil {
		return Task{}, err
	}
	if start < 0 {
		return Task{}, a.err("startTime", start, "missing or negative", nil)
	}
	if end <= start {
		return Task{}, a.err("finishTime", end, "must follow startTime", nil)
	}
	if end-start > MaxTime {
		return Task{}, a.err("finishTime", end, fmt.Sprintf("the attempt lasts more than %d ms (ten years)", MaxTime), nil)
	}
	return Task{Host: host, Duration: end - start, Resource: rr.defaults.Container,
		ExecutionType: DefaultExecutionType, AllocationID: -1}, nil
}

func dropReasons(ds []Drop) []error {
	out := make([]error, len(ds))
	for i, d := range ds {
		out[i] = d.Reason
	}
	return out
}
