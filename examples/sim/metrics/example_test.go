package metrics_test

import (
	"os"

	"github.com/berthsched/berth/examples/sim/metrics"
)

// SLS's jobruntime.csv: the trace's times, then the simulated ones (−1:
// not finished when the run stopped). A job whose AM never launched has
// no row, as in SLS.
func ExampleWriteJobRuntime() {
	run := &metrics.Run{Jobs: []metrics.Job{
		{ID: "job_1", TraceStart: 0, TraceEnd: 95375, Submitted: 412, AMNode: "node3", Finished: 91000},
		{ID: "job_2", TraceStart: 105204, TraceEnd: 197256, Submitted: 105777, AMNode: "node1"},
		{ID: "job_3", TraceStart: 110000, TraceEnd: 150000, Submitted: 110090},
	}}
	if err := metrics.WriteJobRuntime(os.Stdout, run); err != nil {
		panic(err)
	}
	// Output:
	// JobID,real_start_time,real_end_time,simulate_start_time,simulate_end_time
	// job_1,0,95375,412,91000
	// job_2,105204,197256,105777,-1
}
