package capacity

import (
	"bytes"
	"encoding/binary"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/berthsched/berth"
)

// A version 2 snapshot written before the YARN 3.x block existed (by the
// scheduler of the time, from buildRandom's seed 5 after 400 steps) still
// restores, with YARN's defaults for the 3.x state; saving it again
// writes the block followed by the very body it was read from.
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
	oldBody, newBody := unseal(stateKind, stateVersion, old), unseal(stateKind, stateVersion, again)
	first, _ := binary.Uvarint(newBody)
	assert.Equal(t, uint64(featuresMarker), first, "the block opens the body")
	assert.True(t, bytes.HasSuffix(newBody, oldBody), "the version 2 layout is unchanged after the block")
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
