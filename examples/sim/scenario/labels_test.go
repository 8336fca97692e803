package scenario

import (
	"fmt"
	"testing"

	"github.com/berthsched/berth/capacity"
	"github.com/berthsched/berth/examples/sim/trace"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// labelInputs is a two-node cluster: n1 in partition gpu (exclusive
// unless shared), n2 unlabelled and small. Queue a may use gpu, b may
// not. "train" (queue a, job.label.expression gpu) and "etl" (queue b, no
// label) each run 6 tasks of 2 GB for 20 s. n1 goes down at 15 s, while
// the first tasks run, and comes back at 16 s.
func labelInputs(shared bool) Inputs {
	excl := ""
	if shared {
		excl = "(exclusive=false)"
	}
	conf := `<configuration>
<property><name>yarn.scheduler.capacity.root.queues</name><value>a,b</value></property>
<property><name>yarn.scheduler.capacity.root.accessible-node-labels.gpu.capacity</name><value>100</value></property>
<property><name>yarn.scheduler.capacity.root.a.capacity</name><value>50</value></property>
<property><name>yarn.scheduler.capacity.root.a.accessible-node-labels</name><value>gpu</value></property>
<property><name>yarn.scheduler.capacity.root.a.accessible-node-labels.gpu.capacity</name><value>100</value></property>
<property><name>yarn.scheduler.capacity.root.b.capacity</name><value>50</value></property>
<property><name>yarn.scheduler.capacity.root.b.user-limit-factor</name><value>4</value></property>
<property><name>yarn.scheduler.capacity.root.b.accessible-node-labels</name><value> </value></property>
</configuration>`
	nodes := fmt.Sprintf(`{"rack": "r1", "nodes": [{"node": "n1", "memory-mb": 16384, "vcores": 16, "labels": "gpu%s"},
 {"node": "n2", "memory-mb": 4096, "vcores": 4}]}`, excl)
	jobs := `{"job.id": "train", "job.queue.name": "a", "job.user": "ann", "job.start.ms": 0, "job.label.expression": "gpu",
 "job.tasks": [{"count": 6, "container.memory": 2048, "duration.ms": 20000}]}
{"job.id": "etl", "job.queue.name": "b", "job.user": "bo", "job.start.ms": 0,
 "job.tasks": [{"count": 6, "container.memory": 2048, "duration.ms": 20000}]}`
	events := `[{"time.ms": 15000, "node": "n1", "state": "down"}, {"time.ms": 16000, "node": "n1", "state": "up"}]`
	return Inputs{Scheduler: "capacity", SchedulerConf: File{Name: "capacity-scheduler.xml", Data: []byte(conf)},
		TraceType: "SLS", Traces: []File{{Name: "jobs.json", Data: []byte(jobs)}},
		Nodes:      &File{Name: "nodes.json", Data: []byte(nodes)},
		NodeEvents: &File{Name: "events.json", Data: []byte(events)}}
}

// TestLabelsPartitionTheCluster: the node file's label makes n1 a
// partition of the capacity scheduler. The labelled job runs there (its
// containers are lost when n1 goes down); the unlabelled one never does
// while gpu is exclusive, and borrows it when it is shared.
func TestLabelsPartitionTheCluster(t *testing.T) {
	for _, shared := range []bool{false, true} {
		t.Run(fmt.Sprintf("shared=%v", shared), func(t *testing.T) {
			sc, err := Load(labelInputs(shared))
			require.NoError(t, err)
			assert.Equal(t, []capacity.NodeLabel{{Name: "gpu", NonExclusive: shared}}, sc.capCfg.NodeLabels)
			run, err := sc.Run(Options{})
			require.NoError(t, err)
			require.Zero(t, run.Unfinished)
			jobs := map[string]int{}
			for _, j := range run.Jobs {
				jobs[j.ID] = j.Lost
			}
			assert.Positive(t, jobs["train"], "train ran on n1")
			if shared {
				assert.Positive(t, jobs["etl"], "etl borrowed n1")
			} else {
				assert.Zero(t, jobs["etl"], "etl never ran on n1")
			}
		})
	}
}

// TestLabelsNotes: a node listing two labels runs unlabelled (YARN refuses
// several labels on a host); the file's exclusivity wins over the
// configuration's default for a label both name.
func TestLabelsNotes(t *testing.T) {
	declared := []capacity.NodeLabel{{Name: "gpu"}, {Name: "ssd"}}
	nodes := []trace.Node{
		{ID: "n1", Labels: []trace.Label{{Name: "gpu", Exclusive: false}}},
		{ID: "n2", Labels: []trace.Label{{Name: "gpu", Exclusive: true}}},
		{ID: "n3", Labels: []trace.Label{{Name: "fpga", Exclusive: true}, {Name: "gpu", Exclusive: false}}},
		{ID: "n4"},
	}
	got, notes := clusterLabels(declared, nodes, "nodes.json", "capacity")
	assert.Equal(t, []capacity.NodeLabel{{Name: "gpu", NonExclusive: true}, {Name: "ssd"}, {Name: "fpga"}}, got)
	require.Len(t, notes, 3)
	assert.Contains(t, notes[0].Text, "node n2 gives label gpu another exclusivity")
	assert.Contains(t, notes[1].Text, "1 nodes list several labels (n3)")
	assert.Contains(t, notes[2].Text, "nodes in labelled partitions (gpu: 2)")
	assert.Equal(t, "", nodes[2].Partition())
	assert.Equal(t, "gpu", nodes[1].Partition())
	_, notes = clusterLabels(nil, nodes[:1], "nodes.json", "fair")
	require.Len(t, notes, 1)
	assert.Contains(t, notes[0].Text, "the fair scheduler has no partitions")
}
