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
	t := &Trace{}
	var baseline int64
	err := records(r, file, func(rec int, o obj) error {
		id, err := o.str("jobID", "")
		if err != nil {
			return err
		}
		if id == "" {
			return o.err("jobID", nil, "missing", nil)
		}
		o.id = id
		j := Job{ID: id, AMType: AMMapReduce, AMResource: d.AM}
		if j.User, err = o.str("user", DefaultUser); err != nil {
			return err
		}
		if j.Queue, err = o.str("queue", "default"); err != nil {
			return err
		}
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
			baseline = submit
		}
		j.Start = submit - baseline
		if finish > 0 {
			if finish < submit {
				return o.err("finishTime", finish, "before submitTime", nil)
			}
			j.End = finish - baseline
		}
		if j.Start < 0 {
			// SLS resets the job to the trace's start, keeping its length.
			t.Notes = append(t.Notes, Note{File: file, Record: rec, Field: "submitTime",
				Text: fmt.Sprintf("job %s was submitted before the first job: its start is reset to 0, as SLS does", id)})
			if j.End > 0 {
				j.End -= j.Start
			}
			j.Start = 0
		}
		if j.Start > MaxTime || j.End > MaxTime {
			return o.err("submitTime", submit, fmt.Sprintf("more than %d ms (ten years) after the first job", MaxTime), nil)
		}
		for _, kind := range []struct {
			field, typ string
			prio       int32
		}{{"mapTasks", TypeMap, DefaultMapPriority}, {"reduceTasks", TypeReduce, DefaultReducePriority}} {
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
					t.Dropped = append(t.Dropped, Drop{Job: id, Queue: j.Queue,
						Reason: to.err("attempts", nil, fmt.Sprintf("a %s task has no attempt: SLS cannot build the job", kind.typ), nil)})
					return nil
				}
				a := attempts[len(attempts)-1]
				host, err := a.str("hostName", "")
				if err != nil {
					return err
				}
				if host != "" {
					if _, _, err := SplitHost(host); err != nil {
						return a.err("hostName", host, err.Error(), nil)
					}
				}
				start, err := a.int64("startTime", -1)
				if err != nil {
					return err
				}
				end, err := a.int64("finishTime", -1)
				if err != nil {
					return err
				}
				if start < 0 {
					return a.err("startTime", start, "missing or negative", nil)
				}
				if end <= start {
					return a.err("finishTime", end, "must follow startTime", nil)
				}
				if end-start > MaxTime {
					return a.err("finishTime", end, fmt.Sprintf("the attempt lasts more than %d ms (ten years)", MaxTime), nil)
				}
				j.Tasks = append(j.Tasks, Task{Host: host, Duration: end - start, Resource: d.Container,
					Priority: kind.prio, Type: kind.typ, ExecutionType: DefaultExecutionType, AllocationID: -1})
			}
		}
		if len(j.Tasks) == 0 {
			return o.err("mapTasks", nil, "the job has no tasks", nil)
		}
		t.Jobs = append(t.Jobs, j)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(t.Jobs) == 0 {
		return nil, &Error{File: file, Reason: "no job to run", Err: errors.Join(dropReasons(t.Dropped)...)}
	}
	return t, nil
}

func dropReasons(ds []Drop) []error {
	out := make([]error, len(ds))
	for i, d := range ds {
		out[i] = d.Reason
	}
	return out
}
