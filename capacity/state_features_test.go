package capacity

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/berthsched/berth"
)

// A version 2 snapshot written before the YARN 3.x block existed (by the
// scheduler of the time, from buildRandom's seed 5 after 400 steps) still
// restores, with YARN's defaults for the 3.x state; saving it again
// writes version 3, the block first.
func TestRestoreVersion2SnapshotWithoutFeatures(t *testing.T) {
	old, err := os.ReadFile("testdata/capacity-v2.snap")
	require.NoError(t, err)
	clock := berth.NewManualClock(140284)
	s, err := RestoreScheduler(bytes.NewReader(old), RestoreEnv{Clock: clock, Groups: groupsOf{"u0": {"g1"}}})
	require.NoError(t, err)
	require.NoError(t, s.Check())

	assert.Len(t, s.apps, 38)
	assert.Equal(t, 41, s.live.Len())
	assert.Len(t, s.resvByID, 2)
	assert.Len(t, s.nodes, 29)
	for _, a := range s.apps {
		assert.True(t, a.runnable, a.id)
		assert.Equal(t, berth.MaxTime, a.deadline, a.id)
	}
	def, cfg := DefaultConfig(), s.Config()
	assert.Equal(t, def.MaxParallelApps, cfg.MaxParallelApps)
	assert.Equal(t, def.Async, cfg.Async)
	assert.Equal(t, def.MultiNode, cfg.MultiNode)
	assert.Equal(t, def.AutoQueueExpiration, cfg.AutoQueueExpiration)
	eachQueueConfig(&cfg.Root, func(q *QueueConfig) {
		assert.Equal(t, DefaultSettings().MaxParallelApps, q.Settings.MaxParallelApps, q.Name)
	})

	again := saveBytes(t, s)
	first, _ := binary.Uvarint(unseal(stateKind, stateVersion, again))
	assert.Equal(t, uint64(featuresMarker), first, "the block opens the body")
	assert.Equal(t, again, seal(stateKind, versionLabels, unseal(stateKind, stateVersion, again)), "saved as version 3")
	r := restoreBytes(t, again, clock)
	assert.Equal(t, again, saveBytes(t, r))

	// Both go on scheduling, alike.
	total := 0
	for _, id := range sortedKeys(s.nodes) {
		clock.Advance(100)
		a1, err := s.Heartbeat(id, nil)
		require.NoError(t, err)
		a2, err := r.Heartbeat(id, nil)
		require.NoError(t, err)
		assert.Equal(t, a1, a2, id)
		total += len(a1)
	}
	require.NoError(t, s.Check())
	t.Logf("%d allocations after the restore", total)
}

// A block that disagrees with the body (fewer application records, or
// settings for a queue the body lacks) is refused as corrupt.
func TestStateFeaturesBlockMismatch(t *testing.T) {
	orig, _, _ := buildRandom(t, 3, 120)
	body := unseal(stateKind, stateVersion, saveBytes(t, orig))
	require.NotEmpty(t, orig.apps)
	// The second field of the block after the config features is the
	// settings count; rather than parse, drop the block and put back one
	// whose application list is empty.
	orig.mu.Lock()
	var blk bytes.Buffer
	e := berth.NewStateEncoder(&blk, stateKind, stateVersion)
	nodeIDs := sortedKeys(orig.nodes)
	orig.writeFeatures(e, nodeIDs, nil)
	require.NoError(t, e.Finish())
	var full bytes.Buffer
	e = berth.NewStateEncoder(&full, stateKind, stateVersion)
	orig.writeFeatures(e, nodeIDs, orig.appsBySeq())
	require.NoError(t, e.Finish())
	orig.mu.Unlock()
	short, long := unseal(stateKind, stateVersion, blk.Bytes()), unseal(stateKind, stateVersion, full.Bytes())
	require.True(t, bytes.HasPrefix(body, long))
	bad := append(append([]byte{}, short...), body[len(long):]...)
	_, err := RestoreScheduler(bytes.NewReader(seal(stateKind, stateVersion, bad)),
		RestoreEnv{Clock: berth.NewManualClock(0), Groups: groupsOf{"u0": {"g1"}}})
	require.ErrorIs(t, err, berth.ErrCorruptState)
	assert.Contains(t, err.Error(), "YARN 3.x state")
}

