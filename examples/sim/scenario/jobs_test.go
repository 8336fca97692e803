package scenario

import (
	"errors"
	"strings"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/examples/sim/trace"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// admissionConf: root.a (leaf), root.p (a parent of p1), a maximum
// allocation of <8192 MB, 4 vcores>.
const admissionConf = `<configuration>
<property><name>yarn.scheduler.capacity.root.queues</name><value>a,p</value></property>
<property><name>yarn.scheduler.capacity.root.a.capacity</name><value>50</value></property>
<property><name>yarn.scheduler.capacity.root.p.capacity</name><value>50</value></property>
<property><name>yarn.scheduler.capacity.root.p.queues</name><value>p1</value></property>
<property><name>yarn.scheduler.capacity.root.p.p1.capacity</name><value>100</value></property>
<property><name>yarn.scheduler.maximum-allocation-mb</name><value>8192</value></property>
<property><name>yarn.scheduler.maximum-allocation-vcores</name><value>4</value></property>
</configuration>`

func slsJob(id, queue, extra, task string) string {
	return `{"job.id": "` + id + `", "job.queue.name": "` + queue + `", "job.start.ms": 0` + extra +
		`, "job.tasks": [{"container.host": "/r/n1", "duration.ms": 1000` + task + `}]}`
}

func admissionInputs(trace string, site *File) Inputs {
	in := Inputs{Scheduler: "capacity", SchedulerConf: File{Name: "cs.xml", Data: []byte(admissionConf)},
		TraceType: "SLS", Traces: []File{{Name: "jobs.json", Data: []byte(trace)}}}
	if site != nil {
		in.Sites = []File{*site}
	}
	return in
}

// TestAdmission: jobs YARN refuses are left out, each named with its
// queue and the reason; the others run.
func TestAdmission(t *testing.T) {
	jobs := slsJob("ok", "a", "", "") + slsJob("ok-full-path", "root.a", "", "") +
		slsJob("nowhere", "nosuch", "", "") + slsJob("parent", "p", "", "") +
		slsJob("big-task", "a", "", `, "container.memory-mb": 16384`) +
		slsJob("big-am", "a", `, "am.memory-mb": 9000`, "") +
		slsJob("odd-type", "a", `, "am.type": "spark"`, "")
	sc, err := Load(admissionInputs(jobs, nil))
	require.NoError(t, err)
	var kept []string
	for _, j := range sc.Jobs {
		kept = append(kept, j.ID)
	}
	assert.Equal(t, []string{"ok", "ok-full-path"}, kept)
	reasons := map[string]string{}
	for _, d := range sc.Dropped {
		reasons[d.Job] = d.Queue + ": " + d.Reason.Error()
	}
	assert.Len(t, reasons, 5)
	assert.Contains(t, reasons["nowhere"], "nosuch: queue nosuch refused the job")
	assert.Contains(t, reasons["parent"], "p: ")
	assert.Contains(t, reasons["parent"], "non-leaf")
	assert.Contains(t, reasons["big-task"], "ask refused")
	assert.Contains(t, reasons["big-task"], "maximum allocation")
	assert.Contains(t, reasons["big-am"], "maximum allocation")
	assert.Contains(t, reasons["odd-type"], `am.type "spark"`)
	run, err := sc.Run(Options{})
	require.NoError(t, err)
	assert.Len(t, run.Jobs, 2)
	assert.Zero(t, run.Unfinished)
}

// TestAMTypes: yarn.sls.am.type.<type> maps a trace's am.type to its AM,
// as SLS's AMRunner does; SLS's DAG AM is refused, not run as MapReduce.
func TestAMTypes(t *testing.T) {
	site := siteFile([2]string{"yarn.sls.am.type.batch", classMRAM}, [2]string{"yarn.sls.am.type.longrun", classStreamAM})
	jobs := slsJob("b", "a", `, "am.type": "batch"`, "") + slsJob("s", "a", `, "am.type": "longrun", "job.end.ms": 5000`, "") +
		slsJob("m", "a", "", "")
	sc, err := Load(admissionInputs(jobs, site))
	require.NoError(t, err)
	require.Len(t, sc.Jobs, 3)
	assert.Equal(t, []string{trace.AMMapReduce, trace.AMStream, trace.AMMapReduce}, []string{sc.Jobs[0].AMType, sc.Jobs[1].AMType, sc.Jobs[2].AMType})
	assert.Empty(t, sc.Dropped)

	for _, c := range []struct{ name, class, reason string }{
		{"dag", classDAGAM, "DAG AM"},
		{"own", "com.example.MyAM", "not one Berth models"},
	} {
		site := siteFile([2]string{"yarn.sls.am.type." + c.name, c.class})
		_, err := Load(admissionInputs(slsJob("d", "a", `, "am.type": "`+c.name+`"`, ""), site))
		require.Error(t, err, c.name)
		assert.ErrorIs(t, err, berth.ErrInvalidArgument)
		var ie *InputError
		require.True(t, errors.As(err, &ie))
		assert.Equal(t, "yarn.sls.am.type."+c.name, ie.Field)
		assert.Contains(t, err.Error(), c.reason)
	}
	// Without a site file SLS's own sls-runner.xml names mapreduce and
	// stream only: a dag job has no AM and is dropped, as SLS drops it.
	sc, err = Load(admissionInputs(slsJob("d", "a", `, "am.type": "dag"`, "")+slsJob("m", "a", "", ""), nil))
	require.NoError(t, err)
	require.Len(t, sc.Dropped, 1)
	assert.True(t, strings.Contains(sc.Dropped[0].Reason.Error(), "yarn.sls.am.type.dag"))
}
