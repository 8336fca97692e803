package trace

import (
	"fmt"
	"io"
)

// ReadRumen reads a Rumen job-history trace (--tracetype=RUMEN): a sequence
// of LoggedJob objects as Rumen's TraceBuilder writes them. As SLS does,
// each map and reduce task becomes one container on the host of its last
// attempt, running for that attempt's finishTime − startTime, with the
// default container resource, priority 20 for maps and 10 for reduces;
// times are shifted so the first job's submitTime is 0. Fields SLS does not
// read are ignored.
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
		if j.Start < 0 {
			return o.err("submitTime", submit, "before the first job's submitTime", nil)
		}
		if finish > 0 {
			if finish < submit {
				return o.err("finishTime", finish, "before submitTime", nil)
			}
			j.End = finish - baseline
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
					return to.err("attempts", nil, fmt.Sprintf("no attempt for a %s task", kind.typ), nil)
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
	return t, nil
}
