package trace_test

import (
	"errors"
	"fmt"
	"strings"

	"github.com/berthsched/berth/examples/sim/trace"
)

// Reading an SLS job file; a bad one names the file, the record and the
// field.
func ExampleReadSLS() {
	const jobs = `{"job.id": "job_1", "job.queue.name": "etl", "job.start.ms": 0,
  "job.tasks": [{"count": 2, "container.host": "/rack1/node1", "container.start.ms": 5000, "container.end.ms": 25000},
                {"duration.ms": 40000, "container.type": "reduce", "container.priority": 10}]}`
	t, err := trace.ReadSLS(strings.NewReader(jobs), "jobs.json", trace.DefaultDefaults())
	if err != nil {
		panic(err)
	}
	for _, k := range t.Jobs[0].Tasks {
		fmt.Printf("%s %d %d %q\n", k.Type, k.Priority, k.Duration, k.Host)
	}
	_, err = trace.ReadSLS(strings.NewReader(`{"job.queue.name": "etl", "job.tasks": [{"duration.ms": -1}]}`), "bad.json", trace.DefaultDefaults())
	var te *trace.Error
	fmt.Println(errors.As(err, &te), te.Record, te.Field)
	fmt.Println(err)
	// Output:
	// map 20 20000 "/rack1/node1"
	// map 20 20000 "/rack1/node1"
	// reduce 10 40000 ""
	// true 1 job.tasks[0].duration.ms
	// bad.json: record 1: job.tasks[0].duration.ms: the task's duration must be positive (value: -1)
}
