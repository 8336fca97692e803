package fair

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func (h *harness) counts(path string) (runnable, waiting int) {
	q := h.queue(path)
	return q.NumRunnable, q.NumPending
}

func (h *harness) finish(id string) {
	h.t.Helper()
	_, err := h.s.FinishApp(id)
	require.NoError(h.t, err)
	require.NoError(h.t, h.s.Check())
}

// F-12..F-16: the max-running-apps enforcer.
func TestMaxRunningApps(t *testing.T) {
	type c2 = [2]int
	get := func(h *harness, p string) c2 { r, w := h.counts(p); return c2{r, w} }
	t.Run("F-12 removal enables nothing", func(t *testing.T) {
		h := newHarness(t, DefaultConfig(), allocXML(`<queue name="root"><maxRunningApps>2</maxRunningApps>
<queue name="leaf1"><maxRunningApps>1</maxRunningApps></queue><queue name="leaf2"><maxRunningApps>1</maxRunningApps></queue></queue>`))
		a1 := h.request(1024, "root.leaf1", "user", 1)
		h.request(1024, "root.leaf2", "user", 1)
		h.request(1024, "root.leaf2", "user", 1)
		assert.Equal(t, c2{1, 0}, get(h, "root.leaf1"))
		assert.Equal(t, c2{1, 1}, get(h, "root.leaf2"))
		h.finish(a1)
		assert.Equal(t, c2{0, 0}, get(h, "root.leaf1"))
		assert.Equal(t, c2{1, 1}, get(h, "root.leaf2"))
	})
	t.Run("F-13 cousin queue", func(t *testing.T) {
		h := newHarness(t, DefaultConfig(), allocXML(`<queue name="queue1" type="parent"><maxRunningApps>2</maxRunningApps></queue>`))
		l1, l2 := "root.queue1.subqueue1.leaf1", "root.queue1.subqueue2.leaf2"
		a1 := h.request(1024, l1, "user", 1)
		h.request(1024, l2, "user", 1)
		h.request(1024, l2, "user", 1)
		assert.Equal(t, c2{1, 0}, get(h, l1))
		assert.Equal(t, c2{1, 1}, get(h, l2))
		h.finish(a1)
		assert.Equal(t, c2{0, 0}, get(h, l1))
		assert.Equal(t, c2{2, 0}, get(h, l2))
	})
	t.Run("F-14 one by queue one by user", func(t *testing.T) {
		h := newHarness(t, DefaultConfig(), allocXML(`<queue name="queue1"><queue name="leaf1"><maxRunningApps>2</maxRunningApps></queue></queue>
<user name="user1"><maxRunningApps>1</maxRunningApps></user>`))
		l1, l2 := "root.queue1.leaf1", "root.queue1.leaf2"
		a1 := h.request(1024, l1, "user1", 1)
		h.request(1024, l1, "user2", 1)
		h.request(1024, l1, "user3", 1)
		h.request(1024, l2, "user1", 1)
		assert.Equal(t, c2{2, 1}, get(h, l1))
		assert.Equal(t, c2{0, 1}, get(h, l2))
		h.finish(a1)
		assert.Equal(t, c2{2, 0}, get(h, l1))
		assert.Equal(t, c2{1, 0}, get(h, l2))
	})
	t.Run("F-15 ordered by start time", func(t *testing.T) {
		h := newHarness(t, DefaultConfig(), allocXML(`<queue name="queue1" type="parent"><maxRunningApps>2</maxRunningApps></queue>`))
		l1, l2 := "root.queue1.subqueue1.leaf1", "root.queue1.subqueue2.leaf2"
		a1 := h.request(1024, l1, "user", 1)
		h.request(1024, l2, "user", 1)
		h.request(1024, l2, "user", 1)
		h.clock.Advance(20000)
		h.request(1024, l1, "user", 1)
		assert.Equal(t, c2{1, 1}, get(h, l1))
		assert.Equal(t, c2{1, 1}, get(h, l2))
		h.finish(a1)
		assert.Equal(t, c2{0, 1}, get(h, l1))
		assert.Equal(t, c2{2, 0}, get(h, l2))
	})
	t.Run("F-16 several waiting on cousin", func(t *testing.T) {
		h := newHarness(t, DefaultConfig(), allocXML(`<queue name="queue1" type="parent"><maxRunningApps>2</maxRunningApps></queue>`))
		l1, l2 := "root.queue1.subqueue1.leaf1", "root.queue1.subqueue2.leaf2"
		a1 := h.request(1024, l1, "user", 1)
		for range 3 {
			h.request(1024, l2, "user", 1)
		}
		assert.Equal(t, c2{1, 2}, get(h, l2))
		h.finish(a1)
		assert.Equal(t, c2{2, 1}, get(h, l2))
	})
	t.Run("reload raises the limit", func(t *testing.T) {
		h := newHarness(t, DefaultConfig(), allocXML(`<queue name="q"><maxRunningApps>1</maxRunningApps></queue>`))
		h.request(1024, "root.q", "user", 1)
		h.request(1024, "root.q", "user", 1)
		h.request(1024, "root.q", "user", 1)
		assert.Equal(t, c2{1, 2}, get(h, "root.q"))
		af, err := ParseAllocationFile([]byte(allocXML(`<queue name="q"><maxRunningApps>5</maxRunningApps></queue>`)), ParseOptions{})
		require.NoError(t, err)
		reloadOK(t, h.s, (af))
		assert.Equal(t, c2{3, 0}, get(h, "root.q"))
	})
}

// F-17: the merge of waiting lists by start time.
func TestStartTimeIterator(t *testing.T) {
	a := &app{seq: 1}
	a.StartTime = 1
	b := &app{seq: 2}
	b.StartTime = 2
	c := &app{seq: 3}
	c.StartTime = 2
	it := newStartTimeIterator([][]*app{{a}, {b}, nil, {c}})
	var got []*app
	for x := it.next(); x != nil; x = it.next() {
		got = append(got, x)
	}
	assert.Equal(t, []*app{a, b, c}, got)
}
