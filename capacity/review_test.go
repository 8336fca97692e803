package capacity

import (
	"testing"

	"github.com/berthsched/berth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// activeApps lists the activated applications of the snapshot.
func activeApps(h *harness) []string {
	var out []string
	for _, a := range h.s.Snapshot().Apps {
		if a.Active {
			out = append(out, a.ID)
		}
	}
	return out
}

// YARN waives the user AM limit only while the QUEUE has no AM running
// (LeafQueue.activateApplications checks queueUsage.getAMUsed), not while
// the user has none: a second user's oversized AM waits.
func TestUserAMLimitWaiverIsPerQueue(t *testing.T) {
	cfg := DefaultConfig()
	a := Queue("a", 100)
	a.Settings.UserLimitFactor = 0.25 // user AM limit: 16 GB × 0.5 × 0.25 = 2 GB
	cfg.Root.Children = []QueueConfig{a}
	cfg.MaximumAMResourcePercent = 0.5 // queue AM limit 8 GB
	h := newHarness(t, cfg, mkNode("n1", 16*gb, 16))
	_, err := h.s.SubmitApp(AppSpec{ID: "a1", Queue: "a", User: "u1", AMResource: berth.New(3*gb, 1)})
	require.NoError(t, err)
	assert.Equal(t, []string{"a1"}, activeApps(h), "the first AM of the queue is always allowed")
	_, err = h.s.SubmitApp(AppSpec{ID: "a2", Queue: "a", User: "u2", AMResource: berth.New(3*gb, 1)})
	require.NoError(t, err)
	assert.Equal(t, []string{"a1"}, activeApps(h), "u2's 3 GB AM exceeds its 2 GB user AM limit while the queue runs an AM")
	_, err = h.s.FinishApp("a1")
	require.NoError(t, err)
	assert.Equal(t, []string{"a2"}, activeApps(h), "with no AM in the queue the limit is waived")
	require.NoError(t, h.s.Check())
}

// The amount a user over its limit must unreserve belongs to that user's
// application only: YARN resets it per application (canAssignToUser). It
// used to leak to the next application, which then could not allocate
// without a reservation of its own to give up.
func TestNeedUnreserveDoesNotLeakToNextApp(t *testing.T) {
	cfg := DefaultConfig()
	a := Queue("a", 100)
	a.Settings.MinUserLimitPercent = 50
	cfg.Root.Children = []QueueConfig{a}
	cfg.MaxOffSwitchAssignments = 10
	h := newHarness(t, cfg, mkNode("n1", 8*gb, 8), mkNode("n2", 3*gb, 8))
	h.submit("app1", "a", "u1")
	h.ask("app1", 1, 2*gb, 3)
	require.Len(t, h.beat("n1"), 3)
	h.ask("app1", 2, 4*gb, 1)
	require.Empty(t, h.beat("n1"), "4 GB does not fit the 2 GB left: n1 is reserved")
	require.Len(t, h.s.Snapshot().Reservations, 1)
	h.submit("app2", "a", "u2")
	h.ask("app2", 1, 1*gb, 1)
	// u1 (10 GB with its reservation) is over its 6 GB limit but may go on
	// by unreserving; its 4 GB ask cannot run on the 3 GB n2, so app2 is
	// next, and u2 is well within its limit.
	al := h.beat("n2")
	require.Len(t, al, 1)
	assert.Equal(t, "app2", al[0].App)
	require.NoError(t, h.s.Check())
}
