package capacity

import (
	"strings"
	"testing"

	"github.com/berthsched/berth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLabelWithoutSettings pins what a queue gets on a partition it may
// access when capacity-scheduler.xml gives it few or no keys for that
// label, as YARN 3.1 to 3.4 decide it. CSQueueUtils.loadCapacitiesByLabelsFromConf
// loads only the labels CapacitySchedulerConfiguration.getConfiguredNodeLabels
// (3.4: getConfiguredNodeLabelsByQueue) finds, those with at least one
// <queue>.accessible-node-labels.<label>.* key. A label without one keeps
// no QueueCapacities entry, which reads as 0 (LABEL_DOESNT_EXIST_CAP):
// no guarantee and no maximum, so the queue's asks for it stay pending.
// With any key the label is loaded: getLabeledQueueCapacity defaults to
// 0, getLabeledQueueMaximumCapacity to 100.
func TestLabelWithoutSettings(t *testing.T) {
	const a = "yarn.scheduler.capacity.root.a."
	cases := []struct {
		name string
		keys []string // root.a's keys besides its capacity
		// a's guarantee and maximum on x (MB; x is one 10 GB node) and
		// whether its x asks get containers
		guaranteed, maximum int64
		runs                bool
	}{
		{name: "listed, no keys", keys: []string{a + "accessible-node-labels", "x"}},
		{name: "inherits root's *, no keys"},
		{name: "listed, only the AM share", keys: []string{a + "accessible-node-labels", "x",
			a + "accessible-node-labels.x.maximum-am-resource-percent", "0.5"}, maximum: 10 * lgb, runs: true},
		{name: "only a capacity", keys: []string{a + "accessible-node-labels", "x",
			a + "accessible-node-labels.x.capacity", "0"}, maximum: 10 * lgb, runs: true},
		{name: "only a maximum", keys: []string{a + "accessible-node-labels", "x",
			a + "accessible-node-labels.x.maximum-capacity", "40"}, maximum: 4 * lgb, runs: true},
		{name: "both", keys: []string{a + "accessible-node-labels", "x",
			a + "accessible-node-labels.x.capacity", "30", a + "accessible-node-labels.x.maximum-capacity", "60"},
			guaranteed: 3 * lgb, maximum: 6 * lgb, runs: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			bOnX := "100" // b holds the rest of x
			if tc.guaranteed > 0 {
				bOnX = "70"
			}
			props := append([]string{
				"yarn.scheduler.capacity.root.queues", "a,b",
				"yarn.scheduler.capacity.root.accessible-node-labels.x.capacity", "100",
				a + "capacity", "50",
				a + "user-limit-factor", "100",
				"yarn.scheduler.capacity.root.b.capacity", "50",
				"yarn.scheduler.capacity.root.b.accessible-node-labels", "x",
				"yarn.scheduler.capacity.root.b.accessible-node-labels.x.capacity", bOnX,
			}, tc.keys...)
			w := xmlLabelWorld(t, props...)

			p := w.partitionInfo("root.a", "x")
			assert.True(t, p.Accessible, "a may access x")
			assert.Equal(t, tc.guaranteed, p.Guaranteed.Memory, "guaranteed")
			assert.Equal(t, tc.maximum, p.Maximum.Memory, "maximum")

			// An x ask of a is accepted (a may access x) and runs only
			// where a has a maximum there.
			w.launch("app", "a", "", lgb, "d")
			w.ask("app", lgb, 8, "x")
			w.hb("x1", 10)
			n := w.on("app", "x1")
			if tc.runs {
				assert.Positive(t, n)
				assert.LessOrEqual(t, int64(n)*lgb, tc.maximum)
			} else {
				assert.Zero(t, n)
				assert.Equal(t, int64(8*lgb), w.pendingMB("app"))
			}
		})
	}
}

// TestRootHoldsEveryPartition: whatever the root's keys for a label say,
// the root holds all of the partition, as in YARN 3.4: QueueNodeLabelsSettings
// gives the root every label any queue configures, and
// CapacitySchedulerConfiguration.internalGetLabeledQueueCapacity reads 100
// for the root's capacity and maximum (3.3 too, for labels the root has a
// key for; 3.1 and 3.2 read the root's values, and no key is 0).
func TestRootHoldsEveryPartition(t *testing.T) {
	const root = "yarn.scheduler.capacity.root.accessible-node-labels.x."
	cases := []struct {
		name  string
		keys  []string // the root's keys for x
		onX   bool     // a has accessible-node-labels.x.capacity=100
		a, mx int64    // a's guarantee and maximum on x (MB, x is 10 GB)
	}{
		{name: "no root key", onX: true, a: 10 * lgb, mx: 10 * lgb},
		{name: "root maximum only", keys: []string{root + "maximum-capacity", "100"}, onX: true, a: 10 * lgb, mx: 10 * lgb},
		{name: "root capacity 50", keys: []string{root + "capacity", "50", root + "maximum-capacity", "50"}, onX: true, a: 10 * lgb, mx: 10 * lgb},
		{name: "root capacity 100", keys: []string{root + "capacity", "100"}, onX: true, a: 10 * lgb, mx: 10 * lgb},
		// Ambari's -1 pair on the root, no child configuring x: the file
		// loads (YARN 3 refuses -1) and a has no share of x.
		{name: "root -1 pair", keys: []string{root + "capacity", "-1", root + "maximum-capacity", "-1"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			props := append([]string{
				"yarn.scheduler.capacity.root.queues", "a,b",
				"yarn.scheduler.capacity.root.a.capacity", "50",
				"yarn.scheduler.capacity.root.a.accessible-node-labels", "x",
				"yarn.scheduler.capacity.root.b.capacity", "50",
			}, tc.keys...)
			if tc.onX {
				props = append(props, "yarn.scheduler.capacity.root.a.accessible-node-labels.x.capacity", "100")
			}
			w := xmlLabelWorld(t, props...)
			r := w.partitionInfo("root", "x")
			assert.Equal(t, int64(10*lgb), r.Guaranteed.Memory, "root's guarantee")
			assert.Equal(t, int64(10*lgb), r.Maximum.Memory, "root's maximum")
			p := w.partitionInfo("root.a", "x")
			assert.Equal(t, tc.a, p.Guaranteed.Memory, "a's guarantee")
			assert.Equal(t, tc.mx, p.Maximum.Memory, "a's maximum")
		})
	}
}

// xmlLabelWorld is a scheduler of the capacity-scheduler.xml props (label
// x only) with a 10 GB default node d and a 10 GB node x1 labelled x.
func xmlLabelWorld(t *testing.T, props ...string) *labelWorld {
	t.Helper()
	cfg, err := ParseXML(strings.NewReader(xmlDoc(props...)))
	require.NoError(t, err)
	require.Equal(t, []NodeLabel{{Name: "x"}}, cfg.NodeLabels)
	cfg.MinAllocation = berth.New(lgb, 1)
	cfg.Clock = berth.NewManualClock(0)
	s, err := New(cfg)
	require.NoError(t, err)
	require.NoError(t, s.AddNodes(lnode("d", "", 10*lgb), lnode("x1", "x", 10*lgb)))
	return &labelWorld{t: t, s: s}
}
