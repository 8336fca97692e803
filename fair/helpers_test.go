package fair

import (
	"fmt"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
	"github.com/stretchr/testify/require"
)

func newRes(m, v int64) berth.Resource { return berth.New(m, v) }

// harness drives a scheduler the way YARN's TestFairScheduler does.
type harness struct {
	t     testing.TB
	s     *Scheduler
	clock *berth.ManualClock
	nApps int
	nodes int
}

func newHarness(t testing.TB, cfg Config, xml string) *harness {
	t.Helper()
	var af *AllocationFile
	if xml != "" {
		var err error
		af, err = ParseAllocationFile([]byte(xml), ParseOptions{ResourceTypes: cfg.ResourceTypes})
		require.NoError(t, err)
	}
	clock := berth.NewManualClock(0)
	// TestFairScheduler raises the maximum allocation to 10 GB.
	cfg.MaxAllocation.Memory = max(cfg.MaxAllocation.Memory, 10240)
	if cfg.Groups == nil {
		cfg.Groups = queue.GroupsFunc(func(u string) []string { return []string{u + "group", u + "subgroup1", u + "subgroup2"} })
	}
	cfg.Allocation = af
	cfg.Clock = clock
	s, err := New(cfg)
	require.NoError(t, err)
	return &harness{t: t, s: s, clock: clock}
}

func (h *harness) addNode(mem, vc int64) string {
	h.t.Helper()
	h.nodes++
	id := fmt.Sprintf("node%d", h.nodes)
	require.NoError(h.t, h.s.AddNode(NodeSpec{ID: id, Rack: "/rack1", Capability: berth.New(mem, vc)}))
	return id
}

// request is createSchedulingRequest: an application in queue for user
// asking count containers of <mem, 1> anywhere at priority 1.
func (h *harness) request(mem int64, queueName, user string, count int) string {
	h.t.Helper()
	h.nApps++
	id := fmt.Sprintf("app%02d", h.nApps)
	h.clock.Advance(1)
	_, err := h.s.SubmitApp(AppSpec{ID: id, Queue: queueName, User: user})
	require.NoError(h.t, err)
	_, err = h.s.Allocate(id, []Ask{{Priority: 1, ResourceName: AnyResource, Capability: berth.New(mem, 1), Count: count}}, nil)
	require.NoError(h.t, err)
	return id
}

func (h *harness) queue(path string) *QueueInfo {
	h.t.Helper()
	q := h.s.Snapshot().Queue(path)
	require.NotNil(h.t, q, "queue %s", path)
	return q
}

func allocXML(body string) string {
	return `<?xml version="1.0"?><allocations>` + body + `</allocations>`
}

func reloadOK(t testing.TB, s *Scheduler, af *AllocationFile) ReloadResult {
	t.Helper()
	res, err := s.Reload(af)
	require.NoError(t, err)
	return res
}
