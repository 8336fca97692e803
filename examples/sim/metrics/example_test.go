package metrics_test

import (
	"os"

	"github.com/berthsched/berth/examples/sim/metrics"
)

// SLS's jobruntime.csv: the trace's times, then the simulated ones.
func ExampleWriteJobRuntime() {
	run := &metrics.Run{Jobs: []metrics.Job{
		{ID: "job_1", TraceStart: 0, TraceEnd: 95375, Submitted: 0, Finished: 91000},
		{ID: "job_2", TraceStart: 105204, TraceEnd: 197256, Submitted: 105204},
	}}
	if err := metrics.WriteJobRuntime(os.Stdout, run); err != nil {
		panic(err)
	}
	// Output:
	// JobID,real_start_time,real_end_time,simulate_start_time,simulate_end_time
	// job_1,0,95375,0,91000
	// job_2,105204,197256,105204,-1
}
