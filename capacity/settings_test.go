package capacity

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

// Per-queue maximum allocation: read from maximum-allocation, else
// -mb/-vcores, inherited from the parent, at most the cluster's; asks
// above it are refused, and it cannot shrink on reconfiguration.
func TestQueueMaximumAllocation(t *testing.T) {
	doc := xmlDoc(
		prefix+"root.queues", "p,b",
		prefix+"root.p.capacity", "50", prefix+"root.b.capacity", "50",
		prefix+"root.p.queues", "a",
		prefix+"root.p.a.capacity", "100",
		prefix+"root.p.maximum-allocation", "memory-mb=4Gi,vcores=2",
		prefix+"root.b.maximum-allocation-mb", "2048",
		prefix+"root.b.maximum-allocation-vcores", "-1",
	)
	cfg, err := ParseXML(stringsReader(doc))
	require.NoError(t, err)
	assert.Equal(t, berth.New(4096, 2), cfg.Root.Children[0].Settings.MaxAllocation)
	assert.Equal(t, berth.New(2048, 0), cfg.Root.Children[1].Settings.MaxAllocation)
	h := newHarness(t, cfg, mkNode("n1", 16*gb, 16))
	snapMax := func(path string) berth.Resource { return h.s.byPath[path].maxAlloc }
	assert.Equal(t, berth.New(4096, 2), snapMax("root.p.a"), "inherited from the parent")
	assert.Equal(t, berth.New(2048, 4), snapMax("root.b"), "vcores from the cluster")

	h.submit("x", "a", "u")
	_, err = h.s.Allocate("x", []Ask{{Priority: 1, ResourceName: AnyResource, Capability: berth.New(5*gb, 1), Count: 1}}, nil)
	require.Error(t, err, "5 GB is above the queue's 4 GB")
	_, err = h.s.Allocate("x", []Ask{{Priority: 1, ResourceName: AnyResource, Capability: berth.New(4*gb, 2), Count: 1}}, nil)
	require.NoError(t, err)
	_, err = h.s.SubmitApp(AppSpec{ID: "y", Queue: "b", User: "u", AMResource: berth.New(3*gb, 1)})
	require.Error(t, err, "an AM above the queue's maximum allocation")

	// Shrinking a leaf's maximum is refused; growing it is accepted.
	cfg.Root.Children[1].Settings.MaxAllocation = berth.New(1024, 0)
	_, err = h.s.Reconfigure(cfg)
	assertFieldError(t, err, prefix+"root.b.maximum-allocation")
	cfg.Root.Children[1].Settings.MaxAllocation = berth.New(8192, 0)
	_, err = h.s.Reconfigure(cfg)
	require.NoError(t, err)

	// Above the cluster's setting.
	_, err = ParseXML(stringsReader(xmlDoc(prefix+"root.queues", "a", prefix+"root.a.capacity", "100",
		prefix+"root.a.maximum-allocation-mb", "9000")))
	assertFieldError(t, err, prefix+"root.a.maximum-allocation")
	_, err = ParseXML(stringsReader(xmlDoc(prefix+"root.queues", "a", prefix+"root.a.capacity", "100",
		prefix+"root.a.maximum-allocation", "memory-mb=lots")))
	assertFieldError(t, err, prefix+"root.a.maximum-allocation")
}

// user-limit-factor -1 (YARN 3.4): a user may use the queue's maximum,
// and has all the queue's applications.
func TestUserLimitFactorMinusOne(t *testing.T) {
	for _, c := range []struct {
		ulf  float64
		want int64
	}{{1, 6 * gb}, {-1, 10 * gb}} { // a user goes one container past its limit, as in YARN
		cfg := DefaultConfig()
		a, b := Queue("a", 50), Queue("b", 50)
		a.Settings.UserLimitFactor = c.ulf
		a.Settings.MaxApplications = 4
		cfg.Root.Children = []QueueConfig{a, b}
		h := newHarness(t, cfg, mkNode("n1", 10*gb, 10))
		h.submit("x", "a", "u")
		h.ask("x", 1, gb, 20)
		for range 20 {
			h.beat("n1")
		}
		assert.Equal(t, c.want, h.appUsed("x"), "ulf %v", c.ulf)
		if c.ulf == -1 {
			for _, id := range []string{"x2", "x3", "x4"} {
				h.submit(id, "a", "u") // 4 applications for one user
			}
		}
	}
	_, err := ParseXML(stringsReader(xmlDoc(prefix+"root.queues", "a", prefix+"root.a.capacity", "100", prefix+"root.a.user-limit-factor", "-1")))
	require.NoError(t, err)
}

// maximum-am-resource-percent above 1 is read unchecked, as YARN reads
// it: the AM limit exceeds the queue and every AM starts.
func TestAMPercentAboveOne(t *testing.T) {
	cfg, err := ParseXML(stringsReader(xmlDoc(prefix+"root.queues", "a", prefix+"root.a.capacity", "100", prefix+"maximum-am-resource-percent", "10")))
	require.NoError(t, err)
	assert.Equal(t, 10.0, cfg.MaximumAMResourcePercent)
	h := newHarness(t, cfg, mkNode("n1", 4*gb, 4))
	for _, id := range []string{"a1", "a2", "a3", "a4", "a5", "a6"} {
		_, err := h.s.SubmitApp(AppSpec{ID: id, Queue: "a", User: "u", AMResource: berth.New(gb, 1)})
		require.NoError(t, err)
	}
	for _, a := range h.s.Snapshot().Apps {
		assert.True(t, a.Active, a.ID)
	}
}