// A version 2 snapshot with the YARN 3.x block, written by the scheduler
// before node labels (v2FeaturesWorld: auto-created v2 queues, a user's
// max-parallel-apps holding one application back, lifetimes, priorities,
// asynchronous rounds), restores whole (testdata/capacity-v2-features.json
// holds what it held), saves as version 3 with the block first, and the
// original and its copy go on deciding alike: rounds, expiry, the waiting
// application made runnable.
func TestRestoreVersion2SnapshotWithFeatures(t *testing.T) {
	old, err := os.ReadFile("testdata/capacity-v2-features.snap")
	require.NoError(t, err)
	var want []string
	j, err := os.ReadFile("testdata/capacity-v2-features.json")
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(j, &want))
	clock := berth.NewManualClock(2250)
	s, err := RestoreScheduler(bytes.NewReader(old), RestoreEnv{Clock: clock})
	require.NoError(t, err)
	require.NoError(t, s.Check())
	assert.Equal(t, want, v2FeaturesSummary(s))
	cfg := s.Config()
	assert.True(t, cfg.Async.Enabled)
	assert.Equal(t, 2, cfg.UserMaxParallelApps)
	assert.Empty(t, cfg.NodeLabels)

	again := saveBytes(t, s)
	body := unseal(stateKind, stateVersion, again)
	first, _ := binary.Uvarint(body)
	assert.Equal(t, uint64(featuresMarker), first, "the block opens the body")
	assert.Equal(t, again, seal(stateKind, versionLabels, body), "saved as version 3")
	r := restoreBytes(t, again, clock)
	assert.Equal(t, want, v2FeaturesSummary(r))
	assert.Equal(t, again, saveBytes(t, r))

	steps := func(ds ...int64) {
		t.Helper()
		for _, d := range ds {
			clock.Advance(d)
			e1, err := s.ExpireApps()
			require.NoError(t, err)
			e2, err := r.ExpireApps()
			require.NoError(t, err)
			assert.Equal(t, e1, e2)
			a1, err := s.ScheduleRound()
			require.NoError(t, err)
			a2, err := r.ScheduleRound()
			require.NoError(t, err)
			assert.Equal(t, a1, a2)
		}
	}
	assert.False(t, s.apps["a2"].runnable, "a user's third application waits")
	steps(100, 199_000, 1_000)
	assert.NotContains(t, s.apps, "a1", "a1's lifetime ran out")
	assert.True(t, s.apps["a2"].runnable, "a1's end lets a2 run")
	steps(200_000, 200_000)
	assert.NotContains(t, s.apps, "a2", "a2's lifetime ran out")
	assert.Equal(t, v2FeaturesSummary(s), v2FeaturesSummary(r))
	require.NoError(t, s.Check())
}

// A version 3 body without the YARN 3.x block restores with YARN's
// defaults for it, as an older body does.
func TestRestoreVersion3WithoutFeatures(t *testing.T) {
	orig, _, _ := buildRandomWith(t, 4, 150, func(c *Config) {
		c.NodeLabels = []NodeLabel{{Name: "x", NonExclusive: true}}
	})
	body := unseal(stateKind, stateVersion, saveBytes(t, orig))
	orig.mu.Lock()
	var blk bytes.Buffer
	e := berth.NewStateEncoder(&blk, stateKind, stateVersion)
	orig.writeFeatures(e, sortedKeys(orig.nodes), orig.appsBySeq())
	require.NoError(t, e.Finish())
	orig.mu.Unlock()
	block := unseal(stateKind, stateVersion, blk.Bytes())
	require.True(t, bytes.HasPrefix(body, block))
	s, err := RestoreScheduler(bytes.NewReader(seal(stateKind, stateVersion, body[len(block):])),
		RestoreEnv{Clock: berth.NewManualClock(0), Groups: groupsOf{"u0": {"g1"}}})
	require.NoError(t, err)
	require.NoError(t, s.Check())
	assert.Equal(t, orig.Snapshot().Containers, s.Snapshot().Containers)
	for _, a := range s.apps {
		assert.True(t, a.runnable, a.id)
		assert.Equal(t, berth.MaxTime, a.deadline, a.id)
	}
}
