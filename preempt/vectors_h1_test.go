package preempt_test

import (
	"strings"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/capacity"
	"github.com/stretchr/testify/require"
)

// labelledWorld builds a node-partition vector's world: partitions of the
// given sizes ("name=resource,exclusive;...") with the nodes placed on
// them ("host=partition"; a node is its partition's size), and the mock
// framework's AM share of zero.
func (v hVector) labelledWorld(t *testing.T) *capWorld {
	w := v.newWorld(t)
	w.zeroAMShare = true
	sizes := map[string]berth.Resource{}
	for _, l := range strings.Split(strings.TrimSuffix(v.labels, ";"), ";") {
		name, rest, _ := strings.Cut(l, "=")
		res, excl, _ := strings.Cut(rest, ",")
		sizes[name] = mockResource(t, res)
		if name != "" {
			w.labels = append(w.labels, capacity.NodeLabel{Name: name, NonExclusive: excl == "false"})
		}
	}
	for _, n := range strings.Split(strings.TrimSuffix(v.nodes, ";"), ";") {
		id, label, _ := strings.Cut(n, "=")
		capRes := sizes[label]
		if _, ok := w.rc.(berth.MemoryCalculator); ok {
			capRes.VCores = capRes.Memory
		}
		w.nodes = append(w.nodes, capacity.NodeSpec{ID: id, Rack: "/r", Capability: capRes, Label: label})
	}
	return w
}

// TestVectorsH1 runs the node-partition vectors (YARN's
// TestProportionalCapacityPreemptionPolicyForNodePartitions) against the
// real capacity scheduler with partitions.
func TestVectorsH1(t *testing.T) {
	vs := loadVectors(t, "testdata/h1_vectors.txt", true)
	require.Len(t, vs, 10)
	for _, v := range vs {
		t.Run(v.id+"_"+v.name, func(t *testing.T) { v.run(t, v.labelledWorld(t)) })
	}
}
