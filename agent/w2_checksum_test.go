package agent_test

import (
	"fmt"
	"hash/fnv"
	"testing"

	"github.com/stretchr/testify/require"
)

// rejectedChecksum is the decision checksum of WORKLOADS.md: FNV-1a (64
// bits) of the rejected ids, each written in decimal and followed by a
// comma, in order.
func rejectedChecksum(rejected []int) uint64 {
	h := fnv.New64a()
	for _, id := range rejected {
		fmt.Fprintf(h, "%d,", id)
	}
	return h.Sum64()
}

// TestW2HotRejectedIDs pins which W2-hot requests are rejected, not only
// how many: the search shortcuts of the greedy (stretch test, peak probe)
// must reject exactly the ids the plain scan rejected. Both checksums were
// taken from the agent before those shortcuts existed.
func TestW2HotRejectedIDs(t *testing.T) {
	reqs, want := w2Requests(), uint64(0xf6855873838c675)
	if testing.Short() || raceEnabled {
		reqs, want = reqs[:2500], 0xb0ef53604292c365
	}
	_, rej, err := runW2(t, reqs, 20)
	require.NoError(t, err)
	require.Equal(t, want, rejectedChecksum(rej), "rejected ids changed")
}
