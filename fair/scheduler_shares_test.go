package fair

import (
	"testing"

	"github.com/berthsched/berth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const hierXML = `<queue name="parentA"><weight>8</weight>
  <queue name="childA1"/><queue name="childA2"/><queue name="childA3"/><queue name="childA4"/></queue>
<queue name="parentB"><weight>1</weight><queue name="childB1"/><queue name="childB2"/></queue>`

// B-13..B-17, B-19: hierarchical instantaneous and steady shares (fair).
func TestHierarchicalFairShare(t *testing.T) {
	mem := func(h *harness, p string) int64 { return h.queue(p).FairShare.Memory }
	t.Run("B-13 no apps", func(t *testing.T) {
		h := newHarness(t, DefaultConfig(), allocXML(hierXML))
		h.addNode(16384, 1)
		h.s.Update()
		for _, p := range []string{"root.parentA.childA1", "root.parentB.childB1", "root.default"} {
			assert.Equal(t, int64(0), mem(h, p), p)
		}
		// B-19 steady shares
		assert.Equal(t, int64(13108), h.queue("root.parentA").SteadyFairShare.Memory)
		assert.Equal(t, int64(1638), h.queue("root.parentB").SteadyFairShare.Memory)
		assert.Equal(t, int64(1638), h.queue("root.default").SteadyFairShare.Memory)
		for _, c := range []string{"childA1", "childA2", "childA3", "childA4"} {
			assert.Equal(t, int64(3277), h.queue("root.parentA."+c).SteadyFairShare.Memory)
		}
		assert.Equal(t, int64(819), h.queue("root.parentB.childB1").SteadyFairShare.Memory)
		assert.Equal(t, int64(819), h.queue("root.parentB.childB2").SteadyFairShare.Memory)
	})
	t.Run("B-14 one app", func(t *testing.T) {
		h := newHarness(t, DefaultConfig(), allocXML(hierXML))
		h.addNode(16384, 1)
		h.request(2*1024, "root.parentA.childA1", "user1", 1)
		h.s.Update()
		assert.Equal(t, int64(16384), mem(h, "root.parentA"))
		assert.Equal(t, int64(16384), mem(h, "root.parentA.childA1"))
		assert.Equal(t, int64(0), mem(h, "root.parentA.childA2"))
		assert.Equal(t, int64(0), mem(h, "root.parentB"))
	})
	t.Run("B-15 same parent", func(t *testing.T) {
		h := newHarness(t, DefaultConfig(), allocXML(hierXML))
		h.addNode(16384, 1)
		for _, c := range []string{"childA1", "childA2", "childA3"} {
			h.request(2*1024, "root.parentA."+c, "user1", 1)
		}
		h.s.Update()
		for _, c := range []string{"childA1", "childA2", "childA3"} {
			assert.Equal(t, int64(5462), mem(h, "root.parentA."+c))
		}
	})
	t.Run("B-16 different parents", func(t *testing.T) {
		h := newHarness(t, DefaultConfig(), allocXML(hierXML))
		h.addNode(16384, 1)
		for _, q := range []string{"root.parentA.childA1", "root.parentA.childA2", "root.parentB.childB1", "root.default"} {
			h.request(2*1024, q, "user1", 1)
		}
		h.s.Update()
		assert.Equal(t, int64(13108), mem(h, "root.parentA"))
		assert.Equal(t, int64(1638), mem(h, "root.parentB"))
		assert.Equal(t, int64(1638), mem(h, "root.default"))
		assert.Equal(t, int64(6554), mem(h, "root.parentA.childA1"))
		assert.Equal(t, int64(6554), mem(h, "root.parentA.childA2"))
		assert.Equal(t, int64(1638), mem(h, "root.parentB.childB1"))
		assert.InDelta(t, 0.40, float64(mem(h, "root.parentA.childA1"))/16384, 0.009)
	})
	t.Run("B-17 reset when apps complete", func(t *testing.T) {
		h := newHarness(t, DefaultConfig(), allocXML(hierXML))
		h.addNode(16384, 1)
		a1 := h.request(2*1024, "root.parentA.childA1", "user1", 1)
		h.request(2*1024, "root.parentA.childA2", "user1", 1)
		h.s.Update()
		assert.Equal(t, int64(8192), mem(h, "root.parentA.childA1"))
		_, err := h.s.FinishApp(a1)
		require.NoError(t, err)
		h.s.Update()
		assert.Equal(t, int64(0), mem(h, "root.parentA.childA1"))
		assert.Equal(t, int64(16384), mem(h, "root.parentA.childA2"))
	})
}

// B-18, B-20: the same under DRF.
func TestHierarchicalDRF(t *testing.T) {
	h := newHarness(t, DefaultConfig(), allocXML(hierXML+`<defaultQueueSchedulingPolicy>drf</defaultQueueSchedulingPolicy>`))
	h.addNode(16384, 10)
	for _, q := range []string{"root.parentA.childA1", "root.parentA.childA2", "root.parentB.childB1", "root.default"} {
		h.request(2*1024, q, "user1", 1)
	}
	h.s.Update()
	vc := func(p string) int64 { return h.queue(p).FairShare.VCores }
	assert.Equal(t, int64(8), vc("root.parentA"))
	assert.Equal(t, int64(1), vc("root.parentB"))
	assert.Equal(t, int64(1), vc("root.default"))
	assert.Equal(t, int64(4), vc("root.parentA.childA1"))
	assert.Equal(t, int64(4), vc("root.parentA.childA2"))
	assert.Equal(t, int64(1), vc("root.parentB.childB1"))
	assert.Equal(t, int64(6554), h.queue("root.parentA.childA1").FairShare.Memory)
	// B-20 steady: A leaves 2 vcores, B leaves 1 vcore each (upper bound).
	for _, c := range []string{"childA1", "childA2", "childA3", "childA4"} {
		assert.Equal(t, int64(2), h.queue("root.parentA."+c).SteadyFairShare.VCores)
	}
	assert.Equal(t, int64(1), h.queue("root.parentB.childB1").SteadyFairShare.VCores)
	assert.Equal(t, int64(1), h.queue("root.parentB.childB2").SteadyFairShare.VCores)
}

// B-22..B-30: TestFairScheduler's fair-share cases.
func TestFairSchedulerShares(t *testing.T) {
	t.Run("B-22 simple", func(t *testing.T) {
		h := newHarness(t, DefaultConfig(), "")
		h.addNode(10240, 1)
		for _, q := range []string{"root.queue1", "root.queue2", "root.default"} {
			h.request(10240, q, "user1", 1)
		}
		h.s.Update()
		leaves := 0
		for _, q := range h.s.Snapshot().Queues {
			if q.Leaf {
				leaves++
				assert.Equal(t, int64(3414), q.FairShare.Memory, q.Path)
				assert.Equal(t, int64(3414), q.SteadyFairShare.Memory, q.Path)
			}
		}
		assert.Equal(t, 3, leaves)
	})
	t.Run("B-23 high max resources", func(t *testing.T) {
		h := newHarness(t, DefaultConfig(), allocXML(`<queue name="queueA"><maxResources>1073741824 mb 1000 vcores</maxResources><weight>.25</weight></queue>
<queue name="queueB"><maxResources>1073741824 mb 1000 vcores</maxResources><weight>.75</weight></queue>`))
		h.addNode(8192, 8)
		h.request(1024, "queueA", "user1", 1)
		h.request(6144, "queueB", "user1", 1)
		h.s.Update()
		assert.Equal(t, int64(2048), h.queue("root.queueA").FairShare.Memory)
		assert.Equal(t, int64(6144), h.queue("root.queueB").FairShare.Memory)
	})
	t.Run("B-24 low max resources", func(t *testing.T) {
		h := newHarness(t, DefaultConfig(), allocXML(`<queue name="queueA"><maxResources>1024 mb 1 vcores</maxResources><weight>.75</weight></queue>
<queue name="queueB"><maxResources>3072 mb 3 vcores</maxResources><weight>.25</weight></queue>`))
		n := h.addNode(8192, 8)
		a := h.request(1024, "queueA", "user1", 2)
		b := h.request(1024, "queueB", "user1", 4)
		h.s.Update()
		assert.Equal(t, int64(1024), h.queue("root.queueA").FairShare.Memory)
		assert.Equal(t, int64(3072), h.queue("root.queueB").FairShare.Memory)
		for range 6 {
			_, err := h.s.Heartbeat(n, nil)
			require.NoError(t, err)
		}
		sn := h.s.Snapshot()
		assert.Equal(t, 1, sn.App(a).Containers)
		assert.Equal(t, 3, sn.App(b).Containers)
	})
	for _, tc := range []struct {
		name, xml  string
		dA, dB     int64
		wantA, wnB int64
	}{
		{"B-25 zero weight", `<queue name="queueA"><weight>0.0</weight></queue><queue name="queueB"><weight>0.0</weight></queue>`, 2048, 6144, 0, 0},
		{"B-26 zero weight with min", `<queue name="queueA"><weight>0.0</weight><minResources>1 mb 1 vcores</minResources></queue>
<queue name="queueB"><weight>0.0</weight><minResources>1 mb 1 vcores</minResources></queue>`, 2048, 6144, 1, 1},
		{"B-27 weights and min", `<queue name="queueA"><weight>0.5</weight><minResources>1024 mb 1 vcores</minResources></queue>
<queue name="queueB"><weight>0.5</weight><minResources>1024 mb 1 vcores</minResources></queue>`, 4096, 4096, 4096, 4096},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, DefaultConfig(), allocXML(tc.xml))
			h.addNode(8192, 8)
			h.request(tc.dA, "queueA", "user1", 1)
			h.request(tc.dB, "queueB", "user1", 1)
			h.s.Update()
			assert.Equal(t, tc.wantA, h.queue("root.queueA").FairShare.Memory)
			assert.Equal(t, tc.wnB, h.queue("root.queueB").FairShare.Memory)
		})
	}
	t.Run("B-28 hierarchical", func(t *testing.T) {
		h := newHarness(t, DefaultConfig(), "")
		h.addNode(240, 1)
		for _, q := range []string{"root.parent.queue2", "root.parent.queue3", "root.default"} {
			h.request(10240, q, "user1", 1)
		}
		h.s.Update()
		for p, want := range map[string]int64{"root.default": 120, "root.parent.queue2": 60, "root.parent.queue3": 60} {
			assert.Equal(t, want, h.queue(p).FairShare.Memory, p)
			assert.Equal(t, want, h.queue(p).SteadyFairShare.Memory, p)
		}
	})
	t.Run("B-29 min alloc", func(t *testing.T) {
		h := newHarness(t, DefaultConfig(), allocXML(`<queue name="queueA"><minResources>1024mb,0vcores</minResources></queue>
<queue name="queueB"><minResources>2048mb,0vcores</minResources></queue>`))
		h.addNode(3072, 1)
		h.request(2048, "queueA", "user1", 1)
		h.request(2048, "queueB", "user1", 1)
		h.s.Update()
		assert.Equal(t, int64(1024), h.queue("root.queueA").FairShare.Memory)
		assert.Equal(t, int64(2048), h.queue("root.queueB").FairShare.Memory)
	})
	t.Run("B-30 nested user queue", func(t *testing.T) {
		h := newHarness(t, DefaultConfig(), allocXML(`<queue name="parentq" type="parent"><minResources>1024mb,0vcores</minResources></queue>
<queuePlacementPolicy><rule name="nestedUserQueue"><rule name="specified" create="false"/></rule><rule name="default"/></queuePlacementPolicy>`))
		h.addNode(16384, 1)
		h.request(10240, "root.parentq", "user1", 1)
		h.request(10240, "root.parentq", "user2", 1)
		h.request(10240, "root.default", "user3", 1)
		h.s.Update()
		for _, p := range []string{"root.parentq.user1", "root.parentq.user2"} {
			q := h.queue(p)
			assert.Equal(t, int64(4096), q.FairShare.Memory, p)
			assert.Equal(t, int64(4096), q.SteadyFairShare.Memory, p)
			assert.Equal(t, 1.0, q.Weight)
		}
		assert.Equal(t, int64(8192), h.queue("root.parentq").FairShare.Memory)
		assert.Equal(t, int64(8192), h.queue("root.default").FairShare.Memory)
	})
}

// B-31, B-32: steady shares follow nodes, reloads and new queues.
func TestSteadyFairShareChanges(t *testing.T) {
	xml1 := allocXML(`<queue name="root"><schedulingPolicy>drf</schedulingPolicy><queue name="child1"><weight>1</weight></queue><queue name="child2"><weight>1</weight></queue></queue>`)
	h := newHarness(t, DefaultConfig(), xml1)
	assert.Equal(t, int64(0), h.queue("root.child1").SteadyFairShare.Memory)
	n := h.addNode(6144, 1)
	for _, p := range []string{"root.child1", "root.child2", "root.default"} {
		assert.Equal(t, int64(2048), h.queue(p).SteadyFairShare.Memory, p)
	}
	af, err := ParseAllocationFile([]byte(allocXML(`<queue name="root"><schedulingPolicy>drf</schedulingPolicy>
<queue name="child1"><weight>1</weight></queue><queue name="child2"><weight>2</weight></queue><queue name="child3"><weight>2</weight></queue></queue>`)), ParseOptions{})
	require.NoError(t, err)
	reloadOK(t, h.s, (af))
	for p, want := range map[string]int64{"root.child1": 1024, "root.child2": 2048, "root.child3": 2048, "root.default": 1024} {
		assert.Equal(t, want, h.queue(p).SteadyFairShare.Memory, p)
	}
	_, err = h.s.RemoveNode(n)
	require.NoError(t, err)
	assert.Equal(t, int64(0), h.queue("root.child1").SteadyFairShare.Memory)
	assert.Equal(t, int64(0), h.queue("root.child2").SteadyFairShare.Memory)

	h2 := newHarness(t, DefaultConfig(), "")
	h2.addNode(6144, 1)
	assert.Equal(t, int64(6144), h2.queue("root").SteadyFairShare.Memory)
	assert.Equal(t, int64(6144), h2.queue("root.default").SteadyFairShare.Memory)
	h2.request(1024, "user1", "user1", 1)
	assert.Equal(t, int64(3072), h2.queue("root.default").SteadyFairShare.Memory)
	assert.Equal(t, int64(3072), h2.queue("root.user1").SteadyFairShare.Memory)
}

// B-33: the AM share limit, including zero fair shares.
func TestMaxAMResource(t *testing.T) {
	h := newHarness(t, DefaultConfig(), allocXML(`<defaultQueueSchedulingPolicy>drf</defaultQueueSchedulingPolicy>
<queue name="queueFSZeroWithMax"><weight>0</weight><maxAMShare>0.5</maxAMShare><maxResources>4096 mb 4 vcores</maxResources></queue>
<queue name="queueFSZeroWithAVL"><weight>0.0</weight><maxAMShare>0.5</maxAMShare></queue>
<queue name="queueFSNonZero"><weight>1</weight><maxAMShare>0.5</maxAMShare></queue>`))
	n := h.addNode(20480, 20)
	for i, tc := range []struct {
		queue     string
		fairShare int64
		maxAM     berth.Resource
	}{
		{"root.queueFSZeroWithMax", 0, berth.New(2048, 2)},
		{"root.queueFSZeroWithAVL", 0, berth.New(9728, 10)},
		{"root.queueFSNonZero", 20480, berth.New(10240, 10)},
	} {
		id := []string{"am1", "am2", "am3"}[i]
		_, err := h.s.SubmitApp(AppSpec{ID: id, Queue: tc.queue, User: "user1", AMResource: berth.New(1024, 1)})
		require.NoError(t, err)
		h.clock.Advance(1000)
		h.s.Update()
		q := h.queue(tc.queue)
		assert.Equal(t, tc.fairShare, q.FairShare.Memory, tc.queue)
		assert.True(t, q.MaxAMResource.Equal(tc.maxAM), "%s: %v", tc.queue, q.MaxAMResource)
		als, err := h.s.Heartbeat(n, nil)
		require.NoError(t, err)
		require.Len(t, als, 1, tc.queue)
		assert.True(t, als[0].AM)
		assert.Equal(t, int64(1024), h.queue(tc.queue).AMUsage.Memory)
	}
}

// B-34: queue creation rules.
func TestQueueCreation(t *testing.T) {
	h := newHarness(t, DefaultConfig(), "")
	leaves := func() int {
		n := 0
		for _, q := range h.s.Snapshot().Queues {
			if q.Leaf {
				n++
			}
		}
		return n
	}
	q := h.s.getQueue("root.parent.child", true, true)
	require.NotNil(t, q)
	assert.Equal(t, "root.parent.child", q.path)
	assert.Equal(t, 2, leaves())
	assert.Nil(t, h.s.getQueue("root.parent", true, true))
	assert.Equal(t, 2, leaves())
	assert.Nil(t, h.s.getQueue("root.parent.child.grandchild", true, true))
	assert.Equal(t, 2, leaves())
	assert.NotNil(t, h.s.getQueue("root.parent.sister", true, true))
	assert.Equal(t, 3, leaves())
}

// C-23..C-26: policy compatibility on load and reload.
func TestPolicyViolations(t *testing.T) {
	parse := func(x string) *AllocationFile {
		af, err := ParseAllocationFile([]byte(allocXML(x)), ParseOptions{})
		require.NoError(t, err)
		return af
	}
	t.Run("C-23", func(t *testing.T) {
		h := newHarness(t, DefaultConfig(), allocXML(`<defaultQueueSchedulingPolicy>drf</defaultQueueSchedulingPolicy>
<queue name="root"><schedulingPolicy>fair</schedulingPolicy><queue name="child1"><schedulingPolicy>drf</schedulingPolicy></queue><queue name="child2"><schedulingPolicy>fair</schedulingPolicy></queue></queue>`))
		assert.Nil(t, h.s.Snapshot().Queue("root.child1"))
		assert.NotNil(t, h.s.Snapshot().Queue("root.child2"))
		assert.Nil(t, h.s.getQueue("root.dynamicQueue", true, true))
		res := reloadOK(t, h.s, (parse(`<queue name="root"><schedulingPolicy>fair</schedulingPolicy><queue name="child1"><schedulingPolicy>fair</schedulingPolicy></queue><queue name="child2"><schedulingPolicy>drf</schedulingPolicy></queue></queue>`)))
		assert.True(t, res.PoliciesKept)
		assert.NotNil(t, h.s.Snapshot().Queue("root.child1"))
		assert.Equal(t, PolicyFair, h.queue("root.child2").Policy)
	})
	t.Run("C-24", func(t *testing.T) {
		h := newHarness(t, DefaultConfig(), allocXML(`<queue name="root"><schedulingPolicy>fair</schedulingPolicy><queue name="level2"><schedulingPolicy>fair</schedulingPolicy>
<queue name="level3"><schedulingPolicy>drf</schedulingPolicy><queue name="leaf"><schedulingPolicy>fair</schedulingPolicy></queue></queue></queue></queue>`))
		sn := h.s.Snapshot()
		assert.NotNil(t, sn.Queue("root.level2"))
		assert.Nil(t, sn.Queue("root.level2.level3"))
		assert.Nil(t, sn.Queue("root.level2.level3.leaf"))
	})
	t.Run("C-25", func(t *testing.T) {
		h := newHarness(t, DefaultConfig(), allocXML(`<queue name="root"><queue name="intermediate"><schedulingPolicy>fifo</schedulingPolicy><queue name="leaf"><schedulingPolicy>fair</schedulingPolicy></queue></queue></queue>`))
		assert.Nil(t, h.s.Snapshot().Queue("root.intermediate"))
		res := reloadOK(t, h.s, (parse(`<queue name="root"><queue name="intermediate"><schedulingPolicy>fair</schedulingPolicy><queue name="leaf"><schedulingPolicy>fifo</schedulingPolicy></queue></queue></queue>`)))
		assert.False(t, res.PoliciesKept)
		assert.Empty(t, res.Skipped)
		assert.NotNil(t, h.s.Snapshot().Queue("root.intermediate"))
		assert.Equal(t, PolicyFIFO, h.queue("root.intermediate.leaf").Policy)
	})
	t.Run("C-26", func(t *testing.T) {
		h := newHarness(t, DefaultConfig(), allocXML(`<queue name="root"><schedulingPolicy>fair</schedulingPolicy><queue name="child1"><schedulingPolicy>fair</schedulingPolicy></queue><queue name="child2"><schedulingPolicy>fair</schedulingPolicy></queue></queue>`))
		res := reloadOK(t, h.s, (parse(`<queue name="root"><schedulingPolicy>fair</schedulingPolicy><queue name="child1"><schedulingPolicy>drf</schedulingPolicy></queue><queue name="child2"><schedulingPolicy>fifo</schedulingPolicy></queue></queue>`)))
		assert.True(t, res.PoliciesKept)
		assert.Equal(t, PolicyFair, h.queue("root.child1").Policy)
		assert.Equal(t, PolicyFair, h.queue("root.child2").Policy)
		res = reloadOK(t, h.s, (parse(`<queue name="root"><schedulingPolicy>drf</schedulingPolicy><queue name="child1"><schedulingPolicy>drf</schedulingPolicy></queue><queue name="child2"><schedulingPolicy>fifo</schedulingPolicy></queue></queue>`)))
		assert.Equal(t, ReloadResult{}, res)
		assert.Equal(t, PolicyDRF, h.queue("root.child1").Policy)
		assert.Equal(t, PolicyFIFO, h.queue("root.child2").Policy)
	})
}
