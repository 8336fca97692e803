package scenario

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/berthsched/berth"
)

// TestSLSMonitor: SLS runs the capacity scheduler's preemption monitor in
// every run, whatever the configuration says. With SLS's own
// capacity-scheduler.xml and sls-runner.xml (which turn nothing on), a
// small job arriving behind big ones that fill the cluster from another
// queue gets its guarantee back by preemption within a couple of
// minutes; without the monitor (as a ResourceManager with this
// configuration runs) it waits for the big job's tasks to end.
func TestSLSMonitor(t *testing.T) {
	var tr strings.Builder
	task := func(n int, ms int) string {
		return fmt.Sprintf(`{"count": %d, "container.host": "/r1/n1", "duration.ms": %d}`, n, ms)
	}
	// Two users, as one user may not take more than its queue's
	// guarantee (user-limit-factor 1).
	for _, u := range []string{"u1", "u2"} {
		fmt.Fprintf(&tr, `{"job.id": "big_%s", "job.user": "%s", "job.queue.name": "sls_queue_3", "job.start.ms": 0, "job.tasks": [%s]}`+"\n",
			u, u, task(20, 300_000))
	}
	fmt.Fprintf(&tr, `{"job.id": "small", "job.queue.name": "sls_queue_2", "job.start.ms": 60000, "job.tasks": [%s]}`+"\n", task(4, 30_000))
	nodes := File{Name: "nodes.json", Data: []byte(`{"rack": "r1", "nodes": [{"node": "n1"}, {"node": "n2"}, {"node": "n3"}, {"node": "n4"}]}`)}
	wait := func(monitor bool) (berth.Duration, *Scenario) {
		in := Inputs{TraceType: "SLS", Traces: []File{{Name: "trace.json", Data: []byte(tr.String())}}, Nodes: &nodes,
			SchedulerConf: realFile(t, "capacity-scheduler.xml"), Sites: []File{realFile(t, "sls-runner.xml")},
			Overrides: []Property{{KeyNMMemory, "8192"}, {KeyNMVCores, "8"}}, SLSMonitor: monitor}
		sc, err := Load(in)
		require.NoError(t, err)
		run, err := sc.Run(Options{})
		require.NoError(t, err)
		require.Zero(t, run.Unfinished)
		small := run.Jobs[2]
		require.Equal(t, "small", small.ID)
		return small.Wait(), sc
	}
	said := func(sc *Scenario) bool {
		for _, n := range sc.ConfigNotes() {
			if n.Kind == "set as SLS does" && n.Key == KeyMonitorEnable {
				return true
			}
		}
		return false
	}
	with, sc := wait(true)
	assert.True(t, sc.Preemption, "SLS's monitor is on")
	assert.True(t, said(sc), "the report says the simulator turned the monitor on")
	without, sc := wait(false)
	assert.False(t, sc.Preemption, "the configuration does not turn the monitor on")
	assert.False(t, said(sc))
	t.Logf("the small job waits %.1f s with SLS's monitor, %.1f s without", float64(with)/1000, float64(without)/1000)
	assert.Greater(t, without, berth.Duration(200_000), "without preemption it waits for the big job's tasks (300 s from 0)")
	assert.Less(t, with, berth.Duration(120_000), "with SLS's monitor, preemption makes room")
	assert.Less(t, 2*with, without)
}
