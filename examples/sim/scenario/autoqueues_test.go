package scenario

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/berthsched/berth/capacity"
)

// Jobs submitted to missing queues under an auto-creating (v2) parent run
// in the leaves the scheduler creates for them, and those leaves are
// reported from the start like the configured ones.
func TestAutoCreatedQueuesRunAndReport(t *testing.T) {
	sc := reduced(t, "capacity", 40)
	root := &sc.capCfg.Root
	var parent *capacity.QueueConfig
	for i := range root.Children {
		if c := &root.Children[i]; len(c.Children) == 0 && !c.Reservable {
			parent = c
			break
		}
	}
	require.NotNil(t, parent, "the default scenario has a plain leaf under root")
	parent.Parent = true
	parent.Settings.AutoCreate = capacity.DefaultAutoCreate(true)
	var moved int
	for i := range sc.Jobs {
		if j := &sc.Jobs[i]; j.Queue == parent.Name || j.Queue == "root."+parent.Name {
			j.Queue = "root." + parent.Name + "." + strings.ToLower(j.User)
			moved++
		}
	}
	require.Positive(t, moved)
	require.NoError(t, sc.admitJobs())
	require.NotEmpty(t, sc.autoLeaves)

	run, err := sc.Run(Options{NoPreemption: true})
	require.NoError(t, err)
	ran := 0
	for _, j := range run.Jobs {
		if strings.HasPrefix(j.Queue, "root."+parent.Name+".") && j.Finished > 0 {
			ran++
			assert.Equal(t, j.Queue, j.RanIn, j.ID)
			assert.Contains(t, run.Queues, j.Queue, "the created leaf is reported")
		}
	}
	assert.Positive(t, ran)
	used := false
	for _, s := range run.Samples {
		for i, q := range run.Queues {
			used = used || (strings.HasPrefix(q, "root."+parent.Name+".") && !s.Queues[i].Used.IsZero())
		}
	}
	assert.True(t, used, "a created leaf's use shows in the samples")
	t.Logf("%d jobs moved, %d ran in %v", moved, ran, sc.autoLeaves)
}