// Weight capacities (YARN 3.4): a queue's share is its weight over its
// siblings' sum; siblings may not mix weights with percentages below the
// root; a maximum capacity cannot be a weight.
func TestWeightCapacities(t *testing.T) {
	cfg, err := ParseXML(stringsReader(xmlDoc(
		prefix+"root.queues", "a,b",
		prefix+"root.a.capacity", "3w", prefix+"root.b.capacity", "1w",
		prefix+"root.a.queues", "x,y",
		prefix+"root.a.x.capacity", "60", prefix+"root.a.y.capacity", "40",
	)))
	require.NoError(t, err)
	assert.Equal(t, queue.Weight(3), cfg.Root.Children[0].Capacity)
	h := newHarness(t, cfg, mkNode("n1", 100*gb, 100))
	abs := func(p string) float64 { return h.s.byPath[p].absCap }
	assert.InDelta(t, 0.75, abs("root.a"), 1e-6)
	assert.InDelta(t, 0.25, abs("root.b"), 1e-6)
	assert.InDelta(t, 0.45, abs("root.a.x"), 1e-6, "percentages under a weight parent")
	assert.Equal(t, int64(75*gb), h.s.byPath["root.a"].effMin.Memory)

	for _, c := range []struct {
		name string
		doc  string
		key  string
	}{
		{"weight beside percentage", xmlDoc(prefix+"root.queues", "p", prefix+"root.p.capacity", "100", prefix+"root.p.queues", "a,b",
			prefix+"root.p.a.capacity", "1w", prefix+"root.p.b.capacity", "50"), prefix + "root.p.capacity"},
		{"weight maximum", xmlDoc(prefix+"root.queues", "a", prefix+"root.a.capacity", "1w", prefix+"root.a.maximum-capacity", "2w"),
			prefix + "root.a.maximum-capacity"},
		{"weight too large", xmlDoc(prefix+"root.queues", "a", prefix+"root.a.capacity", "10001w"), prefix + "root.a.capacity"},
		{"not a weight", xmlDoc(prefix+"root.queues", "a", prefix+"root.a.capacity", "xw"), prefix + "root.a.capacity"},
		{"percentages under a weight parent must sum to 0 or 100", xmlDoc(prefix+"root.queues", "a", prefix+"root.a.capacity", "1w",
			prefix+"root.a.queues", "x", prefix+"root.a.x.capacity", "50"), prefix + "root.a.capacity"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseXML(stringsReader(c.doc))
			assertFieldError(t, err, c.key)
		})
	}
	// Mixing under the root is accepted, as YARN checks no mode there.
	_, err = ParseXML(stringsReader(xmlDoc(prefix+"root.queues", "a,b", prefix+"root.a.capacity", "1w", prefix+"root.b.capacity", "50")))
	require.NoError(t, err)
}

// ordering-policy fifo or fair on a parent is refused as YARN 2.9+
// refuses it, utilization on a leaf too; the lenient option reads the
// former as YARN 2.8 did.
func TestOrderingPolicyPlacement(t *testing.T) {
	parentFair := xmlDoc(prefix+"root.queues", "a", prefix+"root.a.capacity", "100", prefix+"root.ordering-policy", "fair")
	_, err := ParseXML(stringsReader(parentFair))
	assertFieldError(t, err, prefix+"root.ordering-policy")
	cfg, rep, err := ParseXMLReport(stringsReader(parentFair), XMLOptions{IgnoreLeafOrderingOnParents: true})
	require.NoError(t, err)
	assert.Equal(t, OrderUtilization, cfg.Root.Settings.ChildOrdering)
	notes := rep.Of(queue.NoteNotModelled)
	require.Len(t, notes, 1)
	assert.Equal(t, prefix+"root.ordering-policy", notes[0].Key)
	assert.Contains(t, notes[0].Instead, "YARN 2.8")

	_, err = ParseXML(stringsReader(xmlDoc(prefix+"root.queues", "a", prefix+"root.a.capacity", "100", prefix+"root.a.ordering-policy", "utilization")))
	assertFieldError(t, err, prefix+"root.a.ordering-policy")

	cfg, err = ParseXML(stringsReader(xmlDoc(prefix+"root.queues", "a", prefix+"root.a.capacity", "100",
		prefix+"root.ordering-policy", "priority-utilization", prefix+"root.a.ordering-policy", "fifo-for-pending-apps")))
	require.NoError(t, err)
	assert.Equal(t, OrderPriorityUtilization, cfg.Root.Settings.ChildOrdering)
	assert.Equal(t, OrderFIFO, cfg.Root.Children[0].Settings.AppOrdering)
}

// The preemption policy's priority-utilization keys are known and left
// to package preempt.
func TestUnderutilizedPreemptionKeysElsewhere(t *testing.T) {
	_, rep, err := ParseXMLReport(stringsReader(xmlDoc(prefix+"root.queues", "a", prefix+"root.a.capacity", "100",
		prefix+"ordering-policy.priority-utilization.underutilized-preemption.enabled", "true",
		prefix+"ordering-policy.priority-utilization.underutilized-preemption.reserved-container-delay-ms", "100")), XMLOptions{})
	require.NoError(t, err)
	assert.Len(t, rep.Of(queue.NoteElsewhere), 2)
	assert.Empty(t, rep.Of(queue.NoteUnknown))
	assert.Empty(t, rep.Of(queue.NoteNotModelled))
}
