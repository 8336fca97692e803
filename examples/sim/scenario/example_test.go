package scenario_test

import (
	"fmt"

	"github.com/berthsched/berth/examples/sim/scenario"
)

// Loading the embedded default scenario: the inputs are parsed and
// validated before anything runs.
func ExampleLoad() {
	sc, err := scenario.Load(scenario.Default("capacity"))
	if err != nil {
		panic(err)
	}
	deadline := 0
	for _, j := range sc.Jobs {
		if j.Deadline > 0 {
			deadline++
		}
	}
	fmt.Println(len(sc.Nodes), "nodes,", len(sc.Jobs), "jobs,", deadline, "with a deadline,", len(sc.NodeEvents), "node events")
	fmt.Println("preemption:", sc.Preemption, "every", sc.PreemptInterval, "ms; configuration clean:", sc.ConfigReport.Clean())
	// Output:
	// 300 nodes, 2070 jobs, 218 with a deadline, 120 node events
	// preemption: true every 3000 ms; configuration clean: true
}

// A site file's report: a typo in SLS's namespace, a key SLS knows that
// the simulator does not model, a key package preempt reads, and a key
// outside the simulator's namespaces (not reported).
func ExampleSiteReport() {
	site, err := scenario.ParseSite([]byte(`<configuration>
  <property><name>yarn.sls.nm.memroy.mb</name><value>65536</value></property>
  <property><name>yarn.sls.runner.pool.size</name><value>100</value></property>
  <property><name>yarn.scheduler.fair.preemption</name><value>true</value></property>
  <property><name>fs.defaultFS</name><value>hdfs://nn:8020</value></property>
</configuration>`), "sls-runner.xml")
	if err != nil {
		panic(err)
	}
	rep := scenario.SiteReport(site)
	fmt.Print(rep)
	fmt.Println(rep.Err(site.File))
	// Output:
	// yarn.scheduler.fair.preemption: read by package preempt (ParseFairConfig), under the fair scheduler
	// unknown key yarn.sls.nm.memroy.mb (did you mean yarn.sls.nm.memory.mb?)
	// not modelled: yarn.sls.runner.pool.size: no threads: the simulator is one deterministic discrete-event loop
	// sls-runner.xml: strict mode refuses unknown key yarn.sls.nm.memroy.mb (did you mean yarn.sls.nm.memory.mb?) (and 1 more)
}
