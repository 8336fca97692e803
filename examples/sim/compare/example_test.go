package compare_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/berthsched/berth/examples/sim/compare"
	"github.com/berthsched/berth/examples/sim/report"
	"github.com/berthsched/berth/examples/sim/scenario"
)

// What if queue b had 70 % instead of 40 %? Two configurations of the
// same trace, run at once, compared queue by queue.
func Example() {
	base := func(string) (scenario.Inputs, error) {
		return scenario.Inputs{Scheduler: "capacity", TraceType: "SLS",
			SchedulerConf: scenario.File{Name: "capacity-scheduler.xml", Data: []byte(`<configuration>
  <property><name>yarn.scheduler.capacity.root.queues</name><value>a,b</value></property>
  <property><name>yarn.scheduler.capacity.root.a.capacity</name><value>60</value></property>
  <property><name>yarn.scheduler.capacity.root.b.capacity</name><value>40</value></property>
</configuration>`)},
			Traces: []scenario.File{{Name: "jobs.json", Data: []byte(`
{"job.id": "a1", "job.queue.name": "a", "job.start.ms": 0, "job.tasks": [{"count": 40, "container.host": "/r1/n1", "duration.ms": 30000}, {"count": 40, "container.host": "/r1/n2", "duration.ms": 30000}]}
{"job.id": "b1", "job.queue.name": "b", "job.start.ms": 5000, "job.tasks": [{"count": 12, "duration.ms": 10000}]}`)}}}, nil
	}
	sweep, err := compare.ParseSweep([]byte(`{"variants": [
	  {"name": "today"},
	  {"name": "b-70", "scheduler-keys": {"yarn.scheduler.capacity.root.a.capacity": "30", "yarn.scheduler.capacity.root.b.capacity": "70"}}]}`), "whatif.json")
	if err != nil {
		panic(err)
	}
	variants, _, err := sweep.Resolve(base, func(string) (scenario.File, error) { return scenario.File{}, os.ErrNotExist })
	if err != nil {
		panic(err)
	}
	outcomes, err := compare.Run(variants, compare.Options{})
	if err != nil {
		panic(err)
	}
	vs := make([]report.Variant, len(outcomes))
	for i, o := range outcomes {
		vs[i] = report.Variant{Name: o.Name, Settings: o.Settings, Run: o.Run}
	}
	for _, d := range report.Differences(vs) {
		fmt.Println(d.Key, d.Values)
	}
	for _, q := range report.CompareQueues(vs) {
		for _, r := range q.Rows {
			fmt.Println(strings.TrimSpace(fmt.Sprintf("queue %s, %s: wait p95 %.1f s %s", q.Queue, r.Variant, r.WaitP95, r.DWaitP95)))
		}
	}
	// Output:
	// yarn.scheduler.capacity.root.a.capacity [60 30]
	// yarn.scheduler.capacity.root.b.capacity [40 70]
	// queue a, today: wait p95 0.5 s
	// queue a, b-70: wait p95 0.5 s =
	// queue b, today: wait p95 1.6 s
	// queue b, b-70: wait p95 0.8 s −791 ms (−49 %)
}
